"""A model's fingerprint: a short hash of everything its numbers depend on.

Stores and cluster runs record it so that a store written for one model is not continued
with another, and a graph of many tasks refers to one model by it.
"""

from __future__ import annotations

import dataclasses
import hashlib

import numpy as np

__all__ = ["model_fingerprint"]


def model_fingerprint(model) -> str:
    """A short hash of everything in the model that the numbers depend on (its name, the
    names of its bodies, joints and frames, and every array), so that a store written for
    one model is not continued with another."""
    h = hashlib.sha256()
    for f in dataclasses.fields(model):
        x = getattr(model, f.name)
        if f.name == "notes" or (f.name == "actuators" and x is None):
            continue  # (a model without motors keeps the fingerprint it had before them)
        h.update(f.name.encode())
        if dataclasses.is_dataclass(x):  # the actuators: their arrays
            for g in dataclasses.fields(x):
                _array(h, g.name, getattr(x, g.name))
        elif isinstance(x, np.ndarray):
            _array(h, "", x)
        else:
            h.update(repr(x).encode())
    return h.hexdigest()[:16]


def _array(h, name: str, x) -> None:
    x = np.ascontiguousarray(x)
    h.update(name.encode() + str(x.dtype).encode() + str(x.shape).encode() + x.tobytes())
