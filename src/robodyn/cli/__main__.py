"""``python -m robodyn.cli``: the ``robodyn`` command."""

import sys

from .main import main

sys.exit(main())
