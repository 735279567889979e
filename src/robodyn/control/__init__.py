"""Robot controllers (MR ch. 11; course notes 003): small objects ``ctrl(t, q, v) -> tau``.

Every controller takes one state (q of shape (nq,)) or a batch (q of shape (..., nq)) and
returns torques of the matching shape, so :func:`robodyn.simulate` runs a batch of
rollouts with one controller call per integrator stage. Gains are scalars, per-joint
vectors (nv,) or matrices (nv, nv). A target is a constant configuration or a
reference ``ref(t) -> (q_d, v_d, a_d)`` such as :func:`robodyn.trajectory.joint_trajectory`.

Every controller takes its arguments in one order: the model, (the frame,) the target or
reference, then the gains: ``PD(model, target, kp, kd)``, ``PID(model, target, kp, ki,
kd)``, ``ComputedTorque(model, ref, kp, kd)``, ``TaskSpaceComputedTorque(model, frame,
ref, kp, kd)``. The joint-space gains default to :func:`gains_for` (each joint's own
inertia times the same closed-loop natural frequency, 10 rad/s, and damping ratio, 1).
The former order ``PD(kp, kd, target, gravity_compensation, model=)`` still works and
warns (DeprecationWarning).

* :class:`PD`: ``tau = K_p e + K_d e_dot`` (+ ``g(q)`` with gravity compensation),
  ``e = q_d - q`` (MR eq. 11.27; course notes 003's gravity-compensation controller).
* :class:`PID`: ``tau = K_p e + K_i int e + K_d e_dot`` (+ ``g(q)``), with anti-windup: the
  integral stops growing while its torque is at ``i_max`` (MR eq. 11.31). Its integral is
  a state the simulation integrates (``state_size``), not hidden in the object.
* :class:`ComputedTorque`: inverse-dynamics control,
  ``tau = rnea(q, v, a_d + K_d e_dot + K_p e (+ K_i int e))`` (MR eq. 11.35), so with the
  true model the error obeys ``e_dd + K_d e_d + K_p e = 0``.
* :class:`TaskSpaceComputedTorque`: a frame follows an SE(3) reference (MR sec. 11.4.2),
  by resolved accelerations ``qdd = J_b^+ (dV_cmd - dJ_b v)`` and ``tau = rnea(q, v, qdd)``.
* :class:`LQR`, :class:`TVLQR` (:mod:`robodyn.control.lqr`): linear-quadratic regulators
  about an operating point and along a reference trajectory, from the linearized dynamics
  (:func:`robodyn.linearize`).
* :func:`error_dynamics` (:mod:`robodyn.control.error_dynamics`): the linear error
  dynamics that choose gains (MR sec. 11.2): roots, damping ratio, natural frequency,
  overshoot, settling time and the step response; :func:`gains_for` the per-joint gains
  that give each joint an asked response.
* :class:`KinematicJoint`, :class:`KinematicTaskSpace` (:mod:`robodyn.control.kinematic`):
  motion control with velocity inputs (MR sec. 11.3), feedforward plus PI returning joint
  velocity commands for ``robodyn.simulate(..., input="velocity")``.
* :class:`ForceControl`, :class:`HybridMotionForce` (:mod:`robodyn.control.force`): the
  wrench at a frame by PI force control (MR eq. 11.47), and motion along natural
  constraints with force against them (MR sec. 11.6), reading a
  :class:`robodyn.sim.ForceSensor`.
* :class:`Impedance`, :class:`Admittance` (:mod:`robodyn.control.impedance`): a frame that
  behaves as a virtual mass-spring-damper (MR sec. 11.7), rendered in torque or as a
  commanded motion from the measured wrench.
* :func:`perturbed` : a copy of a model with scaled masses and inertias, for a controller
  whose model is wrong (robustness).

Any controller clips its torque to ``tau_max`` when given (saturation).
"""

from __future__ import annotations

import dataclasses
import inspect

import numpy as np

__all__ = [
    "error_dynamics",
    "ErrorDynamics",
    "KinematicJoint",
    "KinematicTaskSpace",
    "PD",
    "PID",
    "ComputedTorque",
    "TaskSpaceComputedTorque",
    "LQR",
    "TVLQR",
    "perturbed",
    "Controller",
    "gains_for",
    "ForceControl",
    "HybridMotionForce",
    "Impedance",
    "Admittance",
]

