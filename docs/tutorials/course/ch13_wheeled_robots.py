r"""
Ch. 13: wheeled mobile robots
=============================

A wheeled chassis moving in the plane has the configuration :math:`q = (\phi, x, y)` and
the planar body twist :math:`\mathcal{V}_b = (\omega_{bz}, v_{bx}, v_{by})` (angular
first, MR section 13.2). The wheel speeds are :math:`u = H(0)\mathcal{V}_b`, and
:math:`\mathcal{V}_b = F u` with :math:`F = H(0)^\dagger` (MR section 13.4).
:mod:`robodyn.mobile` has the unicycle, the differential drive, the car and the
omnidirectional and mecanum bases.
"""

import matplotlib.pyplot as plt
import numpy as np

import robodyn as rd

np.set_printoptions(precision=5, suppress=True)

# %%
# Wheel speeds of a differential drive
# ------------------------------------
# Wheels of radius r = 0.1 m at ``(0, +-d)``, d = 0.25 m: driving at 0.5 m/s while turning
# at 1 rad/s needs :math:`u_{L,R} = (v \mp d\,\omega)/r`:
robot = rd.mobile.DiffDrive(wheel_radius=0.1, half_track=0.25)
V_b = np.array([1.0, 0.5, 0.0])
u = robot.wheel_speeds(V_b)
print("u =", u, " by hand:", [(0.5 - 0.25 * 1.0) / 0.1, (0.5 + 0.25 * 1.0) / 0.1])
print("back to the twist:", robot.chassis_twist(u))

# %%
# A differential drive cannot move sideways: its Pfaffian constraint
# :math:`A(q)\dot q = 0` is the no-slip condition of the wheels.
q = np.array([0.3, 1.0, 2.0])
A = robot.constraints(q)
qdot_forward = np.array([0.0, np.cos(0.3), np.sin(0.3)])
qdot_sideways = np.array([0.0, -np.sin(0.3), np.cos(0.3)])
print("A q_dot forward:", A @ qdot_forward, "  sideways:", A @ qdot_sideways)

# %%
# A mecanum base (the youBot's, MR eq. 13.10) moves in every direction:
base = rd.mobile.Mecanum(half_length=0.235, half_width=0.15, wheel_radius=0.0475)
sideways = np.array([0.0, 0.0, 0.3])  # 0.3 m/s along the body y axis
print("mecanum wheel speeds for a sideways move:", base.wheel_speeds(sideways))

# %%
# Odometry
# --------
# Given the wheel-angle increments of each time step, odometry integrates the chassis
# twist exactly (MR section 13.4). Turning on the spot and driving a quarter circle:
increments = np.tile(u * (np.pi / 2) / 100, (100, 1))  # pi/2 s of the twist above, 100 steps
q_end = rd.mobile.odometry(robot, np.zeros(3), increments)[-1]
print("after pi/2 s:", q_end, "  a quarter of a circle of radius 0.5 m ends at (pi/2, 0.5, 0.5)")

# %%
# Tracking a trajectory
# ---------------------
# The nonholonomic tracking controller of MR section 13.3.4 brings the robot onto a
# circle from a start 0.5 m off it, facing the wrong way by 0.5 rad.
ref = rd.mobile.circle(radius=1.0, speed=0.5)
ctrl = rd.mobile.TrackingController(ref, k1=1.0, k2=4.0, k3=2.0)
run = rd.mobile.drive(robot, [np.pi / 2 - 0.5, 1.5, 0.0], ctrl, duration=15.0, dt=0.01)
err = np.linalg.norm(run.q[:, 1:] - run.q_d[:, 1:], axis=1)
print(f"position error: {err[0]:.3f} m at the start, {err[-1]:.2e} m after 15 s")

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 4), layout="constrained")
ax1.plot(run.q_d[:, 1], run.q_d[:, 2], "k:", label="reference circle")
ax1.plot(run.q[:, 1], run.q[:, 2], label="differential drive")
ax1.set(xlabel="x (m)", ylabel="y (m)", title="tracking a circle (MR 13.3.4)")
ax1.set_aspect("equal")
ax1.legend(loc="upper right", fontsize="small")
ax2.semilogy(run.t, np.maximum(err, 1e-12), label="|p - p_d|")
ax2.set(xlabel="t (s)", ylabel="position error (m)", title="the error decays")
ax2.legend(loc="upper right")
plt.show()

# %%
# Shortest paths of a car
# -----------------------
# A car with a minimum turning radius, driving forward only, takes a Dubins path: arcs
# and a straight line (L: left, S: straight, R: right). Turning around onto a lane 3 m to
# the left with a 1 m radius: a quarter turn, 1 m straight, a quarter turn, pi + 1 m.
path = rd.mobile.dubins([0.0, 0.0, 0.0], [np.pi, 0.0, 3.0], radius=1.0)
print(path)
print(f"length {path.length:.4f} m")
