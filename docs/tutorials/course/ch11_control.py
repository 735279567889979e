r"""
Ch. 11: robot control
=====================

Controllers in :mod:`robodyn.control` are small objects ``ctrl(t, q, v) -> tau``;
:func:`robodyn.simulate` integrates the model under one. This tutorial first chooses gains
from the linear error dynamics (MR sec. 11.2) and drives a kinematic robot by velocity
commands (MR sec. 11.3); then it takes the 2-link arm of the course's Python lesson (course
notes 003) from rest at q = (0, 0) to q = (pi/4, pi/3) three ways: PD (MR eq. 11.27), PD
plus gravity compensation, and computed torque (MR eq. 11.35), and makes the controller's
model wrong.
"""

import matplotlib.pyplot as plt
import numpy as np

import robodyn as rd

np.set_printoptions(precision=4, suppress=True)

arm = rd.models.load("planar_2r")
q_goal = np.array([np.pi / 4, np.pi / 3])
q0 = np.zeros(2)

# %%
# Choosing gains: the error dynamics
# ----------------------------------
# Under computed torque the error obeys :math:`\ddot e + K_d \dot e + K_p e = 0`, the
# standard form :math:`\ddot e + 2\zeta\omega_n \dot e + \omega_n^2 e = 0` with
# :math:`\omega_n = \sqrt{K_p}` and :math:`\zeta = K_d / (2\sqrt{K_p})` (MR sec. 11.2.2).
# :func:`robodyn.control.error_dynamics` gives the roots, the damping ratio, the overshoot
# :math:`e^{-\pi\zeta/\sqrt{1-\zeta^2}}` and the 2 % settling time
# :math:`4/(\zeta\omega_n)`:
for kd in (6.0, 12.0, 20.0, 40.0):
    ed = rd.control.error_dynamics(kp=100.0, kd=kd)
    print(f"kd = {kd:4.0f}: roots {np.round(ed.roots, 3)}, zeta {float(ed.zeta):.2f}, "
          f"overshoot {100 * float(ed.overshoot):5.1f} %, "
          f"settling {float(ed.settling_time):.2f} s")  # fmt: skip

# %%
# The 2R arm under computed torque toward a constant target follows that response: its
# error, divided by the initial error, is :meth:`~robodyn.control.ErrorDynamics.response`.
ed = rd.control.error_dynamics(kp=100.0, kd=12.0)
ct = rd.control.ComputedTorque(arm, q_goal, kp=100.0, kd=12.0)
run = rd.simulate(arm, q0, np.zeros(2), controller=ct, duration=1.0, dt=1e-3)
ratio = (q_goal - run.q) / (q_goal - q0)
print("largest |e(t)/e(0) - response(t)|:", np.abs(ratio - ed.response(run.t)[:, None]).max())

fig, ax = plt.subplots(figsize=(7, 3.2), layout="constrained")
t = np.linspace(0.0, 1.0, 501)
for kd in (6.0, 12.0, 20.0, 40.0):
    ax.plot(t, rd.control.error_dynamics(100.0, kd).response(t), label=f"kd = {kd:g} 1/s")
ax.plot(run.t[::20], ratio[::20, 0], "k.", label="2R arm, joint 1 (kd = 12)")
ax.axhspan(-0.02, 0.02, color="0.5", alpha=0.2, label="2 % band")
ax.set(xlabel="t (s)", ylabel="e(t) / e(0) (fraction)",
       title="Error after a step, kp = 100 1/s^2 (omega_n = 10 rad/s)")  # fmt: skip
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()

# %%
# With torque gains the inertia enters: a joint of inertia :math:`m` has
# :math:`m\ddot e + k_d\dot e + k_p e = 0`. :func:`robodyn.control.gains_for` scales each
# joint's gains by its own :math:`M_{jj}` so that every joint, alone, has the asked
# response; an integral gain makes the equation third order (its roots and stability are
# given, its damping ratio is not defined).
kp, kd = rd.control.gains_for(arm, zeta=0.7, omega_n=10.0)
M_jj = np.diag(rd.mass_matrix(arm, rd.neutral(arm)))
print("per-joint zeta:", rd.control.error_dynamics(kp, kd, m=M_jj).zeta)
pid = rd.control.error_dynamics(kp, kd, ki=kp * 2.0, m=M_jj)
print("with ki = 2 kp: roots", np.round(pid.roots, 2), "stable:", pid.stable)

# %%
# Velocity inputs: a kinematic robot
# ----------------------------------
# Many arms take joint velocities and track them with their own drives. MR sec. 11.3
# controls such a robot kinematically: in task space (MR eqs. 11.16-11.17) the commanded
# body twist is the reference's, seen in the end-effector frame, plus PI on the body-frame
# error :math:`X_{err} = \log(X^{-1}X_d)`, and the joints move by
# :math:`\dot\theta = J_b^{\dagger} \mathcal{V}_b`.
# ``rd.simulate(..., input="velocity")`` integrates :math:`\dot q = v_{cmd}` (no dynamics).
# With P only the error decays exactly as :math:`e^{-K_p t}` (its curve lies under the
# dashed one); the integral term makes it second order
# (:math:`\ddot s + K_p \dot s + K_i s = 0`, here :math:`\zeta = 0.75`: it crosses zero and
# settles later), a price paid for removing the steady error a real drive's bias leaves.
ur5 = rd.models.load("ur5")
qa = np.array([0.3, -1.0, 1.2, -0.5, 0.8, 0.2])
Xa, Xb = rd.fk(ur5, qa, "ee"), rd.fk(ur5, qa + 0.4, "ee")
screw = rd.trajectory.screw_trajectory(Xa, Xb, 1.5)  # X_d(t), V_d(t), dV_d(t)
fig, ax = plt.subplots(figsize=(7, 3.2), layout="constrained")
for name, ki in (("P, kp = 3", None), ("PI, kp = 3, ki = 4", 4.0)):
    kin = rd.control.KinematicTaskSpace(ur5, "ee", screw, kp=3.0, ki=ki)
    res = rd.simulate(ur5, qa + 0.05, controller=kin, duration=1.5, dt=2e-3, input="velocity")
    err = np.linalg.norm(kin.error(res.t, res.q), axis=-1)  # |X_err| per sample
    ax.semilogy(res.t, err, label=name)
ax.semilogy(res.t, err[0] * np.exp(-3.0 * res.t), "k--", label="|X_err(0)| exp(-kp t)")
ax.set(xlabel="t (s)", ylabel="|X_err| (rad, m)",
       title="UR5 end effector on a screw path, velocity commands")  # fmt: skip
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()

# %%
# The joint-space law is :class:`robodyn.control.KinematicJoint`:
# :math:`v_{cmd} = \dot q_d + K_p e + K_i \int e`.
kj = rd.control.KinematicJoint(arm, q_goal, kp=4.0)
res = rd.simulate(arm, q0, controller=kj, duration=1.0, dt=1e-3, input="velocity")
print("error after 1 s:", q_goal - res.q[-1], " predicted e(0) exp(-4):", q_goal * np.exp(-4))

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
