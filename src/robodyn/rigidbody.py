"""One free rigid body: Newton-Euler wrench, Euler's equations and Lie-group simulation.

The notation is that of Modern Robotics (MR) section 8.2 and of the course notes:

* the body frame {b} sits at the centre of mass (CoM) with body axes; the body twist is
  ``V = [omega, v]`` and the wrench ``F = [m, f]`` (angular part first);
* the spatial inertia at the CoM is ``G = diag(I_c, m 1)`` (MR eq. 8.32), and in any other
  frame {a} fixed to the body ``G_a = [Ad_{T_ba}]^T G [Ad_{T_ba}]`` (MR eq. 8.42);
* the rotation ``R = R_sb`` carries body coordinates to space coordinates, ``dR/dt = R [omega]``
  (notes eq. 10.43), and the spatial angular momentum ``L_s = R I omega`` is constant when no
  torque acts.

Functions
---------
``wrench`` (MR eq. 8.41), ``euler_body`` (notes eq. 10.44), ``euler_space`` (eq. 10.37/10.38),
``euler_principal`` (eq. 10.45), ``forward_dynamics`` and ``angular_acceleration`` (the same
equations solved for the acceleration), ``simulate`` (torque-free or torqued tumbling with a
Lie-group Runge-Kutta method), ``plot_tumbling`` and ``dzhanibekov_demo``.

Every rotation update of the Lie-group integrators is ``R <- R exp([increment])``, so R stays on
SO(3) to round-off without any projection. The explicit Euler integrator ``R <- R + dt R [omega]``
is kept only as the textbook counter-example: it leaves SO(3) and its drift is reported, never
repaired.

The torque-free stepping loop runs in robodyn's compiled core (``kernels/core/rigidbody.c``);
``simulate(..., backend="python")`` runs the plain numpy reference written beside the book's
equations, which also handles a torque callback.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ._checks import as_array, as_square, as_vector
from ._files import output_path, save_figure
from .spatial import ad, adjoint, check_rotation, skew, transform

__all__ = [
    "INTEGRATORS",
    "MAX_STEPS",
    "DzhanibekovDemo",
    "TumblingResult",
    "angular_acceleration",
    "count_flips",
    "dzhanibekov_demo",
    "euler_body",
    "euler_principal",
    "euler_space",
    "forward_dynamics",
    "plot_tumbling",
    "simulate",
    "spatial_inertia",
    "wrench",
]

#: Names accepted by ``simulate(integrator=...)``.
INTEGRATORS = ("lie_rk4", "lie_euler", "euler")
#: Largest number of steps ``simulate`` accepts (about 1 GB of stored states).
MAX_STEPS = 10_000_000

_BACKENDS = ("auto", "compiled", "python")
_METHOD_CODE = {"lie_rk4": 0, "lie_euler": 1, "euler": 2}
_EINSUM_MV = "...ij,...j->...i"


# --------------------------------------------------------------------------- inertia input
def _inertia_parts(inertia, mass=None, *, name: str = "inertia") -> tuple[float | None, np.ndarray]:
    """Mass and rotational inertia about the CoM from either accepted inertia form.

    Parameters
    ----------
    inertia : RigidInertia or array_like, shape (3, 3)
        An object with ``.mass`` and ``.inertia`` (``robodyn.inertia.RigidInertia``), or the
        rotational inertia ``I_c`` itself (symmetric positive definite, body axes).
    mass : float, optional
        The mass, for a plain matrix; with a ``RigidInertia`` it must agree with ``.mass``.
    name : str
        Argument name for error messages.

    Returns
    -------
    m : float or None
        The mass (None when a plain matrix came without ``mass``).
    I : numpy.ndarray, shape (3, 3)
        Rotational inertia about the CoM in body axes.
    """
    if hasattr(inertia, "mass") and hasattr(inertia, "inertia"):
        m = float(inertia.mass)
        I = as_square(inertia.inertia, f"{name}.inertia", 3)
        if mass is not None and not math.isclose(float(mass), m, rel_tol=1e-12):
            raise ValueError(f"mass = {mass} disagrees with {name}.mass = {m}")
    else:
        I = as_square(inertia, name, 3)
        m = None if mass is None else float(mass)
    if not np.allclose(I, I.T, rtol=1e-10, atol=1e-14 * max(1.0, float(np.abs(I).max()))):
        raise ValueError(f"{name} must be a symmetric (3, 3) matrix, got\n{I}")
    I = 0.5 * (I + I.T)
    eig = np.linalg.eigvalsh(I)
    if eig[0] <= 0:
        raise ValueError(
            f"{name} must be positive definite, got eigenvalues {eig} "
            "(inertia is about the CoM in body axes, kg m^2)"
        )
    if m is not None and not (math.isfinite(m) and m > 0):
        raise ValueError(f"mass must be a positive finite number, got {m}")
    return m, I


def spatial_inertia(inertia, mass=None, com=None) -> np.ndarray:
    """Spatial inertia ``G`` (6x6) of a body in its body frame (MR eqs. 8.32 and 8.42).

    With the CoM at the body-frame origin, ``G = diag(I_c, m 1)``. With the CoM at ``c`` in
    the body frame {a}: ``G_a = [Ad_{T_ba}]^T G_b [Ad_{T_ba}]`` with {b} the CoM frame (body
    axes) and ``T_ba = (1, -c)``, which expands to ``[[I_c - m [c]^2, m [c]], [-m [c], m 1]]``.

    Parameters
    ----------
    inertia : RigidInertia or array_like, shape (3, 3)
        A ``RigidInertia`` (its ``.com`` is used) or ``I_c`` about the CoM.
    mass : float, optional
        Required with a plain matrix.
    com : array_like, shape (3,), optional
        CoM in the body frame, with a plain matrix (default: the origin).

    Returns
    -------
    numpy.ndarray, shape (6, 6)
    """
    m, I = _inertia_parts(inertia, mass)
    if m is None:
        raise ValueError("mass is required when inertia is a plain (3, 3) matrix")
    G_b = np.zeros((6, 6))
    G_b[:3, :3] = I  # MR eq. 8.32: G_b = diag(I_b, m 1)
    G_b[3:, 3:] = m * np.eye(3)
    if com is None:
        com = getattr(inertia, "com", None)
    if com is None:
        return G_b
    c = as_vector(com, "com", 3)
    Ad_ba = adjoint(transform(None, -c))  # T_ba: frame {a} seen from the CoM frame {b}
    return Ad_ba.T @ G_b @ Ad_ba  # MR eq. 8.42


def _as_G(G, name: str = "G") -> np.ndarray:
    return as_array(G, name, (6, 6))


def _solve(A: np.ndarray, b: np.ndarray, name: str) -> np.ndarray:
    """``A^-1 b`` over broadcast batches; a singular A is a ValueError naming ``name``."""
    batch = np.broadcast_shapes(A.shape[:-2], b.shape[:-1])
    n = A.shape[-1]
    A = np.broadcast_to(A, (*batch, n, n))
    b = np.broadcast_to(b, (*batch, n))
    try:
        return np.linalg.solve(A, b[..., None])[..., 0]
    except np.linalg.LinAlgError as exc:
        raise ValueError(f"{name} is singular") from exc


# ----------------------------------------------------------------- Newton-Euler and Euler
def wrench(G, V, dV) -> np.ndarray:
    """Wrench needed for the body twist acceleration ``dV`` (MR eq. 8.41).

    ``F = G dV - [ad_V]^T G V``. At the CoM with ``G = diag(I, m 1)`` this is
    ``[I domega + omega x I omega, m (dv + omega x v)]`` (course notes 004). It holds in any
    body-fixed frame {a} with ``G_a`` (MR eq. 8.42).

    Parameters
    ----------
    G : array_like, shape (..., 6, 6)
        Spatial inertia in the frame of V.
    V : array_like, shape (..., 6)
        Body twist ``[omega, v]``.
    dV : array_like, shape (..., 6)
        Its time derivative.

    Returns
    -------
    numpy.ndarray, shape (..., 6)
        Wrench ``[m, f]`` in the same frame.
    """
    G = _as_G(G)
    V = as_array(V, "V", (6,))
    dV = as_array(dV, "dV", (6,))
    GV = np.einsum(_EINSUM_MV, G, V)  # momentum P = G V (MR eq. 8.45)
    adT = np.swapaxes(ad(V), -1, -2)
    return np.einsum(_EINSUM_MV, G, dV) - np.einsum(_EINSUM_MV, adT, GV)


def euler_body(I, omega, domega) -> np.ndarray:
    """Euler's equations in the body frame: ``tau = I domega + omega x I omega`` (eq. 10.44).

    Parameters
    ----------
    I : array_like, shape (..., 3, 3)
        Rotational inertia about the CoM, body axes.
    omega, domega : array_like, shape (..., 3)
        Body angular velocity and acceleration.

    Returns
    -------
    numpy.ndarray, shape (..., 3)
        Body torque about the CoM.
    """
    I = as_array(I, "I", (3, 3))
    w = as_array(omega, "omega", (3,))
    dw = as_array(domega, "domega", (3,))
    return np.einsum(_EINSUM_MV, I, dw) + np.cross(w, np.einsum(_EINSUM_MV, I, w))


def euler_space(I_s, omega_s, domega_s) -> np.ndarray:
    """Euler's equations in the space frame: ``tau_s = I_s domega_s + [omega_s] I_s omega_s``
    (notes eqs. 10.37/10.38), with ``I_s = R I R^T`` the inertia in space axes.

    Parameters
    ----------
    I_s : array_like, shape (..., 3, 3)
    omega_s, domega_s : array_like, shape (..., 3)
        Spatial angular velocity ``R omega`` and its derivative ``R domega``.

    Returns
    -------
    numpy.ndarray, shape (..., 3)
        Torque in space axes (about the CoM).
    """
    I_s = as_array(I_s, "I_s", (3, 3))
    w = as_array(omega_s, "omega_s", (3,))
    dw = as_array(domega_s, "domega_s", (3,))
    return np.einsum(_EINSUM_MV, I_s, dw) + np.einsum(
        _EINSUM_MV, skew(w), np.einsum(_EINSUM_MV, I_s, w)
    )


def euler_principal(I_diag, omega, domega) -> np.ndarray:
    """Euler's equations in principal axes, component form (notes eq. 10.45).

    ``tau_x = I_xx dw_x + (I_zz - I_yy) w_y w_z`` and cyclic permutations.

    Parameters
    ----------
    I_diag : array_like, shape (..., 3)
        Principal moments ``(I_xx, I_yy, I_zz)``.
    omega, domega : array_like, shape (..., 3)

    Returns
    -------
    numpy.ndarray, shape (..., 3)
    """
    Id = as_array(I_diag, "I_diag", (3,))
    w = as_array(omega, "omega", (3,))
    dw = as_array(domega, "domega", (3,))
    Ix, Iy, Iz = Id[..., 0], Id[..., 1], Id[..., 2]
    wx, wy, wz = w[..., 0], w[..., 1], w[..., 2]
    return np.stack(
        [
            Ix * dw[..., 0] + (Iz - Iy) * wy * wz,
            Iy * dw[..., 1] + (Ix - Iz) * wx * wz,
            Iz * dw[..., 2] + (Iy - Ix) * wx * wy,
        ],
        -1,
    )


def angular_acceleration(I, omega, tau) -> np.ndarray:
    """Body angular acceleration from Euler's equations: ``domega = I^-1 (tau - omega x I omega)``.

    Parameters
    ----------
    I : RigidInertia or array_like, shape (3, 3)
        Rotational inertia about the CoM (a batch ``(..., 3, 3)`` is accepted as a plain array).
    omega, tau : array_like, shape (..., 3)
        Body angular velocity and body torque about the CoM.

    Returns
    -------
    numpy.ndarray, shape (..., 3)
    """
    if hasattr(I, "inertia"):
        _, I = _inertia_parts(I, name="I")
    else:
        I = as_array(I, "I", (3, 3))
    w = as_array(omega, "omega", (3,))
    tau = as_array(tau, "tau", (3,))
    return _solve(I, tau - np.cross(w, np.einsum(_EINSUM_MV, I, w)), "I")


def forward_dynamics(inertia, V, F, *, mass=None) -> np.ndarray:
    """Twist acceleration of a free body: ``dV = G^-1 (F + [ad_V]^T G V)`` (MR eq. 8.41).

    Parameters
    ----------
    inertia : array_like, shape (..., 6, 6), or RigidInertia, or array_like, shape (3, 3)
        The spatial inertia G in the frame of V; or a ``RigidInertia`` (G in its body frame,
        see :func:`spatial_inertia`); or ``I_c`` with ``mass`` (G at the CoM).
    V : array_like, shape (..., 6)
        Body twist ``[omega, v]``.
    F : array_like, shape (..., 6)
        Applied wrench ``[m, f]`` in the same frame.
    mass : float, optional
        Mass, with a (3, 3) ``inertia``.

    Returns
    -------
    numpy.ndarray, shape (..., 6)
        ``dV``.
    """
    if hasattr(inertia, "inertia"):
        G = spatial_inertia(inertia, mass)
    else:
        a = np.asarray(inertia, dtype=float)
        if a.shape[-2:] == (3, 3):
            G = spatial_inertia(a, mass)
        else:
            G = _as_G(inertia, "inertia")
    V = as_array(V, "V", (6,))
    F = as_array(F, "F", (6,))
    adT = np.swapaxes(ad(V), -1, -2)
    rhs = F + np.einsum(_EINSUM_MV, adT, np.einsum(_EINSUM_MV, G, V))
    return _solve(G, rhs, "inertia (spatial inertia G)")


# --------------------------------------------------------------------------- simulation
@dataclass(frozen=True)
class TumblingResult:
    """States of a simulated rigid body, sampled every ``dt`` (arrays are read-only).

    Attributes
    ----------
    t : numpy.ndarray, shape (N,)
    R : numpy.ndarray, shape (N, 3, 3)
        Orientation ``R_sb``.
    omega : numpy.ndarray, shape (N, 3)
        Body angular velocity.
    energy : numpy.ndarray, shape (N,)
        Rotational kinetic energy ``1/2 omega^T I omega`` (notes eq. 10.40).
    momentum : numpy.ndarray, shape (N, 3)
        Spatial angular momentum ``L_s = R I omega`` about the CoM.
    inertia : numpy.ndarray, shape (3, 3)
    integrator : str
    dt : float
    """

    t: np.ndarray
    R: np.ndarray
    omega: np.ndarray
    energy: np.ndarray
    momentum: np.ndarray
    inertia: np.ndarray
    integrator: str
    dt: float

    @property
    def energy_drift(self) -> float:
        """``max |E(t) - E(0)| / E(0)`` (absolute when ``E(0) = 0``)."""
        e0 = float(self.energy[0])
        err = float(np.abs(self.energy - e0).max())
        return err / e0 if e0 > 0 else err

    @property
    def momentum_drift(self) -> float:
        """``max |L_s(t) - L_s(0)| / |L_s(0)|`` of the spatial momentum vector (absolute when 0)."""
        L0 = self.momentum[0]
        err = float(np.linalg.norm(self.momentum - L0, axis=-1).max())
        n0 = float(np.linalg.norm(L0))
        return err / n0 if n0 > 0 else err

    @property
    def rotation_error(self) -> float:
        """``max_t max_ij |R^T R - 1|``: how far R left SO(3)."""
        RtR = np.swapaxes(self.R, -1, -2) @ self.R
        return float(np.abs(RtR - np.eye(3)).max())

    @property
    def omega_s(self) -> np.ndarray:
        """Spatial angular velocity ``R omega``, shape (N, 3)."""
        return np.einsum(_EINSUM_MV, self.R, self.omega)


def _check_positive(x, name: str) -> float:
    try:
        v = float(x)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a positive number, got {x!r}") from exc
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a positive finite number, got {v}")
    return v


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a x b for two 3-vectors (np.cross costs ~50 us on tiny arrays)."""
    return np.array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )


