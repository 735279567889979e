"""MR's time-optimal time scaling algorithm (sec. 9.4.2): bang-bang integration and
switch points found by bisection, on the grid and limits of
:mod:`robodyn.trajectory.phase_plane`.

In the (s, s_dot) phase plane the fastest motion accelerates as hard as the limits allow,
``s_dd = U(s, s_dot)``, or decelerates as hard, ``s_dd = L(s, s_dot)``, switching where
the book's algorithm finds (its steps):

1. no switches yet; start at (s, s_dot) = (0, 0);
2. integrate L backward from (1, 0) until it reaches the velocity limit curve: curve F;
3. integrate U forward from the last switch until it crosses F (a switch from U to L
   there: done) or reaches the velocity limit curve at (s_lim, s_dot_lim);
4. bisection on s_dot_test in [0, s_dot_lim]: the L curve integrated forward from
   (s_lim, s_dot_test) crosses the limit curve (s_dot_high = s_dot_test) or falls to
   s_dot = 0 (s_dot_low = s_dot_test), until the curve just touches the limit curve at
   the tangent point (s_tan, s_dot_tan);
5. integrate L backward from the tangent point until it meets the U curve of step 3: a
   switch from U to L there;
6. a switch from L to U at the tangent point; 7. go to step 3.

The integration is the grid's: with x = s_dot^2 and s_dd = u constant on each interval,
``x_{i+1} = x_i + 2 Delta u`` exactly, u = U_i(x_i) or L_i(x_i) of the interval's limits
(kept at both its ends), and backward the x_i with ``x_i + 2 Delta L_i(x_i) = x_{i+1}``
(the same map inverted, so an L curve integrated back retraces itself). Where L < U on
the limit curve (a velocity limit or a zero-inertia point, which the book's algorithm
leaves out) and the L curve from the curve's top stays under it, the motion follows the
limit curve one interval.
"""

from __future__ import annotations

import numpy as np

__all__ = ["mr_bisection"]


class _Phase:
    """One-interval maps of the phase plane in x = s_dot^2: ``up(i, x) = x + 2 Delta U_i(x)``,
    ``down(i, x) = x + 2 Delta L_i(x)`` and ``down``'s inverse ``back(i, x_next)``."""

    def __init__(self, st):
        h = 2 * st.delta
        self.st, self.N = st, len(st.s) - 1
        self.GP, self.HP = h * st.gP, 1 - h * st.bP  # U_i(x) = gP - bP x: min over rows
        self.GN, self.HN = h * st.gN, 1 - h * st.bN  # L_i(x) = gN - bN x: max over rows

    def up(self, i, x):
        return float(np.min(self.GP[i] + self.HP[i] * x, initial=np.inf))

    def down(self, i, x):
        return float(np.max(self.GN[i] + self.HN[i] * x, initial=-np.inf))

    def back(self, i, x_next):
        """The largest x_i with ``down(i, x_i) <= x_next`` (L integrated backward)."""
        H = self.HN[i]
        with np.errstate(invalid="ignore"):
            r = np.where(H > 0, (x_next - self.GN[i]) / np.where(H > 0, H, 1.0), np.inf)
        return float(np.min(r, initial=np.inf))

    def limit(self, i):
        """The velocity limit curve (x) of interval i; at the end point none."""
        return self.st.x_hi[i] if i < self.N else np.inf


def _final_curve(ph):
    """MR step 2: L integrated backward from (1, 0) until it crosses the limit curve.
    Returns F (n,) (nan where not reached) and its first index."""
    F = np.full(ph.N + 1, np.nan)
    F[ph.N] = 0.0
    f0 = ph.N
    for i in range(ph.N - 1, -1, -1):
        x = ph.back(i, F[i + 1])
        if x > ph.limit(i):
            break
        F[i], f0 = x, i
    return F, f0


def _accelerate(ph, x, start, F, f0):
    """MR step 3: U integrated forward from (s_start, x[start]), filling x, until it meets F
    (returns (i, True), x[i] >= F[i]) or is about to cross the limit curve between i and i + 1
    (returns (i, False))."""
    from .phase_plane import infeasible

    i = start
    while True:
        if i >= f0 and x[i] >= F[i]:
            return i, True
        x_next = ph.up(i, x[i])  # x_{i+1} = x_i + 2 Delta U_i(x_i)
        if (x_next <= 0.0 and i + 1 < ph.N) or x_next < 0.0:  # s_dot = 0 before the end
            raise infeasible(
                ph.st,
                i,
                "accelerating as hard as the limits allow, the robot "
                "stalls there (s_dot falls to 0)",
            )
        if x_next > ph.limit(i + 1):
            return i, False
        x[i + 1] = x_next
        i += 1


