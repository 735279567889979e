r"""
Derivatives, linearization, LQR and JAX
=======================================

robodyn differentiates its dynamics analytically in the compiled core:
``rd.inverse_dynamics_derivatives`` (d tau/dq, d tau/dv, M), ``rd.forward_dynamics_derivatives``
(d a/dq, d a/dv, M^-1), and for frames ``rd.kinematic_hessian`` and the twist and
acceleration derivatives. On them stand ``rd.linearize`` (the state-space matrices, in
continuous time or for one step of the simulator), the regulators ``rd.control.LQR`` and
``rd.control.TVLQR``, and ``robodyn.jax``, which makes the core differentiable inside JAX.

Derivatives in q are taken in the tangent space, the space of v: column k moves q by
``rd.integrate(model, q, eps e_k)``, so a floating base is differentiated on its manifold.
"""

import jax
import jax.numpy as jnp
import matplotlib.pyplot as plt
import numpy as np
import scipy.optimize

import robodyn as rd
import robodyn.jax as rdj

jax.config.update("jax_enable_x64", True)
np.set_printoptions(precision=4, suppress=True)

# %%
# Analytic derivatives against finite differences
# -----------------------------------------------
# The UR5 at a random state: d tau / dq from one recursive pass, and the same matrix by
# central differences of inverse dynamics along the tangent directions.
ur5 = rd.models.load("ur5")
rng = np.random.default_rng(0)
q, v, a = rd.random_configuration(ur5, rng), rng.normal(size=6), rng.normal(size=6)
dtau_dq, dtau_dv, M = rd.inverse_dynamics_derivatives(ur5, q, v, a)
h = 1e-6
fd = np.stack(
    [(rd.inverse_dynamics(ur5, rd.integrate(ur5, q, h * e), v, a)
      - rd.inverse_dynamics(ur5, rd.integrate(ur5, q, -h * e), v, a)) / (2 * h)
     for e in np.eye(6)], axis=1)  # fmt: skip
print("max |analytic - differences| =", np.abs(dtau_dq - fd).max())
print("d tau/da is M:", np.allclose(M, rd.mass_matrix(ur5, q)))

# %%
# The pendulum upright: linearization and LQR
# -------------------------------------------
# The bundled pendulum (1 kg at 1 m) upright is unstable: ``A`` has an eigenvalue
# ``+sqrt(g/l)``.
pend = rd.models.load("pendulum")
A, B = rd.linearize(pend, [np.pi], [0.0], [0.0])
print("A =\n", A, "\nB =\n", B, "\neigenvalues:", np.linalg.eigvals(A))

lqr = rd.control.LQR(pend, [np.pi], Q=[100.0, 1.0], R=1.0)
print("K =", lqr.K, " closed-loop poles:", lqr.poles)
held = rd.simulate(pend, [np.pi - 0.3], [0.0], controller=lqr, duration=3.0, dt=1e-3)

fig, ax = plt.subplots(figsize=(6.4, 3.2))
ax.plot(held.t, np.degrees(held.q[:, 0] - np.pi), label="LQR, 0.3 rad off upright")
ax.axhline(0.0, color="0.6", lw=0.8)
ax.set_xlabel("time (s)")
ax.set_ylabel("angle from upright (deg)")
ax.legend(loc="upper right", frameon=False)
ax.set_title("The pendulum held upright")
fig.tight_layout()

# %%
# The UR5 held at a pose with a wrong model
# -----------------------------------------
# The controller is designed on the nominal UR5; the robot it drives is 10 % heavier
# (``rd.control.perturbed``) and starts with 1 rad/s on every joint. The default weights
# close each joint at 10 rad/s, as ``rd.control.gains_for`` sets PD gains. Without
# integral action the wrong gravity leaves a small offset.
q_ref = rd.neutral(ur5) + 0.3
robot = rd.control.perturbed(ur5, 1.1)
ctrl = rd.control.LQR(ur5, q_ref)
run = rd.simulate(robot, q_ref, np.ones(6), controller=ctrl, duration=2.0, dt=1e-3)
print("final |q - q_ref| =", np.abs(run.q[-1] - q_ref).max(), "rad")

