r"""
Coming from MuJoCo
==================

MuJoCo is a simulator with contact; robodyn computes the rigid-body quantities of the
book in closed form and simulates without contact. On the same bodies and joints they
agree. MuJoCo's quaternions are ``(w, x, y, z)`` like robodyn's; its free-joint velocity
is ``[v_world; omega_body]`` where robodyn's is the body twist ``[omega_b; v_b]``
(:func:`robodyn.convert.free_v_to_mujoco`); it returns a site's Jacobian as two 3-row
blocks ``jacp`` and ``jacr``, where robodyn's ``kind="world_aligned"`` stacks
``[jacr; jacp]``.

==============================================  ==================================================
MuJoCo                                          robodyn
==============================================  ==================================================
``data.qpos``, ``data.qvel``                    ``q``, ``v`` (arrays you pass)
``mj_forward``; ``data.site_xpos``/``xmat``     ``rd.fk(model, q, "frame")``
``mj_jacSite(m, d, jacp, jacr, id)``            ``rd.jacobian(..., kind="world_aligned")``
``mj_fullM``                                    ``rd.mass_matrix(model, q)``
``data.qfrc_bias``                              ``rd.bias_forces(model, q, v)``
``mj_inverse``; ``data.qfrc_inverse``           ``rd.inverse_dynamics(model, q, v, a)``
``data.qacc`` after ``mj_forward``              ``rd.forward_dynamics(model, q, v, tau)``
``mj_step`` loop                                ``rd.simulate(model, q0, v0, controller, ...)``
``MjModel.from_xml_path(path)``                 ``rd.load_mjcf(path)`` (MJCF file or text)
saving a model as MJCF                          ``rd.to_mjcf(model, path)``
==============================================  ==================================================

:func:`robodyn.load_mjcf` reads MJCF as MuJoCo compiles it: bodies and their joints (a
body with several joints becomes a chain of massless bodies), ``<compiler>``, default
classes, includes, every orientation form, inertias from ``<inertial>`` or from the geoms
and meshes by MuJoCo's rules, sites as frames; what robodyn's model cannot hold (tendons,
actuators, most equality constraints, springs) is listed in one warning. On the MJCF
models of dm_control and gymnasium its dynamics equal MuJoCo's to 1e-9 (the tests list
each file). :func:`robodyn.to_mjcf` writes any model back.
"""

import mujoco
import numpy as np

import robodyn as rd
from robodyn.convert import free_v_from_mujoco, free_v_to_mujoco

np.set_printoptions(precision=4, suppress=True)

# %%
# The same arm twice
# ------------------
# Two hinges: one about z at 0.1 m above the ground, one about y at the end of a 0.4 m
# link; a site (an operational frame) 0.3 m further.
XML = """
<mujoco><option gravity="0 0 -9.81"/><worldbody>
  <body name="l1" pos="0 0 0.1"><joint name="j1" type="hinge" axis="0 0 1"/>
    <inertial pos="0.2 0 0" mass="1" diaginertia="0.01 0.02 0.02"/>
    <body name="l2" pos="0.4 0 0"><joint name="j2" type="hinge" axis="0 1 0"/>
      <inertial pos="0.15 0 0" mass="0.5" diaginertia="0.005 0.01 0.01"/>
      <site name="tip" pos="0.3 0 0"/>
    </body></body></worldbody></mujoco>"""
mj = mujoco.MjModel.from_xml_string(XML)
data = mujoco.MjData(mj)

# %%
# robodyn reads the same text (a file path works too) ...
arm = rd.load_mjcf(XML)
print(arm)

# %%
# ... which is the model built by hand from the same numbers:
by_hand = (
    rd.ModelBuilder("arm", gravity=(0, 0, -9.81))
    .add_body(
        "l1",
        "world",
        joint_name="j1",
        axis=(0, 0, 1),
        T=rd.transform(p=[0, 0, 0.1]),
        inertia=rd.RigidInertia(1.0, [0.2, 0, 0], np.diag([0.01, 0.02, 0.02])),
    )
    .add_body(
        "l2",
        "l1",
        joint_name="j2",
        axis=(0, 1, 0),
        T=rd.transform(p=[0.4, 0, 0]),
        inertia=rd.RigidInertia(0.5, [0.15, 0, 0], np.diag([0.005, 0.01, 0.01])),
    )
    .add_frame("tip", "l2", rd.transform(p=[0.3, 0, 0]))
    .build()
)
q_test = np.array([0.2, -1.3])
print(
    "same mass matrix:", np.allclose(rd.mass_matrix(by_hand, q_test), rd.mass_matrix(arm, q_test))
)

q = np.array([0.7, -0.4])
v = np.array([1.2, -0.5])
data.qpos[:] = q
data.qvel[:] = v
mujoco.mj_forward(mj, data)

