"""The ``robodyn`` command line: ``robodyn --help`` lists every subcommand."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

import numpy as np

__all__ = ["main"]


def _cmd_demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(args.out, robot=args.robot)


def _load(robot: str):
    from . import models

    return models.load(robot)


def _cmd_info(args: argparse.Namespace) -> int:
    model = _load(args.robot)
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
            print(
                f"  {name:<26} {model.q_lower[qa]:<11.4g} {model.q_upper[qa]:<11.4g} "
                f"{model.v_limit[va]:<11.4g} {model.effort_limit[va]:<11.4g}"
            )
    for note in model.notes:
        print(f"  note: {note}")
    from .kernels import core

    print(f"  compiled core: robodyn.kernels._core, batches on {core.threads()} thread(s)")
    return 0


def _cmd_fk(args: argparse.Namespace) -> int:
    from .kinematics import fk

    model = _load(args.robot)
    q = np.zeros(model.nq) if args.q is None else np.asarray(args.q, dtype=float)
    if args.q is None:
        from .model.configuration import neutral

        q = neutral(model)
    frames = [args.frame] if args.frame else list(model.frame_names)
    np.set_printoptions(precision=6, suppress=True)
    for f in frames:
        print(f"{f}:\n{fk(model, q, f)}")
    return 0


def _cmd_check(args: argparse.Namespace) -> int:
    from .model.doctor import check_model, fix_urdf

    report = check_model(args.robot)
    print(report)
    if args.fix:
        out = fix_urdf(args.robot, args.fix, density=args.density)
        print(f"corrected URDF written to {out}")
    return 1 if report.errors and not args.fix else 0


def _cmd_derive(args: argparse.Namespace) -> int:
    from .symbolic.cli import derive_command

    return derive_command(args)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    p = argparse.ArgumentParser(
        prog="robodyn",
        description="Mechanics of robots and rigid bodies (Modern Robotics notation).",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    d = sub.add_parser("demo", help="run the main job on a bundled robot and write figures")
    d.add_argument("--out", default="out/demo", help="folder for the figures (default out/demo)")
    d.add_argument("--robot", default="ur5", help="bundled robot name or URDF path")
    d.set_defaults(func=_cmd_demo)

    i = sub.add_parser("info", help="tree, joints with limits, masses, nq/nv of a robot")
    i.add_argument("robot", help="bundled robot name or URDF path")
    i.set_defaults(func=_cmd_info)

    f = sub.add_parser("fk", help="forward kinematics: pose of a frame (or all) at q")
    f.add_argument("robot", help="bundled robot name or URDF path")
    f.add_argument("--q", type=float, nargs="+", help="configuration (default: neutral)")
    f.add_argument("--frame", help="frame name (default: all frames)")
    f.set_defaults(func=_cmd_fk)

    c = sub.add_parser("check", help="model doctor: what would make dynamics silently wrong")
    c.add_argument("robot", help="bundled robot name or URDF path")
    c.add_argument("--fix", metavar="OUT", help="write a corrected URDF to OUT")
    c.add_argument("--density", type=float, default=1000.0, help="density for --fix (kg/m^3)")
    c.set_defaults(func=_cmd_check)

    # Listed for --help; main() hands "bench ..." to robodyn.bench.main before parsing.
    sub.add_parser(
        "bench", help="benchmark against Pinocchio, MuJoCo, modern_robotics (bench --help)"
    )

    s = sub.add_parser("derive", help="symbolic equations of motion of a robot")
    s.add_argument("robot", help="bundled robot name or URDF path")
    s.add_argument("--symbolic-parameters", action="store_true")
    s.add_argument("--latex", metavar="FILE")
    s.add_argument("--python", metavar="FILE")
    s.set_defaults(func=_cmd_derive)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``robodyn`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:  # the benchmark parses its own options (and its own --help)
        from .bench import main as bench_main

        return bench_main(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (ValueError, FileNotFoundError) as exc:  # ModelError is a ValueError
        print(f"robodyn {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
