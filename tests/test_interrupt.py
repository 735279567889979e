"""Ctrl-C keeps the work: real SIGINTs sent to long runs in a child process.

The compiled loops poll for signals (every 1024 steps of a rollout, every 4096 states of a
batch) and stop with what they finished; ``rd.simulate`` raises rd.SimulationInterrupted (a
KeyboardInterrupt) carrying the samples, which equal the same run's first samples; the
command line saves them and exits 130. Each run is in a child process, so a signal that
arrived at the wrong moment could not stop the test session itself.
"""

import json
import os
import re
import signal
import subprocess
import sys
import textwrap

import numpy as np

import robodyn as rd

_LONG = """
import json, os, signal, sys, threading
import numpy as np
import robodyn as rd

model = rd.models.load("panda")
q0 = rd.neutral(model)
ctrl = rd.control.PD(model, q0 + 0.3, gravity_compensation=True)
threading.Timer({delay}, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    rd.simulate(model, q0, controller=ctrl, duration={duration}, dt=1e-3, **{kw})
    print(json.dumps({{"finished": True}}))
except rd.SimulationInterrupted as stop:
    p = stop.partial
    again = rd.simulate(model, q0, controller=ctrl, duration=(len(p) - 1) * 1e-3, dt=1e-3)
    print(json.dumps({{
        "n": len(p), "keyboard": isinstance(stop, KeyboardInterrupt), "message": str(stop),
        "same": bool(np.array_equal(p.q, again.q) and np.array_equal(p.tau, again.tau)),
        "complete": p.meta["complete"],
    }}))
"""


def _child(code: str, cwd, timeout: float = 120.0) -> dict:
    env = {**os.environ, "MPLBACKEND": "Agg"}
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, timeout=timeout,
                         capture_output=True, text=True, env=env)  # fmt: skip
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _wait_for_steps(p) -> None:
    """Read the child's stderr until its progress bar reports a rate (steps done)."""
    seen = b""
    while not re.search(rb"\d step/s|\dstep/s", seen):
        chunk = os.read(p.stderr.fileno(), 4096)
        assert chunk, "the child ended before its progress bar moved"
        seen += chunk


def test_sigint_stops_the_compiled_rollout_with_the_samples_it_finished(tmp_path):
    """2,000,000 steps (~10 s or more); SIGINT after 0.5 s: the compiled loop stops within
    1024 steps and hands back a prefix of the run, bit for bit."""
    r = _child(_LONG.format(delay=0.5, duration=2000.0, kw={}), tmp_path)
    assert "finished" not in r, "the run ignored Ctrl-C"
    assert r["keyboard"] and r["same"] and r["complete"] is False
    assert 1000 < r["n"] < 2_000_001 and "interrupted (Ctrl-C)" in r["message"]


def test_sigint_during_a_streamed_run_saves_what_it_finished(tmp_path):
    out = tmp_path / "run.npz"
    kw = {"out": str(out)}
    r = _child(_LONG.format(delay=0.5, duration=2000.0, kw=kw), tmp_path)
    assert "finished" not in r and r["keyboard"] and r["same"]
    saved = rd.Trajectory.load(out)
    assert len(saved) == r["n"] and saved.meta["complete"] is False
    assert f"also saved to {out}" in r["message"]
    assert not (tmp_path / "run.npz.partial").exists()  # the streaming folder is cleaned up


_LONG_FREE = """
import json, os, signal, sys, threading, time, dataclasses
import numpy as np
import robodyn as rd
sys.path.insert(0, {tests!r})
from helpers import erd_path

solo = rd.load_urdf(erd_path("solo_description/robots/solo12.urdf"), floating_base=True)
solo = dataclasses.replace(solo, gravity=np.zeros(3))  # tumbling in space, for 2000 s
q0, v0 = rd.neutral(solo), np.linspace(-1.0, 1.0, solo.nv)
ctrl = rd.control.PD(solo, q0, 0.0, 0.01)  # a little damping on every dof
t0 = time.perf_counter()  # SIGINT once the run is surely under way (as _CONTACT_BATCH)
rd.simulate(solo, q0, v0, controller=ctrl, duration=3.0, dt=1e-3)
delay = max(0.5, 30 * (time.perf_counter() - t0))
threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    rd.simulate(solo, q0, v0, controller=ctrl, duration=2000.0, dt=1e-3)
    print(json.dumps({{"finished": True}}))
except rd.SimulationInterrupted as stop:
    p = stop.partial
    again = rd.simulate(solo, q0, v0, controller=ctrl, duration=(len(p) - 1) * 1e-3, dt=1e-3)
    print(json.dumps({{
        "n": len(p), "keyboard": isinstance(stop, KeyboardInterrupt), "message": str(stop),
        "same": bool(np.array_equal(p.q, again.q) and np.array_equal(p.tau, again.tau)),
        "nq": p.q.shape[1], "complete": p.meta["complete"],
    }}))
"""


