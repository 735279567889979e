"""The command line: one --help listing every subcommand, and each subcommand's output."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from robodyn import models
from robodyn.cli import EXIT_BROKEN_PIPE, build_parser, main

SUBCOMMANDS = ["demo", "info", "fk", "check", "bench", "derive", "simulate", "timeopt"]


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
    from robodyn.cli.demo import figures

    out_dir = tmp_path / "new"  # one new folder in an existing one is created
    assert main(["demo", "--out", str(out_dir), "--robot", robot]) == 0
    out = capsys.readouterr().out
    assert "forward dynamics recovers a to" in out
    assert "computed torque: max tracking error" in out and "free fall 1 s, RK4" in out
    names = ("gravity_torques.png", "dzhanibekov.png", "tracking.png", "energy.png")
    for name in names:
        assert (out_dir / name).stat().st_size > 1000
    # the list the overwrite check reads is what the demo wrote
    assert sorted(os.listdir(out_dir)) == sorted(figures(models.load(robot))) == sorted(names)


def test_bench_options_reach_the_benchmark(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "--models" in out and "--quick" in out


# ------------------------------------------------------------------ ROBOT: a name or a path
# A one-link arm: pivot 0.3 m above the base about y, 2 kg with its CoM 0.5 m out along x,
# a tip frame 1 m out along x.
ARM_URDF = """<robot name="arm"><link name="base"/>
<link name="arm"><inertial><origin xyz="0.5 0 0"/><mass value="2"/>
<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
<link name="tip"/>
<joint name="pivot" type="revolute"><parent link="base"/><child link="arm"/>
<origin xyz="0 0 0.3"/><axis xyz="0 1 0"/>
<limit lower="-2" upper="2" effort="5" velocity="3"/></joint>
<joint name="tip_joint" type="fixed"><parent link="arm"/><child link="tip"/>
<origin xyz="1 0 0"/></joint></robot>
"""


@pytest.fixture
def arm_urdf(tmp_path):
    path = tmp_path / "arm.urdf"
    path.write_text(ARM_URDF)
    return path


def _matrix(text: str) -> np.ndarray:
    rows = [r for r in text.replace("[", " ").replace("]", " ").splitlines() if r.strip()]
    return np.array([[float(x) for x in r.split()] for r in rows])


def test_fk_of_a_urdf_path(arm_urdf, capsys):
    # R_y(pi/2) maps x to -z: the tip, 1 m out along x, sits at (0, 0, 0.3 - 1)
    assert main(["fk", str(arm_urdf), "--q", str(np.pi / 2), "--frame", "tip"]) == 0
    T = _matrix(capsys.readouterr().out.split(":", 1)[1])
    R_y = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])
    np.testing.assert_allclose(T[:3, :3], R_y, atol=1e-6)
    np.testing.assert_allclose(T[:3, 3], [0.0, 0.0, -0.7], atol=1e-6)


def test_check_accepts_a_bundled_name(capsys):
    # used to read "ur5" as URDF text: "neither XML nor an existing file ... fix the XML"
    assert main(["check", "ur5"]) == 0
    out = capsys.readouterr().out
    assert "'ur5'" in out and "0 error(s)" in out
    assert "XML" not in out


def test_derive_accepts_a_bundled_name_and_a_path(arm_urdf, capsys):
    import sympy as sp

    # pendulum, m = 1 kg at l = 1 m, gravity along -y: g(q) = m g l sin(q)
    assert main(["derive", "pendulum"]) == 0
    out = capsys.readouterr().out
    g = sp.sympify(next(r for r in out.splitlines() if "g[1] =" in r).split("=", 1)[1])
    assert float(g.subs("q1", 0.3)) == pytest.approx(9.81 * np.sin(0.3), rel=1e-12)
    # the arm: CoM at (0.5 cos q, 0, 0.3 - 0.5 sin q), V = m g z, g(q) = dV/dq = -m g 0.5 cos q
    assert main(["derive", str(arm_urdf)]) == 0
    out = capsys.readouterr().out
    g = sp.sympify(next(r for r in out.splitlines() if "g[1] =" in r).split("=", 1)[1])
    assert float(g.subs("q1", 0.3)) == pytest.approx(-2 * 9.81 * 0.5 * np.cos(0.3), rel=1e-12)


def test_info_of_a_path_on_a_floating_base(arm_urdf, capsys):
    assert main(["info", str(arm_urdf)]) == 0
    assert "nq = 1, nv = 1" in capsys.readouterr().out
    assert main(["info", str(arm_urdf), "--floating-base"]) == 0
    out = capsys.readouterr().out
    assert "nq = 8, nv = 7" in out and "free joint" in out
    assert main(["info", "ur5", "--floating-base"]) == 2
    assert "--floating-base" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["info", "no_such_robot"],
        ["fk", "no_such_robot"],
        ["check", "no_such_robot"],
        ["derive", "no_such_robot"],
        ["demo", "--robot", "no_such_robot"],
        ["info", "/no/such/folder/robot.urdf"],
        ["check", "/no/such/folder/robot.urdf"],
    ],
)
def test_unknown_robot_is_one_line_listing_the_bundled_robots(argv, tmp_path, capsys):
    if argv[0] == "demo":
        argv = [*argv, "--out", str(tmp_path)]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert "\n" not in err and argv[-1 if argv[0] != "demo" else 2] in err
    for name in models.names():
        assert name in err


def test_a_folder_is_not_a_robot(tmp_path, capsys):
    assert main(["fk", str(tmp_path)]) == 2
    assert "folder" in capsys.readouterr().err


# ------------------------------------------------------------------ info
def test_info_shows_absent_limits_as_none(arm_urdf, capsys):
    # the bundled pendulum has no limits at all; the arm has every limit
    assert main(["info", "pendulum"]) == 0
    out = capsys.readouterr().out
    row = next(r for r in out.splitlines() if r.strip().startswith("pivot"))
    assert row.split()[1:] == ["none", "none", "none", "none"]
    assert "inf" not in out and "nan" not in out
    assert main(["info", str(arm_urdf)]) == 0
    row = next(r for r in capsys.readouterr().out.splitlines() if r.strip().startswith("pivot"))
    assert [float(x) for x in row.split()[1:]] == [-2.0, 2.0, 3.0, 5.0]


# ------------------------------------------------------------------ derive: outputs first
@pytest.mark.parametrize("option", ["--latex", "--python"])
def test_derive_checks_output_paths_before_any_work(option, tmp_path, capsys):
    missing = tmp_path / "no" / "such" / "dir" / "x.out"
    assert main(["derive", "pendulum", option, str(missing)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing derived, nothing printed
    assert option in captured.err and str(missing) in captured.err
    assert "\n" not in captured.err.strip()
    # a folder given as the file
    assert main(["derive", "pendulum", option, str(tmp_path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and option in captured.err


def test_derive_checks_the_second_output_before_writing_the_first(tmp_path, capsys):
    tex = tmp_path / "eom.tex"
    bad = tmp_path / "missing" / "eom.py"
    assert main(["derive", "pendulum", "--latex", str(tex), "--python", str(bad)]) == 2
    assert "--python" in capsys.readouterr().err
    assert not tex.exists()


def test_bench_checks_output_paths_before_timing(tmp_path, capsys):
    bad = tmp_path / "missing" / "bench.json"
    assert main(["bench", "--quick", "--json", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "--json" in captured.err and str(bad) in captured.err


# ------------------------------------------------------------------ help text everywhere
def _walk(parser: argparse.ArgumentParser, where: str):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield f"{where} COMMAND", action
            for choice in action._choices_actions:
                yield f"{where} {choice.dest}", choice
            for name, sub in action.choices.items():
                yield from _walk(sub, f"{where} {name}")
        else:
            yield f"{where} {'/'.join(action.option_strings) or action.dest}", action


def test_every_option_and_subcommand_has_help():
    from robodyn.bench.main import _parser as bench_parser

    actions = [*_walk(build_parser(), "robodyn"), *_walk(bench_parser(), "robodyn bench")]
    assert len(actions) > 30  # the walk reached the subcommands and the benchmark
    undocumented = [
        where
        for where, action in actions
        if action.help is None or action.help == argparse.SUPPRESS or not action.help.strip()
    ]
    assert undocumented == []


# ------------------------------------------------------------------ a closed pipe
def test_broken_pipe_status_is_that_of_sigpipe():
    assert EXIT_BROKEN_PIPE == 128 + 13  # 141, the status of `yes | head` in a shell


def _run_into_closed_pipe(args: list[str]) -> subprocess.CompletedProcess:
    """Run ``python -m robodyn.cli ARGS`` with stdout a pipe whose reader has gone.

    The read end is closed before the child starts, so every write the child makes meets
    the closed pipe: what ``| head -2`` does to the part of the output that comes after the
    second line, without depending on how fast ``head`` reads.
    """
    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.run(
            [sys.executable, "-m", "robodyn.cli", *args],
            stdout=w,
            stderr=subprocess.PIPE,
            text=True,
            timeout=600,
        )
    finally:
        os.close(w)


# argparse drops a --help it cannot write and exits 0.
@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["fk", "panda"], EXIT_BROKEN_PIPE),
        (["info", "panda"], EXIT_BROKEN_PIPE),
        (["check", "ur5"], EXIT_BROKEN_PIPE),
        (["derive", "pendulum"], EXIT_BROKEN_PIPE),
        (
            ["bench", "--quick", "--only", "latency", "--models", "ur5", "--no-progress"],
            EXIT_BROKEN_PIPE,
        ),
        (["demo", "--robot", "pendulum", "--out", "{tmp}"], EXIT_BROKEN_PIPE),
        (["--help"], 0),
        (["bench", "--help"], 0),
    ],
)
def test_a_closed_pipe_ends_quietly(args, status, tmp_path):
    proc = _run_into_closed_pipe([a.replace("{tmp}", str(tmp_path)) for a in args])
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr, proc.stderr
    assert proc.stderr == ""
    assert proc.returncode == status


def test_a_pipe_read_to_its_end_exits_0():
    proc = subprocess.run(
        [sys.executable, "-m", "robodyn.cli", "fk", "panda"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.startswith("world:\n")


# ------------------------------------------------------------------ check --fix
_ARM = """<robot name="r"><link name="base"/>
<link name="l1">{l1}<collision><geometry><box size="0.1 0.2 0.3"/></geometry></collision></link>
<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
<axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
<link name="l2">{l2}</link>
<joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>
<origin xyz="0 0 0.3"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="1" velocity="1"/>
</joint></robot>"""
# a 1 kg box 0.1 x 0.2 x 0.3 m: I = m/12 (b^2 + c^2, a^2 + c^2, a^2 + b^2)
_GOOD = (
    '<inertial><mass value="1"/><inertia ixx="0.010833333" ixy="0" ixz="0" iyy="0.0083333333" '
    'iyz="0" izz="0.0041666667"/></inertial>'
)


def test_check_fix_says_exactly_what_it_changed(tmp_path, capsys):
    # l2: a CAD export 0.4 % off the triangle inequality, no collision geometry
    bad = '<inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.0201"/></inertial>'  # noqa: E501
    src = tmp_path / "arm.urdf"
    src.write_text(_ARM.format(l1=_GOOD, l2=bad))
    out = tmp_path / "fixed.urdf"
    assert main(["check", str(src), "--fix", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"wrote {out}: 1 change(s)" in text
    assert (
        "changed: link 'l2': inertia not physical (principal moments [0.01   0.01   0.0201])"
        in text
    )
    assert "nearest physical tensor" in text and "not fixed" not in text
    # I1 + I2 raised to I3: each of the two small moments by half the 0.0001 deficit
    import pinocchio as pin

    from robodyn.model.urdf import load_urdf

    fixed = load_urdf(out, strict=True)  # no warning left
    np.testing.assert_allclose(np.diag(fixed.body_inertia[2]), [0.01005, 0.01005, 0.0201])
    pm = pin.buildModelFromUrdf(str(out))  # Pinocchio parses the written file
    np.testing.assert_allclose(pm.inertias[2].inertia, np.diag([0.01005, 0.01005, 0.0201]))


def test_check_fix_with_nothing_to_correct_says_so(tmp_path, capsys):
    src = tmp_path / "arm.urdf"
    src.write_text(_ARM.format(l1=_GOOD, l2=_GOOD))
    out = tmp_path / "copy.urdf"
    assert main(["check", str(src), "--fix", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"wrote {out}: nothing to correct" in text and "changed:" not in text
    assert "corrected" not in text


def test_check_fix_exits_non_zero_when_errors_remain(tmp_path, capsys):
    # l2 moves nothing with mass and has no collision primitive to compute an inertia from
    src = tmp_path / "arm.urdf"
    src.write_text(_ARM.format(l1=_GOOD, l2=""))
    out = tmp_path / "still_bad.urdf"
    assert main(["check", str(src), "--fix", str(out)]) == 1
    text = capsys.readouterr().out
    assert f"wrote {out}: nothing to correct" in text
    assert "not fixed: link 'l2': inertia missing on a massless moving subtree" in text
    assert "error(s) remain" in text and "changed:" not in text
    # a bundled robot is not a file to correct
    assert main(["check", "ur5", "--fix", str(tmp_path / "x.urdf")]) == 2
    assert "--fix corrects a URDF file" in capsys.readouterr().err


def test_derive_writes_latex_and_code_that_computes_the_dynamics(tmp_path, capsys):
    # robodyn derive end to end: the generated module's inverse dynamics and mass matrix
    # equal the numeric RNEA and CRBA of the same bundled model
    import importlib.util

    import robodyn as rd

    tex, py = tmp_path / "rp.tex", tmp_path / "rp_dynamics.py"
    assert main(["derive", "rp_arm", "--latex", str(tex), "--python", str(py)]) == 0
    assert "M" in capsys.readouterr().out
    assert "\\begin" in tex.read_text() or "\\\\" in tex.read_text()
    spec = importlib.util.spec_from_file_location("rp_dynamics", py)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    model = models.load("rp_arm")
    rng = np.random.default_rng(3)
    for _ in range(5):
        q, v, a = rng.normal(size=(3, 2))
        want = rd.inverse_dynamics(model, q, v, a, friction=False, armature=False)
        np.testing.assert_allclose(mod.inverse_dynamics(q, v, a), want, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(
            mod.M(q), rd.mass_matrix(model, q, armature=False), rtol=1e-10, atol=1e-12
        )


# ------------------------------------------------------------------ simulate
def test_simulate_plots_and_animates(tmp_path, capsys):
    from PIL import Image

    png, gif = tmp_path / "run.png", tmp_path / "run.gif"
    target = ["0.5", "-0.5", "0.5", "0", "0.3", "0"]
    argv = ["simulate", "ur5", "--controller", "computed-torque", "--target", *target,
            "--duration", "1", "--plot", str(png), "--animate", str(gif)]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert f"figure: {png}" in out and f"animation: {gif}" in out
    assert png.stat().st_size > 10_000
    with Image.open(gif) as im:
        assert im.n_frames == 31  # 1 s at 30 frames per second, both ends


def test_simulate_writes_what_it_simulated(tmp_path, capsys):
    import robodyn as rd

    out, csv = tmp_path / "run.npz", tmp_path / "run.csv"
    argv = ["simulate", "planar_2r", "--controller", "gravity-pd", "--target", "0.7", "0.5",
            "--duration", "3", "--out", str(out), "--csv", str(csv)]  # fmt: skip
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "|target - q(end)| max" in text and f"trajectory: {out}" in text
    res = rd.Trajectory.load(out)
    assert res.q.shape == (3001, 2) and res.meta["controller"] == "pd+gravity"
    # the same run from Python
    arm = rd.models.load("planar_2r")
    # the CLI's default gains: 10 rad/s, critically damped, from M's diagonal at q0
    kp, kd = rd.control.gains_for(arm, 1.0, 10.0, q=np.zeros(2))
    ctrl = rd.control.PD(arm, [0.7, 0.5], kp, kd, gravity_compensation=True)
    again = rd.simulate(arm, np.zeros(2), controller=ctrl, duration=3.0, dt=1e-3)
    assert np.array_equal(res.q, again.q)
    assert np.allclose(res.q[-1], [0.7, 0.5], atol=1e-6)
    assert np.loadtxt(csv, delimiter=",", skiprows=1).shape == (3001, 9)


@pytest.mark.parametrize(
    "argv, match",
    [
        (["--controller", "pd"], "needs --target"),
        (["--controller", "pd", "--target", "1", "2", "3"], "--target takes 2 numbers"),
        (["--dt", "0"], "argument --dt: must be > 0"),
        (["--duration", "1", "--dt", "0.3"], "whole number of steps"),
        (["--out", "/no/such/folder/run.npz"], "--out '/no/such/folder/run.npz'"),
        (["--controller", "force"], "needs a robot of six joints or more"),
        (["--environment", "table", "--frame", "nope"], "--frame: no frame named 'nope'"),
    ],
)
def test_simulate_bad_arguments_are_one_line(argv, match, capsys):
    try:
        code = main(["simulate", "planar_2r", *argv])
    except SystemExit as exc:  # argparse's own checks (type=) exit from the parser
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and match in err, err


PANDA_PRESS = ["0", "-0.785", "0", "-2.356", "0", "1.571", "0.785"]  # the tool points down


def test_simulate_presses_a_table_with_force_control(tmp_path, capsys):
    """--controller force on the default table: the contact force ends at --press (the
    integral action along the press), recorded in the trajectory file."""
    import robodyn as rd

    out = tmp_path / "press.npz"
    argv = ["simulate", "panda", "--controller", "force", "--q0", *PANDA_PRESS, "--duration",
            "1.5", "--press", "12", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "|normal force - press| / press" in text
    res = rd.Trajectory.load(out)
    assert res.contact_force.shape == (1501, 1, 3)
    np.testing.assert_allclose(res.contact_force[-1, 0, 2], 12.0, rtol=1e-3)
    assert res.meta["environment"]["shapes"][0]["kind"] == "plane"


@pytest.mark.parametrize("law", ["hybrid", "impedance", "admittance"])
def test_simulate_runs_the_other_force_laws_against_the_table(law, capsys):
    assert main(["simulate", "panda", "--controller", law, "--q0", *PANDA_PRESS,
                 "--duration", "0.5"]) == 0  # fmt: skip
    text = capsys.readouterr().out
    force = re.search(r"contact force \(end\) = \[(.*)\] N", text).group(1).split()
    assert float(force[-1]) > 1.0  # pressing on the table


def test_simulate_a_diverging_run_exits_1_with_the_partial_saved(tmp_path, capsys):
    import robodyn as rd

    out = tmp_path / "bad.npz"
    argv = ["simulate", "planar_2r", "--controller", "pd", "--target", "1", "1", "--kp", "1e6",
            "--kd", "0", "--integrator", "euler", "--dt", "0.01", "--out", str(out)]  # fmt: skip
    assert main(argv) == 1
    err = capsys.readouterr().err.splitlines()
    # a warning before the run (the step is unstable for these gains), then one line: what
    # ran away, why, and where the samples are (a CLI user cannot reach err.partial)
    assert len(err) == 2 and "SimulationWarning: simulate('planar_2r'): euler is" in err[0]
    # (step 8's acceleration overflows: the core refuses it, so the samples are 0..7)
    assert "diverged: the velocity of joint 'joint1' ran away" in err[1]
    assert err[1].endswith(f"The 8 samples before it are in {out}")
    assert "err.partial" not in err[1]
    part = rd.Trajectory.load(out)
    assert part.meta["complete"] is False and np.all(np.isfinite(part.q)) and len(part) == 8
    assert np.all(np.isfinite(part.a))


# ------------------------------------------------------------------ outputs: one policy
# README, "Command line": an output's folder must exist (a folder option creates its last
# folder only, its default wholly), checked before any work; an existing file is kept
# unless --force; one line on stderr, exit 2, naming the option.
# Each entry: argv ({t}: tmp_path, {arm}: a URDF file), the option named, whether the
# output is a folder.
_WRITERS = [
    (["demo", "--robot", "pendulum", "--out", "{out}"], "--out", "dir"),
    (["mobile", "unicycle", "--out", "{out}"], "--out", "dir"),
    (["derive", "pendulum", "--latex", "{out}.tex"], "--latex", "file"),
    (["derive", "pendulum", "--python", "{out}.py"], "--python", "file"),
    (["bench", "--quick", "--only", "latency", "--json", "{out}.json"], "--json", "file"),
    (["bench", "--quick", "--only", "latency", "--plot", "{out}.png"], "--plot", "file"),
    (["bench", "--quick", "--only", "latency", "--markdown", "{out}.md"], "--markdown", "file"),
    (["identify", "planar_2r", "--simulate", "{out}.csv"], "--simulate", "file"),
    (["identify", "planar_2r", "--simulate", "{t}/d.csv", "--plot", "{out}.png"], "--plot", "file"),
    (["sweep", "workspace", "planar_2r", "--out", "{out}.zarr"], "--out", "store"),
    (["sweep", "montecarlo", "planar_2r", "--out", "{out}.zarr"], "--out", "store"),
    (["view", "pendulum", "--out", "{out}.html"], "--out", "file"),
    (["check", "{arm}", "--fix", "{out}.urdf"], "--fix", "file"),
    (
        [
            "timeopt",
            "pendulum",
            "--via",
            "0",
            "--via",
            "0.3",
            "--tau-max",
            "5",
            "--out",
            "{out}.png",
        ],
        "--out",
        "file",
    ),
]
_IDS = [" ".join([*(x for x in a[:2] if x[0] not in "{-"), o]) for a, o, _ in _WRITERS]


def _argv(argv, tmp_path, out, arm):
    return [a.format(t=tmp_path, out=out, arm=arm) for a in argv]


def _tree(path):
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))


@pytest.mark.parametrize(("argv", "option", "kind"), _WRITERS, ids=_IDS)
def test_no_output_folder_tree_is_created(argv, option, kind, tmp_path, arm_urdf, capsys):
    missing = tmp_path / "a" / "b" / "c"
    argv = _argv(argv, tmp_path, missing, arm_urdf)
    before = _tree(tmp_path)
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no work done
    err = captured.err.strip()
    assert "\n" not in err and option in err and str(tmp_path / "a" / "b") in err, err
    assert _tree(tmp_path) == before  # nothing created


@pytest.mark.parametrize(("argv", "option", "kind"), _WRITERS, ids=_IDS)
def test_an_existing_output_is_kept_without_force(argv, option, kind, tmp_path, arm_urdf, capsys):
    out = tmp_path / "out"
    argv = _argv(argv, tmp_path, out, arm_urdf)
    target = argv[argv.index(option) + 1]
    if kind == "dir":  # one file of an earlier run in the folder
        from robodyn.cli.demo import figures as demo_figures
        from robodyn.mobile.demo import figures as mobile_figures

        out.mkdir()
        name = (demo_figures(models.load("pendulum")) if argv[0] == "demo"
                else mobile_figures("unicycle"))[-1]  # fmt: skip
        old = out / name
    elif kind == "store":
        os.mkdir(target)
        old = tmp_path / "out.zarr" / "zarr.json"
    else:
        old = tmp_path / target
    old.write_bytes(b"an earlier run")
    before = _tree(tmp_path)
    assert main(argv) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert captured.out == "" and "\n" not in err and option in err, err
    assert ("--resume" if kind == "store" else "--force") in err
    assert old.read_bytes() == b"an earlier run" and _tree(tmp_path) == before


def test_force_overwrites_atomically_and_leaves_no_temporary_file(tmp_path, arm_urdf, capsys):
    tex, py, html, urdf = (tmp_path / n for n in ("eom.tex", "eom.py", "v.html", "f.urdf"))
    for path in (tex, py, html, urdf):
        path.write_text("an earlier run")
    argv = ["derive", "pendulum", "--latex", str(tex), "--python", str(py)]
    assert main(argv) == 2
    assert main([*argv, "--force"]) == 0
    assert main(["view", "pendulum", "--out", str(html), "--force"]) == 0
    assert main(["check", str(arm_urdf), "--fix", str(urdf), "--force"]) == 0
    assert f"LaTeX written to {tex}" in capsys.readouterr().out
    assert "\\[" in tex.read_text() and "def inverse_dynamics" in py.read_text()
    assert html.read_text().startswith("<!DOCTYPE html>") and "<robot" in urdf.read_text()
    assert _tree(tmp_path) == sorted(["arm.urdf", "eom.py", "eom.tex", "f.urdf", "v.html"])


def test_atomic_output_shows_the_file_whole_or_not_at_all(tmp_path):
    from robodyn.cli import atomic_output

    target = tmp_path / "r.json"
    target.write_text("old")
    with pytest.raises(RuntimeError, match="writer died"):
        with atomic_output(target) as tmp:
            tmp.write_text("half")
            raise RuntimeError("writer died")
    assert target.read_text() == "old" and _tree(tmp_path) == ["r.json"]
    with atomic_output(target) as tmp:
        assert tmp.parent == tmp_path and tmp.suffix == ".json"  # same folder, same suffix
        tmp.write_text("new")
        assert target.read_text() == "old"  # nothing visible before the end
    assert target.read_text() == "new" and _tree(tmp_path) == ["r.json"]


def test_demo_creates_its_default_folder_and_keeps_an_earlier_run(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--robot", "pendulum"]) == 0  # out/demo, parents created
    first = {p: p.read_bytes() for p in (tmp_path / "out" / "demo").iterdir()}
    assert len(first) == 4
    capsys.readouterr()
    assert main(["demo", "--robot", "pendulum"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "'out/demo'" in err and "gravity_torques.png" in err, err
    assert all(p.read_bytes() == b for p, b in first.items())
    assert main(["demo", "--robot", "pendulum", "--force"]) == 0
    assert sorted(first) == sorted((tmp_path / "out" / "demo").iterdir())


def test_timeopt_prints_the_duration_and_writes_the_phase_plane(tmp_path, capsys):
    """``robodyn timeopt``: the duration printed is rd.trajectory.time_optimal's along the
    cubic through the via points (the UR5's limits given, the Panda's from its URDF)."""
    import robodyn as rd

    via = [[0.0, -1.2, 1.0, -0.5, 1.2, 0.0], [0.8, -0.8, 1.6, -1.2, 0.6, 0.4]]
    out = tmp_path / "phase.png"
    argv = ["timeopt", "ur5", *(x for q in via for x in ["--via", *map(str, q)]), "--tau-max",
            "150", "150", "150", "28", "28", "28", "--n", "300", "--out", str(out)]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    want = rd.trajectory.time_optimal(models.load("ur5"), rd.trajectory.spline_path(via),
                                      tau_max=[150] * 3 + [28] * 3, n=300).duration  # fmt: skip
    assert f"duration: {want:.6g} s (reachability, 300 grid points)" in printed
    assert "switch point s = " in printed and f"phase plane: {out}" in printed
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main([*argv, "--method", "bisection"]) == 2  # the figure exists: --force
    assert main([*argv, "--method", "bisection", "--force"]) == 0
    assert f"duration: {want:.6g} s (bisection" in capsys.readouterr().out
    assert main(["timeopt", "panda", "--via", *["0"] * 7, "--via", *["0.3"] * 7, "--out",
                 str(tmp_path / "p.svg")]) == 0  # fmt: skip
    assert "duration: " in capsys.readouterr().out and (tmp_path / "p.svg").stat().st_size > 0
    assert sorted(os.listdir(tmp_path)) == ["p.svg", "phase.png"]


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        (["--via", "0", "--tau-max", "5"], "--via: give at least two via points"),
        (
            ["--via", "0", "0", "--via", "1", "--tau-max", "5"],
            r"--via \(point 1\): expected nq = 1",
        ),
        (["--via", "0", "--via", "0.3"], "--tau-max: the robot 'pendulum' has no torque limits"),
        (["--via", "0", "--via", "0.3", "--tau-max", "5", "6"], "--tau-max takes 1 numbers"),
        (["--via", "0", "--via", "3", "--tau-max", "5"], r"infeasible for the limits at s = "),
    ],
)
def test_timeopt_bad_input_is_one_line(argv, match, tmp_path, capsys):
    assert main(["timeopt", "pendulum", *argv, "--out", str(tmp_path / "f.png")]) == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert "\n" not in err and re.search(match, err), err
    assert not (tmp_path / "f.png").exists()


def test_mobile_writes_the_files_it_checks(tmp_path, capsys):
    from robodyn.mobile.demo import figures

    out = tmp_path / "new"
    assert main(["mobile", "unicycle", "--no-animation", "--out", str(out)]) == 0
    assert sorted(os.listdir(out)) == sorted(figures("unicycle", animate=False))


# ------------------------------------------------------------------ numbers
_BAD_NUMBERS = [
    (["fk", "ur5", "--q", "0", "0", "0", "0", "0", "nan"], "--q"),
    (["check", "ur5", "--density", "0"], "--density"),
    (["check", "ur5", "--density", "inf"], "--density"),
    (["view", "pendulum", "--out", "v.html", "--q", "nan"], "--q"),
    (["view", "pendulum", "--out", "v.html", "--max-frames", "0"], "--max-frames"),
    *(
        (["identify", "planar_2r", "--simulate", "d.csv", option, *values], option)
        for option, *values in (
            ("--noise", "nan"),
            ("--duration", "inf"),
            ("--duration", "0"),
            ("--friction", "0.5", "nan"),
            ("--prior-error", "-0.5"),
            ("--held-out", "nan"),
            ("--cutoff", "-1"),
        )
    ),  # fmt: skip
    *(
        (["sweep", "montecarlo", "planar_2r", option, *values], option)
        for option, *values in (
            ("--dt", "nan"),
            ("--duration", "inf"),
            ("--target", "0", "nan"),
            ("--kp", "inf"),
            ("--kd", "-1"),
            ("--mass-sigma", "nan"),
            ("--friction-sigma", "inf"),
            ("--n", "0"),
            ("--chunk", "0"),
            ("--points", "0"),
        )
    ),  # fmt: skip
    *(
        (["timeopt", "pendulum", "--via", "0", "--via", "0.3", option, *values], option)
        for option, *values in (
            ("--via", "nan"),
            ("--tau-max", "-5"),
            ("--v-max", "0"),
            ("--a-max", "inf"),
            ("--n", "0"),
        )
    ),  # fmt: skip
]


@pytest.mark.parametrize(
    ("argv", "option"), _BAD_NUMBERS, ids=[" ".join([a[0], *a[-2:]]) for a, _ in _BAD_NUMBERS]
)
def test_a_number_that_makes_no_sense_is_one_line_naming_its_option(argv, option, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert captured.out == "" and "\n" not in err, err
    assert f"argument {option}" in err and argv[-1] in err and f"{argv[0]} --help" in err


def test_prior_error_of_one_is_no_mass(capsys):
    assert main(["identify", "planar_2r", "--simulate", "d.csv", "--prior-error", "1"]) == 2
    assert "--prior-error must be in [0, 1)" in capsys.readouterr().err


# ------------------------------------------------------------------ sweep --joints
def test_sweep_workspace_joints_are_names_or_numbers_from_1(tmp_path, capsys):
    import zarr

    # the planar 2R arm of course notes 003 (l1 = 0.5, l2 = 0.4 m), joint 1 at 0 and joint 2
    # swept over [-pi, pi]: the tip is at (l1 + l2 cos q2, l2 sin q2)
    q2 = np.linspace(-np.pi, np.pi, 5)
    for joints, store in ((["2"], "number.zarr"), (["joint2"], "name.zarr")):
        argv = ["sweep", "workspace", "planar_2r", "--joints", *joints, "--points", "5",
                "--part", "3,4", "--out", str(tmp_path / store), "--no-progress"]  # fmt: skip
        assert main(argv) == 0
        out = capsys.readouterr().out
        assert "5 configurations of 'planar_2r'" in out and "at joint2 = " in out
        p = zarr.open_group(str(tmp_path / store), mode="r")["p"][:]
        np.testing.assert_allclose(p[:, 0], 0.5 + 0.4 * np.cos(q2), rtol=0, atol=1e-15)
        np.testing.assert_allclose(p[:, 1], 0.4 * np.sin(q2), rtol=0, atol=1e-15)
    # the default: the first three joints, all of them when fewer
    argv = ["sweep", "workspace", "planar_2r", "--points", "3", "--part", "3,4", "--no-progress"]
    assert main(argv) == 0
    assert "9 configurations of 'planar_2r'" in capsys.readouterr().out
    # 0 is no joint number; a joint twice, an unknown name: one line naming --joints
    for joints, match in ((["0"], "'0' is neither"), (["3"], "'3' is neither"),
                          (["1", "joint1"], "'joint1' is given twice"),
                          (["elbow"], "'elbow' is neither")):  # fmt: skip
        assert main(["sweep", "workspace", "planar_2r", "--joints", *joints]) == 2
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "--joints" in err and match in err, err
        assert "1 joint1, 2 joint2" in err or "twice" in err


# ------------------------------------------------------------------ check --quiet / --only
def test_check_quiet_lists_errors_and_warnings_only(capsys):
    from helpers import erd_dir

    pr2 = os.path.join(erd_dir(), "pr2_description", "urdf", "pr2.urdf")
    assert main(["check", pr2]) == 0
    full = capsys.readouterr().out.splitlines()
    infos = [k for k, line in enumerate(full) if line.startswith("[info]")]
    assert len(infos) > 50  # the PR2's frames without inertia: many "nothing to do" infos
    n_info = f"{len(infos)} info(s)"
    assert n_info in full[0]
    # each finding is its line and a "    fix:" line
    kept = [line for k, line in enumerate(full) if k not in infos and k - 1 not in infos]
    for argv in (["--quiet"], ["-q"], ["--only", "errors,warnings"], ["--only", "error, warning"]):
        assert main(["check", pr2, *argv]) == 0
        out = capsys.readouterr().out.splitlines()
        assert out == [*kept, f"({n_info} not shown)"]
        assert any(line.startswith("[warning]") for line in out)
    assert main(["check", pr2, "--only", "info"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == full[0] and [k for k, line in enumerate(out) if line[:1] == "["] == [
        1 + 2 * k for k in range(len(infos))
    ]
    assert out[1:-1] == [line for k, line in enumerate(full) if k in infos or k - 1 in infos]
    assert out[-1].startswith("(") and "warning(s) not shown)" in out[-1]
    with pytest.raises(SystemExit) as exc:
        main(["check", pr2, "--only", "notes"])
    assert exc.value.code == 2 and "--only" in capsys.readouterr().err


def _exit_code(argv) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own checks exit from the parser
        return exc.code


@pytest.mark.parametrize(
    "argv, match",
    [
        # 1e15 samples of 7 + 3 x 7 numbers: refused before numpy tries 232 PB
        (
            ["--duration", "1e12"],
            r"would take 232 PB of memory, over the [\d.]+ [kMGT]?B of memory "
            r"available \(max_memory= \(--max-memory\) raises it\)",
        ),
        (["--duration", "nan"], "argument --duration: not finite: 'nan'"),
        (["--duration", "-1"], "argument --duration: must be > 0"),
        (["--controller", "pd", "--target", "nan"], "argument --target: not finite: 'nan'"),
        (["--controller", "pd", "--target", "0.1", "--kp", "inf"], "argument --kp: not finite"),
        (["--out", "{t}/run.txt"], r"--out '.*run.txt': a trajectory file ends in .npz"),
    ],
)
def test_simulate_checks_sizes_and_numbers_before_it_starts(argv, match, tmp_path, capsys):
    argv = [a.replace("{t}", str(tmp_path)) for a in argv]
    assert _exit_code(["simulate", "panda", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and re.search(match, err), err
    assert list(tmp_path.iterdir()) == []  # nothing written, nothing started


def test_simulate_streamed_to_disk_checks_the_disk(tmp_path, capsys):
    # 1e10 samples streamed: 2.32 TB of files, more than the disk holds (this checkout's
    # machines have < 1 TB free); before, it started 1.9 TB of sparse files
    import shutil

    free = shutil.disk_usage(tmp_path).free
    assert free < 2.32e12
    argv = ["simulate", "panda", "--duration", "1e7", "--out", str(tmp_path / "run.npz")]
    assert _exit_code(argv) == 2
    err = capsys.readouterr().err.strip()
    assert re.search(r"would take 2.32 TB on disk and '.*' has [\d.]+ [kMGT]?B free", err), err
    assert list(tmp_path.iterdir()) == []


def test_simulate_lowers_its_default_step_when_the_robot_needs_it(capsys, tmp_path, monkeypatch):
    """xArm7's URDF damping on its light wrist needs dt <= 1.9e-4 s with RK4: the default
    step becomes 5e-05 s, said on stderr; an explicit --dt is kept (and warned about)."""
    import robodyn as rd
    from helpers import erd_path

    xarm = erd_path("xarm_description/urdf/xarm7")
    monkeypatch.chdir(tmp_path)  # the diverging run keeps its samples in the current folder
    assert main(["simulate", xarm, "--duration", "0.01"]) == 0
    err = capsys.readouterr().err
    assert "robodyn simulate: dt = 5e-05 s (at the default 1 ms, dt = 0.001 s is beyond" in err
    assert _exit_code(["simulate", xarm, "--duration", "0.01", "--dt", "1e-3"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("robodyn: SimulationWarning: simulate(")
    assert "the motion diverged: the velocity of joint 'joint" in err[-1]
    saved = tmp_path / "robodyn-UF_ROBOT-partial.npz"
    # (step 4's acceleration overflows: the core refuses it, so the samples are 0..3)
    assert err[-1].endswith(f"The 4 samples before it are in {saved}")
    part = rd.Trajectory.load(saved)
    assert len(part) == 4 and np.all(np.isfinite(part.a))


def test_negative_numbers_in_scientific_notation_are_numbers(capsys):
    """argparse's own pattern takes -1 and -.5 for numbers but -1e-3 for an option, so
    ``--target -1e-3`` was "expected one argument" (issue 27)."""
    assert main(["fk", "planar_2r", "--q", "-2e-1", "-.3E+0", "--frame", "ee"]) == 0
    T = np.array([[float(x) for x in line.strip(" []").split()]
                  for line in capsys.readouterr().out.splitlines()[1:]])  # fmt: skip
    import robodyn as rd

    np.testing.assert_allclose(T, rd.fk(rd.models.load("planar_2r"), [-0.2, -0.3], "ee"), atol=1e-6)
    assert _exit_code(["simulate", "planar_2r", "--controller", "pd", "--target", "-inf", "2"]) == 2
    assert "argument --target: not finite: '-inf'" in capsys.readouterr().err


# ------------------------------------------------------------------ files never destroyed
@pytest.mark.parametrize(
    "argv, first, second",
    [
        (["simulate", "planar_2r", "--out", "X.npz", "--csv", "X.npz"], "--out", "--csv"),
        (["simulate", "planar_2r", "--out", "run.npz", "--view", "./run.npz"], "--out", "--view"),
        (["derive", "pendulum", "--latex", "e.py", "--python", "e.py"], "--latex", "--python"),
        (["bench", "--quick", "--json", "r.json", "--markdown", "r.json"], "--json", "--markdown"),
    ],
)
def test_two_options_naming_one_file_are_refused(argv, first, second, tmp_path, monkeypatch,
                                                 capsys):  # fmt: skip
    """(issue 27) ``--out X.npz --csv X.npz`` replaced the trajectory with the CSV."""
    monkeypatch.chdir(tmp_path)
    assert _exit_code([*argv, "--duration", "0.01"] if argv[0] == "simulate" else argv) == 2
    err = capsys.readouterr().err.strip()
    assert f"{first} and {second} name the same file" in err and len(err.splitlines()) == 1
    assert _tree(tmp_path) == []


def test_check_fix_never_writes_onto_its_source(tmp_path, arm_urdf, capsys):
    """(issue 27) ``--fix`` onto a hard link of the source modified the source, and onto a
    symbolic link wrote through it into its target."""
    original = arm_urdf.read_bytes()
    hard, soft = tmp_path / "hard.urdf", tmp_path / "soft.urdf"
    os.link(arm_urdf, hard)
    soft.symlink_to(arm_urdf)
    for out in (arm_urdf, hard, soft):
        assert _exit_code(["check", str(arm_urdf), "--fix", str(out), "--force"]) == 2
        assert "is the input" in capsys.readouterr().err
    assert arm_urdf.read_bytes() == original and hard.read_bytes() == original
    # a link to another file is replaced by the output, its target left alone
    other = tmp_path / "other.urdf"
    other.write_text("the user's")
    link = tmp_path / "link.urdf"
    link.symlink_to(other)
    assert _exit_code(["check", str(arm_urdf), "--fix", str(link)]) == 2
    assert "the file exists (a symbolic link); pass --force" in capsys.readouterr().err
    assert main(["check", str(arm_urdf), "--fix", str(link), "--force"]) == 0
    assert not link.is_symlink() and "<robot" in link.read_text()
    assert other.read_text() == "the user's"


def test_a_writer_that_fails_leaves_the_old_output(tmp_path, monkeypatch):
    """(issue 27) a crash while writing (a RecursionError in the XML writer) left an
    existing --fix output truncated: outputs are written beside and renamed when whole."""
    import robodyn.model.doctor as doctor
    from robodyn.model.doctor import fix_urdf

    src = tmp_path / "arm.urdf"
    src.write_text(ARM_URDF)
    out = tmp_path / "fixed.urdf"
    out.write_text("kept")

    def broken(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(doctor.ET, "ElementTree", broken, raising=False)
    monkeypatch.setattr(doctor.ET, "tostring", broken, raising=False)
    with pytest.raises(RecursionError):
        fix_urdf(src, out, overwrite=True)
    assert out.read_text() == "kept" and _tree(tmp_path) == ["arm.urdf", "fixed.urdf"]


def test_max_memory_bounds_a_run_before_it_starts(capsys, tmp_path):
    # 1e6 samples of 7 + 3 x 7 numbers: 8 (1e6 + 1) (1 + 28) bytes = 232 MB, over 100 MB
    assert _exit_code(["simulate", "panda", "--duration", "1000", "--max-memory", "100M"]) == 2
    err = capsys.readouterr().err
    assert "would take 232 MB of memory, over the limit max_memory=100 MB (--max-memory)" in err
    assert main(["simulate", "panda", "--duration", "1", "--max-memory", "1Gi"]) == 0
    assert _exit_code(["simulate", "panda", "--max-memory", "lots"]) == 2
    assert "argument --max-memory: not a number" in capsys.readouterr().err


def test_a_simulation_error_reaching_main_is_one_line_and_status_1(monkeypatch, capsys):
    """A SimulationError a command does not handle itself ends the command line with one
    line on stderr and status 1 (the layered move had left main importing it from a module
    that does not exist, which turned it into an ImportError)."""
    import robodyn.cli.info as info_command
    from robodyn import SimulationError

    def diverges(args):
        raise SimulationError("the run diverged at t = 0.25 s")

    monkeypatch.setattr(info_command, "command", diverges)
    assert main(["info", "planar_2r"]) == 1
    assert capsys.readouterr().err == "robodyn info: error: the run diverged at t = 0.25 s\n"


def test_check_reads_an_mjcf_file_and_refuses_to_fix_it(tmp_path, capsys):
    # robodyn check on an MJCF file reports on the model load_mjcf makes (the first words a
    # MuJoCo user meets must not be "root element is <mujoco>, expected <robot>"); --fix
    # corrects URDF only: exit 2, nothing written
    xml = tmp_path / "pendulum.xml"
    body = '<body name="b"><joint type="hinge"/><geom type="sphere" size="0.1" mass="1"/></body>'
    xml.write_text(f'<mujoco model="p"><worldbody>{body}</worldbody></mujoco>')
    assert main(["check", str(xml)]) == 0
    out = capsys.readouterr().out
    assert "MJCF robot 'p'" in out and "expected <robot>" not in out
    fixed = tmp_path / "fixed.xml"
    assert main(["check", str(xml), "--fix", str(fixed)]) == 2
    assert "--fix corrects a URDF file" in capsys.readouterr().err and not fixed.exists()
