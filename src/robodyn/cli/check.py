"""``robodyn check ROBOT``: the model doctor (a bundled robot, a URDF or an MJCF file), and
``--fix`` for a URDF."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import check_output_path, positive_float, resolve_robot


def add_parser(sub) -> argparse.ArgumentParser:
    """``robodyn check``: its parser."""
    c = sub.add_parser("check", help="model doctor: what would make dynamics silently wrong")
    c.add_argument("robot", help="bundled robot name, URDF or MJCF path")
    c.add_argument(
        "--fix",
        metavar="OUT",
        help="write a corrected copy of the URDF to OUT, list each change, exit 1 if errors remain",
    )
    c.add_argument("--density", type=positive_float, default=1000.0,
                   help="density for --fix (kg/m^3, default 1000)")  # fmt: skip
    shown = c.add_mutually_exclusive_group()
    shown.add_argument(
        "-q",
        "--quiet",
        dest="only",
        action="store_const",
        const=("error", "warning"),
        default=("error", "warning", "info"),
        help="list errors and warnings only (the summary line counts all)",
    )
    shown.add_argument(
        "--only",
        type=_severities,
        default=("error", "warning", "info"),
        metavar="LIST",
        help="list these severities only: a comma list of errors, warnings, info "
        "(default all; the summary line counts all)",
    )
    c.set_defaults(func=command)
    return c


def _severities(text: str) -> tuple[str, ...]:
    """``check --only``: a comma list of errors, warnings, info (singular or plural)."""
    from ..model.doctor import SEVERITIES

    names = [w.strip().lower() for w in text.split(",") if w.strip()]
    names = [w[:-1] if w in ("errors", "warnings", "infos") else w for w in names]
    bad = [w for w in names if w not in SEVERITIES]
    if bad or not names:
        raise argparse.ArgumentTypeError(f"{text!r}: give a comma list of errors, warnings, info")
    return tuple(names)


def command(args: argparse.Namespace) -> int:
    from ..model.doctor import check_model, fix_urdf
    from ..model.mjcf_xml import root_tag

    robot = resolve_robot(args.robot)
    if args.fix and not isinstance(robot, (str, Path)):
        print(
            f"robodyn check: error: --fix corrects a URDF file; {args.robot!r} is a bundled "
            "model (nothing to write)",
            file=sys.stderr,
        )
        return 2
    if args.fix and root_tag(robot) == "mujoco":
        print(
            f"robodyn check: error: --fix corrects a URDF file; {args.robot!r} is MJCF (check "
            "reports on it; correct the MJCF by hand)",
            file=sys.stderr,
        )
        return 2
    if args.fix:  # never onto the URDF it corrects (nor a link to it)
        check_output_path("--fix", args.fix, force=args.force, inputs=(robot,))
    report = check_model(robot)
    print(report.format(args.only))
    if not args.fix:
        return 1 if report.errors else 0
    result = fix_urdf(robot, args.fix, density=args.density, overwrite=args.force)
    print(result)
    if result.after.errors:
        print(result.after.format(args.only))
    return 1 if result.after.errors else 0
