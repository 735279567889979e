"""What ``robodyn bench`` prints and writes: the text report (:func:`format_table`), the
README's Markdown summary (:func:`format_markdown`) and the bar chart of the ratios to
Pinocchio (:func:`write_plot`)."""

from __future__ import annotations

import numpy as np

from .common import _fmt_ratio, _fmt_time
from .dask import text_lines as dask_lines
from .derivatives import text_lines as derivatives_lines
from .ident import text_lines as ident_lines
from .load import markdown_lines as load_markdown
from .load import text_lines as load_lines
from .viz import viz_lines


def _status_text(r: dict) -> str:
    st = r["status"]
    if st in ("ok", "reference") and r.get("check_err") is not None:
        return f"{st} ({r['check_err']:.1e})"
    return st


def format_table(result: dict) -> str:
    """The plain-text report of a result dict (as written by ``--json``)."""
    out = _head_lines(result)
    notes = result.get("skipped", {})
    for key, title, lines, noted in _TEXT_SECTIONS:
        # a section shows when it has rows, or (noted) a line for a package not installed
        if result.get(key) or (noted and notes.get(key)):
            out += ["", title, *notes.get(key, []), *lines(result.get(key, []))]
    if result.get("flops"):
        out += _flops_lines(result)
    return "\n".join(out)


def _head_lines(result: dict) -> list[str]:
    """The versions, the machine, the compiled core, how to read the times, the models."""
    mach = result["machine"]
    out = []
    peers = ", ".join(f"{k} {v}" for k, v in result["versions"].items())
    out.append(f"robodyn bench: {peers}")
    out.append(f"machine: {mach['model_name']}, {mach['cores']} cores, {mach['mhz']} MHz; "
               f"peak {mach['peak_gflops']:.1f} GFLOP/s ({mach['peak_note']})")  # fmt: skip
    out.append(f"compiled core: {mach.get('core', '?')}")
    cfg = result["config"]
    out.append(
        f"every time is the median of {cfg['repeat']} runs (autorange loops); ratio = "
        "time / Pinocchio's time at the same thread count (< 1: robodyn is faster)"
    )
    skipped: dict[str, list[str]] = {}
    for name, info in result["models"].items():
        if info.startswith("skipped"):
            skipped.setdefault(info, []).append(name)
        else:
            out.append(f"  model {name}: {info}")
    for info, names in skipped.items():  # one line for all the models of a missing package
        out.append(f"  models {', '.join(names)}: {info}")
    return out


def _timing_lines(rows: list[dict], time_head: str, batch: bool) -> list[str]:
    """A table of timed calls: model, function, library, (for a batch: threads and N), the
    time, the ratio to Pinocchio, the check and the call."""

    def batch_cells(threads, n) -> str:
        return f"{threads:>3} {n:>7} " if batch else ""

    out = [f"{'model':<7} {'function':<9} {'library':<16} {batch_cells('thr', 'N')}"
           f"{time_head:>10} {'ratio':>7}  {'check':<20} call"]  # fmt: skip
    for r in rows:
        cells = batch_cells(r["threads"] or "-", r["n_states"]) if batch else ""
        out.append(
            f"{r['model']:<7} {r['function']:<9} {r['library']:<16} {cells}"
            f"{_fmt_time(r['median_s']):>10} {_fmt_ratio(r['ratio_to_pinocchio']):>7}  "
            f"{_status_text(r):<20} {r['call']}"
        )
    return out


def _latency_lines(rows: list[dict]) -> list[str]:
    return _timing_lines(rows, "median", batch=False)


def _batch_lines(rows: list[dict]) -> list[str]:
    return _timing_lines(rows, "per state", batch=True)


