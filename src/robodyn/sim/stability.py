"""Will a fixed-step simulation of a controlled robot be stable at step ``dt``?

About a configuration q and v = 0 the closed loop of a joint-space controller with
torque gains ``tau = -K e - D e_dot`` (gravity and velocity products left out: they are
slow beside the gains that make a step too large) is the linear system::

    x = (e, e_dot),   x_dot = A x,   A = [[0, 1], [-M^-1 K, -M^-1 (D + B)]]

with M = M(q) the mass matrix (armature included) and B the joint damping. A fixed-step
integrator maps x_k to x_{k+1} = Phi(h) x_k, and the run stays bounded only while the
spectral radius of Phi(h) is at most 1:

* explicit Euler: ``Phi = R(h A)`` with ``R(z) = 1 + z``;
* RK4: ``R(z) = 1 + z + z^2/2 + z^3/6 + z^4/24`` (the stability polynomial of the
  classical Runge-Kutta method; the region reaches z = -2.785 on the real axis and
  +-2.828 i on the imaginary one);
* semi-implicit Euler (v first, then q with the new v)::

      Phi = [[1 + h^2 Kq, h (1 + h Kv)], [h Kq, 1 + h Kv]],  Kq = -M^-1 K, Kv = -M^-1 (D + B)

For Euler and RK4 each eigenvalue lambda of A is stable for the h with
``|R(h lambda)| <= 1``; :func:`stable_step` returns the largest h stable for every mode, the
fastest mode and the joint that moves most in it. A mode with lambda = 0 (no stiffness)
bounds nothing. Adaptive integrators choose their own steps and are not checked.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

__all__ = ["StepCheck", "stable_step", "nice_step", "step_for"]

_POLY = {  # R(z) of the one-step methods whose step matrix is a polynomial of h A
    "euler": (1.0, 1.0),
    "rk4": (1.0, 1.0, 1.0 / 2.0, 1.0 / 6.0, 1.0 / 24.0),
}
_TOL = 1e-9  # |R| <= 1 + _TOL counts as stable (a mode on the boundary is not growing)


@dataclasses.dataclass(frozen=True)
class StepCheck:
    """The stability of a fixed step for a controlled robot (see :func:`stable_step`).

    Attributes
    ----------
    h_max : float
        Largest stable step, s (inf: no mode limits it).
    rate : float
        ``|lambda|`` of the mode that sets h_max, 1/s.
    joint : str or None
        The joint that moves most in that mode.
    integrator : str
    """

    h_max: float
    rate: float
    joint: str | None
    integrator: str

    def stable(self, dt: float) -> bool:
        """Whether the step ``dt`` is within the stable step."""
        return dt <= self.h_max

    def advice(self, dt: float) -> str:
        """One sentence: why ``dt`` is too large and which step to take instead."""
        who = f", mostly joint {self.joint!r}" if self.joint else ""
        if self.h_max * self.rate < 1e-3:  # explicit Euler on an undamped oscillation
            return (
                f"{self.integrator} is unstable at any step for these gains (the closed-loop "
                f"mode{who}, |lambda| = {self.rate:.3g} 1/s, is undamped): use rk4 or "
                "semi_implicit_euler, or add damping (kd)"
            )
        return (
            f"dt = {dt:g} s is beyond the stable step of {self.integrator} for these gains "
            f"(the fastest closed-loop mode{who}, |lambda| = {self.rate:.3g} 1/s, is stable "
            f"for dt < {self.h_max:.3g} s): use dt <= {nice_step(self.h_max):g} s, or lower "
            "gains (rd.control.gains_for)"
        )


def nice_step(h_max: float) -> float:
    """The largest of 1, 2, 5 x 10^k at most half of ``h_max`` (a margin of 2)."""
    target = 0.5 * h_max
    if not math.isfinite(target) or target <= 0:
        return target
    k = math.floor(math.log10(target))
    for m in (5.0, 2.0, 1.0):
        if m * 10.0**k <= target:
            return m * 10.0**k
    return 10.0 ** (k - 1) * 5.0


def _closed_loop(model, K, D, q, friction: bool):
    """A = [[0, 1], [-M^-1 K, -M^-1 (D + B)]] at q (see the module's docstring)."""
    from ..dynamics import mass_matrix

    n = model.nv
    M = mass_matrix(model, q)
    B = np.diag(np.asarray(model.dof_damping, dtype=float)) if friction else 0.0
    Kq = -np.linalg.solve(M, K)
    Kv = -np.linalg.solve(M, D + B)
    A = np.zeros((2 * n, 2 * n))
    A[:n, n:] = np.eye(n)
    A[n:, :n] = Kq
    A[n:, n:] = Kv
    return A, Kq, Kv


def _largest_stable(stable, h_hi: float) -> float:
    """Bisection for the largest h in (0, h_hi] with stable(h), assuming [0, h*] stable."""
    lo, hi = 0.0, h_hi
    if stable(hi):
        return hi
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if stable(mid):
            lo = mid
        else:
            hi = mid
    return lo


def stable_step(model, controller, q, integrator: str = "rk4", *, friction: bool = True):
    """The largest step of a fixed-step integrator that keeps a controlled robot stable.

    Parameters
    ----------
    model : Model
        The simulated model.
    controller : robodyn.control controller
        One that reports its gains (``controller.linear_gains(model, q) -> (K, D)``:
        :class:`~robodyn.control.PD`, :class:`~robodyn.control.PID`,
        :class:`~robodyn.control.ComputedTorque`), or None (free motion: only the joint
        damping).
    q : array_like (nq,)
        The configuration to linearise about (the start of the run).
    integrator : {"rk4", "euler", "semi_implicit_euler"}
    friction : bool
        Include the joint damping (as ``simulate(friction=...)``).

    Returns
    -------
    StepCheck or None
        None when the controller does not report its gains or the integrator is adaptive.

    Examples
    --------
    >>> import robodyn as rd
    >>> model = rd.models.load("panda")
    >>> q = rd.neutral(model)
    >>> stiff = rd.control.PD(model, q, kp=100.0, kd=20.0)  # the same gains on every joint
    >>> rd.sim.stable_step(model, stiff, q).h_max < 1e-3  # the wrist's 0.005 kg m^2
    True
    >>> kp, kd = rd.control.gains_for(model, 1.0, 10.0, q=q)  # 10 rad/s on every joint
    >>> rd.sim.stable_step(model, rd.control.PD(model, q, kp, kd), q).h_max > 1e-2
    True
    """
    if integrator not in (*_POLY, "semi_implicit_euler"):
        return None
    n = model.nv
    if controller is None:
        K, D = np.zeros((n, n)), np.zeros((n, n))
    else:
        gains = getattr(controller, "linear_gains", None)
        out = gains(model, q) if gains is not None else None
        if out is None:
            return None
        K, D = out
    A, Kq, Kv = _closed_loop(model, K, D, np.asarray(q, dtype=float), friction)
    lam, vec = np.linalg.eig(A)
    fast = lam[np.abs(lam) > 1e-12 * max(1.0, np.abs(lam).max())]
    if fast.size == 0:
        return StepCheck(math.inf, 0.0, None, integrator)
    h_hi = 10.0 / np.abs(fast).min()  # past every stability region's reach for these modes
    if integrator in _POLY:
        c = np.array(_POLY[integrator])[::-1]
        # every mode's bisection at once: the largest h with |R(h lambda)| <= 1
        lo, hi = np.zeros(fast.size), np.full(fast.size, h_hi)
        done = np.abs(np.polyval(c, hi * fast)) <= 1 + _TOL
        lo[done] = hi[done]
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            ok = np.abs(np.polyval(c, mid * fast)) <= 1 + _TOL
            lo = np.where(ok | done, np.where(done, lo, mid), lo)
            hi = np.where(ok | done, hi, mid)
        per_mode = lo
        i = int(np.argmin(per_mode))
        h_max, lm = float(per_mode[i]), fast[i]
    else:
        eye = np.eye(n)

        def stable(h):
            Phi = np.block([[eye + h * h * Kq, h * (eye + h * Kv)], [h * Kq, eye + h * Kv]])
            return np.abs(np.linalg.eigvals(Phi)).max() <= 1 + _TOL

        h_max = float(_largest_stable(stable, h_hi))
        lm = fast[np.argmax(np.abs(fast))]
    if h_max >= h_hi:
        return StepCheck(math.inf, float(abs(lm)), None, integrator)
    k = int(np.argmin(np.abs(lam - lm)))
    dof = int(np.argmax(np.abs(vec[:n, k])))  # the mode's displacement part (e)
    joint = model.joint_names_all[int(model.dof_body[dof])]
    return StepCheck(h_max, float(abs(lm)), joint, integrator)


def step_for(model, controllers, q, integrator: str = "rk4", *, dt: float = 1e-3,
             friction: bool = True):  # fmt: skip
    """``dt``, or a smaller "nice" step (1, 2, 5 x 10^k, half the stable step) when ``dt``
    is beyond the stable step for any of ``controllers`` (a controller, None, or a list).

    What a command line or a demo uses as its default step, so its defaults run on every
    robot: a URDF's joint damping on a light link (xArm7's joint 7: 2 N m s/rad on
    1.4e-4 kg m^2, a 70 us time constant) or stiff gains need a step far below 1 ms.

    Returns
    -------
    dt : float
    why : str or None
        Why the step was lowered (None: it was not).
    """
    if not isinstance(controllers, (list, tuple)):
        controllers = [controllers]
    worst = None
    for c in controllers:
        check = stable_step(model, c, q, integrator, friction=friction)
        if (
            check is not None
            and not check.stable(dt)
            and (worst is None or check.h_max < worst.h_max)
        ):
            worst = check
    if worst is None:
        return dt, None
    return nice_step(worst.h_max), worst.advice(dt)
