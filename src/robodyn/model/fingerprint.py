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
        if f.name == "notes":
            continue
        x = getattr(model, f.name)
        h.update(f.name.encode())
        if isinstance(x, np.ndarray):
            x = np.ascontiguousarray(x)
            h.update(str(x.dtype).encode() + str(x.shape).encode() + x.tobytes())
        else:
            h.update(repr(x).encode())
    return h.hexdigest()[:16]