def _expm3(phi: np.ndarray) -> np.ndarray:
    """Rodrigues' formula (MR eq. 3.51) for one 3-vector, without argument checks."""
    x, y, z = float(phi[0]), float(phi[1]), float(phi[2])
    t2 = x * x + y * y + z * z
    # B = (1 - cos t) / t^2 as rigidbody.c computes it (why not the half-angle form: there)
    if t2 < 1e-6:  # Taylor series of A = sin t / t and B = (1 - cos t) / t^2
        A, B = 1.0 - t2 / 6.0 + t2 * t2 / 120.0, 0.5 - t2 / 24.0 + t2 * t2 / 720.0
    else:
        t = math.sqrt(t2)
        A, B = math.sin(t) / t, (1.0 - math.cos(t)) / t2
    W = np.array([[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]])  # [phi]
    return np.eye(3) + A * W + B * (W @ W)


def _rhs(I, I_inv, t: float, R: np.ndarray, w: np.ndarray, torque) -> np.ndarray:
    """domega from notes eq. 10.44: I domega = tau - omega x I omega."""
    gyro = _cross(w, I @ w)
    if torque is None:
        return I_inv @ -gyro
    return I_inv @ (_call_torque(torque, t, R, w) - gyro)


def _call_torque(torque, t: float, R: np.ndarray, w: np.ndarray) -> np.ndarray:
    tau = np.asarray(torque(t, R.copy(), w.copy()), dtype=float)
    if tau.shape != (3,):
        raise ValueError(f"torque(t, R, omega) must return shape (3,), got {tau.shape}")
    if not np.all(np.isfinite(tau)):
        raise ValueError(f"torque(t, R, omega) returned NaN or inf at t = {t}")
    return tau


