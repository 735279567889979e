r"""
Ch. 3: rigid-body motions
=========================

Rotations are 3x3 matrices in SO(3), poses 4x4 matrices in SE(3). A rotation is the
exponential of an angular velocity held for unit time, :math:`R = e^{[\hat\omega]\theta}`
(MR eq. 3.51, Rodrigues' formula); a pose is the exponential of a twist
:math:`\mathcal{V} = (\omega, v)` (MR section 3.3.3). robodyn orders twists angular first,
``[omega, v]``, and wrenches ``[m, f]``, as the book does.
"""

import numpy as np

import robodyn as rd

np.set_printoptions(precision=4, suppress=True)

# %%
# Rotations: skew, exp3, log3
# ---------------------------
# ``skew(w)`` is :math:`[\omega]`, so that ``skew(w) @ x == np.cross(w, x)``.
w = np.array([1.0, 2.0, 3.0])
print(rd.skew(w))
print("unskew(skew(w)) =", rd.unskew(rd.skew(w)))

# %%
# A rotation by 90 degrees about z, from the exponential coordinates
# :math:`\hat\omega\theta = (0, 0, \pi/2)`:
R = rd.exp3([0, 0, np.pi / 2])
print(R)

# %%
# The matrix logarithm gives the exponential coordinates back (MR section 3.2.3):
print("log3(R) =", rd.log3(R))

# %%
# The rotation about :math:`\hat\omega = (0, 0.866, 0.5)` by 30 degrees.
omega_hat = np.array([0.0, 0.866, 0.5])
R_ex = rd.exp3(omega_hat * np.deg2rad(30))
print(R_ex)

# %%
# Poses: transform, exp6, log6
# ----------------------------
# ``transform(R, p)`` builds :math:`T = (R, p)`; ``inv_transform`` its inverse
# :math:`(R^T, -R^T p)` (MR section 3.3.1).
T_sb = rd.transform(R, [1.0, 2.0, 0.0])
print(T_sb)
print("T^-1 T =\n", rd.inv_transform(T_sb) @ T_sb)

# %%
# A screw motion: rotate by pi/2 about the z axis through (0, 1, 0) while translating
# 0.5 along it. Screw axis S = (omega, -omega x q + h omega) with pitch h (MR section 3.3.2).
S = rd.spatial.screw_axis(q=[0.0, 1.0, 0.0], s=[0.0, 0.0, 1.0], h=0.5 / (np.pi / 2))
T = rd.exp6(S * np.pi / 2)
print("S =", S)
print(T)

# %%
# ``log6`` returns the twist :math:`S\theta` (a 6-vector, ``[omega, v]``):
print("log6(T) =", rd.log6(T), " S theta =", S * np.pi / 2)

# %%
# Changing frames: the adjoint
# ----------------------------
# A twist in {b} is :math:`\mathcal{V}_s = [\mathrm{Ad}_{T_{sb}}] \mathcal{V}_b` in {s}
# (MR section 3.3.2); a wrench moves with the transpose,
# :math:`F_b = [\mathrm{Ad}_{T_{sb}}]^T F_s` (MR section 3.4), so the power
# :math:`V^T F` is the same in both frames.
V_b = np.array([0.0, 0.0, 1.0, 0.5, 0.0, 0.0])
Ad = rd.adjoint(T_sb)
V_s = Ad @ V_b
F_s = np.array([0.0, 0.0, 0.2, 1.0, -1.0, 0.0])
F_b = Ad.T @ F_s
print("V_s =", V_s)
print("power in {s}:", V_s @ F_s, " in {b}:", V_b @ F_b)

# %%
# ``ad(V)`` is the Lie bracket :math:`[\mathrm{ad}_{\mathcal{V}}]` (MR section 8.2.2),
# the derivative of the adjoint at the identity:
# :math:`\frac{d}{dt}\mathrm{Ad}_{e^{[V]t}}\big|_{t=0} = [\mathrm{ad}_V]`.
# Checked here by a central difference:
eps = 1e-6
dAd = (rd.adjoint(rd.exp6(V_b * eps)) - rd.adjoint(rd.exp6(-V_b * eps))) / (2 * eps)
print("max |dAd/dt - ad(V)| =", np.abs(dAd - rd.ad(V_b)).max())

# %%
# Other parametrisations
# ----------------------
# Roll-pitch-yaw angles (URDF: :math:`R = R_z(y) R_y(p) R_x(r)`) and unit quaternions
# ordered ``(w, x, y, z)``:
R_rpy = rd.spatial.rpy_to_rotation([0.1, -0.2, 0.3])
print("rpy back:", rd.spatial.rotation_to_rpy(R_rpy))
quat = rd.spatial.rotation_to_quat(R_rpy)
print("quaternion (w, x, y, z):", quat)
print("same rotation:", np.allclose(rd.spatial.quat_to_rotation(quat), R_rpy))

# %%
# Batches: every function takes leading dimensions, numpy style; here 1,000 random
# exponential coordinates at once.
rng = np.random.default_rng(1)
Rs = rd.exp3(rng.normal(size=(1000, 3)))
print(Rs.shape, "all rotations:", bool(np.all(rd.spatial.is_rotation(Rs))))
