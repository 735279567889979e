"""``robodyn mobile KIND``: the wheeled-robot demo of MR chapter 13."""

from __future__ import annotations

import argparse

from .common import check_output_dir


def add_parser(sub) -> argparse.ArgumentParser:
    """``robodyn mobile``: its parser."""
    w = sub.add_parser(
        "mobile", help="wheeled-robot demo (MR ch. 13): prints numbers, writes figures"
    )
    w.add_argument(
        "kind",
        choices=("unicycle", "diffdrive", "car", "omni", "mecanum", "youbot"),
        help="robot type: unicycle, diffdrive, car, omni, mecanum or youbot (the MR capstone)",
    )
    w.add_argument("--out", default="out/mobile", metavar="DIR", help="folder for the figures "
                   "(default out/mobile; a new folder's parent must exist)")  # fmt: skip
    w.add_argument("--no-animation", action="store_true", help="skip the GIF")
    w.set_defaults(func=command)
    return w


def command(args: argparse.Namespace) -> int:
    from ..mobile.demo import DEFAULT_OUT, figures, run_mobile_demo

    animate = not args.no_animation
    out = check_output_dir(
        "--out", args.out, figures(args.kind, animate), default=DEFAULT_OUT, force=args.force
    )
    return run_mobile_demo(args.kind, out, animate=animate, overwrite=args.force)