from ._task import REF_KINDS, c_pose_reference
from .base import (
    OMEGA_N,
    ZETA,
    Controller,
    _damped_inverse,
    _describe_callable,
    _error,
    _fingerprint,
    _gain,
    _matrix,
    _no_model,
    _numbers,
    _Reference,
    _saturate,
    _times,
)
from .error_dynamics import ErrorDynamics, error_dynamics
from .force import ForceControl, HybridMotionForce
from .impedance import Admittance, Impedance
from .kinematic import KinematicJoint, KinematicTaskSpace
from .lqr import LQR, TVLQR


def gains_for(model, zeta: float = ZETA, omega_n: float = OMEGA_N, *, q=None):
    """Per-joint PD gains that give every joint the same closed-loop response.

    Treating joint j as a mass ``m_j = M_jj(q)`` (the mass matrix's diagonal, armature
    included), ``m_j e_dd + kd_j e_d + kp_j e = 0`` has natural frequency ``omega_n`` and
    damping ratio ``zeta`` (MR eq. 11.9) when::

        kp_j = m_j omega_n^2,    kd_j = 2 zeta omega_n m_j

    The coupling between joints (M's off-diagonal terms) is left out, so the response is
    that of each joint moving alone; :func:`robodyn.sim.stable_step` checks the coupled
    system against a simulation step.

    Parameters
    ----------
    model : Model
    zeta : float
        Damping ratio (1: critically damped, the default).
    omega_n : float
        Natural frequency, rad/s (default 10).
    q : array_like (nq,), optional
        The configuration whose M_jj are used (default: the neutral configuration).

    Returns
    -------
    kp, kd : numpy.ndarray (nv,)
        N m/rad and N m s/rad (N/m, N s/m for prismatic joints).

    Examples
    --------
    >>> import robodyn as rd
    >>> kp, kd = rd.control.gains_for(rd.models.load("pendulum"), 1.0, 10.0)
    >>> kp, kd  # the pendulum's M = 1 kg m^2
    (array([100.]), array([20.]))
    """
    from ..dynamics import mass_matrix
    from ..model.configuration import neutral

    zeta, omega_n = float(zeta), float(omega_n)
    if not (np.isfinite(zeta) and zeta >= 0):
        raise ValueError(f"zeta must be a finite number >= 0, got {zeta!r}")
    if not (np.isfinite(omega_n) and omega_n > 0):
        raise ValueError(f"omega_n must be a finite number > 0 (rad/s), got {omega_n!r}")
    q = neutral(model) if q is None else q
    m = np.diagonal(mass_matrix(model, q)).copy()
    return m * omega_n**2, 2.0 * zeta * omega_n * m


def _is_model(x) -> bool:
    from ..model.model import Model

    return isinstance(x, Model)


def _model_first(cls: str, args: tuple, kwargs: dict, old: tuple[str, ...]) -> dict:
    """The arguments of a controller called in the former order (gains first, the model as
    ``model=`` or ``gravity_compensation=``), as keywords of the model-first order, with a
    DeprecationWarning. ``old``: the former positional parameters."""
    import warnings

    if len(args) > len(old):
        raise TypeError(f"{cls}() takes at most {len(old)} positional arguments in the "
                        f"former order, got {len(args)}")  # fmt: skip
    for name, value in zip(old, args):
        if name in kwargs:
            raise TypeError(f"{cls}() got multiple values for argument {name!r}")
        kwargs[name] = value
    gains = ", ".join(o for o in old if o.startswith("k"))
    warnings.warn(
        f"{cls}({', '.join(old)}, ..., model=) is deprecated: the model comes first, as "
        f"everywhere in robodyn: {cls}(model, target, {gains}, ...)",
        DeprecationWarning,
        stacklevel=3,
    )
    gc = kwargs.get("gravity_compensation")
    if kwargs.get("model") is None:
        kwargs["model"] = gc if _is_model(gc) else None
    return kwargs


