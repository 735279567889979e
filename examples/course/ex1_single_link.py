"""Course notes 003, Exercise 1: the single-link arm (m = 2 kg, l = 0.5 m, lc = 0.25 m,
I = 0.02 kg m^2 about the centre of mass; theta = 0 hanging down, gravity along -y).

1. the equation of motion by Euler-Lagrange: (I + m lc^2) theta_dd + m g lc sin(theta) = tau
2. the gravity torque at 0, 45 and 90 deg, 3. the torque that holds the arm at 45 deg,
4. free fall from 90 deg with the lesson's Euler update and with RK4, against the
   large-amplitude period 4 sqrt(I_p / (m g lc)) K(sin^2 45 deg).

    python examples/course/ex1_single_link.py [outdir]     (default ./out/course/ex1)
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from scipy.special import ellipk

import robodyn as rd

M_, L_, LC, IC, G = 2.0, 0.5, 0.25, 0.02, 9.81


def single_link():
    xml = f"""<robot name="single_link"><link name="base"/>
      <link name="arm"><inertial><origin xyz="0 {-LC} 0"/><mass value="{M_}"/>
        <inertia ixx="{IC}" iyy="{IC}" izz="{IC}" ixy="0" ixz="0" iyz="0"/></inertial></link>
      <joint name="theta" type="continuous"><parent link="base"/><child link="arm"/>
        <axis xyz="0 0 1"/></joint></robot>"""
    return dataclasses.replace(rd.load_urdf(xml), gravity=np.array([0.0, -G, 0.0]))


def main(outdir: str = "out/course/ex1") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    link = single_link()
    eom = rd.symbolic.derive(link)
    print(f"1. Euler-Lagrange: ({eom.M[0, 0]}) theta_dd + {eom.g[0]} = tau")
    for deg in (0, 45, 90):
        g = rd.gravity_forces(link, [np.radians(deg)])[0]
        print(f"2. gravity torque at {deg:2d} deg: {g:.5f} N m")
    hold = rd.inverse_dynamics(link, [np.radians(45)], [0.0], [0.0])[0]
    print(f"3. holding torque at 45 deg: {hold:.5f} N m")
    T = 4 * np.sqrt((IC + M_ * LC**2) / (M_ * G * LC)) * ellipk(0.5)
    print(f"4. free fall from 90 deg: period (elliptic integral) {T:.5f} s")
    fig = Figure(figsize=(9, 6), layout="constrained")
    ax_q, ax_e = fig.subplots(2, 1, sharex=True)
    for integrator in ("semi_implicit_euler", "euler", "rk4"):
        res = rd.simulate(link, [np.pi / 2], duration=2.0, dt=1e-3, integrator=integrator)
        E = res.energy()
        print(f"   {integrator:19s}: E(2 s) - E(0) = {E[-1] - E[0]:+.3e} J")
        ax_q.plot(res.t, np.degrees(res.q[:, 0]), label=integrator)
        ax_e.plot(res.t, E - E[0], label=integrator)
    for k in range(1, 2):
        ax_q.axvline(k * T, color="0.5", ls="--", lw=0.8, label="one period (elliptic integral)")
    ax_q.set_ylabel("theta (deg)")
    ax_e.set_ylabel("E(t) - E(0) (J)")
    ax_e.set_xlabel("t (s)")
    for ax in (ax_q, ax_e):
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    fig.suptitle("Single link released at 90 deg: angle and energy drift, dt = 1 ms")
    fig.savefig(out / "free_fall.png", dpi=100)
    print(f"figure: {out / 'free_fall.png'}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
