"""``robodyn simulate ROBOT``: a run under a controller; trajectory, figure, animation, view."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from . import contact
from .common import (
    DOCS_SITE,
    FLOATING_HELP,
    ROBOT_HELP,
    atomic_output,
    byte_size,
    check_output_path,
    distinct_outputs,
    finite_float,
    load_robot,
    nonnegative_float,
    option_numbers,
    positive_float,
    positive_int,
)


def add_parser(sub) -> argparse.ArgumentParser:
    """``robodyn simulate``: its parser."""
    m = sub.add_parser(
        "simulate",
        help="simulate a robot under a controller; trajectory, figure, animation",
        description="Simulate ROBOT from --q0 under a controller (no contact model but an "
        "--environment table under the controlled frame: links pass through each other and "
        "the ground). Writes the trajectory (--out .npz, --csv), a figure (--plot) and an "
        "animation (--animate .gif/.mp4).",
        epilog="Default gains: every joint gets the same closed-loop response, natural "
        "frequency --omega-n (10 rad/s) and damping ratio --zeta (1). For pd, gravity-pd and "
        "pid the torque gains come from each joint's own inertia M_jj at --q0 "
        "(rd.control.gains_for: kp = M_jj omega_n^2, kd = 2 zeta omega_n M_jj, ki = kp omega_n/5); "
        "computed torque divides by M itself, so kp = omega_n^2, kd = 2 zeta omega_n. A step "
        "--dt too large for the gains is warned about, with the step to use (rd.sim."
        "stable_step). Ctrl-C stops the run and keeps what it simulated (in --out, or in a "
        "new file it names), exit status 130. "
        f"Documentation: cli.html#robodyn-simulate of {DOCS_SITE}.",
    )
    m.add_argument("robot", metavar="ROBOT", help=ROBOT_HELP)
    _controller_options(m)
    contact.add_options(m)
    _gain_options(m)
    _run_options(m)
    _output_options(m)
    m.add_argument("--progress", action="store_true", help="show a progress bar")
    m.add_argument("--floating-base", action="store_true", help=FLOATING_HELP)
    m.set_defaults(func=command)
    return m


def _controller_options(m) -> None:
    """The controller, its target and the initial state."""
    m.add_argument(
        "--controller",
        choices=("none", "pd", "gravity-pd", "pid", "computed-torque", *contact.FORCE_LAWS),
        default="none",
        help="none (free motion), pd, gravity-pd (PD + gravity compensation), pid, "
        "computed-torque along a quintic to --target, or against --environment table: "
        "force (press --press N), hybrid (press and wipe --wipe m), impedance, admittance "
        "(default none)",
    )
    m.add_argument(
        "--target", type=finite_float, nargs="+", help="target configuration (nq numbers, rad)"
    )
    m.add_argument(
        "--q0", type=finite_float, nargs="+", help="initial configuration (default: neutral)"
    )
    m.add_argument("--v0", type=finite_float, nargs="+", help="initial velocity (default: zero)")


def _gain_options(m) -> None:
    """The gains: the default closed-loop response, or each gain given."""
    m.add_argument(
        "--omega-n",
        type=positive_float,
        default=10.0,
        help="the default gains' closed-loop natural frequency, rad/s (default 10)",
    )
    m.add_argument(
        "--zeta",
        type=nonnegative_float,
        default=1.0,
        help="the default gains' damping ratio (default 1: critically damped)",
    )
    m.add_argument(
        "--kp",
        type=nonnegative_float,
        nargs="+",
        help="proportional gain(s), one or nv numbers (default: see below)",
    )
    m.add_argument(
        "--kd", type=nonnegative_float, nargs="+", help="derivative gain(s) (default: see below)"
    )
    m.add_argument(
        "--ki",
        type=nonnegative_float,
        nargs="+",
        help="integral gain(s) of pid (default kp omega_n/5)",
    )
    m.add_argument(
        "--move-time",
        type=positive_float,
        help="computed-torque: seconds of the quintic move (default half the duration)",
    )


def _run_options(m) -> None:
    """How long, with what step and integrator, what the run may use."""
    m.add_argument(
        "--duration", type=positive_float, default=5.0, help="seconds simulated (default 5)"
    )
    m.add_argument(
        "--dt",
        type=positive_float,
        help="sample step, s (default 1e-3, or the "
        "stable step when 1e-3 is too large for the gains or the joint damping: "
        "said on stderr)",
    )
    m.add_argument(
        "--integrator",
        default="rk4",
        choices=("rk4", "semi_implicit_euler", "euler", "rk45", "dop853", "radau"),
        help="integration method (default rk4)",
    )
    m.add_argument(
        "--control-dt",
        type=positive_float,
        help="hold the torque for this period, s (zero-order hold; default: continuous)",
    )
    m.add_argument("--max-memory", type=byte_size, metavar="SIZE", help="memory the samples "
                   "may take, e.g. 8G (default: the memory available); a longer run is refused "
                   "before it starts")  # fmt: skip
    m.add_argument("--no-friction", action="store_true", help="leave the joint friction out")
    m.add_argument("--clip-torque", action="store_true", help="clip torques to effort limits")


def _output_options(m) -> None:
    """What the run writes: trajectory, CSV, figure, animation, 3-D view."""
    m.add_argument(
        "--out",
        metavar="FILE.npz",
        help="write the trajectory (.npz), streamed "
        "while simulating; a run that fails or is interrupted keeps its samples there",
    )
    m.add_argument("--csv", metavar="FILE", help="write the trajectory as CSV")
    m.add_argument("--plot", metavar="FILE", help="write a figure of q, v, tau against time")
    m.add_argument("--animate", metavar="FILE", help="write an animation (.gif or .mp4)")
    m.add_argument("--view", metavar="FILE", help="write a 3-D view of the run (.html)")
    m.add_argument("--mesh-path", action="append", default=[], metavar="DIR",
                   help="--view: folder to search for package:// and relative meshes")  # fmt: skip
    m.add_argument("--allow-outside", action="store_true", help="--view: also read meshes "
                   "outside the allowed roots (for a URDF you trust)")  # fmt: skip
    m.add_argument("--max-triangles", type=positive_int, default=None,
                   help="--view: triangle budget of the page (default 1500000)")  # fmt: skip


def _controller(args, model, q0, target):
    """The controller of ``simulate --controller`` and its reference (None: none)."""
    from .. import control

    if args.controller == "none":
        return None, None
    if target is None:
        raise ValueError(f"--controller {args.controller} needs --target (nq = {model.nq} numbers)")
    if args.controller == "computed-torque":  # gains on the error's acceleration: 1/s^2, 1/s
        kp_d, kd_d = args.omega_n**2, 2.0 * args.zeta * args.omega_n
    else:  # torque gains from each joint's own inertia at q0 (rd.control.gains_for)
        kp_d, kd_d = control.gains_for(model, args.zeta, args.omega_n, q=q0)
    kp = option_numbers("--kp", args.kp, model.nv, "nv") if args.kp else kp_d
    kd = option_numbers("--kd", args.kd, model.nv, "nv") if args.kd else kd_d
    if args.controller == "pd":
        return control.PD(model, target, kp, kd), None
    if args.controller == "gravity-pd":
        return control.PD(model, target, kp, kd, gravity_compensation=True), None
    if args.controller == "pid":
        ki_d = np.asarray(kp) * args.omega_n / 5.0  # the integral's poles at ~0.3 omega_n
        ki = option_numbers("--ki", args.ki, model.nv, "nv") if args.ki else ki_d
        return control.PID(model, target, kp, ki, kd), None
    from ..trajectory import joint_trajectory  # computed torque along a quintic to the target

    move = args.move_time if args.move_time else 0.5 * args.duration
    ref = joint_trajectory(q0, target, move, time_scaling="quintic")
    return control.ComputedTorque(model, ref, kp=kp, kd=kd), ref


def _keep_partial(model, exc, out) -> str:
    """Where the samples of a run that stopped are: ``--out`` (simulate saved them), else a
    new file in the current folder (or the temporary one), never over an existing file."""
    import tempfile

    if out is not None:
        return str(out)
    part = exc.partial
    stem = "".join(c if c.isalnum() or c in "._-" else "_" for c in model.name)
    for folder in (Path.cwd(), Path(tempfile.gettempdir())):
        for k in range(1000):
            path = folder / f"robodyn-{stem}-partial{'' if k == 0 else f'-{k}'}.npz"
            try:
                with open(path, "xb"):  # claim the name: never over another file
                    pass
            except FileExistsError:
                continue
            except OSError:
                break
            part.save(path, overwrite=True)  # the empty file claimed above
            return str(path)
    return "nowhere (no writable folder)"


def command(args: argparse.Namespace) -> int:
    """Run ``robodyn simulate``: check the outputs, build the controller, run, report, write."""
    from ..model.configuration import neutral

    model = load_robot(args.robot, args.floating_base)
    paths = _output_paths(args)
    q0 = option_numbers("--q0", args.q0, model.nq, "nq") if args.q0 else neutral(model)
    v0 = option_numbers("--v0", args.v0, model.nv, "nv") if args.v0 else np.zeros(model.nv)
    target = option_numbers("--target", args.target, model.nq, "nq")
    env, z_table = contact.environment(args, model, q0)
    ctrl, ref = contact.controller(args, model, q0, z_table), None
    if ctrl is None:
        ctrl, ref = _controller(args, model, q0, target)
    dt = args.dt if args.dt is not None else _default_step(args, model, ctrl, q0)
    res, code, wall = _run(args, model, q0, v0, ctrl, dt, paths.get("out"), env)
    if res is None:
        return code
    _report(args, res, wall, target, ctrl)
    contact.report(res, args)
    _write_outputs(args, model, res, paths, ref if ref is not None else target)
    return 0


def _output_paths(args) -> dict:
    """Every output option checked before any work: {option: path}."""
    paths = {}
    for option in ("out", "csv", "plot", "animate", "view"):
        value = getattr(args, option)
        if value is not None:
            paths[option] = check_output_path("--" + option, value, force=args.force)
    distinct_outputs({"--" + k: v for k, v in paths.items()})
    if "out" in paths and paths["out"].suffix != ".npz":
        raise ValueError(f"--out {args.out!r}: a trajectory file ends in .npz")
    return paths


def _default_step(args, model, ctrl, q0) -> float:
    """1 ms, or the step the gains and the URDF's joint damping need (said on stderr)."""
    from ..sim.stability import step_for

    dt, why = step_for(model, ctrl, q0, args.integrator, friction=not args.no_friction)
    if why is not None:
        print(f"robodyn simulate: dt = {dt:g} s (at the default 1 ms, {why})", file=sys.stderr)
    return dt


