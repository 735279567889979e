"""Course notes 003, Exercise 5 and its "Newton-Euler Formulation": Newton-Euler against
Euler-Lagrange on the lesson's arm, then how each scales with the number of joints.

1. The lesson's comparison at q = (45, 30) deg, q_dot = (1, -0.5), q_ddot = (0.5, 0.3):
   its Euler-Lagrange torques, its ``newton_euler_2link`` as printed (link 2's force
   counted twice in joint 1: an erratum, docs/course-errata.md) and corrected (robodyn's
   RNEA), and the agreement at 5 random states (Exercise 5.2).
2. The lesson claims Newton-Euler is O(n) and Lagrange O(n^3) or O(n^4) (Exercise 5.3,
   "time both methods"). For planar chains of n = 2 .. 12 equal links (0.3 m, 1 kg, CoM at
   0.15 m, 0.01 kg m^2) this times robodyn's compiled RNEA, the Craig reference
   (``robodyn.reference.rnea_craig``, numpy, 3-vectors) and Lagrange done as the lesson
   does it: sympy derives tau = d/dt dL/dqdot - dL/dq from the energies (timed), then the
   lambdified expression is evaluated (timed). A log-log plot and the fitted exponents
   (t ~ n^p) are printed. The compiled RNEA's fixed call cost (~1 us) hides its O(n) part
   at these sizes; the Craig reference shows it.

    python examples/course/ex5_newton_euler.py [outdir] [largest n]
        (default ./out/course/ex5 and n = 12; n = 12 derives for about a minute)
"""

from __future__ import annotations

import sys
import time
import timeit
from pathlib import Path

import numpy as np
import sympy as sp
from matplotlib.figure import Figure

import robodyn as rd
from robodyn.inertia import RigidInertia
from robodyn.reference import rnea_craig

L, LC, MASS, IZ, G = 0.3, 0.15, 1.0, 0.01, 9.81  # each link of the chains


def lessons_comparison() -> None:
    """Section 1: the lesson's EL vs NE at its state, as printed and corrected."""
    arm = rd.models.load("planar_2r")
    p = rd.models.info("planar_2r")["parameters"]
    q, qd, qdd = np.radians([45.0, 30.0]), np.array([1.0, -0.5]), np.array([0.5, 0.3])
    M, c, g = rd.mass_matrix(arm, q), rd.velocity_forces(arm, q, qd), rd.gravity_forces(arm, q)
    tau_el = M @ qdd + c + g  # the lesson's closed-form M, C, g (equal to robodyn's)
    tau_ne = rd.inverse_dynamics(arm, q, qd, qdd)  # Newton-Euler, corrected
    # the lesson's newton_euler_2link adds lc1 x f2 once more in joint 1 (f2 = m2 (a_c2 + g))
    t1, t12, w1, w12 = q[0], q.sum(), qd[0], qd.sum()
    u1, n1 = np.array([np.cos(t1), np.sin(t1)]), np.array([-np.sin(t1), np.cos(t1)])
    u12, n12 = np.array([np.cos(t12), np.sin(t12)]), np.array([-np.sin(t12), np.cos(t12)])
    a_c2 = p["l1"] * (qdd[0] * n1 - w1**2 * u1) + p["lc2"] * (qdd.sum() * n12 - w12**2 * u12)
    f2 = p["m2"] * (a_c2 + [0.0, p["g"]])
    tau_printed = tau_ne + [p["lc1"] * (u1[0] * f2[1] - u1[1] * f2[0]), 0.0]
    where = "(as in course notes 003, 'Newton-Euler Formulation')"
    print(f"Euler-Lagrange torques: {(tau_el.round(4) + 0.0).tolist()} N m   {where}")
    print(f"Newton-Euler torques, as printed: {(tau_printed.round(4) + 0.0).tolist()} N m, "
          f"Match: {np.allclose(tau_el, tau_printed, atol=1e-3)}   {where}; erratum: link 2's "
          "force counted twice in joint 1 (docs/course-errata.md)")  # fmt: skip
    print(
        f"Newton-Euler torques, corrected (robodyn's RNEA): "
        f"{(tau_ne.round(4) + 0.0).tolist()} N m, Match: {np.allclose(tau_el, tau_ne, atol=1e-3)}"
    )
    rng = np.random.default_rng(5)
    worst = 0.0
    for _ in range(5):
        q, qd, qdd = rng.uniform(-np.pi, np.pi, 2), rng.normal(size=2), rng.normal(size=2)
        M, c, g = (rd.mass_matrix(arm, q), rd.velocity_forces(arm, q, qd),
                   rd.gravity_forces(arm, q))  # fmt: skip
        worst = max(worst, np.abs(rd.inverse_dynamics(arm, q, qd, qdd) - (M @ qdd + c + g)).max())
    print(f"5.2 five random states: largest |tau_NE - tau_EL| = {worst:.1e} N m")


