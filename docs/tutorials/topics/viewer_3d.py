r"""
The 3-D viewer
==============

:func:`robodyn.viz.show` draws a model at a configuration, or plays a trajectory, as one
self-contained HTML page (no server, nothing fetched): ``out=`` writes it to a file, and in
Jupyter (or on this site) the returned view shows inline. Drag to turn the view, scroll to
zoom. A URDF model draws its visual geometry; other models a stick figure from joint to
joint, with a triad (x red, y green, z blue) at each frame.
"""

import numpy as np

import robodyn as rd

# %%
# A configuration
# ---------------
# The UR5 at the configuration of the ch. 4 tutorial, with each body's centre of mass
# (a ball whose volume is proportional to its mass):
model = rd.models.load("ur5")
theta = np.array([0.0, -np.pi / 6, np.pi / 3, 0.2, -0.4, 0.1])
rd.viz.show(model, theta, com=True)

# %%
# A trajectory
# ------------
# A simulated run plays with play/pause, a time slider and a readout of t and q: the UR5
# following a quintic under computed torque for 2 s.
ref = rd.trajectory.joint_trajectory(np.zeros(6), theta, 2.0, time_scaling="quintic")
ctrl = rd.control.ComputedTorque(model, ref, kp=100.0, kd=20.0)
run = rd.simulate(model, np.zeros(6), np.zeros(6), controller=ctrl, duration=2.0, dt=1e-2)
print("samples:", run.t.shape, " final error:", np.abs(run.q[-1] - theta).max(), "rad")
rd.viz.show(model, trajectory=run)
