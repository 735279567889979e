"""``robodyn demo``: the main job on a bundled robot, a simulation, a tumbling rigid body.

Prints the figures a reader can check (the UR5's mass matrix, gravity torques, an inverse
then forward dynamics round trip, energy and momentum of a tumbling body) and writes plots
to the output folder.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from .._files import output_path, save_figure
from ..model.model import Model
from .common import ROBOT_HELP, check_output_dir, load_robot

__all__ = ["run_demo", "figures", "DEFAULT_OUT"]

DEFAULT_OUT = "out/demo"  # created with its parents; another folder's parent must exist


def _robot_part(out: Path, robot, overwrite: bool) -> None:
    from .. import models
    from ..dynamics import forward_dynamics, gravity_forces, inverse_dynamics, mass_matrix
    from ..kinematics import fk, jacobian

    model = robot if isinstance(robot, Model) else models.load(robot)
    print(model)
    rng = np.random.default_rng(0)
    from ..model.configuration import random_configuration

    q = random_configuration(model, rng)
    v = rng.uniform(-1, 1, model.nv)
    a = rng.uniform(-1, 1, model.nv)
    t0 = time.perf_counter()
    M = mass_matrix(model, q)
    tau = inverse_dynamics(model, q, v, a)
    a_back = forward_dynamics(model, q, v, tau)
    g = gravity_forces(model, q)
    dt_ms = (time.perf_counter() - t0) * 1e3
    ee = model.frame_names[-1]
    T = fk(model, q, ee)
    J = jacobian(model, q, ee, kind="space")
    with np.printoptions(precision=4, suppress=True, linewidth=110):  # this printout only
        print(f"\nq = {q}")
        print(f"pose of frame {ee!r}:\n{T}")
        print(f"space Jacobian J_s (rows [omega; v]):\n{J}")
        print(
            f"mass matrix M(q) (symmetric, eigenvalues {np.linalg.eigvalsh(M).min():.4g} ..):\n{M}"
        )
        print(f"gravity torques g(q) = {g}")
        print(f"inverse dynamics tau = M a + C v + g = {tau}")
    print(f"forward dynamics recovers a to {np.abs(a_back - a).max():.2e}")
    print(f"(these four first calls took {dt_ms:.0f} ms, loading or compiling the kernels)")
    if out is not None:
        _plot_gravity(model, out / "gravity_torques.png", overwrite)


def _plot_gravity(model, path: Path, overwrite: bool) -> None:
    from matplotlib.figure import Figure

    from ..dynamics import gravity_forces
    from ..model.configuration import neutral

    q0 = neutral(model)
    k = 1 if model.nv > 1 else 0
    angles = np.linspace(-np.pi, np.pi, 121)
    Q = np.repeat(q0[None], len(angles), axis=0)
    Q[:, model.jnt_qadr[model.dof_body[k]]] = angles
    G = gravity_forces(model, Q)
    fig = Figure(figsize=(7, 4), layout="constrained")
    ax = fig.subplots()
    for j in range(model.nv):
        ax.plot(angles, G[:, j], label=model.joint_names[j] if j < len(model.joint_names) else j)
    ax.set_xlabel(f"q[{k}] (rad), other joints at the neutral configuration")
    ax.set_ylabel("gravity torque g(q) (N m)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    fig.suptitle(f"{model.name}: gravity torques along one joint")
    save_figure(fig, path, overwrite=overwrite, dpi=100)
    print(f"figure: {path}")


def _simulation_part(out: Path, robot, overwrite: bool) -> None:
    """A quintic move, its inverse dynamics, computed torque against PD + gravity
    compensation, and the energy of a free fall (MR ch. 8, 9, 11)."""
    from .. import control, models
    from ..dynamics import inverse_dynamics
    from ..model.configuration import neutral
    from ..sim import simulate
    from ..sim.plot import plot_comparison, plot_energy
    from ..sim.stability import step_for
    from ..trajectory import joint_trajectory

    model = robot if isinstance(robot, Model) else models.load(robot)
    if model.nq != model.nv:
        print(f"\n(simulation part skipped: {model.name!r} has a floating base)")
        return
    q0 = neutral(model)
    q1 = q0 + np.where(np.arange(model.nv) % 2 == 0, 0.5, -0.4)
    ref = joint_trajectory(q0, q1, 1.0, time_scaling="quintic")
    t, q_d, v_d, a_d = ref.sample(1e-3)
    tau_d = inverse_dynamics(model, q_d, v_d, a_d)
    print(f"\nQuintic move of {model.name!r} in 1 s: peak joint torques {np.abs(tau_d).max(0)} N m")
    # every joint critically damped at 10 rad/s: PD's torque gains from each joint's own
    # inertia (rd.control.gains_for); computed torque divides by M itself
    kp, kd = control.gains_for(model, 1.0, 10.0, q=q0)
    print(f"  PD gains from M's diagonal: kp = {np.round(kp, 3)} N m/rad, kd = "
          f"{np.round(kd, 3)} N m s/rad")  # fmt: skip
    controllers = {
        "PD + gravity compensation": control.PD(model, ref, kp, kd, gravity_compensation=True),
        "computed torque": control.ComputedTorque(model, ref, kp=100.0, kd=20.0),
    }
    # 1 ms, or the step the gains and the URDF's joint damping need (rd.sim.step_for)
    dt, why = step_for(model, list(controllers.values()), q0)
    if why is not None:
        print(f"  dt = {dt:g} s: at 1 ms, {why}")
    runs = {}
    for name, ctrl in controllers.items():
        t0 = time.perf_counter()
        runs[name] = simulate(model, q0, controller=ctrl, duration=1.5, dt=dt)
        err = np.abs(runs[name].q - ref(runs[name].t)[0]).max()
        wall = time.perf_counter() - t0
        print(f"  {name}: max tracking error {err:.2e} rad "
              f"({wall:.2f} s for 1.5 s, RK4 at {1e-3 / dt:g} kHz)")  # fmt: skip
    if out is not None:
        # in radians, as the tracking errors printed above
        plot_comparison(runs, target=ref, path=out / "tracking.png", degrees=False,
                        overwrite=overwrite)  # fmt: skip
        print(f"figure: {out / 'tracking.png'}")
    fall = simulate(model, q0, duration=1.0, dt=1e-3, friction=False)
    E = fall.energy()
    print(f"  free fall 1 s, RK4: energy {E[0]:.6g} J -> {E[-1]:.6g} J "
          f"(drift {abs(E[-1] - E[0]) / max(1.0, np.ptp(fall.kinetic_energy())):.1e})")  # fmt: skip
    if out is not None:
        plot_energy(fall, out / "energy.png", overwrite=overwrite)
        print(f"figure: {out / 'energy.png'}")


def _rigid_body_part(out: Path, overwrite: bool) -> None:
    from ..rigidbody import dzhanibekov_demo

    demo = dzhanibekov_demo(out, overwrite=overwrite)
    s = demo.summary
    print("\nTumbling box 0.1 x 0.3 x 0.6 m, 1 kg, spun about its intermediate axis, 100 s:")
    print(f"  flips of the intermediate axis (Dzhanibekov effect): {s['flips']}")
    print(
        f"  Lie-group RK4: energy drift {s['energy_drift']:.2e}, "
        f"momentum drift {s['momentum_drift']:.2e}, |R^T R - I| {s['rotation_error']:.2e}"
    )
    print(
        f"  explicit Euler: energy drift {s['euler_energy_drift']:.2e}, "
        f"momentum drift {s['euler_momentum_drift']:.2e}, "
        f"|R^T R - I| {s['euler_rotation_error']:.2e}"
    )
    if out is not None:
        print(f"figure: {demo.figure}")


def figures(model: Model) -> tuple[str, ...]:
    """The names of the figures :func:`run_demo` writes for ``model`` (a floating-base
    robot skips the simulation part and its two figures)."""
    sim = ("tracking.png", "energy.png") if model.nq == model.nv else ()
    return ("gravity_torques.png", *sim, "dzhanibekov.png")


def run_demo(
    outdir: str | Path | None = DEFAULT_OUT, robot: str | Model = "ur5", *, overwrite: bool = False
) -> int:
    """Run the demo; figures go to ``outdir``.

    Parameters
    ----------
    outdir : str or path-like or None
        Folder for the figures (:func:`figures` names them). Created when missing: its
        parent must exist, except for the default ``out/demo``, created with its parents.
        None: print the numbers only (``robodyn demo --no-figures``).
    robot : str or Model
        A bundled robot name, a robot file path, or a loaded Model.
    overwrite : bool
        Replace figures already in ``outdir`` (else FileExistsError naming the first,
        before any work; ``robodyn demo --force``).

    Returns
    -------
    int
        A process exit code (0).
    """
    out = None if outdir is None else Path(outdir)
    if out is not None:
        from .. import models

        robot = robot if isinstance(robot, Model) else models.load(robot)
        out.mkdir(parents=out == Path(DEFAULT_OUT), exist_ok=True)
        for name in figures(robot):  # every figure checked before any work
            output_path(out / name, overwrite=overwrite, name="outdir")
    _robot_part(out, robot, overwrite)
    _simulation_part(out, robot, overwrite)
    _rigid_body_part(out, overwrite)
    return 0


# ------------------------------------------------------------------ the subcommand
def add_parser(sub) -> argparse.ArgumentParser:
    """``robodyn demo``: its parser."""
    d = sub.add_parser("demo", help="run the main job on a bundled robot and write figures")
    d.add_argument("--out", default="out/demo", metavar="DIR", help="folder for the figures "
                   "(default out/demo; a new folder's parent must exist)")  # fmt: skip
    d.add_argument("--robot", default="ur5", help=ROBOT_HELP + " (default ur5)")
    d.add_argument("--no-figures", action="store_true", help="print the numbers only (no --out)")
    d.set_defaults(func=command)
    return d


def command(args: argparse.Namespace) -> int:
    """Run ``robodyn demo``."""
    model = load_robot(args.robot)
    if args.no_figures:
        return run_demo(None, robot=model)
    out = check_output_dir("--out", args.out, figures(model), default=DEFAULT_OUT, force=args.force)
    return run_demo(out, robot=model, overwrite=args.force)
