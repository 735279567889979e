r"""
Ch. 8: dynamics of open chains
==============================

The equations of motion of an open chain (MR eq. 8.1)

.. math::

    \tau = M(\theta)\ddot\theta + c(\theta, \dot\theta) + g(\theta)
         = M(\theta)\ddot\theta + C(\theta, \dot\theta)\dot\theta + g(\theta)

from two directions: Lagrange's (energy, then derivatives: closed forms with sympy) and
Newton-Euler's (forces on each link, recursively: the numbers in robodyn's compiled core).
The running example is the 2-link arm of the course's Python lesson (course notes 003):
m1 = 5 kg, m2 = 3 kg, L1 = 0.5 m, centres of mass at r1 = 0.25 m and r2 = 0.2 m, I1 = 0.1
and I2 = 0.05 kg m², gravity along -y.
"""

import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

import robodyn as rd

np.set_printoptions(precision=5, suppress=True)

# %%
# Lagrange: the closed form
# -------------------------
# :func:`robodyn.symbolic.derive` writes the kinetic and potential energy of the model and
# differentiates them: the mass matrix, Christoffel symbols, Coriolis matrix and gravity
# in named symbols.
arm = rd.models.load("planar_2r")
eom = rd.symbolic.derive(arm, parameters="symbolic")
for (i, j), entry in np.ndenumerate(np.array(eom.M)):
    print(f"M{i + 1}{j + 1} = {entry}")
for i, entry in enumerate(eom.g):
    print(f"g{i + 1} = {entry}")
print("parameters:", eom.parameters)

# %%
# The same closed form typed in from the course notes, with the notes' symbols: it is
# the mass matrix of the derivation (the derivation's symbols are positive reals, so the
# comparison takes them from ``eom``).
P = {s.name: s for s in eom.parameters}
m1, m2, L1, r1, r2, I1, I2 = (P[n] for n in ("m1", "m2", "L1", "r1", "r2", "I1", "I2"))
q2 = eom.q[1]
M11 = I1 + I2 + m1 * r1**2 + m2 * (L1**2 + r2**2 + 2 * L1 * r2 * sp.cos(q2))
M12 = I2 + m2 * (r2**2 + L1 * r2 * sp.cos(q2))
M22 = I2 + m2 * r2**2
print("difference:", sp.simplify(eom.M - sp.Matrix([[M11, M12], [M12, M22]])))

# %%
# Newton-Euler: the numbers
# -------------------------
# :func:`robodyn.inverse_dynamics` is the recursive Newton-Euler algorithm (MR section
# 8.3: velocities and accelerations outward, wrenches inward). At any state it equals the
# closed form evaluated with the model's numbers:
q = np.array([np.pi / 4, np.pi / 3])
v = np.array([2.0, -1.0])
a = np.array([0.5, 1.5])
tau_ne = rd.inverse_dynamics(arm, q, v, a)
num = rd.symbolic.derive(arm)  # the model's numbers in place of the symbols
subs = {"q1": q[0], "q2": q[1], "qdot1": v[0], "qdot2": v[1], "qddot1": a[0], "qddot2": a[1]}
syms = {s: subs[s.name] for s in num.lhs.free_symbols}
tau_lagrange = np.array(num.lhs.subs(syms), dtype=float).ravel()
print("Newton-Euler:", tau_ne, " Lagrange:", tau_lagrange)

# %%
# The parts: :func:`robodyn.mass_matrix` (the composite-rigid-body algorithm),
# :func:`robodyn.coriolis_matrix`, :func:`robodyn.gravity_forces`. The equation of motion
# holds to rounding:
M = rd.mass_matrix(arm, q)
C = rd.coriolis_matrix(arm, q, v)
g = rd.gravity_forces(arm, q)
print("M =\n", M)
print("M a + C v + g - tau =", M @ a + C @ v + g - tau_ne)

# %%
# :mod:`robodyn.reference` holds the same algorithm in the book's 6x6 notation (twists,
# :math:`[\mathrm{Ad}]`, :math:`[\mathrm{ad}]`, :math:`\mathcal{G}_i`), for reading beside
# MR section 8.3.2; its numbers are the compiled core's.
print("numpy reference RNEA:", rd.reference.rnea(arm, q, v, a))

# %%
# Forward dynamics (:func:`robodyn.forward_dynamics`, the articulated-body algorithm)
# inverts it: :math:`\ddot\theta = M^{-1}(\tau - C\dot\theta - g)`.
print("aba(rnea(a)) =", rd.forward_dynamics(arm, q, v, tau_ne), " a =", a)

# %%
# Christoffel symbols and the Coriolis matrix
# -------------------------------------------
# :math:`\Gamma_{ijk} = \frac12 (\partial_k M_{ij} + \partial_j M_{ik} - \partial_i M_{jk})`
# (course notes 001 eq. 10.9) and :math:`C_{ij} = \sum_k \Gamma_{ijk}\dot\theta_k`. For
# the 2R arm only the symbols with a derivative along q2 are nonzero:
Gamma = rd.christoffel(arm, q)
print("Gamma[i, j, k] =\n", Gamma)
print("closed form Gamma_112 = -m2 L1 r2 sin q2 =", -3.0 * 0.5 * 0.2 * np.sin(q[1]))
print("C = Gamma . v:", np.allclose(C, Gamma @ v))

# %%
# :math:`\dot M - 2C` is skew-symmetric (the property passivity-based control rests on):
Mdot = rd.mass_matrix_dot(arm, q, v)
print("Mdot - 2C =\n", Mdot - 2 * C)

