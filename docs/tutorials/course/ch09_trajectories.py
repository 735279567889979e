r"""
Ch. 9: trajectory generation
============================

A trajectory is a path :math:`\theta(s)` and a time scaling :math:`s(t)` from 0 to 1 (MR
section 9.1). :mod:`robodyn.trajectory` has the book's time scalings (cubic, quintic,
trapezoidal, S-curve), straight lines in joint space, via-point splines and the screw and
Cartesian paths in SE(3), and the time-optimal time scaling of a path under the
robot's torque limits (MR section 9.4). Every trajectory is callable, ``ref(t) -> (q, v,
a)``, and is what the controllers of :mod:`robodyn.control` follow.
"""

import dataclasses

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

# %%
# Time-optimal time scaling
# -------------------------
# Given a path :math:`\theta(s)` and the robot's actuator limits, which time scaling
# :math:`s(t)` is the fastest (MR section 9.4)? With
# :math:`\dot\theta = \theta'\dot s` and :math:`\ddot\theta = \theta'\ddot s +
# \theta''\dot s^2` the dynamics along the path are (MR eq. 9.36)
#
# .. math:: \tau = m(s)\,\ddot s + c(s)\,\dot s^2 + g(s),\quad m = M\theta',\quad
#    c = M\theta'' + \theta'^T\Gamma\theta',\quad g = g(\theta(s))
#
# so each limit :math:`|\tau_j| \le \tau_{max,j}` bounds :math:`\ddot s` between
# :math:`L(s, \dot s)` and :math:`U(s, \dot s)`. Where :math:`L = U` lies the velocity limit
# curve: faster than that, no :math:`\ddot s` keeps every limit. The fastest motion
# accelerates as hard as it can, :math:`\ddot s = U`, and decelerates as hard,
# :math:`\ddot s = L`, switching between them at the switch points.
#
# A first check against a closed form: a pendulum (a point mass of 1 kg at 1 m) swinging
# in a horizontal plane from 0 to Q = 2 rad under :math:`|\tau| \le 3` N m accelerates at
# :math:`\tau_{max}/(I Q)` to the midpoint and brakes as hard after it, so
# :math:`T = 2\sqrt{IQ/\tau_{max}}`:
pendulum = rd.models.load("pendulum")
flat = dataclasses.replace(pendulum, gravity=np.array([0.0, 0.0, -9.81]))  # along its axis
swing = rd.trajectory.time_optimal(flat, rd.trajectory.joint_path([0.0], [2.0]), tau_max=3.0)
print(f"time_optimal: {swing.duration:.6f} s, closed form: {2 * np.sqrt(1.0 * 2.0 / 3.0):.6f} s")

# %%
# Now the Panda along a cubic spline through three via points (``spline_path``: a path of
# s in [0, 1], at rest at both ends), under the torque limits of its URDF. The default
# method is TOPP-RA's reachability analysis; ``method="bisection"`` runs the book's
# algorithm (integrate L back from the end, U forward, search each switch on the limit
# curve by bisection). On the same grid they agree:
panda = rd.models.load("panda")
via = [[0.0, -0.6, 0.0, -2.2, 0.0, 1.6, 0.8], [0.6, -0.2, 0.4, -1.8, 0.3, 1.9, 0.3],
       [1.2, 0.3, -0.2, -1.4, -0.3, 2.2, -0.4]]  # fmt: skip
path = rd.trajectory.spline_path(via)
fastest = rd.trajectory.time_optimal(panda, path, tau_max=panda.effort_limit)
book = rd.trajectory.time_optimal(panda, path, tau_max=panda.effort_limit, method="bisection")
print(f"duration: {fastest.duration:.6f} s (reachability), {book.duration:.6f} s (bisection)")
for (s, s_dot), kind in zip(fastest.switch_points, fastest.switch_kinds):
    print(f"switch {kind} at s = {s:.3f}, s_dot = {s_dot:.3f} 1/s")

# %%
# The (s, s_dot) phase plane as the book draws it: the velocity limit curve, the
# inadmissible region above it, and the optimal :math:`\dot s(s)`, which touches the limit
# curve at the switch from deceleration back to acceleration:
fig, ax = plt.subplots(figsize=(8, 4.2), layout="constrained")
fastest.plot(ax=ax)
plt.show()

# %%
# ``.trajectory`` is a reference ``ref(t) -> (q, v, a)`` like the others. Along it some
# joint is always at its torque limit (bang-bang), as ``rd.inverse_dynamics`` shows:
ref = fastest.trajectory
t = np.linspace(0.0, ref.duration, 600)
tau = rd.inverse_dynamics(panda, *ref(t), friction=False)
fig, ax = plt.subplots(figsize=(8, 3.5), layout="constrained")
for j in range(panda.nv):
    ax.plot(t, tau[:, j] / panda.effort_limit[j], label=f"joint {j + 1}")
ax.set(xlabel="t (s)", ylabel="tau_j / tau_max,j (fraction)", ylim=(-1.1, 1.1),
       title="torques along the time-optimal motion")  # fmt: skip
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()
print("largest |tau_j| / tau_max,j:", np.abs(tau / panda.effort_limit).max().round(6))

# %%
# Computed torque follows it (MR eq. 11.35); a tracking error adds the feedback's torque
# on top of limits already reached, so a real controller leaves some margin (a lower
# ``tau_max`` for the planner than the motors have):
ctrl = rd.control.ComputedTorque(panda, ref, kp=400.0, kd=40.0, friction=False)
run = rd.simulate(panda, path(0.0)[0], controller=ctrl, duration=0.4, dt=1e-4, friction=False)
print(f"tracking error {np.abs(run.q - ref(run.t)[0]).max():.2e} rad, "
      f"largest |tau_j| / tau_max,j {np.abs(run.tau / panda.effort_limit).max():.4f}")  # fmt: skip

# %%
# From the command line: ``robodyn timeopt panda --via 0 -0.6 0 -2.2 0 1.6 0.8 --via ...
# --out phase.png`` prints the duration and writes this phase plane.
