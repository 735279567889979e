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

# %%
# Something to push against
# -------------------------
# MR sections 11.5-11.7 control the wrench a robot applies, which needs an environment.
# :class:`robodyn.sim.Environment` gives compliant contacts between points (or spheres) on
# the robot and planes, boxes or spheres in the world: along the normal a spring-damper
# :math:`f_n = \max(0, k d + b \dot d)` of the penetration depth d (it pushes, never
# pulls), across it regularised Coulomb friction. It is not a general contact solver
# (MuJoCo is the tool for contact-rich scenes), but it is enough to press on a table.
#
# The Panda's tool points down at this configuration; a table 2 mm under it is touched by
# a flat foot of three points 2 cm around the tool's axis.
panda = rd.models.load("panda")
q_press = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
k_table = 1e4  # N/m
z_table = rd.fk(panda, q_press, "ee")[2, 3] - 0.002
table = rd.sim.Plane([0, 0, z_table], [0, 0, 1], stiffness=k_table, damping=100.0, friction=0.2)
foot = [rd.sim.ContactPoint("ee", [0.02 * np.cos(a), 0.02 * np.sin(a), 0.0])
        for a in (0.0, 2 * np.pi / 3, 4 * np.pi / 3)]  # fmt: skip
env = rd.sim.Environment(panda, foot, [table])

# %%
# Force control
# -------------
# MR eq. 11.47: :math:`\tau = \tilde g(\theta) + J_b^T (F_d + K_{fp} F_e + K_{fi} \int F_e
# dt - K_{damp} V_b)`, :math:`F_e = F_d - F_{tip}`, with :math:`F_{tip}` the wrench the tool
# applies on the table (read by a :class:`robodyn.sim.ForceSensor`, here an ideal one and
# one filtered at 20 Hz). The integral acts on the pressing force only, and the velocity
# damping keeps the robot from running away before it touches. At rest the table's three
# springs carry :math:`F_d` together: the tool sinks :math:`F_d / (3k)`.
F_press = 15.0  # N, along the tool's z (down)
F_d = [0, 0, 0, 0, 0, F_press]
gains = dict(kfp=0.5, kfi=[0, 0, 0, 0, 0, 10.0], kdamp=[2, 2, 2, 100, 100, 100], k_null=2.0)
press = {
    "ideal sensor": rd.control.ForceControl(panda, "ee", F_d, **gains),
    "sensor filtered at 20 Hz": rd.control.ForceControl(
        panda, "ee", F_d, **gains, sensor=rd.sim.ForceSensor("ee", cutoff=20.0)
    ),
}
pressed = {
    name: rd.simulate(panda, q_press, controller=c, duration=2.0, dt=1e-3, environment=env)
    for name, c in press.items()
}
depth = z_table - rd.fk(panda, pressed["ideal sensor"].q[-1], "ee")[2, 3]
print(f"depth at rest {depth * 1e3:.4f} mm; F_d / (3 k) = {F_press / (3 * k_table) * 1e3:.4f} mm")

fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
for name, run in pressed.items():
    ax.plot(run.t, run.contact_force[:, :, 2].sum(axis=1), label=name)
ax.axhline(F_press, color="k", ls=":", label="F_d")
ax.set(xlabel="t (s)", ylabel="normal force (N)", title="Panda pressing on a table")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()

# %%
# Hybrid motion-force control
# ---------------------------
# Wiping the table, the tool moves in the plane and pushes along the normal (MR sec.
# 11.6). A point on the table cannot move along the normal: the natural constraint is
# :math:`A V_b = 0` with A the row of :math:`v_z` (the tool's z is the normal). The
# projection :math:`P = 1 - A^T (A \Lambda^{-1} A^T)^{-1} A \Lambda^{-1}` (MR eq. 11.63,
# :func:`robodyn.constrained.constraint_projections` with :math:`\Lambda` for M) splits
# the law into task-space motion control along the constraint and force control against it.
X_a = rd.fk(panda, q_press, "ee")
X_a[2, 3] = z_table - 10.0 / k_table  # the path on the surface, at the depth of a 10 N press
X_b = X_a.copy()
X_b[:2, 3] += [0.15, 0.05]
wipe_ref = rd.trajectory.cartesian_trajectory(X_a, X_b, 2.0)
tip = [rd.sim.ContactPoint("ee")]
wipe_env = rd.sim.Environment(panda, tip, [table])
hybrid = rd.control.HybridMotionForce(
    panda, "ee", [[0, 0, 0, 0, 0, 1.0]], wipe_ref, [0, 0, 0, 0, 0, 10.0],
    kp=400.0, ki=0.0, kd=40.0, kfp=0.5, kfi=[0, 0, 0, 0, 0, 20.0], k_null=2.0,
)  # fmt: skip
wipe = rd.simulate(panda, q_press, controller=hybrid, duration=2.5, dt=1e-3, environment=wipe_env)
X = rd.fk(panda, wipe.q, "ee")
X_d = np.array([wipe_ref(t)[0] for t in wipe.t])

