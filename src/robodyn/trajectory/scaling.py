"""Time scalings s(t) (MR sec. 9.2): how fast a path is traversed, s from 0 to 1.

Each scaling is an object with ``.duration`` T and ``scaling(t) -> (s, sd, sdd)`` for a
scalar or an array t (same shape out), clamped outside [0, T) (s = 0 before, 1 from T on,
sd = sdd = 0 there); where sdd jumps (a cubic's start, a trapezoid's corners) the value
is the one after the jump, so a motion starting at t = 0 gets its starting acceleration.

* :class:`CubicScaling`    s = 3 r^2 - 2 r^3, r = t / T                    (MR eq. 9.4)
* :class:`QuinticScaling`  s = 10 r^3 - 15 r^4 + 6 r^5: zero sd and sdd at both ends (9.5)
* :class:`TrapezoidalScaling`  constant acceleration a, cruise at v, constant deceleration
  (MR sec. 9.2.2.2): any two of T, v, a fix the third
* :class:`SCurveScaling`   bounded jerk: seven segments of jerk +J, 0, -J, cruise, -J, 0, +J
  (MR sec. 9.2.2.3), so the acceleration is continuous
"""

from __future__ import annotations

import math

import numpy as np

from .._checks import as_positive

__all__ = [
    "CubicScaling",
    "QuinticScaling",
    "TrapezoidalScaling",
    "SCurveScaling",
    "time_scaling",
    "SCALINGS",
]


_positive = as_positive  # the shared check (robodyn._checks)


def _times(t) -> np.ndarray:
    try:
        t = np.asarray(t, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"t must be a time or an array of times, got {type(t).__name__}") from None
    if not np.all(np.isfinite(t)):
        raise ValueError("t contains NaN or inf")
    return t


def _out(t: np.ndarray, s, sd, sdd):
    if t.ndim == 0:
        return float(s), float(sd), float(sdd)
    return s, sd, sdd


class _Polynomial:
    """s(r) = sum_k c_k r^k on r = t / T in [0, 1]."""

    c: tuple[float, ...] = ()

    def __init__(self, duration):
        self.duration = _positive(duration, "duration")

    def __call__(self, t):
        t = _times(t)
        T = self.duration
        r = np.clip(t / T, 0.0, 1.0)
        inside = (t >= 0.0) & (t < T)
        c = self.c
        s = sum(ck * r**k for k, ck in enumerate(c) if ck)
        sd = sum(k * ck * r ** (k - 1) for k, ck in enumerate(c) if ck and k >= 1) / T
        sdd = sum(k * (k - 1) * ck * r ** (k - 2) for k, ck in enumerate(c) if ck and k >= 2)
        sdd = sdd / T**2
        return _out(t, s, np.where(inside, sd, 0.0), np.where(inside, sdd, 0.0))

    def coefficients(self) -> np.ndarray:
        """c_0 .. c_5 of s(r) (robodyn's compiled rollout evaluates the same polynomial)."""
        c = np.zeros(6)
        c[: len(self.c)] = self.c
        return c

    def describe(self) -> dict:
        """This scaling as JSON: its class and duration."""
        return {"class": type(self).__name__, "duration": float(self.duration)}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(duration={self.duration:g})"


class CubicScaling(_Polynomial):
    """Cubic time scaling ``s = 3 r^2 - 2 r^3`` (MR eq. 9.4): zero velocity at both ends,
    peak ``sd = 3 / (2 T)`` at ``T / 2``."""

    c = (0.0, 0.0, 3.0, -2.0)


class QuinticScaling(_Polynomial):
    """Quintic time scaling ``s = 10 r^3 - 15 r^4 + 6 r^5`` (MR eq. 9.5): zero velocity and
    acceleration at both ends, peak ``sd = 15 / (8 T)`` at ``T / 2``."""

    c = (0.0, 0.0, 0.0, 10.0, -15.0, 6.0)