# %%
# Centripetal and Coriolis forces at :math:`\theta_2 = 90°`: with joint 1 turning alone,
# link 2 feels a centripetal force along link 1; with both turning, the Coriolis term
# :math:`2\Gamma_{112}\dot\theta_1\dot\theta_2` appears.
for v_case in ([1.0, 0.0], [0.0, 1.0], [1.0, 1.0]):
    c = rd.velocity_forces(arm, [0.0, np.pi / 2], v_case)
    print(f"v = {v_case}: c(q, v) = {c}")

# %%
# The task-space inertia
# ----------------------
# The apparent mass of the tip, :math:`\Lambda = (J M^{-1} J^T)^{-1}` (MR eq. 8.88): the
# force needed per unit acceleration depends on the direction of push. Rows (3, 4) are the
# tip's x and y velocity.
Lam = rd.task_space_inertia(arm, q, "ee", kind="world_aligned", part=(3, 4))
J = rd.jacobian(arm, q, "ee", kind="world_aligned")[3:5]
print("Lambda =\n", Lam)
print("J^-T M J^-1 =\n", np.linalg.inv(J).T @ M @ np.linalg.inv(J))

# %%
# The apparent mass along each direction of the plane, :math:`u^T \Lambda u`, for three
# elbow angles: the arm is heavy along its links and light across them.
phi = np.linspace(0, 2 * np.pi, 181)
u = np.stack([np.cos(phi), np.sin(phi)])
fig, ax = plt.subplots(subplot_kw={"projection": "polar"}, layout="constrained")
for q2 in (0.5, 1.2, 2.0):
    L = rd.task_space_inertia(arm, [0.0, q2], "ee", kind="world_aligned", part=(3, 4))
    ax.plot(phi, np.einsum("in,ij,jn->n", u, L, u), label=f"q = (0, {q2}) rad")
ax.set(xlabel="push direction (rad)", ylabel="u^T Lambda u (kg)")
ax.set_title("apparent tip mass by push direction")
ax.legend(loc="upper left", bbox_to_anchor=(1.05, 1.0))
plt.show()

# %%
# Motors and gearing
# ------------------
# A joint driven by an electric motor through a gearhead of ratio :math:`G` (MR sec.
# 8.9.1): the rotor turns :math:`G` times faster than the joint, and the motor's torque
# reaches the joint as :math:`\tau = \eta G \tau_m` (:math:`\eta`: the gearhead's
# efficiency). The rotor's kinetic energy :math:`\frac12 I_{rotor} (G\dot\theta)^2` makes
# it weigh :math:`G^2 I_{rotor}` at the joint, its apparent inertia (MR sec. 8.9.2):
# :meth:`Model.with_actuators <robodyn.model.model.Model.with_actuators>` adds it to the
# model's armature, so the mass matrix, both dynamics and every simulation include it. A
# rotor of 3e-5 kg m² behind 100:1 weighs 0.3 kg m² at its joint, more than the 2R arm's
# second link (0.17 kg m² about its joint).
geared = arm.with_actuators(gear_ratio=100.0, rotor_inertia=3e-5, efficiency=0.9,
                            stall_torque=0.6, free_speed=600.0)  # fmt: skip
print("M with the motors - M without:\n", rd.mass_matrix(geared, q) - rd.mass_matrix(arm, q))
tau = rd.inverse_dynamics(geared, q, v, a)
print("joint torques", tau, "N m; motor torques tau / (eta G):",
      geared.actuators.motor_torque(tau), "N m")  # fmt: skip

# %%
# A DC motor at full voltage gives its stall torque at rest and nothing at its no-load
# speed, falling linearly between (the speed-torque curve, MR sec. 8.9.1). Through the
# gearhead the joint's largest torque is
# :math:`\eta G \tau_{stall} (1 - |G\dot\theta| / \omega_0)`: 54 N m at rest, none at
# 6 rad/s. ``rd.simulate(..., clip_torque=True)`` clips a controller's torque to it at
# each state's speed (both signs alike: a braking motor can in fact give more).
speeds = np.linspace(-7.0, 7.0, 281)
fig, ax = plt.subplots(figsize=(6, 3), layout="constrained")
ax.plot(speeds, geared.actuators.torque_limit(np.stack([speeds, speeds], -1))[:, 0])
ax.set(xlabel="joint speed (rad/s)", ylabel="largest joint torque (N m)",
       title="torque limit of a geared DC motor (G = 100, eta = 0.9)")  # fmt: skip
plt.show()

# %%
# Inertia of the links
# --------------------
# A link's inertia is a :class:`robodyn.RigidInertia`: mass, centre of mass and
# rotational inertia about it. Shapes are built by mass or density; ``about`` moves the
# inertia to another point (Steiner's theorem), ``+`` and ``-`` compose bodies, and
# ``spatial()`` is the 6x6 :math:`\mathcal{G} = \mathrm{diag}(I_c, m\,1)` of MR eq. 8.32.
rod = rd.inertia.rod(mass=3.0, length=0.4, axis="x")
print("rod about its centre:\n", rod.inertia)
print("about its end, m L^2 / 3 =", 3.0 * 0.4**2 / 3, ":\n", rod.about([0.2, 0.0, 0.0]))
box = rd.inertia.box(mass=2.0, size=(0.3, 0.1, 0.1))
bore = rd.inertia.cylinder(density=box.mass / 0.003, radius=0.02, length=0.1, axis="z")
part = box - bore
moments, axes = part.principal()
print("box with a bore: mass", part.mass, "principal moments", moments)
print("G =\n", box.spatial())
