"""The layout converters against the other libraries themselves (Pinocchio and MuJoCo)."""

from __future__ import annotations

import mujoco
import numpy as np
import pinocchio as pin

import robodyn as rd
from helpers import erd_path
from robodyn.convert import (
    PinocchioMap,
    free_v_from_mujoco,
    free_v_to_mujoco,
    quat_wxyz_to_xyzw,
    quat_xyzw_to_wxyz,
    twist_from_pinocchio,
    twist_to_pinocchio,
)
from robodyn.inertia import box
from robodyn.spatial import exp6, quat_to_rotation, transform

FREE_BODY_XML = """
<mujoco><option gravity="0 0 0"/><worldbody>
  <body name="b" pos="0 0 0"><freejoint name="root"/>
    <inertial pos="0 0 0" mass="2" diaginertia="0.1 0.2 0.3"/>
  </body></worldbody></mujoco>"""

ARM_XML = """
<mujoco><worldbody>
  <body name="l1" pos="0 0 0.1"><joint name="j1" type="hinge" axis="0 0 1"/>
    <inertial pos="0.2 0 0" mass="1" diaginertia="0.01 0.02 0.02"/>
    <body name="l2" pos="0.4 0 0"><joint name="j2" type="hinge" axis="0 1 0"/>
      <inertial pos="0.15 0 0" mass="0.5" diaginertia="0.005 0.01 0.01"/>
      <site name="tip" pos="0.3 0 0"/>
    </body></body></worldbody></mujoco>"""


def test_twist_and_quaternion_swaps_are_inverse_pairs():
    V = np.arange(6.0)
    np.testing.assert_array_equal(twist_to_pinocchio(V), [3, 4, 5, 0, 1, 2])
    np.testing.assert_array_equal(twist_from_pinocchio(twist_to_pinocchio(V)), V)
    q = np.array([0.5, 0.1, 0.2, 0.3])
    np.testing.assert_array_equal(quat_wxyz_to_xyzw(q), [0.1, 0.2, 0.3, 0.5])
    np.testing.assert_array_equal(quat_xyzw_to_wxyz(quat_wxyz_to_xyzw(q)), q)
    # Pinocchio's own quaternion agrees with our rotation of the same numbers
    qn = q / np.linalg.norm(q)
    R_pin = pin.Quaternion(*quat_wxyz_to_xyzw(qn)[[3, 0, 1, 2]]).matrix()
    np.testing.assert_allclose(quat_to_rotation(qn), R_pin, atol=1e-15)


def test_free_joint_velocity_matches_mujoco_object_velocity():
    mj = mujoco.MjModel.from_xml_string(FREE_BODY_XML)
    data = mujoco.MjData(mj)
    rng = np.random.default_rng(0)
    q = np.concatenate([rng.normal(size=3), rng.normal(size=4)])
    q[3:] /= np.linalg.norm(q[3:])
    v = rng.normal(size=6)  # robodyn: body twist [omega_b, v_b]
    data.qpos[:] = q  # same layout: [x, y, z, qw, qx, qy, qz]
    data.qvel[:] = free_v_to_mujoco(q, v)
    mujoco.mj_forward(mj, data)
    res = np.zeros(6)
    mujoco.mj_objectVelocity(mj, data, mujoco.mjtObj.mjOBJ_BODY, 1, res, 1)  # local frame
    np.testing.assert_allclose(res, v, atol=1e-12)  # MuJoCo's [rot, lin], body frame
    np.testing.assert_allclose(free_v_from_mujoco(q, data.qvel), v, atol=1e-12)
    np.testing.assert_allclose(data.xmat[1].reshape(3, 3), quat_to_rotation(q[3:]), atol=1e-12)


def test_world_aligned_jacobian_is_mujoco_jacr_over_jacp():
    mj = mujoco.MjModel.from_xml_string(ARM_XML)
    data = mujoco.MjData(mj)
    b = rd.ModelBuilder("arm")
    b.add_body(
        "l1",
        "world",
        joint_name="j1",
        axis=(0, 0, 1),
        T=transform(p=[0, 0, 0.1]),
        inertia=box(mass=1.0, size=(0.1, 0.1, 0.1)),
    )
    b.add_body(
        "l2",
        "l1",
        joint_name="j2",
        axis=(0, 1, 0),
        T=transform(p=[0.4, 0, 0]),
        inertia=box(mass=0.5, size=(0.1, 0.1, 0.1)),
    )
    b.add_frame("tip", "l2", transform(p=[0.3, 0, 0]))
    model = b.build()
    q = np.array([0.7, -0.4])
    data.qpos[:] = q
    mujoco.mj_forward(mj, data)
    jacp, jacr = np.zeros((3, 2)), np.zeros((3, 2))
    mujoco.mj_jacSite(mj, data, jacp, jacr, 0)
    J = rd.jacobian(model, q, "tip", kind="world_aligned")
    np.testing.assert_allclose(J, np.vstack([jacr, jacp]), atol=1e-12)
    np.testing.assert_allclose(rd.fk(model, q, "tip")[:3, 3], data.site_xpos[0], atol=1e-12)


def test_pinocchio_map_round_trips_on_a_floating_robot_with_continuous_joints():
    path = erd_path("double_pendulum_continuous")
    model = rd.load_urdf(path, floating_base=True)
    pm = pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())
    m = PinocchioMap(model, pm)
    rng = np.random.default_rng(1)
    q = rd.random_configuration(model, rng)
    qp = m.q_to_pin(q)
    assert qp.shape == (pm.nq,) and pm.nq == model.nq + 2  # two (cos, sin) joints
    np.testing.assert_allclose(m.q_from_pin(qp), q, atol=1e-15)
    v = rng.normal(size=model.nv)
    np.testing.assert_array_equal(m.v_from_pin(m.v_to_pin(v)), v)
    # the base twist: ours [omega_b, v_b], Pinocchio's [v_b, omega_b]
    np.testing.assert_array_equal(m.v_to_pin(v)[:6], np.concatenate([v[3:6], v[:3]]))
    # integrating the same velocity in both libraries gives the same configuration
    dt = 0.1
    q1 = rd.integrate(model, q, v, dt)
    q1_pin = pin.integrate(pm, qp, m.v_to_pin(v) * dt)
    np.testing.assert_allclose(m.q_to_pin(q1), q1_pin, atol=1e-12)
    # and agrees with exp6 of the base twist
    T0 = transform(quat_to_rotation(q[3:7]), q[:3])
    T1 = T0 @ exp6(v[:6] * dt)
    np.testing.assert_allclose(q1[:3], T1[:3, 3], atol=1e-12)
