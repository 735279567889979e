r"""
Coming from Pinocchio
=====================

Pinocchio and robodyn compute the same quantities on the same URDF; what differs is the
layout. Pinocchio orders twists ``[v; omega]`` and quaternions ``(x, y, z, w)``; robodyn
follows Modern Robotics, ``[omega; v]`` and ``(w, x, y, z)`` (:doc:`../../conventions`).
Pinocchio keeps results in a ``data`` object; robodyn's functions return arrays. Each
block below computes one quantity both ways and checks that they agree.

================================================  ==================================================
Pinocchio                                         robodyn
================================================  ==================================================
``pin.buildModelFromUrdf(path)``                  ``rd.load_urdf(path)``
``pin.neutral(m)``, ``pin.randomConfiguration``   ``rd.neutral(model)``, ``rd.random_configuration``
``forwardKinematics`` + ``data.oMf[id]``          ``rd.fk(model, q, "frame")``
``computeFrameJacobian(..., LOCAL)``              ``rd.jacobian(..., kind="body")``, rows swapped
``computeFrameJacobian(..., WORLD)``              ``rd.jacobian(..., kind="space")``, rows swapped
``..., LOCAL_WORLD_ALIGNED``                      ``rd.jacobian(..., kind="world_aligned")``
``pin.rnea(m, d, q, v, a)``                       ``rd.inverse_dynamics(..., friction=False)``
``pin.crba`` (upper triangle)                     ``rd.mass_matrix(model, q)`` (full)
``pin.aba(m, d, q, v, tau)``                      ``rd.forward_dynamics(..., friction=False)``
``pin.computeGeneralizedGravity``                 ``rd.gravity_forces(model, q)``
``pin.computeCoriolisMatrix``                     ``rd.coriolis_matrix(model, q, v)``
``pin.integrate``, ``pin.difference``             ``rd.integrate``, ``rd.difference``
================================================  ==================================================
"""

import numpy as np
import pinocchio as pin

import robodyn as rd
from robodyn.convert import PinocchioMap, twist_from_pinocchio

np.set_printoptions(precision=4, suppress=True)

URDF = """<robot name="arm3">
  <link name="base"/>
  <link name="l1"><inertial><origin xyz="0 0 0.15"/><mass value="2.0"/>
    <inertia ixx="0.02" iyy="0.02" izz="0.005" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l2"><inertial><origin xyz="0.2 0 0"/><mass value="1.5"/>
    <inertia ixx="0.002" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="l3"><inertial><origin xyz="0.15 0 0"/><mass value="0.8"/>
    <inertia ixx="0.001" iyy="0.008" izz="0.008" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tool"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="50" velocity="3"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>
    <origin xyz="0 0 0.3" rpy="0.3 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="50" velocity="3"/></joint>
  <joint name="j3" type="revolute"><parent link="l2"/><child link="l3"/>
    <origin xyz="0.4 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="50" velocity="3"/></joint>
  <joint name="tool_joint" type="fixed"><parent link="l3"/><child link="tool"/>
    <origin xyz="0.3 0 0" rpy="0 1.5708 0"/></joint>
</robot>"""

model = rd.load_urdf(URDF)  # a path or the XML text
pm = pin.buildModelFromXML(URDF)
pd = pm.createData()
rng = np.random.default_rng(0)
q = rd.random_configuration(model, rng)
v, a = rng.normal(size=(2, model.nv))
print(model.joint_names, model.frame_names)

# %%
# Forward kinematics
# ------------------
pin.forwardKinematics(pm, pd, q)
pin.updateFramePlacements(pm, pd)
T_pin = pd.oMf[pm.getFrameId("tool")].homogeneous
T_rd = rd.fk(model, q, "tool")
print(T_rd)
print("same pose:", np.allclose(T_pin, T_rd, atol=1e-12))

