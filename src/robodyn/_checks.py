"""Argument checks shared by the public wrappers.

Each check names the argument, the expected shape and the received one, so that bad
input fails at the API boundary with a clear message instead of deep inside numpy.
"""

from __future__ import annotations

import numpy as np

__all__ = ["as_array", "as_vector", "as_square", "as_positive"]


def as_array(x, name: str, tail: tuple[int, ...], *, finite: bool = True) -> np.ndarray:
    """Return ``x`` as a float64 array whose trailing dimensions are ``tail``.

    Parameters
    ----------
    x : array_like
        The argument.
    name : str
        Its name, used in the error message.
    tail : tuple of int
        Expected trailing shape, e.g. ``(3,)`` or ``(4, 4)``; leading batch dimensions
        are allowed.
    finite : bool
        Reject NaN and inf.

    Returns
    -------
    numpy.ndarray
        float64 array of shape ``(..., *tail)``.
    """
    try:
        a = np.asarray(x, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be a numeric array, got {type(x).__name__}") from exc
    k = len(tail)
    if a.ndim < k or a.shape[a.ndim - k :] != tuple(tail):
        want = "(..., " + ", ".join(str(t) for t in tail) + ")"
        raise ValueError(f"{name} must have shape {want}, got {a.shape}")
    if finite and not np.all(np.isfinite(a)):
        raise ValueError(f"{name} contains NaN or inf")
    return a


def as_vector(x, name: str, n: int, *, finite: bool = True) -> np.ndarray:
    """Return ``x`` as a 1-D float64 vector of length ``n`` (no batch dimension)."""
    a = as_array(x, name, (n,), finite=finite)
    if a.ndim != 1:
        raise ValueError(f"{name} must have shape ({n},), got {a.shape}")
    return a


def as_square(x, name: str, n: int, *, finite: bool = True) -> np.ndarray:
    """Return ``x`` as a single float64 ``(n, n)`` matrix (no batch dimension)."""
    a = as_array(x, name, (n, n), finite=finite)
    if a.ndim != 2:
        raise ValueError(f"{name} must have shape ({n}, {n}), got {a.shape}")
    return a


def as_positive(x, name: str, unit: str = "") -> float:
    """Return ``x`` as a positive, finite float (a duration, a step, a limit).

    ``unit`` (e.g. ``" seconds"``) is said in the message.
    """
    try:
        x = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a positive number{unit}, got {x!r}") from None
    if not (x > 0 and np.isfinite(x)):
        raise ValueError(f"{name} must be a positive, finite number{unit}, got {x!r}")
    return x
