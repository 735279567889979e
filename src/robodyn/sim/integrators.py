"""Integrators for ``qdot = v, vdot = a(t, q, v)`` on the configuration manifold.

Positions move with :func:`plus` (``q (+) dq``: ``q + dq`` for 1-dof joints, ``T exp6(dq)``
for a free joint, as :func:`robodyn.integrate`), never by adding to a quaternion.

* ``euler``: explicit Euler, MR's EulerStep: ``q1 = q (+) v h``, ``v1 = v + a h``.
* ``semi_implicit_euler``: velocity first, then position with the new velocity,
  ``v1 = v + a h``, ``q1 = q (+) v1 h`` (the update of course notes 003's simulate loop).
  Symplectic only where M is constant (one joint, a point mass: the energy error stays
  bounded). A robot's M(q) makes this update in (q, v) an ordinary first-order method
  (the symplectic form lives in (q, p = M v)), with no bound on its energy error: the
  bundled Panda falling freely from neutral + 0.3 rad at 1 ms diverges within ~8 s, where
  explicit Euler gains ~100 % of its energy in 100 s and RK4 changes it by 4e-6.
* ``rk4``: the classical Runge-Kutta method in the chart at q (Munthe-Kaas): each stage's
  position is ``q (+) delta_i`` and its chart rate ``J_r(delta_i)^-1 v_i``, so a free
  joint keeps fourth order (for 1-dof joints ``J_r = 1`` and this is plain RK4).

Each step takes ``rate(t, q, v, z) -> (a, dz)`` (z: a controller's own state, integrated
alongside) and returns ``(q1, v1, z1, a1, extra)`` where ``a1`` is the first stage's
acceleration (the sample's). The adaptive methods use scipy's ``solve_ivp``
(:mod:`robodyn.sim.simulate`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["Chart", "euler_step", "semi_implicit_euler_step", "rk4_step", "STEPS"]


def _ad(x: np.ndarray) -> np.ndarray:
    """ad_x = [[w^, 0], [v^, w^]] for twists x = [w, v] of shape (..., 6) (MR eq. 8.38)."""
    out = np.zeros((*x.shape[:-1], 6, 6))
    for o, (a, b, c) in ((0, (0, 1, 2)), (3, (3, 4, 5))):
        wx, wy, wz = x[..., a], x[..., b], x[..., c]
        blk = np.stack([np.stack([0 * wx, -wz, wy], -1), np.stack([wz, 0 * wx, -wx], -1),
                        np.stack([-wy, wx, 0 * wx], -1)], -2)  # fmt: skip
        if o == 0:
            out[..., 0:3, 0:3] = blk
            out[..., 3:6, 3:6] = blk
        else:
            out[..., 3:6, 0:3] = blk
    return out


def dexp_inv(delta: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``J_r(delta)^-1 x``: the chart rate of ``T exp6(delta)`` moving with body twist x.

    ``d/dt exp6(delta) = exp6(delta) [J_r(delta) delta_dot]`` with
    ``J_r(delta) = sum_k (-ad_delta)^k / (k + 1)!`` (the right-trivialised dexp), summed
    until its terms vanish and solved for delta_dot.
    """
    A = -_ad(delta)
    J = np.broadcast_to(np.eye(6), A.shape).copy()
    term = J.copy()
    for k in range(1, 40):
        term = term @ A / (k + 1)
        J += term
        if np.max(np.abs(term)) < 1e-18:
            break
    return np.linalg.solve(J, x[..., None])[..., 0]


