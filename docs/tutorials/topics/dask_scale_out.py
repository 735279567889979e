r"""
Past one machine: Dask
======================

robodyn's batch functions take `Dask <https://www.dask.org>`_ arrays chunked along the
batch axes and return lazy Dask arrays: one task per chunk, run by whatever scheduler is
active (threads by default, a ``dask.distributed.Client`` when there is one, local or a
cluster). Rollouts and sweeps stream their results to a Zarr store chunk by chunk and
resume where they stopped (``rd.simulate(..., client=, out=)``, :mod:`robodyn.sweep`,
``robodyn sweep``). Install with ``pip install "robodyn[dask]"``.
"""

import dask.array as da
import matplotlib.pyplot as plt
import numpy as np

import robodyn as rd

np.set_printoptions(precision=5, suppress=True)

# %%
# Lazy batches
# ------------
# 20,000 configurations of the Panda in chunks of 5,000: the call builds a graph of four
# tasks and computes nothing until ``.compute()``.
model = rd.models.load("panda")
rng = np.random.default_rng(0)
Q = da.from_array(rd.random_configuration(model, rng, size=20_000), chunks=(5_000, model.nq))
tau = rd.inverse_dynamics(model, Q, np.zeros(model.nv), np.zeros(model.nv))
print(type(tau).__name__, tau.shape, tau.chunks[0])

# %%
# Computed, it equals the NumPy call bit for bit:
tau_np = rd.inverse_dynamics(model, Q.compute(), np.zeros(model.nv), np.zeros(model.nv))
print("max |dask - numpy| =", np.abs(tau.compute() - tau_np).max())

# %%
# Dask's own reductions run on the same graph: the largest gravity torque per joint over
# the whole set, without holding the (20000, 7) result at once.
print("largest |g_i(q)| (N m):", abs(tau).max(axis=0).compute())

# %%
# A workspace map
# ---------------
# :func:`robodyn.sweep.workspace_map` sweeps a grid of joint values in chunks (on the
# local threads here; ``client=`` sends the chunks to a cluster, ``out=`` streams them to
# Zarr) and returns the frame's position and its manipulability. The planar 2R arm over
# a 60 x 60 grid of its two joints:
arm = rd.models.load("planar_2r")
run = rd.sweep.workspace_map(
    arm, "ee", joints=(0, 1), points=60, kind="world_aligned", part=(3, 4), chunk=1200
)  # part: the rows of v_x and v_y, the planar arm's velocity
p = np.asarray(run.arrays["p"])
w = np.asarray(run.arrays["manipulability"])
print("configurations:", p.shape[0], " largest manipulability:", w.max().round(5))

# %%
# The 2R arm's manipulability :math:`\sqrt{\det J_v J_v^T} = L_1 L_2 |\sin\theta_2|` (MR
# section 5.4) vanishes at the outstretched and folded singularities:
fig, ax = plt.subplots(layout="constrained")
sc = ax.scatter(p[:, 0], p[:, 1], c=w, s=4, cmap="viridis", label="tip positions of the grid")
fig.colorbar(sc, ax=ax, label="manipulability (m^2)")
ax.set(xlabel="x (m)", ylabel="y (m)", title="2R arm: manipulability over its workspace")
ax.set_aspect("equal")
ax.legend(loc="lower left", fontsize="small")
plt.show()
print("bound L1 L2 =", 0.5 * 0.4, "m^2, reached at theta2 = +-pi/2 (the grid passes close by)")
