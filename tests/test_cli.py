"""The command line: one --help listing every subcommand, and each subcommand's output."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from robodyn.cli import main

SUBCOMMANDS = ["demo", "info", "fk", "check", "bench", "derive"]


def test_help_lists_every_subcommand():
    out = subprocess.run(
        [sys.executable, "-m", "robodyn.cli", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for name in SUBCOMMANDS:
        assert name in out


def test_info_prints_tree_and_sizes(capsys):
    assert main(["info", "planar_2r"]) == 0
    out = capsys.readouterr().out
    assert "nq = 2, nv = 2" in out
    assert "total mass = 8 kg" in out  # m1 + m2 = 5 + 3 (course notes 003)


def test_fk_prints_the_book_pose(capsys):
    # planar 2R at q = (pi/2, -pi/2): tip at (l2, l1) = (0.4, 0.5) with l1 = 0.5, l2 = 0.4
    from robodyn import models

    model = models.load("planar_2r")
    tip = model.frame_names[-1]
    assert main(["fk", "planar_2r", "--q", str(np.pi / 2), str(-np.pi / 2), "--frame", tip]) == 0
    out = capsys.readouterr().out
    rows = [r for r in out.replace("[", " ").replace("]", " ").splitlines()[1:] if r.strip()]
    T = np.array([[float(x) for x in r.split()] for r in rows])
    np.testing.assert_allclose(T[:2, 3], [0.4, 0.5], atol=1e-6)


def test_check_reports_findings(tmp_path, capsys):
    urdf = tmp_path / "bad.urdf"
    urdf.write_text(
        """<robot name="r"><link name="base"/><link name="l1"/>
        <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
        <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
        </robot>"""
    )
    code = main(["check", str(urdf)])
    out = capsys.readouterr().out
    assert "l1" in out and "massless" in out.lower()
    assert code == 1


def test_errors_are_reported_not_raised(capsys):
    assert main(["info", "no_such_robot"]) == 2
    assert "no_such_robot" in capsys.readouterr().err


@pytest.mark.parametrize("robot", ["planar_2r"])
def test_demo_runs_and_writes_figures(tmp_path, robot, capsys):
    assert main(["demo", "--out", str(tmp_path), "--robot", robot]) == 0
    out = capsys.readouterr().out
    assert "forward dynamics recovers a to" in out
    assert (tmp_path / "gravity_torques.png").stat().st_size > 1000
    assert (tmp_path / "dzhanibekov.png").stat().st_size > 1000


def test_bench_options_reach_the_benchmark(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "--models" in out and "--quick" in out
