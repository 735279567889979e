"""The machine the benchmark runs on and the floating-point work of robodyn's kernels.

Floating-point operation counts (``flops`` section) are analytic: the number of
multiplications, additions, subtractions and divisions that robodyn's kernels execute per
body as written (straight-line code, zeros not skipped; sin/cos/sqrt not counted), summed
over the tree:

=========  ==========  ==========  ===================================================
kernel     revolute    prismatic   free joint (the root of a floating base)
=========  ==========  ==========  ===================================================
rnea       396         338         365
crba       81 + 179    23 + 179    107 + 6 * (42 + 6 * 3)
aba        981         921         546
=========  ==========  ==========  ===================================================

RNEA per revolute body: joint pose 81 (Rodrigues 36, 3x3 product 45), joint rates 8,
twist 48, acceleration 84, body wrench 120, torque 7, wrench to the parent 48 (not for
children of the world). CRBA per body: joint pose; composite inertia moved to the parent
179 (not for children of the world); per column ``Ic S`` 42 plus 8 per diagonal entry
(3 for a free joint); then per ancestor ``j`` of the column's body a wrench transport 42
and 9 per dof of ``j`` (4 for a free joint). ABA per revolute body: pass 1 235, pass 2 679
(42 at a child of the world), pass 3 67; a free root: 257 + 91 (6x6 Cholesky) + 198.
Achieved GFLOP/s = flops per state / seconds per state, shown beside the machine's peak,
which is *estimated* from ``lscpu`` (cores x max MHz x double-precision flops per cycle
from the AVX-512/AVX2/FMA flags) together with the scalar-FMA peak (one state runs scalar
code; batches run vectorised across 16 states).
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from typing import Any

import numpy as np


def _lscpu() -> dict[str, str]:
    out: dict[str, str] = {}
    exe = shutil.which("lscpu")
    if exe is None:
        return out
    try:
        text = subprocess.run([exe], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return out
    for line in text.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            out[k.strip()] = v.strip()
    return out


def machine_info() -> dict[str, Any]:
    """CPU model, cores, clock and an *estimated* double-precision peak.

    Returns
    -------
    dict
        ``model_name``, ``cores``, ``mhz``, ``flags`` (SIMD ones), ``flops_per_cycle``
        (vector, per core), ``peak_gflops`` (all cores, vector FMA), ``peak_gflops_core``,
        ``scalar_peak_gflops_core`` (2 scalar FMA per cycle) and ``peak_note``.
    """
    ls = _lscpu()
    name = ls.get("Model name") or platform.processor() or platform.machine()
    cpus = int(ls.get("CPU(s)", os.cpu_count() or 1))
    try:
        cores = int(ls["Core(s) per socket"]) * int(ls.get("Socket(s)", "1"))
    except (KeyError, ValueError):
        cores = cpus
    mhz = None
    for key in ("CPU max MHz", "CPU MHz"):
        try:
            mhz = float(ls[key])
            break
        except (KeyError, ValueError):
            pass
    mhz_note = "lscpu max MHz"
    if mhz is None:
        try:
            with open("/proc/cpuinfo") as fh:
                vals = [float(m) for m in re.findall(r"cpu MHz\s*:\s*([\d.]+)", fh.read())]
            mhz = max(vals) if vals else None
            mhz_note = "/proc/cpuinfo cpu MHz (no max MHz reported)"
        except OSError:
            mhz = None
    flags = set(ls.get("Flags", "").split())
    if "avx512f" in flags:
        fpc, simd = 32, "AVX-512 + FMA: 2 x 8 doubles x 2"
    elif "avx2" in flags and "fma" in flags:
        fpc, simd = 16, "AVX2 + FMA: 2 x 4 doubles x 2"
        fam, mod = ls.get("CPU family", ""), ls.get("Model", "")
        if ls.get("Vendor ID") == "AuthenticAMD" and fam == "23" and mod.isdigit():
            if int(mod) < 0x30:  # Zen 1: 256-bit ops split in two 128-bit halves
                fpc, simd = 8, "AVX2 + FMA on Zen 1 (128-bit units): 2 x 2 doubles x 2"
    elif "avx" in flags:
        fpc, simd = 8, "AVX: 4 doubles add + 4 mul"
    else:
        fpc, simd = 4, "SSE2: 2 doubles add + 2 mul"
    ghz = (mhz or 0.0) / 1000.0
    return {
        "model_name": name,
        "cores": cores,
        "cpus": cpus,
        "mhz": mhz,
        "mhz_source": mhz_note,
        "flags": sorted(f for f in flags if f in {"sse2", "avx", "avx2", "fma", "avx512f"}),
        "flops_per_cycle": fpc,
        "peak_gflops_core": ghz * fpc,
        "peak_gflops": ghz * fpc * cores,
        "scalar_peak_gflops_core": ghz * 4.0,
        "peak_note": f"estimated: {cores} cores x {mhz} MHz x {fpc} flop/cycle ({simd})",
        "python": platform.python_version(),
        "platform": platform.platform(),
    }


def flop_count(model) -> dict[str, int]:
    """Floating-point operations per state of robodyn's rnea, crba and aba kernels.

    An analytic count of the kernels' straight-line code per body (see the module
    docstring for the per-joint table): multiplications, additions, subtractions and
    divisions as written, zeros not skipped, sin/cos/sqrt not counted, friction and
    armature terms not counted.

    Parameters
    ----------
    model : Model

    Returns
    -------
    dict
        ``{"rnea": int, "crba": int, "aba": int}``.
    """
    from ..model.model import JOINT_FREE, JOINT_PRISMATIC, JOINT_REVOLUTE

    pose = {JOINT_REVOLUTE: 81, JOINT_PRISMATIC: 23, JOINT_FREE: 107}
    rnea_own = {JOINT_REVOLUTE: 348, JOINT_PRISMATIC: 290, JOINT_FREE: 365}
    aba_own = {JOINT_REVOLUTE: 344, JOINT_PRISMATIC: 284, JOINT_FREE: 546}
    diag = {JOINT_REVOLUTE: 8, JOINT_PRISMATIC: 8, JOINT_FREE: 3}
    per_dof = {JOINT_REVOLUTE: 9, JOINT_PRISMATIC: 9, JOINT_FREE: 4}
    parent = np.asarray(model.body_parent)
    jt = np.asarray(model.jnt_type)
    nvj = np.asarray(model.jnt_nv)
    rnea = crba = aba = 0
    for i in range(1, model.nb):
        t = int(jt[i])
        if t not in pose:
            continue
        lam = int(parent[i])
        inner = lam > 0
        rnea += rnea_own[t] + (48 if inner else 0)
        aba += aba_own[t] + (637 if inner else 0)
        n = int(nvj[i])
        crba += pose[t] + (179 if inner else 0) + n * (42 + n * diag[t])
        j = lam
        while j > 0:
            tj = int(jt[j])
            crba += n * (42 + int(nvj[j]) * per_dof.get(tj, 9))
            j = int(parent[j])
    return {"rnea": rnea, "crba": crba, "aba": aba}


def flops_rows(cases: dict, latency: list[dict], batch: list[dict], mach: dict) -> list[dict]:
    """Achieved GFLOP/s of robodyn's rnea, crba, aba next to the estimated peak."""
    rows = []
    for name, case in cases.items():
        counts = flop_count(case.model)
        for fn, fl in counts.items():
            row = {"section": "flops", "model": name, "function": fn, "flops_per_state": fl}
            for r in latency:
                if (r["model"], r["function"], r["library"]) == (name, fn, "robodyn"):
                    if r["median_s"]:
                        row["gflops_single"] = fl / r["median_s"] / 1e9
                if (r["model"], r["function"], r["library"]) == (name, fn, "pinocchio"):
                    if r["median_s"]:
                        row["gflops_single_pinocchio"] = fl / r["median_s"] / 1e9
            for r in batch:
                if (r["model"], r["function"], r["library"]) == (name, fn, "robodyn"):
                    if r["median_s"]:
                        row[f"gflops_batch_{r['threads']}t"] = fl / r["median_s"] / 1e9
            row["peak_gflops"] = mach["peak_gflops"]
            row["scalar_peak_gflops"] = mach["scalar_peak_gflops_core"] * mach["cores"]
            rows.append(row)
    return rows