# %%
# Kinematics
# ----------
T = rd.fk(arm, q, "tip")
print("tip position:", T[:3, 3], " MuJoCo:", data.site_xpos[0])
print("orientation agrees:", np.allclose(T[:3, :3], data.site_xmat[0].reshape(3, 3)))
jacp, jacr = np.zeros((3, 2)), np.zeros((3, 2))
mujoco.mj_jacSite(mj, data, jacp, jacr, 0)
J = rd.jacobian(arm, q, "tip", kind="world_aligned")
print("J = [jacr; jacp]:", np.allclose(J, np.vstack([jacr, jacp]), atol=1e-12))

# %%
# Dynamics
# --------
# MuJoCo's ``qfrc_bias`` is :math:`c(q, \dot q) + g(q)`; it stores the mass matrix in a
# sparse layout that ``mj_fullM`` expands.
M_mj = np.zeros((2, 2))
if int(mujoco.__version__.split(".")[0]) >= 4:
    mujoco.mj_fullM(mj, data, M_mj)
else:  # MuJoCo 3 takes the sparse matrix itself
    mujoco.mj_fullM(mj, M_mj, data.qM)
print("mass matrix:", np.allclose(M_mj, rd.mass_matrix(arm, q), atol=1e-12))
print("bias forces:", rd.bias_forces(arm, q, v), " MuJoCo:", data.qfrc_bias)
tau = np.array([0.3, -0.1])
data.qfrc_applied[:] = tau
mujoco.mj_forward(mj, data)
print("forward dynamics:", rd.forward_dynamics(arm, q, v, tau), " MuJoCo:", data.qacc)
a = np.array([0.5, 2.0])
data.qacc[:] = a
mujoco.mj_inverse(mj, data)
print("inverse dynamics:", rd.inverse_dynamics(arm, q, v, a), " MuJoCo:", data.qfrc_inverse)

# %%
# A free body
# -----------
# The configuration has the same layout, ``[x, y, z, qw, qx, qy, qz]``; the velocities
# differ and convert exactly.
FREE = """<mujoco><option gravity="0 0 0"/><worldbody>
  <body name="b"><freejoint/><inertial pos="0 0 0" mass="2" diaginertia="0.1 0.2 0.3"/>
  </body></worldbody></mujoco>"""
mf = mujoco.MjModel.from_xml_string(FREE)
df = mujoco.MjData(mf)
rng = np.random.default_rng(0)
q_free = np.concatenate(
    [rng.normal(size=3), rd.spatial.rotation_to_quat(rd.exp3([0.3, -0.2, 1.0]))]
)
V_b = rng.normal(size=6)  # robodyn: body twist [omega_b; v_b]
df.qpos[:] = q_free
df.qvel[:] = free_v_to_mujoco(q_free, V_b)
mujoco.mj_forward(mf, df)
local = np.zeros(6)
mujoco.mj_objectVelocity(mf, df, mujoco.mjtObj.mjOBJ_BODY, 1, local, 1)  # [rot, lin], body
print("robodyn V_b:       ", V_b)
print("MuJoCo qvel:       ", df.qvel)
print("MuJoCo body-frame: ", local)
print("round trip:", np.allclose(free_v_from_mujoco(q_free, df.qvel), V_b, atol=1e-14))

# %%
# Simulation
# ----------
# Both integrate the arm falling from rest for one second with RK4 at 1 ms (MuJoCo with
# contacts off); the joint angles agree to the integrators' error.
mj.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
mj.opt.timestep = 1e-3
data = mujoco.MjData(mj)
data.qpos[:] = q
for _ in range(1000):
    mujoco.mj_step(mj, data)
run = rd.simulate(arm, q, np.zeros(2), duration=1.0, dt=1e-3, integrator="rk4")
print("after 1 s: robodyn", run.q[-1], " MuJoCo", data.qpos)

# %%
# Back to MJCF
# ------------
# ``rd.to_mjcf`` writes a model as MJCF (no geometry, so no contacts in MuJoCo): here the
# bundled UR5, which MuJoCo then simulates; with a path it writes a file, atomically, and
# never over an existing one without ``force=True``.
ur5 = rd.models.load("ur5")
m_ur5 = mujoco.MjModel.from_xml_string(rd.to_mjcf(ur5))
d_ur5 = mujoco.MjData(m_ur5)
q_ur5 = np.array([0.1, -0.5, 1.0, 0.2, 0.3, -0.4])
d_ur5.qpos[:] = q_ur5
mujoco.mj_forward(m_ur5, d_ur5)
print("UR5 gravity forces agree:", np.allclose(d_ur5.qfrc_bias, rd.gravity_forces(ur5, q_ur5)))