def _decelerate(ph, k, x0):
    """L integrated forward from (s_k, x0): ``(crossed, xs)`` with xs the curve from k on,
    ``crossed`` True when it crosses the limit curve (or ends above rest at s = 1), False
    when s_dot falls to 0."""
    xs = [x0]
    for i in range(k, ph.N):
        x_next = ph.down(i, xs[-1])  # x_{i+1} = x_i + 2 Delta L_i(x_i)
        if x_next <= 0.0:
            return False, np.array(xs)
        if x_next > ph.limit(i + 1):
            return True, np.array(xs)
        xs.append(x_next)
    return True, np.array(xs)  # at s = 1 above rest: above F


def _tangent(ph, k):
    """MR step 4: bisection on x_test in [0, x_lim] at s_k for the L curve that touches the
    limit curve; returns the tangent point (j, x_j) where that curve comes closest to it,
    or None when even the curve from the limit curve's top stays under it."""
    from .phase_plane import infeasible

    x_low, x_high = 0.0, ph.limit(k)
    crossed, curve = _decelerate(ph, k, x_high)
    if not crossed:
        return None
    crossed, low = _decelerate(ph, k, x_low)
    if crossed:
        raise infeasible(
            ph.st,
            k,
            "even from rest there the hardest deceleration crosses the velocity limit curve",
        )
    for _ in range(200):  # bisection: the test curve hits the limit curve or s_dot = 0
        x_test = 0.5 * (x_low + x_high)
        if not x_low < x_test < x_high or x_high - x_low <= 1e-13 * x_high:
            break
        crossed, curve = _decelerate(ph, k, x_test)
        if crossed:
            x_high = x_test
        else:
            x_low, low = x_test, curve
    idx = np.arange(k + 1, k + len(low))
    if idx.size == 0:
        return None
    gap = (ph.st.x_hi[np.minimum(idx, ph.N - 1)] - low[1:]) / np.maximum(low[1:], 1e-300)
    gap = np.where(idx < ph.N, gap, np.inf)
    j = int(np.argmin(gap))
    return int(idx[j]), float(low[j + 1])


def _meet(ph, x, start, k, j, x_tan):
    """MR step 5: L integrated backward from the tangent point (j, x_tan) until it meets the
    U curve x (defined on [start, k]); fills x[m + 1 .. j] with it and returns m, the last
    index of the U arc (the switch from U to L lies in the interval m to m + 1)."""
    from .phase_plane import infeasible

    B = {j: x_tan}
    for m in range(j - 1, start - 1, -1):
        B[m] = ph.back(m, B[m + 1])  # x_m with x_m + 2 Delta L_m(x_m) = x_{m+1}
        if m <= k and B[m] >= x[m]:
            for i in range(m + 1, j + 1):
                x[i] = B[i]
            return m
        if B[m] > ph.limit(m):
            break
    raise infeasible(
        ph.st,
        k,
        "MR's algorithm found no switch from U to L before the tangent "
        "point (try method='reachability')",
    )


def mr_bisection(st):
    """MR's algorithm (sec. 9.4.2) on the grid, steps 1-7 (module docstring). Returns x =
    s_dot^2 (n,) and the switch points ``[(i, kind), ...]``, kind "U->L" or "L->U"."""
    ph = _Phase(st)
    F, f0 = _final_curve(ph)  # step 2
    x = np.full(ph.N + 1, np.nan)
    x[0], start, switches = 0.0, 0, []  # step 1
    while True:  # step 7
        k, met = _accelerate(ph, x, start, F, f0)  # step 3
        if met:
            x[k:] = F[k:]
            switches.append((k, "U->L"))  # the first interval of the L arc
            return x, switches
        tangent = _tangent(ph, k)  # step 4
        if tangent is None:  # the limit curve followed one interval
            x[k + 1], start = ph.limit(k + 1), k + 1
            continue
        j, x_tan = tangent
        m = _meet(ph, x, start, k, j, x_tan)  # step 5
        switches += [(m + 1, "U->L"), (j, "L->U")]  # where each arc's first interval starts
        start = j  # step 6