class TrapezoidalScaling:
    """Trapezoidal velocity profile (MR sec. 9.2.2.2): accelerate at a for ``t_a = v / a``,
    cruise at v, decelerate at a; ``T = (a + v^2) / (v a)``.

    Give any two of ``duration``, ``v_max``, ``a_max`` (for s: the path fraction per second
    and per second squared). With v and a where ``v^2 / a > 1`` the cruise speed is never
    reached: the profile becomes triangular (bang-bang) with ``v = sqrt(a)``.

    Raises
    ------
    ValueError
        Infeasible pairs, naming the argument: ``v T`` must lie in (1, 2]; ``a T^2 >= 4``.
    """

    def __init__(self, duration=None, v_max=None, a_max=None):
        given = [x is not None for x in (duration, v_max, a_max)]
        if sum(given) != 2:
            raise ValueError("give exactly two of duration, v_max, a_max")
        if duration is None:
            v, a = _positive(v_max, "v_max"), _positive(a_max, "a_max")
            v = min(v, math.sqrt(a))  # v^2 / a > 1: a triangle, v never reached
            T = (a + v * v) / (v * a)
        elif a_max is None:
            T, v = _positive(duration, "duration"), _positive(v_max, "v_max")
            if not 1.0 < v * T <= 2.0:
                raise ValueError(
                    f"v_max * duration must lie in (1, 2] (MR sec. 9.2.2.2), got {v * T:g}: "
                    f"v_max = {v:g} is {'too small' if v * T <= 1 else 'too large'}"
                )
            a = v * v / (v * T - 1.0)
        else:
            T, a = _positive(duration, "duration"), _positive(a_max, "a_max")
            if a * T * T < 4.0:
                raise ValueError(
                    f"a_max * duration^2 must be >= 4 (MR sec. 9.2.2.2), got {a * T * T:g}: "
                    f"a_max = {a:g} cannot finish in {T:g} s"
                )
            v = 0.5 * (a * T - math.sqrt(a) * math.sqrt(a * T * T - 4.0))
        self.duration, self.v, self.a = T, v, a
        self.t_a = v / a  # end of the acceleration phase

    def __call__(self, t):
        t = _times(t)
        T, v, a, ta = self.duration, self.v, self.a, self.t_a
        tc = np.clip(t, 0.0, T)
        # MR sec. 9.2.2.2: s = a t^2 / 2, then v t - v^2 / (2 a), then
        # (2 a v T - 2 v^2 - a^2 (t - T)^2) / (2 a)
        s = np.where(
            tc <= ta,
            0.5 * a * tc**2,
            np.where(tc <= T - ta, v * tc - v * v / (2 * a),
                     (2 * a * v * T - 2 * v * v - a * a * (tc - T) ** 2) / (2 * a)),
        )  # fmt: skip
        inside = (t >= 0.0) & (t < T)
        sd = np.where(tc <= ta, a * tc, np.where(tc <= T - ta, v, a * (T - tc)))
        sdd = np.where(tc < ta, a, np.where(tc <= T - ta, 0.0, -a))
        return _out(t, s, np.where(inside, sd, 0.0), np.where(inside, sdd, 0.0))

    def describe(self) -> dict:
        """This scaling as JSON: its class, duration, cruise speed and acceleration."""
        return {"class": "TrapezoidalScaling", "duration": float(self.duration),
                "v": float(self.v), "a": float(self.a)}  # fmt: skip

    def __repr__(self) -> str:
        return f"TrapezoidalScaling(duration={self.duration:g}, v={self.v:g}, a={self.a:g})"