def _functions_lines(rows: list[dict]) -> list[str]:
    """One line per function: robodyn on one state and per state of a batch, each with its
    ratio to the peer (Pinocchio's call; a Python loop over it for the batch), the check."""
    out = [f"{'model':<7} {'function':<34} {'one state':>10} {'ratio':>7} {'batch/st':>10} "
           f"{'ratio':>7} {'N':>5}  {'check':<20} peer (checked against)"]  # fmt: skip
    for r in rows:
        note = f"; {r['note']}" if r.get("note") else ""
        out.append(
            f"{r['model']:<7} {r['function']:<34} {_fmt_time(r['median_s']):>10} "
            f"{_fmt_ratio(r['ratio_to_pinocchio']):>7} {_fmt_time(r.get('batch_s')):>10} "
            f"{_fmt_ratio(r.get('batch_ratio')):>7} {r['n_states']:>5}  "
            f"{_status_text(r):<20} {r.get('peer', '')} ({r.get('checked_against', '')}){note}"
        )
    return out


def _cold_lines(rows: list[dict]) -> list[str]:
    return [
        f"{r['model']:<5} {r['function']:<30} {r['library']:<10} "
        f"{_fmt_time(r['median_s']):>10} {_fmt_ratio(r['ratio_to_pinocchio']):>9}  "
        f"{r['status']:<9} {r['call']}"
        for r in rows
    ]


def _memory_lines(rows: list[dict]) -> list[str]:
    out = []
    for r in rows:
        if "peak_rss_mb" not in r:
            out.append(f"{r['model']:<7} {r['library']:<10} {r['status']}")
            continue
        out.append(
            f"{r['model']:<7} {r['library']:<10} N={r['n_states']}  peak {r['peak_rss_mb']:.0f}"
            f" MB, baseline {r['baseline_rss_mb']:.0f} MB, inputs+outputs "
            f"{r['data_mb']:.0f} MB, extra/(inputs+outputs) = {r['over_data']:.2f}"
            f"  (batch {r['batch_seconds']:.2f} s)"
        )
    return out


def _simulate_lines(rows: list[dict]) -> list[str]:
    out = []
    for r in rows:
        ratios = f"{_fmt_ratio(r['ratio_to_pinocchio']):>7}"
        if r.get("ratio_to_mujoco") is not None:
            ratios += f" (to MuJoCo {_fmt_ratio(r['ratio_to_mujoco'])})"
        if r.get("ratio_to_toppra") is not None:
            ratios += f" (to toppra {_fmt_ratio(r['ratio_to_toppra'])})"
        out.append(
            f"{r['model']:<6} {r['function']:<24} {r['library']:<10} "
            f"{_fmt_time(r['median_s']):>10} {ratios}  {_status_text(r):<20} {r['call']}"
        )
    return out


def _ik_lines(rows: list[dict]) -> list[str]:
    return [
        f"{r['model']:<6} {r['library']:<16} {_fmt_time(r['median_s']):>10} "
        f"{_fmt_time(r['p95_s']):>10} {100 * r['success']:6.1f} %  {r['call']}"
        for r in rows
    ]


# The sections of the text report in order: key, title, the lines of its rows, and whether
# it shows (with only its lines naming packages not installed) when it has no rows.
_TEXT_SECTIONS = (
    ("latency", "LATENCY: one state, called from Python (time per call)", _latency_lines, True),
    ("batch", "BATCH: time per state over N states", _batch_lines, True),
    ("functions", "FUNCTIONS: every other public numeric function, one state and per state of "
     "a batch (ratio to its Pinocchio peer; batch: to a Python loop over it)",
     _functions_lines, True),
    ("derivatives", "DERIVATIVES: analytic derivatives of the dynamics, one state, per state of a "
     "batch and by finite differences (ratio to Pinocchio; batch and differences: to a Python "
     "loop over it)", derivatives_lines, True),
    ("cold", "COLD START (fresh processes)", _cold_lines, True),
    ("memory", "MEMORY: peak RSS of an inverse-dynamics batch (fresh process)", _memory_lines,
     True),
    ("simulate", "SIMULATE: whole simulations (time per run, or per rollout-step)",
     _simulate_lines, True),
    ("ik", "IK: random reachable poses from neutral (median, 95th percentile, success)",
     _ik_lines, True),
    ("dask", "Dask: per-state cost of the dask path vs numpy; 1 -> 2 worker processes",
     dask_lines, False),
    ("viz", "VIZ: viewer pages in headless Chromium (software WebGL)", viz_lines, False),
    ("ident", "Identification: joint-torque regressor per state (ratio to Pinocchio)",
     ident_lines, False),
    ("load", "LOAD: one robot description file read (least CPU time of single calls; "
     "robodyn, Pinocchio, ratio, check)", load_lines, True),
)  # fmt: skip


