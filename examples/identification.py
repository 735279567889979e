"""Identify the UR5's inertial parameters and joint friction from a simulated experiment.

1. The "true" robot is the bundled UR5 with joint friction and armature added; the prior
   model (what a URDF would say) has every body 30 % too heavy.
2. An exciting trajectory: a 5-harmonic Fourier series per joint, within +-0.9 pi, its
   coefficients chosen to minimise the condition number of the base regressor.
3. ``rd.simulate`` runs the true robot under computed-torque tracking for two 10 s periods;
   the torques get Gaussian noise (20 % of each joint's torque standard deviation).
4. The first 70 % of the samples are identified by OLS, WLS and the physically consistent
   (log-Cholesky) estimator; the rest tests the predicted torques.

Prints each estimate's report and writes out/identification/identification.png (measured
vs predicted torques and the base-parameter errors).

    python examples/identification.py [outdir]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import robodyn as rd
from robodyn.ident import excitation_trajectory, regressor_condition, simulate_experiment
from robodyn.ident.plot import plot_identification


def main(outdir: str = "out/identification") -> int:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    ur5 = rd.models.load("ur5")
    nb, nv = ur5.nb - 1, ur5.nv

    # 1. the truth: the UR5 with friction (viscous, Coulomb) and armature
    pi = rd.parameters(ur5)
    pi[10 * nb : 10 * nb + nv] = 0.8  # viscous, N m s/rad
    pi[10 * nb + nv : 10 * nb + 2 * nv] = 0.5  # Coulomb, N m
    pi[10 * nb + 2 * nv :] = 0.02  # armature, kg m^2
    true = ur5.with_parameters(pi)
    prior_pi = pi.copy()
    prior_pi[: 10 * nb] *= 1.3
    prior = ur5.with_parameters(prior_pi)

    # 2. the exciting trajectory
    base = rd.base_parameters(true)
    print(f"{base.rank} base parameters of {base.size} standard ones")
    traj = excitation_trajectory(
        true, period=10.0, harmonics=5, maxiter=0, candidates=12, base=base
    )
    _, q, v, a = traj.sample(0.1)
    cond = regressor_condition(true, q, v, a, base)
    print(f"condition number of the base regressor on it: {cond:.3g}")

    # 3. the experiment
    ex = simulate_experiment(true, traj, duration=20.0, sample_dt=0.04, noise=0.2, seed=1)
    fit, test = ex.split(0.7)

    # 4. the estimates
    results = {}
    for method in ("ols", "wls", "consistent"):
        res = rd.identify(prior, fit.q, fit.v, fit.a, fit.tau, method=method, base=base)
        results[method] = res
        rms = np.sqrt(np.mean((res.predict(test.q, test.v, test.a) - test.tau_true) ** 2))
        err = np.linalg.norm(res.base_parameters - base(pi)) / np.linalg.norm(base(pi))
        print(f"\n{res.report()}")
        print(f"held-out torque error (vs noise-free) RMS {rms:.4g} N m; base parameters "
              f"{100 * err:.3g} % from the truth")  # fmt: skip
    prior_rms = np.sqrt(
        np.mean((rd.inverse_dynamics(prior, test.q, test.v, test.a) - test.tau_true) ** 2)
    )
    print(f"\nthe prior model's held-out torque error RMS: {prior_rms:.4g} N m")
    path = out / "identification.png"
    # this script's own figure: a new run replaces it
    plot_identification(results, ex, path, truth=pi, held_out=float(test.t[0]), overwrite=True)
    print(f"figure: {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(*sys.argv[1:2]))
