"""Figures and animations of robodyn.sim.plot: readable (the audit of tests/conftest.py's
figure_problems), drawn from the right numbers (ellipses against eigen-decompositions made
here from rd.mass_matrix and rd.jacobian), and animations with the frames they promise."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.patches import Ellipse

import robodyn as rd
from robodyn.sim import plot


@pytest.fixture(scope="module")
def arm():
    return rd.models.load("planar_2r")


@pytest.fixture(scope="module")
def runs(arm):
    q_d = np.radians([45.0, 30.0])
    ctrls = {
        "PD": rd.control.PD(arm, q_d, np.diag([50.0, 30.0]), np.diag([10.0, 5.0])),
        "PD + gravity": rd.control.PD(arm, q_d, 50.0, 10.0, gravity_compensation=True),
        "computed torque": rd.control.ComputedTorque(arm, q_d, kp=100.0, kd=20.0),
    }
    return q_d, {k: rd.simulate(arm, np.zeros(2), controller=c, duration=2.0, dt=1e-3)
                 for k, c in ctrls.items()}  # fmt: skip


def test_trajectory_figure_is_readable_with_its_reference(arm, runs, tmp_path):
    from helpers import figure_problems

    q_d, res = runs
    fig = plot.plot_trajectory(res["PD"], tmp_path / "pd.png", reference=q_d)
    assert figure_problems(fig) == []
    labels = [ax.get_ylabel() for ax in fig.axes]
    assert labels == ["position (rad, m)", "velocity (rad/s, m/s)", "joint force (N m, N)",
                      "tracking error q_d - q (rad, m)"]  # fmt: skip
    err = fig.axes[3].get_lines()[0].get_ydata()
    assert np.allclose(err, q_d[0] - res["PD"].q[:, 0])
    assert (tmp_path / "pd.png").stat().st_size > 10_000
    ref = rd.trajectory.joint_trajectory([0.0, 0.0], q_d, 1.0)
    fig = res["computed torque"].plot(reference=ref, what=("q", "error"))
    assert figure_problems(fig) == []
    with pytest.raises(ValueError, match="what"):
        plot.plot_trajectory(res["PD"], what=("jerk",))


def test_energy_and_comparison_figures(arm, runs, tmp_path):
    from helpers import figure_problems

    q_d, res = runs
    fall = rd.simulate(arm, np.zeros(2), duration=1.0, dt=1e-3)
    fig = plot.plot_energy(fall, tmp_path / "energy.png")
    assert figure_problems(fig) == []
    total = fig.axes[0].get_lines()[2].get_ydata()
    assert np.allclose(total, fall.energy())
    fig = plot.plot_comparison(res, target=q_d, path=tmp_path / "cmp.png")
    assert figure_problems(fig) == []
    assert len(fig.axes) == 4 and "deg" in fig.axes[0].get_ylabel()  # rows: joints
    # the error curve of each controller is q_d - q in degrees
    lines = fig.axes[0].get_lines()
    pd = next(ln for ln in lines if ln.get_label() == "PD")
    assert np.allclose(pd.get_ydata(), np.degrees(q_d[0] - res["PD"].q[:, 0]))


def test_torque_ellipses_are_the_eigen_decomposition_of_M(arm):
    qs = np.radians([[0.0, 0.0], [0.0, 90.0], [30.0, 180.0]])
    fig = plot.plot_ellipses(arm, qs, kind="torque")
    ells = [p for p in fig.axes[0].patches if isinstance(p, Ellipse)]
    assert len(ells) == 3
    for e, q in zip(ells, qs):
        M = rd.mass_matrix(arm, q)
        w, U = np.linalg.eigh(M)  # {M a : |a| = 1}: semi-axes w_i along U[:, i]
        assert e.width == pytest.approx(2 * w[1]) and e.height == pytest.approx(2 * w[0])
        d = np.array([np.cos(np.radians(e.angle)), np.sin(np.radians(e.angle))])
        assert abs(d @ U[:, 1]) == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError, match="2-dof"):
        plot.plot_ellipses(rd.models.load("ur5"), np.zeros((1, 6)))


def test_force_ellipses_are_lambda_from_j_and_m(arm):
    qs = np.radians([[0.0, 30.0], [45.0, 90.0], [-30.0, 120.0]])
    fig = plot.plot_ellipses(arm, qs, kind="force", scale=0.01)
    from helpers import figure_problems

    assert figure_problems(fig) == []
    ells = [p for p in fig.axes[0].patches if isinstance(p, Ellipse)]
    tip = arm.frame_names[-1]
    for e, q in zip(ells, qs):
        # Lambda = (J M^-1 J^T)^-1 from the world-aligned x, y rows of J, built here
        J = rd.jacobian(arm, q, tip, kind="world_aligned")[3:5]
        Lam = np.linalg.inv(J @ np.linalg.solve(rd.mass_matrix(arm, q), J.T))
        w, U = np.linalg.eigh(Lam)
        assert e.width == pytest.approx(2 * 0.01 * w[1], rel=1e-9)
        assert e.height == pytest.approx(2 * 0.01 * w[0], rel=1e-9)
        assert np.allclose(e.center, rd.fk(arm, q, tip)[:2, 3])
        d = np.array([np.cos(np.radians(e.angle)), np.sin(np.radians(e.angle))])
        assert abs(d @ U[:, 1]) == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("name", ["planar_2r", "ur5"])
def test_animations_have_the_promised_frames(name, tmp_path):
    from PIL import Image

    model = rd.models.load(name)
    q0 = np.zeros(model.nq) + 0.3
    res = rd.simulate(model, q0, duration=1.0, dt=1e-3)
    out = plot.animate(res, tmp_path / "run.gif", fps=12)
    with Image.open(out) as im:
        assert im.n_frames == 13  # 0, 1/12, ..., 1 s
        assert im.size[0] > 200
    # a floating base is drawn in 3-D too
    from helpers import erd_path

    fb = rd.load_urdf(erd_path("ur_description/urdf/ur5_robot.urdf"), floating_base=True)
    fall = rd.simulate(fb, rd.neutral(fb), duration=0.5, dt=1e-3)
    with Image.open(plot.animate(fall, tmp_path / "fb.gif", fps=10)) as im:
        assert im.n_frames == 6


def test_animation_errors_are_clear(arm, tmp_path):
    res = rd.simulate(arm, np.zeros(2), duration=0.1, dt=1e-2)
    with pytest.raises(ValueError, match=r"\.gif or \.mp4"):
        plot.animate(res, tmp_path / "run.avi")
    from matplotlib import animation

    if not animation.writers.is_available("ffmpeg"):
        with pytest.raises(ValueError, match="ffmpeg.*gif"):
            plot.animate(res, tmp_path / "run.mp4")
    else:
        assert plot.animate(res, tmp_path / "run.mp4").stat().st_size > 0
    res.model = None
    with pytest.raises(ValueError, match="needs the model"):
        plot.animate(res, tmp_path / "run.gif")
