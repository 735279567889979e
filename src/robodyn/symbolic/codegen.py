"""Numeric code from symbolic equations of motion: lambdify with cse, numba, module writer.

:func:`to_function` turns an :class:`~robodyn.symbolic.EquationsOfMotion` into fast numeric
functions ``M(q)``, ``C(q, qd)``, ``g(q)``, ``h(q, qd)``, ``inverse_dynamics(q, qd, qdd)``
and ``forward_dynamics(q, qd, tau)``. The code is generated once as Python source after
common-subexpression elimination (``sympy.cse``), then executed (numpy backend: works on
single states ``(n,)`` and batches ``(N, n)``) or compiled (numba backend: single states).
:func:`write_module` writes the same source to an importable ``.py`` file.
"""

from __future__ import annotations

import importlib.util
import keyword
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import sympy as sp
from sympy.printing.numpy import NumPyPrinter

from .._checks import as_array
from .lagrange import EquationsOfMotion

__all__ = ["NumericEquations", "to_function", "generate_source", "write_module", "load_module"]

_FUNCTIONS = ("M", "C", "g", "h", "b", "inverse_dynamics")


class _Printer(NumPyPrinter):
    """numpy printer that prints floats exactly (repr) and uses ``np.``."""

    def __init__(self, names: dict | None = None):
        super().__init__({"fully_qualified_modules": False, "inline": True})
        self._module = "np"
        self._names = names or {}

    def _print_Symbol(self, expr):
        name = self._names.get(expr)
        return name if name is not None else super()._print_Symbol(expr)

    def _module_format(self, fqn, register=True):
        if fqn.startswith("numpy."):
            return "np." + fqn[len("numpy.") :]
        return super()._module_format(fqn, register)

    def _print_Float(self, expr):
        return repr(float(expr))

    def _print_Rational(self, expr):
        return f"({int(expr.p)}/{int(expr.q)})"


def _numeric_parts(eom: EquationsOfMotion, parameters: dict | None) -> dict[str, sp.Matrix]:
    """The internal (plain-symbol) matrices with the parameter values substituted."""
    values = eom.parameters if parameters is None else parameters
    values = {eom._plain(k): sp.sympify(v) for k, v in values.items()}
    coords = set(eom._q) | set(eom._qd) | set(eom._qdd) | set(eom._u)
    parts = {}

    def sub(A):
        A = sp.Matrix(A)
        return A.xreplace(values) if values else A

    parts["M"] = sub(eom._M)
    parts["g"] = sub(eom._g)
    parts["b"] = sub(eom._b)
    free = set()
    for A in parts.values():
        free |= A.free_symbols
    free -= coords
    if free:
        names = ", ".join(sorted(str(s) for s in free))
        raise ValueError(f"parameters must give values for {names} (symbols left in the equations)")
    return parts


def _lazy_parts(eom: EquationsOfMotion, parameters: dict | None, parts: dict) -> None:
    values = eom.parameters if parameters is None else parameters
    values = {eom._plain(k): sp.sympify(v) for k, v in values.items()}
    C = sp.Matrix(eom._C)
    parts["C"] = C.xreplace(values) if values else C


_SIGNATURES = {
    "M": ("q",),
    "g": ("q",),
    "C": ("q", "qd"),
    "h": ("q", "qd"),
    "b": ("q", "qd"),
    "inverse_dynamics": ("q", "qd", "qdd"),
}
_DOCS = {
    "M": "Mass matrix M(q), shape (..., n, n).",
    "g": "Gravity forces g(q), shape (..., n).",
    "C": "Coriolis matrix C(q, qd), shape (..., n, n); C qd = velocity products.",
    "h": "h(q, qd) = C(q, qd) qd + g(q), shape (..., n).",
    "b": "Friction/dissipation b(q, qd), shape (..., n).",
    "inverse_dynamics": "tau = M qdd + C qd + g + b, shape (..., n).",
}


def generate_source(
    eom: EquationsOfMotion,
    parameters: dict | None = None,
    *,
    functions: Sequence[str] = ("M", "C", "g", "h", "inverse_dynamics"),
    batch: bool = True,
    header: str = "",
) -> str:
    """Python source (numpy) of the numeric functions, after cse.

    Parameters
    ----------
    eom : EquationsOfMotion
    parameters : dict, optional
        Values for symbols left in the equations (default ``eom.parameters``).
    functions : sequence of str
        Any of ``"M", "C", "g", "h", "b", "inverse_dynamics"``.
    batch : bool
        Index states with ``q[..., i]`` so arrays of shape (N, n) work (numpy); False
        writes scalar code for single states (numba).
    header : str
        Module docstring.

    Returns
    -------
    str
        Source defining ``import numpy as np`` and one function per name.
    """
    for f in functions:
        if f not in _FUNCTIONS:
            raise ValueError(f"functions must be among {_FUNCTIONS}, got {f!r}")
    P = _expressions(eom, parameters, functions)
    syms = {"q": list(eom._q), "qd": list(eom._qd), "qdd": list(eom._qdd)}
    code_names = _code_names(syms)
    printer = _Printer(code_names)
    lines = _module_head(header, eom.n)
    for name in functions:
        lines += _function_source(name, P[name], eom.n, syms, code_names, printer, batch)
    return "\n".join(lines).rstrip() + "\n"


