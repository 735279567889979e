r"""
Coming from the Modern Robotics library
=======================================

Course code written for the ``modern_robotics`` package runs on robodyn by changing its
import: :mod:`robodyn.mr` has the same functions with the same arguments, computed by
robodyn's algorithms. And a robot described the book's way, ``(M, Slist, Mlist,
Glist)``, becomes a robodyn model with :func:`robodyn.from_mr`, so the same robot has
robodyn's whole API (batches, frames by name, simulation, symbolic derivation).

==================================================  ===============================================
``import modern_robotics as mr``                    robodyn
==================================================  ===============================================
``mr.MatrixExp6(mr.VecTose3(V))``                   ``rd.exp6(V)``
``mr.se3ToVec(mr.MatrixLog6(T))``                   ``rd.log6(T)``
``mr.Adjoint(T)``, ``mr.ad(V)``                     ``rd.adjoint(T)``, ``rd.ad(V)``
``mr.FKinSpace(M, Slist, theta)``                   ``rd.fk(model, theta, "ee")``
``mr.JacobianSpace(Slist, theta)``                  ``rd.jacobian(model, theta, "ee", "space")``
``mr.JacobianBody(Blist, theta)``                   ``rd.jacobian(model, theta, "ee", "body")``
``mr.IKinSpace(Slist, M, T, theta0, eomg, ev)``     ``rd.ik(model, "ee", T, theta0)``
``mr.InverseDynamics(...)``                         ``rd.inverse_dynamics(model, q, v, a)``
``mr.MassMatrix(theta, Mlist, Glist, Slist)``       ``rd.mass_matrix(model, theta)``
``mr.VelQuadraticForces``, ``mr.GravityForces``     ``rd.velocity_forces``, ``rd.gravity_forces``
``mr.ForwardDynamics(...)``                         ``rd.forward_dynamics(model, q, v, tau)``
``mr.JointTrajectory(s, e, Tf, N, 5)``              ``rd.trajectory.joint_trajectory(s, e, Tf)``
``mr.ComputedTorque(...)``                          ``rd.control.ComputedTorque(model, ref, ...)``
==================================================  ===============================================
"""

import modern_robotics as mr_lib
import numpy as np

import robodyn as rd
from robodyn import mr

np.set_printoptions(precision=4, suppress=True)

# %%
# The UR5 of the book
# -------------------
# The bundled UR5 is the one of the book's chapter 8 exercises; :func:`robodyn.to_mr`
# gives its description and :func:`robodyn.from_mr` builds a model from one.
M, Slist, Mlist, Glist = rd.to_mr(rd.models.load("ur5"), "ee")
model = rd.from_mr(M, Slist, Mlist, Glist)
print("M =\n", M)
print("Slist^T =\n", Slist.T)

# %%
# Same calls, same numbers
# ------------------------
# The ``modern_robotics`` package, robodyn's :mod:`robodyn.mr` and robodyn's own API on
# one state:
theta = np.array([0.0, -np.pi / 6, np.pi / 3, 0.2, -0.4, 0.1])
dtheta = np.array([0.2, 0.2, -0.4, 0.3, 0.1, 0.5])
ddtheta = np.array([0.5, -0.3, 0.2, 0.1, 0.0, -0.4])
g = np.array([0, 0, -9.81])
Ftip = np.zeros(6)

T_lib = mr_lib.FKinSpace(M, Slist, theta)
print(
    "FKinSpace:",
    np.allclose(T_lib, mr.FKinSpace(M, Slist, theta)),
    np.allclose(T_lib, rd.fk(model, theta, "ee")),
)
J_lib = mr_lib.JacobianSpace(Slist, theta)
print("JacobianSpace:", np.allclose(J_lib, rd.jacobian(model, theta, "ee", kind="space")))
tau_lib = mr_lib.InverseDynamics(theta, dtheta, ddtheta, g, Ftip, Mlist, Glist, Slist)
tau_mr = mr.InverseDynamics(theta, dtheta, ddtheta, g, Ftip, Mlist, Glist, Slist)
tau_rd = rd.inverse_dynamics(model, theta, dtheta, ddtheta)
print("InverseDynamics:", tau_lib)
print("  robodyn.mr:   ", tau_mr)
print("  robodyn:      ", tau_rd)
M_lib = mr_lib.MassMatrix(theta, Mlist, Glist, Slist)
print("MassMatrix:", np.allclose(M_lib, rd.mass_matrix(model, theta)))

# %%
# Exponential coordinates without the bracket round trips: ``rd.exp6`` takes the
# 6-vector directly.
V = np.array([0.1, -0.2, 0.3, 1.0, 0.5, -0.4])
print("MatrixExp6:", np.allclose(mr_lib.MatrixExp6(mr_lib.VecTose3(V)), rd.exp6(V)))
print(
    "MatrixLog6:", np.allclose(mr_lib.se3ToVec(mr_lib.MatrixLog6(rd.exp6(V))), rd.log6(rd.exp6(V)))
)

# %%
# Inverse kinematics
# ------------------
# ``IKinSpace`` is Newton-Raphson from one initial guess; :func:`robodyn.ik` damps the
# step, keeps the joint limits and restarts when it stalls, so it converges from more
# starting points (``robodyn bench --only ik``: all of 1,000 random reachable UR5 poses
# from the neutral configuration, where IKinBody solves about 60 %).
T_goal = rd.fk(model, np.array([0.4, -0.9, 1.2, -0.5, 0.8, 0.3]), "ee")
guess = np.zeros(6)
theta_lib, ok_lib = mr_lib.IKinSpace(Slist, M, T_goal, guess, 1e-6, 1e-6)
sol = rd.ik(model, "ee", T_goal, q0=guess)
print("modern_robotics IKinSpace succeeded:", ok_lib)
print("robodyn ik succeeded:", sol.success, "pose error", sol.error)

# %%
# Batches and speed
# -----------------
# The book's functions take one state. robodyn's take any number at once:
Q = rd.random_configuration(model, np.random.default_rng(0), size=1000)
taus = rd.inverse_dynamics(model, Q, np.zeros(6), np.zeros(6))
check = [
    mr_lib.InverseDynamics(q, np.zeros(6), np.zeros(6), g, Ftip, Mlist, Glist, Slist)
    for q in Q[:20]
]
print("1000 states in one call:", taus.shape, " first 20 agree:", np.allclose(taus[:20], check))
