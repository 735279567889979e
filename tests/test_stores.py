"""Stores of robodyn.distributed are fingerprinted, checksummed and resumable (issue 27).

* s.1: a store records what its numbers depend on (the model, q0 and v0 by hash, the
  controller's describe(), the settings, robodyn's version); a resume that differs in any
  is refused, naming it, before the store is touched; a controller that cannot describe
  itself runs but cannot resume.
* s.2: every chunk carries checksums; a flipped byte, a deleted chunk, a chunk copied over
  another and a done mark without data are each named on open (the store, the array, the
  chunk) and computed again on resume; garbage metadata is a clear error naming the store.
* s.7: on Dask a failing rollout is marked in the store (status, t_end) instead of failing
  its chunk.
* s.5: ``robodyn sweep workspace`` estimates the grid's memory before it starts.

Oracles: the planar 2R arm of course notes 003 (l1 = 0.5, l2 = 0.4 m: the tip's linear
Jacobian has |det| = l1 l2 |sin q2|), an undamaged store made in the test, and the same
rollouts run locally (a batch is N independent systems).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import dask.array as da
import numpy as np
import pytest
import zarr

import robodyn as rd
from robodyn import sweep
from robodyn.cli import main
from robodyn.distributed import (
    StoreError,
    StoreWarning,
    open_store,
    simulate_chunks,
    verify_store,
)

L1, L2 = 0.5, 0.4  # the planar 2R arm's links (m)


@pytest.fixture(scope="module")
def arm():
    return rd.models.load("planar_2r")


def _stamps(path):
    """Every file of a store and its modification time (a refused resume changes none)."""
    return {str(f): f.stat().st_mtime_ns for f in path.rglob("*") if f.is_file()}


# ------------------------------------------------------------------------ s.1 fingerprint
OPTS = {"chunk": 4, "duration": 0.05, "dt": 1e-3}


@pytest.fixture
def rollouts(arm, tmp_path):
    """A finished store of 12 rollouts of a PD on the 2R arm, and its inputs."""
    rng = np.random.default_rng(11)
    Q, V = rng.uniform(-1, 1, (12, 2)), rng.normal(size=(12, 2))
    ctrl = rd.control.PD(arm, [0.5, -0.5], 30.0, 5.0)
    path = tmp_path / "runs.zarr"
    simulate_chunks(arm, Q, V, ctrl, out=path, **OPTS)
    return path, Q, V, ctrl


def test_resume_refuses_other_initial_states_naming_their_hashes(arm, rollouts):
    path, Q, V, ctrl = rollouts
    before = _stamps(path)
    Q2 = Q.copy()
    Q2[7, 1] += 1e-9  # one number of one rollout, in chunk 1
    with pytest.raises(ValueError, match="q0 differs: hash") as err:
        simulate_chunks(arm, Q2, V, ctrl, out=path, resume=True, **OPTS)
    hashes = re.findall(r"hash (\w{16}) of float64 \(12, 2\)", str(err.value))
    assert len(hashes) == 2 and hashes[0] != hashes[1], str(err.value)
    assert "v0" not in str(err.value) and "controller" not in str(err.value)
    with pytest.raises(ValueError, match=r"v0 differs: hash \w+ of float64 \(12, 2\) != hash"):
        simulate_chunks(arm, Q, V * 2, ctrl, out=path, resume=True, **OPTS)
    assert _stamps(path) == before  # refused before the store was touched
    # the same values, a dask array in other memory: the same experiment, nothing to do
    lazy = simulate_chunks(arm, da.from_array(Q.copy(), chunks=(4, 2)), V.copy(), ctrl,
                           out=path, resume=True, duration=0.05, dt=1e-3)  # fmt: skip
    assert lazy.computed == []
    # a dask q0 is hashed block by block before the run, and each chunk checks its block:
    # one whose graph gives other values each time is refused, not silently recorded
    draw = np.random.default_rng(1).random  # other numbers at each call
    noisy = da.from_array(Q, chunks=(4, 2)).map_blocks(lambda b: b + draw(b.shape))
    with pytest.raises(ValueError, match="q0: this chunk's values differ from those hashed"):
        simulate_chunks(arm, noisy, V, ctrl, out=path.with_name("noisy.zarr"), **OPTS)


def test_resume_refuses_another_controller_or_setting_naming_it(arm, rollouts, monkeypatch):
    path, Q, V, ctrl = rollouts
    before = _stamps(path)
    PD = rd.control.PD
    fp = rd.distributed.model_fingerprint(arm)
    cases = [
        (PD(arm, [0.5, -0.5], 5.0, 5.0), {}, "controller.kp differs: 30.0 != 5.0"),
        (PD(arm, [0.5, -0.5], 30.0, [5.0, 6.0]), {}, "controller.kd differs: 5.0 != [5.0, 6.0]"),
        (PD(arm, [1.0, -0.5], 30.0, 5.0), {},
         "controller.target.q differs: [0.5, -0.5] != [1.0, -0.5]"),
        (PD(arm, [0.5, -0.5], 30.0, 5.0, tau_max=2.0), {},
         "controller.tau_max differs: null != 2.0"),
        (PD(arm, [0.5, -0.5], 30.0, 5.0, gravity_compensation=True), {},
         f"controller.gravity_compensation differs: null != {fp}"),
        (rd.control.ComputedTorque(arm, [0.5, -0.5], 30.0, 5.0), {},
         "controller.class differs: PD != ComputedTorque"),
        (ctrl, {"dt": 2e-3}, "dt differs: 0.001 != 0.002"),
        (ctrl, {"integrator": "euler"}, "integrator differs: rk4 != euler"),
        (ctrl, {"control_dt": 1e-2}, "control_dt differs: null != 0.01"),
        (ctrl, {"friction": False}, "friction differs: true != false"),
        (ctrl, {"clip_torque": True}, "clip_torque differs: false != true"),
        (ctrl, {"f_ext": np.zeros((arm.nb, 6))}, "f_ext differs: null != hash "),
        (ctrl, {"chunk": 3}, "chunk differs: 4 != 3"),
    ]  # fmt: skip
    for controller, change, message in cases:
        opts = {**OPTS, **change}
        with pytest.raises(ValueError, match=re.escape(message)):
            simulate_chunks(arm, Q, V, controller, out=path, resume=True, **opts)
    made = open_store(path)[1]["inputs"]["robodyn"]
    assert made == rd.__version__
    monkeypatch.setattr(rd, "__version__", "9.9.9")  # a later robodyn
    with pytest.raises(ValueError, match=re.escape(f"robodyn differs: {made} != 9.9.9")):
        simulate_chunks(arm, Q, V, ctrl, out=path, resume=True, **OPTS)
    assert _stamps(path) == before


def test_a_reference_is_part_of_the_fingerprint(arm, tmp_path):
    ref = rd.trajectory.joint_trajectory([0.0, 0.0], [0.5, -0.5], 0.04)
    ctrl = rd.control.ComputedTorque(arm, ref)
    Q = np.zeros((8, 2))
    path = tmp_path / "ref.zarr"
    simulate_chunks(arm, Q, None, ctrl, out=path, **OPTS)
    later = rd.trajectory.joint_trajectory([0, 0], [0.5, -0.5], 0.08)
    slower = rd.control.ComputedTorque(arm, later)
    with pytest.raises(ValueError, match=r"controller.ref.duration differs: 0.04 != 0.08"):
        simulate_chunks(arm, Q, None, slower, out=path, resume=True, **OPTS)
    cubic = rd.trajectory.joint_trajectory([0, 0], [0.5, -0.5], 0.04, time_scaling="cubic")
    with pytest.raises(ValueError, match="controller.ref.time_scaling.class differs: "
                       "QuinticScaling != CubicScaling"):  # fmt: skip
        simulate_chunks(arm, Q, None, rd.control.ComputedTorque(arm, cubic), out=path,
                        resume=True, **OPTS)  # fmt: skip
    assert simulate_chunks(arm, Q, None, ctrl, out=path, resume=True, **OPTS).computed == []


def test_a_controller_that_cannot_describe_itself_runs_but_cannot_resume(arm, tmp_path):
    Q = np.random.default_rng(2).uniform(-1, 1, (8, 2))

    def damper(t, q, v):
        return -2.0 * v

    path = tmp_path / "f.zarr"
    run = simulate_chunks(arm, Q, None, damper, out=path, **OPTS)
    want = rd.simulate(arm, Q, None, damper, duration=0.05, dt=1e-3)
    assert np.array_equal(run.q.compute(), want.q)  # it ran
    _, attrs = open_store(path)
    assert attrs["resumable"] is False and attrs["complete"]
    with pytest.raises(ValueError, match="cannot tell whether .* the controller is a function "
                       "'.*damper', which cannot describe itself"):  # fmt: skip
        simulate_chunks(arm, Q, None, damper, out=path, resume=True, **OPTS)
    with pytest.raises(ValueError, match="cannot be resumed: it was written with inputs that "
                       "could not describe themselves"):  # fmt: skip
        simulate_chunks(arm, Q, None, rd.control.PD(arm, [0, 0], 1.0, 1.0), out=path,
                        resume=True, **OPTS)  # fmt: skip
    # a robodyn controller whose target is a plain function cannot say what it follows
    lam = rd.control.PD(arm, lambda t: (np.zeros(2), np.zeros(2), np.zeros(2)), 1.0, 1.0)
    path2 = tmp_path / "g.zarr"
    simulate_chunks(arm, Q, None, lam, out=path2, **OPTS)
    with pytest.raises(ValueError, match="the target is a function '.*<lambda>', which cannot "
                       "describe itself"):  # fmt: skip
        simulate_chunks(arm, Q, None, lam, out=path2, resume=True, **OPTS)


def test_every_controller_describes_its_parameters():
    ur5 = rd.models.load("ur5")
    fp = rd.distributed.model_fingerprint(ur5)
    ref = rd.trajectory.joint_trajectory(np.zeros(6), np.full(6, 0.3), None, "trapezoidal",
                                         v_max=1.0, a_max=2.0)  # fmt: skip
    X = rd.fk(ur5, np.zeros(6), "ee")
    ctrls = {
        "PD": rd.control.PD(ur5, np.full(6, 0.1), [1, 2, 3, 4, 5, 6], 0.5, tau_max=9.0),
        "PID": rd.control.PID(ur5, ref, 5.0, 0.5, 1.0, i_max=3.0),
        "ComputedTorque": rd.control.ComputedTorque(ur5, ref, 16.0, 8.0, ki=1.0),
        "TaskSpaceComputedTorque": rd.control.TaskSpaceComputedTorque(
            ur5, "ee", rd.trajectory.screw_trajectory(X, X, 1.0), 4.0, 4.0, k_null=0.5),
    }  # fmt: skip
    for name, c in ctrls.items():
        d = c.describe()
        assert json.loads(json.dumps(d)) == d, name  # JSON as it is
        assert d["class"] == name and d["model"] == fp, name
    pd, pid, ct, ts = (ctrls[k].describe() for k in ctrls)
    assert pd["kp"] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0] and pd["kd"] == 0.5
    assert pd["target"] == {"kind": "constant", "q": [0.1] * 6} and pd["tau_max"] == 9.0
    assert (pid["kp"], pid["ki"], pid["kd"], pid["i_max"]) == (5.0, 0.5, 1.0, 3.0)
    assert pid["target"]["q_end"] == [0.3] * 6 and pid["target"]["q_start"] == [0.0] * 6
    assert pid["target"]["time_scaling"]["class"] == "TrapezoidalScaling"
    assert (ct["kp"], ct["kd"], ct["ki"], ct["friction"]) == (16.0, 8.0, 1.0, True)
    assert ts["frame"] == "ee" and ts["k_null"] == 0.5 and ts["ref"]["kind"] == "screw"
    assert ts["ref"]["X_start"] == X.tolist()
    # a constant pose given as the reference is described by its numbers
    d = rd.control.TaskSpaceComputedTorque(ur5, "ee", X, 4.0, 4.0).describe()
    assert d["ref"] == {"kind": "constant", "X": X.tolist()}


def test_sweep_montecarlo_resume_with_other_gains_is_refused(tmp_path, capsys):
    store = tmp_path / "mc.zarr"
    argv = ["sweep", "montecarlo", "planar_2r", "--n", "40", "--chunk", "10", "--duration",
            "0.02", "--dt", "0.002", "--out", str(store), "--no-progress"]  # fmt: skip
    assert main(argv) == 0
    capsys.readouterr()
    _, attrs = open_store(store)
    c = attrs["inputs"]["controller"]  # the command's defaults: kp 100, kd 20, neutral + 0.3
    assert (c["class"], c["kp"], c["kd"], c["target"]["q"]) == ("PD", 100.0, 20.0, [0.3, 0.3])
    before = _stamps(store)
    assert main([*argv, "--resume", "--kp", "5", "--kd", "1", "--target", "1.0"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "mix two experiments" in err, err
    for part in ("controller.kp differs: 100.0 != 5.0", "controller.kd differs: 20.0 != 1.0",
                 "controller.target.q differs: [0.3, 0.3] != [1.0, 1.0]"):  # fmt: skip
        assert part in err, err
    assert _stamps(store) == before
    assert main([*argv, "--resume"]) == 0
    assert "(0 chunks computed" in capsys.readouterr().out
    # a workspace store: the rows of the Jacobian are part of what it was made for
    ws = ["sweep", "workspace", "planar_2r", "--points", "5", "--part", "3,4", "--out",
          str(tmp_path / "ws.zarr"), "--no-progress"]  # fmt: skip
    assert main(ws) == 0
    assert main([*ws[:6], "0,1", *ws[7:], "--resume"]) == 2
    assert "part differs: [3, 4] != [0, 1]" in capsys.readouterr().err


# ------------------------------------------------------------------------ s.2 checksums
POINTS, CHUNK = 9, 10  # 81 configurations of the 2R arm in 9 chunks (the last of 1)


def _map(arm, path, **kw):
    return sweep.workspace_map(arm, arm.frame_names[-1], (0, 1), POINTS, chunk=CHUNK,
                               part=(3, 4), out=path, **kw)  # fmt: skip


@pytest.fixture(scope="module")
def pristine(arm, tmp_path_factory):
    """An undamaged workspace store, checked against the closed forms."""
    path = tmp_path_factory.mktemp("stores") / "map.zarr"
    _map(arm, path)
    g = zarr.open_group(str(path), mode="r")
    q = np.linspace(-np.pi, np.pi, POINTS)
    q1, q2 = np.meshgrid(q, q, indexing="ij")
    w = g["manipulability"][:].reshape(POINTS, POINTS)
    assert np.allclose(w, L1 * L2 * np.abs(np.sin(q2)), rtol=0, atol=1e-15)
    p = g["p"][:].reshape(POINTS, POINTS, 3)
    assert np.allclose(p[..., 0], L1 * np.cos(q1) + L2 * np.cos(q1 + q2), rtol=0, atol=1e-15)
    return path


def _flip(path):
    f = path / "p" / "c" / "3" / "0"
    b = bytearray(f.read_bytes())
    b[len(b) // 2] ^= 0x10
    f.write_bytes(bytes(b))
    return "p", "bytes fail their crc32c checksum"


def _delete(path):
    (path / "manipulability" / "c" / "3").unlink()
    return "manipulability", "its data are missing"


def _copy(path):
    shutil.copyfile(path / "p" / "c" / "5" / "0", path / "p" / "c" / "3" / "0")
    return "p", "checksum mismatch"


def _done_without_data(path):
    """Chunk 3 marked done, its data and checksums never written (a crash between)."""
    for f in (path / "p" / "c" / "3" / "0", path / "manipulability" / "c" / "3",
              path / "_digest" / "c" / "3" / "0" / "0"):  # fmt: skip
        f.unlink()
    return "", "marked done without its checksums"


DAMAGES = {"flipped-byte": _flip, "deleted": _delete, "copied-over": _copy,
           "done-without-data": _done_without_data}  # fmt: skip


@pytest.mark.parametrize("damage", DAMAGES.values(), ids=DAMAGES.keys())
def test_a_damaged_chunk_is_named_on_open_and_recomputed_on_resume(
    arm, pristine, damage, tmp_path, capsys
):  # fmt: skip
    path = tmp_path / "map.zarr"
    shutil.copytree(pristine, path)
    lazy, _ = open_store(path, verify=False)  # opened before the damage
    array, why = damage(path)
    where = f"the store {str(path)!r}"
    with pytest.raises(StoreError, match=re.escape(where)) as err:
        open_store(path)
    assert f"chunk 3 (items 30-39): {array}" in str(err.value) and why in str(err.value)
    found = verify_store(path)
    assert list(found.bad) == [3] and len(found.verified) == 8 and found.missing == []
    assert main(["sweep", "verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "8 verified, 1 bad, 0 not finished" in out and "chunk 3 (items 30-39)" in out
    if array:  # a read of the damaged chunk fails, naming it, whenever the store was opened
        with pytest.raises(StoreError, match=re.escape(f"{where}, array {array!r}, chunk 3")):
            lazy[array].compute()
    others = {k: v for k, v in _stamps(path).items() if "/c/3" not in k and "_done" not in k}
    with pytest.warns(StoreWarning, match=r"1 of its finished chunks failed .* chunk 3 "):
        run = _map(arm, path, resume=True)
    assert run.computed == [3] and run.repaired == [3]
    assert {k: v for k, v in _stamps(path).items() if k in others} == others
    arrays, attrs = open_store(path)
    assert attrs["complete"]
    g = zarr.open_group(str(pristine), mode="r")
    for name in ("p", "manipulability"):
        assert np.array_equal(arrays[name].compute(), g[name][:]), name


def test_garbage_metadata_is_an_error_naming_the_store(arm, pristine, tmp_path, capsys):
    path = tmp_path / "map.zarr"
    shutil.copytree(pristine, path)
    (path / "zarr.json").write_text("{garbage")
    for call in (lambda: open_store(path), lambda: verify_store(path),
                 lambda: _map(arm, path, resume=True)):  # fmt: skip
        with pytest.raises(StoreError) as err:
            call()
        assert type(err.value) is StoreError  # not a raw JSONDecodeError
        assert f"the store {str(path)!r} is damaged: its metadata zarr.json is not valid " \
            "JSON" in str(err.value)  # fmt: skip
    assert main(["sweep", "verify", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "zarr.json is not valid JSON" in err
    # an array's metadata, and attributes edited by hand (valid JSON, other numbers)
    shutil.rmtree(path)
    shutil.copytree(pristine, path)
    (path / "p" / "zarr.json").write_text("not json")
    with pytest.raises(StoreError, match=r"its array 'p' \(p/zarr.json\) is not valid JSON"):
        open_store(path)
    shutil.rmtree(path)
    shutil.copytree(pristine, path)
    meta = json.loads((path / "zarr.json").read_text())
    meta["attributes"]["meta"]["points"] = 10
    (path / "zarr.json").write_text(json.dumps(meta))
    with pytest.raises(StoreError, match=r"attributes \(zarr.json\) changed after it was"):
        _map(arm, path, resume=True)


# ------------------------------------------------------------------------ s.7 status
class Limited:
    """PD on the 2R arm whose torque is NaN once joint 2 passes 0.6 rad (a policy out of
    its domain): the rollouts pushed past it fail, the others do not."""

    def __call__(self, t, q, v):
        tau = 2.0 * (np.array([0.5, 0.0]) - q) - 0.2 * v
        out = np.asarray(q)[..., 1] > 0.6
        return np.where(out[..., None], np.nan, tau)

    def describe(self):
        return {"class": "Limited", "kp": 2.0, "kd": 0.2, "limit": 0.6}


def test_a_failing_rollout_is_marked_in_the_store_not_failing_its_chunk(client, arm, tmp_path):
    rng = np.random.default_rng(5)
    Q, V = rng.uniform(-0.3, 0.3, (12, 2)), np.zeros((12, 2))
    V[[3, 9], 1] = 6.0  # these two are thrown past 0.6 rad
    opts = {"duration": 0.3, "dt": 1e-3, "chunk": 4}
    local = rd.simulate(arm, Q, V, Limited(), duration=0.3, dt=1e-3, on_divergence="mark")
    assert list(np.flatnonzero(local.status)) == [3, 9] and set(local.status) == {0, 3}
    path = tmp_path / "runs.zarr"
    Qd = da.from_array(Q, chunks=(4, 2))  # hashed on the cluster, block by block
    failed = r"2 of 12 rollouts failed: rollout 3 \(controller failed, last good sample at t = "
    with pytest.raises(rd.SimulationError, match=failed + r"0.1\d+ s\), rollout 9"):
        simulate_chunks(arm, Qd, V, Limited(), client=client, out=path, **opts)
    arrays, attrs = open_store(path)  # every chunk is in, the failed rollouts marked
    assert attrs["complete"]
    assert np.array_equal(arrays["status"].compute(), local.status)
    assert np.array_equal(arrays["t_end"].compute(), local.t_end)
    # the store is finished: a resume (q0 now a NumPy array of the same values, the same
    # hash) computes nothing and says the same
    with pytest.raises(rd.SimulationError, match="2 of 12 rollouts failed"):
        simulate_chunks(arm, Q, V, Limited(), client=client, out=path, resume=True, **opts)
    lazy = simulate_chunks(arm, Q, V, Limited(), client=client, out=path, resume=True,
                           on_divergence="mark", **opts)  # fmt: skip
    assert lazy.computed == []
    got = lazy.compute()
    assert np.array_equal(got.status, local.status) and np.array_equal(got.t_end, local.t_end)
    for k in ("q", "v", "a", "tau"):  # NaN after t_end, as the local batch
        assert np.array_equal(getattr(got, k), getattr(local, k), equal_nan=True), k
    # without a store: the lazy result carries the status; compute() names the failures
    lazy = simulate_chunks(arm, Q, V, Limited(), client=client, **opts)
    assert np.array_equal(lazy.status.compute(), local.status)
    with pytest.raises(rd.SimulationError, match="rollout 3"):
        lazy.compute()


def test_monte_carlo_records_each_rollouts_status(arm, tmp_path):
    run = sweep.monte_carlo(arm, Limited(), 6, duration=0.3, dt=1e-3, q0=[0.0, 0.0],
                            v0=[0.0, 6.0], chunk=3, mass_sigma=0.0, friction_sigma=0.0,
                            out=tmp_path / "mc.zarr")  # fmt: skip
    alone = rd.simulate(arm, [[0.0, 0.0]], [[0.0, 6.0]], Limited(), duration=0.3, dt=1e-3,
                        on_divergence="mark")  # fmt: skip
    assert alone.status[0] == 3  # the oracle: the same rollout alone (no perturbation)
    assert np.array_equal(run.arrays["status"].compute(), np.full(6, 3, dtype=np.int8))
    assert np.array_equal(run.arrays["t_end"].compute(), np.full(6, alone.t_end[0]))
    assert np.all(np.isnan(run.arrays["q_final"].compute()))
    # chunks of nothing but NaN are written (and checked) like any other
    assert (tmp_path / "mc.zarr" / "q_final" / "c" / "1" / "0").is_file()
    assert open_store(tmp_path / "mc.zarr")[1]["complete"]


# ------------------------------------------------------------------------ s.5 the grid
def test_sweep_workspace_refuses_a_grid_beyond_memory_before_starting(arm, tmp_path):
    # in a process limited to 4 GB of address space: the command before this check built
    # a list of 10^10 chunk bounds (and was killed at 24 GB without the limit)
    code = (
        "import resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))\n"
        "from robodyn.cli import main\n"
        "sys.exit(main(['sweep', 'workspace', 'ur5', '--points', '100000', '--no-progress']))\n"
    )
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=tmp_path, env=env)  # fmt: skip
    assert out.returncode == 2, out.stderr[-2000:]
    err = out.stderr.strip()
    head = "robodyn sweep: error: sweep workspace: --points 100000 over 3 joints (1e+15 "
    assert err.startswith(head + "configurations in chunks of 100000) would need"), err
    # the map alone: 10^15 configurations of 32 bytes (p and the manipulability) = 32 PB
    assert "the map 32 PB" in err and "raise --max-memory" in err
    # the API: 10^6 configurations without a store hold a 32 MB map
    sizes = r"the task graph 160 kB, the map 32 MB\), more than the limit max_memory=10 MB"
    with pytest.raises(ValueError, match=r"would need .* \(chunks being computed .*, " + sizes):
        sweep.workspace_map(arm, "ee", (0, 1), 1000, max_memory=10e6)
    run = sweep.workspace_map(arm, "ee", (0, 1), 5, max_memory=10e6)
    assert run.arrays["p"].shape == (25, 3)