def _run(args, model, q0, v0, ctrl, dt, out, env=None):
    """(the Trajectory, 0, wall-clock seconds), or (None, exit status, None) after Ctrl-C
    or a failure, the samples simulated kept (in --out, or a new file named on stderr)."""
    import time

    from ..errors import SimulationError, SimulationInterrupted
    from ..sim import simulate

    steps = round(args.duration / dt)
    progress = args.progress or (steps >= 20000 and sys.stderr.isatty())
    t0 = time.perf_counter()
    try:
        res = simulate(
            model, q0, v0, controller=ctrl, duration=args.duration, dt=dt,
            integrator=args.integrator, control_dt=args.control_dt, friction=not args.no_friction,
            clip_torque=args.clip_torque, out=out, progress=progress,
            overwrite=args.force, max_memory=args.max_memory, environment=env,
        )  # fmt: skip
    except SimulationInterrupted as exc:
        if len(exc.partial) == 0:
            print("robodyn simulate: interrupted (Ctrl-C) before the first step; nothing to "
                  "save", file=sys.stderr)  # fmt: skip
            return None, 130, None
        where = _keep_partial(model, exc, out)
        print(f"robodyn simulate: interrupted (Ctrl-C) at t = {exc.partial.t[-1]:g} s; the "
              f"{len(exc.partial)} samples simulated are in {where}", file=sys.stderr)  # fmt: skip
        return None, 130, None
    except SimulationError as exc:
        where = _keep_partial(model, exc, out)
        print(f"robodyn simulate: error: {exc.reason}. The {len(exc.partial)} samples before "
              f"it are in {where}", file=sys.stderr)  # fmt: skip
        return None, 1, None
    return res, 0, time.perf_counter() - t0


