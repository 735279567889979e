"""Modern Robotics chapter 8 with the UR5, written as course code: ``from robodyn import mr``.

The script is what a student of the course writes with the ``modern_robotics`` library;
only the import differs. It computes the mass matrix M(theta), the Coriolis/centripetal
forces c(theta, dtheta), the gravity forces g(theta), the joint forces of a tip wrench and
the forward dynamics at one state, checks that inverse dynamics of the forward-dynamics
acceleration gives the torques back, lets the unpowered arm fall for two seconds
(ForwardDynamicsTrajectory, MR's Euler scheme), and tracks a quintic joint trajectory
with the computed-torque controller of chapter 11 (SimulateControl).

Figures go to ./out/mr_course (no window opens). Run: ``python examples/mr_course_example.py``.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

from robodyn import mr

OUT = Path("out/mr_course")

# ---------------------------------------------------------------- UR5 (MR course data)
# link frames {i} at the link centres of mass relative to {i-1}; the last is the
# end-effector in {6}
M01 = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.089159], [0, 0, 0, 1]]
M12 = [[0, 0, 1, 0.28], [0, 1, 0, 0.13585], [-1, 0, 0, 0], [0, 0, 0, 1]]
M23 = [[1, 0, 0, 0], [0, 1, 0, -0.1197], [0, 0, 1, 0.395], [0, 0, 0, 1]]
M34 = [[0, 0, 1, 0], [0, 1, 0, 0], [-1, 0, 0, 0.14225], [0, 0, 0, 1]]
M45 = [[1, 0, 0, 0], [0, 1, 0, 0.093], [0, 0, 1, 0], [0, 0, 0, 1]]
M56 = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.09465], [0, 0, 0, 1]]
M67 = [[1, 0, 0, 0], [0, 0, 1, 0.0823], [0, -1, 0, 0], [0, 0, 0, 1]]
G1 = np.diag([0.010267495893, 0.010267495893, 0.00666, 3.7, 3.7, 3.7])
G2 = np.diag([0.22689067591, 0.22689067591, 0.0151074, 8.393, 8.393, 8.393])
G3 = np.diag([0.049443313556, 0.049443313556, 0.004095, 2.275, 2.275, 2.275])
G4 = np.diag([0.111172755531, 0.111172755531, 0.21942, 1.219, 1.219, 1.219])
G5 = np.diag([0.111172755531, 0.111172755531, 0.21942, 1.219, 1.219, 1.219])
G6 = np.diag([0.0171364731454, 0.0171364731454, 0.033822, 0.1879, 0.1879, 0.1879])
Mlist = np.array([M01, M12, M23, M34, M45, M56, M67], dtype=float)
Glist = np.array([G1, G2, G3, G4, G5, G6])
Slist = np.array(
    [
        [0, 0, 1, 0, 0, 0],
        [0, 1, 0, -0.089159, 0, 0],
        [0, 1, 0, -0.089159, 0, 0.425],
        [0, 1, 0, -0.089159, 0, 0.81725],
        [0, 0, -1, -0.10915, 0.81725, 0],
        [0, 1, 0, 0.005491, 0, 0.81725],
    ]
).T
g = np.array([0, 0, -9.81])
M_home = np.linalg.multi_dot(Mlist)  # end-effector at theta = 0


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    np.set_printoptions(precision=5, suppress=True)

    # ----------------------------------------------------- one state: M, c, g, J^T F
    theta = np.array([0.0, -np.pi / 6, np.pi / 3, 0.2, -0.4, 0.1])
    dtheta = np.array([0.2, 0.2, -0.4, 0.3, 0.1, 0.5])
    tau = np.array([1.0, 2.0, -3.0, 0.5, 0.2, 0.1])
    Ftip = np.array([0, 0, 0, 0, 0, 5.0])  # the gripper pushes with 5 N along its z
    print("end-effector pose T_sb(theta):\n", mr.FKinSpace(M_home, Slist, theta))
    M = mr.MassMatrix(theta, Mlist, Glist, Slist)
    c = mr.VelQuadraticForces(theta, dtheta, Mlist, Glist, Slist)
    grav = mr.GravityForces(theta, g, Mlist, Glist, Slist)
    tip = mr.EndEffectorForces(theta, Ftip, Mlist, Glist, Slist)
    print("mass matrix M(theta):\n", M)
    print("eigenvalues of M (all > 0):", np.linalg.eigvalsh(M))
    print("c(theta, dtheta):", c)
    print("g(theta):", grav)
    print("J_b^T Ftip:", tip)
    ddtheta = mr.ForwardDynamics(theta, dtheta, tau, g, Ftip, Mlist, Glist, Slist)
    print("forward dynamics ddtheta:", ddtheta)
    # the equation of motion tau = M ddtheta + c + g + J^T F, both ways
    back = mr.InverseDynamics(theta, dtheta, ddtheta, g, Ftip, Mlist, Glist, Slist)
    print("InverseDynamics(ForwardDynamics(tau)) - tau:", back - tau)
    print("M ddtheta + c + g + J^T F - tau:", M @ ddtheta + c + grav + tip - tau)

    # ----------------------------------------------------------- the arm falls, 2 s
    dt, steps, intRes = 0.01, 200, 10
    t0 = time.perf_counter()
    thetamat, dthetamat = mr.ForwardDynamicsTrajectory(
        np.zeros(6), np.zeros(6), np.zeros((steps, 6)), g, np.zeros((steps, 6)),
        Mlist, Glist, Slist, dt, intRes,
    )  # fmt: skip
    print(f"free fall: {steps * intRes} Euler steps in {time.perf_counter() - t0:.3f} s")
    t = dt * np.arange(steps)
    fig = Figure(figsize=(8, 4.5), layout="constrained")
    ax = fig.add_subplot()
    for i in range(6):
        ax.plot(t, thetamat[:, i], label=f"theta{i + 1}")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("joint angle (rad)")
    ax.set_title("UR5 falling from theta = 0 without torques (Euler, dt = 1 ms)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.savefig(OUT / "ur5_free_fall.png", dpi=120)

    # ------------------------------------------ computed torque along a quintic, 1 s
    Tf, N = 1.0, 101
    start = np.zeros(6)
    goal = np.array([0.5, -0.8, 1.2, -0.4, 0.6, 1.0])
    thetad = mr.JointTrajectory(start, goal, Tf, N, 5)
    dtr = Tf / (N - 1)
    dthetad = np.gradient(thetad, dtr, axis=0)
    ddthetad = np.gradient(dthetad, dtr, axis=0)
    # the controller's model: 10 % heavier links and a slightly tilted gravity
    Gtilde = Glist * 1.1
    gtilde = np.array([0.2, 0.0, -9.7])
    taumat, thetamat = mr.SimulateControl(
        start + 0.05, np.zeros(6), g, np.zeros((N, 6)), Mlist, Glist, Slist,
        thetad, dthetad, ddthetad, gtilde, Mlist, Gtilde, 20, 5, 8, dtr, 8,
        plot=OUT / "computed_torque.png", overwrite=True,  # a new run replaces its figure
    )  # fmt: skip
    err = np.abs(thetamat - thetad).max(axis=0)
    print("computed torque: largest tracking error per joint [rad]:", err)
    print("figures written to", OUT.resolve())


if __name__ == "__main__":
    main()
