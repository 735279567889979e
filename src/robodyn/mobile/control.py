"""Motion planning and feedback control of wheeled robots (MR sec. 13.3).

* :func:`drive`: run a robot kinematically under a controller ``controller(t, q) -> V_b``;
  each step holds the wheel speeds over ``dt`` and moves the chassis by the exact planar
  exponential (:func:`robodyn.mobile.planar_exp`).
* :class:`TrackingController`: the nonholonomic trajectory-tracking law of MR sec. 13.3.4
  for unicycle-like robots (unicycle, diff-drive, car).
* :class:`PurePursuit`: follow a polyline by steering toward a look-ahead point on it.
* :func:`circle`, :func:`line`: reference trajectories ``ref(t) -> (q_d, v_d, omega_d)``.
* :func:`car_path`: a car's motion along straight lines and arcs of its minimum turning
  radius (the segments of Dubins and Reeds-Shepp paths), :func:`dubins` the shortest
  forward-only path between two poses and :func:`reeds_shepp` the shortest with reversing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._checks import as_array, as_positive
from .wheeled import Car, _Wheeled, planar_exp, twist_to_qdot

__all__ = [
    "MobileRun",
    "drive",
    "wrap_angle",
    "TrackingController",
    "PurePursuit",
    "circle",
    "line",
    "car_path",
    "dubins",
    "reeds_shepp",
    "DubinsPath",
]


def wrap_angle(a):
    """Angle(s) wrapped to [-pi, pi)."""
    return (np.asarray(a, dtype=float) + np.pi) % (2 * np.pi) - np.pi


# ---------------------------------------------------------------------- kinematic runs
@dataclass(frozen=True)
class MobileRun:
    """Samples of a kinematic run of a wheeled robot.

    Attributes
    ----------
    t : numpy.ndarray, shape (K + 1,)
        s.
    q : numpy.ndarray, shape (K + 1, 3)
        Chassis configurations (phi rad, x m, y m).
    twist : numpy.ndarray, shape (K + 1, 3)
        Body twist executed from each sample on (omega rad/s, v_x, v_y m/s).
    u : numpy.ndarray, shape (K + 1, m)
        Wheel speeds (rad/s; a car's second entry is the steering angle, rad).
    robot : the robot
    q_d : numpy.ndarray or None, shape (K + 1, 3)
        The reference, when the controller has one.
    """

    t: np.ndarray
    q: np.ndarray
    twist: np.ndarray
    u: np.ndarray
    robot: object
    q_d: np.ndarray | None = None

    @classmethod
    def from_trajectory(cls, traj, robot, index=(2, 0, 1, 3, 4)) -> MobileRun:
        """The chassis motion of a simulated model (``rd.simulate(..., constraints=)``).

        Parameters
        ----------
        traj : Trajectory
            ``q``, ``v`` of shape (K + 1, nq), one rollout.
        robot : the wheeled robot
        index : sequence of int
            Model coordinates of ``(phi, x, y)`` then of the wheel angles (as in
            :func:`robodyn.mobile.rolling_constraints`); without wheel coordinates the wheel
            speeds are ``H(0) V_b``.

        Returns
        -------
        MobileRun
            ``twist`` is the body twist ``(phidot, R(phi)^T (xdot, ydot))``.
        """
        idx = np.asarray(index, dtype=int)
        q = np.asarray(traj.q)[:, idx[:3]]
        qd = np.asarray(traj.v)[:, idx[:3]]
        c, s = np.cos(q[:, 0]), np.sin(q[:, 0])
        twist = np.stack([qd[:, 0], c * qd[:, 1] + s * qd[:, 2], -s * qd[:, 1] + c * qd[:, 2]], 1)
        u = np.asarray(traj.v)[:, idx[3:]] if len(idx) > 3 else robot.wheel_speeds(twist)
        return cls(np.asarray(traj.t), q, twist, u, robot)

    def tracking_error(self) -> np.ndarray:
        """Position error ``|p - p_d|`` (K + 1,), m (needs q_d)."""
        if self.q_d is None:
            raise ValueError("this run has no reference q_d")
        return np.linalg.norm(self.q[:, 1:] - self.q_d[:, 1:], axis=1)


def _inputs(robot, twist: np.ndarray) -> np.ndarray:
    """Wheel speeds realising a twist as closely as the robot can: a car's steering
    clipped to max_steer, a conventional robot's sideways speed dropped."""
    if isinstance(robot, Car):
        w, v = twist[0], twist[1]
        psi = 0.0 if v == 0 else np.arctan(robot.wheelbase * w / v)
        return np.array([v / robot.wheel_radius, np.clip(psi, -robot.max_steer, robot.max_steer)])
    return robot.wheel_speeds(twist)


def drive(robot: _Wheeled, q0, controller, *, duration, dt, u_max=None) -> MobileRun:
    """Drive a robot under ``controller(t, q) -> V_b`` (3,), kinematically.

    Each step: ``u = H(0) V_b`` (a car: rolling rate and clipped steering), scaled down
    together when a wheel exceeds ``u_max``; the twist ``F u`` is held for dt and the
    chassis moves by its exact exponential (MR sec. 13.4).

    Parameters
    ----------
    robot : Unicycle, DiffDrive, Car, Omni or Mecanum
    q0 : array_like, shape (3,)
    controller : callable
        ``controller(t, q) -> twist``; if it has ``reference(t) -> (q_d, ...)`` the run
        records q_d.
    duration, dt : float
        s; ``duration`` a multiple of dt.
    u_max : float or array_like (m,), optional
        Wheel speed limits, rad/s (not applied to a car's steering angle).

    Returns
    -------
    MobileRun
    """
    q = as_array(q0, "q0", (3,)).copy()
    duration = as_positive(duration, "duration", " of seconds")
    dt = as_positive(dt, "dt", " of seconds")
    K = round(duration / dt)
    if K < 1 or abs(K * dt - duration) > 1e-9 * duration:
        raise ValueError(f"duration ({duration:g} s) must be a whole number of steps dt ({dt:g} s)")
    m = len(robot.inputs)
    lim = None if u_max is None else np.broadcast_to(np.asarray(u_max, dtype=float), (m,))
    t = dt * np.arange(K + 1)
    Q, V, U = np.empty((K + 1, 3)), np.empty((K + 1, 3)), np.empty((K + 1, m))
    ref = getattr(controller, "reference", None)
    Qd = np.empty((K + 1, 3)) if ref is not None else None
    for k in range(K + 1):
        twist = as_array(controller(t[k], q), "the controller's twist", (3,))
        u = _inputs(robot, twist)
        if lim is not None:
            j = slice(0, 1) if isinstance(robot, Car) else slice(None)
            s = np.max(np.abs(u[j]) / lim[j])
            if s > 1:
                u[j] = u[j] / s
        Q[k], U[k] = q, u
        V[k] = robot.chassis_twist(u)
        if Qd is not None:
            Qd[k] = ref(t[k])[0]
        q = q + twist_to_qdot(q, planar_exp(V[k] * dt))
    return MobileRun(t, Q, V, U, robot, Qd)


# ---------------------------------------------------------------------- references
def circle(radius: float, speed: float, center=(0.0, 0.0)):
    """A counter-clockwise circle at constant speed: ``ref(t) -> (q_d, v_d, omega_d)``.

    Starts at ``center + (radius, 0)`` heading +y; ``omega_d = speed / radius``.
    """
    R = as_positive(radius, "radius", " of metres")
    c = np.asarray(center, dtype=float)
    w = speed / R

    def ref(t):
        a = w * t
        q = np.array([np.pi / 2 + a, c[0] + R * np.cos(a), c[1] + R * np.sin(a)])
        return q, float(speed), float(w)

    return ref


def line(q0, speed: float):
    """A straight line from ``q0 = (phi, x, y)`` along phi at constant speed."""
    q0 = as_array(q0, "q0", (3,))

    def ref(t):
        return q0 + speed * t * np.array([0.0, np.cos(q0[0]), np.sin(q0[0])]), float(speed), 0.0

    return ref


# ---------------------------------------------------------------------- controllers
class TrackingController:
    """Nonholonomic trajectory tracking (MR sec. 13.3.4, eq. 13.30).

    With the error in the reference frame
    ``(phi_e, x_e, y_e) = [[1, 0, 0], [0, cos phi_d, sin phi_d], [0, -sin phi_d, cos phi_d]]
    (q - q_d)``, the commands are::

        v     = (v_d - k1 |v_d| (x_e + y_e tan phi_e)) / cos phi_e
        omega = omega_d - (k2 v_d y_e + k3 |v_d| tan phi_e) cos^2 phi_e

    with k1, k2, k3 > 0; the error converges to zero while v_d does not (MR).

    Parameters
    ----------
    reference : callable
        ``reference(t) -> (q_d (3,), v_d m/s, omega_d rad/s)`` (e.g. :func:`circle`).
    k1, k2, k3 : float
        Gains (1, 1/m, 1).

    Calling it, ``ctrl(t, q)``, returns the body twist ``(omega, v, 0)``.
    """

    def __init__(self, reference, k1: float = 1.0, k2: float = 4.0, k3: float = 2.0):
        self.reference = reference
        self.k1 = as_positive(k1, "k1")
        self.k2 = as_positive(k2, "k2")
        self.k3 = as_positive(k3, "k3")

    def __call__(self, t, q) -> np.ndarray:
        q_d, v_d, w_d = self.reference(t)
        c, s = np.cos(q_d[0]), np.sin(q_d[0])
        d = np.asarray(q, dtype=float) - q_d
        phi_e = float(wrap_angle(d[0]))
        x_e, y_e = c * d[1] + s * d[2], -s * d[1] + c * d[2]
        phi_e = float(np.clip(phi_e, -1.4, 1.4))  # keep 1/cos phi_e bounded far from the path
        ce, te = np.cos(phi_e), np.tan(phi_e)
        v = (v_d - self.k1 * abs(v_d) * (x_e + y_e * te)) / ce
        w = w_d - (self.k2 * v_d * y_e + self.k3 * abs(v_d) * te) * ce**2
        return np.array([w, v, 0.0])


class PurePursuit:
    """Pure pursuit: steer along the arc through a look-ahead point on a path.

    The goal is the first path point at least ``lookahead`` from the robot past the
    closest path point; in the body frame at ``(x_g, y_g)`` the arc through it has
    curvature ``kappa = 2 y_g / (x_g^2 + y_g^2)`` and ``omega = v kappa``. The robot stops
    within ``lookahead / 4`` of the path's end.

    Parameters
    ----------
    path : array_like, shape (N, 2)
        Waypoints (x, y), m, densely sampled.
    lookahead : float
        m.
    speed : float
        m/s.
    """

    def __init__(self, path, lookahead: float, speed: float):
        P = as_array(path, "path", (2,))
        if P.ndim != 2 or len(P) < 2:
            raise ValueError(f"path must have shape (N, 2), N >= 2, got {P.shape}")
        self.path = P
        self.lookahead = as_positive(lookahead, "lookahead", " of metres")
        self.speed = as_positive(speed, "speed", " of m/s")

    def goal(self, q) -> np.ndarray:
        """The look-ahead point (2,) for the configuration q."""
        p = np.asarray(q, dtype=float)[1:3]
        d = np.linalg.norm(self.path - p, axis=1)
        i = int(np.argmin(d))
        ahead = np.nonzero(d[i:] >= self.lookahead)[0]
        return self.path[i + ahead[0]] if len(ahead) else self.path[-1]

    def __call__(self, t, q) -> np.ndarray:
        q = np.asarray(q, dtype=float)
        g = self.goal(q) - q[1:3]
        c, s = np.cos(q[0]), np.sin(q[0])
        xg, yg = c * g[0] + s * g[1], -s * g[0] + c * g[1]
        L2 = xg * xg + yg * yg
        if np.sqrt(L2) < self.lookahead / 4 and np.allclose(self.goal(q), self.path[-1]):
            return np.zeros(3)
        kappa = 2.0 * yg / max(L2, 1e-12)
        return np.array([self.speed * kappa, self.speed, 0.0])


# ---------------------------------------------------------------------- car paths
_TURN = {"L": 1.0, "S": 0.0, "R": -1.0}


def car_path(q0, segments, radius: float, step: float = 0.01) -> np.ndarray:
    """A car's path made of arcs and straight lines (MR sec. 13.3.2).

    Parameters
    ----------
    q0 : array_like, shape (3,)
        Start (phi, x, y).
    segments : sequence of (str, float)
        ``("L", length)`` a left arc, ``("R", length)`` a right arc, ``("S", length)`` a
        straight line, each of signed arc length (m; negative drives backwards, the
        Reeds-Shepp "gears").
    radius : float
        Turning radius of the arcs, m.
    step : float
        Arc length between samples, m.

    Returns
    -------
    numpy.ndarray, shape (N, 3)
        Configurations along the path, the start first and the end last (exact: each
        sample is the planar exponential of the segment's twist).
    """
    q = as_array(q0, "q0", (3,)).copy()
    R = as_positive(radius, "radius", " of metres")
    step = as_positive(step, "step", " of metres")
    out = [q.copy()]
    for kind, length in segments:
        if kind not in _TURN:
            raise ValueError(f"segment kind must be 'L', 'S' or 'R', got {kind!r}")
        length = float(length)
        n = max(1, int(np.ceil(abs(length) / step)))
        s = np.linspace(0.0, length, n + 1)[1:]
        V = np.stack([_TURN[kind] * s / R, s, 0 * s], -1)  # twist times arc length
        out.extend(q + twist_to_qdot(q, planar_exp(V)))
        q = out[-1].copy()
    return np.array(out)


@dataclass(frozen=True)
class DubinsPath:
    """A Dubins path: ``word`` (e.g. "LSR"), arc lengths of its three segments (m) and
    the total ``length`` (m). ``sample(q0, step)`` gives the configurations along it."""

    word: str
    lengths: tuple[float, ...]
    radius: float

    @property
    def length(self) -> float:
        """Distance driven, m (reversing segments count positive)."""
        return float(sum(abs(x) for x in self.lengths))

    @property
    def segments(self) -> list[tuple[str, float]]:
        return list(zip(self.word, self.lengths))

    def sample(self, q0, step: float = 0.01) -> np.ndarray:
        return car_path(q0, self.segments, self.radius, step)


def _dubins_words(a: float, b: float, d: float) -> dict[str, tuple[float, float, float]]:
    """Normalised Dubins segment lengths (radius 1) for start heading a, goal heading b
    and distance d along the x axis, for the six words (those that exist)."""
    sa, sb, ca, cb = np.sin(a), np.sin(b), np.cos(a), np.cos(b)
    cab = np.cos(a - b)
    m = lambda x: x % (2 * np.pi)  # noqa: E731
    out = {}
    p2 = 2 + d * d - 2 * cab + 2 * d * (sa - sb)  # LSL
    if p2 >= 0:
        th = np.arctan2(cb - ca, d + sa - sb)
        out["LSL"] = (m(-a + th), np.sqrt(p2), m(b - th))
    p2 = 2 + d * d - 2 * cab + 2 * d * (sb - sa)  # RSR
    if p2 >= 0:
        th = np.arctan2(ca - cb, d - sa + sb)
        out["RSR"] = (m(a - th), np.sqrt(p2), m(-b + th))
    p2 = -2 + d * d + 2 * cab + 2 * d * (sa + sb)  # LSR
    if p2 >= 0:
        p = np.sqrt(p2)
        th = np.arctan2(-ca - cb, d + sa + sb) - np.arctan2(-2.0, p)
        out["LSR"] = (m(-a + th), p, m(-b + th))
    p2 = d * d - 2 + 2 * cab - 2 * d * (sa + sb)  # RSL
    if p2 >= 0:
        p = np.sqrt(p2)
        th = np.arctan2(ca + cb, d - sa - sb) - np.arctan2(2.0, p)
        out["RSL"] = (m(a - th), p, m(b - th))
    c = (6 - d * d + 2 * cab + 2 * d * (sa - sb)) / 8  # RLR
    if abs(c) <= 1:
        p = m(2 * np.pi - np.arccos(c))
        t = m(a - np.arctan2(ca - cb, d - sa + sb) + p / 2)
        out["RLR"] = (t, p, m(a - b - t + p))
    c = (6 - d * d + 2 * cab + 2 * d * (sb - sa)) / 8  # LRL
    if abs(c) <= 1:
        p = m(2 * np.pi - np.arccos(c))
        t = m(-a - np.arctan2(ca - cb, d + sa - sb) + p / 2)
        out["LRL"] = (t, p, m(b - a - t + p))
    return out


def _path_ends(q0, q1, radius: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The start, goal and turning radius of a shortest car path, checked."""
    q0 = as_array(q0, "q0", (3,))
    q1 = as_array(q1, "q1", (3,))
    return q0, q1, as_positive(radius, "radius", " of metres")


def dubins(q0, q1, radius: float) -> DubinsPath:
    """The shortest forward-only path of a car with minimum turning radius ``radius``
    from q0 to q1 (Dubins 1957): the best of the words LSL, RSR, LSR, RSL, RLR, LRL.

    Parameters
    ----------
    q0, q1 : array_like, shape (3,)
        (phi, x, y) start and goal.
    radius : float
        m.

    Returns
    -------
    DubinsPath
    """
    q0, q1, R = _path_ends(q0, q1, radius)
    dx, dy = q1[1] - q0[1], q1[2] - q0[2]
    th = np.arctan2(dy, dx)
    d = np.hypot(dx, dy) / R
    a, b = (q0[0] - th) % (2 * np.pi), (q1[0] - th) % (2 * np.pi)
    words = _dubins_words(a, b, d)
    word, lens = min(words.items(), key=lambda kv: sum(kv[1]))
    return DubinsPath(word, tuple(float(R * x) for x in lens), R)


# ---------------------------------------------------------------------- Reeds-Shepp
def _m2pi(x: float) -> float:
    """x wrapped to [-pi, pi]."""
    v = np.fmod(x, 2 * np.pi)
    if v < -np.pi:
        v += 2 * np.pi
    elif v > np.pi:
        v -= 2 * np.pi
    return float(v)


def _polar(x: float, y: float) -> tuple[float, float]:
    return float(np.hypot(x, y)), float(np.arctan2(y, x))


def _tau_omega(u, v, xi, eta, phi):
    delta = _m2pi(u - v)
    A = np.sin(u) - np.sin(delta)
    B = np.cos(u) - np.cos(delta) - 1.0
    t1 = np.arctan2(eta * A - xi * B, xi * A + eta * B)
    t2 = 2.0 * (np.cos(delta) - np.cos(v) - np.cos(u)) + 3.0
    tau = _m2pi(t1 + np.pi) if t2 < 0 else _m2pi(t1)
    return tau, _m2pi(tau - u + v - phi)


# The base words of Reeds and Shepp (1990), for a goal (x, y, phi) at unit radius; each
# returns its signed segment lengths (t, u, v) or None. Paths for the other quadrants come
# from the symmetries below (time flip: x, phi -> -x, -phi and every length negated;
# reflection: y, phi -> -y, -phi and L <-> R).
def _LpSpLp(x, y, phi):  # noqa: N802
    u, t = _polar(x - np.sin(phi), y - 1 + np.cos(phi))
    if t >= 0:
        v = _m2pi(phi - t)
        if v >= 0:
            return (t, u, v)
    return None


def _LpSpRp(x, y, phi):  # noqa: N802
    u1, t1 = _polar(x + np.sin(phi), y - 1 - np.cos(phi))
    u1 = u1 * u1
    if u1 >= 4:
        u = np.sqrt(u1 - 4)
        t = _m2pi(t1 + np.arctan2(2.0, u))
        v = _m2pi(t - phi)
        if t >= 0 and v >= 0:
            return (t, float(u), v)
    return None


def _LpRmL(x, y, phi):  # noqa: N802
    xi, eta = x - np.sin(phi), y - 1 + np.cos(phi)
    u1, theta = _polar(xi, eta)
    if u1 <= 4:
        u = -2 * np.arcsin(u1 / 4)
        t = _m2pi(theta + u / 2 + np.pi)
        v = _m2pi(phi - t + u)
        if t >= 0 and u <= 0:
            return (t, float(u), v)
    return None


def _LpRupLumRm(x, y, phi):  # noqa: N802
    xi, eta = x + np.sin(phi), y - 1 - np.cos(phi)
    rho = 0.25 * (2 + np.hypot(xi, eta))
    if rho <= 1:
        u = float(np.arccos(rho))
        t, v = _tau_omega(u, -u, xi, eta, phi)
        if t >= 0 and v <= 0:
            return (t, u, v)
    return None


def _LpRumLumRp(x, y, phi):  # noqa: N802
    xi, eta = x + np.sin(phi), y - 1 - np.cos(phi)
    rho = (20 - xi * xi - eta * eta) / 16
    if 0 <= rho <= 1:
        u = -float(np.arccos(rho))
        if u >= -np.pi / 2:
            t, v = _tau_omega(u, u, xi, eta, phi)
            if t >= 0 and v >= 0:
                return (t, u, v)
    return None


def _LpRmSmLm(x, y, phi):  # noqa: N802
    # L+ t, R- pi/2, S- u, L- v: (x - sin phi, y - 1 + cos phi) = R(t) (-2, -(2 - u))
    xi, eta = x - np.sin(phi), y - 1 + np.cos(phi)
    rho, theta = _polar(xi, eta)
    if rho >= 2:
        r = np.sqrt(rho * rho - 4)
        u = float(2 - r)
        t = _m2pi(theta + np.arctan2(r, -2.0))
        v = _m2pi(phi - np.pi / 2 - t)
        if t >= 0 and u <= 0 and v <= 0:
            return (t, u, v)
    return None


def _LpRmSmRm(x, y, phi):  # noqa: N802
    xi, eta = x + np.sin(phi), y - 1 - np.cos(phi)
    rho, theta = _polar(-eta, xi)
    if rho >= 2:
        t, u = theta, 2 - rho
        v = _m2pi(t + np.pi / 2 - phi)
        if t >= 0 and u <= 0 and v <= 0:
            return (t, u, v)
    return None


def _LpRmSLmRp(x, y, phi):  # noqa: N802
    xi, eta = x + np.sin(phi), y - 1 - np.cos(phi)
    rho, _ = _polar(xi, eta)
    if rho >= 2:
        u = float(4 - np.sqrt(rho * rho - 4))
        if u <= 0:
            t = _m2pi(np.arctan2((4 - u) * xi - 2 * eta, -2 * xi + (u - 4) * eta))
            v = _m2pi(t - phi)
            if t >= 0 and v >= 0:
                return (t, u, v)
    return None


_H = np.pi / 2
# (base word, its letters, segment lengths from (t, u, v), backwards variant)
_RS = [
    (_LpSpLp, "LSL", lambda t, u, v: (t, u, v), False),
    (_LpSpRp, "LSR", lambda t, u, v: (t, u, v), False),
    (_LpRmL, "LRL", lambda t, u, v: (t, u, v), False),
    (_LpRmL, "LRL", lambda t, u, v: (v, u, t), True),
    (_LpRupLumRm, "LRLR", lambda t, u, v: (t, u, -u, v), False),
    (_LpRumLumRp, "LRLR", lambda t, u, v: (t, u, u, v), False),
    (_LpRmSmLm, "LRSL", lambda t, u, v: (t, -_H, u, v), False),
    (_LpRmSmRm, "LRSR", lambda t, u, v: (t, -_H, u, v), False),
    (_LpRmSmLm, "LSRL", lambda t, u, v: (v, u, -_H, t), True),
    (_LpRmSmRm, "RSRL", lambda t, u, v: (v, u, -_H, t), True),
    (_LpRmSLmRp, "LRSLR", lambda t, u, v: (t, -_H, u, -_H, v), False),
]
_SWAP = str.maketrans("LR", "RL")


def _reeds_shepp_candidates(x: float, y: float, phi: float):
    """Every Reeds-Shepp candidate (word, signed lengths) at unit radius."""
    out = []
    xb, yb = x * np.cos(phi) + y * np.sin(phi), x * np.sin(phi) - y * np.cos(phi)
    for base, word, lengths, backwards in _RS:
        X, Y = (xb, yb) if backwards else (x, y)
        quadrants = (  # (arguments, time flip, reflection)
            ((X, Y, phi), False, False),
            ((-X, Y, -phi), True, False),
            ((X, -Y, -phi), False, True),
            ((-X, -Y, phi), True, True),
        )
        for args, flip, refl in quadrants:
            r = base(*args)
            if r is None:
                continue
            seg = lengths(*r)
            if flip:
                seg = tuple(-s for s in seg)
            out.append((word.translate(_SWAP) if refl else word, tuple(float(s) for s in seg)))
    return out


def reeds_shepp(q0, q1, radius: float) -> DubinsPath:
    """The shortest path of a car that may reverse (Reeds and Shepp 1990), turning radius
    ``radius``: the best of the CSC, CCC, CCCC, CCSC and CCSCC families (44 candidates:
    11 base words in four symmetric quadrants).

    Parameters
    ----------
    q0, q1, radius
        As for :func:`dubins`: start and goal (phi, x, y), turning radius (m).

    Returns
    -------
    DubinsPath
        ``word`` (e.g. "LSR", "LRLR"), signed segment ``lengths`` (m, negative: reverse),
        ``length`` the total distance driven; ``sample(q0)`` gives the path.
    """
    q0, q1, R = _path_ends(q0, q1, radius)
    dx, dy = (q1[1] - q0[1]) / R, (q1[2] - q0[2]) / R
    c, s = np.cos(q0[0]), np.sin(q0[0])
    x, y = c * dx + s * dy, -s * dx + c * dy
    phi = float(wrap_angle(q1[0] - q0[0]))
    cands = _reeds_shepp_candidates(float(x), float(y), phi)
    word, seg = min(cands, key=lambda ws: sum(abs(v) for v in ws[1]))
    return DubinsPath(word, tuple(R * v for v in seg), R)
