"""Figures and animations written to a user's path (issue 27 s.4): every public function
that writes one takes ``overwrite=False`` and

* refuses an existing file with FileExistsError naming it, before any figure is made
  (the file as it was, nothing else left in its folder);
* with ``overwrite=True`` replaces it whole (written beside it, then renamed: the folder
  holds only the new file);
* refuses a missing folder with ValueError, creating nothing.

One test per family of writers (robodyn.sim.plot, robodyn.mobile.plot, robodyn.ident.plot,
Workspace, robodyn.rigidbody, robodyn.mr, robodyn.bench), each drawing small figures; the
demos' folders are checked before their work; and robodyn._files.save_figure itself.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from matplotlib.figure import Figure

import robodyn as rd

PNG, GIF = b"\x89PNG\r\n\x1a\n", b"GIF89a"
EARLIER = b"an earlier file"


@pytest.fixture
def made(monkeypatch):
    """Every matplotlib Figure made while the test runs (a refused write makes none)."""
    figures: list = []
    init = Figure.__init__

    def recording(self, *args, **kwargs):
        figures.append(self)
        init(self, *args, **kwargs)

    monkeypatch.setattr(Figure, "__init__", recording)
    return figures


def _holds(folder) -> list[str]:
    return sorted(os.listdir(folder))


def check_writer(write, folder, name: str, magic: bytes, made: list) -> None:
    """``write(path, overwrite)`` writes a figure or animation to ``path``."""
    folder.mkdir()
    path = folder / name
    path.write_bytes(EARLIER)
    made.clear()
    with pytest.raises(FileExistsError, match="the file exists") as exc:
        write(path, False)
    assert str(path) in str(exc.value)
    assert made == [], "a figure was made before the existing file was refused"
    assert path.read_bytes() == EARLIER and _holds(folder) == [name]
    missing = folder / "missing" / name
    with pytest.raises(ValueError, match=r"the folder .*missing' does not exist"):
        write(missing, False)
    assert made == [] and _holds(folder) == [name]  # nothing created
    write(path, True)
    assert made, "nothing was drawn"
    assert path.read_bytes()[: len(magic)] == magic and path.stat().st_size > 1000
    assert _holds(folder) == [name]  # replaced, no temporary left beside it


# ------------------------------------------------------------------ robodyn.sim.plot
@pytest.fixture(scope="module")
def arm_run():
    arm = rd.models.load("planar_2r")
    pd = rd.control.PD(arm, [0.5, -0.3], 20.0, 5.0)
    return arm, rd.simulate(arm, np.zeros(2), controller=pd, duration=0.4, dt=1e-2)


_SIM = {
    "plot_trajectory": lambda arm, tr, p, o: rd.sim.plot.plot_trajectory(tr, p, overwrite=o),
    "Trajectory.plot": lambda arm, tr, p, o: tr.plot(p, overwrite=o),
    "plot_energy": lambda arm, tr, p, o: rd.sim.plot.plot_energy(tr, p, overwrite=o),
    "plot_comparison": lambda arm, tr, p, o: rd.sim.plot.plot_comparison(
        {"PD": tr}, target=[0.5, -0.3], path=p, overwrite=o
    ),
    "plot_ellipses": lambda arm, tr, p, o: rd.sim.plot.plot_ellipses(
        arm, [[0.0, 0.5], [0.3, 1.2]], path=p, kind="force", overwrite=o
    ),
    "animate": lambda arm, tr, p, o: rd.sim.plot.animate(tr, p, fps=5, overwrite=o),
}


@pytest.mark.parametrize("writer", list(_SIM))
def test_sim_figures_refuse_an_existing_file_unless_overwrite(writer, arm_run, tmp_path, made):
    import robodyn.sim.plot  # noqa: F401  (rd.sim.plot)

    arm, tr = arm_run
    name = "run.gif" if writer == "animate" else "run.png"
    check_writer(lambda p, o: _SIM[writer](arm, tr, p, o), tmp_path / "f", name,
                 GIF if writer == "animate" else PNG, made)  # fmt: skip


# ------------------------------------------------------------------ robodyn.mobile.plot
@pytest.fixture(scope="module")
def mobile_runs():
    from robodyn import mobile

    dd = mobile.DiffDrive(wheel_radius=0.1, half_track=0.25)
    ref = mobile.circle(radius=1.0, speed=0.5)
    run = mobile.drive(dd, ref(0.0)[0] + [0.0, 0.2, 0.0], mobile.TrackingController(ref),
                       duration=1.0, dt=0.05)  # fmt: skip
    model, con = mobile.knife_edge_model()
    knife = rd.simulate(model, np.zeros(3), [0.5, 0.0, 0.2], duration=0.2, dt=0.01,
                        constraints=con)  # fmt: skip
    yb = mobile.youbot()
    c = np.array([0.3, 0.1, -0.2, 0.0, -0.3, -0.8, -0.9, 0.0, 0, 0, 0, 0])
    X0 = yb.ee_pose(c)
    X1 = X0.copy()
    X1[:3, 3] += [0.05, 0.02, 0.0]
    manip = mobile.track(yb, c, rd.trajectory.screw_trajectory(X0, X1, 0.3), dt=0.02, kp=5.0)
    return run, knife, manip


_MOBILE = {
    "plot_path": lambda r, k, m, p, o: rd.mobile.plot.plot_path({"dd": r}, p, overwrite=o),
    "plot_wheel_speeds": lambda r, k, m, p, o: rd.mobile.plot.plot_wheel_speeds(r, p, overwrite=o),
    "plot_tracking": lambda r, k, m, p, o: rd.mobile.plot.plot_tracking({"dd": r}, p, overwrite=o),
    "plot_manipulation": lambda r, k, m, p, o: rd.mobile.plot.plot_manipulation(m, p, overwrite=o),
    "plot_constraint_violation": lambda r, k, m, p, o: rd.mobile.plot.plot_constraint_violation(
        k, p, overwrite=o
    ),
    "animate": lambda r, k, m, p, o: rd.mobile.plot.animate(r, p, fps=4, overwrite=o),
}


@pytest.mark.parametrize("writer", list(_MOBILE))
def test_mobile_figures_refuse_an_existing_file_unless_overwrite(
    writer, mobile_runs, tmp_path, made
):
    import robodyn.mobile.plot  # noqa: F401  (rd.mobile.plot)

    name = "run.gif" if writer == "animate" else "run.png"
    check_writer(lambda p, o: _MOBILE[writer](*mobile_runs, p, o), tmp_path / "f", name,
                 GIF if writer == "animate" else PNG, made)  # fmt: skip


def test_mobile_demo_checks_its_folder_before_any_work(tmp_path, capsys, made):
    from robodyn.mobile.demo import figures, run_mobile_demo

    names = figures("unicycle", animate=False)
    (tmp_path / names[-1]).write_bytes(EARLIER)
    with pytest.raises(FileExistsError, match=names[-1]):
        run_mobile_demo("unicycle", tmp_path, animate=False)
    assert capsys.readouterr().out == "" and made == []  # nothing run, nothing drawn
    assert _holds(tmp_path) == [names[-1]] and (tmp_path / names[-1]).read_bytes() == EARLIER


def test_demo_checks_its_folder_before_any_work(tmp_path, capsys, made):
    from robodyn.cli.demo import run_demo

    (tmp_path / "dzhanibekov.png").write_bytes(EARLIER)  # the last figure it writes
    with pytest.raises(FileExistsError, match="dzhanibekov.png"):
        run_demo(tmp_path, robot="pendulum")
    assert capsys.readouterr().out == "" and made == []
    assert _holds(tmp_path) == ["dzhanibekov.png"]
    assert (tmp_path / "dzhanibekov.png").read_bytes() == EARLIER


# ------------------------------------------------------------------ robodyn.ident.plot
def test_identification_figure_refuses_an_existing_file_unless_overwrite(tmp_path, made):
    from robodyn.ident import excitation_trajectory, simulate_experiment
    from robodyn.ident.plot import plot_identification

    arm = rd.models.load("planar_2r")
    traj = excitation_trajectory(arm, period=2.0, harmonics=2, maxiter=0, seed=1)
    ex = simulate_experiment(arm, traj, duration=2.0, sample_dt=0.02)
    res = rd.identify(arm, ex.q, ex.v, ex.a, ex.tau)
    check_writer(lambda p, o: plot_identification(res, ex, p, overwrite=o), tmp_path / "f",
                 "fit.png", PNG, made)  # fmt: skip


# ------------------------------------------------------------------ Workspace
@pytest.mark.parametrize("writer", ["plot", "plot_slice"])
def test_workspace_figures_refuse_an_existing_file_unless_overwrite(writer, tmp_path, made):
    ws = rd.workspace(rd.models.load("ur5"), "ee", n=300, rng=0)
    draw = getattr(ws, writer)
    check_writer(lambda p, o: draw("manipulability", p, overwrite=o), tmp_path / "f", "ws.png",
                 PNG, made)  # fmt: skip


# ------------------------------------------------------------------ robodyn.rigidbody
def test_tumbling_figures_refuse_an_existing_file_unless_overwrite(tmp_path, made, monkeypatch):
    from robodyn import rigidbody

    res = rigidbody.simulate(np.diag([1.0, 2.0, 3.0]), np.eye(3), [0.01, 2, 0.01], 1.0, 1e-2)
    check_writer(lambda p, o: rigidbody.plot_tumbling(res, p, overwrite=o), tmp_path / "a",
                 "tumble.png", PNG, made)  # fmt: skip
    # the demo checks dzhanibekov.png in its folder before it simulates
    runs = []
    simulate = rigidbody.simulate
    monkeypatch.setattr(rigidbody, "simulate", lambda *a, **k: runs.append(1) or simulate(*a, **k))

    def demo(path, overwrite):
        assert path.name == "dzhanibekov.png"
        out = rigidbody.dzhanibekov_demo(path.parent, duration=1.0, dt=1e-2, overwrite=overwrite)
        assert out.figure == path

    check_writer(demo, tmp_path / "b", "dzhanibekov.png", PNG, made)
    assert runs == [1, 1]  # lie_rk4 and explicit Euler once: the refused calls ran nothing


# ------------------------------------------------------------------ robodyn.mr
def test_mr_simulate_control_refuses_an_existing_plot_unless_overwrite(tmp_path, made):
    from robodyn import mr

    # one revolute joint about z, a 1 kg link 0.5 m out along x (MR's Mlist, Glist, Slist)
    M01 = np.eye(4)
    M01[0, 3] = 0.5
    Mlist = np.array([M01, np.eye(4)])
    Glist = np.array([np.diag([0.02, 0.02, 0.02, 1.0, 1.0, 1.0])])
    Slist = np.array([[0.0], [0.0], [1.0], [0.0], [0.0], [0.0]])
    N = 20
    thd = np.linspace(0.0, 0.5, N)[:, None]
    args = (np.zeros(1), np.zeros(1), [0, 0, -9.81], np.zeros((N, 6)), Mlist, Glist, Slist,
            thd, np.zeros((N, 1)), np.zeros((N, 1)), [0, 0, -9.81], Mlist, Glist,
            20.0, 1.0, 8.0, 0.01, 2)  # fmt: skip
    check_writer(lambda p, o: mr.SimulateControl(*args, plot=p, overwrite=o), tmp_path / "f",
                 "control.png", PNG, made)  # fmt: skip


# ------------------------------------------------------------------ robodyn.bench
def test_bench_plot_refuses_an_existing_file_unless_overwrite(tmp_path, made):
    from robodyn.bench import write_plot

    result = {"latency": [], "batch": []}  # no rows: one panel saying so
    check_writer(lambda p, o: write_plot(result, p, overwrite=o), tmp_path / "f", "bench.png",
                 PNG, made)  # fmt: skip


# ------------------------------------------------------------------ robodyn._files.save_figure
def _small_figure():
    fig = Figure(figsize=(3, 2))
    ax = fig.add_subplot()
    ax.plot([0, 1], [0, 1])
    return fig


def test_save_figure_writes_the_path_it_was_given_whole(tmp_path, monkeypatch):
    from robodyn._files import save_figure

    # no suffix: matplotlib's savefig would write "fig.png"; the file is "fig" (PNG)
    assert save_figure(_small_figure(), tmp_path / "fig") == tmp_path / "fig"
    assert (tmp_path / "fig").read_bytes()[:8] == PNG and _holds(tmp_path) == ["fig"]
    # the suffix says the format
    save_figure(_small_figure(), tmp_path / "fig.svg")
    assert b"<svg" in (tmp_path / "fig.svg").read_bytes()[:500]
    # a suffix matplotlib cannot write: ValueError naming the path, nothing written
    with pytest.raises(ValueError, match=r"path '.*fig\.xyz': matplotlib writes no 'xyz'"):
        save_figure(_small_figure(), tmp_path / "fig.xyz")
    assert _holds(tmp_path) == ["fig", "fig.svg"]
    # a writer that fails half-way leaves the old file as it was, and no temporary
    fig = _small_figure()

    def dies(fname, **kwargs):
        with open(fname, "wb") as fh:
            fh.write(b"half")
        raise RuntimeError("the writer died")

    monkeypatch.setattr(fig, "savefig", dies)
    with pytest.raises(RuntimeError, match="died"):
        save_figure(fig, tmp_path / "fig.svg", overwrite=True)
    assert b"<svg" in (tmp_path / "fig.svg").read_bytes()[:500]
    assert _holds(tmp_path) == ["fig", "fig.svg"]
    # a symbolic link at the path is replaced by the figure, its target left alone
    target = tmp_path / "target.png"
    target.write_bytes(EARLIER)
    (tmp_path / "link.png").symlink_to(target)
    with pytest.raises(FileExistsError, match="symbolic link"):
        save_figure(_small_figure(), tmp_path / "link.png")
    save_figure(_small_figure(), tmp_path / "link.png", overwrite=True)
    assert not (tmp_path / "link.png").is_symlink() and target.read_bytes() == EARLIER
