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
error in a state names the argument and the state's index. A large batch (more than
:data:`PIECE_STATES` states) with an argument that is broadcast (one ``v`` for a batch of
``q``) or converted (float32, a view), or of a function that builds more than its result
per state (a part of a larger result of the core, the core's arguments it makes, products
with an argument, a Python loop), goes to the core in pieces (:func:`run`): each piece's
arguments are converted, the core computes it, and its rows are written into the one
result; nothing the size of the batch is materialised but the result, and the numbers are
those of the call in one piece (the pieces are whole chunks of the core's lanes). Every
batch function takes this road: dynamics, kinematics, Coriolis and Christoffel, the
regressor, constrained dynamics, and the Python loops of energy and task space.

Dask arrays take the same road: the general path meets them in :func:`prepare` (the core's
fast path takes only numpy arrays, so a NumPy call never gets there and never imports
dask), which raises :class:`LazyInput`. Each public batch function is marked
:func:`batched`, a plain wrapper that catches it and hands the call, with the arguments as
the user gave them, to :func:`robodyn.kernels.lazy.lazy_call` (beside this module; it
imports dask only when a dask array arrives), which maps the same function over the blocks
of the batch axes and returns a lazy dask array. This module knows nothing of dask or of
anything above the core.

The most used functions (``batched(fast=...)``: fk, jacobian, inverse_dynamics,
mass_matrix, forward_dynamics, the RNEA terms, coriolis_matrix) are published as the core's
``entry`` holding the Python function: the call that needs no Python work (a packed model,
C-contiguous float64 states, a frame by name, keywords the entry knows) goes from C to C,
without a Python frame (~100 ns of a ~600 ns call); every other call is handed to the
wrapper, then the Python function, unchanged. The entry answers as the function does to
everything else: its name, documentation, signature (``__wrapped__``), pickling by name.
"""

from __future__ import annotations

import functools
import inspect
import math

import numpy as np

from ._pack import packed
from .lazy import is_dask, lazy_call

__all__ = [
    "threads", "prepare", "run", "compute", "into", "into_fields", "finish", "nonfinite",
    "describe", "batched", "LazyInput",
]  # fmt: skip

_ND = np.ndarray
_F8 = np.dtype(np.float64)
#: a batch larger than this, with an argument broadcast or converted, goes to the core in
#: pieces of at most this many states (:func:`run`)
PIECE_STATES = 1 << 16
#: and of at most about this many bytes of arguments, temporaries and result (a piece's
#: size is a multiple of PIECE_ROUND states, a whole number of the core's chunks of 16 lanes)
PIECE_BYTES = 1 << 25
PIECE_ROUND = 1024
#: and of at most 1/PIECE_SHARE of the batch: a piece's memory stays a small part of the
#: result's (a batch just over PIECE_STATES states: pieces of a few thousand states)
PIECE_SHARE = 16


class LazyInput(Exception):  # noqa: N818 (a signal, not an error)
    """Raised by :func:`prepare` when an argument is a dask array (caught by the wrapper
    of :func:`batched`, which hands the call to :func:`robodyn.kernels.lazy.lazy_call`)."""


BATCHED: list = []  # every function marked by batched(), in import order


def batched(fn=None, *, fast: tuple | None = None):
    """Mark ``fn`` as a public batch function: it answers dask arrays, is listed in
    :data:`BATCHED`, and with ``fast`` is published as a compiled entry of the core.

    The function is wrapped once: its call runs ``fn`` unchanged, and when ``fn``'s general
    path meets a dask array (:func:`prepare` raises :class:`LazyInput` before any work) the
    call, with the arguments as the user gave them, is handed to
    :func:`robodyn.kernels.lazy.lazy_call`, which maps the public function over the chunks
    of the batch axes. With ``fast`` the core's entry answers the common call from C and
    hands every other call to the wrapper.

    Parameters
    ----------
    fn : function
    fast : (op, nx, flags) or (op, nx, flags, kinds, kind), optional
        The core's algorithm (an ``op`` of ``kernels/core/module.c``: ``"rnea"``, ``"aba"``,
        ``"crba"``, ``"minv"``, ``"coriolis"``, ``"fk"``, ``"jacobian"``, ``"kinetic"``,
        ``"potential"``, ``"momentum"``, ``"momentum_rate"``, ``"ccrba"``, ``"com"``,
        ``"com_velocity"``, ``"com_acceleration"``, ``"integrate"`` (which reads a float
        ``dt`` after its states), ``"difference"``), the number of state arguments after the
        model, the core's flags of a call with every keyword at its default, and the names
        of the kind argument (``kind`` of ``"jacobian"``, ``about`` of ``"ccrba"``; None for
        none) and the default kind (the core's kind code, e.g. 1: about the CoM).
    """

    def mark(fn):
        if fn.__code__.co_flags & (inspect.CO_VARARGS | inspect.CO_VARKEYWORDS):
            raise TypeError(f"batched: {fn.__name__} has *args or **kwargs")
        public = None  # the object users call: the wrapper, or the core's entry holding it

        @functools.wraps(fn)
        def general(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except LazyInput:  # dask arrays: the function mapped over their chunks
                return lazy_call(public, args, kwargs)

        public = general if fast is None else _entry(general, *fast)
        BATCHED.append(public)
        return public

    return mark if fn is None else mark(fn)


# the keywords a compiled entry reads itself (any other keyword: the Python function)
_ENTRY_KEYWORDS = (
    "threads", "check", "armature", "friction", "frame", "kind", "about", "out", "dt",
)  # fmt: skip


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
    arrs, lead = _arguments(names, xs, tails)
    return lead, [_whole(a, lead, tail) for a, tail in zip(arrs, tails)]


def _arguments(names, xs, tails):
    """The arguments as numpy arrays (a numeric array keeps its dtype: it is converted when
    it is read) with their trailing shapes checked, and the broadcast leading dimensions."""
    arrs, leads = [], []
    for x, name, tail in zip(xs, names, tails):
        if x is None:
            raise ValueError(f"{name} must have shape {_want(tail)}, got None")
        if x.__class__ is not _ND and is_dask(x):
            raise LazyInput(name)
        if isinstance(x, _ND) and x.dtype.kind in "biuf":
            a = x if x.__class__ is _ND else np.asarray(x)
        else:
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
    return arrs, lead


def _native(b: np.ndarray) -> np.ndarray:
    """``b`` (float64, C-contiguous) as the core reads it: aligned native doubles."""
    if not (b.flags.aligned and b.dtype.isnative):
        b = b.astype(np.float64, order="C", copy=True)
    return b


def _whole(a: np.ndarray, lead: tuple[int, ...], tail) -> np.ndarray:
    """Argument ``a`` for the whole batch: float64, C-contiguous, (N, *tail) (tail alone for
    one state); a view of ``a`` when it already is that."""
    if lead == ():
        return _native(np.ascontiguousarray(a, dtype=np.float64))
    N = math.prod(lead)
    if a.shape[: a.ndim - len(tail)] != lead:
        a = np.broadcast_to(a, (*lead, *tail))
    return _native(np.ascontiguousarray(a, dtype=np.float64).reshape((N, *tail)))


def _ready(a: np.ndarray, lead: tuple[int, ...], tail) -> bool:
    """True when :func:`_whole` makes no copy of ``a``."""
    return (
        a.dtype == _F8
        and a.flags.c_contiguous
        and a.flags.aligned
        and a.shape[: a.ndim - len(tail)] == lead
    )


def _rows(a: np.ndarray, lead: tuple[int, ...], tail):
    """A function ``(k0, k1) -> states k0..k1-1`` of argument ``a`` broadcast over ``lead``
    (flat C order): float64, C-contiguous, (k1 - k0, *tail), made for the piece only."""
    N = math.prod(lead)
    if a.ndim == len(tail):  # one state for every state of the batch: repeat it
        one = _native(np.ascontiguousarray(a, dtype=np.float64))
        block = [np.empty((0, *tail))]

        def repeated(k0: int, k1: int) -> np.ndarray:
            if len(block[0]) < k1 - k0:
                block[0] = np.empty((k1 - k0, *tail))
                block[0][...] = one
            return block[0][: k1 - k0]

        return repeated
    v = a if a.shape[: a.ndim - len(tail)] == lead else np.broadcast_to(a, (*lead, *tail))
    if len(lead) > 1:
        try:  # one batch axis without a copy (numpy >= 2.1 says when it cannot)
            v = np.reshape(v, (N, *tail), copy=False)
        except (TypeError, ValueError):  # broadcast axes that do not merge, or old numpy

            def gathered(k0: int, k1: int) -> np.ndarray:
                idx = np.unravel_index(np.arange(k0, k1), lead)
                return _native(np.ascontiguousarray(v[idx], dtype=np.float64))

            return gathered

    def sliced(k0: int, k1: int) -> np.ndarray:
        return _native(np.ascontiguousarray(v[k0:k1], dtype=np.float64))

    return sliced


#: the trailing shape of one state of each state argument, by name
TAILS = {
    "q": lambda m: (m.nq,),
    "v": lambda m: (m.nv,),
    "a": lambda m: (m.nv,),
    "tau": lambda m: (m.nv,),
}


def compute(entry, model, names, xs, *rest, what: str = "", out=None):
    """The whole road of a function of the state arguments ``xs`` (named ``names``, from
    :data:`TAILS`) that the core's ``entry(P, *xs, *rest)`` computes: the user's arrays
    straight to C (one state, or one batch dimension of C-contiguous float64), and when
    the core answers with a code instead of an array, the general path (:func:`run`).
    With ``out`` (the caller's array) the core writes the result there (:func:`into`)."""
    P = (model._rd_packed or packed(model)).P
    r = entry(P, *xs, *rest) if out is None else entry(P, *xs, *rest, out)
    if r.__class__ is _ND:
        return r
    tails = tuple(TAILS[n](model) for n in names)
    r = run(lambda arrs: entry(P, *arrs, *rest), names, xs, tails, model, None, what)
    return r if out is None else into(out, r)


def into(out, result: np.ndarray, name: str = "out") -> np.ndarray:
    """``result`` copied into the caller's ``out`` and ``out`` returned: the general path
    of a call with ``out=`` (the core's fast path, float64 C-contiguous states and an
    ``out`` that is a writeable C-contiguous float64 array of the result's shape, sharing
    no memory with them, writes into ``out`` itself and allocates nothing). A ValueError
    names ``out`` (``name``) when it cannot hold the result."""
    shape = np.shape(result)
    if not (
        isinstance(out, _ND) and out.dtype == _F8 and out.shape == shape and out.flags.writeable
    ):
        got = f"{out.dtype} {out.shape}" if isinstance(out, _ND) else type(out).__name__
        raise ValueError(f"{name} must be a writeable float64 array of shape {shape}, got {got}")
    np.copyto(out, result)
    return out


def into_fields(out, result: tuple) -> tuple:
    """A named tuple of arrays ``result`` copied into the caller's ``out``, a tuple (or
    list) of arrays in the order of ``result``'s fields (:func:`into` for each); the named
    tuple of the caller's arrays is returned. A ValueError names ``out`` (and the field)
    when it cannot hold the result."""
    fields = result._fields
    if not isinstance(out, (tuple, list)) or len(out) != len(fields):
        shapes = ", ".join(f"{f} {np.shape(r)}" for f, r in zip(fields, result))
        got = f"{len(out)} items" if isinstance(out, (tuple, list)) else type(out).__name__
        raise ValueError(
            f"out must be a tuple of {len(fields)} writeable float64 arrays ({shapes}), got {got}"
        )
    return type(result)(
        *(into(o, r, f"out[{k}] ({f})") for k, (o, r, f) in enumerate(zip(out, result, fields)))
    )


def run(call, names, xs, tails, model, codes=None, what: str = "", scratch: int = 0):
    """The general path of a batch function: :func:`prepare`, ``call`` and :func:`finish`.

    ``call(arrays)`` calls the core on the converted arguments (as :func:`prepare` returns
    them) and returns what the core returned, or its own result of the state(s) computed
    from it (a part of the core's result, a product with an argument), or a list of
    several results (then ``run`` returns a tuple). A batch of more than
    :data:`PIECE_STATES` states with an argument that is broadcast or must be converted
    (another dtype, not C-contiguous), or whose ``call`` makes temporaries per state
    (``scratch``), is called in pieces of whole chunks of states: each piece's arguments
    are made for it alone, and its result written into one preallocated output, so the
    batch's memory is its inputs and its result (a broadcast argument of the whole batch
    cost 3x the result at 10^7 states, 4x with float32 q). A piece's result is a fresh
    array of the core (an algorithm with a sparsity pattern fills zeroed rows) copied
    whole into the output, so every entry of the output is written. An error names the
    state in the batch.

    Parameters
    ----------
    call : callable
        ``call(list of arrays) -> the core's result``, a result made from it, a list of
        results, or an error (``(code, state, ...)`` as :func:`finish` takes it, the state
        counted in the arrays ``call`` was given).
    names, xs, tails
        As in :func:`prepare`.
    model : Model
        For the messages of :func:`finish`.
    codes : sequence of str, optional
        The core's state argument names for its NaN codes (default ``names``).
    what : str
        As in :func:`finish`.
    scratch : int
        Bytes per state that ``call`` allocates beyond its arguments and its result (a
        larger result of the core it takes a part of, the core's arguments it builds):
        nonzero, a batch of more than :data:`PIECE_STATES` states goes in pieces even when
        no argument needs converting, and a piece's size counts them.
    """
    codes = names if codes is None else codes
    arrs, lead = _arguments(names, xs, tails)
    N = math.prod(lead) if lead else 1
    if N <= PIECE_STATES or (not scratch and all(_ready(a, lead, t) for a, t in zip(arrs, tails))):
        r = call([_whole(a, lead, t) for a, t in zip(arrs, tails)])
        if r.__class__ is list:
            return tuple(finish(x, lead, codes, model, what) for x in r)
        return finish(r, lead, codes, model, what)
    rows = [_rows(a, lead, t) for a, t in zip(arrs, tails)]
    per_state = scratch + sum(8 * math.prod(t) for t in tails)  # bytes of a state's piece
    out, k0, n, many = None, 0, PIECE_ROUND, False
    while k0 < N:
        k1 = min(N, k0 + n)
        r = call([f(k0, k1) for f in rows])
        many = r.__class__ is list
        rs = r if many else (r,)
        if rs[0].__class__ is not _ND:  # an error: in the batch, the state is k0 + its index here
            r = (r[0], r[1] + k0, *r[2:]) if r.__class__ is tuple else r
            finish(r, lead, codes, model, what)
        if out is None:
            out = [np.empty((N, *x.shape[1:]), dtype=x.dtype) for x in rs]
            per_state += sum(x.nbytes for x in rs) // max(1, k1 - k0)
            n = min(PIECE_STATES, PIECE_BYTES // per_state, N // PIECE_SHARE)
            n = max(PIECE_ROUND, n - n % PIECE_ROUND)
        for o, x in zip(out, rs):
            o[k0:k1] = x
        r = rs = x = None  # this piece's result is freed before the next one is made
        k0 = k1
    if many:
        return tuple(finish(x, lead, codes, model, what) for x in out)
    return finish(out[0], lead, codes, model, what)


def nonfinite(name: str, x: np.ndarray, ndim: int):
    """None when argument ``x`` (one state of ``ndim`` dimensions, or a batch of them) is
    finite, else the error of its first state that is not, as :func:`finish` takes it:
    for an argument a batch function checks itself (the core checks those it reads)."""
    if x.size <= 64:  # one state: faster in Python than two numpy calls
        if all(map(math.isfinite, x.ravel().tolist())):
            return None
    elif np.isfinite(x).all():
        return None
    ok = np.isfinite(x)
    if x.ndim == ndim:
        return (name, 0)
    return (name, int(np.flatnonzero(~ok.reshape(len(x), -1).all(axis=1))[0]))


def state_index(lead: tuple[int, ...], state: int) -> str:
    """``[i, j]`` for the flat state index in a batch of shape lead; '' for one state."""
    if lead == ():
        return ""
    idx = np.unravel_index(state, lead)
    return "[" + ", ".join(str(int(i)) for i in idx) + "]"


def _condition(cond: float) -> str:
    """The condition number the core computed for a singular mass matrix, as a clause."""
    if math.isnan(cond):
        return ""
    if math.isinf(cond):
        return "; M is not positive definite to working precision"
    return f"; the condition number of M is at least {cond:.3g}"


def finish(result, lead: tuple[int, ...], names, model, what: str = "") -> np.ndarray:
    """The core's result with the leading dimensions restored, or the error it reported.

    ``names`` are the names of the core's state arguments in order (their NaN codes are
    11, 12, ...); ``what`` names the computation for a singular mass matrix. An error is
    ``(code, state)``, or ``(code, state, cond)`` for a singular mass matrix (code >= 1000,
    cond the condition number of M there, a lower bound); code 19 is a state whose inputs
    are finite and whose output is not (an overflow). An error ``(name, state)`` with a
    ``name`` (str) is an argument found not finite in Python (:func:`nonfinite`).
    """
    if result.__class__ is _ND:
        if lead == () or len(lead) == 1:
            return result
        return result.reshape((*lead, *result.shape[1:]))
    if result.__class__ is not tuple:  # a size code: prepare() let a bad shape through
        raise RuntimeError(f"robodyn's core refused the arguments (code {result})")
    code, state = result[0], result[1]
    at = state_index(lead, state)
    if code.__class__ is str:
        raise ValueError(f"{code}{at} contains NaN or inf")
    if 11 <= code < 11 + len(names):
        raise ValueError(f"{names[code - 11]}{at} contains NaN or inf")
    if code in (21, 22):  # a zero quaternion in the core's configuration argument code - 21
        raise ValueError(f"{names[code - 21]}{at}: the quaternion of a free joint is zero")
    where = f" at state {at}" if at else ""
    if code == 23:  # constrained.c: the Schur complement of the KKT system
        raise ValueError(
            f"A M^-1 A^T is singular or not positive definite (the rows of A are linearly "
            f"dependent){where}"
        )
    if code == 19:  # finite inputs, an output that is not
        raise ValueError(
            f"the result{where} overflowed: the inputs ({', '.join(names)}) are finite but too "
            "large for float64 (a product exceeded ~1.8e308 and gave inf or NaN); scale them down"
        )
    if code == 20:  # minv.c's task space
        raise ValueError(
            f"J M^-1 J^T is singular or not positive definite{where}: the frame is at a "
            "kinematic singularity or the chosen rows of J are not independent (more rows "
            "than the robot has dofs?)"
        )
    cond = _condition(result[2] if len(result) > 2 else math.nan)
    if code >= 2000:
        body = int(model.dof_body[code - 2000])
        raise ValueError(
            f"{what or 'the mass matrix'} is singular{where}: joint "
            f"{model.joint_names_all[body]!r} drives a massless subtree, or one with no "
            f"inertia about the joint (its Cholesky pivot is at most 1e-12 of the subtree's "
            f"inertia{cond})"
        )
    if code >= 1000:
        raise ValueError(
            f"{what or 'the mass matrix'} is singular{where}: joint "
            f"{model.joint_names_all[code - 1000]!r} drives a massless subtree, or one with no "
            f"inertia about the joint (its articulated inertia is at most 1e-12 of its "
            f"subtree's{cond})"
        )
    raise RuntimeError(f"robodyn's core reported error {code}")  # pragma: no cover
