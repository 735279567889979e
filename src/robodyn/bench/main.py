"""``robodyn bench``'s options and run: parse the command line (:func:`_parser`,
:func:`_config`), load each robot in each library and run the sections asked for
(:func:`run`), print the report and write the files (:func:`main`)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from .batch import run_batch
from .cold import run_cold
from .common import (
    _SECTION_PEERS,
    FUNCTIONS,
    LIBRARIES,
    MODELS,
    RTOL,
    SECTIONS,
    Config,
    Progress,
    skipped_line,
)
from .dask import run_dask
from .derivatives import quantities, run_derivatives
from .functions import function_specs, run_functions
from .ident import run_ident
from .ik import run_ik
from .latency import run_latency
from .load import run_load
from .machine import flops_rows, machine_info
from .memory import run_memory
from .peers import MRLib, MujocoLib, PinLib, RobodynLib, _import_peer
from .report import format_markdown, format_table, write_plot
from .robots import Case, _build_case
from .simulate import run_simulate
from .viz import run_viz


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="robodyn bench",
        description="Benchmark robodyn against Pinocchio, MuJoCo and modern_robotics.",
    )
    p.add_argument("--models", default=",".join(MODELS), help=f"comma list of {MODELS}")
    p.add_argument("--only", default=",".join(SECTIONS), help=f"comma list of {SECTIONS}")
    p.add_argument("--quick", action="store_true", help="tiny repeats and N (for CI)")
    p.add_argument("--json", metavar="FILE", help="write the results as JSON")
    p.add_argument("--plot", metavar="FILE", help="write a bar chart of the ratios")
    p.add_argument("--markdown", metavar="FILE", help="write the summary tables as Markdown")
    p.add_argument("--repeat", type=int, help="timing repeats (default 7, quick 3)")
    p.add_argument("--n", type=int, help="batch states (default 100000, quick 64)")
    p.add_argument("--memory-n", type=int, help="states of the memory batch (default 1e6)")
    p.add_argument("--threads", default="1,2", help="thread counts of the batch section")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument(
        "--force",
        action="store_true",
        help="overwrite existing output files (default: refuse them, exit status 2)",
    )
    return p


def _config(args: argparse.Namespace) -> Config:
    models = tuple(m.strip().lower() for m in args.models.split(",") if m.strip())
    models = tuple("solo12" if m == "quadruped" else m for m in models)
    bad = [m for m in models if m not in MODELS]
    if bad:
        raise ValueError(f"--models: unknown {bad}; choose from {', '.join(MODELS)}")
    sections = tuple(s.strip().lower() for s in args.only.split(",") if s.strip())
    bad = [s for s in sections if s not in SECTIONS]
    if bad:
        raise ValueError(f"--only: unknown {bad}; choose from {', '.join(SECTIONS)}")
    cfg = Config(models=models, sections=sections, progress=not args.no_progress)
    if args.quick:
        cfg = dataclasses.replace(
            cfg, quick=True, repeat=3, target=0.002, n_batch=64, n_loop=16, n_check=2,
            n_memory=20_000, cold_repeat=1, batch_budget=0.01,
        )  # fmt: skip
    if args.repeat is not None:
        cfg.repeat = max(1, args.repeat)
    if args.n is not None:
        cfg.n_batch = max(1, args.n)
    if args.memory_n is not None:
        cfg.n_memory = max(1, args.memory_n)
    threads = tuple(dict.fromkeys(int(t) for t in args.threads.split(",") if t.strip()))
    if not threads or min(threads) < 1:
        raise ValueError(f"--threads: positive integers expected, got {args.threads!r}")
    cfg.threads = threads
    return cfg


def run(cfg: Config) -> dict:
    """Run the benchmark sections of ``cfg``; the result dict (see ``--json``)."""
    mach = machine_info()
    mods = {name: _import_peer(name) for name in LIBRARIES[1:]}
    result = _empty_result(cfg, mach, mods)
    prog = Progress(_steps(cfg) + len(cfg.models), enabled=cfg.progress)
    cases: dict[str, Case] = {}
    try:
        for name in cfg.models:
            case = _run_model(name, cfg, mods, result, prog)
            if case is not None:
                cases[name] = case
        _run_sections(cfg, mods, cases, result, prog)
    finally:
        prog.close()
    if cases and ("latency" in cfg.sections or "batch" in cfg.sections):
        result["flops"] = flops_rows(cases, result["latency"], result["batch"], mach)
    return result


def _empty_result(cfg: Config, mach: dict, mods: dict) -> dict[str, Any]:
    """The result dict before anything is timed: the machine, the versions, the options,
    and per section the lines of the optional packages it needs that are not installed."""
    versions = {"robodyn": _robodyn_version()}
    mach["omp_wait_policy"] = os.environ.get("OMP_WAIT_POLICY", "")
    from ..kernels import _pack, core

    mach["core"] = (
        f"C, {_pack.LANES} states per vector chunk, batches on up to {core.threads()} threads"
    )
    versions.update({k: v[1] for k, v in mods.items()})
    return {
        "machine": mach,
        "versions": versions,
        "config": {k: v for k, v in dataclasses.asdict(cfg).items()},
        "models": {},
        "checks_rtol": RTOL,
        "latency": [],
        "batch": [],
        "functions": [],
        "derivatives": [],
        "cold": [],
        "memory": [],
        "simulate": [],
        "ik": [],
        "dask": [],
        "viz": [],
        "ident": [],
        "load": [],
        "flops": [],
        # section -> one line per optional package it needs that is not installed
        "skipped": _skipped(cfg, mods),
    }


def _skipped(cfg: Config, mods: dict) -> dict[str, list[str]]:
    """Per section asked for, one line per peer it compares with that is not installed."""
    absent = [lib for lib in LIBRARIES[1:] if mods[lib][0] is None]
    skipped = {}
    for sec in cfg.sections:
        lines = [f"{lib}: {skipped_line(lib)}" for lib in _SECTION_PEERS[sec] if lib in absent]
        if lines:
            skipped[sec] = lines
    return skipped


# the progress bar's steps of the sections run once (not per model)
_SECTION_STEPS = {
    "cold": 5, "memory": 2, "simulate": 3, "ik": 2, "dask": 2, "viz": 6, "ident": 2, "load": 1,
}  # fmt: skip


def _steps(cfg: Config) -> int:
    """The progress bar's steps of the sections (loading the models aside)."""
    nf, nlib = len(FUNCTIONS), len(LIBRARIES)
    total = 0
    if "latency" in cfg.sections:
        total += len(cfg.models) * nf * nlib
    if "batch" in cfg.sections:
        total += len(cfg.models) * nf * 2 * len(cfg.threads)
    if "functions" in cfg.sections:
        total += len(cfg.models) * len(function_specs())
    if "derivatives" in cfg.sections:
        total += len(cfg.models) * len(quantities())
    return total + sum(n for sec, n in _SECTION_STEPS.items() if sec in cfg.sections)


