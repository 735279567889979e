"""Symbolic dynamics of the 2R arm of course notes 003, from the bundled model.

Derives M(q), C(q, qd), g(q) with textbook-named parameters (m1, r1, L1, I1, ...), checks
the skew-symmetry of dM/dt - 2C, writes the LaTeX and a generated numeric module to
``out/symbolic_2r/``, and compares the generated code with the numeric RNEA.

Run: ``python examples/symbolic_2r.py``
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import sympy as sp

from robodyn.dynamics import inverse_dynamics
from robodyn.models import load
from robodyn.symbolic import derive, load_module, to_function, write_module

OUT = Path("out/symbolic_2r")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    model = load("planar_2r")
    t0 = time.perf_counter()
    eom = derive(model, "symbolic")
    C = eom.C
    print(f"derived in {time.perf_counter() - t0:.2f} s")
    sp.pprint(eom.M)
    sp.pprint(C)
    sp.pprint(eom.g)
    print("parameters:", eom.parameters)

    # dM/dt - 2C is skew-symmetric
    Mdot = sum((sp.diff(eom.M, qk) * vk for qk, vk in zip(eom.q, eom.qd)), sp.zeros(2, 2))
    N = Mdot - 2 * C
    print("dM/dt - 2C + (dM/dt - 2C)^T =", sp.simplify(N + N.T))

    (OUT / "planar_2r.tex").write_text("\\[\n" + eom.latex() + "\n\\]\n", encoding="utf-8")
    path = write_module(eom, OUT / "planar_2r_dynamics.py", overwrite=True)  # a new run
    mod = load_module(path)
    fast = to_function(derive(model, "numeric"), "numba")

    rng = np.random.default_rng(0)
    q, v, a = rng.normal(size=(3, 2))
    tau = inverse_dynamics(model, q, v, a, friction=False)
    print("RNEA            :", tau)
    print("generated module:", mod.inverse_dynamics(q, v, a))
    print("numba           :", fast.inverse_dynamics(q, v, a))
    print(f"wrote {OUT}/planar_2r.tex and {path}")


if __name__ == "__main__":
    main()
