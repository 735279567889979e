"""``robodyn derive ROBOT [--symbolic-parameters] [--latex FILE] [--python FILE]``."""

from __future__ import annotations

import argparse
import keyword
import time
from pathlib import Path

import sympy as sp

from .common import (
    ROBOT_HELP,
    atomic_output,
    check_output_path,
    distinct_outputs,
    load_robot,
)

__all__ = ["add_parser", "command"]

# Above this many dofs, derive keeps the expanded (reduced) form instead of trigsimp.
_SIMPLIFY_MAX_DOF = 4


def add_parser(sub) -> argparse.ArgumentParser:
    """``robodyn derive``: its parser."""
    s = sub.add_parser("derive", help="symbolic equations of motion of a robot")
    s.add_argument("robot", metavar="ROBOT", help=ROBOT_HELP)
    s.add_argument(
        "--symbolic-parameters",
        action="store_true",
        help="masses, lengths, inertias and g as named symbols (default: the model's numbers)",
    )
    s.add_argument("--latex", metavar="FILE", help="write M, C, g as LaTeX to FILE")
    s.add_argument("--python", metavar="FILE", help="write a Python module computing M, C, g")
    s.set_defaults(func=command)
    return s


def command(args: argparse.Namespace) -> int:
    """Derive and print M, C, g of a robot; optionally write LaTeX and a Python module.

    Parameters
    ----------
    args : argparse.Namespace
        ``robot`` (bundled name or URDF path), ``symbolic_parameters`` (bool), ``latex``
        and ``python`` (output paths or None).

    Returns
    -------
    int
        Exit status (0).

    Raises
    ------
    ValueError
        An output path that cannot be written (checked before any work, the message names
        the option), or an unknown robot.
    """
    from ..symbolic.codegen import write_module
    from ..symbolic.derive import derive

    latex = getattr(args, "latex", None)
    python = getattr(args, "python", None)
    if latex:
        check_output_path("--latex", latex, force=getattr(args, "force", False))
    if python:
        stem = Path(python).stem
        if not python.endswith(".py") or not stem.isidentifier() or keyword.iskeyword(stem):
            raise ValueError(f"--python {python!r}: give a .py file named as a Python module")
        check_output_path("--python", python, force=getattr(args, "force", False))
    distinct_outputs({"--latex": latex, "--python": python})
    model = load_robot(args.robot)
    parameters = "symbolic" if getattr(args, "symbolic_parameters", False) else "numeric"
    t0 = time.perf_counter()
    eom = derive(model, parameters, simplify=model.nv <= _SIMPLIFY_MAX_DOF)
    C = eom.C
    elapsed = time.perf_counter() - t0
    q = ", ".join(str(s) for s in eom.q)
    print(f"{model.name}: n = {eom.n}, q = [{q}] (derived in {elapsed:.2f} s)")
    print("tau = M(q) qddot + C(q, qdot) qdot + g(q)")
    if eom.parameters:
        vals = ", ".join(f"{k} = {v:.6g}" for k, v in eom.parameters.items())
        print(f"parameters: {vals}")
    for name, A in (("M", eom.M), ("C", C), ("g", eom.g)):
        print(f"\n{name} =")
        for i in range(A.shape[0]):
            for j in range(A.shape[1]):
                if A[i, j] != 0:
                    idx = f"[{i + 1},{j + 1}]" if A.shape[1] > 1 else f"[{i + 1}]"
                    print(f"  {name}{idx} = {sp.sstr(A[i, j])}")
    if latex:
        path = Path(latex)
        with atomic_output(path) as tmp:
            tmp.write_text(
                "% equations of motion of " + model.name + " (robodyn derive)\n"
                "\\[\n" + eom.latex() + "\n\\]\n",
                encoding="utf-8",
            )
        print(f"\nLaTeX written to {path}")
    if python:
        with atomic_output(python) as tmp:
            write_module(eom, tmp, overwrite=True)  # (atomic_output's own new file)
        print(f"Python module written to {python}")
    return 0