def _flops_lines(result: dict) -> list[str]:
    """The achieved GFLOP/s of robodyn's kernels beside the estimated peaks."""
    peak, scalar = result["machine"]["peak_gflops"], result["flops"][0]["scalar_peak_gflops"]
    out = [
        "",
        f"FLOPS: analytic count per state; achieved GFLOP/s (robodyn; 'pinocchio' = "
        f"robodyn's count over Pinocchio's time) vs peak {peak:.1f} (vector, estimated) / "
        f"{scalar:.1f} (scalar FMA, estimated), all cores",
    ]
    for r in result["flops"]:
        parts = [f"{k[7:]}: {v:.2f}" for k, v in r.items() if k.startswith("gflops_")]
        out.append(f"{r['model']:<7} {r['function']:<5} {r['flops_per_state']:>7} flop  "
                   + "  ".join(parts))  # fmt: skip
    return out


def format_markdown(result: dict) -> str:
    """The README's summary: single-state latency and batch throughput of robodyn beside
    Pinocchio (time, ratio), cold start and memory, and the machine they ran on."""
    m = result["machine"]
    lines = [
        f"Machine: {m.get('model_name', '?')}, {m.get('cores', '?')} cores, "
        f"{m.get('mhz', '?')} MHz; robodyn {result['versions'].get('robodyn')}, "
        f"Pinocchio {result['versions'].get('pinocchio')}; robodyn's compiled core "
        f"{m.get('core', '?')}.",
        "",
    ]
    lat = [r for r in result["latency"] if r.get("median_s")]
    models = list(dict.fromkeys(r["model"] for r in lat))  # the rows of both tables
    lines += _latency_markdown(lat, models)
    lines += _batch_markdown(result, models)
    lines += _functions_markdown(result)
    lines += _derivatives_markdown(result)
    cold = [r for r in result["cold"] if r.get("median_s") and r["library"] == "robodyn"]
    if cold:
        lines.append(
            "Cold start: " + "; ".join(f"{r['call']} {r['median_s']:.3g} s" for r in cold) + "."
        )
    lines += _simulate_markdown(result)
    lines += _ik_markdown(result)
    lines += load_markdown(result.get("load", []))
    for r in result.get("viz", []):
        if r["status"] == "ok":
            fps = "" if r.get("fps") is None else f", plays at {r['fps']:.0f} frames/s"
            lines.append(f"Viewer page ({r['model']}): {r['size_mb']:.2f} MB, first frame "
                         f"{1000 * r['median_s']:.0f} ms after navigation{fps}.")  # fmt: skip
    for r in result["memory"]:
        if r["library"] == "robodyn" and r.get("over_data"):
            lines.append(
                f"Memory: a {r['n_states']:,}-state inverse-dynamics batch ({r['model']}) "
                f"peaks at {r['over_data']:.2f}x its inputs plus outputs."
            )
    return "\n".join(lines) + "\n"


def _cell(rows: list[dict]) -> str:
    """A table cell: the first row's time and ratio to Pinocchio, or "-"."""
    if not rows:
        return "-"
    return f"{_fmt_time(rows[0]['median_s'])} ({_fmt_ratio(rows[0]['ratio_to_pinocchio'])})"


def _markdown_table(title: str, head: list[str], cells: dict[str, list[str]]) -> list[str]:
    """A Markdown table under ``title``: a model column, then ``head``; a row per model."""
    lines = [title, "", "| model | " + " | ".join(head) + " |", "|---" * (len(head) + 1) + "|"]
    lines += [f"| {mod} | " + " | ".join(row) + " |" for mod, row in cells.items()]
    lines.append("")
    return lines


