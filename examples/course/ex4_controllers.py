"""Course notes 003, Exercise 4: PD, PD + gravity compensation and computed torque driving
the lesson's 2-link arm from (0, 0) to (45, 30) deg with the lesson's gains, update
(semi-implicit Euler, dt = 1 ms) and durations (PD runs 2 s, computed torque 1 s, as in
its "Gravity Compensation" and "Computed Torque Control" sections): the final errors it
prints, the tracking errors and torques, and the steady state PD alone settles to.

    python examples/course/ex4_controllers.py [outdir]     (default ./out/course/ex4)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import robodyn as rd
from robodyn.sim.plot import plot_comparison


def main(outdir: str = "out/course/ex4") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    arm = rd.models.load("planar_2r")
    q_d = np.radians([45.0, 30.0])
    Kp, Kd = np.diag([50.0, 30.0]), np.diag([10.0, 5.0])
    controllers = {  # name: (controller, the lesson's duration, where it prints the error)
        "PD only": (rd.control.PD(arm, q_d, Kp, Kd), 2.0, "'Gravity Compensation'"),
        "PD + gravity": (rd.control.PD(arm, q_d, Kp, Kd, gravity_compensation=True), 2.0,
                         "'Gravity Compensation'"),
        "Computed torque": (rd.control.ComputedTorque(arm, q_d, kp=100.0, kd=20.0), 1.0,
                            "'Computed Torque Control'"),
    }  # fmt: skip
    runs = {}
    print("Steady-state error (degrees):")
    for name, (ctrl, duration, where) in controllers.items():
        # every run spans 2 s (one time axis in the figure); the error is read at the
        # lesson's duration: the state after its 1000 or 2000 steps
        runs[name] = rd.simulate(arm, np.zeros(2), controller=ctrl, duration=2.0, dt=1e-3,
                                 integrator="semi_implicit_euler")  # fmt: skip
        k = int(np.argmin(np.abs(runs[name].t - duration)))
        err = np.degrees(np.abs(runs[name].q[k] - q_d))
        digits = 4 if name == "Computed torque" else 2  # the lesson's rounding
        print(f"  {name + ':':16s} joint1={err[0]:.{digits}f}, joint2={err[1]:.{digits}f} "
              f"after {duration:.0f} s, peak torque {np.abs(runs[name].tau).max(0).round(1)} N m"
              f"   (as in course notes 003, {where})")  # fmt: skip
    # PD alone settles where K_p e = g(q): solve for that offset
    q = q_d.copy()
    for _ in range(100):
        q = q_d - np.linalg.solve(Kp, rd.gravity_forces(arm, q))
    print(f"PD's steady state from K_p (q_d - q) = g(q): error {np.degrees(q_d - q).round(2)} deg "
          "(after 2 s the lesson's PD is still on its way there)")  # fmt: skip
    plot_comparison(runs, target=q_d, path=out / "controllers.png", overwrite=True)  # a rerun
    print(f"figure: {out / 'controllers.png'}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
