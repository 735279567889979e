"""Exciting trajectories: finite Fourier series within the joint limits (Swevers et al. 1997).

Each joint dof follows ``q_j(t) = q0_j + sum_l (a_jl / (w l)) sin(w l t) - (b_jl / (w l))
cos(w l t)`` with the base pulsation ``w = 2 pi / period``, so ``v_j = sum_l a_jl cos(w l t)
+ b_jl sin(w l t)`` and the motion is periodic (repeat it and average to filter noise). The
coefficients are chosen to minimise the condition number of the stacked base regressor
(columns scaled to unit norm) at ``samples`` instants of one period; every candidate is
first fitted into the joint limits (centred, then scaled down to a margin of the range,
and below the velocity limits), so the limits hold by construction.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.optimize

from ..errors import ModelError
from .base import BaseParameters, base_parameters
from .regressor import regressor

__all__ = ["FourierTrajectory", "excitation_trajectory", "regressor_condition"]


@dataclasses.dataclass(frozen=True)
class FourierTrajectory:
    """A finite Fourier series joint trajectory; ``traj(t) -> (q, v, a)``.

    Attributes
    ----------
    period : float  (s)
    q0 : numpy.ndarray, shape (nv,)  offsets (rad or m)
    a, b : numpy.ndarray, shape (nv, L)  cosine and sine coefficients of v (rad/s or m/s)
    """

    period: float
    q0: np.ndarray
    a: np.ndarray
    b: np.ndarray

    @property
    def harmonics(self) -> int:
        return self.a.shape[1]

    def __call__(self, t):
        """``(q, v, a)`` at times t: shapes (nv,) for a scalar t, (..., nv) for an array."""
        t = np.asarray(t, dtype=float)
        w = 2 * np.pi / self.period
        lw = w * np.arange(1, self.harmonics + 1)  # (L,)
        ph = t[..., None] * lw  # (..., L)
        s, c = np.sin(ph), np.cos(ph)
        q = self.q0 + (s / lw) @ self.a.T - (c / lw) @ self.b.T
        v = c @ self.a.T + s @ self.b.T
        acc = (-s * lw) @ self.a.T + (c * lw) @ self.b.T
        return q, v, acc

    def sample(self, dt: float, periods: float = 1.0):
        """``(t, q, v, a)`` every ``dt`` seconds over ``periods`` periods."""
        t = np.arange(0.0, self.period * periods + 0.5 * dt, dt)
        return (t, *self(t))


def _limits(model, margin: float):
    """Per dof: centre and half-width allowed for q, and the velocity limit."""
    if model.floating_base or model.nq != model.nv:
        raise ModelError(
            "excitation_trajectory needs a fixed-base model of 1-dof joints "
            f"(nq = nv); got nq={model.nq}, nv={model.nv}"
        )
    lo, hi = np.array(model.q_lower, float), np.array(model.q_upper, float)
    finite = np.isfinite(lo) & np.isfinite(hi)
    centre = np.zeros_like(lo)
    half = np.full_like(lo, np.pi)
    centre[finite] = 0.5 * (lo[finite] + hi[finite])
    half[finite] = 0.5 * (hi[finite] - lo[finite])
    half *= 1.0 - margin
    return centre, half, np.array(model.v_limit, float)


def _fit(period, coef, nv, L, centre, half, vmax, grid):
    """The trajectory of raw coefficients fitted into the limits."""
    a, b = coef[: nv * L].reshape(nv, L), coef[nv * L :].reshape(nv, L)
    raw = FourierTrajectory(period, np.zeros(nv), a, b)
    q, v, _ = raw(grid)
    lo, hi = q.min(0), q.max(0)
    span = np.maximum(0.5 * (hi - lo), 1e-12)
    s = np.minimum(1.0, half / span)
    vpeak = np.maximum(np.abs(v).max(0) * s, 1e-12)
    s = s * np.minimum(1.0, 0.9 * vmax / vpeak)
    q0 = centre - s * 0.5 * (hi + lo)
    return FourierTrajectory(period, q0, a * s[:, None], b * s[:, None])


def regressor_condition(model, q, v, a, base: BaseParameters | None = None, **layout) -> float:
    """Condition number of the stacked base regressor at the states (columns scaled).

    Parameters
    ----------
    q : (N, nq); v, a : (N, nv)
    """
    base = base or base_parameters(model, **layout)
    kw = dict(friction=base.friction, offset=base.offset, armature=base.armature)
    W = base.regressor(regressor(model, q, v, a, **kw)).reshape(-1, base.rank)
    W = W / np.maximum(np.linalg.norm(W, axis=0), 1e-300)
    ev = np.linalg.eigvalsh(W.T @ W)  # squared singular values (cheap: r x r)
    return float(np.sqrt(ev[-1] / ev[0])) if ev[0] > 0 else np.inf


def excitation_trajectory(
    model,
    period: float = 10.0,
    harmonics: int = 5,
    *,
    samples: int = 100,
    margin: float = 0.1,
    candidates: int = 8,
    maxiter: int = 20,
    seed: int = 0,
    base: BaseParameters | None = None,
    friction: bool = True,
    offset: bool = False,
    armature: bool = True,
) -> FourierTrajectory:
    """A Fourier-series trajectory within the limits that minimises the regressor's
    condition number.

    Parameters
    ----------
    model : Model
        Fixed base, 1-dof joints.
    period : float
        Period (s); the base frequency is 1 / period.
    harmonics : int
        Number of harmonics L (bandwidth L / period Hz).
    samples : int
        Instants of one period where the condition number is evaluated.
    margin : float
        Fraction of each joint range kept free at both ends (unlimited joints: +-pi).
    candidates : int
        Random starts; the best is refined by L-BFGS-B for ``maxiter`` iterations
        (``maxiter=0``: random search only).
    seed : int
    base, friction, offset, armature
        The base parameters to excite (default: :func:`base_parameters` of this layout).

    Returns
    -------
    FourierTrajectory
        ``.condition`` is not stored; use :func:`regressor_condition` on its samples.
    """
    if period <= 0 or harmonics < 1 or samples < 2:
        raise ValueError("period must be > 0, harmonics >= 1, samples >= 2")
    centre, half, vmax = _limits(model, margin)
    nv, L = model.nv, int(harmonics)
    base = base or base_parameters(model, friction=friction, offset=offset, armature=armature)
    grid = np.linspace(0.0, period, int(samples), endpoint=False)
    fine = np.linspace(0.0, period, max(1000, 40 * L), endpoint=False)  # for the limits
    rng = np.random.default_rng(seed)

    def cost(coef):
        traj = _fit(period, coef, nv, L, centre, half, vmax, fine)
        c = regressor_condition(model, *traj(grid), base=base)
        return float(np.log(c)) if np.isfinite(c) else 1e3

    decay = np.tile(1.0 / np.arange(1, L + 1), 2 * nv)  # smaller high harmonics
    starts = [rng.normal(size=2 * nv * L) * decay for _ in range(max(1, candidates))]
    costs = [cost(x) for x in starts]
    best = starts[int(np.argmin(costs))]
    if maxiter > 0:
        sol = scipy.optimize.minimize(
            cost, best, method="L-BFGS-B", options=dict(maxiter=int(maxiter), eps=1e-4)
        )
        if sol.fun <= min(costs):
            best = sol.x
    return _fit(period, best, nv, L, centre, half, vmax, fine)