fig, axs = plt.subplots(2, 1, sharex=True, figsize=(7, 5), layout="constrained")
axs[0].plot(wipe.t, (X[:, 0, 3] - X_d[:, 0, 3]) * 1e3, label="x error")
axs[0].plot(wipe.t, (X[:, 1, 3] - X_d[:, 1, 3]) * 1e3, label="y error")
axs[0].set(ylabel="tracking error (mm)", title="Wiping a table (friction 0.2)")
axs[1].plot(wipe.t, wipe.contact_force[:, 0, 2], label="normal force")
axs[1].plot(wipe.t, -wipe.contact_force[:, 0, 0], label="friction (-x)")
axs[1].axhline(10.0, color="k", ls=":", label="F_d")
axs[1].set(xlabel="t (s)", ylabel="force (N)")
for ax in axs:
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()

# %%
# Impedance control
# -----------------
# The robot renders :math:`M \ddot x + B \dot x + K x = F_{ext}` about a reference (MR sec.
# 11.7). :class:`robodyn.control.Impedance` uses the force sensor to shape the inertia too
# (the rendered mass is M, not the robot's own): its commanded acceleration is solved from
# the virtual dynamics. A 1-DoF arm (0.6 m, turning about z, gravity in its plane) is told
# to turn to 0.5 rad but meets a wall at y = 0.15 m; at rest the virtual spring balances
# the wall's torque, :math:`K(\theta_d - \theta) = L \cos\theta \, k_w (L \sin\theta -
# y_w)`, whose root scipy finds.
from scipy.optimize import brentq  # noqa: E402

L, y_w, k_w = 0.6, 0.15, 5e3
b = rd.ModelBuilder().add_body("link", "world", inertia=rd.inertia.point(1.5, [L, 0, 0]))
arm1 = b.add_frame("tip", "link", rd.transform(p=[L, 0, 0])).set_gravity([0, -9.81, 0]).build()
wall = rd.sim.Environment(
    arm1,
    [rd.sim.ContactPoint("tip")],
    [rd.sim.Plane([0, y_w, 0], [0, -1, 0], stiffness=k_w, damping=50.0)],
)
fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
for K in (20.0, 80.0):
    imp = rd.control.Impedance(arm1, "tip", rd.fk(arm1, [0.5], "tip"), M=0.2, B=4.0, K=K, rows=[2])
    run = rd.simulate(arm1, [0.0], controller=imp, duration=3.0, dt=1e-3, environment=wall)
    th = brentq(lambda t, K=K: K * (0.5 - t) - L * np.cos(t) * k_w * (L * np.sin(t) - y_w),
                np.arcsin(y_w / L), 0.5)  # fmt: skip
    print(f"K = {K:4.0f} N m/rad: theta at rest {run.q[-1, 0]:.6f} rad, equilibrium {th:.6f} rad")
    ax.plot(run.t, run.q[:, 0], label=f"K = {K:g} N m/rad")
ax.axhline(np.arcsin(y_w / L), color="k", ls=":", label="wall")
ax.axhline(0.5, color="gray", ls="--", label="theta_d")
ax.set(xlabel="t (s)", ylabel="theta (rad)", title="A 1-DoF arm under impedance control at a wall")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()

# %%
# Admittance control
# ------------------
# The other way round: the measured wrench drives the virtual mass-spring-damper, whose
# motion (a controller state the simulation integrates) a motion controller tracks. A
# constant 5 N push along the tool's x (``f_ext`` on its body) makes the commanded
# displacement the step response of :math:`M \ddot x + B \dot x + K x = f`.
X_d = rd.fk(panda, q_press, "ee")
M_v, B_v, K_v = [1, 1, 1, 2.0, 2.0, 2.0], [20, 20, 20, 8.0, 8.0, 8.0], [100.0] * 6
adm = rd.control.Admittance(panda, "ee", X_d, M_v, B_v, K_v, kp=400.0, kd=40.0, k_null=2.0)
f_ext = np.zeros((panda.nb, 6))
f_ext[7, 3:] = rd.kinematics.forward.body_poses(panda, q_press)[7, :3, :3].T @ X_d[:3, 0] * 5.0
f_ext[7, :3] = np.cross(panda.frame_p[panda.frame_id("ee")], f_ext[7, 3:])
run = rd.simulate(panda, q_press, controller=adm, duration=2.0, dt=1e-3, f_ext=f_ext)
w, z = np.sqrt(100.0 / 2.0), 8.0 / (2 * np.sqrt(100.0 * 2.0))
wd = w * np.sqrt(1 - z**2)
decay = np.exp(-z * w * run.t)  # the step of M x'' + B x' + K x = F (underdamped)
closed = (
    5.0 / 100.0 * (1 - decay * (np.cos(wd * run.t) + z / np.sqrt(1 - z**2) * np.sin(wd * run.t)))
)
moved = (rd.fk(panda, run.q, "ee")[:, :3, 3] - X_d[:3, 3]) @ X_d[:3, 0]
print(f"commanded vs closed form: largest difference {np.abs(run.z[:, 3] - closed).max():.2e} m")
fig, ax = plt.subplots(figsize=(7, 3.5), layout="constrained")
ax.plot(run.t, closed * 1e3, lw=4, alpha=0.4, label="closed form")
ax.plot(run.t, run.z[:, 3] * 1e3, label="commanded x_c")
ax.plot(run.t, moved * 1e3, ls="--", label="tool (tracked)")
ax.set(xlabel="t (s)", ylabel="displacement along x_tool (mm)",
       title="Admittance: a 5 N step push on the Panda's tool")  # fmt: skip
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()
