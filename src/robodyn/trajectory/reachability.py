"""TOPP-RA: time-optimal path parameterization by reachability analysis (Pham & Pham, "A
new approach to time-optimal path parameterization based on reachability analysis", IEEE
T-RO 2018), on the grid and limits of :mod:`robodyn.trajectory.phase_plane`.

In ``x = s_dot^2`` and ``u = s_dd``, interval i keeps its limits when ``(x_i, u_i)`` lies in
a polygon ``Omega_i`` (rows ``lo <= a u + b x + c <= hi``), and ``x_{i+1} = x_i + 2 Delta
u_i``. The controllable set ``K_i`` holds the x at s_i from which some choice of u reaches
the end at rest:

    K_N = {0},   K_i = {x : exists u, (x, u) in Omega_i, x + 2 Delta u in K_{i+1}}

an interval ``[lo_i, hi_i]``, each end the optimum of a linear program in (x, u) (the
backward pass). The forward pass then takes, from ``x_0 = 0``, the largest u that stays
controllable: ``u_i = max {u : (x_i, u) in Omega_i, x_i + 2 Delta u in K_{i+1}}``.

Each LP has two unknowns, so it is solved exactly by eliminating u (Fourier-Motzkin):
every lower bound on u must lie below every upper bound, and each such pair bounds x.
``solver="highs"`` gives the same LPs to scipy's HiGHS instead.
"""

from __future__ import annotations

import numpy as np

__all__ = ["controllable_sets", "greedy_forward", "switch_points", "one_step_rows"]


def one_step_rows(st):
    """The one-step set ``{x : exists u, (x, u) in Omega_i, lo' <= x + 2 Delta u <= hi'}``
    of every interval, u eliminated: as bounds on x affine in hi' and lo'.

    ``x + 2 Delta u <= hi'`` is an upper bound ``u <= (hi' - x) / (2 Delta)``; paired with each
    lower bound ``u >= gN - bN x``: ``(1 - 2 Delta bN) x <= hi' - 2 Delta gN``. Likewise the
    lower bound ``u >= (lo' - x) / (2 Delta)`` with each upper bound ``u <= gP - bP x``:
    ``(1 - 2 Delta bP) x >= lo' - 2 Delta gP``. Dividing by the coefficient of x, each is
    ``x <= w hi' + z`` or ``x >= w lo' + z`` (for small Delta, every one; the other sides,
    from rows with ``2 Delta b >= 1``, and zero coefficients are the exceptions).

    Returns ``(wU, zU)`` (N, k): ``x <= wU hi' + zU``; ``(wL, zL)``: ``x >= wL lo' + zL``
    (inf and -inf where a row gives no such bound); and ``odd``: the intervals with an
    exception, each with its arrays ``(cN, zN, wN, cP, zP, wP)`` for :func:`_odd_bounds`.
    """
    h = 2 * st.delta
    cN, cP = 1 - h * st.bN, 1 - h * st.bP  # the coefficients of x
    with np.errstate(divide="ignore", invalid="ignore"):
        wN = 1 / np.where(cN == 0, 1.0, cN)
        wP = 1 / np.where(cP == 0, 1.0, cP)
        zN, zP = -h * st.gN * wN, -h * st.gP * wP  # x <=/>= wN hi' + zN, wP lo' + zP
    wU, zU = np.where(cN > 0, wN, 0.0), np.where(cN > 0, zN, np.inf)
    wL, zL = np.where(cP > 0, wP, 0.0), np.where(cP > 0, zP, -np.inf)
    odd_rows = ((cN <= 0) & np.isfinite(st.gN)) | ((cP <= 0) & np.isfinite(st.gP))
    odd = {
        int(i): (cN[i], zN[i], wN[i], cP[i], zP[i], wP[i], st.gN[i], st.gP[i])
        for i in np.flatnonzero(odd_rows.any(axis=1))
    }
    return (wU, zU), (wL, zL), odd


def _odd_bounds(rows, hi, lo, h, up, dn):
    """The exceptions of :func:`one_step_rows` on one interval: ``x >= wN hi' + zN`` where
    ``1 - 2 Delta bN < 0``, ``x <= wP lo' + zP`` where ``1 - 2 Delta bP < 0``, and with a zero
    coefficient the conditions ``hi' >= 2 Delta gN``, ``lo' <= 2 Delta gP``."""
    cN, zN, wN, cP, zP, wP, gN, gP = rows
    fN, fP = np.isfinite(gN), np.isfinite(gP)
    lower = (cN < 0) & fN
    upper = (cP < 0) & fP
    if lower.any():
        dn = max(dn, float(np.max(wN[lower] * hi + zN[lower])))
    if upper.any():
        up = min(up, float(np.min(wP[upper] * lo + zP[upper])))
    if np.any((cN == 0) & fN & (hi < h * gN)) or np.any((cP == 0) & fP & (lo > h * gP)):
        up, dn = -1.0, 0.0
    return up, dn


