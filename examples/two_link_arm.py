"""The 2-link arm of course notes 003, worked with robodyn.

m1 = 5, m2 = 3 kg, l1 = 0.5, l2 = 0.4 m, lc1 = 0.25, lc2 = 0.2 m, I1 = 0.1, I2 = 0.05 kg m^2,
gravity along -y (the bundled model ``planar_2r``). The script

1. prints M(q), C(q, qd) and g(q) from the O(n) algorithms and from sympy's Lagrangian,
   and checks that they agree (Newton-Euler versus Euler-Lagrange);
2. checks that dM/dt - 2C is skew-symmetric;
3. drops the arm from horizontal (q = 0) and compares the energy drift of explicit Euler,
   semi-implicit Euler and RK4 (``rd.simulate``);
4. drives the arm to q_d = (45, 30) deg with PD control, with and without gravity
   compensation, then with computed torque (``rd.control``), as the notes do (2 s each),
   and plots their tracking errors and torques (the notes' exercise 4).

Figures go to ./out/two_link_arm (or the folder given as the first argument).

    python examples/two_link_arm.py [outdir]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import sympy as sp
from matplotlib.figure import Figure

import robodyn as rd
from robodyn.sim.plot import animate, plot_comparison


def main(outdir: str = "out/two_link_arm") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    model = rd.models.load("planar_2r")
    np.set_printoptions(precision=4, suppress=True)

    # 1. Newton-Euler (RNEA/CRBA) against Euler-Lagrange (sympy)
    q, qd = np.radians([30.0, 45.0]), np.array([0.5, -0.3])
    M, C, g = (
        rd.mass_matrix(model, q),
        rd.coriolis_matrix(model, q, qd),
        rd.gravity_forces(model, q),
    )
    eom = rd.symbolic.derive(model)
    subs = dict(zip(eom.q, q)) | dict(zip(eom.qd, qd))
    M_sym = np.array(eom.M.subs(subs).evalf(), dtype=float)
    C_sym = np.array(eom.C.subs(subs).evalf(), dtype=float)
    g_sym = np.array(eom.g.subs(subs).evalf(), dtype=float).ravel()
    print(f"M(q) =\n{M}\nC(q, qd) =\n{C}\ng(q) = {g}")
    print(f"symbolic M: {sp.simplify(eom.M[0, 0])}")
    print(
        "Newton-Euler vs Euler-Lagrange, largest difference: "
        f"{max(np.abs(M - M_sym).max(), np.abs(C - C_sym).max(), np.abs(g - g_sym).max()):.1e}"
    )

    # 2. dM/dt - 2C is skew-symmetric
    N = rd.mass_matrix_dot(model, q, qd) - 2 * C
    print(f"|N + N^T| for N = dM/dt - 2C: {np.abs(N + N.T).max():.1e}")

    # 3. free fall from horizontal (q = 0; the notes' (90, 0) deg is straight up, an
    # equilibrium): energy drift of explicit Euler, semi-implicit Euler and RK4 over 2 s
    falls = {}
    for integrator in ("euler", "semi_implicit_euler", "rk4"):
        falls[integrator] = rd.simulate(model, np.zeros(2), duration=2.0, dt=1e-3,
                                        integrator=integrator)  # fmt: skip
        E = falls[integrator].energy()
        print(f"free fall, {integrator:19s}: E(2 s) - E(0) = {E[-1] - E[0]:.3e} J")
    fig = Figure(figsize=(9, 4), layout="constrained")
    ax = fig.subplots()
    for integrator, res in falls.items():
        ax.plot(res.t, res.energy() - res.energy()[0], label=integrator)
    ax.set_xlabel("t (s)")
    ax.set_ylabel("E(t) - E(0) (J)")
    ax.set_title("Free fall from q = (0, 0), no torque, dt = 1 ms: energy drift")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    fig.savefig(out / "free_fall_energy.png", dpi=100)
    print(f"figure: {out / 'free_fall_energy.png'}")
    # this script's own outputs: a new run replaces them (overwrite=True)
    print(f"animation: {animate(falls['rk4'], out / 'free_fall.gif', fps=15, overwrite=True)}")

    # 4. to q_d = (45, 30) deg: PD, PD + gravity compensation, computed torque, 2 s each,
    # with the notes' gains and update order (semi-implicit Euler, as its simulate loop)
    q_des = np.radians([45.0, 30.0])
    Kp, Kd = np.diag([50.0, 30.0]), np.diag([10.0, 5.0])
    controllers = {
        "PD only": rd.control.PD(model, q_des, Kp, Kd),
        "PD + gravity compensation": rd.control.PD(model, q_des, Kp, Kd, gravity_compensation=True),
        "computed torque": rd.control.ComputedTorque(model, q_des, kp=100.0, kd=20.0),
    }
    runs = {}
    for name, ctrl in controllers.items():
        runs[name] = rd.simulate(model, np.zeros(2), controller=ctrl, duration=2.0, dt=1e-3,
                                 integrator="semi_implicit_euler")  # fmt: skip
        err = np.degrees(np.abs(runs[name].q[-1] - q_des))
        print(f"{name:26s} final error: joint1 {err[0]:.4f} deg, joint2 {err[1]:.4f} deg")
    plot_comparison(runs, target=q_des, path=out / "controllers.png", overwrite=True)
    print(f"figure: {out / 'controllers.png'}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
