"""Keep numba's on-disk cache of the kernels honest.

numba invalidates a cached kernel when *its own* source file changes, but not when a
jitted helper or a layout constant it imports from another file (``_small.py``,
``_pack.py``) changes: the stale machine code would then read the packed model with the
old offsets and return wrong numbers silently. Each kernel module calls
:func:`drop_stale_cache` after defining its kernels; it hashes every source file of this
package and, when the hash differs from the one recorded next to the cache, deletes the
package's cached kernels so they are recompiled. The check reads ~100 kB once per process.
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

__all__ = ["drop_stale_cache", "sources_hash"]

_HERE = Path(__file__).resolve().parent


@functools.lru_cache(maxsize=1)
def sources_hash() -> str:
    """SHA-1 of the kernels package's sources (file names and contents, sorted)."""
    h = hashlib.sha1()
    for path in sorted(_HERE.glob("*.py")):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


_checked: set[str] = set()


def drop_stale_cache(namespace: dict) -> None:
    """Delete this package's cached kernels if they were compiled from other sources.

    Parameters
    ----------
    namespace : dict
        A kernel module's ``globals()``; its numba dispatchers tell where the cache lives.
    """
    for obj in list(namespace.values()):
        cache = getattr(obj, "_cache", None)
        path = getattr(cache, "_cache_path", None)
        if path is None or path in _checked:
            continue
        _checked.add(path)
        marker = Path(path) / f"robodyn-kernels-{sources_hash()}.stamp"
        if marker.exists():
            continue
        try:
            for f in Path(path).glob("*.nb[ic]"):
                # Only this package's files: numba names them <module>.<function>-<line>...
                if (_HERE / (f.name.split(".", 1)[0] + ".py")).exists():
                    f.unlink(missing_ok=True)
            for old in Path(path).glob("robodyn-kernels-*.stamp"):
                old.unlink(missing_ok=True)
            os.makedirs(path, exist_ok=True)
            marker.touch()
        except OSError:  # read-only cache location: numba will not write there either
            pass