class PD(Controller):
    """Proportional-derivative joint control, optionally with gravity compensation.

    ``tau = K_p (q_d - q) + K_d (v_d - v)`` (+ ``g(q)`` with ``gravity_compensation``); MR
    eq. 11.27, course notes 003 (``ctrl_pd_only``, ``ctrl_with_grav``).

    Parameters
    ----------
    model : Model
        The robot (configuration differences of a floating base; the default gains; the
        gravity compensation's model unless another is given).
    target : array_like (nq,) or callable, optional
        Constant q_d (v_d = 0), or a reference ``ref(t) -> (q_d, v_d, a_d)``. None:
        q_d = 0.
    kp, kd : float or array_like (nv,) or (nv, nv), optional
        Gains, N m/rad and N m s/rad. Default: :func:`gains_for` ``(model, 1, 10)`` at the
        target (or at the neutral configuration for a reference): every joint critically
        damped at 10 rad/s for its own inertia.
    gravity_compensation : bool or Model
        Add g(q): True for the model's own, or another Model's (a controller whose model
        is wrong).
    tau_max : float or array_like (nv,), optional
        Saturate the torque.

    Examples
    --------
    >>> import robodyn as rd
    >>> model = rd.models.load("planar_2r")
    >>> ctrl = rd.control.PD(model, [0.5, -0.5], gravity_compensation=True)
    >>> res = rd.simulate(model, [0.0, 0.0], controller=ctrl, duration=3.0, dt=1e-3)
    >>> bool(abs(res.q[-1] - [0.5, -0.5]).max() < 1e-3)
    True
    """

    name = "pd"

    def __init__(self, *args, **kwargs):
        if args and not _is_model(args[0]):  # PD(kp, kd, target, gravity_compensation, model=)
            kwargs = _model_first(
                "PD", args, kwargs, ("kp", "kd", "target", "gravity_compensation")
            )
            args = ()
        self._setup(*args, **kwargs)

    def _setup(self, model=None, target=None, kp=None, kd=None, gravity_compensation=False,
               *, tau_max=None):  # fmt: skip
        self.model = model
        self.ref = _Reference(target)
        self.kp, self.kd = _default_gains(model, self.ref, kp, kd, "PD")
        self.gravity_model = _gravity_model(model, gravity_compensation)
        self.tau_max = None if tau_max is None else _gain(tau_max, "tau_max")
        if self.gravity_model is not None:
            self.name = "pd+gravity"

    def linear_gains(self, model, q):
        """``(K, D)``, the torque gains (nv, nv) on the error and its rate, for
        :func:`robodyn.sim.stable_step`."""
        return _matrix(self.kp, model.nv), _matrix(self.kd, model.nv)

    def _c_law(self, model):
        """This law for the compiled rollout of robodyn.simulate (None: not expressible)."""
        ref = self.ref.c_spec(model)
        if ref is None or self.kp.ndim > 1 or self.kd.ndim > 1:
            return None
        m = self.model  # whose coordinates the error q_d (-) q is taken in (_error)
        if (model.nq != model.nv) if m is None else ((m.nq, m.nv) != (model.nq, model.nv)):
            return None
        g = self.gravity_model
        return {
            "law": "pd" if g is None else "pd+gravity", "kp": self.kp, "kd": self.kd,
            "model": model if g is None else g, "cflags": 0, "q_a": ref[0], "q_b": ref[1],
            "T": ref[2], "c": ref[3], "tau_max": np.inf if self.tau_max is None else self.tau_max,
        }  # fmt: skip

    def describe(self) -> dict:
        """Class, gains, target, gravity compensation's model, tau_max and the model (by
        fingerprint), as JSON (see :meth:`Controller.describe`)."""
        return {
            "class": "PD", "model": _fingerprint(self.model), "kp": _numbers(self.kp),
            "kd": _numbers(self.kd), "target": self.ref.describe(),
            "gravity_compensation": _fingerprint(self.gravity_model),
            "tau_max": _numbers(self.tau_max),
        }  # fmt: skip

    def __call__(self, t, q, v):
        q = np.asarray(q, dtype=float)
        v = np.asarray(v, dtype=float)
        q_d, v_d, _ = self.ref(t, v.shape[-1])
        if q_d is None:
            q_d = np.zeros(q.shape[-1])
        e = _error(self.model, q_d, q, v.shape[-1], "PD")
        tau = _times(self.kp, e) + _times(self.kd, v_d - v)
        if self.gravity_model is not None:
            from ..dynamics import gravity_forces

            tau = tau + gravity_forces(self.gravity_model, q)
        return _saturate(tau, self.tau_max)


