r"""
Models from models: attach, lock, write URDF
============================================

Three operations make new robots out of the ones you have:

* :func:`robodyn.attach` hangs one model from a frame of another: a gripper on an arm, an
  arm on a mobile base (``joint="fixed"``, ``"free"`` or ``"planar"``), as Pinocchio's
  ``appendModel``;
* ``model.lock_joints(names, q)`` fixes joints at a configuration and merges their bodies
  into their parents (the parallel-axis theorem, MR eq. 8.26): a planning model without
  the fingers, an arm with a broken joint, as Pinocchio's ``buildReducedModel``;
* ``model.to_urdf(path)`` writes any model back as URDF, which ``rd.load_urdf`` (and
  Pinocchio, for the joints URDF has) reads to the same dynamics.

Every frame, limit, friction and armature coefficient and mimic coupling is kept by all
three. The tests compare them with Pinocchio on the example-robot-data robots (to about
1e-15).
"""

import os
import tempfile

import numpy as np
import pinocchio as pin

import robodyn as rd
from robodyn.convert import PinocchioMap

# %%
# A gripper on an arm
# -------------------
# A parallel gripper made with the builder: a palm and two fingers on prismatic joints,
# the second a mimic of the first (it follows it, mirrored). The palm hangs from the world
# by a free joint, so the gripper is a floating-base model: attached to a frame, that free
# joint is replaced by the fixed attachment and the palm, with its mass, merges into the
# arm's last body. (A URDF gripper loaded with a fixed base has lost its root link's mass
# to the world; load it with ``floating_base=True`` to bring the mass along.)
finger = rd.inertia.box(mass=0.05, size=(0.02, 0.01, 0.05))
gripper = (
    rd.ModelBuilder("gripper")
    .add_body("palm", "world", joint_name="palm_free", joint_type="free",
              inertia=rd.inertia.box(mass=0.6, size=(0.08, 0.2, 0.05)))
    .add_body("left", "palm", joint_name="finger", joint_type="prismatic", axis=(0, 1, 0),
              T=rd.transform(p=[0, 0.02, 0.05]), inertia=finger, lower=0.0, upper=0.04,
              effort=20.0, damping=0.5)
    .add_body("right", "palm", joint_name="finger_mirror", joint_type="prismatic",
              axis=(0, 1, 0), T=rd.transform(p=[0, -0.02, 0.05]), inertia=finger,
              mimic="finger", multiplier=-1.0)
    .add_frame("tcp", "palm", T=rd.transform(p=[0, 0, 0.1]))
    .build()
)  # fmt: skip
panda = rd.models.load("panda")
arm = rd.attach(panda, "ee", gripper, T=rd.transform(rd.exp3([0, 0, -np.pi / 4])))
print(repr(arm))
print("coordinates:", arm.joint_names)
print("mass: panda", round(panda.total_mass, 3), "+ gripper", round(gripper.total_mass, 3),
      "=", round(arm.total_mass, 3), "kg")  # fmt: skip
print(arm.notes[-3:])

# %%
# Names that clash are refused, naming them; ``prefix=`` puts a prefix before every name
# of the child (two grippers, two arms):
try:
    rd.attach(arm, "tcp", gripper)
except ValueError as err:
    print(err)
twin = rd.attach(arm, "tcp", gripper, prefix="second_")
print(twin.joint_names[-2:], "second_tcp" in twin.frame_names)

# %%
# Locking joints
# --------------
# For planning the gripper's finger does not matter: lock it (with its mirror, which
# follows it) at 2 cm open. The reduced model has the arm's seven joints, the fingers'
# mass merged into the hand, and every frame still there.
rng = np.random.default_rng(0)
q = rd.random_configuration(arm, rng)
q[arm.joint_names.index("finger")] = 0.02
planning = arm.lock_joints(["finger"], q)
print(planning.joint_names)
print("frames kept:", set(planning.frame_names) == set(arm.frame_names))

