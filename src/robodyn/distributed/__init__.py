"""Past one machine: robodyn's batch functions and rollouts on Dask.

Dask (``pip install robodyn[dask]``) is imported here only, and this module is imported
only when a dask array or a Dask client reaches robodyn; NumPy calls never see it.

* :func:`lazy_call` answers a batch function (``rd.inverse_dynamics``, ``rd.fk``, ...,
  every function marked :func:`robodyn.kernels.call.batched`) called with dask
  arrays: the same function mapped over the chunks of the leading (batch) axes with
  ``dask.array.blockwise``, one task per chunk, the model one key of the graph (every
  task refers to it; it is not copied into each task). The result is a lazy dask array
  with the batch chunks of the input and one chunk along each trailing axis, computed by
  whatever scheduler is active (threads by default, a ``dask.distributed.Client`` when
  one exists).
* :func:`run_chunks` runs a function over the chunks of a batch of items on a Client and
  streams each chunk's arrays into a Zarr store as it finishes; a store that was
  interrupted is finished with ``resume=True``, recomputing only the chunks it lacks.
  ``rd.simulate(..., client=)`` and ``robodyn sweep`` run on it.

Nothing here schedules, queues or retries: Dask does (a task whose worker dies is run
again elsewhere; a chunk is written whole by one task, so a rerun rewrites the same
values).
"""

from __future__ import annotations

from ..kernels.lazy import lazy_call
from ..model.fingerprint import model_fingerprint
from .chunks import array_hash, describe_input, open_store, run_chunks, verify_store
from .rollout import simulate_chunks
from .store import StoreError, StoreWarning

__all__ = [
    "lazy_call",
    "model_fingerprint",
    "run_chunks",
    "simulate_chunks",
    "open_store",
    "verify_store",
    "describe_input",
    "array_hash",
    "StoreError",
    "StoreWarning",
]
