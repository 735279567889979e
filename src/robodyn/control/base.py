"""The base of robodyn's controllers: the Controller class, the default gains' constants and
the small helpers every law uses (gains checked and applied, torques saturated, JSON for
describe(), a target as a reference, the configuration error q_d (-) q, the damped
least-squares inverse of a Jacobian), so that each module of :mod:`robodyn.control` takes
them from here."""

from __future__ import annotations

import inspect

import numpy as np

OMEGA_N = 10.0  #: rad/s, the default closed-loop natural frequency of every joint
ZETA = 1.0  #: the default damping ratio (critical damping)


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


def _saturate(tau, tau_max):
    return tau if tau_max is None else np.clip(tau, -tau_max, tau_max)


def _numbers(x):
    """An array's numbers as JSON (a float, nested lists), None as None (for describe())."""
    return None if x is None else np.asarray(x, dtype=float).tolist()


def _fingerprint(model):
    """A model's fingerprint (robodyn.model.fingerprint.model_fingerprint), None as None."""
    if model is None:
        return None
    from ..model.fingerprint import model_fingerprint

    return model_fingerprint(model)


class Controller:
    """Base of robodyn's controllers: ``__call__(t, q, v) -> tau``; ``state_size`` is the
    number of the controller's own states per rollout (0: none); ``input`` what the law
    returns: ``"torque"`` (joint forces) or ``"velocity"`` (joint velocity commands, for
    ``robodyn.simulate(..., input="velocity")``)."""

    state_size = 0
    name = "controller"
    input = "torque"

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def describe(self) -> dict:
        """What determines this controller's torques, as JSON (class, gains, target, models
        by fingerprint): a store of rollouts keeps it and refuses to be resumed with a
        controller that describes itself otherwise. Raises TypeError for a controller (or
        its reference) that cannot say what it is."""
        raise TypeError(f"the controller {type(self).__name__} cannot describe itself (it "
                        "has no describe() method of its own)")  # fmt: skip


def _matrix(k, n: int) -> np.ndarray:
    """A gain (scalar, (n,) or (n, n)) as an (n, n) matrix."""
    k = np.asarray(k, dtype=float)
    return k if k.ndim == 2 else np.eye(n) * k


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
            if q.ndim != 1:
                raise ValueError(f"{name} must be a configuration (nq,) or a reference "
                                 f"ref(t) -> (q, v, a), got shape {q.shape}")  # fmt: skip
            if not np.all(np.isfinite(q)):
                raise ValueError(f"{name} contains NaN or inf: {q}")
            self.fn, self.q = None, q
        self.zero = None

    def c_spec(self, model):
        """``(q_a, q_b, T, c)`` with ``q_d(t) = q_a + s(t / T) (q_b - q_a)``,
        ``s(r) = sum_k c_k r^k``, for the compiled rollout of ``model``; None if not of
        that form. A model with quaternions (nq != nv) takes a constant target only (a
        reference's v_d would have nq entries; a zero target holds a zero quaternion)."""
        if self.fn is not None and model.nq != model.nv:
            return None
        if self.fn is None:
            if self.q is None and model.nq != model.nv:
                return None
            q = self.q if self.q is not None else np.zeros(model.nq)
            return (q, q, 1.0, np.zeros(6)) if q.shape == (model.nq,) else None
        spec = getattr(self.fn, "_c_reference", None)
        return spec() if spec is not None else None

    def describe(self, what: str = "the target") -> dict:
        """The target as JSON: constant (its numbers), zero (None given) or the reference's
        own ``describe()`` (TypeError for a callable without one)."""
        if self.fn is not None:
            return _describe_callable(self.fn, what)
        if self.q is None:
            return {"kind": "zero"}
        return {"kind": "constant", "q": _numbers(self.q)}

    def __call__(self, t, nv):
        if self.fn is not None:
            return self.fn(t)
        if self.zero is None or self.zero.shape[0] != nv:
            self.zero = np.zeros(nv)
        return self.q, self.zero, self.zero


def _error(model, q_d, q, nv: int, cls: str):
    """``e = q_d (-) q``: a difference on the configuration manifold (rd.difference) when
    there is a model with a free joint, else ``q_d - q``. A controller built without its
    model (the deprecated gains-first form) on a robot whose q and v differ in size (``nv``
    entries of v): ValueError naming the model, not numpy's broadcast error."""
    if model is not None and model.nq != model.nv:
        from ..kinematics.configuration import difference

        return difference(model, q, q_d, check=False)
    if model is None and q.shape[-1] != nv:
        raise ValueError(_no_model(cls, f"q has {q.shape[-1]} entries and v {nv}"))
    return q_d - q


def _no_model(cls: str, sizes: str) -> str:
    """Why a controller without its model cannot run on a floating base, and the fix."""
    return (
        f"{cls} has no model (built gains first, {cls}(kp, kd, target=...), the deprecated "
        f"form) and {sizes}: on a floating base (or a spherical or planar joint) the error "
        "q_d (-) q is rd.difference on the configuration manifold, which needs the model; "
        f"give it first: {cls}(model, target, kp, kd)"
    )


def _describe_callable(fn, what: str) -> dict:
    """``fn.describe()`` (a reference or scaling that can say what it is), or TypeError
    naming ``what`` when ``fn`` cannot describe itself (a function, a lambda)."""
    d = getattr(fn, "describe", None)
    if not callable(d):
        kind = "a function" if inspect.isroutine(fn) else f"a {type(fn).__name__}"
        name = getattr(fn, "__qualname__", None) or type(fn).__name__
        raise TypeError(f"{what} is {kind} {name!r}, which cannot describe itself (it has "
                        "no describe() method returning its parameters)")  # fmt: skip
    return d()


def _damped_inverse(J, damping: float, threshold: float) -> np.ndarray:
    """Damped least-squares inverse ``V diag(s / (s^2 + lambda^2)) U^T`` of ``J = U diag(s)
    V^T`` (one matrix (m, n) or a batch (..., m, n)), with ``lambda^2 = damping^2 (1 -
    (s_min / threshold)^2)`` when the smallest singular value ``s_min`` is below
    ``threshold`` and 0 above it: the pseudo-inverse away from singularities, bounded by
    ``1 / (2 damping)`` at them (Nakamura and Hanafusa's damping, Maciejewski's schedule)."""
    U, s, Vt = np.linalg.svd(J, full_matrices=False)
    s_min = s[..., -1:]
    near = np.clip(1.0 - (s_min / threshold) ** 2, 0.0, 1.0) if threshold > 0 else 0.0 * s_min
    den = s**2 + damping**2 * near  # s_i^2 + lambda^2
    gain = np.divide(s, den, out=np.zeros_like(s), where=den > 0)  # s_i = 0 -> 0
    return np.swapaxes(Vt, -1, -2) @ (gain[..., :, None] * np.swapaxes(U, -1, -2))
