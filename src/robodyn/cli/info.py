"""``robodyn info ROBOT``: the tree, joints with their limits, masses, nq and nv."""

from __future__ import annotations

import argparse

import numpy as np

from .common import FLOATING_HELP, ROBOT_HELP, load_robot


def add_parser(sub) -> argparse.ArgumentParser:
    """``robodyn info``: its parser."""
    i = sub.add_parser("info", help="tree, joints with limits, masses, nq/nv of a robot")
    i.add_argument("robot", metavar="ROBOT", help=ROBOT_HELP)
    i.add_argument("--floating-base", action="store_true", help=FLOATING_HELP)
    i.set_defaults(func=command)
    return i


def _limit(x: float) -> str:
    """A joint limit for the info table: "none" where the model has no limit (+-inf)."""
    return "none" if np.isinf(x) else f"{x:.4g}"


def command(args: argparse.Namespace) -> int:
    model = load_robot(args.robot, args.floating_base)
    print(model)
    print(f"  nq = {model.nq}, nv = {model.nv}, total mass = {model.total_mass:.6g} kg")
    if model.nv:
        print("  joint                      lower       upper       velocity    effort")
        for name in model.joint_names:
            i = model.joint_id(name)
            qa, va = int(model.jnt_qadr[i]), int(model.jnt_vadr[i])
            if int(model.jnt_nq[i]) != 1:
                print(f"  {name:<26} (free joint: nq = 7, nv = 6)")
                continue
            limits = (model.q_lower[qa], model.q_upper[qa], model.v_limit[va])
            print(
                f"  {name:<26} "
                + "".join(f"{_limit(x):<12}" for x in limits)
                + _limit(model.effort_limit[va])
            )
    for note in model.notes:
        print(f"  note: {note}")
    from ..kernels import core

    print(f"  compiled core: robodyn.kernels._core, batches on {core.threads()} thread(s)")
    return 0