def _run_model(name: str, cfg: Config, mods: dict, result: dict, prog: Progress) -> Case | None:
    """Load one robot in every library and run its latency, batch and functions sections;
    None (and one line) when the robot needs example-robot-data, which is not installed."""
    pin = mods["pinocchio"][0]
    prog.show(f"loading {name}")
    try:
        case = _build_case(name, cfg, pin)
    except FileNotFoundError:  # solo12, talos: one line, no rows
        result["models"][name] = skipped_line("example-robot-data")
        prog.step()
        return None
    m = case.model
    pin_note = f"; Pinocchio: {case.pin_note}" if pin is not None else ""
    result["models"][name] = (
        f"nq={m.nq} nv={m.nv} bodies={m.nb - 1} frames={len(m.frame_names)}; "
        f"{case.source}{pin_note}; jacobian frame {case.frame!r}"
    )
    libs = _libraries(case, mods, result)
    prog.step()
    if "latency" in cfg.sections:
        result["latency"] += run_latency(case, libs, cfg, prog)
    if "batch" in cfg.sections:
        result["batch"] += run_batch(case, libs, cfg, prog)
    if "functions" in cfg.sections:
        result["functions"] += run_functions(case, libs, cfg, prog)
    if "derivatives" in cfg.sections:
        result["derivatives"] += run_derivatives(case, libs, cfg, prog)
    return case


