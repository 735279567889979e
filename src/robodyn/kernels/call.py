"""The road from a public function to the compiled core.

Every numeric function of robodyn takes one state (``q`` of shape (nq,)) or a batch with
any number of leading dimensions, numpy style (``q`` of shape (..., nq); the other state
arguments broadcast against it), and returns results with the same leading dimensions.

A call first goes straight to the C entry point with the user's arrays: for float64,
C-contiguous arrays of one state or of one batch dimension the core checks the sizes and
the numbers itself and computes (the fast path, no Python work). When it cannot (a list, a
view, a second batch dimension, a broadcast, a wrong size, NaN), it returns a code and the
call takes the general path here: convert each argument, check its trailing shape (the
message names the argument and the shape the user passed), broadcast the leading
dimensions, flatten them to one batch, call the core again and reshape its result; an
error in a state names the argument and the state's index.

Dask arrays take the same road: the general path meets them in :func:`prepare` (the core's
fast path takes only numpy arrays, so a NumPy call never gets there and never imports
dask), which raises :class:`LazyInput`. Each public batch function (marked :func:`batched`)
catches it around its general path only, ``except LazyInput: return lazy(fn, locals())``,
and :func:`lazy` hands the call to :func:`robodyn.distributed.lazy_call`, which maps the
same function over the blocks of the batch axes and returns a lazy dask array. There is no
Python wrapper: a NumPy call runs the function itself (a ``try`` costs nothing when nothing
is raised), so no such function may assign to one of its parameters (``locals()`` would then
hold the new value; tests/test_dask.py checks every one).

The most used functions (``batched(fast=...)``: fk, jacobian, inverse_dynamics,
mass_matrix, forward_dynamics, the RNEA terms, coriolis_matrix) are published as the core's
``entry`` holding the Python function: the call that needs no Python work (a packed model,
C-contiguous float64 states, a frame by name, keywords the entry knows) goes from C to C,
without a Python frame (~100 ns of a ~600 ns call); every other call is handed to the Python
function unchanged. The entry answers as the function does to everything else: its name,
documentation, signature (``__wrapped__``), pickling by name.
"""

from __future__ import annotations

import inspect
import math

import numpy as np

__all__ = ["threads", "prepare", "finish", "describe", "batched", "lazy", "LazyInput", "is_dask"]

_ND = np.ndarray


class LazyInput(Exception):  # noqa: N818 (a signal, not an error)
    """Raised by :func:`prepare` when an argument is a dask array (caught by the public
    batch function, which calls :func:`lazy`)."""


def is_dask(x) -> bool:
    """True for a dask collection, by its type's module (dask itself is not imported)."""
    return x.__class__ is not _ND and type(x).__module__.startswith("dask.")


BATCHED: list = []  # every function marked by batched(), in import order


def batched(fn=None, *, fast: tuple | None = None):
    """Mark ``fn`` as a public batch function that accepts dask arrays and list it in
    :data:`BATCHED`; ``fn`` is returned unchanged (no wrapper, no extra frame), or with
    ``fast`` published as a compiled entry of the core (see the module's documentation).

    The function itself answers dask arrays: its general path (after the core's fast path)
    sits in ``try: ... except LazyInput: return lazy(fn, locals())``; :func:`prepare` raises
    :class:`LazyInput` before any work, and :func:`lazy` hands the call to
    :func:`robodyn.distributed.lazy_call`. ``fn`` must not assign to its parameters.

    Parameters
    ----------
    fn : function
    fast : (op, nx, flags) or (op, nx, flags, kinds, kind), optional
        The core's algorithm (``"rnea"``, ``"aba"``, ``"crba"``, ``"coriolis"``, ``"fk"``,
        ``"jacobian"``), the number of state arguments after the model, the core's flags of
        a call with every keyword at its default, and for ``"jacobian"`` the kind names and
        the default kind.
    """

    def mark(fn):
        if fn.__code__.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
            raise TypeError(f"batched: {fn.__name__} has *args or **kwargs")
        if fast is not None:
            fn = _entry(fn, *fast)
        BATCHED.append(fn)
        return fn

    return mark if fn is None else mark(fn)


# the keywords a compiled entry reads itself (any other keyword: the Python function)
_ENTRY_KEYWORDS = ("threads", "check", "armature", "friction", "frame", "kind")


def _entry(fn, op: str, nx: int, flags: int, kinds: dict | None = None, kind: int = 0):
    """``fn`` published as the core's compiled entry (kernels/core/module.c)."""
    from . import core

    params = inspect.signature(fn).parameters
    defaults_ok = all(
        params[n].default is True for n in ("check", "armature", "friction") if n in params
    ) and (params["threads"].default is None if "threads" in params else True)
    if not defaults_ok:  # the entry assumes these defaults
        raise TypeError(f"batched: {fn.__name__}'s keywords do not have the entry's defaults")
    keywords = tuple(n for n in _ENTRY_KEYWORDS if n in params)
    return core.entry(fn, op, nx, flags, keywords, kinds, kind)


