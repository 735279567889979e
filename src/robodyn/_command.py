"""How a robodyn command ends, the same for ``robodyn`` and ``python -m robodyn.bench``.

A warning is one line on stderr (``robodyn: SimulationWarning: ...``), as errors are; Ctrl-C
ends with status 130; output piped into a reader that stops early (``robodyn fk panda |
head -2``) ends quietly with status 141, the status of a process ended by SIGPIPE, as
``yes | head`` ends.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable

__all__ = ["EXIT_BROKEN_PIPE", "EXIT_INTERRUPTED", "run_command"]

# Exit status after the reader of stdout went away: 128 + SIGPIPE, as a killed process.
EXIT_BROKEN_PIPE = 141
EXIT_INTERRUPTED = 130  # 128 + SIGINT


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """A warning as one line on stderr: ``robodyn: SimulationWarning: ...``."""
    print(f"robodyn: {category.__name__}: {message}", file=sys.stderr if file is None else file)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # not a real file (a test's capture)
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def run_command(run: Callable[[list[str]], int], argv: list[str]) -> int:
    """``run(argv)``'s exit status, with warnings as one line each, and the statuses of a
    closed pipe (141, silently) and of Ctrl-C (130)."""
    try:
        try:
            with warnings.catch_warnings():  # one line per warning, as errors are
                warnings.showwarning = _show_warning
                code = run(argv)
        finally:  # also after --help (SystemExit): a closed pipe shows here, not at exit
            sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    return code