def _libraries(case: Case, mods: dict, result: dict) -> dict[str, Any]:
    """The adapters of the installed libraries on one robot; ``"_why"`` says why an
    installed one is absent (MuJoCo rejected the model, the MR library is UR5 only)."""
    name, pin = case.name, mods["pinocchio"][0]
    libs: dict[str, Any] = {"robodyn": RobodynLib(case), "_why": {}}
    if pin is not None:
        libs["pinocchio"] = PinLib(case, pin)
    if mods["mujoco"][0] is not None:
        try:
            libs["mujoco"] = MujocoLib(case, mods["mujoco"][0])
            result["models"][name] += f"; MuJoCo: {libs['mujoco'].note}"
        except Exception as exc:  # noqa: BLE001
            libs["_why"]["mujoco"] = f"error: MuJoCo rejected the model: {exc}"[:200]
    if mods["modern_robotics"][0] is not None:
        if name == "ur5":
            libs["modern_robotics"] = MRLib(case, mods["modern_robotics"][0])
        else:
            libs["_why"]["modern_robotics"] = "n/a: UR5 only (needs M, Slist, Mlist, Glist)"
    return libs


def _run_sections(cfg: Config, mods: dict, cases: dict, result: dict, prog: Progress) -> None:
    """The sections run once, on the robots loaded (cold start, memory, simulate, ik,
    dask, viz, ident) or on their own files (load)."""
    pin = mods["pinocchio"][0]
    if "cold" in cfg.sections:
        result["cold"] = run_cold(cfg, {"pinocchio": pin}, prog)
    if "memory" in cfg.sections and cases:
        name = "panda" if "panda" in cases else next(iter(cases))
        result["memory"] = run_memory(cfg, {"pinocchio": pin}, prog, name)
    if "simulate" in cfg.sections:
        peers = {"pinocchio": pin, "mujoco": mods["mujoco"][0]}
        result["simulate"] = run_simulate(cfg, peers, prog, cases)
    if "ik" in cfg.sections:
        result["ik"] = run_ik(cfg, {"modern_robotics": mods["modern_robotics"][0]}, prog, cases)
    if "dask" in cfg.sections:
        result["dask"] = run_dask(cfg, prog)
    if "viz" in cfg.sections:
        result["viz"] = run_viz(cfg, prog)
    if "ident" in cfg.sections and pin is not None:
        result["ident"] = run_ident(cfg, pin, prog, cases)
    if "load" in cfg.sections:
        result["load"] = run_load(cfg, {"pinocchio": pin, "mujoco": mods["mujoco"][0]}, prog)


def _robodyn_version() -> str:
    try:
        from importlib.metadata import version

        return version("robodyn")
    except Exception:  # noqa: BLE001
        return "?"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; ``argv`` as for ``robodyn bench`` (see ``--help``).

    Parameters
    ----------
    argv : list of str, optional
        Command-line options; None reads ``sys.argv[1:]``.

    Returns
    -------
    int
        0 when every equality check passed, 1 when one failed (FAIL rows), 2 on bad
        options or an output file that cannot be written (checked before any timing).
    """
    from .._files import atomic_write, distinct_outputs, output_option

    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        cfg = _config(args)
        for option in ("json", "plot", "markdown"):  # before minutes of timing, not after
            if getattr(args, option):
                output_option(f"--{option}", getattr(args, option), force=args.force)
        named = {f"--{o}": getattr(args, o) for o in ("json", "plot", "markdown")}
        distinct_outputs({o: p for o, p in named.items() if p is not None})
    except ValueError as exc:
        print(f"robodyn bench: error: {exc}", file=sys.stderr)
        return 2
    # OpenMP threads (Pinocchio's) sleep between parallel regions instead of spinning, so
    # idle threads do not steal the cores of robodyn's batches.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    result = run(cfg)
    print(format_table(result))
    if args.markdown:
        with atomic_write(args.markdown) as tmp, open(tmp, "w", encoding="utf-8") as fh:
            fh.write(format_markdown(result))
    if args.json:
        with atomic_write(args.json) as tmp, open(tmp, "w", encoding="utf-8") as fh:
            json.dump(result, fh, indent=1, default=str)
    if args.plot:
        with atomic_write(args.plot) as tmp:
            write_plot(result, tmp, overwrite=True)  # tmp exists: atomic_write made it
    failed = any(
        str(r.get("status", "")).startswith("FAIL")
        for sec in ("latency", "batch", "functions", "derivatives", "load")
        for r in result[sec]
    )
    return 1 if failed else 0
