"""Geometric paths (MR sec. 9.1): ``theta(s)`` for s in [0, 1], with no time yet.

A path is callable, ``path(s) -> (q, dq/ds, d2q/ds2)``: shapes (n,) for a scalar s,
(K, n) for s of shape (K,). :func:`robodyn.trajectory.time_optimal` times any such
callable; these two are the book's:

* :func:`joint_path`: the straight line ``theta(s) = theta_start + s (theta_end -
  theta_start)`` (MR eq. 9.1), ``dtheta/ds`` constant, ``d2theta/ds2 = 0``;
* :func:`spline_path`: a spline through via points at ``s_knots`` (MR sec. 9.3, with s in
  place of t), scipy's, with zero slope ``dtheta/ds`` at both ends by default.
"""

from __future__ import annotations

import numpy as np

from .paths import _interpolant, _point

__all__ = ["JointPath", "SplinePath", "joint_path", "spline_path"]


def _on_path(s) -> np.ndarray:
    """s as a float array in [0, 1] (a path has no points outside; round-off of 1e-12
    beyond an end is clipped)."""
    try:
        s = np.asarray(s, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(
            f"s must be a number or an array of numbers, got {type(s).__name__}"
        ) from None
    if not np.all(np.isfinite(s)) or np.any(s < -1e-12) or np.any(s > 1.0 + 1e-12):
        raise ValueError("s must lie in [0, 1] (finite)")
    return np.clip(s, 0.0, 1.0)


class JointPath:
    """The straight line in joint space ``theta(s) = theta_start + s (theta_end -
    theta_start)`` (MR eq. 9.1): ``path(s) -> (q, dq/ds, d2q/ds2)``."""

    def __init__(self, q_start: np.ndarray, q_end: np.ndarray):
        self.q_start, self.q_end = q_start, q_end
        self.nq = q_start.shape[0]
        self._d = q_end - q_start

    def __call__(self, s):
        s = _on_path(s)
        ones = np.ones(s.shape + (1,))
        return (
            self.q_start + s[..., None] * self._d,
            ones * self._d,
            np.zeros(s.shape + (self.nq,)),
        )

    def describe(self) -> dict:
        """This path as JSON."""
        return {
            "class": "JointPath",
            "q_start": self.q_start.tolist(),
            "q_end": self.q_end.tolist(),
        }

    def __repr__(self) -> str:
        return f"<JointPath {self.nq} joints>"


class SplinePath:
    """A spline through via points on s in [0, 1] (MR sec. 9.3): ``path(s) -> (q, dq/ds,
    d2q/ds2)`` from scipy's spline and its first two derivatives."""

    def __init__(self, spline, s_knots: np.ndarray, q_knots: np.ndarray):
        self.spline, self.s_knots, self.q_knots = spline, s_knots, q_knots
        self.nq = q_knots.shape[1]

    def __call__(self, s):
        s = _on_path(s)
        return self.spline(s), self.spline(s, 1), self.spline(s, 2)

    def describe(self) -> dict:
        """This path as JSON: its spline's kind, knots and via points."""
        return {
            "class": "SplinePath",
            "spline": type(self.spline).__name__,
            "s_knots": self.s_knots.tolist(),
            "q_knots": self.q_knots.tolist(),
        }

    def __repr__(self) -> str:
        return f"<SplinePath {self.nq} joints, {len(self.s_knots)} via points>"


def joint_path(q_start, q_end) -> JointPath:
    """The straight line from q_start to q_end in joint space (MR eq. 9.1), as a path of s.

    Parameters
    ----------
    q_start, q_end : array_like, shape (n,)
        Joint positions (rad, m).

    Returns
    -------
    JointPath
        ``path(s) -> (q, dq/ds, d2q/ds2)`` for s in [0, 1]: ``q_start + s (q_end -
        q_start)``, ``q_end - q_start``, zero; shapes (n,) or (K, n) for s of shape (K,).
    """
    a = _point(q_start, "q_start")
    return JointPath(a, _point(q_end, "q_end", a.shape[0]))


def spline_path(q_knots, s_knots=None, v_knots=None, kind: str = "cubic") -> SplinePath:
    """A path through via points (MR sec. 9.3), as a function of s in [0, 1].

    Parameters
    ----------
    q_knots : array_like, shape (K, n)
        The via points, K >= 2, the first and last the path's ends.
    s_knots : array_like, shape (K,), optional
        Where along the path each via point lies: increasing, from 0 to 1 (default
        evenly spaced, ``linspace(0, 1, K)``).
    v_knots : array_like, shape (K, n), optional
        ``dq/ds`` at the via points: a cubic Hermite spline (MR eq. 9.26). Otherwise
        "cubic" is scipy's ``CubicSpline`` with zero ``dq/ds`` at both ends (clamped) and
        "quintic" a degree-5 spline with zero ``dq/ds`` and ``d2q/ds2`` at both ends.
    kind : {"cubic", "quintic"}

    Returns
    -------
    SplinePath
        ``path(s) -> (q, dq/ds, d2q/ds2)``; shapes (n,) or (K, n) for s of shape (K,).
    """
    q = np.asarray(q_knots, dtype=float)
    if q.ndim != 2 or q.shape[0] < 2:
        raise ValueError(f"q_knots must have shape (K, n) with K >= 2 via points, got {q.shape}")
    if s_knots is None:
        s = np.linspace(0.0, 1.0, q.shape[0])
    else:
        s = _point(s_knots, "s_knots", q.shape[0])
        if np.any(np.diff(s) <= 0) or s[0] != 0.0 or s[-1] != 1.0:
            raise ValueError(f"s_knots must increase from 0 to 1, got {s}")
    spline = _interpolant(s, q, v_knots, kind, ("q_knots", "v_knots"))
    return SplinePath(spline, s, q)