# %%
# A locked joint is a rigid connection: the reduced mass matrix is the full one's block of
# the remaining joints, and the tool frame is where it was.
q7 = q[:7]
M_full = rd.mass_matrix(arm, q)[:7, :7]
print("|M - M_full[:7, :7]| =", np.abs(rd.mass_matrix(planning, q7) - M_full).max())
print("tcp moved by", np.abs(rd.fk(planning, q7, "tcp") - rd.fk(arm, q, "tcp")).max())

# %%
# ``q`` may also be a mapping from the locked joints to their values; locking a mimic
# joint alone is refused (its leader would drag it), and an unknown name is named:
one_joint = arm.lock_joints(["joint4"], {"joint4": -1.2})
print(one_joint.nv, "dof;", one_joint.joint_names)
for bad in (["finger_mirror"], ["joint9"]):
    try:
        arm.lock_joints(bad, q)
    except ValueError as err:
        print(err)

# %%
# A mobile manipulator
# --------------------
# A base on a planar joint (q = (phi, x, y) in the floor's plane, v its planar body twist)
# with a mounting plate, and the UR5 on it:
base = (
    rd.ModelBuilder("base")
    .add_body("chassis", "world", joint_name="base", joint_type="planar", axis=(0, 0, 1),
              inertia=rd.inertia.box(mass=40.0, size=(0.6, 0.4, 0.3)))
    .add_frame("plate", "chassis", T=rd.transform(p=[0.1, 0.0, 0.15]))
    .build()
)  # fmt: skip
mobile = rd.attach(base, "plate", rd.models.load("ur5"))
print(mobile.joint_names, mobile.nq, mobile.nv)
q = rd.random_configuration(mobile, rng)
v = rng.normal(size=mobile.nv)
a = rd.forward_dynamics(mobile, q, v, np.zeros(mobile.nv))  # falls under gravity, base drifts
print("base accelerations (omega, v_x, v_y):", a[:3].round(4))

# %%
# ``joint="planar"`` or ``"free"`` puts the child's root on that joint itself: a
# floating-base robot made planar, or a fixed-base arm set free. A fixed-base child rides
# on a new massless body named after it:
free_arm = rd.attach(rd.ModelBuilder("space").build(), "world", rd.models.load("ur5"),
                     joint="free")  # fmt: skip
print(free_arm.joint_names[:2], free_arm.body_names[:2], free_arm.floating_base)

# %%
# Writing URDF
# ------------
# ``to_urdf`` checks the path before any work, never replaces a file without
# ``overwrite=True`` and writes atomically. The mobile manipulator read back has the same
# dynamics:
folder = tempfile.mkdtemp()
path = mobile.to_urdf(os.path.join(folder, "mobile_ur5.urdf"))
back = rd.load_urdf(path)
print("|M - M_back| =", np.abs(rd.mass_matrix(back, q) - rd.mass_matrix(mobile, q)).max())
try:
    mobile.to_urdf(path)
except FileExistsError as err:
    print(err)

# %%
# It is plain URDF: Pinocchio reads it to the same dynamics (its planar joint has q = (x,
# y, cos phi, sin phi), v = (v_x, v_y, omega); :class:`robodyn.convert.PinocchioMap`
# reorders).
pm = pin.buildModelFromUrdf(str(path))
mp = PinocchioMap(mobile, pm)
M_pin = pin.crba(pm, pm.createData(), mp.q_to_pin(q))
M_pin = np.triu(M_pin) + np.triu(M_pin, 1).T
print("|M - M_pinocchio| =", np.abs(rd.mass_matrix(mobile, q) - mp.matrix_from_pin(M_pin)).max())

# %%
# URDF has no universal, cylindrical or helical joint: they are written as two URDF joints
# through a massless link (exact: the same q, v and dynamics; a helical joint's
# translation is a ``<mimic>`` of its angle), a spherical joint as PyBullet's
# ``type="spherical"``, armature as ``<dynamics armature>``. What URDF cannot say at all
# (gravity, one-sided limits) is listed in one ``rd.ModelWarning``; gravity is in a comment
# at the top of the file.
print(open(path).read()[:400])
