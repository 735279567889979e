"""The 2-link arm of course notes 003, worked with robodyn.

m1 = 5, m2 = 3 kg, l1 = 0.5, l2 = 0.4 m, lc1 = 0.25, lc2 = 0.2 m, I1 = 0.1, I2 = 0.05 kg m^2,
gravity along -y (the bundled model ``planar_2r``). The script

1. prints M(q), C(q, qd) and g(q) from the O(n) algorithms and from sympy's Lagrangian,
   and checks that they agree (Newton-Euler versus Euler-Lagrange);
2. checks that dM/dt - 2C is skew-symmetric;
3. drops the arm from horizontal (q = 0) and compares the energy drift of explicit Euler with RK4;
4. drives the arm to q_d = (45, 30) deg with PD control, with and without gravity
   compensation, then with computed torque, as the notes do (each for 2 s).

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


def euler_step(f, q, qd, dt):
    """Semi-explicit Euler as in the notes: qd <- qd + qdd dt, then q <- q + qd dt."""
    qd = qd + f(q, qd) * dt
    return q + qd * dt, qd


def rk4_step(f, q, qd, dt):
    """Classical RK4 on the state (q, qd)."""
    k1q, k1v = qd, f(q, qd)
    k2q, k2v = qd + dt / 2 * k1v, f(q + dt / 2 * k1q, qd + dt / 2 * k1v)
    k3q, k3v = qd + dt / 2 * k2v, f(q + dt / 2 * k2q, qd + dt / 2 * k2v)
    k4q, k4v = qd + dt * k3v, f(q + dt * k3q, qd + dt * k3v)
    return (
        q + dt / 6 * (k1q + 2 * k2q + 2 * k3q + k4q),
        qd + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v),
    )


def simulate(model, controller, q0, duration, dt=1e-3, step=euler_step):
    """Closed-loop simulation; returns times and joint angles."""
    q, qd = np.array(q0, float), np.zeros(model.nv)

    def f(q, qd):
        return rd.forward_dynamics(model, q, qd, controller(q, qd))

    n = int(round(duration / dt))
    Q = np.empty((n + 1, model.nq))
    Q[0] = q
    for k in range(n):
        q, qd = step(f, q, qd, dt)
        Q[k + 1] = q
    return np.arange(n + 1) * dt, Q


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

    # 3. free fall from horizontal: energy drift of Euler and RK4 over 2 s
    def energy(q, qd):
        return rd.kinetic_energy(model, q, qd) + rd.potential_energy(model, q)

    fig = Figure(figsize=(9, 9), layout="constrained")
    ax_e, ax_q1, ax_q2 = fig.subplots(3, 1)
    outside = dict(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    for name, step in (("explicit Euler", euler_step), ("RK4", rk4_step)):
        q, qd, dt = np.zeros(2), np.zeros(2), 1e-3  # both links horizontal, at rest
        E0, E = energy(q, qd), [0.0]
        for _ in range(2000):
            q, qd = step(lambda q, v: rd.forward_dynamics(model, q, v, np.zeros(2)), q, qd, dt)
            E.append(energy(q, qd) - E0)
        print(f"free fall, {name}: E(2 s) - E(0) = {E[-1]:.3e} J")
        ax_e.plot(np.arange(2001) * dt, E, label=name)
    ax_e.set_ylabel("E(t) - E(0) (J)")
    ax_e.set_xlabel("t (s)")
    ax_e.set_title("Free fall from q = (0, 0), no torque, dt = 1 ms: energy drift")
    ax_e.legend(**outside)

    # 4. PD, PD + gravity compensation, computed torque, each for 2 s
    q_des = np.radians([45.0, 30.0])
    Kp, Kd = np.diag([50.0, 30.0]), np.diag([10.0, 5.0])

    def pd(q, qd):
        return Kp @ (q_des - q) - Kd @ qd

    def pd_gravity(q, qd):
        return rd.gravity_forces(model, q) + pd(q, qd)

    Kp_ct, Kd_ct = np.diag([100.0, 100.0]), np.diag([20.0, 20.0])

    def computed_torque(q, qd):
        a = Kp_ct @ (q_des - q) - Kd_ct @ qd  # virtual acceleration, qdd_d = qd_d = 0
        return rd.inverse_dynamics(model, q, qd, a)  # M a + C qd + g

    for name, ctrl in (
        ("PD only", pd),
        ("PD + gravity compensation", pd_gravity),
        ("computed torque", computed_torque),
    ):
        t, Q = simulate(model, ctrl, np.zeros(2), 2.0)
        err = np.degrees(np.abs(Q[-1] - q_des))
        print(f"{name:26s} final error: joint1 {err[0]:.4f} deg, joint2 {err[1]:.4f} deg")
        ax_q1.plot(t, np.degrees(Q[:, 0]), label=name)
        ax_q2.plot(t, np.degrees(Q[:, 1]), label=name)
    for ax, k in ((ax_q1, 0), (ax_q2, 1)):
        target = np.degrees(q_des[k])
        ax.axhline(target, color="k", ls="--", lw=0.8, label=f"target {target:g} deg")
        ax.set_ylabel(f"q{k + 1} (deg)")
        ax.set_xlabel("t (s)")
        ax.set_title(f"Joint {k + 1} driven from 0 to {target:g} deg by three controllers")
        ax.legend(**outside)
    fig.suptitle("2-link arm (m1 = 5 kg, m2 = 3 kg, l1 = 0.5 m, l2 = 0.4 m), gravity along -y")
    fig.savefig(out / "two_link_arm.png", dpi=100)
    print(f"figure: {out / 'two_link_arm.png'}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