def _step_lie_rk4(I, I_inv, t, h, R, w, torque):
    """One step of the commutator-free Lie-group RK4 (Celledoni-Marthinsen-Owren CF4).

    On SO(3) x R^3 with dR = R [omega] (eq. 10.43) and domega from eq. 10.44. The R^3 part is
    classical RK4; every rotation update is ``R exp([h * weights . omega_i])``.
    """
    k1 = h * _rhs(I, I_inv, t, R, w, torque)
    F1 = h * w  # so(3) stage increments h omega_i
    R2 = R @ _expm3(F1 / 2)
    w2 = w + k1 / 2
    k2 = h * _rhs(I, I_inv, t + h / 2, R2, w2, torque)
    F2 = h * w2
    R3 = R @ _expm3(F2 / 2)
    w3 = w + k2 / 2
    k3 = h * _rhs(I, I_inv, t + h / 2, R3, w3, torque)
    F3 = h * w3
    R4 = R2 @ _expm3(F3 - F1 / 2)
    w4 = w + k3
    k4 = h * _rhs(I, I_inv, t + h, R4, w4, torque)
    F4 = h * w4
    R_new = (
        R
        @ _expm3((3 * F1 + 2 * F2 + 2 * F3 - F4) / 12)
        @ _expm3((-F1 + 2 * F2 + 2 * F3 + 3 * F4) / 12)
    )
    return R_new, w + (k1 + 2 * k2 + 2 * k3 + k4) / 6


