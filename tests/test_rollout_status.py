"""One bad rollout does not sink a batch (issue 27): ``simulate(on_divergence="mark")`` goes
on without it and says which failed, why and when; the default names it.

Oracles: the healthy rollouts of a batch equal, bit for bit, the same rollouts run alone
(a batch is N independent systems); the failed one equals its own run alone up to the
step it failed at.
"""

import numpy as np
import pytest

import robodyn as rd


@pytest.fixture(scope="module")
def arm():
    return rd.models.load("planar_2r")


def _controller(bad_row: int, t_bad: float):
    """PD on the 2R arm whose torque turns NaN for one rollout from t_bad on (a controller
    that fails for one state of a batch, e.g. a learned policy out of its domain)."""

    def ctrl(t, q, v):
        tau = 30.0 * (np.array([0.5, -0.3]) - q) - 5.0 * v
        if t >= t_bad and np.ndim(q) == 2:
            tau = tau.copy()
            tau[bad_row] = np.nan
        return tau

    return ctrl


def test_the_default_names_the_rollout_that_failed(arm):
    Q = np.zeros((4, 2))
    with pytest.raises(rd.SimulationError, match=r"rollout 2 \(of 4\): the torque is NaN or "
                       r"inf; pass on_divergence='mark'") as err:  # fmt: skip
        rd.simulate(arm, Q, controller=_controller(2, 0.05), duration=0.2, dt=1e-3)
    part = err.value.partial
    assert part.q.shape == (4, 50, 2) and np.all(np.isfinite(part.q))


@pytest.mark.parametrize("integrator", ["rk4", "semi_implicit_euler"])
def test_mark_keeps_the_healthy_rollouts_and_says_which_failed(arm, integrator, tmp_path):
    rng = np.random.default_rng(3)
    Q = rng.uniform(-1, 1, (5, 2))
    ctrl = _controller(3, 0.05)
    res = rd.simulate(arm, Q, controller=ctrl, duration=0.2, dt=1e-3, integrator=integrator,
                      on_divergence="mark", out=tmp_path / "run.npz")  # fmt: skip
    np.testing.assert_array_equal(res.status, [0, 0, 0, 3, 0])  # 3: the controller failed
    # the NaN torque is met at the first stage of the step at t = 0.05 s: the sample
    # before it is the last good one
    np.testing.assert_array_equal(res.t_end, [0.2, 0.2, 0.2, 0.049, 0.2])
    assert res.meta["failed_rollouts"] == 1
    for r in (0, 1, 2, 4):  # each healthy rollout is its own run, bit for bit
        alone = rd.simulate(arm, Q[r], controller=_controller(3, 0.05), duration=0.2,
                            dt=1e-3, integrator=integrator)  # fmt: skip
        assert np.array_equal(res.q[r], alone.q) and np.array_equal(res.tau[r], alone.tau)
    bad = res[3]
    assert np.all(np.isnan(bad.q[50:])) and np.all(np.isfinite(bad.q[:50]))
    alone = rd.simulate(arm, Q[3], controller=_controller(3, 0.05), duration=0.049, dt=1e-3,
                        integrator=integrator)  # fmt: skip
    assert np.array_equal(bad.q[:50], alone.q)
    back = rd.Trajectory.load(tmp_path / "run.npz")  # status and t_end are saved
    assert back == res and np.array_equal(back.status, res.status)


def test_mark_on_a_diverging_rollout_and_on_one_rollout():
    """A velocity of 1e200 overflows at once: that rollout diverged (status 1), the others
    run; one rollout alone (the compiled path) hands back NaN after its last sample."""
    model = rd.models.load("panda")
    q0 = rd.neutral(model)
    V = np.zeros((3, 7))
    V[1, 6] = 1e200
    res = rd.simulate(model, np.tile(q0, (3, 1)), V, duration=0.1, dt=1e-3,
                      on_divergence="mark")  # fmt: skip
    assert list(res.status) == [0, 1, 0] and np.all(np.isfinite(res.q[[0, 2]]))
    assert np.all(np.isnan(res.q[1, 2:]))
    ctrl = rd.control.PD(model, q0, 100.0, 20.0)  # beyond RK4's stable step at 1 ms
    with pytest.warns(rd.SimulationWarning):
        one = rd.simulate(model, q0, np.full(7, 5.0), controller=ctrl, duration=0.2, dt=1e-3,
                          on_divergence="mark")  # fmt: skip
    assert one.status == 1 and len(one) == 201
    k = int(round(float(one.t_end) / 1e-3))
    assert np.all(np.isfinite(one.q[: k + 1])) and np.all(np.isnan(one.q[k + 1 :]))


