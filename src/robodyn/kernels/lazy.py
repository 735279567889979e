"""Dask arrays through the batch functions: the same function mapped over the chunks.

A public batch function (marked :func:`robodyn.kernels.call.batched`) that meets a dask
array on its general path hands the call here: :func:`lazy_call` maps the function over
the chunks of the leading (batch) axes with ``dask.array.blockwise``, one task per chunk,
the model one key of the graph (every task refers to it; it is not copied into each
task). The result is a lazy dask array with the batch chunks of the input and one chunk
along each trailing axis, computed by whatever scheduler is active (threads by default, a
``dask.distributed.Client`` when one exists).

This module imports dask (only when a dask array arrives) and the model layer below it;
it knows nothing of the algorithms, the simulator or the clusters above.
"""

from __future__ import annotations

import inspect

import numpy as np

from ..model.fingerprint import model_fingerprint

__all__ = ["lazy_call", "is_dask"]

_ND = np.ndarray


def is_dask(x) -> bool:
    """True for a dask collection, by its type's module (dask itself is not imported)."""
    return x.__class__ is not _ND and type(x).__module__.startswith("dask.")


# the trailing ("core") shape of one state of each state argument, by parameter name, from
# the model and the argument (the rows k of a constraint matrix are the call's own)
_CORE = {
    "q": lambda m, x: (m.nq,),
    "v": lambda m, x: (m.nv,),
    "a": lambda m, x: (m.nv,),
    "tau": lambda m, x: (m.nv,),
    "f_ext": lambda m, x: (m.nb, 6),
    "f_tip": lambda m, x: (6,),
    "A": lambda m, x: (x.shape[-2] if x.ndim >= 2 else 1, m.nv),
    "dA_dq_v": lambda m, x: (x.shape[-1] if x.ndim >= 1 else 1,),
}


def _probe(model, name: str, tail: tuple) -> np.ndarray:
    """One state of argument ``name`` at which every function is defined: the neutral
    configuration, independent constraint rows, zeros."""
    if name == "q":
        from ..model.configuration import neutral

        return neutral(model)
    if name == "A":
        return np.eye(*tail)
    return np.zeros(tail)


_SIGNATURES: dict = {}


def _signature(fn) -> inspect.Signature:
    sig = _SIGNATURES.get(fn)
    if sig is None:
        sig = _SIGNATURES[fn] = inspect.signature(fn)
    return sig


def model_key(model):
    """The model as one key of a graph: a Delayed named by the model's fingerprint, so
    that every chunk's task refers to it and two graphs of one model share it."""
    import dask

    return dask.delayed(model, name="robodyn-model-" + model_fingerprint(model), traverse=False)


class _Blocks:
    """``fn(model, **static, **{name: block})`` for one chunk (a picklable callable: the
    public function travels by reference, its static arguments once per task). A function
    of several results (a tuple) gives them side by side along one last axis, each state's
    part flattened (``nbatch``: the chunk's batch axes)."""

    def __init__(self, fn, names, static, nbatch: int = 0, parts: bool = False):
        self.fn, self.names, self.static = fn, tuple(names), static
        self.nbatch, self.parts = nbatch, parts

    def __call__(self, model, *blocks):
        kw = dict(self.static)
        kw.update(zip(self.names, blocks))
        try:
            r = self.fn(model, **kw)
            if self.parts:
                lead = np.shape(r[0])[: self.nbatch]
                return np.concatenate([np.reshape(x, (*lead, -1)) for x in r], axis=-1)
            return np.asarray(r, dtype=np.float64)
        except ValueError as exc:  # a bad state: its index is within this chunk
            raise ValueError(f"{self.fn.__name__} on a dask chunk: {exc} (the index counts "
                             "from the chunk's first state)") from exc  # fmt: skip


