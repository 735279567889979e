r"""
Ch. 2: configuration space and Grübler's formula
=================================================

A mechanism's degrees of freedom are its number of links (the ground included) and joints,
counted by Grübler's formula (MR eq. 2.4). With N links, J joints, joint i allowing f_i
freedoms and m = 3 for planar or m = 6 for spatial mechanisms:

.. math::

    \mathrm{dof} = m (N - 1 - J) + \sum_{i=1}^{J} f_i

:func:`robodyn.grubler` takes the joints as a string of letters (R revolute, P prismatic, C
cylindrical, U universal, S spherical, H helical) or as a list of freedoms.
"""

import numpy as np

import robodyn as rd

np.set_printoptions(precision=5, suppress=True)

# %%
# Planar mechanisms (m = 3)
# -------------------------
# A four-bar linkage: four links counting the ground, four revolute joints.
print("four-bar:", rd.grubler(4, "RRRR", planar=True))

# %%
# A slider-crank: ground, crank, rod and slider; three revolute joints and one prismatic.
print("slider-crank:", rd.grubler(4, "RRRP", planar=True))

# %%
# The Stephenson six-bar: six links, seven revolute joints.
print("Stephenson six-bar:", rd.grubler(6, "R" * 7, planar=True))

# %%
# A five-bar linkage has two: both ground-side cranks must be driven.
print("five-bar:", rd.grubler(5, "RRRRR", planar=True))

# %%
# Spatial mechanisms (m = 6)
# --------------------------
# The Stewart-Gough platform (MR section 2.2): the base, the platform and two links per leg
# (14 links); each of the six legs is a universal, a prismatic and a spherical joint.
print("Stewart-Gough:", rd.grubler(14, "UPS" * 6))

# %%
# The Delta robot (MR section 2.2) has 17 links and 21 joints: 9 revolute and 12
# spherical. Grübler counts 15 freedoms, of which 12 are the spin of the thin rods about
# their own axes, so the platform has the 3 translations.
print("Delta:", rd.grubler(17, "R" * 9 + "S" * 12))

# %%
# An open chain's freedoms are the joints' freedoms: the UR5's six revolute joints.
model = rd.models.load("ur5")
print("UR5 open chain:", rd.grubler(7, "R" * 6), "= model.nv =", model.nv)

# %%
# The freedoms f_i of each joint type that :func:`robodyn.grubler` uses (MR table 2.1):
print(rd.cspace.JOINT_FREEDOMS)

# %%
# The configuration of a robot model
# ----------------------------------
# A robot model's configuration q has ``model.nq`` numbers and its velocity ``model.nv``.
# :func:`robodyn.neutral` is the zero configuration, :func:`robodyn.random_configuration`
# draws one within the joint limits; :func:`robodyn.integrate` and
# :func:`robodyn.difference` move on the configuration space (a floating base's quaternion
# stays a unit quaternion).
rng = np.random.default_rng(0)
q0 = rd.neutral(model)
q1 = rd.random_configuration(model, rng)
v = rd.difference(model, q0, q1)  # the velocity that takes q0 to q1 in unit time
print("q1 =", np.round(q1, 4))
print("integrate(q0, difference(q0, q1)) - q1 =", rd.integrate(model, q0, v) - q1)
