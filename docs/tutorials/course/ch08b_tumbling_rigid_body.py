r"""
Ch. 8.2: a single rigid body, tumbling
======================================

A free rigid body with no torque about its centre of mass obeys Euler's equations in
body axes, :math:`I\dot\omega = -\omega \times I\omega`, with :math:`\dot R = R[\omega]`
(MR section 8.2.1; course notes 001 eqs. 10.43-10.44). Kinetic energy and the angular
momentum in space :math:`L_s = R I \omega` are conserved. Spin about the intermediate
principal axis is unstable: the body flips over again and again (the Dzhanibekov effect,
the "tennis racket theorem").
"""

import matplotlib.pyplot as plt
import numpy as np

import robodyn as rd

np.set_printoptions(precision=5, suppress=True)

# %%
# A box of 0.3 x 0.1 x 0.05 m, spun about its intermediate axis (y) with a small
# perturbation about x.
body = rd.inertia.box(mass=2.0, size=(0.3, 0.1, 0.05))
moments, axes = body.principal()
print("principal moments (kg m^2):", moments)
res = rd.rigidbody.simulate(body, np.eye(3), [0.01, 3.0, 0.0], duration=20.0, dt=1e-3)
print("samples:", res.t.shape, " flips about y:", rd.rigidbody.count_flips(res))

# %%
# The Lie-group RK4 integrator keeps R a rotation to round-off and conserves both
# invariants to its truncation error:
print("energy drift:", res.energy_drift, " momentum drift:", res.momentum_drift)
print("max |R^T R - 1| =", res.rotation_error)

fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(7, 5), layout="constrained")
for i, name in enumerate("xyz"):
    ax1.plot(res.t, res.omega[:, i], label=f"omega_{name}")
ax1.set(ylabel="body angular velocity (rad/s)", title="Dzhanibekov flips of a box")
ax1.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
ax2.plot(res.t, np.linalg.norm(res.momentum, axis=1), label="|L_s|")
ax2.plot(res.t, res.energy, label="kinetic energy (J)")
ax2.set(xlabel="t (s)", ylabel="|L_s| (kg m^2/s), energy (J)")
ax2.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()

# %%
# Spin about the largest or the smallest principal axis is stable: the same perturbation
# stays small.
for axis, w0 in (("x (smallest moment)", [3.0, 0.01, 0.0]), ("z (largest)", [0.01, 0.0, 3.0])):
    r = rd.rigidbody.simulate(body, np.eye(3), w0, duration=20.0, dt=1e-3)
    print(f"spin about {axis}: omega range {r.omega.min(0).round(3)} .. {r.omega.max(0).round(3)}")

# %%
# Integrators compared
# --------------------
# Explicit Euler on the matrix lets R leave SO(3) and the energy grow; the Lie-group
# Euler step stays on SO(3) but is first order; Lie-group RK4 is fourth order.
for integrator in ("euler", "lie_euler", "lie_rk4"):
    r = rd.rigidbody.simulate(
        body, np.eye(3), [0.01, 3.0, 0.0], duration=5.0, dt=1e-2, integrator=integrator
    )
    print(
        f"{integrator:9s}: energy drift {r.energy_drift:9.2e}, "
        f"max |R^T R - 1| {r.rotation_error:8.1e}"
    )

# %%
# The wrench on a moving body
# ---------------------------
# The Newton-Euler equation of one body in its own frame (MR eq. 8.41),
# :math:`F_b = \mathcal{G}_b \dot{\mathcal{V}}_b - [\mathrm{ad}_{\mathcal{V}_b}]^T
# \mathcal{G}_b \mathcal{V}_b`, with :math:`\mathcal{G}_b` the 6x6 spatial inertia. For a
# body spinning steadily about a principal axis no wrench is needed:
G = body.spatial()
V = np.array([0.0, 3.0, 0.0, 0.0, 0.0, 0.0])
print("F_b steady spin about y:", rd.rigidbody.wrench(G, V, np.zeros(6)))
V = np.array([1.0, 3.0, 0.0, 0.0, 0.0, 0.0])
print("F_b spin about (1, 3, 0):", rd.rigidbody.wrench(G, V, np.zeros(6)))
