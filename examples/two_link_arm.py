"""The 2-link arm of course notes 003, worked with robodyn.

m1 = 5, m2 = 3 kg, l1 = 0.5, l2 = 0.4 m, lc1 = 0.25, lc2 = 0.2 m, I1 = 0.1, I2 = 0.05 kg m^2,
gravity along -y (the bundled model ``planar_2r``). The script

1. prints the lesson's demo (M, C, g and the holding torques at q = (45, 30) deg,
   q_dot = (0.5, -0.3) rad/s, to its 4 decimals) from the O(n) algorithms, and the
   equations from sympy's Lagrangian in the lesson's symbols, and checks that they agree;
2. prints dM/dt - 2C at the lesson's state and checks that it is skew-symmetric;
3. drops the arm from horizontal (q = 0) and compares the energy drift of explicit Euler,
   semi-implicit Euler and RK4 (``rd.simulate``);
4. drives the arm to q_d = (45, 30) deg with PD control, with and without gravity
   compensation, then with computed torque (``rd.control``), 2 s each (the lesson runs
   computed torque for 1 s: ``course/ex4_controllers.py`` prints its numbers), and plots
   their tracking errors and torques (the notes' exercise 4).

Figures go to ./out/two_link_arm (or the folder given as the first argument).

    python examples/two_link_arm.py [outdir]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

import robodyn as rd
from robodyn.sim.plot import animate, plot_comparison


def main(outdir: str = "out/two_link_arm") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    model = rd.models.load("planar_2r")
    np.set_printoptions(precision=4, suppress=True)

    # 1. the lesson's demo, "The 2-Link Planar Arm: Complete Derivation": q = (45, 30) deg,
    # q_dot = (0.5, -0.3) rad/s, printed to the lesson's 4 decimals; M, C, g from the O(n)
    # algorithms (CRBA, Christoffel symbols, RNEA) and from sympy's Lagrangian
    q, qd = np.radians([45.0, 30.0]), np.array([0.5, -0.3])
    where = "(as in course notes 003, 'The 2-Link Planar Arm' demo)"
    M, C, g = (
        rd.mass_matrix(model, q),
        rd.coriolis_matrix(model, q, qd),
        rd.gravity_forces(model, q),
    )
    print(f"Configuration: q = [{np.degrees(q[0]):.0f}, {np.degrees(q[1]):.0f}] deg, "
          f"q_dot = {qd.tolist()} rad/s")  # fmt: skip
    print(f"Inertia matrix M = {(M.round(4) + 0.0).tolist()} kg m^2   {where}")
    print(f"Coriolis matrix C = {(C.round(4) + 0.0).tolist()} kg m^2/s   {where}")
    print(f"Gravity vector g = {(g.round(4) + 0.0).tolist()} N m   {where}")
    tau_static = rd.inverse_dynamics(model, q, np.zeros(2), np.zeros(2))
    print(f"Torques to hold position = {(tau_static.round(4) + 0.0).tolist()} N m   {where}")
    eom = rd.symbolic.derive(model, names="lesson")  # the lesson's symbols (theta, l1, lc2)
    num = eom.parameters | dict(zip(eom.q, q)) | dict(zip(eom.qd, qd))
    M_sym, C_sym = (np.array(x.subs(num).evalf(), dtype=float) for x in (eom.M, eom.C))
    g_sym = np.array(eom.g.subs(num).evalf(), dtype=float).ravel()
    print(f"symbolic M11 = {eom.M[0, 0]}")
    print(
        "Newton-Euler vs Euler-Lagrange, largest difference: "
        f"{max(np.abs(M - M_sym).max(), np.abs(C - C_sym).max(), np.abs(g - g_sym).max()):.1e}"
    )

    # 2. dM/dt - 2C is skew-symmetric, at the lesson's (45, 30) deg, q_dot = (1, -0.5)
    qd2 = np.array([1.0, -0.5])
    S = rd.mass_matrix_dot(model, q, qd2) - 2 * rd.coriolis_matrix(model, q, qd2)
    print(
        f"M_dot - 2C = {(S.round(6) + 0.0).tolist()}, skew-symmetric: "
        f"{np.allclose(S + S.T, 0)}   (as in course notes 003, 'The Skew-Symmetry Property')"
    )

    # 3. free fall from horizontal (q = 0; the notes' (90, 0) deg is straight up, an
    # equilibrium): energy drift of explicit Euler, semi-implicit Euler and RK4 over 2 s
    up = rd.simulate(model, np.radians([90.0, 0.0]), duration=2.0, dt=1e-3,
                     integrator="semi_implicit_euler")  # fmt: skip
    E_up = up.energy()
    print(f"the lesson's start q = (90, 0) deg: Energy drift over 2s: "
          f"{(E_up[-1] - E_up[0]) / abs(E_up[0]) * 100:.2f}%, Final configuration: q = "
          f"{(np.degrees(up.q[-1]).round(1) + 0.0).tolist()} deg   (as in course notes 003, "
          "'Simulation: Free Fall'; erratum: (90, 0) deg is straight up, an equilibrium, "
          "not horizontal)")  # fmt: skip
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
