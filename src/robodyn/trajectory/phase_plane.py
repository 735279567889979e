"""The limits of a path in MR's (s, s_dot) phase plane (sec. 9.4.1), on a grid.

Along a path ``theta(s)``, s in [0, 1], the robot's dynamics ``M theta_dd + theta_d^T Gamma
theta_d + g = tau`` with ``theta_d = theta' s_dot`` and ``theta_dd = theta' s_dd + theta''
s_dot^2`` (' is d/ds) become (MR eq. 9.36)::

    tau = m(s) s_dd + c(s) s_dot^2 + g(s),
    m(s) = M theta',  c(s) = M theta'' + theta'^T Gamma theta',  g(s) = g(theta(s))

so every actuator limit ``tau_min <= tau <= tau_max`` is linear in ``u = s_dd`` and ``x =
s_dot^2``, and so are joint velocity limits (``theta'^2 x <= v_max^2``) and acceleration
limits (``|theta' u + theta'' x| <= a_max``). On the grid ``s_0 = 0 < ... < s_N = 1``
(step Delta) with ``s_dd = u_i`` constant on interval i, ``x_{i+1} = x_i + 2 Delta u_i``
exactly (``d(s_dot^2)/ds = 2 s_dd``), and every limit is kept at both ends of every
interval (at ``s_i`` with ``(x_i, u_i)``, at ``s_{i+1}`` with ``(x_i + 2 Delta u_i, u_i)``),
so each grid point keeps its limits with the acceleration before it and the one after.
:mod:`robodyn.trajectory.reachability` and :mod:`robodyn.trajectory.bisection` time the
path on these limits; :func:`robodyn.trajectory.time_optimal` calls them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = [
    "Stages",
    "path_dynamics",
    "limit_rows",
    "u_bounds",
    "admissible_x",
    "stages",
    "limit_curve",
    "infeasible",
    "check_feasible",
    "timing",
]


@dataclass(frozen=True)
class Stages:
    """The limits on the grid, for the algorithms.

    Each interval i (N of them, from s_i to s_{i+1}) has rows ``lo <= a u + b x + c <= hi``
    (``a, b, c, lo, hi`` of shape (N, k)), also in the form the algorithms read:
    ``u <= gP - bP x`` (upper bounds on s_dd), ``u >= gN - bN x`` (lower bounds), and
    ``x_lo <= x <= x_hi`` from the rows without u and from the pairs of bounds (the
    admissible s_dot^2 of the interval, its velocity limit curve). ``point`` holds the
    rows at each grid point (n = N + 1 of them) and ``names`` what each row limits."""

    s: np.ndarray  # (n,) the grid
    delta: float  # its step
    a: np.ndarray  # (N, k) rows lo <= a u + b x + c <= hi of each interval
    b: np.ndarray
    c: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    bP: np.ndarray  # (N, k) u <= gP - bP x
    gP: np.ndarray
    bN: np.ndarray  # (N, k) u >= gN - bN x
    gN: np.ndarray
    x_lo: np.ndarray  # (N,) admissible x of each interval
    x_hi: np.ndarray
    point: tuple  # (a, b, c, lo, hi) at each grid point, each (n, k/2)
    names: tuple  # (k/2,) what each row limits ("the torque of joint 'j2' (tau_max)", ...)


def path_dynamics(model, q, dq, ddq, friction: bool = False):
    """``m(s), c(s), g(s)`` of MR eq. 9.36 at every grid point, from three batched RNEA calls.

    RNEA is linear in its acceleration and quadratic in its velocity, so with ``rnea(q, v,
    a) = M a + v^T Gamma v + g``::

        g = rnea(q, 0, 0)                         (gravity_forces)
        m = M theta'  = rnea(q, 0, theta') - g
        c = M theta'' + theta'^T Gamma theta' = rnea(q, theta', theta'') - g

    (no Christoffel tensor: each call is O(nv) per point; ``mass_matrix`` would be O(nv^2)
    and the Christoffel symbols O(nv^3)). The rotor inertia (``armature``) is in M;
    ``friction=True`` adds the model's Coulomb friction ``f_c sgn(theta'_j)`` (s_dot > 0) to
    g; viscous damping (``b theta' s_dot``, not linear in s_dot^2) is refused.
    """
    from ..dynamics import gravity_forces, inverse_dynamics

    zero = np.zeros_like(dq)
    g = gravity_forces(model, q)  # g(theta(s))
    m = inverse_dynamics(model, q, zero, dq, friction=False) - g  # M theta'
    c = inverse_dynamics(model, q, dq, ddq, friction=False) - g  # M theta'' + theta'^T Gamma theta'
    if friction:
        if np.any(np.asarray(model.dof_damping) != 0):
            raise ValueError(
                "friction=True: the model's viscous damping b theta' s_dot is not "
                "linear in s_dot^2; time_optimal takes Coulomb friction only"
            )
        g = g + np.asarray(model.dof_friction) * np.sign(dq)  # f_c sgn(theta' s_dot)
    return m, c, g


_LIMITED = {"tau_max": "torque", "v_max": "velocity", "a_max": "acceleration"}


def limit_rows(path_terms, tau_max, v_max, a_max, joint_names):
    """The limits as rows ``lo <= a u + b x + c <= hi`` at every grid point (MR sec. 9.4.1):

    * torque (MR eq. 9.36): ``-tau_max <= m u + c x + g <= tau_max``;
    * velocity: ``theta'^2 x <= v_max^2`` (``|theta' s_dot| <= v_max``);
    * acceleration: ``-a_max <= theta' u + theta'' x <= a_max``.

    Joints without a limit (inf) have no row. Returns ``(a, b, c, lo, hi)``, each (n, k),
    and the rows' names ("the torque of joint 'joint2' (tau_max)").
    """
    dq, ddq, m, c, g = path_terms
    cols, names = [], []
    zero = np.zeros_like(dq)
    for kind, lim, (a, b, c0) in (
        ("tau_max", tau_max, (m, c, g)),
        ("v_max", v_max, (zero, dq**2, zero)),
        ("a_max", a_max, (dq, ddq, zero)),
    ):
        if lim is None:
            continue
        for j in np.flatnonzero(np.isfinite(lim)):
            lo = -np.inf if kind == "v_max" else -lim[j]
            hi = lim[j] ** 2 if kind == "v_max" else lim[j]
            cols.append((a[:, j], b[:, j], c0[:, j], lo, hi))
            names.append(f"the {_LIMITED[kind]} of joint {joint_names[j]!r} ({kind})")
    n = dq.shape[0]
    if not cols:
        return tuple(np.zeros((n, 0)) for _ in range(5)), ()
    a, b, c0, lo, hi = (
        np.stack([np.broadcast_to(col[i], (n,)) for col in cols], axis=1) for i in range(5)
    )
    return (a, b, c0, lo, hi), tuple(names)


def u_bounds(a, b, c, lo, hi):
    """Rows ``lo <= a u + b x + c <= hi`` as bounds on u (MR sec. 9.4.1's L_i and U_i) and
    on x: with ``a > 0``, ``U_j = (hi - c - b x) / a`` and ``L_j = (lo - c - b x) / a``
    (swapped for ``a < 0``), written ``u <= gP - bP x``, ``u >= gN - bN x``; a row with
    ``a = 0`` (a zero-inertia point: relative to its row's largest |a|, below 1e-12)
    bounds x alone. A bound not there is ``gP = +inf`` or ``gN = -inf``.

    Returns ``bP, gP, bN, gN`` (shapes of a) and ``x_lo, x_hi`` (a's leading shape), the
    x-bounds of the rows without u together with x >= 0.
    """
    scale = np.max(np.abs(a), axis=tuple(range(a.ndim - 1)), keepdims=True) if a.size else a
    free = np.abs(a) <= 1e-12 * scale  # zero-inertia rows: no bound on u
    safe = np.where(free, 1.0, a)
    with np.errstate(invalid="ignore"):
        up = np.where(a > 0, hi - c, lo - c) / safe  # (hi - c)/a for a > 0, (lo - c)/a for a < 0
        dn = np.where(a > 0, lo - c, hi - c) / safe
    beta = b / safe
    bP = np.where(free, 0.0, beta)
    bN = bP
    gP = np.where(free, np.inf, up)
    gN = np.where(free, -np.inf, dn)
    # rows without u: lo - c <= b x <= hi - c
    with np.errstate(divide="ignore", invalid="ignore"):
        r_hi = np.where(b > 0, (hi - c) / b, (lo - c) / b)
        r_lo = np.where(b > 0, (lo - c) / b, (hi - c) / b)
    x_hi = np.min(np.where(free & (b != 0), r_hi, np.inf), axis=-1, initial=np.inf)
    x_lo = np.max(np.where(free & (b != 0), r_lo, 0.0), axis=-1, initial=0.0)
    stuck = free & (b == 0) & ((c < lo) | (c > hi))  # a row no (x, u) keeps
    x_hi = np.where(np.any(stuck, axis=-1), -np.inf, x_hi)
    return bP, gP, bN, gN, x_lo, x_hi


def admissible_x(beta, gP, gN, x_lo, x_hi):
    """The admissible x = s_dot^2 (MR's velocity limit curve, squared): the x at which some
    u lies between every lower bound ``u >= gN_k - beta_k x`` and every upper bound ``u <=
    gP_j - beta_j x`` (u eliminated, Fourier-Motzkin), within ``[x_lo, x_hi]``.

    Each pair (j, k) asks ``(beta_j - beta_k) x <= gP_j - gN_k``, a bound on x on the side
    the sign of ``beta_j - beta_k`` says; a row's own pair always holds (``lo <= hi``), and
    the pairs (j, k) and (k, j) share ``D = beta_j - beta_k``, so each unordered pair is
    taken once. Returns ``(x_min, x_max)`` (leading shape); ``x_min > x_max`` where no
    state is admissible."""
    x_min, x_max = x_lo, x_hi
    for d in range(1, beta.shape[-1]):  # the pairs (j, j + d)
        D = beta[..., :-d] - beta[..., d:]  # D x <= R1 (pair j, j + d), -D x <= R2 (j + d, j)
        R1, R2 = gP[..., :-d] - gN[..., d:], gP[..., d:] - gN[..., :-d]
        with np.errstate(divide="ignore", invalid="ignore"):
            a, b = R1 / D, -R2 / D
        pos = D > 0
        upper = np.where(pos, a, b)  # D > 0: x <= R1 / D, x >= -R2 / D; D < 0 the other way
        lower = np.where(pos, b, a)
        flat = D == 0  # parallel bounds: they hold everywhere or nowhere
        if flat.any():
            upper[flat] = np.where((R1[flat] >= 0) & (R2[flat] >= 0), np.inf, -np.inf)
            lower[flat] = -np.inf
        x_max = np.minimum(x_max, np.min(upper, axis=-1))
        x_min = np.maximum(x_min, np.max(lower, axis=-1))
    return x_min, x_max


def stages(point, names, s: np.ndarray) -> Stages:
    """The rows of every interval: the rows at its start with ``(x, u)``, and at its end
    with ``x_{i+1} = x + 2 Delta u``, i.e. ``a_{i+1} u + b_{i+1} (x + 2 Delta u) + c_{i+1}``
    = ``(a_{i+1} + 2 Delta b_{i+1}) u + b_{i+1} x + c_{i+1}``."""
    a, b, c, lo, hi = point
    delta = float(s[1] - s[0])
    A = np.concatenate([a[:-1], a[1:] + 2 * delta * b[1:]], axis=1)
    B, C = np.concatenate([b[:-1], b[1:]], axis=1), np.concatenate([c[:-1], c[1:]], axis=1)
    LO, HI = np.concatenate([lo[:-1], lo[1:]], axis=1), np.concatenate([hi[:-1], hi[1:]], axis=1)
    bP, gP, bN, gN, x_lo, x_hi = u_bounds(A, B, C, LO, HI)
    x_min, x_max = admissible_x(bP, gP, gN, x_lo, x_hi)
    return Stages(s, delta, A, B, C, LO, HI, bP, gP, bN, gN, x_min, x_max, point, names)


def limit_curve(point) -> np.ndarray:
    """MR's velocity limit curve at each grid point: the largest s_dot for which some s_dd
    keeps every limit there (inf where nothing limits it)."""
    bP, gP, _, gN, x_lo, x_hi = u_bounds(*point)
    _, x_max = admissible_x(bP, gP, gN, x_lo, x_hi)
    return np.sqrt(np.maximum(x_max, 0.0))


def _at_rest(st: Stages, i: int) -> str:
    """The limit most broken at rest (s_dot = s_dd = 0) at grid point i, in words, or ""."""
    a, b, c, lo, hi = st.point
    over = np.maximum(c[i] - hi[i], lo[i] - c[i])
    if not over.size or over.max() <= 0:
        return ""
    j = int(np.argmax(over))
    return (
        f"at rest there {st.names[j]} would be {c[i, j]:.6g}, beyond its limits "
        f"[{lo[i, j]:.6g}, {hi[i, j]:.6g}]"
    )


def infeasible(st: Stages, i: int, why: str) -> ValueError:
    """The error for an interval i where no motion keeps the limits: says where (s), why,
    and, when one limit is already broken at rest there (gravity alone exceeds tau_max),
    which."""
    s0, s1 = st.s[i], st.s[min(i + 1, len(st.s) - 1)]
    rest = _at_rest(st, i)
    return ValueError(
        f"the path is infeasible for the limits at s = {s0:.6g} (the interval "
        f"[{s0:.6g}, {s1:.6g}]): {why}" + (f"; {rest}" if rest else "")
    )


def check_feasible(st: Stages) -> None:
    """Before any pass: every interval has an admissible state (else the first s where none
    is), and the path's ends can be held at rest (the robot stands still there before and
    after the motion)."""
    bad = np.flatnonzero(st.x_lo > st.x_hi * (1 + 1e-12) + 1e-300)
    if bad.size:
        raise infeasible(
            st, int(bad[0]), "no speed s_dot and acceleration s_dd there keep every limit"
        )
    for i, where in ((0, "start"), (len(st.s) - 1, "end")):
        rest = _at_rest(st, i)
        if rest:
            raise ValueError(
                f"the path is infeasible for the limits at s = {st.s[i]:.6g} (its "
                f"{where}, where the robot stands still): {rest}"
            )


def timing(st: Stages, x: np.ndarray):
    """Times of the grid points and s_dd of each interval: with s_dd = u_i constant,
    ``u_i = (x_{i+1} - x_i) / (2 Delta)`` and ``t_{i+1} - t_i = 2 Delta / (s_dot_i +
    s_dot_{i+1})`` (MR's ``T = int ds / s_dot``, exact for constant s_dd)."""
    sd = np.sqrt(np.maximum(x, 0.0))
    pair = sd[:-1] + sd[1:]
    if np.any(pair <= 0):
        i = int(np.flatnonzero(pair <= 0)[0])
        raise infeasible(st, i, "the limits hold only at s_dot = 0 there (the robot would stop)")
    dt = 2 * st.delta / pair
    t = np.concatenate([[0.0], np.cumsum(dt)])
    u = (x[1:] - x[:-1]) / (2 * st.delta)
    return t, sd, u