def _expressions(eom: EquationsOfMotion, parameters: dict | None, functions) -> dict:
    """The numeric matrices M, g, b and, when a function needs them, C, h and tau."""
    parts = _numeric_parts(eom, parameters)
    if any(f in functions for f in ("C", "h", "inverse_dynamics")):
        _lazy_parts(eom, parameters, parts)
    P = dict(parts)
    qd_col = sp.Matrix(list(eom._qd))
    if "C" in P:
        cqd = P["C"] * qd_col
        P["h"] = cqd + P["g"]
        P["inverse_dynamics"] = P["M"] * sp.Matrix(list(eom._qdd)) + cqd + P["g"] + P["b"]
    return P


def _code_names(syms: dict) -> dict:
    """The names of the coordinates in the code: ``_q0``, ``_v0``, ``_a0``, ..."""
    q, v, a = syms["q"], syms["qd"], syms["qdd"]
    code_names = {}
    for i in range(len(q)):
        code_names[q[i]] = f"_q{i}"
        code_names[v[i]] = f"_v{i}"
        code_names[a[i]] = f"_a{i}"
    return code_names


def _module_head(header: str, n: int) -> list[str]:
    """The module docstring (if any), the numpy import and ``N_DOF``."""
    lines = []
    if header:
        lines.append('"""' + header.strip() + '\n"""')
        lines.append("")
    lines.append("import numpy as np")
    lines.append("")
    lines.append(f"N_DOF = {n}")
    lines.append("")
    return lines


def _function_source(name, A, n, syms, code_names, printer, batch) -> list[str]:
    """The lines of one function: unpack the coordinates it reads, the cse'd
    subexpressions, then fill ``out`` entry by entry (zeros left out)."""
    args = _SIGNATURES[name]
    is_matrix = name in ("M", "C")
    exprs = list(A) if is_matrix else [A[i] for i in range(n)]
    used = set().union(*(e.free_symbols for e in exprs)) if exprs else set()
    repl, reduced = sp.cse(exprs, symbols=sp.numbered_symbols("_x"), order="none")
    lines = [f"def {name}({', '.join(args)}):", f'    """{_DOCS[name]}"""']
    for arg in args:
        for i, s in enumerate(syms[arg]):
            if s in used or any(s in e.free_symbols for _, e in repl):
                idx = f"[..., {i}]" if batch else f"[{i}]"
                lines.append(f"    {code_names[s]} = {arg}{idx}")
    for s, e in repl:
        lines.append(f"    {s} = {printer.doprint(e)}")
    shape = "(n, n)" if is_matrix else "(n,)"
    shape = shape.replace("n", str(n))
    if batch:
        lines.append(f"    out = np.zeros(np.shape(q)[:-1] + {shape})")
    else:
        lines.append(f"    out = np.zeros({shape})")
    for k, e in enumerate(reduced):
        if e == 0:
            continue
        idx = f"{k // n}, {k % n}" if is_matrix else f"{k}"
        lhs = f"out[..., {idx}]" if batch else f"out[{idx}]"
        lines.append(f"    {lhs} = {printer.doprint(e)}")
    lines += ["    return out", "", ""]
    return lines


class NumericEquations:
    """Numeric functions generated from an :class:`EquationsOfMotion`.

    Attributes
    ----------
    M : callable, ``M(q)`` -> (n, n)
    C : callable, ``C(q, qd)`` -> (n, n)
    g : callable, ``g(q)`` -> (n,)
    h : callable, ``h(q, qd)`` -> (n,), ``C qd + g``
    inverse_dynamics : callable, ``(q, qd, qdd)`` -> tau (n,)
    source : str
        The generated code.
    backend : str
    n : int
    """

    def __init__(self, funcs: dict[str, Callable], source: str, backend: str, n: int):
        self._funcs = funcs
        self.source = source
        self.backend = backend
        self.n = n
        for k, f in funcs.items():
            setattr(self, k, f)

    def forward_dynamics(self, q, qd, tau) -> np.ndarray:
        """``qdd = M^-1 (tau - C qd - g - b)`` for one state or a batch.

        Parameters
        ----------
        q, qd, tau : array_like, shape (n,) or (N, n)

        Returns
        -------
        numpy.ndarray, shape (n,) or (N, n)
        """
        q = as_array(q, "q", (self.n,))
        qd = as_array(qd, "qd", (self.n,))
        tau = as_array(tau, "tau", (self.n,))
        zero = np.zeros(np.broadcast_shapes(q.shape, qd.shape))
        bias = self.inverse_dynamics(q, qd, zero) if self.backend == "numpy" else None
        if bias is None:
            bias = self.inverse_dynamics(q, qd, np.zeros(self.n))
        return np.linalg.solve(self.M(q), (tau - bias)[..., None])[..., 0]

    def __repr__(self) -> str:
        return f"NumericEquations(n={self.n}, backend={self.backend!r})"


