"""robodyn on Dask, on a real cluster: a LocalCluster of two worker processes started here.

* every batch function given dask arrays returns a lazy dask array (batch chunks kept,
  the model one key of the graph) whose values are the NumPy path's, bit for bit;
* 10,000 rollouts run in chunks on the cluster equal the same rollouts run locally;
* a Monte-Carlo sweep survives a worker process killed while it runs one of its chunks,
  with the local results; the lost chunk ran again on another worker (the workers' own
  record of each start and the scheduler's transition log say so);
* a Zarr-streamed sweep stopped part way and resumed is the store of an uninterrupted
  run, and the chunks it had are not computed again (counted, and their files untouched).
"""

from __future__ import annotations

import ast
import inspect
import os
import pathlib
import pickle
import subprocess
import sys
import uuid

import dask
import dask.array as da
import numpy as np
import pytest
import zarr
from distributed.diagnostics.plugin import WorkerPlugin

import robodyn as rd
from helpers import random_tree
from robodyn import sweep
from robodyn.distributed import model_fingerprint


@pytest.fixture(scope="module")
def ur5():
    return rd.models.load("ur5")


@pytest.fixture(scope="module")
def floating():
    return random_tree(7, 5, floating=True, damping=True)[0]


def _states(model, rng, n):
    Q = rd.random_configuration(model, rng, size=n)
    V = rng.normal(size=(n, model.nv))
    A = rng.normal(size=(n, model.nv))
    return Q, V, A


# ------------------------------------------------------------------------ batch functions
def _calls(model, Q, V, A, F):
    """(name, function, args, kwargs) of every batch function; args hold numpy arrays."""
    frame = model.frame_names[-1]
    return [
        ("fk", rd.fk, (Q, frame), {}),
        ("fk all frames", rd.fk, (Q,), {}),
        ("body_poses", rd.kinematics.body_poses, (Q,), {}),
        ("jacobian space", rd.jacobian, (Q, frame), {}),
        ("jacobian body", rd.jacobian, (Q, frame, "body"), {}),
        ("jacobian_dot", rd.jacobian_dot, (Q, V, frame), {}),
        ("frame_velocity", rd.kinematics.frame_velocity, (Q, V, frame), {}),
        ("frame_acceleration", rd.kinematics.frame_acceleration, (Q, V, A, frame), {}),
        ("com", rd.com, (Q,), {}),
        ("com_jacobian", rd.kinematics.com_jacobian, (Q,), {}),
        ("com_velocity", rd.kinematics.com_velocity, (Q, V), {}),
        ("inverse_dynamics", rd.inverse_dynamics, (Q, V, A), {}),
        ("inverse_dynamics f_ext", rd.inverse_dynamics, (Q, V, A), {"f_ext": F}),
        ("inverse_dynamics f_tip", rd.inverse_dynamics, (Q, V, A), {"f_tip": F[:, 1]}),
        ("mass_matrix", rd.mass_matrix, (Q,), {}),
        ("mass_matrix_inverse", rd.dynamics.mass_matrix_inverse, (Q,), {}),
        ("forward_dynamics", rd.forward_dynamics, (Q, V, A), {}),
        ("forward_dynamics crba", rd.forward_dynamics, (Q, V, A), {"method": "crba"}),
        ("gravity_forces", rd.gravity_forces, (Q,), {}),
        ("velocity_forces", rd.velocity_forces, (Q, V), {}),
        ("bias_forces", rd.bias_forces, (Q, V), {}),
        ("coriolis_matrix", rd.coriolis_matrix, (Q, V), {}),
        ("christoffel", rd.christoffel, (Q,), {}),
        ("mass_matrix_derivative", rd.coriolis.mass_matrix_derivative, (Q,), {}),
        ("mass_matrix_dot", rd.coriolis.mass_matrix_dot, (Q, V), {}),
        ("kinetic_energy", rd.kinetic_energy, (Q, V), {}),
        ("potential_energy", rd.potential_energy, (Q,), {}),
        ("mechanical_energy", rd.energy.mechanical_energy, (Q, V), {}),
        ("momentum", rd.energy.momentum, (Q, V), {}),
        ("centroidal_momentum", rd.energy.centroidal_momentum, (Q, V), {}),
        ("momentum_matrix", rd.energy.momentum_matrix, (Q,), {}),
        ("task_space_inertia", rd.task_space_inertia, (Q, frame), {"part": "linear"}),
        ("dc pinv", rd.taskspace.dynamically_consistent_pinv, (Q, frame), {"part": "linear"}),
    ]


