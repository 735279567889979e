"""The ``robodyn`` command line (layer 6, an interface): ``robodyn --help`` lists every
subcommand. One module per subcommand (``add_parser(sub)``, ``command(args)``); what they
share is :mod:`robodyn.cli.common`, at the bottom of the folder; :mod:`robodyn.cli.main`
builds the parser and runs it."""

from __future__ import annotations

from .common import (
    atomic_output,
    byte_size,
    check_output_dir,
    check_output_path,
    distinct_outputs,
    finite_float,
    load_robot,
    nonnegative_float,
    positive_float,
    positive_int,
    resolve_robot,
)
from .main import EXIT_BROKEN_PIPE, build_parser, main

__all__ = [
    "main",
    "build_parser",
    "resolve_robot",
    "load_robot",
    "check_output_path",
    "check_output_dir",
    "distinct_outputs",
    "atomic_output",
    "finite_float",
    "positive_float",
    "nonnegative_float",
    "positive_int",
    "byte_size",
    "EXIT_BROKEN_PIPE",
]