def _step_lie_euler(I, I_inv, t, h, R, w, torque):
    """Lie-Euler: R <- R exp([omega] h), omega <- omega + h domega (both from the old state)."""
    dw = _rhs(I, I_inv, t, R, w, torque)
    return R @ _expm3(h * w), w + h * dw


def _step_euler(I, I_inv, t, h, R, w, torque):
    """Explicit Euler on the matrix itself: R <- R + h R [omega] (leaves SO(3))."""
    dw = _rhs(I, I_inv, t, R, w, torque)
    W = np.array([[0.0, -w[2], w[1]], [w[2], 0.0, -w[0]], [-w[1], w[0], 0.0]])  # [omega]
    return R + h * (R @ W), w + h * dw


_PY_STEPS = {"lie_rk4": _step_lie_rk4, "lie_euler": _step_lie_euler, "euler": _step_euler}


def _simulate_python(I, R0, w0, h, n, integrator, torque):
    step = _PY_STEPS[integrator]
    I_inv = np.linalg.inv(I)
    R_out = np.empty((n + 1, 3, 3))
    w_out = np.empty((n + 1, 3))
    R_out[0], w_out[0] = R0, w0
    R, w = R0, w0
    for k in range(n):
        R, w = step(I, I_inv, k * h, h, R, w, torque)
        R_out[k + 1], w_out[k + 1] = R, w
    return R_out, w_out