def test_sigint_stops_a_compiled_floating_base_rollout(tmp_path):
    """solo12 on its floating base (the compiled rollout on SE(3), issue 29) for 2,000,000
    steps; SIGINT once it is under way (after 0.5 s or more) stops it with a prefix of the
    run, bit for bit."""
    tests = os.path.dirname(os.path.abspath(__file__))
    r = _child(_LONG_FREE.format(tests=tests), tmp_path)
    assert "finished" not in r, "the run ignored Ctrl-C"
    assert r["keyboard"] and r["same"] and r["complete"] is False and r["nq"] == 19
    assert 1000 < r["n"] < 2_000_001 and "interrupted (Ctrl-C)" in r["message"]


_CONSTRAINED = """
import json, os, signal, threading
import numpy as np
import robodyn as rd
from robodyn import mobile

model, con = mobile.knife_edge_model(2.5, 0.4)
q0, v0 = np.array([0.2, -0.1, 0.4]), np.array([1.2, 0.5, 0.7])

def push(t, q, v):
    return np.array([np.sin(3 * t), np.cos(2 * t), 0.3 * np.sin(t)])

kw = dict(controller=push, dt=1e-2, constraints=con)
threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    rd.simulate(model, q0, v0, duration=2000.0, **kw)
    print(json.dumps({"finished": True}))
except rd.SimulationInterrupted as stop:
    p = stop.partial
    again = rd.simulate(model, q0, v0, duration=(len(p) - 1) * 1e-2, **kw)
    names = ("t", "q", "v", "a", "tau", "constraint_violation", "constraint_force")
    print(json.dumps({
        "n": len(p), "keyboard": isinstance(stop, KeyboardInterrupt), "message": str(stop),
        "same": all(np.array_equal(getattr(p, x), getattr(again, x)[: len(p)]) for x in names),
        "complete": p.meta["complete"],
    }))
except rd.SimulationError as err:
    print(json.dumps({"error": type(err).__name__, "message": str(err)}))
"""


def test_sigint_stops_a_constrained_run_as_simulation_interrupted(tmp_path):
    """The constrained road (a Python loop over the KKT solve) stops on Ctrl-C as the
    others do: rd.SimulationInterrupted (the command line's exit 130 relies on it; it
    raised SimulationError), carrying a prefix of the run, bit for bit."""
    r = _child(_CONSTRAINED, tmp_path)
    assert "finished" not in r, "the run ignored Ctrl-C"
    assert "error" not in r, r["message"]
    assert r["keyboard"] and r["same"] and r["complete"] is False
    assert 1 < r["n"] < 200_001 and "interrupted (Ctrl-C)" in r["message"]


_CONTACT_BATCH = """
import json, os, signal, threading, time
import numpy as np
import robodyn as rd

model = rd.models.load("panda")
q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
z = rd.fk(model, q0, "ee")[2, 3] - 0.002
env = rd.sim.Environment(model, [rd.sim.ContactPoint("ee")], [rd.sim.Plane([0, 0, z])])
Q = q0 + np.linspace(-0.02, 0.02, 4)[:, None]
ctrl = rd.control.PD(model, q0, gravity_compensation=True)
kw = dict(controller=ctrl, dt=1e-3, environment=env, threads=2)
# SIGINT once the long run is surely under way: 0.5 s, or 30 times a 3,000-step run of the
# same batch on this machine now (a busy machine had not finished the run's first piece
# 0.5 s after its start, and a run stopped before its first sample has nothing to compare)
t0 = time.perf_counter()
rd.simulate(model, Q, duration=3.0, **kw)
delay = max(0.5, 30 * (time.perf_counter() - t0))
threading.Timer(delay, os.kill, (os.getpid(), signal.SIGINT)).start()
try:
    rd.simulate(model, Q, duration=2000.0, **kw)
    print(json.dumps({"finished": True}))
except rd.SimulationInterrupted as stop:
    p = stop.partial
    again = rd.simulate(model, Q, duration=(len(p) - 1) * 1e-3, **kw)
    names = ("q", "v", "a", "tau", "contact_force")
    print(json.dumps({
        "n": len(p), "shape": list(p.q.shape), "keyboard": isinstance(stop, KeyboardInterrupt),
        "message": str(stop), "complete": p.meta["complete"],
        "same": all(np.array_equal(getattr(p, x), getattr(again, x)) for x in names),
    }))
"""