def test_on_divergence_is_checked(arm):
    with pytest.raises(ValueError, match="on_divergence must be 'raise' or 'mark'"):
        rd.simulate(arm, np.zeros(2), duration=0.1, dt=1e-3, on_divergence="ignore")
    with pytest.raises(ValueError, match="needs a fixed-step integrator"):
        rd.simulate(arm, np.zeros(2), duration=0.1, dt=1e-3, integrator="rk45",
                    on_divergence="mark")  # fmt: skip


def test_out_never_replaces_a_users_files(arm, tmp_path):
    """(issue 27) ``simulate(out="keep.npz")`` deleted an existing ``keep.npz.partial/``
    with whatever the user kept there, and replaced ``keep.npz`` without a word."""
    out = tmp_path / "keep.npz"
    out.write_bytes(b"the user's")
    with pytest.raises(FileExistsError, match="the file exists; pass overwrite=True"):
        rd.simulate(arm, np.zeros(2), duration=0.01, dt=1e-3, out=out)
    assert out.read_bytes() == b"the user's"
    res = rd.simulate(arm, np.zeros(2), duration=0.01, dt=1e-3, out=out, overwrite=True)
    assert rd.Trajectory.load(out) == res
    # a folder of the user's where robodyn would stream: never touched, even with overwrite
    mine = tmp_path / "run.npz.partial"
    mine.mkdir()
    (mine / "notes.txt").write_text("kept")
    for overwrite in (False, True):
        with pytest.raises(ValueError, match="is not a run robodyn left"):
            rd.simulate(arm, np.zeros(2), duration=0.01, dt=1e-3, out=tmp_path / "run.npz",
                        overwrite=overwrite)  # fmt: skip
    assert (mine / "notes.txt").read_text() == "kept"


def test_a_stopped_runs_samples_are_kept_until_asked(arm, tmp_path):
    """A run killed mid-way leaves ``<out>.partial/`` (marked as robodyn's): the next run
    with that out refuses and says how to read it; overwrite=True replaces it."""
    import subprocess
    import sys
    import textwrap

    out = tmp_path / "run.npz"
    code = textwrap.dedent(f"""
        import os, numpy as np, robodyn as rd
        from robodyn.sim._record import _Record
        _Record.MARK_EVERY = 0.0
        arm = rd.models.load("planar_2r")
        def ctrl(t, q, v):
            if t > 2.5:  # after the mark at step 2000
                os._exit(3)
            return np.zeros(2)
        rd.simulate(arm, np.zeros(2), duration=3.0, dt=1e-3, controller=ctrl, out={str(out)!r})
    """)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 3, p.stderr
    partial = tmp_path / "run.npz.partial"
    with pytest.raises(FileExistsError, match=r"holds the samples of an earlier run.*"
                       r"rd.Trajectory.load"):  # fmt: skip
        rd.simulate(arm, np.zeros(2), duration=0.01, dt=1e-3, out=out)
    assert len(rd.Trajectory.load(partial)) >= 2000
    rd.simulate(arm, np.zeros(2), duration=0.01, dt=1e-3, out=out, overwrite=True)
    assert not partial.exists() and len(rd.Trajectory.load(out)) == 11


def test_mark_on_one_rollout_of_the_python_loop(arm):
    """A single rollout under a plain callable (the Python loop): its torque turns NaN at
    t > 0.05 s (status 3); the samples before are kept, NaN after, t_end the last good."""

    def ctrl(t, q, v):
        return np.full(2, np.nan) if t > 0.05 else np.zeros(2)

    res = rd.simulate(arm, np.zeros(2), controller=ctrl, duration=0.2, dt=1e-3,
                      on_divergence="mark")  # fmt: skip
    assert res.status == 3 and res.t_end == pytest.approx(0.05) and len(res) == 201
    alone = rd.simulate(arm, np.zeros(2), duration=0.05, dt=1e-3)
    assert np.array_equal(res.q[:51], alone.q) and np.all(np.isnan(res.q[51:]))
