"""Course notes 000: the 2R arm with point masses at the link tips (theta2 relative).

The bundled ``point_mass_2r`` (m1 = m2 = 1 kg, L1 = L2 = 1 m; the notes give symbols, these
are the unit arm of their "Variation of the Mass Matrix"). Prints M, c and g at a state
(tests/book/test_course_scripts.py evaluates the notes' closed forms there), c and g in the
notes' symbols, the tip-force term J^T F_tip, the apparent mass Lambda, the mass-2
accelerations and torques of the centripetal and Coriolis cases at theta = (0, pi/2)
(zero gravity, zero joint accelerations; the notes' printed sum beside the corrected one),
and draws the torque ellipses of M and the end-effector force ellipses of Lambda.

    python examples/course/notes000_2r.py [outdir]     (default ./out/course/notes000)
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import sympy as sp

import robodyn as rd
from robodyn.sim.plot import plot_ellipses


def variable_mass() -> None:
    """000's mass m(x) that changes with the configuration: ours m(x) = 1 + x^2 kg at
    x = 0.5 m, xdot = 2 m/s, xddot = 0; Lagrange (rd.symbolic.lagrange) against dp/dt."""
    x, xd = sp.symbols("x xd", real=True)
    eom = rd.symbolic.lagrange(K=(1 + x**2) * xd**2 / 2, V=0, q=[x], qd=[xd])
    at = {x: 0.5, xd: 2.0, eom.qdd[0]: 0.0}
    f = float(eom.lhs[0].subs(at))
    dp_dt = float(sp.diff(1 + x**2, x).subs(at) * 2.0**2)  # the notes' dm/dx xdot xdot
    print(
        f"variable mass m(x) = 1 + x^2 at x = 0.5, xdot = 2, xddot = 0: f = {f:.4f} N "
        f"(Lagrange, m xddot + 1/2 dm/dx xdot^2); the notes' f = dp/dt = {dp_dt:.4f} N   "
        "(course notes 000, 'Equations of Motion'; erratum: the force has 1/2 dm/dx)"
    )


def main(outdir: str = "out/course/notes000") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    arm = rd.models.load("point_mass_2r")  # m1 = m2 = 1 kg, L1 = L2 = 1 m, g = 9.81
    still = dataclasses.replace(arm, gravity=np.zeros(3))
    th, thd = np.radians([30.0, 45.0]), np.array([1.0, -2.0])
    print(f"theta = (30, 45) deg, theta_dot = {thd.tolist()} rad/s, unit arm, "
          "printed to 4 decimals:")  # fmt: skip
    eq = "(as in course notes 000, 'Equations of Motion')"
    print(f"M(theta) = {(rd.mass_matrix(arm, th).round(4) + 0.0).tolist()} kg m^2   {eq}")
    c = rd.velocity_forces(arm, th, thd)
    print(f"c(theta, theta_dot) = {(c.round(4) + 0.0).tolist()} N m   {eq}")
    print(f"g(theta) = {(rd.gravity_forces(arm, th).round(4) + 0.0).tolist()} N m   {eq}")
    eom = rd.symbolic.derive(arm, names="notes000")  # the notes' own symbols
    print(f"symbolic c = {list(eom.velocity_products)}")
    print(f"symbolic g = {list(eom.g)}")
    # the tip force and the apparent mass in the plane, as the notes write them (rd.planar)
    F_tip = np.array([1.0, 2.0])  # N, along x and y
    J = rd.planar.jacobian(arm, th, "ee")  # the notes' 2x2 J: [xdot; ydot] = J thetadot
    tau_f = rd.planar.inverse_dynamics(arm, th, np.zeros(2), np.zeros(2), f_tip=F_tip, frame="ee")
    tau_f -= rd.gravity_forces(arm, th)
    print(f"J^T(theta) F_tip for F_tip = {F_tip.tolist()} N: {(tau_f.round(4) + 0.0).tolist()} "
          f"N m (J^T F_tip = {(J.T @ F_tip).round(4).tolist()})   (as in course notes 000, "
          "'Compact Representation')")  # fmt: skip
    Lam = rd.planar.task_space_inertia(arm, th, "ee")
    print(f"Lambda(theta) = J^-T M J^-1 = {(Lam.round(4) + 0.0).tolist()} kg   (as in course "
          "notes 000, 'Apparent End-Effector Mass'; erratum: the line V^T Lambda V = ... lacks "
          "a 1/2 on its left)")  # fmt: skip
    # the centripetal and Coriolis cases at theta = (0, pi/2), zero gravity and acceleration
    at = np.array([0.0, np.pi / 2])
    for w in ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0)):
        acc = rd.jacobian_dot(arm, at, np.array(w), "ee", kind="world_aligned")[3:5] @ w
        printed = acc + [0.0, -2.0 * w[0] * w[1]]  # the notes add the Coriolis part again
        tau = rd.inverse_dynamics(still, at, np.array(w), np.zeros(2))
        note = "" if w[0] * w[1] == 0 else (
            f" (the notes print {(printed.round(4) + 0.0).tolist()}: erratum, the Coriolis "
            "term counted twice)")  # fmt: skip
        print(f"theta_dot = {w}: mass-2 acceleration {(acc.round(4) + 0.0).tolist()} m/s^2"
              f"{note}, torques {(tau.round(4) + 0.0).tolist()} N m   "
              "(course notes 000, 'Centripetal Terms and Coriolis Terms')")  # fmt: skip
    variable_mass()
    qs = np.radians([[0, 45], [0, 90], [0, 135]])
    # this script's own figures: a new run replaces them (overwrite=True)
    plot_ellipses(arm, qs, path=out / "torque_ellipses.png", overwrite=True)
    plot_ellipses(arm, np.radians([[0, 30], [45, 90], [-30, 120], [90, -45]]), kind="force",
                  path=out / "force_ellipses.png", overwrite=True)  # fmt: skip
    print(f"figures: {out / 'torque_ellipses.png'}, {out / 'force_ellipses.png'}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