PD.__init__.__signature__ = inspect.signature(PD._setup)


def _gravity_model(model, gravity_compensation):
    """The model whose g(q) a controller adds (None: no gravity compensation)."""
    gc = gravity_compensation
    if gc is None or gc is False:
        return None
    if gc is True:
        if model is None:
            raise ValueError("gravity_compensation=True needs the model: give it first, "
                             "e.g. PD(model, target, gravity_compensation=True)")  # fmt: skip
        return model
    if not _is_model(gc):
        raise ValueError(f"gravity_compensation must be True, False or a Model, got "
                         f"{type(gc).__name__}")  # fmt: skip
    return gc


def _default_gains(model, ref, kp, kd, cls: str):
    """kp, kd as given (checked), or :func:`gains_for` (model, 1, 10) at the target."""
    if kp is None or kd is None:
        if model is None:
            raise ValueError(f"{cls} needs kp and kd, or the model for its default gains "
                             f"({cls}(model, target) uses rd.control.gains_for)")  # fmt: skip
        q = ref.q if ref.q is not None and ref.q.shape == (model.nq,) else None
        kp0, kd0 = gains_for(model, q=q)
        kp = kp0 if kp is None else kp
        kd = kd0 if kd is None else kd
    nv = None if model is None else model.nv
    kp, kd = _gain(kp, "kp", nv), _gain(kd, "kd", nv)
    for name, k in (("kp", kp), ("kd", kd)):
        if model is None and ref.q is not None and k.ndim >= 1 and k.shape[0] != ref.q.size:
            raise ValueError(_no_model(cls, f"target has {ref.q.size} entries but {name} "
                                            f"{k.shape[0]}"))  # fmt: skip
    return kp, kd


