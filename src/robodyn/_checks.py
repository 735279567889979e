"""Argument checks shared by the public wrappers.

Each check names the argument, the expected shape and the received one, so that bad
input fails at the API boundary with a clear message instead of deep inside numpy.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "as_array",
    "as_vector",
    "as_square",
    "as_positive",
    "available_memory",
    "memory_limit",
    "check_room",
    "human_bytes",
]


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


def available_memory() -> int | None:
    """Bytes of memory the system can give this process now without swapping (Linux's
    MemAvailable; elsewhere the free physical pages), or None when it cannot tell."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import os

        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def human_bytes(n: float) -> str:
    """``n`` bytes as "1.2 GB" (powers of 1000)."""
    for unit in ("B", "kB", "MB", "GB", "TB", "PB", "EB"):
        if abs(n) < 1000 or unit == "EB":
            return f"{n:.3g} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1000.0
    return f"{n:.3g} EB"  # pragma: no cover


def memory_limit(max_memory=None, cli: str | None = None) -> tuple[int | None, str]:
    """The bytes a computation may allocate, and how a message names that limit:
    ``max_memory`` when given (checked positive), else the memory available now (None when
    the system cannot tell). ``cli``: the command-line option that sets it, said too."""
    also = f" ({cli})" if cli else ""
    if max_memory is not None:
        try:
            limit = float(max_memory)
        except (TypeError, ValueError):
            raise ValueError(f"max_memory must be a number of bytes, got {max_memory!r}") from None
        if not limit > 0:
            raise ValueError(f"max_memory must be positive, got {max_memory!r}")
        return int(min(limit, 2**62)), f"the limit max_memory={human_bytes(limit)}{also}"
    avail = available_memory()
    return avail, f"the {human_bytes(avail or 0)} of memory available (max_memory={also} raises it)"


def check_room(need: int, what: str, *, folder=None, limit=None, cli: str | None = None) -> None:
    """Raise ValueError before allocating when ``need`` bytes will not fit: in ``limit``
    bytes of memory (default: the memory available now; ``cli`` the command-line option
    that raises it), or, with ``folder``, on that folder's file system. ``what`` says what the
    bytes are for."""
    import shutil

    if folder is not None:
        try:
            free = shutil.disk_usage(folder).free
        except OSError:
            return
        if need > free:
            raise ValueError(f"{what} would take {human_bytes(need)} on disk and "
                             f"{str(folder)!r} has {human_bytes(free)} free")  # fmt: skip
        return
    limit, said = memory_limit(limit, cli)
    if limit is not None and need > limit:
        raise ValueError(f"{what} would take {human_bytes(need)} of memory, over {said}")
