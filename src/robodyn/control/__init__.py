"""Robot controllers (MR ch. 11; course notes 003): small objects ``ctrl(t, q, v) -> tau``.

Every controller takes one state (q of shape (nq,)) or a batch (q of shape (..., nq)) and
returns torques of the matching shape, so :func:`robodyn.simulate` runs a batch of
rollouts with one controller call per integrator stage. Gains are scalars, per-joint
vectors (nv,) or matrices (nv, nv). A target is a constant configuration or a
reference ``ref(t) -> (q_d, v_d, a_d)`` such as :func:`robodyn.trajectory.joint_trajectory`.

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
* :func:`perturbed` : a copy of a model with scaled masses and inertias, for a controller
  whose model is wrong (robustness).

Any controller clips its torque to ``tau_max`` when given (saturation).
"""

from __future__ import annotations

import dataclasses

import numpy as np

__all__ = ["PD", "PID", "ComputedTorque", "TaskSpaceComputedTorque", "perturbed", "Controller"]


def _gain(k, name: str, nv: int | None = None) -> np.ndarray:
    k = np.asarray(k, dtype=float)
    if k.ndim > 2 or (k.ndim == 2 and k.shape[0] != k.shape[1]):
        raise ValueError(
            f"{name} must be a scalar, a vector (nv,) or a matrix (nv, nv), got {k.shape}"
        )
    if nv is not None and k.ndim >= 1 and k.shape[0] != nv:
        raise ValueError(f"{name} must have {nv} entries (nv), got shape {k.shape}")
    if not np.all(np.isfinite(k)):
        raise ValueError(f"{name} contains NaN or inf")
    return k


def _times(k, e: np.ndarray) -> np.ndarray:
    """K e for a scalar, diagonal (vector) or full (matrix) gain, e of shape (..., nv)."""
    return e @ k.T if k.ndim == 2 else k * e


class _Reference:
    """A target as a reference: constant q_d (v_d = a_d = 0) or ``ref(t) -> (q, v, a)``."""

    def __init__(self, target, name: str = "target"):
        if target is None:
            self.fn, self.q = None, None
        elif callable(target):
            self.fn, self.q = target, None
        else:
            q = np.asarray(target, dtype=float)
            if q.ndim != 1 or not np.all(np.isfinite(q)):
                raise ValueError(f"{name} must be a configuration (nq,) or a reference "
                                 f"ref(t) -> (q, v, a), got shape {q.shape}")  # fmt: skip
            self.fn, self.q = None, q
        self.zero = None

    def c_spec(self, nv):
        """``(q_a, q_b, T, c)`` with ``q_d(t) = q_a + s(t / T) (q_b - q_a)``,
        ``s(r) = sum_k c_k r^k``, for the compiled rollout; None if not of that form."""
        if self.fn is None:
            q = self.q if self.q is not None else np.zeros(nv)
            return (q, q, 1.0, np.zeros(6)) if q.shape == (nv,) else None
        spec = getattr(self.fn, "_c_reference", None)
        return spec() if spec is not None else None

    def __call__(self, t, nv):
        if self.fn is not None:
            return self.fn(t)
        if self.zero is None or self.zero.shape[0] != nv:
            self.zero = np.zeros(nv)
        return self.q, self.zero, self.zero


def _error(model, q_d, q):
    """``e = q_d (-) q``: a difference on the configuration manifold (rd.difference) when
    there is a model with a free joint, else ``q_d - q``."""
    if model is not None and model.nq != model.nv:
        from ..model.configuration import difference

        return difference(model, q, q_d)
    return q_d - q


def _saturate(tau, tau_max):
    return tau if tau_max is None else np.clip(tau, -tau_max, tau_max)