def lazy(fn, local_vars):
    """The call of ``fn`` whose arguments are ``fn``'s parameters in ``local_vars`` (the
    ``locals()`` of ``fn``'s frame), answered by :func:`robodyn.distributed.lazy_call`: ``fn``
    mapped over the chunks of the dask arrays' leading (batch) axes, a lazy dask array.
    """
    from ..distributed import _signature, lazy_call

    args, kwargs = [], {}
    for p in _signature(fn).parameters.values():
        if p.kind is p.KEYWORD_ONLY:
            kwargs[p.name] = local_vars[p.name]
        else:
            args.append(local_vars[p.name])
    return lazy_call(fn, tuple(args), kwargs)


def threads(value) -> int:
    """The ``threads`` argument of a batch function as the core takes it (0: the default,
    ``ROBODYN_NUM_THREADS`` or every core)."""
    if value is None:
        return 0
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"threads must be a positive int or None, got {value!r}")
    if value < 1:
        raise ValueError(f"threads must be a positive int or None, got {value}")
    return int(value)


def describe(x) -> str:
    """How an argument looked to the user: 'None', 'a scalar', or its shape."""
    if x is None:
        return "None"
    shape = np.shape(x) if not isinstance(x, _ND) else x.shape
    if shape == ():
        return "a scalar"
    return str(tuple(shape))


def _want(tail: tuple[int, ...]) -> str:
    return "(..., " + ", ".join(str(t) for t in tail) + ")"


def prepare(names, xs, tails):
    """Convert state arguments and broadcast their leading (batch) dimensions.

    Parameters
    ----------
    names : sequence of str
        Argument names, for the messages.
    xs : sequence of array_like
        The arguments.
    tails : sequence of tuple of int
        The trailing shape of one state of each argument, e.g. ``(nq,)`` or ``(nb, 6)``.

    Returns
    -------
    lead : tuple of int
        The broadcast leading dimensions (``()`` for one state).
    arrays : list of numpy.ndarray
        float64, C-contiguous; shape ``tail`` for one state, ``(N, *tail)`` with
        ``N = prod(lead)`` for a batch.

    Raises
    ------
    ValueError
        A non-numeric argument, a trailing shape that is not the state's, or leading
        dimensions that do not broadcast, naming the arguments and the shapes passed.
    """
    arrs, leads = [], []
    for x, name, tail in zip(xs, names, tails):
        if x is None:
            raise ValueError(f"{name} must have shape {_want(tail)}, got None")
        if x.__class__ is not _ND and is_dask(x):
            raise LazyInput(name)
        try:
            a = np.asarray(x, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                f"{name} must be a numeric array of shape {_want(tail)}, got {type(x).__name__}"
            ) from exc
        k = len(tail)
        if a.ndim < k or a.shape[a.ndim - k :] != tuple(tail):
            raise ValueError(f"{name} must have shape {_want(tail)}, got {describe(x)}")
        arrs.append(a)
        leads.append(a.shape[: a.ndim - k])
    try:
        lead = np.broadcast_shapes(*leads)
    except ValueError:
        shapes = ", ".join(f"{n} {a.shape}" for n, a in zip(names, arrs))
        raise ValueError(f"the batch dimensions of {shapes} do not broadcast") from None
    out = []
    N = math.prod(lead)
    for a, tail in zip(arrs, tails):
        if lead == ():
            b = np.ascontiguousarray(a)
        elif a.shape[: a.ndim - len(tail)] == lead:
            b = np.ascontiguousarray(a).reshape((N, *tail))
        else:
            b = np.ascontiguousarray(np.broadcast_to(a, (*lead, *tail))).reshape((N, *tail))
        if not (b.flags.aligned and b.dtype.isnative):  # the core reads aligned native doubles
            b = b.astype(np.float64, order="C", copy=True)
        out.append(b)
    return lead, out


def state_index(lead: tuple[int, ...], state: int) -> str:
    """``[i, j]`` for the flat state index in a batch of shape lead; '' for one state."""
    if lead == ():
        return ""
    idx = np.unravel_index(state, lead)
    return "[" + ", ".join(str(int(i)) for i in idx) + "]"


def finish(result, lead: tuple[int, ...], names, model, what: str = "") -> np.ndarray:
    """The core's result with the leading dimensions restored, or the error it reported.

    ``names`` are the names of the core's state arguments in order (their NaN codes are
    11, 12, ...); ``what`` names the computation for a singular mass matrix.
    """
    if result.__class__ is _ND:
        if lead == () or len(lead) == 1:
            return result
        return result.reshape((*lead, *result.shape[1:]))
    if result.__class__ is not tuple:  # a size code: prepare() let a bad shape through
        raise RuntimeError(f"robodyn's core refused the arguments (code {result})")
    code, state = result
    at = state_index(lead, state)
    if 11 <= code < 11 + len(names):
        raise ValueError(f"{names[code - 11]}{at} contains NaN or inf")
    if code == 15:
        raise ValueError(f"q{at}: the quaternion of a free joint is zero")
    where = f" at state {at}" if at else ""
    if code >= 2000:
        body = int(model.dof_body[code - 2000])
        raise ValueError(
            f"{what or 'the mass matrix'} is singular{where}: joint "
            f"{model.joint_names_all[body]!r} drives a massless subtree"
        )
    if code >= 1000:
        raise ValueError(
            f"{what or 'the mass matrix'} is singular{where}: joint "
            f"{model.joint_names_all[code - 1000]!r} drives a massless subtree (its "
            "articulated inertia is zero)"
        )
    raise RuntimeError(f"robodyn's core reported error {code}")  # pragma: no cover
