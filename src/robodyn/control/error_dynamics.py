"""Linear error dynamics, the tool that chooses gains (MR sec. 11.2).

A joint of (effective) inertia ``m`` under PD feedback on its error ``e = theta_d - theta``
has the error dynamics ``m e_dd + k_d e_d + k_p e = 0``; with an integral term
``k_i int e`` (PID, MR sec. 11.4.1) the error obeys the third-order
``m e_ddd + k_d e_dd + k_p e_d + k_i e = 0``. For the acceleration gains of computed torque
(MR eq. 11.35) and of :class:`robodyn.control.ComputedTorque` the inertia cancels: ``m = 1``.

:func:`error_dynamics` returns the characteristic equation's roots and, for the
second-order case, the standard form ``e_dd + 2 zeta omega_n e_d + omega_n^2 e = 0``
(MR sec. 11.2.2)::

    omega_n = sqrt(k_p / m),   zeta = k_d / (2 sqrt(k_p m))
    s_1,2   = -zeta omega_n +- omega_n sqrt(zeta^2 - 1)
    overshoot = exp(-pi zeta / sqrt(1 - zeta^2))      (zeta < 1; 0 otherwise)
    t_s (2 %) = 4 / (zeta omega_n)                      (zeta <= 1)

and the error's response to an initial error (a step of the reference) with
:meth:`ErrorDynamics.response` and :meth:`ErrorDynamics.plot`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["error_dynamics", "ErrorDynamics"]


def _nonnegative(x, name: str, positive: bool = False) -> np.ndarray:
    """A gain or inertia as a float array, finite and >= 0 (> 0 with ``positive``)."""
    a = np.asarray(x, dtype=float)
    bad = ~np.isfinite(a) | ((a <= 0) if positive else (a < 0))
    if np.any(bad):
        what = "> 0" if positive else ">= 0"
        raise ValueError(f"{name} must be finite and {what}, got {x!r}")
    return a


def error_dynamics(kp, kd, ki=0.0, *, m=1.0) -> ErrorDynamics:
    """The linear error dynamics of a joint under PD or PID feedback (MR sec. 11.2).

    ``m e_dd + kd e_d + kp e = 0`` (``ki = 0``) or ``m e_ddd + kd e_dd + kp e_d + ki e = 0``
    (PID): the characteristic equation's roots, and for the second-order case its damping
    ratio, natural frequency, overshoot and 2 % settling time by MR's formulas.

    Parameters
    ----------
    kp : float or array_like
        Proportional gain, > 0 (N m/rad for a joint of inertia ``m``; 1/s^2 with ``m = 1``).
    kd : float or array_like
        Derivative gain, >= 0 (N m s/rad; 1/s with ``m = 1``).
    ki : float or array_like
        Integral gain, >= 0 (N m/(rad s); 1/s^3 with ``m = 1``). Any nonzero entry makes
        the dynamics third order for every entry.
    m : float or array_like
        The joint's inertia (kg m^2 or kg), > 0; 1 for the acceleration gains of computed
        torque (the law divides by M). With per-joint vectors (e.g. from
        :func:`robodyn.control.gains_for`, ``m = diag(M)``) every result has their shape.

    Returns
    -------
    ErrorDynamics
        ``.roots``, ``.stable``, ``.zeta``, ``.omega_n``, ``.omega_d``, ``.overshoot``,
        ``.time_constant``, ``.settling_time``, ``.response(t)``, ``.plot()``.

    Raises
    ------
    ValueError
        A gain or m that is not finite, or kp or m <= 0, kd or ki < 0 (named); shapes
        that do not broadcast.

    Examples
    --------
    >>> import robodyn as rd
    >>> ed = rd.control.error_dynamics(kp=100.0, kd=12.0)
    >>> float(ed.omega_n), float(ed.zeta)
    (10.0, 0.6)
    >>> round(float(ed.overshoot), 4), round(float(ed.settling_time), 4)  # exp(-0.6 pi/0.8), 4/6
    (0.0948, 0.6667)
    """
    m = _nonnegative(m, "m", positive=True)
    kp = _nonnegative(kp, "kp", positive=True)
    kd = _nonnegative(kd, "kd")
    ki = _nonnegative(ki, "ki")
    try:
        m, kp, kd, ki = np.broadcast_arrays(m, kp, kd, ki)
    except ValueError:
        raise ValueError(f"kp {kp.shape}, kd {kd.shape}, ki {ki.shape} and m {m.shape} do "
                         "not broadcast to one shape") from None  # fmt: skip
    return ErrorDynamics(m, kp, kd, ki)


class ErrorDynamics:
    """The result of :func:`error_dynamics`: a linear error equation and what it predicts.

    Every quantity has the broadcast shape of the gains (a float array of shape () for
    scalars). Which are defined depends on the order:

    * both orders: ``coefficients``, ``roots``, ``stable``, ``time_constant``,
      ``settling_time``, :meth:`response`, :meth:`plot`;
    * second order only (``ki = 0``): ``zeta``, ``omega_n``, ``omega_d`` and ``overshoot``
      (MR's formulas for ``e_dd + 2 zeta omega_n e_d + omega_n^2 e = 0``); NaN for a
      third-order equation, whose response has no single damping ratio (its overshoot is
      read off :meth:`response`).

    Attributes
    ----------
    order : int
        2 (PD) or 3 (PID).
    coefficients : numpy.ndarray (..., order + 1)
        The characteristic polynomial, highest power first: ``[m, kd, kp]`` or
        ``[m, kd, kp, ki]``.
    roots : numpy.ndarray (..., order), complex
        Its roots, 1/s, the slowest (largest real part) first.
    stable : numpy.ndarray of bool
        Every root in the open left half plane (for the cubic: every coefficient > 0 and
        ``kd kp > m ki``, Routh-Hurwitz).
    zeta : numpy.ndarray
        Damping ratio ``kd / (2 sqrt(kp m))`` (second order).
    omega_n : numpy.ndarray
        Natural frequency ``sqrt(kp / m)``, rad/s (second order).
    omega_d : numpy.ndarray
        Damped natural frequency ``omega_n sqrt(1 - zeta^2)`` (0 when ``zeta >= 1``), rad/s.
    overshoot : numpy.ndarray
        Largest overshoot of the error's response past zero as a fraction of the initial
        error, ``exp(-pi zeta / sqrt(1 - zeta^2))`` (0 when ``zeta >= 1``); x 100 for MR's
        percent.
    time_constant : numpy.ndarray
        ``1 / |Re s|`` of the slowest root, s (``1 / (zeta omega_n)`` when ``zeta <= 1``);
        inf when a root is not in the left half plane.
    settling_time : numpy.ndarray
        The 2 % settling time ``4 time_constant``, s: MR's ``4 / (zeta omega_n)`` for
        ``zeta <= 1``, ``4 / |s_slow|`` for an overdamped pair (the slower root dominates);
        for the cubic the same estimate from its slowest root. inf when it does not settle.
    """

    def __init__(self, m, kp, kd, ki):
        self.order = 3 if np.any(ki != 0) else 2
        parts = (m, kd, kp, ki) if self.order == 3 else (m, kd, kp)
        self.coefficients = np.stack(parts, axis=-1)
        if self.order == 2:
            self._second_order(m, kp, kd)
        else:
            self.roots = _roots(self.coefficients)
            self.stable = np.all(self.roots.real < 0, axis=-1)
            slow = -self.roots[..., 0].real  # the slowest mode's decay rate
            self.time_constant = np.where(self.stable, 1 / np.where(self.stable, slow, 1), np.inf)
            self.omega_n = self.zeta = self.omega_d = self.overshoot = np.full(m.shape, np.nan)
        self.settling_time = 4.0 * self.time_constant

    def _second_order(self, m, kp, kd) -> None:
        """MR sec. 11.2.2's closed forms for ``e_dd + 2 zeta omega_n e_d + omega_n^2 e = 0``."""
        w = self.omega_n = np.sqrt(kp / m)
        z = self.zeta = kd / (2.0 * np.sqrt(kp * m))
        under = z < 1.0
        r = np.sqrt(np.abs(z**2 - 1.0))  # |zeta^2 - 1|^(1/2)
        # s_1,2 = -zeta omega_n +- omega_n sqrt(zeta^2 - 1): a complex pair below zeta = 1
        self.roots = np.stack([
            np.where(under, -z * w + 1j * w * r, -w / (z + r) + 0j),  # slow root w^2 / s_fast
            np.where(under, -z * w - 1j * w * r, -w * (z + r) + 0j),
        ], axis=-1)  # fmt: skip
        self.stable = z > 0
        decay = np.where(under, z * w, w / (z + r))  # |Re s| of the slower root
        self.time_constant = np.where(self.stable, 1.0 / np.where(self.stable, decay, 1.0), np.inf)
        self.omega_d = np.where(under, w * r, 0.0)
        self.overshoot = np.where(under, np.exp(-np.pi * z / np.where(under, r, 1.0)), 0.0)

    @property
    def shape(self) -> tuple[int, ...]:
        """The gains' broadcast shape (``()`` for scalars)."""
        return self.coefficients.shape[:-1]

    def __repr__(self) -> str:
        if self.shape:
            return f"<ErrorDynamics of order {self.order}, gains of shape {self.shape}>"
        if self.order == 3:
            return (f"<ErrorDynamics of order 3: roots {np.round(self.roots, 4)}, "
                    f"settling time ~{float(self.settling_time):.4g} s>")  # fmt: skip
        return (
            f"<ErrorDynamics of order 2: zeta {float(self.zeta):.4g}, omega_n "
            f"{float(self.omega_n):.4g} rad/s, overshoot {100 * float(self.overshoot):.3g} %, "
            f"settling time {float(self.settling_time):.4g} s>"
        )

    def _companion(self) -> np.ndarray:
        """``A`` (..., n, n) of ``x_dot = A x`` for ``x = [e, e_d]`` (second order) or
        ``x = [int e, e, e_d]`` (PID: the integral is the third state)."""
        c = self.coefficients / self.coefficients[..., :1]  # monic: [1, kd/m, kp/m, (ki/m)]
        n = self.order
        A = np.zeros((*self.shape, n, n))
        A[..., np.arange(n - 1), np.arange(1, n)] = 1.0
        A[..., n - 1, :] = -c[..., :0:-1]  # last row: -[ki, kp, kd] / m (or -[kp, kd] / m)
        return A

    def response(self, t) -> np.ndarray:
        """The error ``e(t) / e(0)`` after a step of the reference: ``e(0) = 1``,
        ``e_d(0) = 0`` and a zero integral, the exact solution ``x(t) = exp(A t) x(0)`` of
        the state equation (scipy's ``expm``).

        Parameters
        ----------
        t : array_like (K,)
            Times, s.

        Returns
        -------
        numpy.ndarray (..., K)
            The gains' shape, then time.
        """
        from scipy.linalg import expm

        t = np.asarray(t, dtype=float)
        if t.ndim != 1 or not np.all(np.isfinite(t)):
            raise ValueError(f"t must be a finite vector of times (K,), got shape {t.shape}")
        A = self._companion()
        x0 = np.zeros(self.order)
        x0[self.order - 2] = 1.0  # e(0) = 1 (the state before it: int e = 0)
        At = A[..., None, :, :] * t[:, None, None]  # (..., K, n, n)
        return (expm(At) @ x0)[..., self.order - 2]

    def plot(self, path=None, *, duration=None, overwrite: bool = False):
        """The error's response to a step of the reference (:meth:`response`), with the
        2 % band and the settling time; one curve per entry of vector gains.

        Parameters
        ----------
        path : path, optional
            Write the figure there (an existing file is refused unless ``overwrite``).
        duration : float, optional
            Seconds shown (default 1.5 settling times, or 6 periods when it does not
            settle).
        overwrite : bool

        Returns
        -------
        matplotlib.figure.Figure
        """
        from .._files import figure_path, save_figure

        figure_path(path, overwrite)
        T = self._duration(duration)
        t = np.linspace(0.0, T, 1001)
        e = self.response(t).reshape(-1, t.size)
        fig = _response_figure(self, t, e)
        if path is not None:
            save_figure(fig, path, overwrite=overwrite, dpi=110)
        return fig

    def _duration(self, duration) -> float:
        if duration is not None:
            from .._checks import as_positive

            return as_positive(duration, "duration", " of seconds")
        ts = float(np.max(self.settling_time))
        if np.isfinite(ts):
            return 1.5 * ts
        w = float(np.max(np.abs(self.roots.imag)))
        return 6 * 2 * np.pi / w if w > 0 else 10.0


def _roots(coefficients: np.ndarray) -> np.ndarray:
    """The roots of each polynomial (..., n + 1), the largest real part first."""
    flat = coefficients.reshape(-1, coefficients.shape[-1])
    r = np.array([np.roots(c) for c in flat], dtype=complex)
    r = np.take_along_axis(r, np.argsort(-r.real, axis=-1, kind="stable"), axis=-1)
    return r.reshape(*coefficients.shape[:-1], coefficients.shape[-1] - 1)


def _response_figure(ed: ErrorDynamics, t: np.ndarray, e: np.ndarray):
    """e(t) / e(0) for each entry, the 2 % band and each settling time, the legend outside."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.0, 3.6), layout="constrained")
    ax = fig.subplots()
    ts = np.ravel(ed.settling_time)
    for j, ej in enumerate(e):
        name = "e(t) / e(0)" if len(e) == 1 else f"entry {j + 1}"
        (line,) = ax.plot(t, ej, lw=1.4, label=name)
        if np.isfinite(ts[j]) and ts[j] <= t[-1]:
            ax.axvline(ts[j], color=line.get_color(), ls=":", lw=1.0,
                       label=f"{name}: 2 % settling time {ts[j]:.3g} s")  # fmt: skip
    ax.axhspan(-0.02, 0.02, color="0.5", alpha=0.2, lw=0, label="2 % band")
    ax.set_xlabel("t (s)")
    ax.set_ylabel("error e(t) / e(0) (fraction)")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    ax.set_title(_title(ed))
    return fig


def _title(ed: ErrorDynamics) -> str:
    what = "PID, third order" if ed.order == 3 else "PD, second order"
    if ed.shape or ed.order == 3:
        return f"Error response to a step of the reference ({what})"
    return (f"Error response to a step of the reference ({what}): zeta {float(ed.zeta):.3g}, "
            f"omega_n {float(ed.omega_n):.3g} rad/s")  # fmt: skip