class Controller:
    """Base of robodyn's controllers: ``__call__(t, q, v) -> tau``; ``state_size`` is the
    number of the controller's own states per rollout (0: none)."""

    state_size = 0
    name = "controller"

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class PD(Controller):
    """Proportional-derivative joint control, optionally with gravity compensation.

    ``tau = K_p (q_d - q) + K_d (v_d - v)`` (+ ``g(q)`` of ``gravity_compensation``); MR
    eq. 11.27, course notes 003 (``ctrl_pd_only``, ``ctrl_with_grav``).

    Parameters
    ----------
    kp, kd : float or array_like (nv,) or (nv, nv)
        Gains, N m/rad and N m s/rad.
    target : array_like (nq,) or callable, optional
        Constant q_d (v_d = 0), or a reference ``ref(t) -> (q_d, v_d, a_d)``. Default:
        q_d = 0.
    gravity_compensation : Model, optional
        Add this model's g(q) (it may differ from the simulated model).
    model : Model, optional
        Used for configuration differences of a floating base (taken from
        gravity_compensation when given).
    tau_max : float or array_like (nv,), optional
        Saturate the torque.
    """

    name = "pd"

    def __init__(self, kp, kd, target=None, gravity_compensation=None, *, model=None,
                 tau_max=None):  # fmt: skip
        self.kp, self.kd = _gain(kp, "kp"), _gain(kd, "kd")
        self.ref = _Reference(target)
        self.gravity_model = gravity_compensation
        self.model = model if model is not None else gravity_compensation
        self.tau_max = None if tau_max is None else _gain(tau_max, "tau_max")
        if gravity_compensation is not None:
            self.name = "pd+gravity"

    def _c_law(self, model):
        """This law for the compiled rollout of robodyn.simulate (None: not expressible)."""
        ref = self.ref.c_spec(model.nv)
        if ref is None or self.kp.ndim > 1 or self.kd.ndim > 1:
            return None
        g = self.gravity_model
        return {
            "law": "pd" if g is None else "pd+gravity", "kp": self.kp, "kd": self.kd,
            "model": model if g is None else g, "cflags": 0, "q_a": ref[0], "q_b": ref[1],
            "T": ref[2], "c": ref[3], "tau_max": np.inf if self.tau_max is None else self.tau_max,
        }  # fmt: skip

    def __call__(self, t, q, v):
        q = np.asarray(q, dtype=float)
        v = np.asarray(v, dtype=float)
        q_d, v_d, _ = self.ref(t, v.shape[-1])
        if q_d is None:
            q_d = np.zeros(q.shape[-1])
        tau = _times(self.kp, _error(self.model, q_d, q)) + _times(self.kd, v_d - v)
        if self.gravity_model is not None:
            from ..dynamics import gravity_forces

            tau = tau + gravity_forces(self.gravity_model, q)
        return _saturate(tau, self.tau_max)


