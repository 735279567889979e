"""Course notes 003: the pendulum snippet ("The Euler-Lagrange Formulation") and Exercise 1,
the single-link arm (bundled as ``single_link``: m = 2 kg, l = 0.5 m, lc = 0.25 m,
I = 0.02 kg m^2 about the centre of mass; theta = 0 hanging down, gravity along -y).

The snippet (a point mass m = 2 kg on a massless rod l = 0.5 m, bundled ``pendulum``)
prints its inertia and the gravity torque at 45 deg. Exercise 1 asks for
1. the equation of motion by Euler-Lagrange: (I + m lc^2) theta_dd + m g lc sin(theta) = tau,
2. the gravity torque at 0, 45 and 90 deg, 3. the torque that holds the arm at 45 deg,
4. free fall from 90 deg with the lesson's Euler update (semi-implicit Euler, see the
   errata), explicit Euler and RK4, against the large-amplitude period
   4 sqrt(I_p / (m g lc)) K(sin^2 45 deg). The lesson prints no numbers for the exercise:
   ours are worked by hand (tests/book/test_course_scripts.py holds them).

    python examples/course/ex1_single_link.py [outdir]     (default ./out/course/ex1)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure
from scipy.special import ellipk

import robodyn as rd


def snippet() -> None:
    """The lesson's single_pendulum_dynamics(theta = 45 deg, m = 2, l = 0.5), its prints."""
    bob = rd.models.load("pendulum", m=2.0, l=0.5)
    q45 = [np.radians(45)]
    where = "(as in course notes 003, 'The Euler-Lagrange Formulation', pendulum snippet)"
    print(f"Inertia: {rd.mass_matrix(bob, q45)[0, 0]:.4f} kg*m^2   {where}")
    print(f"Gravity torque at 45 deg: {rd.gravity_forces(bob, q45)[0]:.4f} N*m   {where}")
    hold = rd.inverse_dynamics(bob, q45, [0.0], [0.0])[0]
    print(f"To hold position (tau = g_term): {hold:.4f} N*m   {where}")


def main(outdir: str = "out/course/ex1") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    snippet()
    link = rd.models.load("single_link")
    p = rd.models.info("single_link")["parameters"]
    # the exercise's symbols (robodyn's own: q1, m1, r1 for the CoM offset, I1)
    eom = rd.symbolic.derive(link, names={"q1": "theta", "m1": "m", "r1": "lc", "I1": "I"})
    print(f"1. Euler-Lagrange: ({eom.M[0, 0]}) theta_dd + {eom.g[0]} = tau   "
          f"(course notes 003, Exercise 1.1; I + m lc^2 = "
          f"{p['I'] + p['m'] * p['lc'] ** 2:.3f} kg m^2)")  # fmt: skip
    for deg in (0, 45, 90):
        g = rd.gravity_forces(link, [np.radians(deg)])[0]
        print(f"2. gravity torque at {deg:2d} deg: {g:.4f} N m   (Exercise 1.2, m g lc sin theta)")
    hold = rd.inverse_dynamics(link, [np.radians(45)], [0.0], [0.0])[0]
    print(f"3. holding torque at 45 deg: {hold:.4f} N m   (Exercise 1.3)")
    I_p = p["I"] + p["m"] * p["lc"] ** 2
    T = 4 * np.sqrt(I_p / (p["m"] * p["g"] * p["lc"])) * ellipk(0.5)
    print(f"4. free fall from 90 deg: period (elliptic integral) {T:.4f} s   (Exercise 1.4)")
    fig = Figure(figsize=(9, 6), layout="constrained")
    ax_q, ax_e = fig.subplots(2, 1, sharex=True)
    for integrator in ("semi_implicit_euler", "euler", "rk4"):
        res = rd.simulate(link, [np.pi / 2], duration=2.0, dt=1e-3, integrator=integrator)
        E = res.energy()
        print(f"   {integrator:19s}: E(2 s) - E(0) = {E[-1] - E[0]:+.3e} J")
        ax_q.plot(res.t, np.degrees(res.q[:, 0]), label=integrator)
        ax_e.plot(res.t, E - E[0], label=integrator)
    ax_q.axvline(T, color="0.5", ls="--", lw=0.8, label="one period (elliptic integral)")
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