@pytest.mark.parametrize("which", ["ur5", "floating"])
def test_every_batch_function_on_dask_equals_numpy_bitwise(client, which, ur5, floating, rng):
    model = ur5 if which == "ur5" else floating
    n, c = 203, 64
    Q, V, A = _states(model, rng, n)
    F = rng.normal(size=(n, model.nb, 6))
    lazy = {id(x): da.from_array(x, chunks=(c, *x.shape[1:])) for x in (Q, V, A)}
    lazy[id(F)] = da.from_array(F, chunks=(c, 2, 6))  # f_ext also split along its body axis
    calls = _calls(model, Q, V, A, F)
    results, wants = [], []
    for name, fn, args, kw in calls:
        dargs = [lazy.get(id(x), x) for x in args]
        dkw = {k: lazy.get(id(x), da.from_array(x, chunks=(c, -1)) if k == "f_tip" else x)
               for k, x in kw.items()}  # fmt: skip
        r = fn(model, *dargs, **dkw)
        want = fn(model, *args, **kw)
        assert isinstance(r, da.Array), name
        assert r.shape == want.shape and r.dtype == np.float64, name
        assert r.chunks[0] == (64, 64, 64, 11), name  # the batch chunks of q
        assert all(len(ch) == 1 for ch in r.chunks[1:]), name  # one chunk per state axis
        # the model is one key of the graph, which every chunk's task refers to
        graph = dict(r.__dask_graph__())
        assert sum(str(k).startswith("robodyn-model-") for k in graph) == 1, name
        results.append(r)
        wants.append(want)
    got = dask.compute(*results)  # on the cluster (the Client is the active scheduler)
    for (name, *_), g, w in zip(calls, got, wants):
        assert np.array_equal(g, w), name


def test_model_travels_once_not_per_chunk(client, ur5, rng):
    Q, V, A = _states(ur5, rng, 400)
    r = rd.inverse_dynamics(ur5, da.from_array(Q, chunks=(50, -1)), V, A)
    graph = dict(r.__dask_graph__())
    size_model = len(pickle.dumps(ur5))
    tasks = [t for k, t in graph.items() if isinstance(k, tuple) and k[0] == r.name]
    assert len(tasks) == 8
    # each chunk's task is a reference to the model's key, far smaller than the model
    assert all(len(pickle.dumps(t)) < size_model / 4 for t in tasks)


def test_chunks_along_a_state_axis_are_merged_and_bad_input_named(client, ur5, rng):
    Q, V, A = _states(ur5, rng, 100)
    dq = da.from_array(Q, chunks=(30, 2))  # split along the nq axis
    r = rd.mass_matrix(ur5, dq)
    assert r.chunks == ((30, 30, 30, 10), (6,), (6,))
    assert np.array_equal(r.compute(), rd.mass_matrix(ur5, Q))
    with pytest.raises(ValueError, match=r"q must have shape \(\.\.\., 6\), got \(100, 5\)"):
        rd.mass_matrix(ur5, da.from_array(Q[:, :5], chunks=(30, -1)))
    with pytest.raises(ValueError, match="'coulomb_eps' cannot be a dask array"):
        rd.inverse_dynamics(ur5, dq, V, A, coulomb_eps=da.zeros(()))
    bad = Q.copy()
    bad[57, 2] = np.nan  # state 7 of the chunk 50..99: found when the chunk is computed
    with pytest.raises(ValueError, match=r"mass_matrix on a dask chunk: q\[7\] contains NaN"):
        rd.mass_matrix(ur5, da.from_array(bad, chunks=(50, -1))).compute()
    # a single numpy state broadcasts against a dask batch, two batch axes stay two
    q2 = da.from_array(Q.reshape(10, 10, 6), chunks=(4, 5, -1))
    r2 = rd.inverse_dynamics(ur5, q2, V[0], A[0])
    assert r2.chunks[:2] == ((4, 4, 2), (5, 5))
    assert np.array_equal(r2.compute(), rd.inverse_dynamics(ur5, Q, V[0], A[0]).reshape(10, 10, 6))


