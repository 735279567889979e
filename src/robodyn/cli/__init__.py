"""The ``robodyn`` command line (layer 6, an interface): ``robodyn --help`` lists every
subcommand. One module per subcommand (``add_parser(sub)``, ``command(args)``); what they
share is :mod:`robodyn.cli.common`, at the bottom of the folder; :mod:`robodyn.cli.main`
builds the parser and runs it."""

from __future__ import annotations

from .common import *  # noqa: F403 (the helpers every subcommand shares, as common lists them)
from .common import __all__ as _common
from .main import EXIT_BROKEN_PIPE, build_parser, main

__all__ = ["main", "build_parser", "EXIT_BROKEN_PIPE", *_common]