def _latency_markdown(lat: list[dict], models: list[str]) -> list[str]:
    """One state, called from Python: robodyn's time (ratio) per model and function."""
    if not lat:
        return []
    fns = list(dict.fromkeys(r["function"] for r in lat))
    cells = {}
    for mod in models:
        cells[mod] = []
        for fn in fns:
            key = (mod, fn, "robodyn")
            r = [x for x in lat if (x["model"], x["function"], x["library"]) == key]
            cells[mod].append(_cell(r))
    title = "One state, called from Python: robodyn's median time (ratio to Pinocchio)"
    return _markdown_table(title, fns, cells)


def _batch_markdown(result: dict, models: list[str]) -> list[str]:
    """Batches: robodyn's time per state (ratio) of rnea, aba, crba per thread count."""
    bat = [r for r in result["batch"] if r.get("median_s") and r["library"] == "robodyn"]
    if not bat:
        return []
    threads = sorted({r["threads"] for r in bat})
    fns = [f for f in ("rnea", "aba", "crba") if any(r["function"] == f for r in bat)]
    cells = {}
    for mod in models:
        cells[mod] = []
        for f in fns:
            for t in threads:
                r = [x for x in bat if (x["model"], x["function"], x["threads"]) == (mod, f, t)]
                cells[mod].append(_cell(r))
    title = (
        "Batch of states, time per state (ratio to Pinocchio's rneaInParallel / "
        "abaInParallel, or to a Python loop over crba, at the same thread count)"
    )
    return _markdown_table(title, [f"{f}, {t} thr." for f in fns for t in threads], cells)


def _derivatives_markdown(result: dict) -> list[str]:
    """The derivatives section: a row per model and quantity, a column per route (the
    batch at each thread count)."""
    rows = [r for r in result.get("derivatives", []) if r.get("median_s")]
    if not rows:
        return []
    routes = list(dict.fromkeys((r["kind"], r["threads"]) for r in rows))
    head = [k if k != "batch" else f"batch, {t} thr." for k, t in routes]
    cells = {}
    for key in dict.fromkeys((r["model"], r["function"]) for r in rows):
        cells[f"{key[0]} | `{key[1]}`"] = [
            _cell([r for r in rows if (r["model"], r["function"], r["kind"], r["threads"])
                   == (*key, *route)])
            for route in routes
        ]  # fmt: skip
    title = (
        "Derivatives of the dynamics: robodyn's time per state (ratio to Pinocchio's call; "
        "batch and finite differences: to a Python loop over it)"
    )
    return _markdown_table(title, ["function", *head], cells)


def _functions_markdown(result: dict) -> list[str]:
    """The other numeric functions: a row per function, a column pair per model (one
    state; batch per state), each with its ratio to the Pinocchio peer."""
    rows = result.get("functions", [])
    if not rows:
        return []
    models = list(dict.fromkeys(r["model"] for r in rows))
    fns = list(dict.fromkeys(r["function"] for r in rows))
    by = {(r["model"], r["function"]): r for r in rows}
    head = [h for m in models for h in (f"{m}, one state", f"{m}, batch per state")]
    lines = [
        "Other numeric functions: robodyn's time (ratio to its Pinocchio peer; batch: to a "
        "Python loop over it)",
        "",
        "| function | " + " | ".join(head) + " |",
        "|---" * (len(head) + 1) + "|",
    ]
    for fn in fns:
        cells = []
        for m in models:
            r = by.get((m, fn))
            if r is None or r.get("median_s") is None:
                cells += [r["status"] if r else "-", "-"]
                continue
            cells.append(f"{_fmt_time(r['median_s'])} ({_fmt_ratio(r['ratio_to_pinocchio'])})")
            cells.append(f"{_fmt_time(r['batch_s'])} ({_fmt_ratio(r['batch_ratio'])})")
        lines.append(f"| `{fn}` | " + " | ".join(cells) + " |")
    lines.append("")
    return lines


