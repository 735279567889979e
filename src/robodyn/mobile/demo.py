"""``robodyn mobile {unicycle,diffdrive,car,omni,mecanum,youbot}``: a demo run of each
robot type, printing the numbers a reader can check and writing figures.

* unicycle, diffdrive: MR's tracking controller on a circle from a 0.5 m offset (and, for
  the diff-drive, the same robot with mass and inertia under wheel torques through
  ``rd.simulate(..., constraints=)``, with its constraint violation);
* car: the shortest Dubins path to a goal, followed by pure pursuit;
* omni, mecanum: a square driven by wheel speeds and reconstructed by odometry;
* youbot: the MR capstone's base-plus-arm Jacobian driving the gripper along a screw path.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .._files import output_path

__all__ = ["KINDS", "DEFAULT_OUT", "figures", "run_mobile_demo"]

KINDS = ("unicycle", "diffdrive", "car", "omni", "mecanum", "youbot")
DEFAULT_OUT = "out/mobile"  # created with its parents; another folder's parent must exist


def figures(kind: str, animate: bool = True) -> tuple[str, ...]:
    """The names of the files :func:`run_mobile_demo` writes for ``kind``."""
    if kind not in KINDS:
        raise ValueError(f"robot must be one of {KINDS}, got {kind!r}")
    if kind == "youbot":
        return ("youbot_tracking.png", "youbot_base_path.png")
    names = [f"{kind}_path.png", f"{kind}_wheel_speeds.png"]
    if kind in ("unicycle", "diffdrive"):
        names.append(f"{kind}_error.png")
    if kind == "diffdrive":
        names += ["diffdrive_constraint.png", "diffdrive_dynamics_path.png",
                  "diffdrive_dynamics_wheel_speeds.png"]  # fmt: skip
    if animate:
        names += [f"{kind}.gif"] + (["diffdrive_dynamics.gif"] if kind == "diffdrive" else [])
    return tuple(names)


def _tracking(robot, out: Path, name: str, animate: bool, ow: bool) -> None:
    from . import circle, drive
    from . import plot as mp
    from .control import TrackingController

    ref = circle(radius=2.0, speed=0.5)
    q0 = ref(0.0)[0] + np.array([0.0, 0.5, 0.0])
    run = drive(robot, q0, TrackingController(ref), duration=20.0, dt=0.02)
    e = run.tracking_error()
    print(f"{name}: MR 13.3.4 tracking of a 2 m circle at 0.5 m/s from a 0.5 m offset")
    print(f"  error: {e[0]:.3f} m at t = 0, {e[-1]:.2e} m at t = {run.t[-1]:g} s")
    refq = np.array([ref(t)[0] for t in run.t])
    mp.plot_path({name: run}, out / f"{name}_path.png", overwrite=ow, reference=refq,
                 title=f"{name}: tracking a circle")  # fmt: skip
    mp.plot_wheel_speeds(run, out / f"{name}_wheel_speeds.png", overwrite=ow)
    mp.plot_tracking({name: run}, out / f"{name}_error.png", overwrite=ow,
                     title=f"{name}: position error")  # fmt: skip
    if animate:
        mp.animate(run, out / f"{name}.gif", overwrite=ow, fps=8, speed=2.5, reference=refq)


def _diffdrive_dynamics(robot, out: Path, animate: bool, ow: bool) -> None:
    from scipy.integrate import simpson

    from ..sim.simulate import simulate
    from . import MobileRun, diff_drive_model
    from . import plot as mp

    model, con = diff_drive_model(robot, chassis_mass=10.0, chassis_inertia=0.5,
                                  wheel_mass=0.5, wheel_inertia=0.003)  # fmt: skip

    def torques(t, q, v):
        return np.array([0.0, 0.0, 0.0, 0.3 + 0.2 * np.sin(t), 0.3 - 0.2 * np.sin(t)])

    traj = simulate(model, np.zeros(5), None, torques, duration=6.0, dt=0.02, constraints=con)
    E = traj.energy()
    work = simpson(np.einsum("ki,ki->k", traj.tau, traj.v), x=traj.t)  # int tau . v dt
    print("diffdrive with mass (10 kg chassis, 0.5 kg wheels) under wheel torques:")
    print(f"  max |A(q) v| = {traj.constraint_violation.max():.2e} m/s (RK4, dt = 20 ms, "
          f"Baumgarte alpha = {con.alpha:g} 1/s)")  # fmt: skip
    print(f"  energy gained {E[-1] - E[0]:.6f} J = work of the wheel torques {work:.6f} J")
    mp.plot_constraint_violation(traj, out / "diffdrive_constraint.png", overwrite=ow)
    run = MobileRun.from_trajectory(traj, robot)  # chassis (phi, x, y) and wheel rates
    mp.plot_path({"diffdrive with mass": run}, out / "diffdrive_dynamics_path.png", overwrite=ow,
                 title="diffdrive with mass: path under wheel torques")  # fmt: skip
    mp.plot_wheel_speeds(run, out / "diffdrive_dynamics_wheel_speeds.png", overwrite=ow,
                         title="diffdrive with mass: wheel speeds under wheel torques")  # fmt: skip
    if animate:
        mp.animate(run, out / "diffdrive_dynamics.gif", overwrite=ow, fps=8, speed=1.5)


def _car(out: Path, animate: bool, ow: bool) -> None:
    from . import Car, PurePursuit, drive, dubins
    from . import plot as mp

    car = Car(wheelbase=0.5, max_steer=0.6)
    q0, q1 = np.array([0.0, 0.0, 0.0]), np.array([np.pi, -1.0, 3.0])
    R = car.min_turning_radius
    p = dubins(q0, q1, R)
    print(f"car (l = 0.5 m, max steer 0.6 rad, min turning radius {R:.3f} m)")
    print(f"  Dubins path {p.word}: segments {np.round(p.lengths, 3).tolist()} m, "
          f"length {p.length:.3f} m")  # fmt: skip
    ref = p.sample(q0, step=0.01)
    run = drive(car, q0, PurePursuit(ref[:, 1:], lookahead=0.4, speed=0.5),
                duration=0.02 * np.ceil((p.length / 0.5 + 1.0) / 0.02), dt=0.02)  # fmt: skip
    print(f"  pure pursuit ends {np.linalg.norm(run.q[-1, 1:] - q1[1:]):.3f} m from the goal, "
          f"max steering {np.abs(run.u[:, 1]).max():.3f} rad")  # fmt: skip
    mp.plot_path({"car (pure pursuit)": run}, out / "car_path.png", overwrite=ow, reference=ref,
                 title=f"car: Dubins {p.word} path and pure pursuit")  # fmt: skip
    mp.plot_wheel_speeds(run, out / "car_wheel_speeds.png", overwrite=ow)
    if animate:
        mp.animate(run, out / "car.gif", overwrite=ow, fps=8, speed=2.5, reference=ref)


def _square(robot, out: Path, name: str, animate: bool, ow: bool) -> None:
    from . import drive, odometry
    from . import plot as mp

    side, T = 1.0, 4.0
    legs = [np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0]), np.array([0.0, -1.0, 0.0]),
            np.array([0.0, 0.0, -1.0])]  # fmt: skip

    def ctrl(t, q):  # a square in the world frame while turning slowly
        V_s = legs[min(int(t // T), 3)] * side / T
        phi = q[0]
        c, s = np.cos(phi), np.sin(phi)
        w = 2 * np.pi / (4 * T)
        return np.array([w, c * V_s[1] + s * V_s[2], -s * V_s[1] + c * V_s[2]])

    run = drive(robot, np.zeros(3), ctrl, duration=4 * T, dt=0.02)
    odo = odometry(robot, run.q[0], run.u[:-1] * 0.02)
    print(f"{name}: a 1 m square while turning a full circle, {len(robot.inputs)} wheels")
    print(f"  H(0) =\n{np.array2string(robot.H(0.0), precision=4, prefix='  ')}")
    print(
        f"  odometry from the wheel angles matches the run to "
        f"{np.abs(odo[-1] - run.q[-1]).max():.1e}; end {np.round(run.q[-1], 4).tolist()}"
    )
    mp.plot_path(
        {name: run}, out / f"{name}_path.png", overwrite=ow, title=f"{name}: a square while turning"
    )
    mp.plot_wheel_speeds(run, out / f"{name}_wheel_speeds.png", overwrite=ow)
    if animate:
        mp.animate(run, out / f"{name}.gif", overwrite=ow, fps=8, speed=2.0)


def _youbot(out: Path, ow: bool) -> None:
    from ..spatial import exp3
    from ..trajectory import screw_trajectory
    from . import plot as mp
    from . import track, youbot

    yb = youbot(joint_speed_max=10.0, wheel_speed_max=30.0)
    c = np.array([0.3, 0.1, -0.2, 0.0, -0.3, -0.8, -0.9, 0.0, 0, 0, 0, 0])
    X0 = yb.ee_pose(c)
    X1 = X0.copy()
    X1[:3, 3] += [0.8, 0.3, -0.1]
    X1[:3, :3] = X0[:3, :3] @ exp3([0.0, 0.3, 0.5])
    ref = screw_trajectory(X0, X1, 5.0)
    c2 = c.copy()
    c2[1] += 0.2  # the chassis starts 0.2 m off
    run = track(yb, c2, ref, dt=0.01, kp=10.0, ki=20.0)
    e = run.position_error()
    print("youbot: J_e = [J_base, J_arm] (6 x 9), feedforward + PI along a screw path")
    print(f"  gripper error {1e3 * e[0]:.1f} mm at t = 0, below 1 mm after "
          f"{run.t[np.argmax(e < 1e-3)]:.2f} s, {1e3 * e[-1]:.4f} mm at the end")  # fmt: skip
    mp.plot_manipulation(run, out / "youbot_tracking.png", overwrite=ow)
    mp.plot_path({"youbot chassis": run.config[:, :3]}, out / "youbot_base_path.png", overwrite=ow,
                 title="youbot: chassis path while the gripper tracks")  # fmt: skip


def run_mobile_demo(kind: str, out, *, animate: bool = True, overwrite: bool = False) -> int:
    """Run the demo of one robot type and write its figures to ``out``.

    Parameters
    ----------
    kind : {"unicycle", "diffdrive", "car", "omni", "mecanum", "youbot"}
    out : path
        Folder for the files (:func:`figures` names them). Created when missing: its
        parent must exist, except for the default ``out/mobile``, created with its parents.
    animate : bool
        Also write a GIF.
    overwrite : bool
        Replace files already in ``out`` (else FileExistsError naming the first, before
        any work; ``robodyn mobile --force``).

    Returns
    -------
    int
        0, the exit status of ``robodyn mobile`` (a failure raises).
    """
    from . import DiffDrive, Mecanum, Omni, Unicycle

    if kind not in KINDS:
        raise ValueError(f"robot must be one of {KINDS}, got {kind!r}")
    out = Path(out)
    out.mkdir(parents=out == Path(DEFAULT_OUT), exist_ok=True)
    for name in figures(kind, animate):  # every file checked before any work
        output_path(out / name, overwrite=overwrite, name="out")
    if kind == "unicycle":
        _tracking(Unicycle(), out, "unicycle", animate, overwrite)
    elif kind == "diffdrive":
        dd = DiffDrive(wheel_radius=0.1, half_track=0.25)
        _tracking(dd, out, "diffdrive", animate, overwrite)
        _diffdrive_dynamics(dd, out, animate, overwrite)
    elif kind == "car":
        _car(out, animate, overwrite)
    elif kind == "omni":
        _square(Omni(wheel_radius=0.05, base_radius=0.2), out, "omni", animate, overwrite)
    elif kind == "mecanum":
        _square(Mecanum(half_length=0.235, half_width=0.15, wheel_radius=0.0475), out,
                "mecanum", animate, overwrite)  # fmt: skip
    else:
        _youbot(out, overwrite)
    print(f"figures written to {out}/")
    return 0
