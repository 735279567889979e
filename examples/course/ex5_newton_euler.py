"""Course notes 003, Exercise 5: Newton-Euler against Euler-Lagrange on the lesson's arm.

Inverse dynamics three ways at 5 random states: robodyn's RNEA (compiled), the numpy
RNEA of robodyn.reference (the book's 6x6 form, for reading) and the Euler-Lagrange
equations derived by sympy; then how long each takes.

    python examples/course/ex5_newton_euler.py [outdir]     (default ./out/course/ex5)
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path

import numpy as np
import sympy as sp

import robodyn as rd


def main(outdir: str = "out/course/ex5") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    arm = rd.models.load("planar_2r")
    eom = rd.symbolic.derive(arm)
    qdd = sp.symbols("qdd1 qdd2")
    tau = eom.M * sp.Matrix(qdd) + eom.C * sp.Matrix(eom.qd) + eom.g
    el = sp.lambdify([*eom.q, *eom.qd, *qdd], list(tau), "numpy")  # Euler-Lagrange
    rng = np.random.default_rng(5)
    worst = 0.0
    for _ in range(5):
        q, qd, a = rng.uniform(-np.pi, np.pi, 2), rng.normal(size=2), rng.normal(size=2)
        t_ne = rd.inverse_dynamics(arm, q, qd, a)
        t_el = np.array(el(*q, *qd, *a), dtype=float)
        worst = max(worst, np.abs(t_ne - t_el).max())
        print(f"q = {np.degrees(q).round(1)} deg: Newton-Euler {t_ne.round(6)}, "
              f"Euler-Lagrange {t_el.round(6)} N m")  # fmt: skip
    print(f"largest difference: {worst:.1e} N m")
    for name, fn in (
        ("RNEA, compiled", lambda: rd.inverse_dynamics(arm, q, qd, a)),
        ("RNEA, numpy reference", lambda: rd.reference.rnea(arm, q, qd, a)),
        ("Euler-Lagrange, lambdified sympy", lambda: el(*q, *qd, *a)),
    ):
        n = 2000
        t = min(timeit.repeat(fn, number=n, repeat=3)) / n
        print(f"{name:34s} {t * 1e6:8.2f} us per call")
    (out / "timings.txt").write_text(f"largest difference {worst:.1e} N m\n")


if __name__ == "__main__":
    main(*sys.argv[1:2])