class PID(Controller):
    """PID joint control with anti-windup (MR eq. 11.31), optionally with gravity
    compensation.

    ``tau = K_p e + K_i z + K_d e_dot (+ g(q))`` with ``z = int e dt``; its state z is
    integrated by the simulation (``state_size = nv``): called as
    ``ctrl(t, q, v, z) -> (tau, dz)``. Anti-windup by conditional integration: while
    ``|K_i z|`` is at ``i_max`` and e would grow it further, ``dz = 0``.

    Parameters
    ----------
    model : Model
    target : array_like (nq,) or callable, optional
        As in :class:`PD`.
    kp, ki, kd : float or array_like (nv,) or (nv, nv), optional
        Default: kp, kd of :func:`gains_for` and ``ki = kp omega_n / 5``: each joint's
        ``m s^3 + kd s^2 + kp s + ki`` then has a pole at -1.38 omega_n and a pair at
        omega_n (-0.31 +- 0.22 i), damping ratio 0.81, so the integral removes a
        steady error within ~1.5 s at omega_n = 10 rad/s.
    gravity_compensation : bool or Model
        As in :class:`PD`.
    i_max : float or array_like (nv,), optional
        Largest integral torque ``|K_i z|`` per joint.
    tau_max : float or array_like (nv,), optional
        Saturate the torque.
    """

    name = "pid"

    def __init__(self, *args, **kwargs):
        if args and not _is_model(args[0]):  # PID(kp, ki, kd, target, gravity_compensation)
            old = ("kp", "ki", "kd", "target", "gravity_compensation")
            kwargs = _model_first("PID", args, kwargs, old)
            args = ()
        self._setup(*args, **kwargs)

    def _setup(self, model=None, target=None, kp=None, ki=None, kd=None,
               gravity_compensation=False, *, i_max=None, tau_max=None):  # fmt: skip
        self.model = model
        self.ref = _Reference(target)
        self.kp, self.kd = _default_gains(model, self.ref, kp, kd, "PID")
        self.ki = _gain(self.kp * OMEGA_N / 5.0 if ki is None else ki, "ki")
        self.gravity_model = _gravity_model(model, gravity_compensation)
        self.i_max = None if i_max is None else _gain(i_max, "i_max")
        self.tau_max = None if tau_max is None else _gain(tau_max, "tau_max")
        nv = None
        for k in (self.kp, self.ki, self.kd):
            if k.ndim >= 1:
                nv = k.shape[0]
        m = self.model
        self._nv = nv if nv is not None else (m.nv if m is not None else None)
        if self._nv is None:
            raise ValueError("PID needs the number of joints: give the model first")
        self.state_size = self._nv

    def linear_gains(self, model, q):
        """``(K, D)`` of the proportional and derivative terms (the integral is slow beside
        them), for :func:`robodyn.sim.stable_step`."""
        return _matrix(self.kp, model.nv), _matrix(self.kd, model.nv)

    def describe(self) -> dict:
        """Class, gains, target, gravity compensation's model, i_max, tau_max and the model
        (by fingerprint), as JSON (see :meth:`Controller.describe`)."""
        return {
            "class": "PID", "model": _fingerprint(self.model), "kp": _numbers(self.kp),
            "ki": _numbers(self.ki), "kd": _numbers(self.kd), "target": self.ref.describe(),
            "gravity_compensation": _fingerprint(self.gravity_model),
            "i_max": _numbers(self.i_max), "tau_max": _numbers(self.tau_max),
        }  # fmt: skip

    def __call__(self, t, q, v, z):
        q = np.asarray(q, dtype=float)
        v = np.asarray(v, dtype=float)
        q_d, v_d, _ = self.ref(t, v.shape[-1])
        if q_d is None:
            q_d = np.zeros(q.shape[-1])
        e = _error(self.model, q_d, q, v.shape[-1], "PID")
        i_term = _times(self.ki, z)
        dz = e
        if self.i_max is not None:
            # conditional integration: stop where the integral torque is at its limit and
            # the error pushes it further
            at = np.abs(i_term) >= self.i_max
            grows = np.sign(_times(self.ki, e)) == np.sign(i_term)
            dz = np.where(at & grows, 0.0, e)
            i_term = np.clip(i_term, -self.i_max, self.i_max)
        tau = _times(self.kp, e) + i_term + _times(self.kd, v_d - v)
        if self.gravity_model is not None:
            from ..dynamics import gravity_forces

            tau = tau + gravity_forces(self.gravity_model, q)
        return _saturate(tau, self.tau_max), dz


PID.__init__.__signature__ = inspect.signature(PID._setup)