def test_numpy_calls_never_import_dask():
    code = (
        "import sys, numpy as np, robodyn as rd\n"
        "m = rd.models.load('ur5'); q = np.zeros((3, 6))\n"
        "rd.inverse_dynamics(m, q, q, q); rd.fk(m, q, 'ee'); rd.kinetic_energy(m, q, q)\n"
        "rd.inverse_dynamics(m, [0.0] * 6, q, q)\n"
        "print(any(k == 'dask' or k.startswith('dask.') for k in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ----------------------------------------------------- no wrapper: each function answers dask
def _batched_functions():
    """Every function marked ``@batched`` in robodyn's sources (each module imported)."""
    import importlib
    import pathlib

    from robodyn.kernels.call import BATCHED

    root = pathlib.Path(rd.__file__).parent
    marked = set()
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text())
        names = [
            f.name
            for f in tree.body
            if isinstance(f, ast.FunctionDef)
            and any(
                getattr(getattr(d, "func", d), "id", None) == "batched" for d in f.decorator_list
            )
        ]
        if names:
            mod = ".".join(("robodyn", *path.relative_to(root).with_suffix("").parts))
            module = importlib.import_module(mod)
            marked |= {getattr(module, n) for n in names}
    assert marked == set(BATCHED)  # the registry holds every marked function, nothing else
    return sorted(marked, key=lambda f: (f.__module__, f.__name__))


def test_batch_functions_are_one_wrapper_over_their_own_code():
    """Each public batch function is its own code under one wrapper (``batched``: it hands
    a call that meets a dask array to kernels.lazy, with the arguments as given); the most
    used are the core's compiled entry holding that wrapper. The public object is the
    module's attribute of that name and pickles by reference (dask sends it to workers)."""
    from robodyn.kernels import core

    fns = _batched_functions()
    assert len(fns) >= 32
    entries = [fn for fn in fns if type(fn) is core.entry]
    assert {fn.__name__ for fn in entries} >= {"fk", "jacobian", "mass_matrix"}
    for fn in fns:
        wrapper = fn.__wrapped__ if type(fn) is core.entry else fn
        code = wrapper.__wrapped__
        assert inspect.isfunction(code) and not hasattr(code, "__wrapped__"), fn
        assert code.__code__.co_filename.endswith(fn.__module__.replace(".", os.sep) + ".py")
        assert code.__name__ == fn.__name__ == wrapper.__name__, fn
        assert inspect.signature(fn) == inspect.signature(code), fn
        assert getattr(sys.modules[fn.__module__], fn.__name__) is fn, fn.__qualname__
        assert pickle.loads(pickle.dumps(fn)) is fn, fn.__qualname__


def test_batch_functions_outside_the_bitwise_test_answer_dask(client, ur5, rng):
    """The functions not in _calls (the numpy references, energy's com_velocity)."""
    Q, V, _ = _states(ur5, rng, 5)
    dq, dv = da.from_array(Q, chunks=(2, -1)), da.from_array(V, chunks=(2, -1))
    calls = [
        (rd.coriolis.christoffel_reference, (Q,), (dq,)),
        (rd.coriolis.mass_matrix_derivative_reference, (Q,), (dq,)),
        (rd.coriolis.coriolis_matrix_reference, (Q, V), (dq, dv)),
        (rd.energy.com_velocity, (Q, V), (dq, V)),
    ]
    for fn, args, dargs in calls:
        r = fn(ur5, *dargs)
        assert isinstance(r, da.Array) and r.chunks[0] == (2, 2, 1), fn.__name__
        assert np.array_equal(r.compute(), fn(ur5, *args)), fn.__name__


