"""Course notes 003, Exercise 4: PD, PD + gravity compensation and computed torque driving
the lesson's 2-link arm from (0, 0) to (45, 30) deg (the lesson's gains and its
semi-implicit Euler update), their tracking errors and torques, and the steady states.

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
    controllers = {
        "PD only": rd.control.PD(arm, q_d, Kp, Kd),
        "PD + gravity compensation": rd.control.PD(arm, q_d, Kp, Kd, gravity_compensation=True),
        "computed torque": rd.control.ComputedTorque(arm, q_d, kp=100.0, kd=20.0),
    }
    runs = {}
    for name, ctrl in controllers.items():
        runs[name] = rd.simulate(arm, np.zeros(2), controller=ctrl, duration=4.0, dt=1e-3,
                                 integrator="semi_implicit_euler")  # fmt: skip
        err = np.degrees(q_d - runs[name].q[-1])
        print(f"{name:26s} error after 4 s: {err.round(4)} deg, "
              f"peak torque {np.abs(runs[name].tau).max(0).round(1)} N m")  # fmt: skip
    # PD alone settles where K_p e = g(q): solve for that offset
    q = q_d.copy()
    for _ in range(100):
        q = q_d - np.linalg.solve(Kp, rd.gravity_forces(arm, q))
    print(f"PD's steady state from K_p (q_d - q) = g(q): error {np.degrees(q_d - q).round(4)} deg")
    plot_comparison(runs, target=q_d, path=out / "controllers.png", overwrite=True)  # a rerun
    print(f"figure: {out / 'controllers.png'}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
