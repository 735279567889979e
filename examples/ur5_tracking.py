"""Computed torque against PD + gravity compensation on the bundled UR5 (MR ch. 9, 11).

A quintic joint trajectory over 2 s (``rd.trajectory``), its feed-forward torques by
inverse dynamics, then both controllers (``rd.control``) following it in ``rd.simulate``:
the tracking figure, the torques, and a 3-D animation of the arm. A controller whose model
is 10 % too heavy shows what a wrong model costs computed torque.

    python examples/ur5_tracking.py [outdir]        (default ./out/ur5_tracking)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import robodyn as rd
from robodyn.sim.plot import animate, plot_comparison


def main(outdir: str = "out/ur5_tracking") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    model = rd.models.load("ur5")
    q0 = np.array([0.0, -1.2, 1.4, -0.4, 1.2, 0.0])
    q1 = q0 + np.array([1.2, 0.5, -0.6, 0.8, -0.5, 1.0])
    ref = rd.trajectory.joint_trajectory(q0, q1, 2.0, time_scaling="quintic")
    t, q_d, v_d, a_d = ref.sample(1e-2)
    tau_ff = rd.inverse_dynamics(model, q_d, v_d, a_d)
    np.set_printoptions(precision=3, suppress=True)
    print(f"feed-forward torque peaks along the quintic: {np.abs(tau_ff).max(axis=0)} N m")
    controllers = {
        "PD + gravity compensation": rd.control.PD(model, ref, 200.0, 30.0,
                                                   gravity_compensation=True),
        "computed torque": rd.control.ComputedTorque(model, ref, kp=100.0, kd=20.0),
        "computed torque, model 10 % heavy": rd.control.ComputedTorque(
            rd.control.perturbed(model, 1.1), ref, kp=100.0, kd=20.0
        ),
    }  # fmt: skip
    runs = {}
    for name, ctrl in controllers.items():
        runs[name] = rd.simulate(model, q0, controller=ctrl, duration=2.5, dt=1e-3)
        err = np.abs(runs[name].q - ref(runs[name].t)[0]).max()
        print(f"{name:34s} max tracking error {err:.2e} rad")
    # this script's own outputs: a new run replaces them (overwrite=True)
    plot_comparison(runs, target=ref, path=out / "tracking.png", overwrite=True)
    print(f"figure: {out / 'tracking.png'}")
    gif = animate(runs["computed torque"], out / "ur5.gif", fps=10, overwrite=True)
    print(f"animation: {gif}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
