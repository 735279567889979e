"""The ``robodyn`` command line: the parser of every subcommand, and ``main``.

Each subcommand is one module of ``robodyn.cli`` with ``add_parser(sub)`` and
``command(args)``; what they share (ROBOT, numbers, the output policy) is
:mod:`robodyn.cli.common`. Bad input ends with one line on stderr and exit status 2.
Output piped into a reader that stops early (``robodyn fk panda | head -2``) ends quietly
with status 141, the status of a process ended by SIGPIPE, as ``yes | head`` ends.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence

from .._command import EXIT_BROKEN_PIPE, run_command
from . import bench, check, demo, derive, fk, identify, info, mobile, simulate, sweep, timeopt, view
from .common import DOCS_HELP, DOCS_SITE, FORCE_HELP

__all__ = ["main", "build_parser", "EXIT_BROKEN_PIPE"]


#: the subcommands, in the order ``robodyn --help`` lists them
SUBCOMMANDS = (demo, info, fk, check, bench, simulate, timeopt, derive, mobile, sweep, view,
               identify)  # fmt: skip


class _Parser(argparse.ArgumentParser):
    """argparse with the CLI's word on bad input: one line on stderr, exit status 2 (the
    usage is one ``--help`` away). Subcommands' parsers are of this class too."""

    # what reads as a negative number, not an option: argparse's own pattern knows -1 and
    # -.5 but not -1e-3 or -2.5E+2 (so "--target -1e-3" was "expected one argument")
    _NEGATIVE = re.compile(r"^-((\d+\.?\d*|\.\d+)([eE][+-]?\d+)?|inf|infinity|nan)$", re.I)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = self._NEGATIVE

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


# Subcommands that write files: --force lets them overwrite existing ones.
_WRITERS = ("demo", "mobile", "derive", "identify", "check", "view", "simulate", "timeopt")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    p = _Parser(
        prog="robodyn",
        description="Mechanics of robots and rigid bodies (Modern Robotics notation).",
        epilog="ROBOT is a bundled robot name or a URDF path. 'robodyn COMMAND --help' shows "
        "the options of a command. " + DOCS_HELP,
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", help="one of:")
    sub.required = True
    for module in SUBCOMMANDS:
        module.add_parser(sub)
    for name in _WRITERS:  # one output policy (check_output_path, check_output_dir)
        command = sub.choices[name]
        if "--force" not in command._option_string_actions:
            command.add_argument("--force", action="store_true", help=FORCE_HELP)
    for name, command in sub.choices.items():  # each command's help names its page
        command.epilog = command.epilog or f"Documentation: cli.html#robodyn-{name} of {DOCS_SITE}."
    return p


def _run(argv: list[str]) -> int:
    if argv[:1] == ["bench"]:  # the benchmark parses its own options (and its own --help)
        return bench.run(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        raise
    except (ValueError, OSError) as exc:  # ModelError is a ValueError
        print(f"robodyn {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:  # SimulationError: what was simulated is in --out
        from ..errors import SimulationError

        if not isinstance(exc, SimulationError):
            raise
        print(f"robodyn {args.command}: error: {exc}", file=sys.stderr)
        return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``robodyn`` console script.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after ``robodyn``; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        Exit status: 0 on success, 1 when ``check`` finds errors or ``bench`` a failed
        equality check, 2 on bad input (one line on stderr), 130 on Ctrl-C and 141 when
        the reader of stdout closed it early (``robodyn fk panda | head -2``), silently.
    """
    return run_command(_run, list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
