"""``robodyn fk ROBOT``: the pose of a frame (or of every frame) at q."""

from __future__ import annotations

import argparse

import numpy as np

from .common import FLOATING_HELP, ROBOT_HELP, finite_float, load_robot


def add_parser(sub) -> argparse.ArgumentParser:
    """``robodyn fk``: its parser."""
    f = sub.add_parser("fk", help="forward kinematics: pose of a frame (or all) at q")
    f.add_argument("robot", metavar="ROBOT", help=ROBOT_HELP)
    f.add_argument(
        "--q", type=finite_float, nargs="+", help="configuration, nq numbers (default: neutral)"
    )
    f.add_argument("--frame", help="frame name (default: all frames)")
    f.add_argument("--floating-base", action="store_true", help=FLOATING_HELP)
    f.set_defaults(func=command)
    return f


def command(args: argparse.Namespace) -> int:
    from ..kinematics import fk
    from ..model.configuration import neutral

    model = load_robot(args.robot, args.floating_base)
    q = neutral(model) if args.q is None else np.asarray(args.q, dtype=float)
    frames = [args.frame] if args.frame else list(model.frame_names)
    with np.printoptions(precision=6, suppress=True):
        for f in frames:
            print(f"{f}:\n{fk(model, q, f)}")
    return 0
