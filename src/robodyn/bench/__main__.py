"""``python -m robodyn.bench``: the same as ``robodyn bench`` (quiet when piped into head)."""

import sys

from ..cli.main import main as cli_main

if __name__ == "__main__":  # pragma: no cover
    sys.exit(cli_main(["bench", *sys.argv[1:]]))
