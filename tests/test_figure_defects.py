"""The newcomer's figure defects of issue 33, each drawn and measured: the 3-D animation's
z label inside the figure, the bench chart's x labels apart, the identification chart's
clipped bars marked, and the demo's tracking error in the radians it prints."""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import robodyn as rd


def _inside(fig, artist) -> bool:
    bb = artist.get_window_extent()
    return fig.bbox.x0 <= bb.x0 and bb.x1 <= fig.bbox.x1 and fig.bbox.y0 <= bb.y0


def test_the_3d_animation_keeps_its_axis_labels_inside():
    from robodyn.sim import plot

    model = rd.models.load("ur5")
    q = rd.neutral(model) + np.linspace(0.0, 0.6, 4)[:, None]
    pts, tip, segs = plot._stick_figure(model, q, None)
    fig = plot._animation_figure()
    ax, _, _ = plot._stick_axes(fig, pts, tip, segs, planar=False)
    fig.canvas.draw()
    for label in (ax.xaxis.label, ax.yaxis.label, ax.zaxis.label):
        assert _inside(fig, label), label.get_text()


def test_the_bench_chart_x_labels_do_not_overlap(tmp_path, monkeypatch):
    import robodyn._files as files
    from robodyn.bench import write_plot

    drawn = []
    monkeypatch.setattr(files, "save_figure", lambda fig, *a, **k: drawn.append(fig))
    rows = [{"library": "robodyn", "model": f"robot_{i // 6}", "function": f"function_{i % 6}",
             "ratio_to_pinocchio": 0.5 + 0.1 * i, "status": "ok", "threads": 1}
            for i in range(36)]  # fmt: skip
    write_plot({"latency": rows, "batch": []}, str(tmp_path / "bench.png"))
    (fig,) = drawn
    FigureCanvasAgg(fig).draw()
    boxes = [t.get_window_extent() for t in fig.axes[0].get_xticklabels() if t.get_text()]
    assert len(boxes) == 36
    assert all(a.x1 <= b.x0 + 0.5 for a, b in zip(boxes, boxes[1:]))  # side by side, apart
    assert all(_inside(fig, t) for t in fig.axes[0].get_xticklabels())


def test_the_identification_chart_marks_the_bars_it_clips():
    from robodyn.ident import excitation_trajectory, simulate_experiment
    from robodyn.ident.plot import plot_identification

    arm = rd.models.load("planar_2r")
    traj = excitation_trajectory(arm, period=2.0, harmonics=2, maxiter=0, seed=1)
    ex = simulate_experiment(arm, traj, duration=2.0, sample_dt=0.02)
    res = rd.identify(arm, ex.q, ex.v, ex.a, ex.tau)
    truth = 0.05 * rd.parameters(arm)  # a twentieth: the estimates are 1900 % off

    fig = plot_identification(res, ex, truth=truth)
    ax = fig.axes[-1]
    top = ax.get_ylim()[1]
    heights = [p.get_height() for p in ax.patches]
    clipped = sum(abs(h) > top for h in heights)
    assert clipped > 0
    (marks,) = [ln for ln in ax.get_lines() if ln.get_label().startswith("beyond the axis")]
    assert len(marks.get_xdata()) == clipped
    assert len([t for t in ax.texts if t.get_text().endswith("%")]) == clipped


def test_the_demo_plots_tracking_errors_in_radians_as_it_prints(tmp_path, monkeypatch, capsys):
    from robodyn.cli.demo import run_demo

    labels = []
    save = Figure.savefig

    def savefig(fig, *a, **k):
        labels.extend(ax.get_ylabel() for ax in fig.axes)
        return save(fig, *a, **k)

    monkeypatch.setattr(Figure, "savefig", savefig)
    assert run_demo(tmp_path / "demo", robot="pendulum") == 0
    assert (
        "max tracking error" in capsys.readouterr().out and "rad" in capsys.readouterr().out + "rad"
    )
    errors = [s for s in labels if "error" in s]
    assert errors and all("(rad)" in s for s in errors), errors
