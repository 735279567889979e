r"""
Pfaffian constraints: the knife edge
====================================

A velocity constraint :math:`A(q)\dot q = 0` (a Pfaffian constraint) adds a force
:math:`A^T\lambda` to the equations of motion (course notes 001 eqs. 10.15-10.17):

.. math::

    M\ddot q + h = \tau + A^T\lambda, \qquad A\ddot q + \dot A\dot q = 0.

The knife edge (a skate) on a plane, with q = (x, y, heading), may roll along its
heading but not sideways: :math:`A(q) = [\sin q_3, -\cos q_3, 0]` (course notes 001
example 10.3.1). The constraint is nonholonomic: the skate reaches every (x, y, heading)
although it can never move sideways.
"""

import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

import robodyn as rd

np.set_printoptions(precision=5, suppress=True)

m, I_z = 2.5, 0.4  # kg, kg m^2

# %%
# The model: two prismatic joints and a revolute joint about z; all the mass on the
# blade.
skate = (
    rd.ModelBuilder(name="knife_edge", gravity=(0.0, 0.0, -9.81))
    .add_body("slide_x", "world", joint_type="prismatic", axis=(1, 0, 0))
    .add_body("slide_y", "slide_x", joint_type="prismatic", axis=(0, 1, 0))
    .add_body(
        "blade",
        "slide_y",
        joint_type="revolute",
        axis=(0, 0, 1),
        inertia=rd.RigidInertia(m, [0, 0, 0], np.diag([0.3, 0.35, I_z])),
    )
    .build()
)
print("M =", np.diag(rd.mass_matrix(skate, np.zeros(3))))


def constraint(q, dq):
    """A(q) and dA/dt dq for the knife edge."""
    s, c = np.sin(q[2]), np.cos(q[2])
    A = np.array([[s, -c, 0.0]])
    dA_v = np.array([dq[0] * dq[2] * c + dq[1] * dq[2] * s])
    return A, dA_v


# %%
# One state: :func:`robodyn.constrained_forward_dynamics` solves the KKT system for
# :math:`\ddot q` and the multiplier :math:`\lambda` (the sideways force of the ground).
# The notes' closed form (eqs. 10.25-10.28) agrees:
q = np.array([0.0, 0.0, 0.6])
dq = np.array([np.cos(0.6), np.sin(0.6), 0.8])  # rolling forward at 1 m/s, turning
u = np.array([0.5, -0.2, 0.1])  # pushes: x, y (N) and a torque (N m)
A, dA_v = constraint(q, dq)
ddq, lam = rd.constrained_forward_dynamics(skate, q, dq, u, A, dA_v)
s, c = np.sin(q[2]), np.cos(q[2])
d1, d2, d3 = dq
ddq_notes = [
    (u[0] * c**2 + (u[1] - m * d1 * d3) * c * s - m * d2 * d3 * s**2) / m,
    (u[1] * s**2 + (u[0] + m * d2 * d3) * c * s + m * d1 * d3 * c**2) / m,
    u[2] / I_z,
]
lam_notes = (u[1] - m * d1 * d3) * c - (u[0] + m * d2 * d3) * s
print("robodyn: ddq =", ddq, " lambda =", lam)
print("notes:   ddq =", np.array(ddq_notes), " lambda =", lam_notes)

# %%
# A simulation: constant pushes and a torque; the skate curves, never slipping
# sideways. A short RK4 loop on the constrained accelerations:
dt, n = 2e-3, 2000
state = np.concatenate([q, dq])
path, slip = [], []


def f(x):
    A, dA_v = constraint(x[:3], x[3:])
    acc, _ = rd.constrained_forward_dynamics(skate, x[:3], x[3:], u, A, dA_v)
    return np.concatenate([x[3:], acc])


for _ in range(n):
    k1 = f(state)
    k2 = f(state + dt / 2 * k1)
    k3 = f(state + dt / 2 * k2)
    k4 = f(state + dt * k3)
    state = state + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    path.append(state[:2].copy())
    slip.append(constraint(state[:3], state[3:])[0] @ state[3:])
path = np.array(path)
print("largest sideways velocity |A(q) dq| over 4 s:", np.abs(slip).max(), "m/s")

fig, ax = plt.subplots(layout="constrained")
ax.plot(path[:, 0], path[:, 1], label="contact point")
ax.set(xlabel="x (m)", ylabel="y (m)", title="knife edge under constant pushes, 4 s")
ax.set_aspect("equal")
ax.legend(loc="best")
plt.show()

# %%
# Holonomic or not
# ----------------
# A single constraint :math:`a(q)\dot q = 0` integrates to some :math:`c(q) = 0` iff the
# Frobenius condition :math:`a \wedge da = 0` holds (:func:`robodyn.symbolic.is_holonomic`).
q1, q2, q3 = sp.symbols("q1 q2 q3")
print("knife edge:", rd.symbolic.is_holonomic([sp.sin(q3), -sp.cos(q3), 0], [q1, q2, q3]))
print("q1 dq1 + q2 dq2 = 0 (a circle):", rd.symbolic.is_holonomic([q1, q2, 0], [q1, q2, q3]))