def simulate(
    inertia,
    R0,
    omega0,
    duration: float,
    dt: float,
    integrator: str = "lie_rk4",
    torque: Callable[[float, np.ndarray, np.ndarray], np.ndarray] | None = None,
    *,
    backend: str = "auto",
) -> TumblingResult:
    """Simulate the rotation of a free rigid body about its CoM.

    State ``(R, omega)`` on SO(3) x R^3 with ``dR/dt = R [omega]`` (notes eq. 10.43) and
    ``I domega = tau - omega x I omega`` (eq. 10.44). Integrators:

    * ``"lie_rk4"``: commutator-free Lie-group RK4 (Celledoni, Marthinsen and Owren's CF4, a
      Crouch-Grossman-type method). Classical RK4 on omega; R is updated only by products of
      ``exp3`` of stage increments, so it stays in SO(3) to round-off (~1e-14) with no
      projection. Fourth order.
    * ``"lie_euler"``: ``R <- R exp3(omega dt)``, ``omega <- omega + dt domega``. First order,
      on SO(3).
    * ``"euler"``: explicit Euler on the matrix, ``R <- R + dt R [omega]``. First order; R leaves
      SO(3) (see ``result.rotation_error``). Kept for contrast; never projected.

    Parameters
    ----------
    inertia : RigidInertia or array_like, shape (3, 3)
        Rotational inertia about the CoM in body axes (symmetric positive definite).
    R0 : array_like, shape (3, 3)
        Initial orientation ``R_sb`` (a rotation to 1e-6).
    omega0 : array_like, shape (3,)
        Initial body angular velocity, rad/s.
    duration : float
        Simulated time, s (> 0).
    dt : float
        Step, s (> 0). The run takes ``n = ceil(duration / dt)`` steps of exactly dt, so the last
        sample is at ``n dt >= duration``; at most ``MAX_STEPS`` steps.
    integrator : {"lie_rk4", "lie_euler", "euler"}
    torque : callable, optional
        ``torque(t, R, omega) -> (3,)`` body torque about the CoM. None means torque-free.
    backend : {"auto", "compiled", "python"}
        ``"auto"`` uses the compiled core (``kernels/core/rigidbody.c``) when ``torque`` is
        None and the numpy reference otherwise; ``"compiled"`` requires ``torque=None``.

    Returns
    -------
    TumblingResult
        ``.t (N,)``, ``.R (N, 3, 3)``, ``.omega (N, 3)``, ``.energy (N,)``, ``.momentum (N, 3)``
        with ``N = n + 1``, and ``.energy_drift``, ``.momentum_drift``, ``.rotation_error``.
    """
    _, I = _inertia_parts(inertia)
    R0 = as_square(R0, "R0", 3)
    check_rotation(R0, "R0")
    w0 = as_vector(omega0, "omega0", 3)
    duration = _check_positive(duration, "duration")
    h = _check_positive(dt, "dt")
    if integrator not in INTEGRATORS:
        raise ValueError(f"integrator must be one of {INTEGRATORS}, got {integrator!r}")
    if torque is not None and not callable(torque):
        raise ValueError(f"torque must be a callable (t, R, omega) -> (3,) or None, got {torque!r}")
    if backend not in _BACKENDS:
        raise ValueError(f"backend must be one of {_BACKENDS}, got {backend!r}")
    if backend == "compiled" and torque is not None:
        raise ValueError(
            "backend='compiled' runs torque-free only; use backend='python' with torque"
        )
    steps = duration / h
    if steps > MAX_STEPS:
        raise ValueError(
            f"duration / dt = {duration:g} / {h:g} = {steps:.3g} steps exceeds MAX_STEPS = "
            f"{MAX_STEPS}; increase dt or shorten duration"
        )
    n = max(1, math.ceil(steps * (1.0 - 1e-12)))

    if backend == "python" or torque is not None:
        R, w = _simulate_python(I, R0, w0, h, n, integrator, torque)
    else:
        from .kernels import core

        R, w = core.tumble(
            np.ascontiguousarray(I, dtype=float),
            np.ascontiguousarray(np.linalg.inv(I)),
            np.ascontiguousarray(R0, dtype=float),
            np.ascontiguousarray(w0, dtype=float),
            h,
            n,
            _METHOD_CODE[integrator],
        )
    if not (np.all(np.isfinite(R)) and np.all(np.isfinite(w))):
        raise FloatingPointError(
            f"simulation with integrator={integrator!r} diverged (non-finite state); reduce dt"
        )
    Iw = w @ I  # I symmetric: rows are (I omega_k)^T
    energy = 0.5 * np.einsum("ni,ni->n", w, Iw)  # eq. 10.40
    momentum = np.einsum(_EINSUM_MV, R, Iw)  # L_s = R I omega
    t = h * np.arange(n + 1)
    arrays = (t, R, w, energy, momentum, I)
    for a in arrays:
        a.flags.writeable = False
    return TumblingResult(t, R, w, energy, momentum, I, integrator, h)


