"""Past one machine: robodyn's batch functions and rollouts on Dask (layer 5).

Dask (``pip install robodyn[dask]``) is imported only when a dask array or a Dask client
reaches robodyn; NumPy calls never see it. The package, bottom up: :mod:`.store` (the Zarr
stores' fingerprints, checksums and checked reads), :mod:`.chunks` (a function run over
the chunks of a batch on a Client, streamed into a store, resumable), :mod:`.rollout`
(``rd.simulate(..., client=)``) and :mod:`.sweep` (``robodyn sweep``). Dask arrays through
the batch functions are :func:`robodyn.kernels.lazy.lazy_call`, beside the call road.
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
