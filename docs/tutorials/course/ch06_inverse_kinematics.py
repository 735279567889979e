r"""
Ch. 6: inverse kinematics
=========================

Numerical inverse kinematics (MR section 6.2) iterates on the body-twist error
:math:`\mathcal{V}_b = \log(T_{sb}(\theta)^{-1} T_{sd})` until both its angular and
linear parts are below tolerance. :func:`robodyn.ik` uses damped least squares
(:math:`\Delta\theta = J_b^T (J_b J_b^T + \lambda^2 I)^{-1} \mathcal{V}_b`), keeps the
joints within their limits and restarts from random configurations when an iteration
stalls.
"""

import matplotlib.pyplot as plt
import numpy as np

import robodyn as rd

np.set_printoptions(precision=4, suppress=True)

# %%
# A reachable target
# ------------------
# Take the UR5's pose at known joint angles as the target, then solve from the neutral
# configuration.
model = rd.models.load("ur5")
theta_true = np.array([0.4, -0.9, 1.2, -0.5, 0.8, 0.3])
T_target = rd.fk(model, theta_true, "ee")
sol = rd.ik(model, "ee", T_target, q0=rd.neutral(model))
print(sol.success, sol.iterations, sol.message)
print("theta =", sol.q)
print("pose error |log6(T^-1 T_target)| =", sol.error)
print("max |fk(theta) - T_target| =", np.abs(rd.fk(model, sol.q, "ee") - T_target).max())

# %%
# The solution need not be ``theta_true``: the UR5 reaches most poses in up to eight
# ways (shoulder, elbow and wrist flips). Another start finds another branch:
sol2 = rd.ik(model, "ee", T_target, q0=np.array([2.0, -2.0, -1.0, 1.0, -1.0, 0.0]))
print(sol2.success, "theta =", sol2.q)

# %%
# Newton-Raphson, step by step
# ----------------------------
# The iteration MR's IKinBody runs (undamped Newton-Raphson) written out on the planar
# 2R arm, for a target position of the tip: the position error falls quadratically once
# the iterate is close.
arm = rd.models.load("planar_2r")
x_goal = np.array([0.55, 0.45])
q = np.array([0.3, 0.4])
errors = []
for _ in range(8):
    x = rd.fk(arm, q, "ee")[:2, 3]
    e = x_goal - x
    errors.append(np.linalg.norm(e))
    J = rd.jacobian(arm, q, "ee", kind="world_aligned")[3:5]  # rows vx, vy
    q = q + np.linalg.solve(J, e)
print("errors (m):", np.array(errors))

fig, ax = plt.subplots(layout="constrained")
ax.semilogy(np.arange(len(errors)), np.maximum(errors, 1e-17), "o-", label="|x_goal - x|")
ax.set(
    xlabel="Newton-Raphson step (count)",
    ylabel="tip position error (m)",
    title="Newton-Raphson on the 2R arm",
)
ax.legend(loc="upper right")
plt.show()

# %%
# Unreachable targets
# -------------------
# A target beyond the arm's reach fails cleanly: ``success`` is False and the message
# says why; the last iterate is the closest the solver came.
far = rd.transform(np.eye(3), [2.0, 0.0, 0.5])
bad = rd.ik(model, "ee", far, q0=rd.neutral(model), restarts=3)
print(bad.success, bad.message)
print("closest tip position:", rd.fk(model, bad.q, "ee")[:3, 3])
