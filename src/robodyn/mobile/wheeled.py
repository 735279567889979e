"""Kinematic models of wheeled mobile robots (MR ch. 13.2-13.4).

The chassis configuration is ``q = (phi, x, y)``: heading (rad) and the position (m) of the
chassis frame {b} in the world frame {s}. Its planar body twist is
``V_b = (omega_bz, v_bx, v_by)`` (angular first, the book's order), and
``qdot = (omega_bz, R(phi) (v_bx, v_by))`` (MR eq. 13.2).

Omnidirectional robots (MR sec. 13.2): wheel i sits at ``(x_i, y_i)`` in {b}, drives along
the heading ``beta_i`` and its rollers slide freely at the angle ``gamma_i`` from the
driving direction. No-slip in the direction the rollers cannot slide gives the wheel
speed (MR eq. 13.5)::

    u_i = h_i(phi) qdot,
    h_i(phi) = 1 / (r_i cos gamma_i) [x_i sin(beta_i + gamma_i) - y_i cos(beta_i + gamma_i),
                                      cos(beta_i + gamma_i + phi), sin(beta_i + gamma_i + phi)]

stacked into ``u = H(phi) qdot`` and ``u = H(0) V_b``. Conventional wheels (unicycle,
differential drive, car) satisfy ``h_i`` with gamma_i = 0 and also cannot slide sideways:
``qdot_y,b = 0``, i.e. ``A(q) qdot = 0`` with ``A = [0, sin phi, -cos phi]`` (the
knife-edge of course notes 001, eq. 10.21).

Every robot has ``wheel_speeds(twist)`` (``H(0) V_b``), ``H(phi)``, ``chassis_twist(u)``
(the pseudo-inverse ``F = H(0)^+``, MR eq. 13.33), ``constraints(q)`` (Pfaffian ``A(q)``) and
``qdot(q, twist)``. :func:`odometry` integrates wheel-angle increments exactly (MR sec. 13.4).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._checks import as_array, as_positive

__all__ = [
    "Unicycle",
    "DiffDrive",
    "Car",
    "Omni",
    "Mecanum",
    "planar_exp",
    "twist_to_qdot",
    "odometry",
]


# ---------------------------------------------------------------------- helpers
def _twist(x, name: str = "twist") -> np.ndarray:
    return as_array(x, name, (3,))


def _phi(q, n: int | tuple[int, ...] = 3, name: str = "q") -> np.ndarray:
    """The heading of q (shape (..., n)), as an array of shape (...)."""
    q = np.asarray(q, dtype=float)
    ns = (n,) if isinstance(n, int) else n
    if q.ndim == 0 or q.shape[-1] not in ns:
        want = " or ".join(f"(..., {k})" for k in ns)
        raise ValueError(f"{name} must have shape {want}, got {q.shape}")
    if not np.all(np.isfinite(q)):
        raise ValueError(f"{name} contains NaN or inf")
    return q[..., 0]


def _wheel_rows(phi, pos, beta, gamma, radius) -> np.ndarray:
    """h_i(phi) of MR eq. 13.5 for every wheel: shape (..., m, 3)."""
    phi = np.asarray(phi, dtype=float)[..., None]
    bg = beta + gamma
    k = 1.0 / (radius * np.cos(gamma))
    c0 = k * (pos[:, 0] * np.sin(bg) - pos[:, 1] * np.cos(bg))  # x_i sin(b+g) - y_i cos(b+g)
    rows = np.stack(
        [
            np.broadcast_to(c0, phi.shape[:-1] + c0.shape),
            k * np.cos(bg + phi),
            k * np.sin(bg + phi),
        ],
        axis=-1,
    )
    return rows


def _no_slip_row(phi) -> np.ndarray:
    """The sideways no-slip row ``[0, sin phi, -cos phi]`` at the chassis origin, (..., 1, 3)."""
    phi = np.asarray(phi, dtype=float)
    return np.stack([np.zeros_like(phi), np.sin(phi), -np.cos(phi)], axis=-1)[..., None, :]


def twist_to_qdot(q, twist) -> np.ndarray:
    """``qdot = (omega, R(phi) (v_bx, v_by))`` (MR eq. 13.2) for ``q = (phi, x, y)``.

    Parameters
    ----------
    q : array_like, shape (..., 3) (or longer: only q[..., 0] = phi is used)
    twist : array_like, shape (..., 3)
        Planar body twist (omega_bz rad/s, v_bx m/s, v_by m/s).

    Returns
    -------
    numpy.ndarray, shape (..., 3)
        (phidot, xdot, ydot).
    """
    q = np.asarray(q, dtype=float)
    phi = q[..., 0]
    V = _twist(twist)
    c, s = np.cos(phi), np.sin(phi)
    return np.stack([V[..., 0] * np.ones_like(c), c * V[..., 1] - s * V[..., 2],
                     s * V[..., 1] + c * V[..., 2]], axis=-1)  # fmt: skip


def planar_exp(twist) -> np.ndarray:
    """The body-frame displacement ``(dphi, dx_b, dy_b)`` after a unit time at a constant
    planar twist: the exponential of MR eq. 13.35 (exact, not Euler).

    ``omega = 0``: ``(0, v_bx, v_by)``; else
    ``(omega, (v_bx sin omega + v_by (cos omega - 1)) / omega,
    (v_by sin omega + v_bx (1 - cos omega)) / omega)``; small omega uses the series of
    ``sin(w)/w`` and ``(1 - cos w)/w`` so the result is smooth through 0.

    Parameters
    ----------
    twist : array_like, shape (..., 3)
        (omega_bz, v_bx, v_by) times the duration (rad, m, m).

    Returns
    -------
    numpy.ndarray, shape (..., 3)
    """
    V = _twist(twist)
    w, vx, vy = V[..., 0], V[..., 1], V[..., 2]
    small = np.abs(w) < 1e-4
    ws = np.where(small, 1.0, w)
    w2 = w * w
    sinc = np.where(small, 1.0 - w2 / 6.0 + w2 * w2 / 120.0, np.sin(ws) / ws)  # sin(w)/w
    h = np.sin(ws / 2.0)  # (1 - cos w)/w = 2 sin^2(w/2)/w: no cancelling 1 - cos w
    cosc = np.where(small, w / 2.0 - w * w2 / 24.0 + w * w2 * w2 / 720.0, 2.0 * (h * h) / ws)
    return np.stack([w, vx * sinc - vy * cosc, vy * sinc + vx * cosc], axis=-1)


# ---------------------------------------------------------------------- robots
class _Wheeled:
    """What every wheeled robot shares: H(0), its pseudo-inverse F, twists to wheel speeds."""

    #: names of the entries of the wheel-speed vector u
    inputs: tuple[str, ...] = ()

    def H(self, phi=0.0) -> np.ndarray:  # noqa: N802 (the book's symbol)
        """``H(phi)``: ``u = H(phi) qdot`` (MR eq. 13.5), shape (..., m, 3), 1/m and 1."""
        raise NotImplementedError

    @property
    def F(self) -> np.ndarray:  # noqa: N802
        """``F = H(0)^+`` (3, m): ``V_b = F u`` (MR eq. 13.33)."""
        return np.linalg.pinv(self.H(0.0))

    def wheel_speeds(self, twist) -> np.ndarray:
        """Wheel speeds ``u = H(0) V_b`` for a chassis body twist.

        Parameters
        ----------
        twist : array_like, shape (..., 3)
            (omega_bz rad/s, v_bx m/s, v_by m/s).

        Returns
        -------
        numpy.ndarray, shape (..., m)
            rad/s, one per entry of ``inputs``.
        """
        return _twist(twist) @ self.H(0.0).T

    def chassis_twist(self, wheel_speeds) -> np.ndarray:
        """The chassis body twist ``V_b = F u`` (least squares, MR eq. 13.33).

        Parameters
        ----------
        wheel_speeds : array_like, shape (..., m)
            rad/s (wheel angle increments give the twist times the duration).

        Returns
        -------
        numpy.ndarray, shape (..., 3)
        """
        u = as_array(wheel_speeds, "wheel_speeds", (len(self.inputs),))
        return u @ self.F.T

    def qdot(self, q, twist) -> np.ndarray:
        """``qdot = (omega, R(phi) v_b)``: see :func:`twist_to_qdot`."""
        _phi(q, self._q_sizes())
        return twist_to_qdot(q, twist)

    def _q_sizes(self) -> tuple[int, ...]:
        return (3, 3 + self.n_wheels)

    @property
    def n_wheels(self) -> int:
        """Number of wheel angles in the full configuration (phi, x, y, theta_1..)."""
        return len(self.inputs)

    # Pfaffian constraints -------------------------------------------------------
    def _chassis_rows(self, phi) -> np.ndarray:
        """Sideways no-slip rows on (phi, x, y): (..., k, 3)."""
        return np.zeros(np.shape(phi) + (0, 3))

    def _rolling_rows(self, phi) -> np.ndarray:
        """Rows relating qdot to the wheel rates: ``h_i(phi) qdot - theta_i_dot = 0``."""
        return self.H(phi)

    def constraints(self, q) -> np.ndarray:
        """Pfaffian constraints ``A(q) qdot = 0`` (MR sec. 13.2; course notes 001 eq. 10.15).

        Parameters
        ----------
        q : array_like, shape (..., 3) or (..., 3 + n_wheels)
            The chassis configuration (phi, x, y): the sideways no-slip constraints of
            conventional wheels (none for omnidirectional robots, shape (0, 3)). With the
            wheel angles appended, ``(phi, x, y, theta_1, ..)``, also the rolling
            constraints ``H(phi) qdot_chassis - theta_dot = 0``.

        Returns
        -------
        numpy.ndarray, shape (..., k, len(q))
        """
        phi = _phi(q, self._q_sizes())
        n = np.shape(q)[-1]
        side = self._chassis_rows(phi)
        if n == 3:
            return side
        m = self.n_wheels
        roll = self._rolling_rows(phi)
        lead = phi.shape
        eye = np.broadcast_to(-np.eye(m), lead + (m, m))
        top = np.concatenate([roll, eye], axis=-1)
        bottom = np.concatenate([side, np.zeros(lead + (side.shape[-2], m))], axis=-1)
        return np.concatenate([top, bottom], axis=-2)

    def constraints_dot(self, q, qdot) -> np.ndarray:
        """``dA/dt qdot`` (..., k), exactly.

        A depends on q only through phi, in its x and y columns as ``cos(a + phi)`` and
        ``sin(a + phi)``; so ``dA/dphi`` is those columns of ``A(phi + pi/2)``, and
        ``dA/dt qdot = (dA/dphi qdot) phidot``.
        """
        q = np.asarray(q, dtype=float)
        qdot = np.asarray(qdot, dtype=float)
        if qdot.shape[-1] != q.shape[-1]:
            raise ValueError(f"qdot must have shape (..., {q.shape[-1]}), got {qdot.shape}")
        turned = q.copy()
        turned[..., 0] += np.pi / 2
        dA = self.constraints(turned)
        return np.einsum("...ij,...j->...i", dA[..., 1:3], qdot[..., 1:3]) * qdot[..., 0]


@dataclass(frozen=True)
class Unicycle(_Wheeled):
    """A single upright rolling wheel (MR sec. 13.3): inputs ``u = (theta_dot, phi_dot)``,
    the wheel's rolling rate and the heading rate; ``V_b = (phi_dot, r theta_dot, 0)``.

    Parameters
    ----------
    wheel_radius : float
        m (default 1: the rolling rate is the forward speed, MR's simplified unicycle).
    """

    wheel_radius: float = 1.0
    inputs = ("theta_dot", "phi_dot")

    def __post_init__(self):
        as_positive(self.wheel_radius, "wheel_radius", " of metres")

    @property
    def n_wheels(self) -> int:
        return 1

    def H(self, phi=0.0) -> np.ndarray:  # noqa: N802
        """``[[0, cos phi / r, sin phi / r], [1, 0, 0]]`` (..., 2, 3)."""
        phi = np.asarray(phi, dtype=float)
        r, z, o = self.wheel_radius, np.zeros_like(phi), np.ones_like(phi)
        return np.stack([np.stack([z, np.cos(phi) / r, np.sin(phi) / r], -1),
                         np.stack([o, z, z], -1)], -2)  # fmt: skip

    def _chassis_rows(self, phi):
        return _no_slip_row(phi)

    def _rolling_rows(self, phi):
        return self.H(phi)[..., :1, :]


@dataclass(frozen=True)
class DiffDrive(_Wheeled):
    """A differential-drive robot (MR sec. 13.3): two driven wheels on a common axle through
    the chassis origin, left at ``(0, d)``, right at ``(0, -d)``; inputs ``u = (u_L, u_R)``.

    ``H(0) = (1/r) [[-d, 1, 0], [d, 1, 0]]``;
    ``V_b = (r (u_R - u_L) / (2 d), r (u_R + u_L) / 2, 0)``.

    Parameters
    ----------
    wheel_radius : float
        r, m.
    half_track : float
        d, half the distance between the wheels, m.
    """

    wheel_radius: float
    half_track: float
    inputs = ("u_L", "u_R")

    def __post_init__(self):
        as_positive(self.wheel_radius, "wheel_radius", " of metres")
        as_positive(self.half_track, "half_track", " of metres")

    def H(self, phi=0.0) -> np.ndarray:  # noqa: N802
        d = self.half_track
        pos = np.array([[0.0, d], [0.0, -d]])
        return _wheel_rows(phi, pos, np.zeros(2), np.zeros(2), self.wheel_radius)

    def _chassis_rows(self, phi):
        return _no_slip_row(phi)


@dataclass(frozen=True)
class Car(_Wheeled):
    """A car-like robot (MR sec. 13.3), the bicycle model: q = (phi, x, y) of the rear-axle
    centre; inputs ``u = (theta_dot, psi)``, the rear wheels' rolling rate and the steering
    angle of the front wheel, ``|psi| <= max_steer``.

    ``V_b = (v tan(psi) / l, v, 0)`` with ``v = r theta_dot`` (MR eq. 13.13); the turning
    radius is at least ``l / tan(max_steer)`` (:attr:`min_turning_radius`).

    Parameters
    ----------
    wheelbase : float
        l, rear to front axle, m.
    max_steer : float
        rad, in (0, pi/2).
    wheel_radius : float
        m (default 1: the rolling rate is the forward speed).
    """

    wheelbase: float
    max_steer: float
    wheel_radius: float = 1.0
    inputs = ("theta_dot", "psi")

    def __post_init__(self):
        as_positive(self.wheelbase, "wheelbase", " of metres")
        as_positive(self.wheel_radius, "wheel_radius", " of metres")
        if not 0 < float(self.max_steer) < np.pi / 2:
            raise ValueError(f"max_steer must be in (0, pi/2) rad, got {self.max_steer!r}")

    @property
    def n_wheels(self) -> int:
        return 1

    def _q_sizes(self) -> tuple[int, ...]:
        return (3, 4)

    @property
    def min_turning_radius(self) -> float:
        """``l / tan(max_steer)``, m."""
        return self.wheelbase / np.tan(self.max_steer)

    def H(self, phi=0.0) -> np.ndarray:  # noqa: N802
        """The rear driving wheel's row ``(1/r) [0, cos phi, sin phi]`` (..., 1, 3)."""
        return _wheel_rows(phi, np.zeros((1, 2)), np.zeros(1), np.zeros(1), self.wheel_radius)

    @property
    def F(self) -> np.ndarray:  # noqa: N802
        """Not linear for a car (the steering angle enters through tan): see chassis_twist."""
        raise AttributeError("a car's twist is not linear in its inputs; use chassis_twist(u)")

    def wheel_speeds(self, twist) -> np.ndarray:
        """``(theta_dot, psi)``: rear rolling rate ``v_bx / r`` and steering angle
        ``atan(l omega / v_bx)``.

        Raises
        ------
        ValueError
            The twist slides sideways (``v_by != 0``), turns on the spot, or needs a
            steering angle beyond ``max_steer``.
        """
        V = _twist(twist)
        w, vx, vy = V[..., 0], V[..., 1], V[..., 2]
        scale = np.maximum(1.0, np.abs(V).max(axis=-1))
        if np.any(np.abs(vy) > 1e-12 * scale):
            raise ValueError("twist: a car cannot slide sideways (v_by must be 0)")
        if np.any((np.abs(vx) <= 1e-12 * scale) & (np.abs(w) > 1e-12 * scale)):
            raise ValueError("twist: a car cannot turn on the spot (omega != 0 with v_bx = 0)")
        psi = np.arctan(self.wheelbase * w / np.where(vx == 0, 1.0, vx))
        psi = np.where(vx == 0, 0.0, psi)
        if np.any(np.abs(psi) > self.max_steer + 1e-12):
            raise ValueError(
                f"twist: needs a steering angle up to {np.max(np.abs(psi)):.4g} rad, beyond "
                f"max_steer = {self.max_steer:.4g} rad (turning radius below "
                f"{self.min_turning_radius:.4g} m)"
            )
        return np.stack([vx / self.wheel_radius, psi], axis=-1)

    def chassis_twist(self, wheel_speeds) -> np.ndarray:
        """``(r theta_dot tan(psi) / l, r theta_dot, 0)`` (MR eq. 13.13), shape (..., 3).

        The steering angle is clipped to ``+-max_steer``."""
        u = as_array(wheel_speeds, "wheel_speeds", (2,))
        v = self.wheel_radius * u[..., 0]
        psi = np.clip(u[..., 1], -self.max_steer, self.max_steer)
        return np.stack([v * np.tan(psi) / self.wheelbase, v, np.zeros_like(v)], axis=-1)

    def _chassis_rows(self, phi):
        return _no_slip_row(phi)

    def constraints(self, q) -> np.ndarray:
        """Pfaffian constraints of the car.

        Parameters
        ----------
        q : array_like, shape (..., 3) or (..., 4)
            ``(phi, x, y)``: the rear axle's no-slip ``[0, sin phi, -cos phi]``.
            ``(phi, x, y, psi)`` with the steering angle: also the front wheel's no-slip
            ``[l cos psi, -sin(phi + psi), cos(phi + psi), 0]`` (the front axle centre
            ``p + l (cos phi, sin phi)`` moves along the heading phi + psi); the two together
            give ``omega = v tan(psi) / l``.

        Returns
        -------
        numpy.ndarray, shape (..., 1, 3) or (..., 2, 4)
        """
        phi = _phi(q, (3, 4))
        rear = _no_slip_row(phi)
        if np.shape(q)[-1] == 3:
            return rear
        psi = np.asarray(q, dtype=float)[..., 3]
        front = np.stack([self.wheelbase * np.cos(psi), -np.sin(phi + psi), np.cos(phi + psi),
                          np.zeros_like(psi)], axis=-1)[..., None, :]  # fmt: skip
        rear = np.concatenate([rear, np.zeros(phi.shape + (1, 1))], axis=-1)
        return np.concatenate([rear, front], axis=-2)

    def constraints_dot(self, q, qdot) -> np.ndarray:
        """``dA/dt qdot`` (..., k) for q = (phi, x, y) or (phi, x, y, psi), exactly."""
        q = np.asarray(q, dtype=float)
        qdot = np.asarray(qdot, dtype=float)
        if q.shape[-1] == 3:
            return super().constraints_dot(q, qdot)
        if qdot.shape[-1] != 4:
            raise ValueError(f"qdot must have shape (..., 4), got {qdot.shape}")
        phi, psi = q[..., 0], q[..., 3]
        dphi, dpsi = qdot[..., 0], qdot[..., 3]
        rear = (np.cos(phi) * qdot[..., 1] + np.sin(phi) * qdot[..., 2]) * dphi
        a = phi + psi
        front = -self.wheelbase * np.sin(psi) * dpsi * dphi - (
            np.cos(a) * qdot[..., 1] + np.sin(a) * qdot[..., 2]
        ) * (dphi + dpsi)
        return np.stack([rear, front], axis=-1)


@dataclass(frozen=True)
class Omni(_Wheeled):
    """An omnidirectional robot on omniwheels (gamma = 0) or any wheels given by position,
    driving heading and free-sliding angle (MR sec. 13.2.1).

    Default: MR's three-omniwheel robot, wheels at distance d from the centre,
    ``H(0) = (1/r) [[-d, 1, 0], [-d, -1/2, -sin(pi/3)], [-d, -1/2, sin(pi/3)]]``
    (wheel i at angle ``pi/2 - 2 pi (i - 1)/3`` around the centre, driving clockwise).

    Parameters
    ----------
    wheel_radius : float
        r, m (one for every wheel).
    base_radius : float
        d, m, for the default three-wheel layout.
    positions : array_like, shape (m, 2), optional
        Wheel centres (x_i, y_i) in {b}, m.
    beta : array_like, shape (m,), optional
        Driving directions, rad.
    gamma : array_like, shape (m,), optional
        Free-sliding angles of the rollers from the driving direction, rad (default 0).
    """

    wheel_radius: float = 0.05
    base_radius: float = 0.2
    positions: np.ndarray | None = None
    beta: np.ndarray | None = None
    gamma: np.ndarray | None = None
    inputs: tuple[str, ...] = field(init=False, default=())

    def __post_init__(self):
        as_positive(self.wheel_radius, "wheel_radius", " of metres")
        if self.positions is None:
            d = as_positive(self.base_radius, "base_radius", " of metres")
            ang = np.pi / 2 - 2 * np.pi * np.arange(3) / 3
            pos = d * np.stack([np.cos(ang), np.sin(ang)], -1)
            beta = ang - np.pi / 2
        else:
            pos = as_array(self.positions, "positions", (2,))
            if pos.ndim != 2 or pos.shape[0] < 3:
                raise ValueError(f"positions must have shape (m, 2), m >= 3, got {pos.shape}")
            if self.beta is None:
                raise ValueError("beta (m,) is needed with positions")
            beta = as_array(self.beta, "beta", (pos.shape[0],)).reshape(-1)
        m = pos.shape[0]
        gamma = np.zeros(m) if self.gamma is None else np.asarray(self.gamma, dtype=float)
        if gamma.shape != (m,) or not np.all(np.abs(gamma) < np.pi / 2 - 1e-6):
            raise ValueError(f"gamma must have shape ({m},) with |gamma| < pi/2, got {gamma!r}")
        object.__setattr__(self, "positions", pos)
        object.__setattr__(self, "beta", beta)
        object.__setattr__(self, "gamma", gamma)
        object.__setattr__(self, "inputs", tuple(f"u_{i + 1}" for i in range(m)))
        if np.linalg.matrix_rank(self.H(0.0)) < 3:
            raise ValueError("the wheels do not span the planar twists: H(0) has rank < 3")

    def H(self, phi=0.0) -> np.ndarray:  # noqa: N802
        return _wheel_rows(phi, self.positions, self.beta, self.gamma, self.wheel_radius)

    def __eq__(self, other):
        return type(self) is type(other) and all(
            np.array_equal(getattr(self, k), getattr(other, k))
            for k in ("wheel_radius", "positions", "beta", "gamma")
        )

    __hash__ = None


class Mecanum(Omni):
    """Four mecanum wheels (rollers at 45 deg) at ``(+-l, +-w)``: the youBot's base.

    Wheels 1..4 front-left, front-right, rear-right, rear-left, driving along x, with
    ``gamma = -pi/4, pi/4, -pi/4, pi/4``; then (MR eq. 13.10)
    ``H(0) = (1/r) [[-l-w, 1, -1], [l+w, 1, 1], [l+w, 1, -1], [-l-w, 1, 1]]``.

    Parameters
    ----------
    half_length : float
        l, m: half the distance between front and rear axles.
    half_width : float
        w, m: half the track.
    wheel_radius : float
        r, m.
    """

    def __init__(self, half_length: float, half_width: float, wheel_radius: float):
        l_ = as_positive(half_length, "half_length", " of metres")
        w = as_positive(half_width, "half_width", " of metres")
        pos = np.array([[l_, w], [l_, -w], [-l_, -w], [-l_, w]])
        g = np.pi / 4
        object.__setattr__(self, "half_length", l_)
        object.__setattr__(self, "half_width", w)
        super().__init__(wheel_radius=wheel_radius, positions=pos, beta=np.zeros(4),
                         gamma=np.array([-g, g, -g, g]))  # fmt: skip

    def __repr__(self) -> str:
        return (f"Mecanum(half_length={self.half_length}, half_width={self.half_width}, "
                f"wheel_radius={self.wheel_radius})")  # fmt: skip


# ---------------------------------------------------------------------- odometry
def odometry(robot, q, increments) -> np.ndarray:
    """Chassis configuration after wheel-angle increments (MR sec. 13.4).

    Each increment ``dtheta`` gives the body twist over the step ``V_b = F dtheta``
    (the robot's ``chassis_twist``; for a car ``(dtheta_rear, psi)``), integrated exactly by
    :func:`planar_exp` (the wheel speeds are taken constant over the step), then
    ``q_{k+1} = q_k + (dphi, R(phi_k) (dx_b, dy_b))``.

    Parameters
    ----------
    robot : Unicycle, DiffDrive, Car, Omni or Mecanum
    q : array_like, shape (3,)
        (phi, x, y).
    increments : array_like, shape (m,) or (K, m)
        Wheel-angle increments, rad (a sequence is applied in order).

    Returns
    -------
    numpy.ndarray, shape (3,) or (K, 3)
        The configuration after the increment, or after each of the K increments.
    """
    q = as_array(q, "q", (3,))
    if q.ndim != 1:
        raise ValueError(f"q must have shape (3,), got {q.shape}")
    m = len(robot.inputs)
    d = as_array(increments, "increments", (m,))
    if d.ndim > 2:
        raise ValueError(f"increments must have shape ({m},) or (K, {m}), got {d.shape}")
    dq_b = planar_exp(robot.chassis_twist(d))
    if d.ndim == 1:
        return q + twist_to_qdot(q, dq_b)
    out = np.empty((d.shape[0], 3))
    for k in range(d.shape[0]):
        q = q + twist_to_qdot(q, dq_b[k])
        out[k] = q
    return out