# ------------------------------------------------------------------------ rollouts
def test_ten_thousand_rollouts_on_the_cluster_equal_the_local_run(client, ur5, rng):
    N = 10_000
    Q = rng.uniform(-1.0, 1.0, (N, ur5.nq))
    V = rng.normal(scale=0.2, size=(N, ur5.nv))
    ctrl = rd.control.PD(ur5, np.full(ur5.nv, 0.3), 20.0, 2.0, gravity_compensation=True)
    opts = {"duration": 0.02, "dt": 0.002}
    lazy = rd.simulate(ur5, Q, V, ctrl, client=client, **opts)
    assert lazy.q.shape == (N, 11, ur5.nq) and len(lazy.q.chunks[0]) > 1
    got = lazy.compute()
    want = rd.simulate(ur5, Q, V, ctrl, **opts)
    for k in ("q", "v", "a", "tau"):
        assert np.array_equal(getattr(got, k), getattr(want, k)), k
    # q0 as a dask array: the same rollouts, one chunk of rollouts per chunk of q0
    lazy2 = rd.simulate(ur5, da.from_array(Q[:999], chunks=(250, -1)), V[:999], ctrl, **opts)
    assert lazy2.q.chunks[0] == (250, 250, 250, 249)
    assert np.array_equal(lazy2.q.compute(), want.q[:999])


MC = {"n": 1000, "duration": 0.02, "dt": 0.002, "mass_sigma": 0.15, "friction_sigma": 0.3,
      "seed": 4}  # fmt: skip


@pytest.fixture(scope="module")
def controller(ur5):
    return rd.control.PD(ur5, np.full(ur5.nv, 0.2), 30.0, 3.0, gravity_compensation=True)


@pytest.fixture(scope="module")
def mc_local(ur5, controller):
    """The Monte-Carlo rollouts run here, one by one, without Dask."""
    q0, v0 = rd.neutral(ur5), np.zeros(ur5.nv)
    out = {"q_final": [], "v_final": [], "tau_peak": [], "mass_scale": []}
    for i in range(MC["n"]):
        m, ms, _ = sweep.perturbation(ur5, MC["seed"], i, MC["mass_sigma"], MC["friction_sigma"])
        tr = rd.simulate(m, q0, v0, controller, duration=MC["duration"], dt=MC["dt"])
        out["q_final"].append(tr.q[-1])
        out["v_final"].append(tr.v[-1])
        out["tau_peak"].append(np.abs(tr.tau).max(axis=0))
        out["mass_scale"].append(ms)
    return {k: np.array(v) for k, v in out.items()}


def test_perturbation_draws_lognormal_masses_and_friction(ur5):
    m, ms, fs = sweep.perturbation(ur5, 1, 2, 0.1, 0.2)
    assert np.array_equal(m.body_mass, ur5.body_mass * ms)
    assert np.array_equal(m.dof_friction, ur5.dof_friction * fs)
    logs = np.log([sweep.perturbation(ur5, 1, i, 0.1, 0.2)[1][1:] for i in range(400)])
    assert abs(logs.std() - 0.1) < 0.01 and abs(logs.mean()) < 0.01