# ------------------------------------------------------------------------------ analysis
def count_flips(result: TumblingResult, axis=None) -> int:
    """Number of sign changes of omega along a body axis (Dzhanibekov flips).

    Parameters
    ----------
    result : TumblingResult
    axis : int or array_like, shape (3,), optional
        Body axis index (0, 1, 2) or direction. Default: the intermediate principal axis of
        ``result.inertia``.

    Returns
    -------
    int
    """
    if axis is None:
        _, vecs = np.linalg.eigh(result.inertia)
        d = vecs[:, 1]
    elif isinstance(axis, (int, np.integer)):
        if not 0 <= int(axis) < 3:
            raise ValueError(f"axis must be 0, 1 or 2, got {axis}")
        d = np.eye(3)[int(axis)]
    else:
        d = as_vector(axis, "axis", 3)
    s = np.sign(result.omega @ d)
    s = s[s != 0]
    return int(np.count_nonzero(s[1:] != s[:-1]))


def plot_tumbling(
    result: TumblingResult,
    path,
    *,
    title: str | None = None,
    compare: TumblingResult | None = None,
    overwrite: bool = False,
) -> Path:
    """Write a PNG with three panels: omega(t) components, kinetic energy, ``|L_s|``.

    Uses ``matplotlib.figure.Figure`` directly (no pyplot, no global backend change).

    Parameters
    ----------
    result : TumblingResult
        Drawn with solid lines.
    path : str or os.PathLike
        Output file; its folder must exist (nothing is created).
    title : str, optional
    compare : TumblingResult, optional
        A second run (e.g. explicit Euler) drawn dashed.
    overwrite : bool
        Replace an existing file (else FileExistsError, before drawing).

    Returns
    -------
    pathlib.Path
    """
    from matplotlib.figure import Figure

    path = output_path(path, overwrite=overwrite, name="path")
    fig = Figure(figsize=(9, 8), layout="constrained")
    ax_w, ax_e, ax_l = fig.subplots(3, 1, sharex=True)
    colors = ("tab:red", "tab:green", "tab:blue")

    def draw(res: TumblingResult, style: str, label: str) -> None:
        step = max(1, len(res.t) // 4000)  # at most ~4000 points per line
        t = res.t[::step]
        for i, c in enumerate(colors):
            ax_w.plot(t, res.omega[::step, i], style, color=c, lw=1, label=f"{label} w{'xyz'[i]}")
        ax_e.plot(t, res.energy[::step], style, color="k", lw=1, label=label)
        ax_l.plot(
            t, np.linalg.norm(res.momentum[::step], axis=-1), style, color="k", lw=1, label=label
        )

    draw(result, "-", result.integrator)
    if compare is not None:
        draw(compare, "--", compare.integrator)
    ax_w.set_ylabel("body omega (rad/s)")
    outside = dict(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    ax_w.legend(**outside)
    ax_e.set_ylabel("energy 1/2 w^T I w (J)")
    ax_e.legend(**outside)
    ax_l.set_ylabel("|L_s| (kg m^2/s)")
    ax_l.legend(**outside)
    ax_l.set_xlabel("t (s)")
    fig.suptitle(title or f"rigid body, {result.integrator}, dt = {result.dt:g} s")
    return save_figure(fig, path, overwrite=overwrite, dpi=100)


# ---------------------------------------------------------------------------------- demo
@dataclass(frozen=True)
class DzhanibekovDemo:
    """Output of :func:`dzhanibekov_demo`."""

    lie: TumblingResult  # lie_rk4 run
    euler: TumblingResult  # explicit Euler run, same initial state and dt
    summary: dict  # energy/momentum drifts, rotation errors, flips, steps
    figure: Path | None  # the PNG, when an output folder was given


def dzhanibekov_demo(
    outdir=None,
    *,
    duration: float = 100.0,
    dt: float = 1e-3,
    spin: float = 2.0,
    perturbation: float = 1e-2,
    overwrite: bool = False,
) -> DzhanibekovDemo:
    """The tennis-racket (Dzhanibekov) effect: a box spun about its intermediate axis flips.

    A 1 kg solid box of 0.1 x 0.3 x 0.6 m (principal moments 0.0375, 0.0308, 0.0083 kg m^2) is
    spun at ``spin`` rad/s about body y (intermediate axis) with ``perturbation * spin`` about x
    and z, then left torque-free. Runs lie_rk4 and explicit Euler from the same state.

    Parameters
    ----------
    outdir : str or os.PathLike, optional
        Folder for ``dzhanibekov.png``; no figure when None.
    duration, dt : float
        Simulated time and step, s.
    spin : float
        Angular speed about the intermediate axis, rad/s.
    perturbation : float
        Relative size of the initial x and z components.
    overwrite : bool
        Replace an existing ``dzhanibekov.png`` in ``outdir`` (else FileExistsError,
        before the simulation).

    Returns
    -------
    DzhanibekovDemo
        ``.lie``, ``.euler`` results, ``.summary`` dict with keys ``energy_drift``,
        ``momentum_drift``, ``rotation_error`` (lie_rk4), ``euler_energy_drift``,
        ``euler_momentum_drift``, ``euler_rotation_error``, ``flips``, ``steps``; ``.figure``.
    """
    from .inertia import box

    figure = None
    if outdir is not None:  # checked before the runs
        figure = output_path(Path(outdir) / "dzhanibekov.png", overwrite=overwrite, name="outdir")
    I = box(mass=1.0, size=(0.1, 0.3, 0.6))  # I = m/12 diag(b^2 + c^2, a^2 + c^2, a^2 + b^2)
    omega0 = spin * np.array([perturbation, 1.0, perturbation])
    lie = simulate(I, np.eye(3), omega0, duration, dt, "lie_rk4")
    eul = simulate(I, np.eye(3), omega0, duration, dt, "euler")
    summary = {
        "energy_drift": lie.energy_drift,
        "momentum_drift": lie.momentum_drift,
        "rotation_error": lie.rotation_error,
        "euler_energy_drift": eul.energy_drift,
        "euler_momentum_drift": eul.momentum_drift,
        "euler_rotation_error": eul.rotation_error,
        "flips": count_flips(lie),
        "steps": len(lie.t) - 1,
    }
    if figure is not None:
        figure = plot_tumbling(
            lie,
            figure,
            title=(
                f"Dzhanibekov effect: 1 kg box 0.1 x 0.3 x 0.6 m, {summary['flips']} flips\n"
                f"lie_rk4 (solid) vs explicit Euler (dashed), dt = {dt:g} s"
            ),
            compare=eul,
            overwrite=overwrite,
        )
    return DzhanibekovDemo(lie, eul, summary, figure)