def _exec_source(source: str, name: str) -> dict:
    namespace: dict = {}
    code = compile(source, f"<robodyn.symbolic {name}>", "exec")
    exec(code, namespace)  # generated by generate_source from sympy expressions only
    return namespace


def to_function(
    eom: EquationsOfMotion,
    backend: str = "numpy",
    parameters: dict | None = None,
    *,
    functions: Sequence[str] = ("M", "C", "g", "h", "inverse_dynamics"),
) -> NumericEquations:
    """Numeric ``M(q)``, ``C(q, qd)``, ``g(q)``, ... from symbolic equations (cse'd code).

    Parameters
    ----------
    eom : EquationsOfMotion
    backend : {"numpy", "numba"}
        numpy: plain Python/numpy, accepts batches (N, n). numba: ``njit``-compiled
        scalar code for single states (n,) (compiled on the first call).
    parameters : dict, optional
        Values for the symbols left in the equations (default ``eom.parameters``).
    functions : sequence of str
        Which functions to generate (``"C"``, ``"h"``, ``"inverse_dynamics"`` need the
        Christoffel symbols; leave them out for a quick ``M`` and ``g`` of a 6-DoF arm).

    Returns
    -------
    NumericEquations
    """
    if backend not in ("numpy", "numba"):
        raise ValueError(f"backend must be 'numpy' or 'numba', got {backend!r}")
    source = generate_source(eom, parameters, functions=functions, batch=(backend == "numpy"))
    ns = _exec_source(source, eom.name or "eom")
    n = eom.n
    funcs: dict[str, Callable] = {}
    if backend == "numpy":
        for name in functions:
            funcs[name] = _checked(ns[name], name, n)
    else:
        try:
            from numba import njit
        except ImportError as exc:
            raise ImportError(
                "backend='numba' needs numba, which robodyn does not install by default: "
                'pip install "robodyn[numba]"'
            ) from exc

        for name in functions:
            funcs[name] = _checked(njit(ns[name]), name, n, single=True)
    return NumericEquations(funcs, source, backend, n)


def _checked(f: Callable, name: str, n: int, single: bool = False) -> Callable:
    argnames = _SIGNATURES[name]

    def wrapper(*args):
        if len(args) != len(argnames):
            raise ValueError(f"{name} takes ({', '.join(argnames)}), got {len(args)} arguments")
        arrs = []
        for x, an in zip(args, argnames):
            x = np.asarray(x, dtype=np.float64)  # lean checks: this sits on the hot path
            if x.ndim == 0 or x.shape[-1] != n or (single and x.ndim != 1):
                want = f"({n},)" if single else f"(..., {n})"
                raise ValueError(f"{an} must have shape {want}, got {x.shape}")
            if not np.isfinite(x).all():
                raise ValueError(f"{an} contains NaN or inf")
            arrs.append(x if x.flags.c_contiguous else np.ascontiguousarray(x))
        if not single and len(arrs) > 1 and any(x.shape != arrs[0].shape for x in arrs):
            shape = np.broadcast_shapes(*(x.shape for x in arrs))
            arrs = [np.broadcast_to(x, shape) for x in arrs]
        return f(*arrs)

    wrapper.__name__ = name
    wrapper.__doc__ = f.__doc__
    wrapper.__wrapped__ = f  # type: ignore[attr-defined]
    return wrapper


def write_module(
    eom: EquationsOfMotion,
    path,
    parameters: dict | None = None,
    *,
    functions: Sequence[str] = ("M", "C", "g", "h", "inverse_dynamics"),
    overwrite: bool = False,
) -> Path:
    """Write the numeric functions to an importable Python module (numpy, batch-capable).

    Parameters
    ----------
    eom : EquationsOfMotion
    path : str or path-like
        Output ``.py`` file; its stem must be a valid module name.
    parameters : dict, optional
        Values for symbols left in the equations (default ``eom.parameters``).
    functions : sequence of str
    overwrite : bool
        Replace an existing file (refused by default, before any work).

    Returns
    -------
    pathlib.Path
    """
    from .._files import atomic_write, output_path

    path = Path(path)
    if path.suffix != ".py" or not path.stem.isidentifier() or keyword.iskeyword(path.stem):
        raise ValueError(f"path must name a .py file with a valid module name, got {str(path)!r}")
    output_path(path, overwrite=overwrite)
    names = ", ".join(str(s) for s in eom.q)
    header = (
        f"Equations of motion of {eom.name or 'a system'} (n = {eom.n}, coordinates {names}),\n"
        "generated by robodyn.symbolic.write_module: tau = M(q) qdd + C(q, qd) qd + g(q) + b.\n"
        "Every function accepts one state (n,) or a batch (N, n)."
    )
    src = generate_source(eom, parameters, functions=functions, batch=True, header=header)
    with atomic_write(path) as tmp:
        tmp.write_text(src, encoding="utf-8")
    return path


def load_module(path):
    """Import a module written by :func:`write_module` from its path.

    Returns
    -------
    module
    """
    path = Path(path)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot import {str(path)!r}")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