def _report(args, res, wall, target, ctrl) -> None:
    """The run in a few lines: time taken, final state, error to the target, energy."""
    with np.printoptions(precision=5, suppress=True, linewidth=110):
        print(res)
        print(f"  simulated {args.duration:g} s in {wall:.3f} s "
              f"({res.meta['n_eval']} evaluations)")  # fmt: skip
        print(f"  q(end)   = {res.q[-1]}")
        if target is not None:
            print(f"  |target - q(end)| max = {np.max(np.abs(target - res.q[-1])):.3e} rad")
        if ctrl is not None:
            print(f"  max |tau| = {np.max(np.abs(res.tau), axis=0)} N m")
        E = res.energy()
        print(f"  energy: {E[0]:.6g} J -> {E[-1]:.6g} J")


def _write_outputs(args, model, res, paths, reference) -> None:
    """--csv, --plot, --animate, --view, each written atomically (--out was streamed)."""
    if "out" in paths:
        print(f"trajectory: {paths['out']}")
    if "csv" in paths:
        with atomic_output(paths["csv"]) as tmp:
            res.to_csv(tmp, overwrite=True)
        print(f"csv: {paths['csv']}")
    if "plot" in paths:
        with atomic_output(paths["plot"]) as tmp:
            res.plot(tmp, reference=reference, overwrite=True)
        print(f"figure: {paths['plot']}")
    if "animate" in paths:
        from ..sim.plot import animate

        with atomic_output(paths["animate"]) as tmp:
            animate(res, tmp, overwrite=True)  # tmp exists: atomic_output made it
        print(f"animation: {paths['animate']}")
    if "view" in paths:
        from .view import write_view

        kw = dict(search_path=args.mesh_path, allow_outside=args.allow_outside)
        if args.max_triangles is not None:
            kw["max_triangles"] = args.max_triangles
        write_view(model, paths["view"], trajectory=res, **kw)