class ComputedTorque(Controller):
    """Computed-torque (inverse-dynamics) control along a joint reference (MR eq. 11.35).

    ``tau = rnea(q, v, a_d + K_d (v_d - v) + K_p (q_d - q))`` with this controller's model
    (friction compensation included when ``friction=True``, as in
    :func:`robodyn.inverse_dynamics`). With the simulated model itself, the error obeys
    ``e_dd + K_d e_d + K_p e = 0`` and tracking is exact up to integration error.

    Parameters
    ----------
    model : Model
        The controller's model (use :func:`perturbed` for a wrong one).
    ref : callable or array_like (nq,)
        ``ref(t) -> (q_d, v_d, a_d)``, or a constant target.
    kp, kd : float or array_like (nv,) or (nv, nv)
        Gains on the error's acceleration, 1/s^2 and 1/s (default 100 and 20: every joint
        critically damped at 10 rad/s, whatever its inertia, since the law divides by M).
    ki : float or array_like, optional
        An integral term ``K_i int e`` (MR eq. 11.35's PID form); makes the controller
        stateful (``state_size = nv``).
    friction : bool
        Compensate the model's joint friction.
    tau_max : float or array_like (nv,), optional
        Saturate the torque.
    """

    name = "computed_torque"

    def __init__(self, model, ref, kp=OMEGA_N**2, kd=2 * ZETA * OMEGA_N, *, ki=None,
                 friction: bool = True, tau_max=None):  # fmt: skip
        self.model = model
        self.ref = _Reference(ref, "ref")
        self.kp, self.kd = _gain(kp, "kp", model.nv), _gain(kd, "kd", model.nv)
        self.ki = None if ki is None else _gain(ki, "ki", model.nv)
        self.friction = friction
        self.tau_max = None if tau_max is None else _gain(tau_max, "tau_max", model.nv)
        self.state_size = 0 if ki is None else model.nv
        from ..dynamics import inverse_dynamics

        self._rnea, self._nv, self._flat = inverse_dynamics, model.nv, model.nq == model.nv

    def linear_gains(self, model, q):
        """``(K, D)`` as torque gains, for :func:`robodyn.sim.stable_step`: the law puts
        ``M_c(q) (K_p e + K_d e_dot)`` on the robot and cancels the joint damping it knows."""
        from ..dynamics import mass_matrix

        Mc = mass_matrix(self.model, q)
        D = Mc @ _matrix(self.kd, model.nv)
        if self.friction:
            D = D - np.diag(np.asarray(self.model.dof_damping, dtype=float))
        return Mc @ _matrix(self.kp, model.nv), D

    def _c_law(self, model):
        """This law for the compiled rollout of robodyn.simulate (None: not expressible)."""
        ref = self.ref.c_spec(model)
        if ref is None or self.kp.ndim > 1 or self.kd.ndim > 1 or self.ki is not None:
            return None
        from ..kernels._pack import FL_ARMATURE, FL_FRICTION

        return {
            "law": "computed_torque", "kp": self.kp, "kd": self.kd, "model": self.model,
            "cflags": FL_ARMATURE | (FL_FRICTION if self.friction else 0), "q_a": ref[0],
            "q_b": ref[1], "T": ref[2], "c": ref[3],
            "tau_max": np.inf if self.tau_max is None else self.tau_max,
        }  # fmt: skip

    def describe(self) -> dict:
        """Class, the controller's model (by fingerprint), gains, reference, friction
        compensation and tau_max, as JSON (see :meth:`Controller.describe`)."""
        return {
            "class": "ComputedTorque", "model": _fingerprint(self.model),
            "kp": _numbers(self.kp), "kd": _numbers(self.kd), "ki": _numbers(self.ki),
            "ref": self.ref.describe("the reference"), "friction": bool(self.friction),
            "tau_max": _numbers(self.tau_max),
        }  # fmt: skip

    def _tau(self, t, q, v, z):
        q_d, v_d, a_d = self.ref(t, self._nv)
        e = q_d - q if self._flat else _error(self.model, q_d, q, self._nv, "ComputedTorque")
        # a = a_d + K_d (v_d - v) + K_p e (+ K_i z)
        a = a_d + _times(self.kd, v_d - v) + _times(self.kp, e)
        if z is not None:
            a = a + _times(self.ki, z)
        tau = self._rnea(self.model, q, v, a, friction=self.friction)
        return (tau if self.tau_max is None else np.clip(tau, -self.tau_max, self.tau_max)), e

    def __call__(self, t, q, v, z=None):
        tau, e = self._tau(t, q, v, z)
        return (tau, e) if self.state_size else tau


