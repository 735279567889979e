r"""
Ch. 9: trajectory generation
============================

A trajectory is a path :math:`\theta(s)` and a time scaling :math:`s(t)` from 0 to 1 (MR
section 9.1). :mod:`robodyn.trajectory` has the book's time scalings (cubic, quintic,
trapezoidal, S-curve), straight lines in joint space, via-point splines and the screw and
Cartesian paths in SE(3). Every trajectory is callable, ``ref(t) -> (q, v, a)``, and is
what the controllers of :mod:`robodyn.control` follow.
"""

import matplotlib.pyplot as plt
import numpy as np

import robodyn as rd

np.set_printoptions(precision=4, suppress=True)

# %%
# Time scalings
# -------------
# The cubic :math:`s = 3(t/T)^2 - 2(t/T)^3` (MR eq. 9.11) starts and stops at rest; the
# quintic also starts and stops with zero acceleration; the trapezoidal profile holds a
# top speed, and the S-curve bounds the jerk too. By name, with a duration or with limits:
scalings = {
    "cubic": rd.trajectory.time_scaling("cubic", 1.0),
    "quintic": rd.trajectory.time_scaling("quintic", 1.0),
    "trapezoidal": rd.trajectory.time_scaling("trapezoidal", v_max=1.5, a_max=6.0),
    "scurve": rd.trajectory.time_scaling("scurve", v_max=1.5, a_max=6.0, j_max=60.0),
}
fig, axs = plt.subplots(3, 1, sharex=True, figsize=(7, 6), layout="constrained")
for name, scaling in scalings.items():
    t = np.linspace(0.0, scaling.duration, 301)
    s, sd, sdd = scaling(t)
    print(f"{name:12s} duration {scaling.duration:.3f} s, peak speed {sd.max():.3f} 1/s")
    for ax, y in zip(axs, (s, sd, sdd)):
        ax.plot(t, y, label=name)
axs[0].set(ylabel="s (fraction)", title="time scalings from rest to rest")
axs[1].set(ylabel="ds/dt (1/s)")
axs[2].set(ylabel="d2s/dt2 (1/s^2)", xlabel="t (s)")
axs[0].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()

# %%
# The cubic's peak speed is :math:`3/(2T)` at :math:`t = T/2` (MR section 9.2.2.1),
# the quintic's :math:`15/(8T)`:
print(
    "cubic peak 3/2 =",
    scalings["cubic"](0.5)[1],
    " quintic peak 15/8 =",
    scalings["quintic"](0.5)[1],
)

# %%
# Straight lines in joint space
# -----------------------------
# :math:`\theta(t) = \theta_{start} + s(t)(\theta_{end} - \theta_{start})` (MR eq. 9.1).
q0 = np.zeros(6)
q1 = np.array([0.5, -0.8, 1.2, -0.4, 0.6, 1.0])
ref = rd.trajectory.joint_trajectory(q0, q1, 2.0, time_scaling="quintic")
q, v, a = ref(1.0)
print("midway:", q, "\nvelocity:", v)
sample = ref.sample(0.5)  # every 0.5 s, arrays (K, n)
print("t =", sample.t, " q[:, 0] =", sample.q[:, 0])

# %%
# With limits instead of a duration, the duration is the shortest that respects them:
fast = rd.trajectory.joint_trajectory(q0, q1, time_scaling="trapezoidal", v_max=1.0, a_max=4.0)
print(f"trapezoidal under |v| <= 1 rad/s, |a| <= 4 rad/s^2: {fast.duration:.3f} s")

# %%
# Via points
# ----------
# A cubic spline through via points (MR section 9.3), here for the 2R arm's two joints:
t_knots = [0.0, 1.0, 2.0, 3.0]
q_knots = [[0.0, 0.0], [0.6, 1.0], [1.2, 0.4], [0.8, -0.2]]
spline = rd.trajectory.spline_trajectory(t_knots, q_knots)
path = spline.sample(0.01)
fig, ax = plt.subplots(layout="constrained")
for j in range(2):
    ax.plot(path.t, path.q[:, j], label=f"q{j + 1}")
    ax.plot(t_knots, np.array(q_knots)[:, j], "o", color=f"C{j}", label=f"via points of q{j + 1}")
ax.set(xlabel="t (s)", ylabel="joint angle (rad)", title="a cubic spline through via points")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()

# %%
# Paths in SE(3)
# --------------
# The screw path :math:`X(s) = X_{start}\exp(\log(X_{start}^{-1}X_{end})\,s)` (MR eq.
# 9.7) turns and moves along one screw; the Cartesian path (MR eq. 9.8) moves the origin
# on a straight line while it turns. Both are ``traj(t) -> (X, V_b, dV_b)``:
X_start = rd.transform(np.eye(3), [0.4, 0.0, 0.3])
X_end = rd.transform(rd.exp3([0.0, 0.0, np.pi / 2]), [0.0, 0.4, 0.5])
screw = rd.trajectory.screw_trajectory(X_start, X_end, 1.0)
line = rd.trajectory.cartesian_trajectory(X_start, X_end, 1.0)
for name, traj in (("screw", screw), ("cartesian", line)):
    X, V_b, dV_b = traj(0.5)
    print(f"{name:9s} origin at t = 0.5 s: {X[:3, 3]}")