def test_sigint_stops_a_compiled_batch_with_an_environment(tmp_path):
    """Four Panda rollouts against a table for 2,000,000 steps each, compiled rollouts over
    two threads advancing together in pieces: SIGINT once they are under way (after 0.5 s
    or more on a busy machine) stops them all with the samples every rollout finished, a
    prefix of the run bit for bit."""
    r = _child(_CONTACT_BATCH, tmp_path)
    assert "finished" not in r, "the run ignored Ctrl-C"
    assert r["keyboard"] and r["same"] and r["complete"] is False, r
    assert 100 < r["n"] < 2_000_001 and r["shape"] == [4, r["n"], 7]
    assert "interrupted (Ctrl-C)" in r["message"]


def test_sigint_stops_a_long_batch_call(tmp_path):
    """A batch of inverse dynamics split over threads: SIGINT at a tenth of its time stops
    it as a KeyboardInterrupt well before it would have finished (it polls every 4096
    states), measured against the same call left to finish in the same process."""
    code = """
    import json, os, signal, threading, time
    import numpy as np
    import robodyn as rd

    model = rd.models.load("panda")
    Q = rd.random_configuration(model, np.random.default_rng(0), 1_500_000)
    V = np.ones_like(Q)
    t0 = time.perf_counter()
    for _ in range(3):
        rd.inverse_dynamics(model, Q, V, V, threads=2)
    full = (time.perf_counter() - t0) / 3
    threading.Timer(0.1 * full, os.kill, (os.getpid(), signal.SIGINT)).start()
    t0 = time.perf_counter()
    try:
        rd.inverse_dynamics(model, Q, V, V, threads=2)
        stopped = None
    except KeyboardInterrupt:
        stopped = time.perf_counter() - t0
    print(json.dumps({"full": full, "stopped": stopped}))
    """
    r = _child(code, tmp_path)
    assert r["stopped"] is not None and r["stopped"] < 0.6 * r["full"], r


def test_cli_ctrl_c_saves_the_run_and_exits_130(tmp_path):
    """``robodyn simulate`` without --out: Ctrl-C saves the samples to a new file in the
    current folder, named on stderr, and exits 130 (128 + SIGINT, as a shell reports it).
    The signal is sent once the progress bar shows steps done."""
    (tmp_path / "robodyn-panda-partial.npz").write_bytes(b"a file of the user's")
    cmd = [sys.executable, "-m", "robodyn.cli", "simulate", "panda", "--controller",
           "gravity-pd", "--target", "0.3", "--duration", "2000", "--progress"]  # fmt: skip
    p = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env={**os.environ, "MPLBACKEND": "Agg"})  # fmt: skip
    _wait_for_steps(p)
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=120)
    assert p.returncode == 130, stderr.decode()
    last = stderr.decode().replace("\r", "\n").strip().splitlines()[-1]
    saved = tmp_path / "robodyn-panda-partial-1.npz"  # never over the user's file
    assert last.startswith("robodyn simulate: interrupted (Ctrl-C) at t = ")
    assert last.endswith(f"simulated are in {saved}"), last
    n = int(last.split("; the ")[1].split()[0])
    assert len(rd.Trajectory.load(saved)) == n > 0
    assert (tmp_path / "robodyn-panda-partial.npz").read_bytes() == b"a file of the user's"
    assert stdout == b""


def test_cli_ctrl_c_with_out_keeps_the_samples_there(tmp_path):
    out = tmp_path / "run.npz"
    cmd = [sys.executable, "-m", "robodyn.cli", "simulate", "panda", "--duration", "2000",
           "--progress", "--out", str(out)]  # fmt: skip
    p = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _wait_for_steps(p)
    p.send_signal(signal.SIGINT)
    _, stderr = p.communicate(timeout=120)
    assert p.returncode == 130, stderr.decode()
    assert stderr.decode().strip().endswith(f"simulated are in {out}")
    part = rd.Trajectory.load(out)
    assert part.meta["complete"] is False and 0 < len(part) < 2_000_001
    assert np.all(np.isfinite(part.q))
    assert sorted(x.name for x in tmp_path.iterdir()) == ["run.npz"]
