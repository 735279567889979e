"""Wheeled mobile robots and mobile manipulation (Modern Robotics ch. 13).

1. Kinematics: H(0) of a differential drive and of the youBot's mecanum base, wheel speeds
   of a chassis twist and back, the Pfaffian constraints A(q) qdot = 0.
2. Odometry: a square from wheel-angle increments (the planar twist integrated exactly).
3. Control: MR's nonholonomic tracking controller and pure pursuit, both from 0.5 m off.
4. Dynamics: the knife-edge of course notes 001 (a unicycle with mass and inertia) pushed
   around through rd.simulate(..., constraints=...), with the constraint violation.
5. Mobile manipulation: the youBot's gripper along a screw path, J_e = [J_base, J_arm].

Usage::

    python examples/mobile_robots.py [outdir]     # default ./out/mobile
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

import robodyn as rd
from robodyn import mobile
from robodyn.mobile import plot as mp


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", nargs="?", default="out/mobile", help="figure folder")
    out = Path(parser.parse_args(argv).outdir)
    out.mkdir(parents=True, exist_ok=True)

    # 1. kinematics ---------------------------------------------------------------
    dd = mobile.DiffDrive(wheel_radius=0.1, half_track=0.25)
    mec = mobile.Mecanum(half_length=0.235, half_width=0.15, wheel_radius=0.0475)
    twist = np.array([0.5, 0.4, 0.0])  # omega_bz rad/s, v_bx, v_by m/s
    u = dd.wheel_speeds(twist)
    print(f"diff-drive H(0) =\n{dd.H(0.0)}\nwheel speeds of {twist}: {u} rad/s")
    print(f"back to the twist: {dd.chassis_twist(u)}")
    q = np.array([0.3, 1.0, 2.0])
    print(f"A(q) qdot = {dd.constraints(q) @ dd.qdot(q, twist)} (no sideways slip)")
    print(f"mecanum H(0) * r =\n{mec.H(0.0) * mec.wheel_radius}")
    print(f"mecanum sideways at 0.2 m/s: {mec.wheel_speeds([0.0, 0.0, 0.2])} rad/s")

    # 2. odometry: a 1 m square (straight, then 90 degrees on the spot) ---------------
    side = np.array([10.0, 10.0])  # 1 m / r on both wheels
    turn = np.array([-1.0, 1.0]) * (np.pi / 2) * dd.half_track / dd.wheel_radius
    path = mobile.odometry(dd, np.zeros(3), [side, turn] * 4)
    print(f"square by odometry ends at {np.round(path[-1], 12)} (start: 0, 0, 0 + 2 pi)")

    # 3. control from 0.5 m off ------------------------------------------------------
    ref = mobile.circle(radius=2.0, speed=0.5)
    q0 = ref(0.0)[0] + [0.0, 0.5, 0.0]
    track = mobile.drive(dd, q0, mobile.TrackingController(ref), duration=20.0, dt=0.02)
    line = np.stack([np.linspace(0, 12, 1201), np.zeros(1201)], axis=1)
    pursue = mobile.drive(dd, [0.0, 0.0, 0.5], mobile.PurePursuit(line, 1.0, 0.5),
                          duration=20.0, dt=0.02)  # fmt: skip
    pursue_ref = np.column_stack([np.zeros(len(pursue.t)), np.clip(pursue.q[:, 1], 0, 12),
                                  np.zeros(len(pursue.t))])  # fmt: skip
    pursue = mobile.MobileRun(pursue.t, pursue.q, pursue.twist, pursue.u, dd, pursue_ref)
    print(f"tracking error after 20 s: {track.tracking_error()[-1]:.1e} m; pure pursuit: "
          f"{abs(pursue.q[-1, 2]):.1e} m off the line")  # fmt: skip
    refq = np.array([ref(t)[0] for t in track.t])
    # this script's own figures: a new run replaces them (overwrite=True)
    mp.plot_path({"tracking (MR 13.3.4)": track}, out / "tracking_path.png", reference=refq,
                 title="diff-drive tracking a circle", overwrite=True)  # fmt: skip
    mp.plot_path({"pure pursuit": pursue}, out / "pure_pursuit_path.png", reference=line,
                 title="diff-drive: pure pursuit of a line", overwrite=True)  # fmt: skip
    mp.plot_tracking({"tracking controller": track, "pure pursuit": pursue},
                     out / "tracking_error.png", title="distance to the reference",
                     overwrite=True)  # fmt: skip
    mp.plot_wheel_speeds(track, out / "tracking_wheel_speeds.png", overwrite=True)
    mp.animate(track, out / "tracking.gif", fps=5, speed=4.0, reference=refq, overwrite=True)

    # 4. the knife-edge with mass and inertia -----------------------------------------
    model, con = mobile.knife_edge_model(mass=2.5, inertia=0.4)

    def push(t, q, v):
        return np.array([np.sin(3 * t), np.cos(2 * t), 0.3 * np.sin(t)])

    q0 = np.array([0.0, 0.0, 0.4])
    v0 = np.array([np.cos(0.4), np.sin(0.4), 0.7])
    knife = rd.simulate(model, q0, v0, push, duration=10.0, dt=0.02, constraints=con)
    E = knife.energy()
    from scipy.integrate import simpson

    work = simpson(np.einsum("ki,ki->k", knife.tau, knife.v), x=knife.t)  # int tau . v dt
    print(f"knife-edge: max |A(q) v| = {knife.constraint_violation.max():.1e} m/s; energy "
          f"change {E[-1] - E[0]:.5f} J, work of the pushes {work:.5f} J")  # fmt: skip
    mp.plot_constraint_violation(knife, out / "knife_edge_constraint.png", overwrite=True)

    # 5. the youBot ---------------------------------------------------------------------
    yb = mobile.youbot(joint_speed_max=10.0, wheel_speed_max=30.0)
    c = np.array([0.3, 0.1, -0.2, 0.0, -0.3, -0.8, -0.9, 0.0, 0, 0, 0, 0])
    X0 = yb.ee_pose(c)
    X1 = X0.copy()
    X1[:3, 3] += [0.8, 0.3, -0.1]  # 0.85 m across the floor, 0.1 m down
    X1[:3, :3] = X0[:3, :3] @ rd.exp3([0.0, 0.3, 0.5])
    path_e = rd.trajectory.screw_trajectory(X0, X1, 5.0)
    run = mobile.track(yb, c, path_e, dt=0.01, kp=10.0, ki=20.0)
    print(f"youBot gripper error along the screw path: max "
          f"{1e3 * run.position_error().max():.3f} mm")  # fmt: skip
    mp.plot_manipulation(run, out / "youbot_tracking.png", title="youBot along a screw path",
                         overwrite=True)  # fmt: skip
    print(f"figures in {out}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
