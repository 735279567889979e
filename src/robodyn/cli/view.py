"""``robodyn view ROBOT [--q ...] [--trajectory run.npz] --out view.html [--open]
[--mesh-path DIR] [--allow-outside] [--max-triangles N]``."""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from .common import (
    FLOATING_HELP,
    ROBOT_HELP,
    atomic_output,
    check_output_path,
    finite_float,
    load_robot,
    positive_int,
)

__all__ = ["add_parser", "command", "write_view"]


def add_parser(sub) -> argparse.ArgumentParser:
    """``robodyn view``: its parser."""
    v = sub.add_parser("view", help="a 3-D view of a robot or a trajectory, as one HTML page")
    v.add_argument("robot", metavar="ROBOT", help=ROBOT_HELP)
    v.add_argument("--q", type=finite_float, nargs="+", help="configuration shown (nq numbers)")
    v.add_argument("--trajectory", metavar="NPZ", help="play a trajectory (.npz, simulate --out)")
    v.add_argument("--out", metavar="FILE", required=True, help="the HTML page to write")
    v.add_argument("--open", action="store_true", help="open the page in a web browser")
    v.add_argument("--com", action="store_true", help="show centres of mass")
    v.add_argument("--inertia", action="store_true", help="show inertia ellipsoids")
    v.add_argument("--no-frames", action="store_true", help="hide the frame triads")
    v.add_argument(
        "--mesh-path", action="append", default=[], metavar="DIR",
        help="folder to search for package:// and relative meshes (repeatable)",
    )  # fmt: skip
    v.add_argument(
        "--allow-outside", action="store_true",
        help="also read mesh files outside the --mesh-path folders, $ROS_PACKAGE_PATH, the "
        "URDF's folder and its ROS package (for a URDF you trust)",
    )  # fmt: skip
    v.add_argument("--max-triangles", type=positive_int, default=None,
                   help="triangle budget of the page: meshes are reduced to fit it "
                   "(default 1500000)")  # fmt: skip
    v.add_argument("--max-frames", type=positive_int, default=None,
                   help="frame budget (default 10000)")  # fmt: skip
    v.add_argument("--floating-base", action="store_true", help=FLOATING_HELP)
    v.set_defaults(func=command)
    return v


def write_view(model, path, *, q=None, trajectory=None, open_page=False, **kw):
    """Write the page of ``model`` to ``path`` (atomically), print what was written, open it
    if asked."""
    from ..viz import show

    view = show(model, q=q, trajectory=trajectory, **kw)
    with atomic_output(path) as tmp:
        tmp.write_text(view.html, encoding="utf-8")
    view.path = Path(path)
    print(f"view: {path} ({len(view.html) / 1e6:.2f} MB, {len(view.scene.t)} frames)")
    for line in view.missing:
        print(f"  not drawn: {line}")
    if any(line.endswith("outside the allowed roots") for line in view.missing):
        print("  (a mesh outside the allowed roots: add its folder with --mesh-path, or pass "
              "--allow-outside for a URDF you trust)")  # fmt: skip
    for line in view.notes:
        print(f"  note: {line}")
    if open_page:
        view.open()
    return view


def command(args: argparse.Namespace) -> int:
    """Run ``robodyn view``."""
    model = load_robot(args.robot, args.floating_base)
    inputs = [p for p in (args.trajectory, args.robot) if p is not None]  # never written over
    out = check_output_path("--out", args.out, force=args.force, inputs=inputs)
    q = traj = None
    if args.q is not None:
        if len(args.q) != model.nq:
            raise ValueError(f"--q: expected nq = {model.nq} numbers, got {len(args.q)}")
        q = np.array(args.q)
    if args.trajectory is not None:
        if q is not None:
            raise ValueError("give --q or --trajectory, not both")
        from ..sim import Trajectory

        traj = Trajectory.load(args.trajectory)
    kw = dict(frames=not args.no_frames, com=args.com, inertia=args.inertia,
              search_path=args.mesh_path, allow_outside=args.allow_outside)  # fmt: skip
    if args.max_frames is not None:
        kw["max_frames"] = args.max_frames
    if args.max_triangles is not None:
        kw["max_triangles"] = args.max_triangles
    write_view(model, out, q=q, trajectory=traj, open_page=args.open, **kw)
    return 0
