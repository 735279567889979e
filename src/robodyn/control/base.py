"""The base of robodyn's controllers: the Controller class, the default gains' constants and
the small helpers every law uses (gains checked, torques saturated, JSON for describe())."""

from __future__ import annotations

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
    number of the controller's own states per rollout (0: none)."""

    state_size = 0
    name = "controller"

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    def describe(self) -> dict:
        """What determines this controller's torques, as JSON (class, gains, target, models
        by fingerprint): a store of rollouts keeps it and refuses to be resumed with a
        controller that describes itself otherwise. Raises TypeError for a controller (or
        its reference) that cannot say what it is."""
        raise TypeError(f"the controller {type(self).__name__} cannot describe itself (it "
                        "has no describe() method of its own)")  # fmt: skip
