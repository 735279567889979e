"""``robodyn bench``: listed here for ``robodyn --help``; the benchmark parses its own
options (and its own ``--help``), so ``main`` hands it the arguments before parsing."""

from __future__ import annotations

import argparse

__all__ = ["add_parser", "run"]


def add_parser(sub) -> argparse.ArgumentParser:
    """``robodyn bench``: listed for --help."""
    return sub.add_parser(
        "bench", help="benchmark against Pinocchio, MuJoCo, modern_robotics (bench --help)"
    )


def run(argv: list[str]) -> int:
    """Run ``robodyn bench`` with the arguments after ``bench``."""
    from ..bench import main

    return main(argv)