class Chart:
    """``q (+) dq`` and the chart rates for one model (plain data: index arrays)."""

    def __init__(self, model):
        from ..model.configuration import _joint_slices

        self.model = model
        sl = _joint_slices(model)
        # (v index, constant S (6, n)) of each Lie-group joint: its rate is S^T dexp^-1
        # on the twist S v (a free joint's S = 1_6; spherical and planar joints span
        # subalgebras of se(3) with orthonormal columns, which dexp^-1 preserves)
        lie = [(va, model.joint_subspace(int(model.dof_body[va])))
               for _, va in sl.free + sl.spherical + sl.planar]  # fmt: skip
        self.free = [(int(va), S) for va, S in lie]
        self.flat = not self.free  # every coordinate is a vector: q (+) dq = q + dq

    def plus(self, q: np.ndarray, dq: np.ndarray) -> np.ndarray:
        """``q (+) dq`` (:func:`robodyn.integrate` with dt = 1, the compiled core; NaN
        passes through to the loop's own divergence check)."""
        if self.flat:
            return q + dq
        from ..kinematics.configuration import integrate

        return integrate(self.model, q, dq, check=False)

    def rate(self, delta: np.ndarray, v: np.ndarray) -> np.ndarray:
        """The chart rate ``d delta / dt`` of ``q (+) delta`` moving with velocity v."""
        if self.flat:
            return v
        out = np.array(v, copy=True)
        for va, S in self.free:
            n = S.shape[1]
            x = dexp_inv(delta[..., va : va + n] @ S.T, v[..., va : va + n] @ S.T)
            out[..., va : va + n] = x @ S
        return out


def euler_step(chart: Chart, rate, t: float, q, v, z, h: float):
    """Explicit Euler (MR's EulerStep): ``q1 = q (+) v h, v1 = v + a h``."""
    a, dz = rate(t, q, v, z)
    z1 = None if z is None else z + h * dz
    return chart.plus(q, h * v), v + h * a, z1, a


def semi_implicit_euler_step(chart: Chart, rate, t: float, q, v, z, h: float):
    """Semi-implicit (symplectic) Euler: ``v1 = v + a h, q1 = q (+) v1 h``."""
    a, dz = rate(t, q, v, z)
    v1 = v + h * a
    z1 = None if z is None else z + h * dz
    return chart.plus(q, h * v1), v1, z1, a


def rk4_step(chart: Chart, rate, t: float, q, v, z, h: float):
    """Classical RK4 in the chart at q (for 1-dof joints exactly the textbook method)::

    k_i = (J_r(delta_i)^-1 v_i, a(t_i, q (+) delta_i, v_i)),  delta_1 = 0
    q1 = q (+) h/6 (k1 + 2 k2 + 2 k3 + k4)_q,  v1 = v + h/6 (k1 + 2 k2 + 2 k3 + k4)_v
    """
    if chart.flat and z is None:
        return _rk4_flat(rate, t, q, v, h)
    h2 = 0.5 * h
    a1, dz1 = rate(t, q, v, z)
    d2 = h2 * v
    v2 = v + h2 * a1
    z2 = None if z is None else z + h2 * dz1
    a2, dz2 = rate(t + h2, chart.plus(q, d2), v2, z2)
    r2 = chart.rate(d2, v2)
    d3 = h2 * r2
    v3 = v + h2 * a2
    z3 = None if z is None else z + h2 * dz2
    a3, dz3 = rate(t + h2, chart.plus(q, d3), v3, z3)
    r3 = chart.rate(d3, v3)
    d4 = h * r3
    v4 = v + h * a3
    z4 = None if z is None else z + h * dz3
    a4, dz4 = rate(t + h, chart.plus(q, d4), v4, z4)
    r4 = chart.rate(d4, v4)
    h6 = h / 6.0
    q1 = chart.plus(q, h6 * (v + 2.0 * (r2 + r3) + r4))
    v1 = v + h6 * (a1 + 2.0 * (a2 + a3) + a4)
    z1 = None if z is None else z + h6 * (dz1 + 2.0 * (dz2 + dz3) + dz4)
    return q1, v1, z1, a1


def _rk4_flat(rate, t: float, q, v, h: float):
    """rk4_step for 1-dof joints only and no controller state: the same arithmetic, with
    q (+) d = q + d written out (the hot loop of a single rollout)."""
    h2 = 0.5 * h
    a1 = rate(t, q, v, None)[0]
    v2 = v + h2 * a1
    a2 = rate(t + h2, q + h2 * v, v2, None)[0]
    v3 = v + h2 * a2
    a3 = rate(t + h2, q + h2 * v2, v3, None)[0]
    v4 = v + h * a3
    a4 = rate(t + h, q + h * v3, v4, None)[0]
    h6 = h / 6.0
    return q + h6 * (v + 2.0 * (v2 + v3) + v4), v + h6 * (a1 + 2.0 * (a2 + a3) + a4), None, a1


STEPS = {"euler": euler_step, "semi_implicit_euler": semi_implicit_euler_step, "rk4": rk4_step}
