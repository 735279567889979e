"""The benchmark runs end to end in its short mode; its equality checks run and pass.

Timings are never asserted (the machines are shared and noisy); the structure of the
JSON, the presence of every requested row and the equality checks are. The FLOP count
is compared with a count typed here from the kernels' per-body table.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from robodyn.bench import FUNCTIONS, LIBRARIES, flop_count, main, mjcf_from
from robodyn.bench.report import format_table
from robodyn.models import load


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    js, png, md = out / "bench.json", out / "bench.png", out / "bench.md"
    t0 = time.perf_counter()
    code = main(
        ["--quick", "--models", "ur5", "--json", str(js), "--plot", str(png), "--no-progress",
         "--markdown", str(md)]
    )  # fmt: skip
    wall = time.perf_counter() - t0
    result = json.loads(js.read_text())
    result["_markdown"] = md.read_text()
    result["_wall_s"] = wall  # the whole run, timed here: every timed call lies inside it
    return code, result, png


def test_exit_code_and_files(quick_run):
    code, result, png = quick_run
    assert code == 0
    assert png.stat().st_size > 1000
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for key in ("machine", "versions", "config", "models", "latency", "batch", "cold", "memory"):
        assert key in result
    assert result["config"]["quick"] is True
    assert result["config"]["models"] == ["ur5"]
    assert result["machine"]["peak_note"].startswith("estimated")


def test_markdown_summary_has_every_function(quick_run):
    md = quick_run[1]["_markdown"]
    header = next(line for line in md.splitlines() if line.startswith("| model |"))
    for f in FUNCTIONS:
        assert f in header
    assert "| ur5 |" in md and "Machine:" in md


def test_every_latency_row_present_and_checked(quick_run):
    _, result, _ = quick_run
    rows = {(r["model"], r["function"], r["library"]): r for r in result["latency"]}
    assert set(rows) == {("ur5", f, lib) for f in FUNCTIONS for lib in LIBRARIES}
    for f in FUNCTIONS:
        assert rows[("ur5", f, "pinocchio")]["status"] == "reference"
        rd = rows[("ur5", f, "robodyn")]
        assert rd["status"] == "ok", rd
        assert rd["check_err"] is not None and rd["check_err"] <= 1e-8
        assert rd["median_s"] > 0 and rd["ratio_to_pinocchio"] > 0
    # peers: checked equal, or explicitly n/a (MuJoCo and the MR library have no C matrix)
    for lib in ("mujoco", "modern_robotics"):
        for f in FUNCTIONS:
            r = rows[("ur5", f, lib)]
            if f == "coriolis":
                assert r["status"].startswith("n/a"), r
            else:
                assert r["status"] == "ok" and r["check_err"] <= 1e-8, r
    assert not any(r["status"].startswith("FAIL") for r in result["latency"])


def test_batch_rows(quick_run):
    _, result, _ = quick_run
    threads = result["config"]["threads"]
    rd = [r for r in result["batch"] if r["library"] == "robodyn"]
    assert {(r["function"], r["threads"]) for r in rd} == {
        (f, t) for f in FUNCTIONS for t in threads
    }
    for r in rd:
        assert r["status"] == "ok" and r["check_err"] <= 1e-8, r
        assert r["n_states"] >= 1
    pin = {r["function"]: r for r in result["batch"] if r["library"] == "pinocchio"}
    # the parallel Pinocchio calls are checked against robodyn's whole batch
    for f in ("rnea", "aba"):
        assert pin[f]["status"] == "reference" and pin[f]["check_err"] <= 1e-8
    libs = {r["library"] for r in result["batch"]}
    assert libs == set(LIBRARIES)


def test_cold_and_memory_rows(quick_run):
    _, result, _ = quick_run
    cold = {(r["function"], r["library"]) for r in result["cold"]}
    for key in (
        ("import", "robodyn"),
        ("import", "pinocchio"),
        ("first rnea call", "robodyn"),
        ("typical script", "robodyn"),
    ):
        assert key in cold
    rows = {(r["function"], r["library"]): r for r in result["cold"]}
    assert rows[("import", "robodyn")]["median_s"] > 0
    assert rows[("first rnea call", "robodyn")]["status"] == "ok"
    assert rows[("typical script", "robodyn")]["median_s"] > 0
    mem = {r["library"]: r for r in result["memory"]}
    assert set(mem) == {"robodyn", "pinocchio"}
    n = result["config"]["n_memory"]
    nv = 6
    # inputs q, v, a and output tau of an n-state batch: 4 n nv doubles
    assert mem["robodyn"]["data_mb"] == pytest.approx(4 * n * nv * 8 / 2**20)
    assert mem["robodyn"]["peak_rss_mb"] >= mem["robodyn"]["baseline_rss_mb"] > 0


def test_simulate_rows(quick_run):
    _, result, _ = quick_run
    own = (
        "task-space CT, RK4",
        "floating base, RK4",
        "floating base PD, RK4",
        "time-optimal scaling",
        "force control, RK4",
    )  # their own tests
    rows = {(r["model"], r["library"]): r for r in result["simulate"] if r["function"] not in own}
    assert set(rows) == {("panda", "robodyn"), ("panda", "pinocchio"), ("ur5", "robodyn"),
                         ("ur5", "mujoco"), ("ur5", "pinocchio")}  # fmt: skip
    # checked before timed: the final states equal the peers' (same RK4, same step)
    for key in (("panda", "robodyn"), ("ur5", "robodyn"), ("ur5", "mujoco")):
        assert rows[key]["status"] == "ok" and rows[key]["check_err"] <= 1e-8, rows[key]
    assert rows[("ur5", "robodyn")]["ratio_to_mujoco"] > 0
    assert rows[("panda", "robodyn")]["ratio_to_pinocchio"] > 0
    # the same run streamed to disk (out=), its samples checked equal to the run in memory
    assert rows[("panda", "robodyn")]["streamed_ratio"] > 0
    assert "streamed to disk (out=)" in rows[("panda", "robodyn")]["call"]
    assert "Simulation (panda" in result["_markdown"] and "mujoco.rollout" in result["_markdown"]


def test_simulate_task_space_row(quick_run):
    """The UR5 under task-space computed torque, timed beside joint-space computed torque
    (issue 29: within 3x; a ratio, not a timed assertion), checked first against the same
    law called from the Python loop."""
    _, result, _ = quick_run
    [row] = [r for r in result["simulate"] if r["function"] == "task-space CT, RK4"]
    assert row["model"] == "ur5" and row["library"] == "robodyn"
    assert row["status"] == "ok" and row["check_err"] <= 1e-10, row
    assert row["ratio_to_joint_space"] == row["median_s"] / row["joint_space_s"] > 0
    assert "the joint-space ComputedTorque's" in row["call"]
    assert "of joint-space computed torque" in result["_markdown"]


def test_simulate_force_control_row(quick_run):
    """The Panda pressing on a table under ForceControl: timed, and checked by the force
    error at the end (issue 31: within 2 %)."""
    _, result, _ = quick_run
    [row] = [r for r in result["simulate"] if r["function"] == "force control, RK4"]
    assert row["model"] == "panda" and row["library"] == "robodyn" and row["median_s"] > 0
    assert row["status"] == "ok" and row["check_err"] == row["force_error"] < 0.02, row
    assert "ForceControl pressing 20 N on a table" in result["_markdown"]


def test_simulate_floating_base_rows(quick_run):
    """solo12 on its floating base, open loop and under PD: the compiled rollout, checked
    first against robodyn's Python loop (and the open loop against the Lie-group RK4 over
    Pinocchio), timed beside both (ratios, not timed assertions)."""
    _, result, _ = quick_run
    rows = {(r["function"], r["library"]): r for r in result["simulate"] if r["model"] == "solo12"}
    assert set(rows) == {("floating base, RK4", "robodyn"), ("floating base, RK4", "pinocchio"),
                         ("floating base PD, RK4", "robodyn")}  # fmt: skip
    for fn in ("floating base, RK4", "floating base PD, RK4"):
        row = rows[(fn, "robodyn")]
        assert row["status"] == "ok" and row["check_err"] <= 1e-10, row
        assert row["ratio_to_python_loop"] == row["median_s"] / row["python_loop_s"] > 0
    assert rows[("floating base, RK4", "pinocchio")]["check_err"] <= 1e-10
    assert rows[("floating base, RK4", "robodyn")]["ratio_to_pinocchio"] > 0
    assert "of robodyn's Python loop" in result["_markdown"]


def test_simulate_time_optimal_row(quick_run):
    """The Panda's time-optimal scaling on 1,000 grid points beside toppra on the same path
    (issue 31: aim faster; a ratio, not a timed assertion), checked first: the durations
    within 1 %."""
    _, result, _ = quick_run
    rows = {r["library"]: r for r in result["simulate"] if r["function"] == "time-optimal scaling"}
    assert set(rows) == {"robodyn", "toppra"}
    row = rows["robodyn"]
    assert row["model"] == "panda" and row["n_states"] == 1000
    assert row["status"] == "ok" and row["check_err"] < 0.01, row
    assert row["duration_s"] == pytest.approx(rows["toppra"]["duration_s"], rel=0.01)
    assert row["ratio_to_toppra"] == row["median_s"] / rows["toppra"]["median_s"] > 0
    assert "of toppra on the same path" in result["_markdown"]


def test_ik_rows(quick_run):
    _, result, _ = quick_run
    rows = {(r["model"], r["library"]): r for r in result["ik"]}
    assert set(rows) == {("ur5", "robodyn"), ("ur5", "modern_robotics"), ("panda", "robodyn"),
                         ("ur5", "robodyn batch"), ("panda", "robodyn batch")}  # fmt: skip
    for key in (("ur5", "robodyn"), ("panda", "robodyn")):
        r = rows[key]
        assert r["success"] >= 0.98 and 0 < r["median_s"] <= r["p95_s"], r
        b = rows[(key[0], "robodyn batch")]
        assert b["success"] >= 0.98
        # the batch row times one call on n poses: median_s is that call over n (seconds per
        # pose), throughput n over it. Both come from the one timing, so 1/median = throughput
        # says nothing; what can be checked is n (the quick mode's 50 poses) and that the
        # call, n * median_s, fits inside the whole run timed by the fixture (a unit slip,
        # ms for s or a per-pose time taken as the total, breaks it)
        assert b["n_states"] == r["n_states"] == 50
        assert 0 < b["n_states"] * b["median_s"] < result["_wall_s"]
        assert 0 < b["n_states"] / b["throughput"] < result["_wall_s"]
    assert 0 <= rows[("ur5", "modern_robotics")]["success"] <= 1
    assert "IK (ur5, robodyn)" in result["_markdown"]


def test_flop_count_ur5():
    # UR5: 6 revolute joints in a chain, the first a child of the world.
    # rnea: 348 (child of the world) + 5 * 396; aba: 344 + 5 * 981;
    # crba: 6 poses (81) + 5 moved composites (179) + 6 columns (42 + 8)
    #       + 9 + 42 per ancestor pair (15 pairs in a 6-chain).
    c = flop_count(load("ur5"))
    assert c["rnea"] == 348 + 5 * 396
    assert c["aba"] == 344 + 5 * 981
    assert c["crba"] == 6 * 81 + 5 * 179 + 6 * 50 + 15 * 51


def test_bad_options_exit_2(capsys):
    assert main(["--models", "nosuchrobot"]) == 2
    assert "nosuchrobot" in capsys.readouterr().err
    assert main(["--only", "speed"]) == 2


def test_mjcf_has_every_body_joint_and_frame():
    import xml.etree.ElementTree as ET

    m = load("ur5")
    root = ET.fromstring(mjcf_from(m))
    assert len(root.findall(".//body")) == m.nb - 1
    assert len(root.findall(".//joint")) == m.nv
    assert len(root.findall(".//site")) == len(m.frame_names)
    masses = sorted(float(e.get("mass")) for e in root.findall(".//inertial"))
    np.testing.assert_allclose(masses, sorted(m.body_mass[1:]), rtol=0, atol=0)


# ------------------------------------------------------------ without the optional packages
# Importing a module whose sys.modules entry is None raises ImportError: the child runs as
# on a machine without Pinocchio, MuJoCo and modern_robotics; erd_dir() returning None is
# example-robot-data not installed.
_WITHOUT_PEERS = """
import sys
for name in ("pinocchio", "mujoco", "modern_robotics"):
    sys.modules[name] = None