class SCurveScaling:
    """S-curve time scaling with bounded jerk (MR sec. 9.2.2.3): seven segments, jerk
    +J, 0, -J (acceleration), cruise at v, then -J, 0, +J, so sdd is continuous and
    ``|sddd| <= J``.

    Give the limits ``v_max``, ``a_max``, ``j_max`` (path fraction per s, s^2, s^3; the
    largest reachable are used where the path is too short for them) or only a
    ``duration`` (then the jerk phases, the constant-acceleration phases and the cruise
    take T/8, T/8 and T/4).
    """

    def __init__(self, duration=None, v_max=None, a_max=None, j_max=None):
        limits = (v_max, a_max, j_max)
        if duration is not None and any(x is not None for x in limits):
            raise ValueError("give either duration or the limits v_max, a_max, j_max")
        if duration is not None:
            T = _positive(duration, "duration")
            tj, tca = T / 8.0, T / 8.0
            v = 8.0 / (5.0 * T)  # s(T) = v (accelerating 3T/8 + cruise T/4) = 1
            a = v / (tj + tca)
            J = a / tj
        else:
            if any(x is None for x in limits):
                raise ValueError("give v_max, a_max and j_max (or only duration)")
            v, a, J = (_positive(x, n) for x, n in zip(limits, ("v_max", "a_max", "j_max")))
            if v * J < a * a:  # a is never reached before v: jerk phases only
                a = math.sqrt(v * J)
            if v * (v / a + a / J) > 1.0:  # no room to cruise at v: the largest reachable v
                v = 0.5 * a * (-a / J + math.sqrt((a / J) ** 2 + 4.0 / a))
                if v * J < a * a:  # ... and a too: a pure jerk profile, v T_a = 1
                    v = (math.sqrt(J) / 2.0) ** (2.0 / 3.0)
                    a = math.sqrt(v * J)
            tj, tca = a / J, v / a - a / J
            T = 2.0 * (2.0 * tj + tca) + (1.0 - v * (2.0 * tj + tca)) / v
        self.v, self.a, self.j = v, a, J
        # segment durations and jerks; the states (s, sd, sdd) at the segment starts
        tcr = T - 2.0 * (2.0 * tj + tca)
        self._dur = np.array([tj, tca, tj, tcr, tj, tca, tj])
        self._jerk = np.array([J, 0.0, -J, 0.0, -J, 0.0, J])
        self._start = np.concatenate([[0.0], np.cumsum(self._dur)])
        st = [(0.0, 0.0, 0.0)]
        for d, j in zip(self._dur, self._jerk):
            s0, v0, a0 = st[-1]
            st.append((s0 + v0 * d + a0 * d * d / 2 + j * d**3 / 6, v0 + a0 * d + j * d * d / 2,
                       a0 + j * d))  # fmt: skip
        self._state = np.array(st)
        self.duration = float(self._start[-1])

    def __call__(self, t):
        t = _times(t)
        tc = np.clip(t, 0.0, self.duration)
        k = np.clip(np.searchsorted(self._start, tc, side="right") - 1, 0, 6)
        tau = tc - self._start[k]
        s0, v0, a0 = self._state[k, 0], self._state[k, 1], self._state[k, 2]
        j = self._jerk[k]
        s = s0 + v0 * tau + a0 * tau**2 / 2 + j * tau**3 / 6
        sd = v0 + a0 * tau + j * tau**2 / 2
        sdd = a0 + j * tau
        inside = (t >= 0.0) & (t < self.duration)
        s = np.where(t >= self.duration, 1.0, s)
        return _out(t, s, np.where(inside, sd, 0.0), np.where(inside, sdd, 0.0))

    def describe(self) -> dict:
        """This scaling as JSON: its class, duration and limits."""
        return {"class": "SCurveScaling", "duration": float(self.duration), "v": float(self.v),
                "a": float(self.a), "j": float(self.j)}  # fmt: skip

    def __repr__(self) -> str:
        return (f"SCurveScaling(duration={self.duration:g}, v={self.v:g}, a={self.a:g}, "
                f"j={self.j:g})")  # fmt: skip


#: Time scalings by name, as ``time_scaling(kind)`` and ``joint_trajectory`` accept them.
SCALINGS = {
    "cubic": CubicScaling,
    "quintic": QuinticScaling,
    "trapezoidal": TrapezoidalScaling,
    "scurve": SCurveScaling,
}


def time_scaling(kind, duration=None, **limits):
    """A time scaling by name ("cubic", "quintic", "trapezoidal", "scurve") or the object
    itself; ``duration`` and the limits (``v_max``, ``a_max``, ``j_max``) as its class takes."""
    if not isinstance(kind, str):
        if not callable(kind) or not hasattr(kind, "duration"):
            raise ValueError(f"time_scaling must be one of {tuple(SCALINGS)} or a scaling object")
        return kind
    cls = SCALINGS.get(kind)
    if cls is None:
        raise ValueError(f"time_scaling must be one of {tuple(SCALINGS)}, got {kind!r}")
    if cls in (CubicScaling, QuinticScaling):
        if limits:
            raise ValueError(f"a {kind} scaling takes only a duration, not {sorted(limits)}")
        return cls(duration)
    return cls(duration, **limits)