def controllable_sets(st, solver: str = "exact"):
    """The backward pass: ``K_i = [lo_i, hi_i]`` for i = N, ..., 0 (``K_N = {0}``).

    Returns ``(lo, hi)``, each (n,). Raises ValueError (naming s) where a set is empty, or
    where ``K_0`` leaves out rest (then it says where the robot, at its limits from rest,
    falls short)."""
    if solver == "highs":
        lo, hi = _controllable_sets_highs(st)
    else:
        lo, hi = _controllable_sets_exact(st)
    empty = np.flatnonzero(lo > hi)
    if empty.size or lo[0] > 0.0:
        raise _falls_short(st, lo, int(empty[-1]) if empty.size else None)
    return lo, hi


def _controllable_sets_exact(st):
    """K_i by the closed-form one-step set (u eliminated), i = N-1, ..., 0: scalar loops
    over plain lists (a stage has a dozen rows; numpy's call costs more than the work)."""
    (wU, zU), (wL, zL), odd = one_step_rows(st)
    N = len(wU)
    zL0 = np.max(zL, axis=1, initial=-np.inf).tolist()  # the lower bound when lo' = 0
    wU, zU, wL, zL = wU.tolist(), zU.tolist(), wL.tolist(), zL.tolist()
    x_lo, x_hi, h = st.x_lo.tolist(), st.x_hi.tolist(), 2 * st.delta
    lo, hi = [0.0] * (N + 1), [0.0] * (N + 1)  # K_N = {0}
    for i in range(N - 1, -1, -1):
        hi1, lo1 = hi[i + 1], lo[i + 1]
        up = x_hi[i]  # hi_i = min(x_hi, wU hi' + zU): the largest controllable x
        for w, z in zip(wU[i], zU[i]):
            b = w * hi1 + z
            if b < up:
                up = b
        dn = max(x_lo[i], zL0[i])  # lo_i = max(x_lo, wL lo' + zL): the smallest
        if lo1 != 0.0:
            for w, z in zip(wL[i], zL[i]):
                b = w * lo1 + z
                if b > dn:
                    dn = b
        if i in odd:
            up, dn = _odd_bounds(odd[i], hi1, lo1, h, up, dn)
        if dn > up and dn - up <= 1e-10 * (1.0 + abs(up)):
            dn = up  # round-off of a set of one point
        lo[i], hi[i] = dn, up
        if dn > up:
            lo[: i + 1], hi[: i + 1] = [1.0] * (i + 1), [0.0] * (i + 1)  # empty from here back
            break
    return np.array(lo), np.array(hi)


def _stage_lp(st, i, cost, x_fixed=None, next_set=None):
    """One stage's LP through scipy's HiGHS: minimise ``cost . (x, u)`` over ``(x, u) in
    Omega_i`` (x >= 0) with ``lo' <= x + 2 Delta u <= hi'`` and, given, ``x = x_fixed``.
    Returns the optimal (x, u), or None when infeasible."""
    from scipy.optimize import linprog

    a, b, c, lo, hi = st.a[i], st.b[i], st.c[i], st.lo[i], st.hi[i]
    up, dn = np.isfinite(hi), np.isfinite(lo)
    A = [np.column_stack([b[up], a[up]]), -np.column_stack([b[dn], a[dn]])]
    rhs = [hi[up] - c[up], c[dn] - lo[dn]]  # a u + b x + c <= hi,  -(a u + b x + c) <= -lo
    if next_set is not None:
        h = 2 * st.delta
        A.append(np.array([[1.0, h], [-1.0, -h]]))  # lo' <= x + 2 Delta u <= hi'
        rhs.append(np.array([next_set[1], -next_set[0]]))
    x_bounds = (0.0, None) if x_fixed is None else (x_fixed, x_fixed)
    res = linprog(
        cost,
        A_ub=np.vstack(A),
        b_ub=np.concatenate(rhs),
        bounds=[x_bounds, (None, None)],
        method="highs",
    )
    return res.x if res.status == 0 else None


