r"""
Ch. 4-5: forward kinematics, velocity kinematics and statics
=============================================================

Forward kinematics by the product of exponentials (MR eq. 4.14),
:math:`T(\theta) = e^{[S_1]\theta_1} \cdots e^{[S_n]\theta_n} M`, the space and body
Jacobians (MR ch. 5) with rows ``[omega; v]``, the statics :math:`\tau = J^T F`, and
the manipulability ellipsoids.
"""

import matplotlib.pyplot as plt
import numpy as np

import robodyn as rd

np.set_printoptions(precision=4, suppress=True)

# %%
# Forward kinematics
# ------------------
# The bundled UR5 is the Modern Robotics UR5; :func:`robodyn.to_mr` gives its PoE data
# ``(M, Slist, Mlist, Glist)``. ``rd.fk`` on the model and the PoE formula on (M, Slist)
# are the same pose.
model = rd.models.load("ur5")
M, Slist, Mlist, Glist = rd.to_mr(model, "ee")
theta = np.array([0.0, -np.pi / 6, np.pi / 3, 0.2, -0.4, 0.1])
T_se = rd.fk(model, theta, "ee")
print(T_se)
print("PoE in space:", np.allclose(rd.fk_space(M, Slist, theta), T_se))

# %%
# The body form :math:`T = M e^{[B_1]\theta_1} \cdots e^{[B_n]\theta_n}` uses the screw
# axes in the end-effector frame, :math:`B_i = [\mathrm{Ad}_{M^{-1}}] S_i` (MR eq. 4.16):
Blist = rd.adjoint(rd.inv_transform(M)) @ Slist
print("PoE in body:", np.allclose(rd.fk_body(M, Blist, theta), T_se))

# %%
# All the frames of the model at once, and any frame by name:
print(model.frame_names)
print("wrist position:", rd.fk(model, theta, "link5")[:3, 3])

# %%
# Jacobians
# ---------
# ``kind="space"`` is MR's :math:`J_s` (:math:`\mathcal{V}_s = J_s \dot\theta`),
# ``"body"`` is :math:`J_b`, and ``"world_aligned"`` gives the frame origin's velocity in
# world axes. :math:`J_s = [\mathrm{Ad}_{T_{se}}] J_b` (MR eq. 5.22):
J_s = rd.jacobian(model, theta, "ee", kind="space")
J_b = rd.jacobian(model, theta, "ee", kind="body")
print(J_s)
print("J_s = Ad_T J_b:", np.allclose(J_s, rd.adjoint(T_se) @ J_b))
print("same as the PoE Jacobian:", np.allclose(J_s, rd.jacobian_space(Slist, theta)))

# %%
# The Jacobian is the derivative of the pose: for a small joint step,
# :math:`[\mathcal{V}_b] \approx T^{-1} \dot T`. A central difference agrees to ~1e-9:
dtheta = np.array([0.3, -0.2, 0.5, 0.1, 0.4, -0.6])
h = 1e-5
T_plus = rd.fk(model, theta + h * dtheta, "ee")
T_minus = rd.fk(model, theta - h * dtheta, "ee")
V_b_fd = rd.log6(rd.inv_transform(T_minus) @ T_plus) / (2 * h)
print("max |J_b dtheta - V_b (finite difference)| =", np.abs(J_b @ dtheta - V_b_fd).max())

# %%
# Statics
# -------
# The joint torques that hold a wrench :math:`F_b` at the end-effector (expressed in the
# end-effector frame) are :math:`\tau = J_b^T F_b` (MR eq. 5.26). Holding 10 N along the
# gripper's z axis:
F_b = np.array([0, 0, 0, 0, 0, 10.0])  # [m; f]
print("tau = J_b^T F_b =", J_b.T @ F_b)

# %%
# The same torques from the dynamics: ``rd.inverse_dynamics`` with a tip wrench and no
# gravity, velocity or acceleration. Its ``f_tip`` is the wrench the robot applies to the
# environment, in the frame named by ``frame``:
tau = rd.inverse_dynamics(model, theta, np.zeros(6), np.zeros(6), f_tip=F_b, frame="ee")
tau_g = rd.gravity_forces(model, theta)
print("inverse_dynamics - gravity =", tau - tau_g)

# %%
# Manipulability ellipsoids
# -------------------------
# For the planar 2R arm the linear velocity ellipse :math:`\{J_v \dot\theta :
# |\dot\theta| = 1\}` (MR section 5.4) collapses to a segment at the outstretched
# singularity. ``kind="world_aligned"`` gives its axes in world coordinates.
arm = rd.models.load("planar_2r")
fig, ax = plt.subplots(figsize=(6.4, 4.8), layout="constrained")
for i, q2 in enumerate([2.2, 1.4, 0.7, 0.15]):
    q = np.array([0.3, q2])
    pts = np.array([rd.fk(arm, q, f)[:2, 3] for f in ("link1", "link2", "ee")])
    e = rd.velocity_ellipsoid(arm, q, "ee", kind="world_aligned", part="linear")
    s = np.linspace(0, 2 * np.pi, 100)
    ring = e.axes[:2, :2] @ (e.lengths[:2, None] * np.array([np.cos(s), np.sin(s)]))
    color = f"C{i}"
    ax.plot(pts[:, 0], pts[:, 1], "o-", color=color, label=f"q2 = {q2} rad")
    ax.plot(
        pts[-1, 0] + 0.3 * ring[0],
        pts[-1, 1] + 0.3 * ring[1],
        color=color,
        lw=1,
        ls="--",
        label="its velocity ellipse",
    )
    print(f"q2 = {q2}: semi-axes {e.lengths[:2]} (m/s per rad/s)")
ax.set(xlabel="x (m)", ylabel="y (m)", title="2R arm: linear velocity ellipses (x 0.3)")
ax.set_aspect("equal")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()

# %%
# The semi-axes are the singular values of the planar Jacobian (the x, y rows of the
# linear part); the force ellipse's semi-axes are their inverses (MR section 5.4): a
# direction in which the tip moves fast resists forces weakly.
q = np.array([0.3, 0.7])
J_xy = rd.jacobian(arm, q, "ee", kind="world_aligned")[3:5]
sigma = np.linalg.svd(J_xy, compute_uv=False)
print("singular values of J_xy:", sigma)
print(
    "velocity ellipse semi-axes:",
    rd.velocity_ellipsoid(arm, q, "ee", kind="world_aligned").lengths[:2],
)
print("force ellipse semi-axes (N per N m):", 1 / sigma[::-1])
print("manipulability sqrt(det(J J^T)):", np.sqrt(np.linalg.det(J_xy @ J_xy.T)))
