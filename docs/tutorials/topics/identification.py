r"""
Identifying a robot's parameters
================================

The joint torques are linear in the inertial parameters:
:math:`\tau = Y(q, \dot q, \ddot q)\,\pi`, with 10 numbers per body (mass, first moments
:math:`m c`, the six entries of the inertia tensor about the joint frame), plus joint
friction and rotor inertia. :mod:`robodyn.ident` builds the regressor :math:`Y`, reduces
:math:`\pi` to the base parameters the data can determine, and estimates them from
measured motion and torques (ordinary and weighted least squares, or a physically
consistent fit).
"""

import matplotlib.pyplot as plt
import numpy as np

import robodyn as rd

np.set_printoptions(precision=5, suppress=True)

# %%
# The regressor
# -------------
# On the 2R arm of the course, :math:`Y \pi` is the inverse dynamics:
arm = rd.models.load("planar_2r")
pi = rd.parameters(arm)
rng = np.random.default_rng(0)
q, v, a = rng.normal(size=(3, arm.nv))
Y = rd.regressor(arm, q, v, a)
print("Y:", Y.shape, " pi:", pi.shape)
print("Y pi =", Y @ pi, "  RNEA =", rd.inverse_dynamics(arm, q, v, a))

# %%
# Base parameters
# ---------------
# Not every parameter shows in the torques (a planar arm's inertia about x and y never
# does); the base parameters are the combinations that do.
base = rd.base_parameters(arm)
print(f"{base.rank} base parameters of {base.size} standard ones")

# %%
# An experiment
# -------------
# The "true" robot is the arm with joint friction added; the prior model a designer would
# start from is 30 % too heavy. A simulated experiment tracks an exciting trajectory and
# records noisy torques; 70 % of the samples are used for the fit, the rest to test it.
nb, nv = arm.nb - 1, arm.nv
pi_true = pi.copy()
pi_true[10 * nb : 10 * nb + nv] = 0.3  # viscous friction, N m s/rad
pi_true[10 * nb + nv : 10 * nb + 2 * nv] = 0.2  # Coulomb friction, N m
true = arm.with_parameters(pi_true)
prior_pi = pi_true.copy()
prior_pi[: 10 * nb] *= 1.3
prior = arm.with_parameters(prior_pi)
ex = rd.ident.simulate_experiment(true, duration=10.0, sample_dt=0.02, noise=0.05, seed=1)
fit, test = ex.split(0.7)
print("samples: fit", fit.q.shape[0], " test", test.q.shape[0])

# %%
# Least squares on the fit samples recovers the base parameters; the held-out torques
# are predicted to the noise level, where the prior model is far off.
res = rd.identify(prior, fit.q, fit.v, fit.a, fit.tau, method="ols")
err = np.linalg.norm(res.base_parameters - base(pi_true)) / np.linalg.norm(base(pi_true))
pred = res.predict(test.q, test.v, test.a)
rms = np.sqrt(np.mean((pred - test.tau_true) ** 2))
rms_prior = np.sqrt(
    np.mean((rd.inverse_dynamics(prior, test.q, test.v, test.a) - test.tau_true) ** 2)
)
print(f"base parameters {100 * err:.2f} % from the truth")
print(f"held-out torque error RMS: identified {rms:.4f} N m, prior {rms_prior:.4f} N m")

fig, axs = plt.subplots(2, 1, sharex=True, figsize=(7, 5), layout="constrained")
for j, ax in enumerate(axs):
    ax.plot(test.t, test.tau[:, j], ".", ms=3, color="0.6", label="measured (noisy)")
    ax.plot(test.t, pred[:, j], label="identified model")
    ax.set(ylabel=f"tau{j + 1} (N m)")
axs[0].set(title="held-out torques of the 2R arm")
axs[1].set(xlabel="t (s)")
axs[0].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
plt.show()