class _KillOnce(WorkerPlugin):
    """On every worker: writes one file per start of a chunk task (``<key>@<pid>@<uuid>``) in
    ``folder``, and when the ``kill_at``-th start of the sweep begins, writes the task's
    key and the worker's address to ``folder/killed`` and ends the worker process at once,
    with that task executing on it (its nanny starts a new worker)."""

    def __init__(self, folder, kill_at: int):
        self.folder, self.kill_at = str(folder), kill_at

    def setup(self, worker):
        self.worker = worker

    def transition(self, key, start, finish, **kwargs):
        if finish != "executing" or not str(key).startswith("_store_block"):
            return
        folder = pathlib.Path(self.folder)
        (folder / f"{key}@{os.getpid()}@{uuid.uuid4().hex}.run").write_text(self.worker.address)
        if len(list(folder.glob("*.run"))) < self.kill_at:
            return
        try:  # the first start to get here kills its worker, no other
            fd = os.open(folder / "killed", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.write(fd, f"{key}\n{self.worker.address}".encode())
        os.close(fd)
        os._exit(1)


def _story(key, dask_scheduler=None):
    """(start, finish, stimulus id) of every transition of ``key`` in the scheduler's log."""
    return [(t[1], t[2], t[4]) for t in dask_scheduler.story(key) if t[0] == key]


def test_sweep_survives_a_killed_worker_with_the_local_results(
    client, ur5, controller, mc_local, tmp_path
):  # fmt: skip
    before = set(client.scheduler_info()["workers"])
    runs = tmp_path / "runs"
    runs.mkdir()
    client.register_plugin(_KillOnce(runs, kill_at=3), name="kill-once")
    try:
        run = sweep.monte_carlo(ur5, controller, chunk=50, client=client,
                                out=tmp_path / "fault.zarr", **MC)  # fmt: skip
    finally:
        client.unregister_worker_plugin("kill-once")
    assert len(run.computed) == 20
    key, victim = (runs / "killed").read_text().split("\n")
    assert victim in before
    client.wait_for_workers(2, timeout=60)
    assert victim not in set(client.scheduler_info()["workers"])  # it died; a new one came
    # the task lost with it ran again, on another worker process: the workers' own records
    # (one file per start of a chunk task) ...
    starts = [f.name.split("@") for f in runs.glob("*.run")]
    keys = {k for k, _, _ in starts}
    assert len(keys) == 20  # every chunk ran, and finished (len(run.computed) above)
    pids = [pid for k, pid, _ in starts if k == key]
    assert len(pids) == 2 and pids[0] != pids[1], pids
    # ... and the scheduler's transition log: processing on the dead worker, released by
    # the worker's removal, then waiting, processing again and in memory (later forgotten)
    story = client.run_on_scheduler(_story, key)
    lost = [i for i, (a, b, why) in enumerate(story) if (a, b) == ("processing", "released")]
    assert len(lost) == 1 and "worker" in story[lost[0]][2], story
    assert [(a, b) for a, b, _ in story[lost[0] + 1 : lost[0] + 4]] == [
        ("released", "waiting"), ("waiting", "processing"), ("processing", "memory")
    ], story  # fmt: skip
    # every start on a worker was sent there by the scheduler (waiting -> processing)
    for k in keys:
        sent = sum(t[:2] == ("waiting", "processing") for t in client.run_on_scheduler(_story, k))
        assert 1 <= sum(s[0] == k for s in starts) <= sent, k
    # (read after the scheduler's log, which keeps the last 1,000 transitions only)
    got = {k: v.compute() for k, v in run.arrays.items()}
    for k in mc_local:
        assert np.array_equal(got[k], mc_local[k]), k


class StopSweep(Exception):  # noqa: N818 (an interruption, as a Ctrl-C would be)
    pass


def test_resumed_store_equals_uninterrupted_and_skips_finished_chunks(
    client, ur5, controller, mc_local, tmp_path
):  # fmt: skip
    path = tmp_path / "mc.zarr"
    opts = {**MC, "chunk": 50, "client": client, "out": path}

    def stop(i):
        if stop.n >= 5:
            raise StopSweep  # the sweep is interrupted after 5 chunks landed
        stop.n += 1

    stop.n = 0
    with pytest.raises(StopSweep):
        sweep.monte_carlo(ur5, controller, on_chunk=stop, **opts)
    g = zarr.open_group(str(path), mode="r")
    done = np.flatnonzero(g["_done"][:])
    assert 5 <= len(done) < 20
    files = {i: path / "q_final" / "c" / str(i) / "0" for i in done}
    stamps = {i: f.stat().st_mtime_ns for i, f in files.items()}
    with pytest.raises(ValueError, match="exists; pass resume=True"):
        sweep.monte_carlo(ur5, controller, **opts)
    heavy = rd.control.perturbed(ur5, 1.1)
    with pytest.raises(ValueError, match=r"'ur5' \(fingerprint .*'ur5 \(masses x1.1\)'"):
        sweep.monte_carlo(heavy, controller, resume=True, **opts)
    with pytest.raises(ValueError, match="other settings.*seed"):
        sweep.monte_carlo(ur5, controller, resume=True, **{**opts, "seed": 5})
    run = sweep.monte_carlo(ur5, controller, resume=True, **opts)
    assert run.computed == sorted(set(range(20)) - set(done))  # only the missing chunks
    assert {i: f.stat().st_mtime_ns for i, f in files.items()} == stamps
    # the same store as an uninterrupted run, and as the local rollouts
    full = sweep.monte_carlo(ur5, controller, **{**opts, "out": tmp_path / "full.zarr"})
    assert full.computed == list(range(20))
    a, b = zarr.open_group(str(path), mode="r"), zarr.open_group(str(tmp_path / "full.zarr"))
    assert dict(a.attrs) == dict(b.attrs)
    assert a.attrs["model_fingerprint"] == model_fingerprint(ur5)
    for k in ("mass_scale", "friction_scale", "q_final", "v_final", "tau_peak", "_done"):
        assert np.array_equal(a[k][:], b[k][:]), k
    for k in mc_local:
        assert np.array_equal(run.arrays[k].compute(), mc_local[k]), k


def test_workspace_map_matches_manipulability_and_fk(client, ur5, tmp_path):
    run = sweep.workspace_map(ur5, "ee", (1, 2), 12, chunk=50, client=client,
                              out=tmp_path / "ws.zarr", kind="body", part="linear")  # fmt: skip
    p, w = run.arrays["p"].compute(), run.arrays["manipulability"].compute()
    axes = sweep.workspace_grid(ur5, (1, 2), 12)
    for k in (0, 17, 143):
        q = rd.neutral(ur5)
        q[1], q[2] = axes[0][k // 12], axes[1][k % 12]
        assert np.array_equal(p[k], rd.fk(ur5, q, "ee")[:3, 3])
        assert w[k] == pytest.approx(rd.manipulability(ur5, q, "ee", "body", "linear"), rel=1e-12)


def test_sweep_command_on_the_cluster_and_resumed(client, tmp_path, capsys):
    from robodyn.cli import main

    store = tmp_path / "ws.zarr"
    argv = ["sweep", "workspace", "planar_2r", "--joints", "1", "2", "--points", "9",
            "--part", "3,4", "--chunk", "20", "--out", str(store), "--no-progress",
            "--scheduler-address", client.scheduler.address]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "81 configurations of 'planar_2r'" in out and "(5 chunks computed)" in out
    assert main(argv) == 2  # the store exists
    assert "pass --resume" in capsys.readouterr().err
    assert main([*argv, "--resume"]) == 0
    assert "(0 chunks computed)" in capsys.readouterr().out
    # the planar 2R arm of course notes 003 (l1 = 0.5, l2 = 0.4 m): the tip's linear
    # Jacobian has |det| = l1 l2 |sin q2|, whatever q1; the grid is [-pi, pi] per joint
    g = zarr.open_group(str(store), mode="r")
    w = g["manipulability"][:].reshape(9, 9)
    q = np.linspace(-np.pi, np.pi, 9)
    assert np.allclose(w, 0.5 * 0.4 * np.abs(np.sin(q))[None, :], rtol=0, atol=1e-15)
    p = g["p"][:].reshape(9, 9, 3)
    q1, q2 = np.meshgrid(q, q, indexing="ij")
    assert np.allclose(p[..., 0], 0.5 * np.cos(q1) + 0.4 * np.cos(q1 + q2), atol=1e-15)


def test_bench_dask_section_quick(tmp_path):
    import json

    from robodyn.bench import main as bench_main

    js = tmp_path / "b.json"
    assert (
        bench_main(
            ["--quick", "--only", "dask", "--models", "ur5", "--no-progress", "--json", str(js)]
        )
        == 0
    )
    rows = json.loads(js.read_text())["dask"]
    assert [r["chunk"] for r in rows] == [None, 1000, 10000]
    for r in rows:
        assert r["n_states"] == 20_000 and r["median_s"] > 0 and r["cpu_s"] > 0
        assert r["overhead"] == pytest.approx(r["median_s"] / rows[0]["median_s"] - 1)
