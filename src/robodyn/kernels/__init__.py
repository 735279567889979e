"""robodyn's compiled core and the one road to it.

The algorithms live once, in C, under ``kernels/core/`` (a header of small spatial helpers,
``rd.h``; the joint model, ``joint.h``; one file per algorithm; ``batch.c`` runs one state
or a batch split over threads; ``module.c`` is the Python interface). They are compiled
into ``robodyn.kernels._core`` when robodyn is installed. This package holds

* ``_pack``: :func:`~robodyn.kernels._pack.packed` -- the model as one flat array, cached
  on the Model, and the layout constants the C code was compiled with (compared here);
* ``call``: the road from a public function to the core -- one state or any number of
  leading batch dimensions, argument conversion, and error messages naming the argument
  and the state.

``core`` is the C module. Importing this package loads a small shared library and nothing
else (no compiler, no JIT).
"""

from __future__ import annotations

from . import _pack

try:
    from . import _core as core
except ImportError as exc:  # pragma: no cover - a broken install
    raise ImportError(
        "robodyn's compiled core (robodyn.kernels._core) is missing: it is built from C "
        "when robodyn is installed, so install robodyn with a C compiler available "
        "(gcc or clang on Linux and macOS, MSVC on Windows): pip install --force-reinstall "
        f"--no-binary robodyn robodyn. ({exc})"
    ) from exc

_stale = sorted(k for k, v in core.LAYOUT.items() if getattr(_pack, k, None) != v)
if _stale:  # pragma: no cover - an old build beside new Python files
    raise ImportError(
        "robodyn's compiled core is stale (its layout differs from kernels/_pack.py in "
        f"{', '.join(_stale)}); rebuild it: pip install -e . (or reinstall robodyn)"
    )

__all__ = ["core"]
