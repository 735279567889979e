"""``python -m robodyn.cli``: the ``robodyn`` command."""

import sys

from .main import main

if __name__ == "__main__":  # not when a tool walks the package and imports this module
    sys.exit(main())