def _controllable_sets_highs(st):
    """K_i with two LPs a stage (min x, max x) through HiGHS, i = N-1, ..., 0."""
    N = len(st.s) - 1
    lo, hi = np.zeros(N + 1), np.zeros(N + 1)
    for i in range(N - 1, -1, -1):
        K = (lo[i + 1], hi[i + 1])
        x_min = _stage_lp(st, i, [1.0, 0.0], next_set=K)
        x_max = _stage_lp(st, i, [-1.0, 0.0], next_set=K)
        if x_min is None or x_max is None:
            lo[: i + 1], hi[: i + 1] = 1.0, 0.0
            break
        lo[i], hi[i] = x_min[0], max(x_max[0], x_min[0])
    return lo, hi


def greedy_forward(st, K, solver: str = "exact") -> np.ndarray:
    """The forward pass from rest: ``u_i = max {u : (x_i, u) in Omega_i, x_i + 2 Delta u in
    K_{i+1}}``, ``x_{i+1} = x_i + 2 Delta u_i``. Returns x (n,)."""
    lo, hi = K
    N = len(st.s) - 1
    x = np.zeros(N + 1)
    if solver == "highs":
        for i in range(N):
            xu = _stage_lp(st, i, [0.0, -1.0], x_fixed=x[i], next_set=(lo[i + 1], hi[i + 1]))
            x_next = hi[i + 1] if xu is None else x[i] + 2 * st.delta * xu[1]
            x[i + 1] = min(max(x_next, lo[i + 1]), hi[i + 1])
        return x
    h = 2 * st.delta
    G, H = (h * st.gP).tolist(), (1 - h * st.bP).tolist()  # x + 2 Delta (gP - bP x)
    hi_, lo_, xi = hi.tolist(), lo.tolist(), 0.0
    for i in range(N):
        x_next = hi_[i + 1]  # u_i = min(U_i(x_i), (hi' - x_i) / (2 Delta))
        for g, k in zip(G[i], H[i]):
            b = g + k * xi
            if b < x_next:
                x_next = b
        xi = max(x_next, lo_[i + 1])  # round-off: K_{i+1} holds it
        x[i + 1] = xi
    return x


def _falls_short(st, lo, empty) -> ValueError:
    """No motion from rest reaches the end: say where. The robot accelerating as hard as its
    limits allow from rest (the largest reachable x, capped by the admissible x) stalls
    somewhere (the usual cause: a limit it cannot hold at rest, passed only with momentum
    it cannot gain); else, the s where the controllable set ``empty`` ran out, or the first
    s where that motion is slower than every controllable speed."""
    from .phase_plane import infeasible

    h = 2 * st.delta
    G, H = h * st.gP, 1 - h * st.bP
    N, x, slow = len(st.s) - 1, np.zeros(len(st.s)), None
    for i in range(N):  # x_{i+1} = min(x_i + 2 Delta U_i(x_i), the admissible x there)
        if slow is None and 0 < i and (empty is None or i > empty) and x[i] < lo[i]:
            slow = i
        x[i + 1] = min(st.x_hi[i + 1] if i + 1 < N else np.inf, (G[i] + H[i] * x[i]).min())
        if x[i + 1] <= 0.0 or i + 1 < N and x[i + 1] < st.x_lo[i + 1]:
            return infeasible(
                st, i, "even at its limits from rest the robot stalls there (s_dot falls to 0)"
            )
    if empty is not None:
        return infeasible(
            st,
            empty,
            "from no speed s_dot there can the robot keep the "
            "limits to the end of the path and stop there",
        )
    why = (
        "even at its limits from rest the robot reaches s there slower than every speed "
        "from which it can go on to the end"
    )
    return infeasible(st, slow if slow is not None else 0, why)


def switch_points(st, x: np.ndarray):
    """Where s_dd switches between its largest U(s, s_dot) and its smallest L(s, s_dot) (MR's
    switch points): each interval's u is classified as U, L or neither (on the limit curve,
    L = U, or the step where a U arc meets an L arc); a switch is the first interval of a
    run of the other kind. Returns ``[(i, kind), ...]`` with kind "U->L" or "L->U"."""
    h = 2 * st.delta
    u = (x[1:] - x[:-1]) / h
    U = np.min(st.gP - st.bP * x[:-1, None], axis=1, initial=np.inf)
    L = np.max(st.gN - st.bN * x[:-1, None], axis=1, initial=-np.inf)
    tol = 1e-7 * (1.0 + np.abs(U) + np.abs(L))
    at_u, at_l = np.abs(u - U) <= tol, np.abs(u - L) <= tol
    kind = np.where(at_u & ~at_l, 1, np.where(at_l & ~at_u, -1, 0))
    out, last = [], 0
    for i in np.flatnonzero(kind):
        if last and kind[i] != last:
            out.append((int(i), "U->L" if last > 0 else "L->U"))
        last = kind[i]
    return out
