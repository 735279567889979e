"""``rd.sweep``: the Monte-Carlo and workspace sweeps of ``robodyn sweep``, on Dask.

Defined in :mod:`robodyn.distributed.sweep`, with the rest of the scale-out; this module
hands its names on, so ``robodyn.sweep`` stays the public path of the sweeps.
"""

from .distributed.sweep import *  # noqa: F403
from .distributed.sweep import __all__  # noqa: F401