def chain(n: int) -> rd.Model:
    """n equal links in a plane, joints about z, gravity along -y."""
    b = rd.ModelBuilder(name=f"planar_{n}r", gravity=(0.0, -G, 0.0))
    link = RigidInertia(MASS, [LC, 0.0, 0.0], np.diag([IZ, IZ, IZ]))
    for i in range(n):
        T = np.eye(4)
        T[0, 3] = L if i else 0.0
        b.add_body(f"link{i + 1}", f"link{i}" if i else "world", axis=(0, 0, 1), T=T, inertia=link)
    return b.build()


def lagrange_chain(n: int):
    """tau(q, qd, qdd) of the n-link chain by Euler-Lagrange in sympy (not simplified)."""
    q, qd = sp.symbols(f"q1:{n + 1}"), sp.symbols(f"qd1:{n + 1}")
    qdd = sp.symbols(f"qdd1:{n + 1}")
    K, P, x, y, phi, w = 0, 0, 0, 0, 0, 0
    for i in range(n):
        phi, w = phi + q[i], w + qd[i]
        xc, yc = x + LC * sp.cos(phi), y + LC * sp.sin(phi)  # CoM of link i + 1
        vx = sum(sp.diff(xc, q[j]) * qd[j] for j in range(i + 1))
        vy = sum(sp.diff(yc, q[j]) * qd[j] for j in range(i + 1))
        K += MASS * (vx**2 + vy**2) / 2 + IZ * w**2 / 2
        P += MASS * G * yc
        x, y = x + L * sp.cos(phi), y + L * sp.sin(phi)
    tau = []
    for i in range(n):  # tau_i = d/dt dL/dqd_i - dL/dq_i
        p_i = sp.diff(K - P, qd[i])
        ddt = sum(sp.diff(p_i, q[j]) * qd[j] + sp.diff(p_i, qd[j]) * qdd[j] for j in range(n))
        tau.append(ddt - sp.diff(K - P, q[i]))
    return sp.lambdify([q, qd, qdd], tau, "numpy", cse=True)


def per_call(fn, *args) -> float:
    """Seconds per call of fn(*args), the best of 3 repeats of 200 calls."""
    number = 200
    return min(timeit.repeat(lambda: fn(*args), number=number, repeat=3)) / number


def scaling(ns, out: Path) -> None:
    """Section 2: time per call against n, a log-log plot, the fitted exponents."""
    rng = np.random.default_rng(0)
    rows = []
    for n in ns:
        model = chain(n)
        q, qd, qdd = rng.uniform(-np.pi, np.pi, n), rng.normal(size=n), rng.normal(size=n)
        t0 = time.perf_counter()
        el = lagrange_chain(n)
        derive = time.perf_counter() - t0
        tau = rd.inverse_dynamics(model, q, qd, qdd)
        err = max(np.abs(np.asarray(el(q, qd, qdd), float) - tau).max(),
                  np.abs(rnea_craig(model, q, qd, qdd) - tau).max())  # fmt: skip
        rows.append((n, per_call(rd.inverse_dynamics, model, q, qd, qdd),
                     per_call(rnea_craig, model, q, qd, qdd), per_call(el, q, qd, qdd),
                     derive, err))  # fmt: skip
        print(f"n = {n:2d}: RNEA compiled {rows[-1][1] * 1e6:8.2f} us, Craig reference "
              f"{rows[-1][2] * 1e6:8.1f} us, Lagrange evaluate {rows[-1][3] * 1e6:8.1f} us, "
              f"derive {derive:7.2f} s; largest difference {err:.1e} N m")  # fmt: skip
    data = np.array(rows)
    names = ("RNEA, compiled", "Newton-Euler, Craig reference (numpy)",
             "Lagrange (sympy), evaluate", "Lagrange (sympy), derive")  # fmt: skip
    fig = Figure(figsize=(8, 5), layout="constrained")
    ax = fig.subplots()
    for k, name in enumerate(names, start=1):
        p = np.polyfit(np.log(data[:, 0]), np.log(data[:, k]), 1)[0]
        print(f"fit t ~ n^p, {name:38s}: p = {p:.2f}")
        ax.loglog(data[:, 0], data[:, k], "o-", label=f"{name} (n^{p:.1f})")
    for k, p in ((2, 1), (3, 3), (3, 4)):  # O(n) for Newton-Euler, O(n^3), O(n^4) for Lagrange
        c = np.exp(np.mean(np.log(data[:, k]) - p * np.log(data[:, 0])))
        print(f"least-squares fit of {names[k - 1]} to c n^{p}: c = {c:.3g} s")
        ax.loglog(data[:, 0], c * data[:, 0] ** p, ":", color="0.4", label=f"c n^{p} fit")
    ax.set_xlabel("number of joints n (-)")
    ax.set_ylabel("time (s)")
    ax.set_title("Inverse dynamics of planar chains: Newton-Euler against Lagrange")
    ax.grid(alpha=0.3, which="both")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    fig.savefig(out / "scaling.png", dpi=100)
    print(f"figure: {out / 'scaling.png'}")


def main(outdir: str = "out/course/ex5", largest: str = "12") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    lessons_comparison()
    scaling(range(2, int(largest) + 1), out)


if __name__ == "__main__":
    main(*sys.argv[1:3])
