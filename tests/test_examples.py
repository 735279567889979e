"""Every script in examples/ (and ``robodyn demo``) runs to the end and writes readable figures.

Each script runs in this process with ``Figure.savefig`` wrapped, so every figure it writes is
audited as it is saved: a title that says what is shown, a label with a unit in parentheses
on every axis that carries data (a shared x axis may be labelled once), a legend that names
every curve and covers none of them, and curves that span the same x range as their
neighbours (no controller cut short). A figure that fails says which rule and which axes.
"""

from __future__ import annotations

import re
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from helpers import figure_problems

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "examples").rglob("*.py"))


# robodyn writes a figure to a temporary file beside its path, renamed when whole
# (robodyn._files.atomic_write: stem_tmpXXXXXXXX.suffix): the audit names the path
_TEMPORARY = re.compile(r"_tmp[0-9a-f]{8}(?=\.[^./]*$|$)")


@pytest.fixture
def audited_figures(monkeypatch):
    """Wrap Figure.savefig: record (path, problems) for each figure written."""
    seen: list[tuple[str, list[str]]] = []
    save = Figure.savefig

    def savefig(fig, fname, *args, **kwargs):
        seen.append((_TEMPORARY.sub("", str(fname)), figure_problems(fig)))
        return save(fig, fname, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", savefig)
    return seen


def _assert_readable(seen, where: Path) -> None:
    assert seen, "no figure was written"
    bad = [f"{Path(p).name}: {msg}" for p, msgs in seen for msg in msgs]
    assert not bad, "\n".join(bad)
    written = [p for p in where.rglob("*.png")]
    assert len(written) == len({p for p, _ in seen}), (written, seen)
    assert all(p.stat().st_size > 10_000 for p in written)


@pytest.mark.parametrize("script", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_runs_and_its_figures_are_readable(script, tmp_path, monkeypatch, audited_figures):
    monkeypatch.chdir(tmp_path)
    # ex5 times chains of 2..12 joints by default (about two minutes): 2..4 here
    args = ["out/course/ex5", "4"] if script.stem == "ex5_newton_euler" else []
    monkeypatch.setattr(sys, "argv", [str(script), *args])
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exit_:  # scripts that end in raise SystemExit(main())
        assert exit_.code in (0, None), f"{script.name} exited with {exit_.code}"
    written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert written, f"{script.name} wrote nothing under ./out"
    assert all(p.stat().st_size > 0 for p in written)
    if list((tmp_path / "out").rglob("*.png")) or audited_figures:
        _assert_readable(audited_figures, tmp_path / "out")


def test_demo_figures_are_readable(tmp_path, audited_figures, capsys):
    from robodyn.cli.demo import run_demo

    assert run_demo(tmp_path / "demo") == 0
    _assert_readable(audited_figures, tmp_path / "demo")


def test_the_audit_catches_unreadable_figures():
    """The audit itself: a figure with each defect is reported, a clean one is not."""
    t = np.linspace(0.0, 2.0, 201)
    bad = Figure()
    ax = bad.add_subplot()
    ax.plot(t, np.sin(t), label="a")
    ax.plot(t[:100], np.cos(t[:100]), label="b")  # stops at 1 s of 2
    ax.axhline(0.5)  # unlabelled target line
    ax.legend(loc="center")  # on top of the data
    ax.set_xlabel("time")  # no unit; no title, no y label
    msgs = "\n".join(figure_problems(bad))
    for expected in ("no title", "x label", "y label", "stop before", "without a legend", "covers"):
        assert expected in msgs, msgs

    good = Figure(layout="constrained")
    ax = good.add_subplot()
    ax.plot(t, np.sin(t), label="sin t")
    ax.axhline(0.5, color="k", label="target")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set(xlabel="t (s)", ylabel="q (rad)", title="a clean figure")
    assert figure_problems(good) == []
    assert isinstance(ax.get_lines()[0], Line2D)