import robodyn.bench.robots
robodyn.bench.robots.erd_dir = lambda: None
from robodyn.cli import main
sys.exit(main(["bench", *sys.argv[1:]]))
"""


def test_without_optional_packages_one_line_per_section(tmp_path):
    import subprocess
    import sys

    js = tmp_path / "bench.json"
    proc = subprocess.run(
        [sys.executable, "-c", _WITHOUT_PEERS, "--quick", "--threads", "1", "--no-progress",
         "--json", str(js)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr == ""
    out = proc.stdout
    assert "missing" not in out
    lines = out.splitlines()

    def count(text):
        return sum(text in line for line in lines)

    # Pinocchio in latency, batch, functions, derivatives, cold, memory, simulate and load;
    # MuJoCo in latency and simulate
    assert count("pinocchio: skipped: install Pinocchio (pip install pin)") == 8
    assert count("mujoco: skipped: install MuJoCo (pip install mujoco)") == 2
    # modern_robotics in latency and ik
    assert count("skipped: install modern_robotics (pip install modern-robotics)") == 2
    erd = [line for line in lines if "example-robot-data (pip install example-robot-data)" in line]
    assert len(erd) == 1 and "solo12" in erd[0] and "talos" in erd[0]
    result = json.loads(js.read_text())
    # the bundled robots are never missing: every function timed for ur5 and panda
    for sec in ("latency", "batch"):
        rows = result[sec]
        assert {r["library"] for r in rows} == {"robodyn"}
        assert {(r["model"], r["function"]) for r in rows} == {
            (m, f) for m in ("ur5", "panda") for f in FUNCTIONS
        }
        assert all(r["median_s"] > 0 for r in rows)
    assert {r["library"] for r in result["cold"] + result["memory"]} == {"robodyn"}
    assert result["models"]["panda"].startswith("nq=7 nv=7")


def test_bundled_panda_without_example_robot_data(tmp_path, monkeypatch, capsys):
    # Pinocchio receives the bundled Panda's tree and checks every robodyn function on it
    import robodyn.bench.robots

    monkeypatch.setattr(robodyn.bench.robots, "erd_dir", lambda: None)
    js = tmp_path / "bench.json"
    code = main(["--quick", "--only", "latency", "--models", "panda", "--no-progress",
                 "--json", str(js)])  # fmt: skip
    assert code == 0
    result = json.loads(js.read_text())
    assert "bundled panda" in result["models"]["panda"]
    rows = {(r["function"], r["library"]): r for r in result["latency"]}
    for f in FUNCTIONS:
        assert rows[(f, "pinocchio")]["status"] == "reference"
        assert rows[(f, "robodyn")]["status"] == "ok"
        assert rows[(f, "robodyn")]["check_err"] <= 1e-8


def test_the_peers_parse_the_urdf_themselves(quick_run):
    # with example-robot-data installed (the test extra), Pinocchio and MuJoCo build their
    # models with their own URDF parsers from the same text as robodyn, so "checked against
    # MuJoCo" covers model building; a model built from robodyn's would say so
    _, result, _ = quick_run
    note = result["models"]["ur5"]
    assert "ur_description/urdf/ur5_robot.urdf" in note
    assert "Pinocchio: its URDF parser" in note and "MuJoCo: MuJoCo's URDF importer" in note
    assert "built from robodyn" not in note and "MJCF written" not in note
    checked = [r for r in result["latency"] if r["library"] == "mujoco" and r["check_err"]]
    assert checked and all(r["status"] == "ok" and r["check_err"] <= 1e-8 for r in checked)


def test_viz_rows(quick_run):
    # the viewer's pages in headless Chromium: sizes, first frame, frames/s while playing
    _, result, _ = quick_run
    rows = {r["model"]: r for r in result["viz"]}
    assert set(rows) == {"panda", "panda 1k"}
    for r in rows.values():
        assert r["status"] == "ok" and r["size_mb"] > 0.5 and r["median_s"] > 0, r
    assert rows["panda 1k"]["fps"] > 0 and rows["panda 1k"]["frames_advanced"] > 0


# ------------------------------------------------------------------ the functions section
# the public functions of a state that the functions section leaves to others: the latency
# and batch sections' seven (and their aliases), the ident section's regressors, and the
# configuration helpers that are not dynamics
_NOT_IN_FUNCTIONS = {
    "fk", "forward_kinematics", "jacobian", "body_poses", "rnea", "inverse_dynamics",
    "crba", "mass_matrix", "aba", "forward_dynamics", "gravity_forces", "regressor",
    "energy_regressor", "normalize", "christoffel_reference",
    "coriolis_matrix_reference", "mass_matrix_derivative_reference", "singularities",
    "workspace", "ik", "ik_batch", "ik_all", "holonomic_forward_dynamics", "simulate",
    "forward_dynamics_trajectory", "inverse_dynamics_trajectory",
    "inverse_dynamics_derivatives", "rnea_derivatives", "forward_dynamics_derivatives",
    "aba_derivatives", "linearize",  # the derivatives section's
}  # fmt: skip


def test_functions_rows_checked_with_ratios(quick_run):
    # one row per public numeric function of a state, each checked against its Pinocchio
    # peer (or finite differences of Pinocchio's M and J) before it is timed; every row of
    # the quick run passes and has both ratios (their values are not asserted)
    import inspect

    import robodyn
    from robodyn.bench.functions import function_specs

    _, result, _ = quick_run
    specs = function_specs()
    rows = {r["function"]: r for r in result["functions"]}
    assert set(rows) == {s.name for s in specs} and len(rows) == len(result["functions"])
    for spec in specs:
        r = rows[spec.name]
        assert r["model"] == "ur5" and r["status"] == "ok", r
        assert r["check_err"] is not None and r["check_err"] <= spec.rtol, r
        assert r["ratio_to_pinocchio"] > 0 and r["batch_ratio"] > 0, r
        assert r["median_s"] > 0 and r["peer_s"] > 0 and r["n_states"] >= 1
    # the list follows the public API: every function taking (model, q, ...) is a row
    # here or is named above
    covered = {s.call.split("(")[0] for s in specs}
    for name in dir(robodyn):
        f = getattr(robodyn, name)
        if name.startswith("_") or not inspect.isfunction(f):
            continue
        params = list(inspect.signature(f).parameters)
        if params[:2] == ["model", "q"]:
            assert name in covered | _NOT_IN_FUNCTIONS, name
    assert "FAIL" not in str([r["status"] for r in result["functions"]])
    assert "Other numeric functions" in result["_markdown"]
    assert "| `kinetic_energy` |" in result["_markdown"]


def test_functions_row_fails_on_a_wrong_result():
    # a result off by 1e-6 relative is a FAIL row, and its times are not shown
    import dataclasses

    import pinocchio as pin  # the oracle: a test extra, never skipped

    from robodyn.bench.common import Config
    from robodyn.bench.functions import _function_row, _Pin, function_specs
    from robodyn.bench.peers import _pin_frame_id
    from robodyn.bench.robots import _build_case, _random_states

    cfg = Config(models=("ur5",), n_check=2, repeat=1, target=1e-4, n_batch=4, n_loop=2)
    case = _build_case("ur5", cfg, pin)
    P = _Pin(pin, case.pin_model, case.pin_model.createData(),
             _pin_frame_id(case.pin_model, pin, case.frame), case.pmap, case.model.nv)  # fmt: skip
    spec = next(s for s in function_specs() if s.name == "kinetic_energy")
    bad = dataclasses.replace(spec, rd=lambda *args: spec.rd(*args) * (1 + 1e-6))
    big = _random_states(case.model, 4, 1)
    row = _function_row(case, P, bad, big, cfg)
    assert row["status"].startswith("FAIL") and row["median_s"] is None, row
    assert 0.5e-6 < row["check_err"] < 2e-6
    assert _function_row(case, P, spec, big, cfg)["status"] == "ok"


# ------------------------------------------------------------------ the derivatives section
def test_derivatives_rows_checked_with_ratios(quick_run):
    # per quantity: one state (ratio to Pinocchio's computeRNEADerivatives), the batch at
    # each thread count and the finite-difference route (ratios to a Python loop over it),
    # each checked before it is timed (their values are not asserted)
    from robodyn.bench.derivatives import FD_RTOL, quantities

    _, result, _ = quick_run
    rows = result["derivatives"]
    threads = result["config"]["threads"]
    want = {(q.name, "one state", 1) for q in quantities()}
    want |= {(q.name, "batch", t) for q in quantities() for t in threads}
    want |= {(q.name, "finite differences", 1) for q in quantities()}
    assert {(r["function"], r["kind"], r["threads"]) for r in rows} == want
    assert len(rows) == len(want) and {r["model"] for r in rows} == {"ur5"}
    for r in rows:
        tol = FD_RTOL if r["kind"] == "finite differences" else 1e-8
        assert r["status"] == "ok" and r["check_err"] is not None and r["check_err"] <= tol, r
        assert r["median_s"] > 0 and r["ratio_to_pinocchio"] > 0 and r["peer_s"] > 0, r
    assert "DERIVATIVES" in format_table(result)
    assert "| ur5 | `rnea_derivatives` |" in result["_markdown"]


def test_derivatives_row_fails_on_a_wrong_result():
    # a result off by 1e-6 relative is a FAIL row, and its times are not shown
    import dataclasses

    import pinocchio as pin

    from robodyn.bench.common import Config
    from robodyn.bench.derivatives import _quantity_rows, quantities
    from robodyn.bench.robots import _build_case

    cfg = Config(models=("ur5",), n_check=2, repeat=1, target=1e-4, n_batch=4, n_loop=2,
                 threads=(1,))  # fmt: skip
    case = _build_case("ur5", cfg, pin)
    spec = quantities()[0]
    off = lambda m, q, v, a, th: tuple(x * (1 + 1e-6) for x in spec.rd(m, q, v, a, th))  # noqa: E731
    for r in _quantity_rows(case, pin, dataclasses.replace(spec, rd=off), cfg)[:2]:
        assert r["status"].startswith("FAIL") and r["median_s"] is None, r
    assert all(r["status"] == "ok" for r in _quantity_rows(case, pin, spec, cfg))


# ------------------------------------------------------------------ load section (issue 32)
def _untimed(monkeypatch, times=(3.5e-3, 1e-3)):
    """The load section with its timer replaced: nothing is timed in these tests."""
    import robodyn.bench.load as load

    monkeypatch.setattr(load, "_best_alternating", lambda fns, repeat: list(times))
    return load


def test_load_rows_are_checked_against_pinocchio(monkeypatch):
    import pinocchio as pin

    from helpers import erd_path
    from robodyn.bench.common import Config, Progress

    load = _untimed(monkeypatch)
    files = [erd_path("ur5_robot.urdf"), erd_path("panda.urdf"), erd_path("romeo_laas_small"),
             erd_path("ur_description/urdf/ur3.urdf")]  # fmt: skip
    rows = load.urdf_rows(files, Config(quick=True), {"pinocchio": pin}, Progress(1, False))
    # ur3.urdf has no link: Pinocchio refuses it, so it has no row
    mine = {r["model"].split("/")[-1]: r for r in rows if r["library"] == "robodyn"}
    assert set(mine) == {"ur5_robot", "panda", "romeo_laas_small"}
    for r in mine.values():
        assert r["status"] == "ok" and r["check_err"] <= 1e-8, r
        assert r["ratio_to_pinocchio"] == pytest.approx(3.5)
    # Pinocchio keeps romeo_laas_small's non-PSD inertias as written; so, said, does robodyn
    assert mine["romeo_laas_small"]["call"] == "rd.load_urdf(path, invalid_inertia='keep')"
    assert mine["panda"]["call"] == "rd.load_urdf(path)"
    assert sum(r["status"] == "reference" for r in rows) == 3
    text = "\n".join(load.text_lines(rows))
    assert "urdf: 3 files, ratio median 3.50, worst 3.50, 0 within 3x" in text
    md = "\n".join(load.markdown_lines(rows))
    assert md.startswith("Load (urdf, 3 example-robot-data files") and "worst 3.50" in md


def test_a_load_row_whose_model_differs_fails(monkeypatch):
    import pinocchio as pin

    from helpers import erd_path
    from robodyn.bench.common import Config, Progress

    load = _untimed(monkeypatch)
    monkeypatch.setattr(load, "_check_urdf", lambda path, options, pin, seed: 0.5)
    rows = load.urdf_rows([erd_path("ur5_robot.urdf")], Config(quick=True), {"pinocchio": pin},
                          Progress(1, False))  # fmt: skip
    assert [r["status"][:4] for r in rows] == ["FAIL"] and rows[0]["median_s"] is None


def test_load_section_from_the_command_line_and_a_second_format(monkeypatch, tmp_path):
    load = _untimed(monkeypatch)
    # a format joins by an entry of FORMATS (as MJCF beside MuJoCo does)
    seen = []

    def rows_of(files, cfg, peers, prog):
        seen.append((files, peers["pinocchio"] is not None))
        return []

    monkeypatch.setitem(load.FORMATS, "other", (lambda cfg: ["x.other"], rows_of, "pinocchio"))
    js = tmp_path / "bench.json"
    code = main(["--quick", "--only", "load", "--models", "ur5", "--no-progress",
                 "--json", str(js)])  # fmt: skip
    assert code == 0
    result = json.loads(js.read_text())
    [mine] = [r for r in result["load"] if r["library"] == "robodyn" and r["function"] == "urdf"]
    assert mine["model"] == "ur_description/urdf/ur5_robot" and mine["status"] == "ok"
    mjcf = [r["model"] for r in result["load"] if r["function"] == "mjcf"]
    assert mjcf == ["dm_control/suite/cartpole"] * 2 + ["dm_control/suite/humanoid"] * 2
    assert seen == [(["x.other"], True)]
    assert "LOAD: one robot description file read" in format_table(result)


def test_mjcf_load_rows_are_checked_against_mujoco(monkeypatch):
    import mujoco

    from robodyn.bench.common import Config, Progress

    load = _untimed(monkeypatch, times=(1e-3, 2e-3))
    files = load.mjcf_files(Config(quick=True))
    assert [load._name(f) for f in files] == [
        "dm_control/suite/cartpole",
        "dm_control/suite/humanoid",
    ]
    rows = load.mjcf_rows(files, Config(quick=True), {"mujoco": mujoco}, Progress(1, False))
    mine = [r for r in rows if r["library"] == "robodyn"]
    assert [r["status"] for r in mine] == ["ok", "ok"]
    assert all(r["check_err"] < 1e-12 and r["ratio_to_pinocchio"] == 0.5 for r in mine)
    assert {r["library"] for r in rows} == {"robodyn", "mujoco"}
    assert "MuJoCo's MjModel.from_xml_path median 0.50" in "\n".join(load.markdown_lines(rows))
    # a model whose masses differ from MuJoCo's is a failed row, not timed
    real = load._check_mjcf
    monkeypatch.setattr(load, "_check_mjcf", lambda model, m, mj: real(model, m, mj) + 1e-3)
    bad = load.mjcf_rows(files[:1], Config(quick=True), {"mujoco": mujoco}, Progress(1, False))
    assert bad[0]["status"].startswith("FAIL") and bad[0]["median_s"] is None