# %%
# Jacobians: the same columns with the two halves of the rows swapped
# ----------------------------------------------------------------------
fid = pm.getFrameId("tool")
for kind, ref in (
    ("body", pin.LOCAL),
    ("space", pin.WORLD),
    ("world_aligned", pin.LOCAL_WORLD_ALIGNED),
):
    J_pin = pin.computeFrameJacobian(pm, pd, q, fid, ref)  # rows [v; omega]
    J_rd = rd.jacobian(model, q, "tool", kind=kind)  # rows [omega; v]
    print(f"{kind:14s}", np.allclose(J_rd, np.vstack([J_pin[3:], J_pin[:3]]), atol=1e-12))

# %%
# A twist converts with :func:`robodyn.convert.twist_from_pinocchio`:
pin.forwardKinematics(pm, pd, q, v)
V_pin = pin.getFrameVelocity(pm, pd, fid, pin.LOCAL).vector
V_rd = rd.jacobian(model, q, "tool", kind="body") @ v
print("body twist:", V_rd, " from Pinocchio:", twist_from_pinocchio(V_pin))

# %%
# Dynamics
# --------
# robodyn includes the URDF's joint damping, friction and rotor inertia by default (MR
# eq. 8.1 with friction); ``friction=False, armature=False`` is Pinocchio's rnea and aba.
# This URDF has none, so both calls agree either way.
tau_pin = pin.rnea(pm, pd, q, v, a)
tau_rd = rd.inverse_dynamics(model, q, v, a, friction=False, armature=False)
print("rnea:", tau_rd, np.allclose(tau_pin, tau_rd, atol=1e-12))
M_pin = pin.crba(pm, pd, q)
M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T  # Pinocchio fills the upper triangle
print("crba:", np.allclose(M_pin, rd.mass_matrix(model, q), atol=1e-12))
print(
    "aba: ", np.allclose(pin.aba(pm, pd, q, v, tau_pin), rd.forward_dynamics(model, q, v, tau_rd))
)
g_pin = pin.computeGeneralizedGravity(pm, pd, q)
print("gravity:", np.allclose(g_pin, rd.gravity_forces(model, q), atol=1e-12))
C_pin = pin.computeCoriolisMatrix(pm, pd, q, v)
print("Coriolis matrix:", np.allclose(C_pin, rd.coriolis_matrix(model, q, v), atol=1e-12))

# %%
# A floating base
# ---------------
# Both put a free joint first. Pinocchio's q is ``[x, y, z, qx, qy, qz, qw]`` and v
# ``[v_b; omega_b]``; robodyn's is ``[x, y, z, qw, qx, qy, qz]`` and ``[omega_b; v_b]``.
# :class:`robodyn.convert.PinocchioMap` converts configurations, velocities, matrices and
# Jacobians (and continuous joints, which Pinocchio stores as (cos, sin)).
fb = rd.load_urdf(URDF, floating_base=True)
pmf = pin.buildModelFromXML(URDF, pin.JointModelFreeFlyer())
pdf = pmf.createData()
conv = PinocchioMap(fb, pmf)
qf = rd.random_configuration(fb, rng)
vf, af = rng.normal(size=(2, fb.nv))
print("robodyn q[:7]:  ", qf[:7])
print("Pinocchio q[:7]:", conv.q_to_pin(qf)[:7])
tau_pin = pin.rnea(pmf, pdf, conv.q_to_pin(qf), conv.v_to_pin(vf), conv.v_to_pin(af))
tau_rd = rd.inverse_dynamics(fb, qf, vf, af, friction=False, armature=False)
print("floating-base rnea:", np.allclose(conv.v_from_pin(tau_pin), tau_rd, atol=1e-10))
M_f = pin.crba(pmf, pdf, conv.q_to_pin(qf))
M_f = np.triu(M_f) + np.triu(M_f, 1).T
print("floating-base crba:", np.allclose(conv.matrix_from_pin(M_f), rd.mass_matrix(fb, qf)))
