"""``python -m robodyn.bench``: the same as ``robodyn bench`` (quiet when piped into head)."""

import sys

from .._command import run_command
from .main import main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(run_command(main, sys.argv[1:]))