class TaskSpaceComputedTorque(Controller):
    """A frame follows an SE(3) reference by task-space computed torque (MR sec. 11.4.2).

    With ``X`` the frame's pose, ``X_d`` the reference, ``E = X^-1 X_d``, the body error
    twist ``X_e = log(E)``, the desired twist in the frame ``W = [Ad_E] V_d`` and its rate
    ``dW = [Ad_E] dV_d + [ad_W] V`` (V = J_b v the frame's body twist)::

        dV_cmd = dW + K_p X_e + K_d (W - V)
        qdd    = J_b^# (dV_cmd - dJ_b v) - (1 - J_b^# J_b) k_null v
        tau    = rnea(q, v, qdd)

    so with the true model and a square, non-singular J_b the error obeys
    ``d/dt V_e + K_d V_e + K_p X_e = 0`` (MR eq. 11.46); redundant joints are damped in the
    null space of J_b. ``J_b^#`` is the damped least-squares inverse
    ``V diag(s_i / (s_i^2 + lambda^2)) U^T`` of ``J_b = U diag(s_i) V^T`` with a damping
    that grows as the smallest singular value falls below ``singular_threshold``:
    ``lambda^2 = damping^2 (1 - (s_min / singular_threshold)^2)``, zero above it (so away
    from singularities it is the pseudo-inverse and the error dynamics above hold). Near
    a singularity the torque stays finite and the tracking error grows along the lost
    directions instead of the joint rates blowing up.

    :func:`robodyn.simulate` runs this law in its compiled rollout, with no Python call per
    step, when the reference is a constant pose or a
    :func:`robodyn.trajectory.screw_trajectory` or
    :func:`robodyn.trajectory.cartesian_trajectory` with a cubic or quintic time scaling
    (and the run is one rollout with a fixed-step integrator, of any model);
    with any other callable reference the Python loop calls this law (the two agree to
    round-off).
    There the inverse is a Householder QR of J_b and a triangular solve while ``s_min >=
    singular_threshold``, and a one-sided Jacobi SVD of the triangular factor below it.

    Parameters
    ----------
    model : Model
    frame : str or int
        The controlled operational frame.
    ref : callable
        ``ref(t) -> (X_d (4, 4), V_d (6,), dV_d (6,))``, V_d the body twist of the
        reference frame (e.g. :func:`robodyn.trajectory.screw_trajectory`), or a constant
        pose (4, 4).
    kp, kd : float or array_like (6,) or (6, 6)
        Gains on [angular; linear] errors.
    k_null : float
        Damping of null-space motion (redundant robots).
    friction : bool
        Compensate the model's joint friction.
    tau_max : float or array_like (nv,), optional
    damping : float
        The largest damping ``lambda`` of the inverse (units of J's singular values: 1/s
        per rad/s for angular rows, m/rad for linear ones), reached at a singularity.
    singular_threshold : float
        The smallest singular value below which the inverse is damped (0: the plain
        pseudo-inverse, which diverges at a singularity).
    """

    name = "task_space_computed_torque"

    def __init__(self, model, frame, ref, kp, kd, *, k_null: float = 1.0,
                 friction: bool = True, tau_max=None, damping: float = 0.05,
                 singular_threshold: float = 0.05):  # fmt: skip
        self.model = model
        self.frame = model.frame_id(frame)
        self._pose = None  # a constant pose given as ref
        if callable(ref):
            self.ref = ref
        else:
            X = np.asarray(ref, dtype=float)
            if X.shape != (4, 4):
                raise ValueError(
                    f"ref must be ref(t) -> (X, V, dV) or a pose (4, 4), got {X.shape}"
                )
            z = np.zeros(6)
            self.ref, self._pose = (lambda t: (X, z, z)), X
        self.kp = _gain(kp, "kp", 6 if np.ndim(kp) else None)
        self.kd = _gain(kd, "kd", 6 if np.ndim(kd) else None)
        self.k_null = float(k_null)
        self.friction = friction
        self.tau_max = None if tau_max is None else _gain(tau_max, "tau_max", model.nv)
        for name, x in (("damping", damping), ("singular_threshold", singular_threshold)):
            if not (np.isfinite(x) and x >= 0):
                raise ValueError(f"{name} must be finite and >= 0, got {x!r}")
        self.damping, self.singular_threshold = float(damping), float(singular_threshold)

    def describe(self) -> dict:
        """Class, model (by fingerprint), frame, reference, gains, k_null, friction
        compensation, tau_max and the inverse's damping, as JSON (see
        :meth:`Controller.describe`)."""
        ref = self.ref
        if getattr(ref, "__qualname__", "") == "TaskSpaceComputedTorque.__init__.<locals>.<lambda>":
            ref = {"kind": "constant", "X": _numbers(ref(0.0)[0])}  # a pose given as ref
        else:
            ref = _describe_callable(ref, "the reference")
        return {
            "class": "TaskSpaceComputedTorque", "model": _fingerprint(self.model),
            "frame": self.model.frame_names[self.frame], "ref": ref, "kp": _numbers(self.kp),
            "kd": _numbers(self.kd), "k_null": self.k_null, "friction": bool(self.friction),
            "tau_max": _numbers(self.tau_max), "damping": self.damping,
            "singular_threshold": self.singular_threshold,
        }  # fmt: skip

    def _c_law(self, model):
        """This law for the compiled rollout of robodyn.simulate (kernels/core/sim.c's
        LAW_TASK_CT): a constant pose, or a screw or Cartesian PoseTrajectory under a
        polynomial time scaling; None for any other reference (the Python loop)."""
        spec = c_pose_reference(self._pose, self.ref)
        if spec is None:
            return None
        kind, X_a, S, T, c = spec
        from ..kernels._pack import FL_ARMATURE, FL_FRICTION

        # the parameter block of kernels/core/rollout.h (TP_FRAME .. TP_S)
        task = np.concatenate([
            [self.frame], _matrix(self.kp, 6).ravel(), _matrix(self.kd, 6).ravel(),
            [self.k_null, self.damping, self.singular_threshold, REF_KINDS[kind]],
            np.asarray(X_a, dtype=float).ravel(), S,
        ])  # fmt: skip
        z = np.zeros(model.nq)  # no joint reference
        return {
            "law": "task_space_computed_torque", "kp": 0.0, "kd": 0.0, "model": self.model,
            "cflags": FL_ARMATURE | (FL_FRICTION if self.friction else 0), "q_a": z,
            "q_b": z, "T": T, "c": c, "task": task,
            "tau_max": np.inf if self.tau_max is None else self.tau_max,
        }  # fmt: skip

    def __call__(self, t, q, v):
        from ..dynamics import inverse_dynamics
        from ..kinematics import fk, jacobian, jacobian_dot
        from ..spatial import ad, adjoint, inv_transform, log6

        m, f = self.model, self.frame
        q = np.asarray(q, dtype=float)
        v = np.asarray(v, dtype=float)
        X_d, V_d, dV_d = (np.asarray(x, dtype=float) for x in self.ref(t))
        X = fk(m, q, f)
        J = jacobian(m, q, f, kind="body")
        dJ = jacobian_dot(m, q, v, f, kind="body")
        E = inv_transform(X) @ X_d
        X_e = log6(E, check=False)
        AdE = adjoint(E)
        W = np.einsum("...ij,...j->...i", AdE, V_d)
        V = np.einsum("...ij,...j->...i", J, v)
        dW = np.einsum("...ij,...j->...i", AdE, dV_d) + np.einsum("...ij,...j->...i", ad(W), V)
        dV_cmd = dW + _times(self.kp, X_e) + _times(self.kd, W - V)
        Jp = _damped_inverse(J, self.damping, self.singular_threshold)
        qdd = np.einsum("...ij,...j->...i", Jp, dV_cmd - np.einsum("...ij,...j->...i", dJ, v))
        N = np.eye(m.nv) - Jp @ J
        qdd = qdd - self.k_null * np.einsum("...ij,...j->...i", N, v)
        tau = inverse_dynamics(m, q, v, qdd, friction=self.friction)
        return _saturate(tau, self.tau_max)