def lazy_call(fn, args, kwargs):
    """``fn(*args, **kwargs)`` with dask arrays among the state arguments, as a lazy array.

    Parameters
    ----------
    fn : callable
        A public batch function ``fn(model, q, ...)`` (marked ``batched``).
    args, kwargs
        The call's arguments. The state arguments (``q``, ``v``, ``a``, ``tau``, ``f_ext``,
        ``f_tip``) may be dask or numpy arrays with any leading (batch) dimensions; they
        broadcast against each other numpy style. The other arguments are passed as given.

    Returns
    -------
    dask.array.Array
        Shape ``(*batch, *out)``, float64, chunked like the inputs along the batch axes and
        in one chunk along the trailing axes ``out`` of one state's result.

    Raises
    ------
    ValueError
        A dask array given for an argument that is not a state argument, or a state
        argument whose trailing shape is not one state's (named, with both shapes).
    """
    import dask.array as da

    bound = _signature(fn).bind(*args, **kwargs)
    params = dict(bound.arguments)
    pname = next(iter(params))
    model = params.pop(pname)
    if is_dask(model):
        raise ValueError(f"{pname} must be a robodyn Model, got a dask collection")
    names, arrays, static = [], [], {}
    for name, x in params.items():
        if name in _CORE and x is not None and not isinstance(x, (str, bool)):
            names.append(name)
            arrays.append(x if is_dask(x) else np.asarray(x, dtype=np.float64))
        elif is_dask(x):
            raise ValueError(
                f"{fn.__name__}: argument {name!r} cannot be a dask array (only the state "
                f"arguments {', '.join(_CORE)} are batched)"
            )
        else:
            static[name] = x
    if "threads" in _signature(fn).parameters and static.get("threads") is None:
        static["threads"] = 1  # Dask supplies the parallelism: one core thread per task
    # one state's result: its shape and dtype (a probe at the neutral state)
    probe, tails = {}, {}
    for name, x in zip(names, arrays):
        tail = tails[name] = _CORE[name](model, x)
        shape = tuple(x.shape)
        if len(shape) < len(tail) or shape[len(shape) - len(tail) :] != tail:
            want = "(..., " + ", ".join(str(t) for t in tail) + ")"
            raise ValueError(f"{name} must have shape {want}, got {shape}")
        probe[name] = _probe(model, name, tail)
    one = fn(model, **static, **probe)
    parts = isinstance(one, tuple)
    shapes = [np.shape(x) for x in one] if parts else None
    one = (np.concatenate([np.ravel(x) for x in one]) if parts
           else np.asarray(one, dtype=np.float64))  # fmt: skip
    # blockwise indices: the batch axes share letters (right-aligned, numpy broadcasting),
    # every trailing axis has its own and is one chunk (rechunked if it was split)
    nbatch = max(x.ndim - len(tails[n]) for n, x in zip(names, arrays))
    letters = iter("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    batch = "".join(next(letters) for _ in range(nbatch))
    pairs = []
    for name, x in zip(names, arrays):
        k = len(tails[name])
        nb = x.ndim - k
        if is_dask(x):
            split = [ax for ax in range(nb, x.ndim) if len(x.chunks[ax]) > 1]
            if split:
                x = x.rechunk({ax: -1 for ax in split})
        else:
            x = da.from_array(x, chunks=x.shape) if x.ndim else da.asarray(x)
        pairs += [x, batch[nbatch - nb :] + "".join(next(letters) for _ in range(k))]
    out_core = "".join(next(letters) for _ in range(one.ndim))
    r = da.blockwise(
        _Blocks(fn, names, static, nbatch, parts),
        batch + out_core,
        model_key(model),
        None,
        *pairs,
        new_axes=dict(zip(out_core, one.shape)),
        dtype=np.float64,
        concatenate=True,
        meta=np.empty((0,) * (nbatch + one.ndim), dtype=np.float64),
    )
    return _parts(r, shapes) if parts else r


def _parts(r, shapes: list) -> tuple:
    """The lazy results of a function of several results, cut from their side-by-side
    array ``r`` (..., sum of their sizes) and given their own trailing shapes."""
    out, k0 = [], 0
    for shape in shapes:
        k1 = k0 + int(np.prod(shape, dtype=np.int64))
        out.append(r[..., k0:k1].reshape((*r.shape[:-1], *shape)))
        k0 = k1
    return tuple(out)
