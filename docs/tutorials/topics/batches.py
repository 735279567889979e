r"""
Batches: many states in one call
================================

Every numeric function takes one state or a batch with any leading dimensions, numpy
style: ``q`` of shape (..., nq) gives results of shape (..., ...). A batch runs in the
compiled core, vectorised across states and split over threads with the GIL released
(``threads=`` or the ``ROBODYN_NUM_THREADS`` environment variable; default every core).
Single vectors broadcast against a batch.
"""

import time

import matplotlib.pyplot as plt
import numpy as np

import robodyn as rd

np.set_printoptions(precision=5, suppress=True)

model = rd.models.load("panda")
rng = np.random.default_rng(0)

# %%
# Shapes
# ------
Q = rd.random_configuration(model, rng, size=(4, 250))  # (4, 250, nq)
V = rng.normal(size=(4, 250, model.nv))
zero = np.zeros(model.nv)  # broadcasts against the batch
print("Q", Q.shape)
print("inverse_dynamics", rd.inverse_dynamics(model, Q, V, zero).shape)
print("mass_matrix     ", rd.mass_matrix(model, Q).shape)
print("jacobian        ", rd.jacobian(model, Q, "ee").shape)
print("fk              ", rd.fk(model, Q, "ee").shape)

# %%
# A batch gives exactly what a loop over single states gives:
loop = np.array(
    [[rd.inverse_dynamics(model, q, v, zero) for q, v in zip(Qi, Vi)] for Qi, Vi in zip(Q, V)]
)
print("max |batch - loop| =", np.abs(rd.inverse_dynamics(model, Q, V, zero) - loop).max())

# %%
# Time per state
# --------------
# A Python loop pays the call overhead per state; a batch pays it once. (Timings depend on
# the machine that built this page.)
Qf = Q.reshape(-1, model.nq)
Vf = V.reshape(-1, model.nv)
t0 = time.perf_counter()
for q, v in zip(Qf, Vf):
    rd.inverse_dynamics(model, q, v, zero)
per_loop = (time.perf_counter() - t0) / len(Qf)
t0 = time.perf_counter()
rd.inverse_dynamics(model, Qf, Vf, zero, threads=1)
per_batch = (time.perf_counter() - t0) / len(Qf)
print(f"loop: {per_loop * 1e6:.2f} us per state, batch: {per_batch * 1e6:.3f} us per state")

# %%
# Many states for a picture
# -------------------------
# The largest gravity torque on each Panda joint over 1,000 random configurations, and
# the reach of the end-effector, in two calls:
Qr = rd.random_configuration(model, rng, size=1000)
tau_g = rd.gravity_forces(model, Qr)
tips = rd.fk(model, Qr, "ee")[:, :3, 3]
print("largest |g_i(q)| per joint (N m):", np.abs(tau_g).max(axis=0).round(2))

fig, ax = plt.subplots(layout="constrained")
sc = ax.scatter(
    np.hypot(tips[:, 0], tips[:, 1]), tips[:, 2], c=np.abs(tau_g[:, 1]), s=6, label="random q"
)
fig.colorbar(sc, ax=ax, label="|g_2(q)| shoulder gravity torque (N m)")
ax.set(
    xlabel="horizontal reach (m)", ylabel="height (m)", title="Panda: 1,000 random configurations"
)
ax.legend(loc="lower left")
plt.show()

# %%
# Simulations batch too: ``rd.simulate`` with ``q0`` of shape (N, nq) runs N rollouts at
# once.
runs = rd.simulate(model, Qr[:100], np.zeros(model.nv), duration=0.2, dt=1e-3)
print("t", runs.t.shape, " q (rollout, time, nq)", runs.q.shape)