def _simulate_markdown(result: dict) -> list[str]:
    lines = []
    for r in result.get("simulate", []):
        if r["library"] != "robodyn" or not r.get("median_s"):
            continue
        vs = []
        if r.get("ratio_to_pinocchio") is not None:
            vs.append(f"{_fmt_ratio(r['ratio_to_pinocchio'])} of the same loop over Pinocchio")
        if r.get("ratio_to_mujoco") is not None:
            vs.append(f"{_fmt_ratio(r['ratio_to_mujoco'])} of mujoco.rollout")
        if r.get("ratio_to_joint_space") is not None:
            vs.append(f"{_fmt_ratio(r['ratio_to_joint_space'])} of joint-space computed torque")
        if r.get("ratio_to_python_loop") is not None:
            vs.append(f"{_fmt_ratio(r['ratio_to_python_loop'])} of robodyn's Python loop")
        if r.get("ratio_to_toppra") is not None:
            vs.append(f"{_fmt_ratio(r['ratio_to_toppra'])} of toppra on the same path")
        per = "per rollout-step" if "rollouts" in r["function"] else "in all"
        lines.append(
            f"Simulation ({r['model']}, {r['function']}): {r['call']}: "
            f"{_fmt_time(r['median_s'])} {per}" + (f" ({'; '.join(vs)})" if vs else "") + "."
        )
    return lines


def _ik_markdown(result: dict) -> list[str]:
    lines = []
    for r in result.get("ik", []):
        when = f"{_fmt_time(r['median_s'])} per pose"  # a batch row: the whole call over n
        if r.get("p95_s") is not None:
            when = f"median {_fmt_time(r['median_s'])}, 95th percentile {_fmt_time(r['p95_s'])}"
        lines.append(
            f"IK ({r['model']}, {r['library']}): {r['call']}: {when}, "
            f"success {100 * r['success']:.1f} %."
        )
    return lines


def write_plot(result: dict, path: str, *, overwrite: bool = False) -> None:
    """A bar chart of the ratios to Pinocchio (log scale) written to ``path`` (an existing
    file is refused unless ``overwrite=True``)."""
    import matplotlib

    from .._files import output_path, save_figure

    output_path(path, overwrite=overwrite, name="path")  # before drawing
    matplotlib.use("Agg", force=False)
    from matplotlib.figure import Figure

    panels = []
    lat = [r for r in result.get("latency", []) if r["library"] == "robodyn"]
    if lat:
        panels.append(("single state (robodyn / Pinocchio)", lat))
    tmax = max((r["threads"] or 1 for r in result.get("batch", [])), default=1)
    bat = [r for r in result.get("batch", []) if r["library"] == "robodyn" and r["threads"] == tmax]
    if bat:
        panels.append((f"batch, {tmax} threads, per state (robodyn / Pinocchio)", bat))
    widest = max((len(rows) for _, rows in panels), default=1)  # 0.3 in per bar, at least 12
    fig = Figure(figsize=(max(12.0, 0.3 * widest), 4.5 * max(1, len(panels))))
    if not panels:
        ax = fig.add_subplot(1, 1, 1)
        ax.text(0.5, 0.5, "no latency or batch figures", ha="center")
    for k, (title, rows) in enumerate(panels):
        ax = fig.add_subplot(len(panels), 1, k + 1)
        labels = [f"{r['model']}\n{r['function']}" for r in rows]
        vals = [r["ratio_to_pinocchio"] or np.nan for r in rows]
        colors = ["tab:green" if (v or 0) <= 1.0 else "tab:red" for v in vals]
        ax.bar(range(len(rows)), vals, color=colors)
        for i, r in enumerate(rows):
            if r["ratio_to_pinocchio"] is None:
                ax.text(i, 1.0, r["status"].split(":")[0], rotation=90, ha="center", fontsize=7)
        ax.set_yscale("log")
        ax.axhline(1.0, color="k", lw=1)
        if k == len(panels) - 1 and bat:
            ax.axhline(1.0 / 3.0, color="tab:blue", ls="--", lw=1, label="target 1/3 (rnea, aba)")
            ax.legend(loc="upper left", fontsize=8)
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels(labels, fontsize=7, rotation=90)  # upright labels overlap
        ax.set_ylabel("time ratio to Pinocchio (log)")
        ax.set_title(title)
    fig.tight_layout()
    save_figure(fig, path, overwrite=overwrite)