fig, ax = plt.subplots(figsize=(6.4, 3.2))
for j in range(6):
    ax.plot(run.t, np.degrees(run.q[:, j] - q_ref[j]), label=f"joint {j + 1}")
ax.set_xlabel("time (s)")
ax.set_ylabel("q - q_ref (deg)")
ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
ax.set_title("UR5: LQR against a 10 % mass error and an impulse")
fig.tight_layout()

# %%
# TVLQR: a swing-up
# -----------------
# A quintic from hanging to upright in 2 s; the reference's torques are its inverse
# dynamics. Started 0.2 rad off the reference, the feedforward alone misses the top;
# TVLQR (the Riccati recursion backwards over the linearized steps) joins the reference
# and holds the top with the infinite-horizon gain there.
ref = rd.trajectory.joint_trajectory([0.0], [np.pi], 2.0)
tvlqr = rd.control.TVLQR(pend, ref, Q=[1000.0, 10.0], R=1.0, dt=0.01)
tracked = rd.simulate(pend, [0.2], [0.0], controller=tvlqr, duration=3.0, dt=1e-3)
open_loop = rd.simulate(pend, [0.2], [0.0], duration=3.0, dt=1e-3,
                        controller=lambda t, q, v: tvlqr.tau_ref[tvlqr._index(t)])  # fmt: skip

fig, ax = plt.subplots(figsize=(6.4, 3.2))
t = tracked.t
ax.plot(t, np.degrees(ref(np.minimum(t, 2.0))[0][:, 0]), "k--", lw=1, label="reference")
ax.plot(t, np.degrees(tracked.q[:, 0]), label="TVLQR")
ax.plot(t, np.degrees(open_loop.q[:, 0]), label="feedforward only")
ax.set_xlabel("time (s)")
ax.set_ylabel("angle (deg)")
ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
ax.set_title("Pendulum swing-up")
fig.tight_layout()

# %%
# A gradient through a rollout with JAX
# -------------------------------------
# ``robodyn.jax.step`` is one step of the simulator as a JAX function whose derivative
# comes from ``rd.linearize``; ``jax.lax.scan`` of it is a differentiable rollout. Here a
# 2R arm's torque sequence is tweaked (scipy's L-BFGS on JAX's gradient) so that its tip
# ends at a target after 0.4 s, with a small penalty on the torques beyond those that hold
# the start.
arm = rd.models.load("planar_2r")
q0, v0 = np.array([0.0, 0.5]), np.zeros(2)
dt, n = 0.01, 40
target = np.array([0.4, 0.6])


def tip_at_end(taus):
    def body(x, tau):
        return rdj.step(arm, x[0], x[1], tau, dt), None

    (qn, _), _ = jax.lax.scan(body, (jnp.asarray(q0), jnp.asarray(v0)), taus)
    return rdj.fk(arm, qn, "ee")[:2, 3]


hold = rd.gravity_forces(arm, q0)  # the torques that hold the initial pose


def loss(taus):
    return jnp.sum((tip_at_end(taus) - target) ** 2) + 1e-7 * jnp.sum((taus - hold) ** 2)


value_and_grad = jax.jit(jax.value_and_grad(loss))
history = []


def fun(x):  # scipy's L-BFGS with JAX's gradient through the rollout
    value, g = value_and_grad(x.reshape(n, 2))
    history.append(float(value))
    return float(value), np.asarray(g).ravel()


start = np.tile(hold, n)
best = scipy.optimize.minimize(fun, start, jac=True, method="L-BFGS-B", options={"maxiter": 60})
taus = best.x.reshape(n, 2)
print(
    f"loss {history[0]:.3g} -> {history[-1]:.3g} in {len(history)} evaluations; "
    f"tip at the end: {np.asarray(tip_at_end(taus))} (target {target})"
)

fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(8.0, 3.2))
ax0.semilogy(history)
ax0.set_xlabel("evaluation")
ax0.set_ylabel("loss (m^2)")
ax0.set_title("Descent")
steps = np.arange(n) * dt
ax1.plot(steps, taus[:, 0], label="joint 1")
ax1.plot(steps, taus[:, 1], label="joint 2")
ax1.set_xlabel("time (s)")
ax1.set_ylabel("torque (N m)")
ax1.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
ax1.set_title("Tweaked torques")
fig.tight_layout()