class PID(Controller):
    """PID joint control with anti-windup (MR eq. 11.31), optionally with gravity
    compensation.

    ``tau = K_p e + K_i z + K_d e_dot (+ g(q))`` with ``z = int e dt``; its state z is
    integrated by the simulation (``state_size = nv``): called as
    ``ctrl(t, q, v, z) -> (tau, dz)``. Anti-windup by conditional integration: while
    ``|K_i z|`` is at ``i_max`` and e would grow it further, ``dz = 0``.

    Parameters
    ----------
    kp, ki, kd : float or array_like (nv,) or (nv, nv)
    target, gravity_compensation, model, tau_max
        As in :class:`PD`.
    i_max : float or array_like (nv,), optional
        Largest integral torque ``|K_i z|`` per joint.
    """

    name = "pid"

    def __init__(self, kp, ki, kd, target=None, gravity_compensation=None, *, model=None,
                 i_max=None, tau_max=None):  # fmt: skip
        self.kp, self.ki, self.kd = _gain(kp, "kp"), _gain(ki, "ki"), _gain(kd, "kd")
        self.ref = _Reference(target)
        self.gravity_model = gravity_compensation
        self.model = model if model is not None else gravity_compensation
        self.i_max = None if i_max is None else _gain(i_max, "i_max")
        self.tau_max = None if tau_max is None else _gain(tau_max, "tau_max")
        nv = None
        for k in (self.kp, self.ki, self.kd):
            if k.ndim >= 1:
                nv = k.shape[0]
        m = self.model
        self._nv = nv if nv is not None else (m.nv if m is not None else None)
        if self._nv is None:
            raise ValueError("PID needs the number of joints: give a gain per joint or model=")
        self.state_size = self._nv

    def __call__(self, t, q, v, z):
        q = np.asarray(q, dtype=float)
        v = np.asarray(v, dtype=float)
        q_d, v_d, _ = self.ref(t, v.shape[-1])
        if q_d is None:
            q_d = np.zeros(q.shape[-1])
        e = _error(self.model, q_d, q)
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
    ki : float or array_like, optional
        An integral term ``K_i int e`` (MR eq. 11.35's PID form); makes the controller
        stateful (``state_size = nv``).
    friction : bool
        Compensate the model's joint friction.
    tau_max : float or array_like (nv,), optional
        Saturate the torque.
    """

    name = "computed_torque"

    def __init__(self, model, ref, kp, kd, *, ki=None, friction: bool = True, tau_max=None):
        self.model = model
        self.ref = _Reference(ref, "ref")
        self.kp, self.kd = _gain(kp, "kp", model.nv), _gain(kd, "kd", model.nv)
        self.ki = None if ki is None else _gain(ki, "ki", model.nv)
        self.friction = friction
        self.tau_max = None if tau_max is None else _gain(tau_max, "tau_max", model.nv)
        self.state_size = 0 if ki is None else model.nv
        from ..dynamics import inverse_dynamics

        self._rnea, self._nv, self._flat = inverse_dynamics, model.nv, model.nq == model.nv

    def _c_law(self, model):
        """This law for the compiled rollout of robodyn.simulate (None: not expressible)."""
        ref = self.ref.c_spec(model.nv)
        if ref is None or self.kp.ndim > 1 or self.kd.ndim > 1 or self.ki is not None:
            return None
        from ..kernels._pack import FL_ARMATURE, FL_FRICTION

        return {
            "law": "computed_torque", "kp": self.kp, "kd": self.kd, "model": self.model,
            "cflags": FL_ARMATURE | (FL_FRICTION if self.friction else 0), "q_a": ref[0],
            "q_b": ref[1], "T": ref[2], "c": ref[3],
            "tau_max": np.inf if self.tau_max is None else self.tau_max,
        }  # fmt: skip

    def _tau(self, t, q, v, z):
        q_d, v_d, a_d = self.ref(t, self._nv)
        e = q_d - q if self._flat else _error(self.model, q_d, q)
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
        qdd    = J_b^+ (dV_cmd - dJ_b v) - (1 - J_b^+ J_b) k_null v
        tau    = rnea(q, v, qdd)

    so with the true model and a square, non-singular J_b the error obeys
    ``d/dt V_e + K_d V_e + K_p X_e = 0`` (MR eq. 11.46); redundant joints are damped in the
    null space of J_b.

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
    """

    name = "task_space_computed_torque"

    def __init__(self, model, frame, ref, kp, kd, *, k_null: float = 1.0,
                 friction: bool = True, tau_max=None):  # fmt: skip
        self.model = model
        self.frame = model.frame_id(frame)
        if callable(ref):
            self.ref = ref
        else:
            X = np.asarray(ref, dtype=float)
            if X.shape != (4, 4):
                raise ValueError(
                    f"ref must be ref(t) -> (X, V, dV) or a pose (4, 4), got {X.shape}"
                )
            z = np.zeros(6)
            self.ref = lambda t: (X, z, z)
        self.kp, self.kd = _gain(kp, "kp", 6 if np.ndim(kp) else None), _gain(kd, "kd")
        self.k_null = float(k_null)
        self.friction = friction
        self.tau_max = None if tau_max is None else _gain(tau_max, "tau_max", model.nv)

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
        Jp = np.linalg.pinv(J)
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
