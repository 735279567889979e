"""``robodyn timeopt ROBOT --via Q... --via Q... [--tau-max ...]``: the time-optimal time
scaling of a via-point path (MR sec. 9.4); prints the duration, writes the phase plane."""

from __future__ import annotations

import argparse

import numpy as np

from .common import (
    FLOATING_HELP,
    ROBOT_HELP,
    check_output_path,
    finite_float,
    load_robot,
    option_numbers,
    positive_float,
    positive_int,
)

__all__ = ["add_parser", "command"]


def add_parser(sub) -> argparse.ArgumentParser:
    """``robodyn timeopt``: its parser."""
    t = sub.add_parser(
        "timeopt",
        help="time-optimal time scaling of a via-point path (MR 9.4); writes the phase plane",
        description="The fastest motion of ROBOT along the cubic spline through the --via "
        "points (evenly spaced in the path parameter s, at rest at both ends) that keeps "
        "every joint torque within --tau-max (and the joint velocities and accelerations "
        "within --v-max and --a-max when given). Prints the duration and the switch points "
        "and writes the (s, s_dot) phase plane: the velocity limit curve, the optimal s_dot(s) "
        "and its switch points.",
    )
    t.add_argument("robot", metavar="ROBOT", help=ROBOT_HELP)
    t.add_argument(
        "--via",
        type=finite_float,
        nargs="+",
        action="append",
        required=True,
        metavar="Q",
        help="a via point, nq numbers (rad, m); give --via at least "
        "twice: the first is the start, the last the end",
    )
    t.add_argument(
        "--tau-max",
        type=positive_float,
        nargs="+",
        metavar="TAU",
        help="torque limits, one or nv numbers (N m, N; default the URDF's effort limits)",
    )
    t.add_argument(
        "--v-max",
        type=positive_float,
        nargs="+",
        metavar="V",
        help="joint velocity limits, one or nv numbers (rad/s; default none)",
    )
    t.add_argument(
        "--a-max",
        type=positive_float,
        nargs="+",
        metavar="A",
        help="joint acceleration limits, one or nv numbers (rad/s^2; default none)",
    )
    t.add_argument(
        "--n", type=positive_int, default=1000, help="grid points on the path (default 1000)"
    )
    t.add_argument(
        "--method",
        choices=("reachability", "bisection"),
        default="reachability",
        help="TOPP-RA's reachability (default) or MR's bisection algorithm",
    )
    t.add_argument(
        "--out",
        default="timeopt.png",
        metavar="FILE",
        help="the phase-plane figure (default timeopt.png; .png, .svg, .pdf)",
    )
    t.add_argument("--floating-base", action="store_true", help=FLOATING_HELP)
    t.set_defaults(func=command)
    return t


def _limits(args, model):
    """The limits of the options, each (nv,) or None; --tau-max defaults to the model's."""
    nv = model.nv
    tau = option_numbers("--tau-max", args.tau_max, nv, "N m, one per joint")
    if tau is None:
        tau = np.asarray(model.effort_limit, dtype=float)
        if not np.isfinite(tau).any() and args.v_max is None and args.a_max is None:
            raise ValueError(
                f"--tau-max: the robot {args.robot!r} has no torque limits; give "
                "--tau-max (one or nv numbers), --v-max or --a-max"
            )
    v = option_numbers("--v-max", args.v_max, nv, "rad/s, one per joint")
    a = option_numbers("--a-max", args.a_max, nv, "rad/s^2, one per joint")
    return tau, v, a


def command(args: argparse.Namespace) -> int:
    """Run ``robodyn timeopt``."""
    from ..trajectory import spline_path, time_optimal

    model = load_robot(args.robot, args.floating_base)
    out = check_output_path("--out", args.out, force=args.force, inputs=[args.robot])
    if len(args.via) < 2:
        raise ValueError("--via: give at least two via points (the start and the end)")
    for k, q in enumerate(args.via):
        if len(q) != model.nq:
            raise ValueError(
                f"--via (point {k + 1}): expected nq = {model.nq} numbers, got {len(q)}"
            )
    tau, v, a = _limits(args, model)
    res = time_optimal(
        model,
        spline_path(np.array(args.via)),
        tau_max=tau,
        v_max=v,
        a_max=a,
        n=args.n,
        method=args.method,
    )
    print(f"duration: {res.duration:.6g} s ({args.method}, {args.n} grid points)")
    for (s, sd), kind in zip(res.switch_points, res.switch_kinds):
        what = "accelerate -> decelerate" if kind == "U->L" else "decelerate -> accelerate"
        print(f"  switch point s = {s:.4f}, s_dot = {sd:.4f} 1/s ({what})")
    res.plot(out, overwrite=args.force)
    print(f"phase plane: {out}")
    return 0
