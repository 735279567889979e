r"""
Ch. 11: robot control
=====================

Controllers in :mod:`robodyn.control` are small objects ``ctrl(t, q, v) -> tau``;
:func:`robodyn.simulate` integrates the model under one. This tutorial takes the 2-link
arm of the course's Python lesson (course notes 003) from rest at q = (0, 0) to
q = (pi/4, pi/3) three ways: PD (MR eq. 11.27), PD plus gravity compensation, and computed
torque (MR eq. 11.35), then makes the controller's model wrong.
"""

import matplotlib.pyplot as plt
import numpy as np

import robodyn as rd

np.set_printoptions(precision=4, suppress=True)

arm = rd.models.load("planar_2r")
q_goal = np.array([np.pi / 4, np.pi / 3])
q0 = np.zeros(2)

# %%
# Three controllers
# -----------------
# PD alone settles where the spring :math:`K_p e` balances gravity, so it leaves a
# steady error :math:`e = K_p^{-1} g(q)`. Adding :math:`g(q)` removes it. Computed torque
# follows a quintic reference exactly with the true model: its error obeys
# :math:`\ddot e + K_d \dot e + K_p e = 0`.
ref = rd.trajectory.joint_trajectory(q0, q_goal, 1.0, time_scaling="quintic")
controllers = {
    "PD": rd.control.PD(arm, q_goal, kp=100.0, kd=20.0),
    "PD + gravity compensation": rd.control.PD(
        arm, q_goal, kp=100.0, kd=20.0, gravity_compensation=True
    ),
    "computed torque (quintic)": rd.control.ComputedTorque(arm, ref, kp=100.0, kd=20.0),
}
runs = {}
for name, ctrl in controllers.items():
    runs[name] = rd.simulate(arm, q0, np.zeros(2), controller=ctrl, duration=2.0, dt=1e-3)
    print(f"{name:26s}: final error {q_goal - runs[name].q[-1]} rad")

# %%
# The PD's steady error is the one its gains and gravity predict:
print("K_p^-1 g(q_final):", rd.gravity_forces(arm, runs["PD"].q[-1]) / 100.0)

fig, axs = plt.subplots(2, 1, sharex=True, figsize=(7, 5), layout="constrained")
for name, run in runs.items():
    for j, ax in enumerate(axs):
        ax.plot(run.t, run.q[:, j], label=name)
for j, ax in enumerate(axs):
    ax.axhline(q_goal[j], color="k", ls=":", label="goal")
    ax.set(ylabel=f"q{j + 1} (rad)")
axs[0].set(title="2R arm from rest to (pi/4, pi/3)")
axs[1].set(xlabel="t (s)")
axs[0].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()

# %%
# The torques each controller asked for:
for name, run in runs.items():
    print(f"{name:26s}: peak |tau| {np.abs(run.tau).max(axis=0)} N m")

# %%
# A wrong model
# -------------
# :func:`robodyn.control.perturbed` scales the masses and inertias of a model. Computed
# torque built on a model 20 % too light no longer cancels the dynamics; the PD terms
# keep the error small, and an integral term removes the steady part (PID, MR eq. 11.31).
light = rd.control.perturbed(arm, mass_scale=0.8)
for name, ctrl in {
    "computed torque, light model": rd.control.ComputedTorque(light, ref, kp=100.0, kd=20.0),
    "with an integral term": rd.control.ComputedTorque(light, ref, kp=100.0, kd=20.0, ki=200.0),
}.items():
    run = rd.simulate(arm, q0, np.zeros(2), controller=ctrl, duration=2.0, dt=1e-3)
    track = np.abs(run.q - ref(run.t)[0]).max(axis=0)
    print(f"{name:30s}: largest tracking error {track} rad, final {q_goal - run.q[-1]}")

# %%
# Energy
# ------
# With no controller and no friction, the arm's mechanical energy is conserved; the
# integrator's drift is the check (RK4, 1 ms steps):
fall = rd.simulate(arm, np.array([0.0, 0.0]), np.zeros(2), duration=2.0, dt=1e-3)
E = fall.energy()
print(f"free fall: energy {E[0]:.6f} J at the start, largest change {np.abs(E - E[0]).max():.2e} J")