def perturbed(model, mass_scale=1.0, *, rng=None, spread: float = 0.0):
    """A copy of ``model`` whose link masses and inertias are scaled, for a controller
    that does not know the true robot.

    Parameters
    ----------
    model : Model
    mass_scale : float or array_like (nb,)
        Factor on every body's mass and rotational inertia (1.1: 10 % heavier).
    rng : numpy.random.Generator or int, optional
        With ``spread > 0``: each body also gets a random factor ``1 + spread * N(0, 1)``
        (clipped at 0.1).
    spread : float
        Relative standard deviation of the random factors.

    Returns
    -------
    Model
    """
    s = np.broadcast_to(np.asarray(mass_scale, dtype=float), (model.nb,)).copy()
    if not np.all(s > 0):
        raise ValueError(f"mass_scale must be positive, got {mass_scale!r}")
    if spread:
        g = np.random.default_rng(rng)
        s = s * np.maximum(0.1, 1.0 + spread * g.standard_normal(model.nb))
    s[0] = 1.0  # the world stays massless
    return dataclasses.replace(
        model,
        name=f"{model.name} (masses x{mass_scale if np.ndim(mass_scale) == 0 else 'var'})",
        body_mass=model.body_mass * s,
        body_inertia=model.body_inertia * s[:, None, None],
    )
