"""The ``simulate`` section of ``robodyn bench``: whole simulations, robodyn beside its peers.

* ``panda``, computed torque along a quintic for 10 s at 1 kHz with RK4 (40,000 dynamics
  evaluations): :func:`robodyn.simulate` with :class:`robodyn.control.ComputedTorque` on
  :func:`robodyn.trajectory.joint_trajectory` (it runs whole in the compiled core),
  beside the same loop written over Pinocchio in Python (``pin.rnea`` for the controller,
  ``pin.aba`` for the dynamics, the same RK4).
  The same run streamed to disk (``out=``): its ratio to the run in memory, in the row.
* ``panda``, force control pressing on a table for 10 s at 1 kHz with RK4:
  :class:`robodyn.control.ForceControl` (MR eq. 11.47) pushing 20 N through a flat foot of
  three points on a compliant :class:`robodyn.sim.Environment` table (the Python loop over
  the batch kernels: no peer runs the same law and contacts); its check is the force error
  at the end, ``|f_n - F_d| / F_d`` (issue 31: within 2 %).
* ``ur5``, 1,000 open-loop rollouts of 1 s at 1 kHz with RK4: one batched
  :func:`robodyn.simulate`, beside ``mujoco.rollout`` on the model written by robodyn's
  MJCF converter (contacts off, RK4, the same step) and the loop over Pinocchio (a few
  rollouts; the time is per rollout-step).
* ``ur5``, task-space computed torque for 2 s at 1 kHz with RK4 (8,000 evaluations):
  :class:`robodyn.control.TaskSpaceComputedTorque` along a
  :func:`robodyn.trajectory.screw_trajectory` (it runs whole in the compiled core, with
  its damped least-squares inverse), beside the same run under the joint-space
  :class:`robodyn.control.ComputedTorque` along a quintic (issue 29: within 3x its time).
* ``solo12`` on its floating base (example-robot-data), 1 s at 1 kHz with RK4 (4,000
  evaluations), open loop and under :class:`robodyn.control.PD` to a pose: the compiled
  rollout (issue 29: the step on SE(3) in C), beside the Python loop it took before
  (robodyn's own, forced by a plain callable controller) and, open loop, the same Lie-group
  RK4 written over Pinocchio in Python (``pin.aba``, ``pin.integrate``, and
  ``pin.dIntegrate`` for the stages' chart rates).

* ``panda``, the time-optimal time scaling (MR sec. 9.4) of a 7-DoF via-point path on 1,000
  grid points under the URDF's torque limits: :func:`robodyn.trajectory.time_optimal`
  (TOPP-RA's reachability passes), beside the ``toppra`` package on the same path (its
  ``SplineInterpolator`` through the same via points, ``JointTorqueConstraint`` on
  Pinocchio's ``rnea`` with the same discretization, the interpolation scheme, and its
  seidel LP solver), from the limits to a trajectory that can be followed.

Each run is checked before it is timed: the final states agree with the peer's (the
task-space run: with the same law called from the Python loop; the time-optimal scaling:
the durations within 1 %).
"""

from __future__ import annotations

import time

import numpy as np

from .common import _row
from .robots import _build_case, mjcf_from

__all__ = ["run_simulate"]


def _pin_rk4(pin, pm, pd, q, v, h, K, control):
    """The fixed-step loop a Pinocchio user writes: RK4 on (q, v), a = aba(q, v, tau)."""
    for k in range(K):
        t = k * h
        a1 = pin.aba(pm, pd, q, v, control(t, q, v))
        q2, v2 = q + 0.5 * h * v, v + 0.5 * h * a1
        a2 = pin.aba(pm, pd, q2, v2, control(t + 0.5 * h, q2, v2))
        q3, v3 = q + 0.5 * h * v2, v + 0.5 * h * a2
        a3 = pin.aba(pm, pd, q3, v3, control(t + 0.5 * h, q3, v3))
        q4, v4 = q + h * v3, v + h * a3
        a4 = pin.aba(pm, pd, q4, v4, control(t + h, q4, v4))
        q = q + h / 6 * (v + 2 * (v2 + v3) + v4)
        v = v + h / 6 * (a1 + 2 * (a2 + a3) + a4)
    return q, v


def _best(fn, repeat: int) -> tuple[float, list[float]]:
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - t0)
    return min(runs), runs


def _streamed(m, q_a, ctrl, dur, best_memory, repeat, rd_row) -> None:
    """The same run streamed to disk (``out=``): its cost over the run in memory (issue 26:
    at most 10 %) goes into ``rd_row`` (``streamed_ratio``, and the call's text), its
    samples checked equal to the run in memory."""
    import tempfile
    from pathlib import Path

    from ..sim import Trajectory, simulate

    with tempfile.TemporaryDirectory() as tmp:
        paths = iter(Path(tmp) / f"run{k}.npz" for k in range(repeat + 1))

        def rd_out():  # a new file each time, as a user's run writes
            return simulate(m, q_a, controller=ctrl, duration=dur, dt=1e-3, friction=False,
                            out=next(paths))  # fmt: skip

        res = rd_out()
        same = np.array_equal(Trajectory.load(Path(tmp) / "run0.npz").q, res.q)
        best, _ = _best(rd_out, repeat)
    rd_row["streamed_ratio"] = best / best_memory
    rd_row["call"] += f"; streamed to disk (out=): {best / best_memory:.3f}x"
    if not same:
        rd_row["status"] = "FAIL"


def run_simulate(cfg, libs: dict, prog, cases: dict) -> list[dict]:
    """Rows of the simulate section (see the module docstring)."""
    pin, mujoco = libs.get("pinocchio"), libs.get("mujoco")
    repeat = 1 if cfg.quick else 3
    prog.show("simulate: panda computed torque")
    case = cases.get("panda") or _build_case("panda", cfg, pin)
    rows = _computed_torque_rows(cfg, pin, case, repeat)
    prog.show("simulate: panda force control on a table")
    rows.append(_force_row(cfg, case, repeat))
    prog.step()
    prog.show("simulate: ur5 open-loop rollouts")
    case = cases.get("ur5") or _build_case("ur5", cfg, pin)
    rows += _rollout_rows(cfg, pin, mujoco, case, repeat)
    prog.show("simulate: ur5 task-space computed torque")
    rows.append(_task_space_row(cfg, case, repeat))
    prog.step()
    prog.show("simulate: solo12 floating base")
    try:
        case = cases.get("solo12") or _build_case("solo12", cfg, pin)
    except FileNotFoundError:  # no example-robot-data: no solo12 rows
        case = None
    if case is not None:
        rows += _floating_rows(cfg, pin, case, repeat)
    prog.show("simulate: panda time-optimal scaling")
    rows += _time_optimal_rows(pin, cases.get("panda") or _build_case("panda", cfg, pin))
    prog.step()
    return rows


def _computed_torque_rows(cfg, pin, case, repeat: int) -> list[dict]:
    """The Panda under computed torque along a quintic, 10 s at 1 kHz with RK4: robodyn,
    the same loop over Pinocchio, and robodyn's run streamed to disk."""
    from .. import control
    from ..sim import simulate
    from ..trajectory import joint_trajectory

    m = case.model
    dur = 0.5 if cfg.quick else 10.0
    q_a = np.zeros(m.nv) + 0.1
    ref = joint_trajectory(q_a, q_a + 0.5, dur, time_scaling="quintic")
    ctrl = control.ComputedTorque(m, ref, kp=100.0, kd=20.0, friction=False)
    K = round(dur / 1e-3)

    def rd_ct():
        return simulate(m, q_a, controller=ctrl, duration=dur, dt=1e-3, friction=False)

    res = rd_ct()
    best, runs = _best(rd_ct, repeat)
    rd_row = _row("simulate", "panda", "computed torque, RK4", "robodyn",
                  call=f"simulate {dur:g} s at 1 kHz, ComputedTorque ({4 * K} evaluations)",
                  median_s=best, runs_s=runs, n_states=K)  # fmt: skip
    rows = [rd_row]
    if pin is not None:
        rows.append(_pin_computed_torque(pin, case, ref, q_a, K, res, best, repeat, rd_row))
    _streamed(m, q_a, ctrl, dur, best, repeat, rd_row)
    return rows


def _force_row(cfg, case, repeat: int) -> dict:
    """The Panda pressing 20 N on a table under ForceControl, 10 s at 1 kHz with RK4 (0.5 s
    quick), timed; the force error at the end is the row's check (2 %)."""
    from .. import control
    from ..kinematics import fk
    from ..sim import ContactPoint, Environment, Plane, simulate

    m, F = case.model, 20.0
    dur = 0.5 if cfg.quick else 10.0
    q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])  # the tool points down
    frame = "ee" if "ee" in m.frame_names else m.frame_names[-1]
    table = Plane([0, 0, fk(m, q0, frame)[2, 3] - 0.002], stiffness=1e4, damping=100.0,
                  friction=0.2)  # fmt: skip
    foot = [ContactPoint(frame, [0.02 * np.cos(a), 0.02 * np.sin(a), 0.0])
            for a in (0.0, 2 * np.pi / 3, 4 * np.pi / 3)]  # fmt: skip
    env = Environment(m, foot, [table])
    ctrl = control.ForceControl(m, frame, [0, 0, 0, 0, 0, F], 0.5, [0, 0, 0, 0, 0, 10.0],
                                kdamp=[2, 2, 2, 100, 100, 100], k_null=2.0)  # fmt: skip
    runs, res = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = simulate(m, q0, controller=ctrl, duration=dur, dt=1e-3, environment=env)
        runs.append(time.perf_counter() - t0)
    err = abs(res.contact_force[-1, :, 2].sum() - F) / F
    K = round(dur / 1e-3)
    return _row("simulate", "panda", "force control, RK4", "robodyn",
                call=f"simulate {dur:g} s at 1 kHz, ForceControl pressing {F:g} N on a table "
                     f"(3 contacts, {4 * K} evaluations, the Python loop): force error at the "
                     f"end {err:.1e} (issue 31: within 2 %)",
                median_s=min(runs), runs_s=runs, n_states=K, force_error=err,
                status="ok" if err < 0.02 else "FAIL", check_err=err)  # fmt: skip


def _pin_computed_torque(pin, case, ref, q_a, K, res, best, repeat, rd_row) -> dict:
    """Pinocchio's row: the same computed-torque RK4 loop in Python over ``pin.rnea`` and
    ``pin.aba``, checked against robodyn's run mid-move; the ratio and the check go into
    robodyn's row ``rd_row``."""
    m = case.model
    pm, pd = case.pin_model, case.pin_model.createData()
    to_pin, v_pin = case.pmap.q_to_pin, case.pmap.v_to_pin

    def pin_ctrl(t, q, v):
        qd, vd, ad = ref(t)
        e = to_pin(qd) - q
        return pin.rnea(pm, pd, q, v, v_pin(ad) + 20.0 * (v_pin(vd) - v) + 100.0 * e)

    def pin_ct():
        return _pin_rk4(pin, pm, pd, to_pin(q_a), v_pin(np.zeros(m.nv)), 1e-3, K, pin_ctrl)

    # checked mid-move (at the end both have settled on the target to the last bit)
    q_mid, _ = _pin_rk4(pin, pm, pd, to_pin(q_a), v_pin(np.zeros(m.nv)), 1e-3, K // 2,
                        pin_ctrl)  # fmt: skip
    err = float(np.max(np.abs(q_mid - to_pin(res.q[K // 2]))))
    best_p, runs_p = _best(pin_ct, repeat)
    rd_row["ratio_to_pinocchio"] = best / best_p
    rd_row["status"], rd_row["check_err"] = ("ok" if err < 1e-8 else "FAIL"), err
    return _row("simulate", "panda", "computed torque, RK4", "pinocchio",
                call="the same RK4 loop in Python over pin.rnea and pin.aba",
                median_s=best_p, runs_s=runs_p, n_states=K, status="reference")  # fmt: skip


def _task_space_row(cfg, case, repeat: int) -> dict:
    """The UR5's tool following a screw path by task-space computed torque, 2 s at 1 kHz
    with RK4, beside the same run under joint-space computed torque (the ratio in the row,
    issue 29: at most 3x); checked first against the same law called from the Python loop
    over the first 0.1 s (the samples q, v, a, tau)."""
    from .. import control
    from ..kinematics import fk
    from ..sim import simulate
    from ..spatial import exp6
    from ..trajectory import joint_trajectory, screw_trajectory

    m, frame = case.model, case.frame
    dur = 0.5 if cfg.quick else 2.0
    q_a = np.array([0.3, -1.0, 1.2, -0.5, 1.1, 0.2])
    X_a = fk(m, q_a, frame)
    X_b = X_a @ exp6([0.2, -0.3, 0.4, 0.05, -0.08, 0.1])
    ts = control.TaskSpaceComputedTorque(m, frame, screw_trajectory(X_a, X_b, 0.75 * dur),
                                         100.0, 20.0, friction=False)  # fmt: skip
    ct = control.ComputedTorque(m, joint_trajectory(q_a, q_a + 0.5, 0.75 * dur), kp=100.0,
                                kd=20.0, friction=False)  # fmt: skip
    K = round(dur / 1e-3)

    def run(ctrl, duration=dur):
        return simulate(m, q_a, controller=ctrl, duration=duration, dt=1e-3, friction=False)

    fast, slow = run(ts, 0.1), run(lambda t, q, v: ts(t, q, v), 0.1)
    err = max(float(np.max(np.abs(getattr(fast, x) - getattr(slow, x))))
              for x in ("q", "v", "a", "tau"))  # fmt: skip
    best, runs = _best(lambda: run(ts), repeat)
    best_j, _ = _best(lambda: run(ct), repeat)
    ratio = best / best_j
    return _row("simulate", "ur5", "task-space CT, RK4", "robodyn",
                call=f"simulate {dur:g} s at 1 kHz, TaskSpaceComputedTorque along a screw path "
                     f"({4 * K} evaluations): {ratio:.2f}x the joint-space ComputedTorque's "
                     f"{best_j * 1e3:.1f} ms (issue 29: at most 3x)",
                median_s=best, runs_s=runs, n_states=K, joint_space_s=best_j,
                ratio_to_joint_space=ratio, status="ok" if err < 1e-10 else "FAIL",
                check_err=err)  # fmt: skip


def _rollout_rows(cfg, pin, mujoco, case, repeat: int) -> list[dict]:
    """The UR5's 1,000 open-loop rollouts of 1 s at 1 kHz with RK4 in one batched
    ``simulate``, beside ``mujoco.rollout`` and the loop over Pinocchio (per rollout-step)."""
    from ..sim import simulate

    m = case.model
    N, dur = (50, 0.1) if cfg.quick else (1000, 1.0)
    K = round(dur / 1e-3)
    rng = np.random.default_rng(cfg.seed)
    q0 = rng.uniform(-1.0, 1.0, (N, m.nq))
    v0 = rng.uniform(-1.0, 1.0, (N, m.nv))

    def rd_roll():
        return simulate(m, q0, v0, duration=dur, dt=1e-3, friction=False)

    res = rd_roll()
    best, runs = _best(rd_roll, repeat)
    per = best / (N * K)
    rd_row = _row("simulate", "ur5", "open-loop rollouts, RK4", "robodyn",
                  call=f"simulate {N} rollouts x {K} steps in one batch", median_s=per,
                  runs_s=[r / (N * K) for r in runs], n_states=N * K)  # fmt: skip
    rows = [rd_row]
    if mujoco is not None:
        rows.append(_mujoco_rollouts(cfg, mujoco, m, q0, v0, K, res, repeat, rd_row))
    if pin is not None:
        n_pin = 2 if cfg.quick else 5
        rows.append(_pin_rollouts(pin, case, q0, v0, K, n_pin, res, repeat, rd_row))
    return rows


def _mujoco_rollouts(cfg, mujoco, m, q0, v0, K, res, repeat, rd_row) -> dict:
    """MuJoCo's row: ``mujoco.rollout`` on the MJCF written from robodyn's Model (RK4, the
    same step, contacts off), checked on the final states; its ratio goes into ``rd_row``."""
    from mujoco import rollout

    N = len(q0)
    mm = mujoco.MjModel.from_xml_string(mjcf_from(m))
    mm.opt.timestep = 1e-3
    mm.opt.integrator = int(mujoco.mjtIntegrator.mjINT_RK4)
    datas = [mujoco.MjData(mm) for _ in range(max(cfg.threads))]
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state0 = np.empty((N, mujoco.mj_stateSize(mm, spec)))
    for i in range(N):
        datas[0].qpos[:], datas[0].qvel[:] = q0[i], v0[i]
        mujoco.mj_getState(mm, datas[0], state0[i], spec)
    ctrl0 = np.zeros((N, K, mm.nu))

    def mj_roll():
        return rollout.rollout(mm, datas, state0, ctrl0, nstep=K)[0]

    st = mj_roll()
    err = float(np.max(np.abs(st[:, -1, 1 : 1 + m.nq] - res.q[:, -1])))
    best_m, runs_m = _best(mj_roll, repeat)
    rd_row["ratio_to_mujoco"] = rd_row["median_s"] / (best_m / (N * K))
    return _row("simulate", "ur5", "open-loop rollouts, RK4", "mujoco",
                call=f"mujoco.rollout, {len(datas)} thread(s), RK4, contacts off",
                median_s=best_m / (N * K), runs_s=[r / (N * K) for r in runs_m],
                n_states=N * K, status="ok" if err < 1e-8 else "FAIL",
                check_err=err)  # fmt: skip


def _pin_rollouts(pin, case, q0, v0, K, n_pin, res, repeat, rd_row) -> dict:
    """Pinocchio's row: the RK4 loop in Python over ``pin.aba`` on the first ``n_pin``
    rollouts, checked on their final states; the ratio and the check go into ``rd_row``."""
    pm, pd = case.pin_model, case.pin_model.createData()
    zero = np.zeros(case.model.nv)

    def pin_roll():
        return [
            _pin_rk4(pin, pm, pd, case.pmap.q_to_pin(q0[i]), case.pmap.v_to_pin(v0[i]),
                     1e-3, K, lambda t, q, v: zero)[0]
            for i in range(n_pin)
        ]  # fmt: skip

    ends = pin_roll()
    err = max(
        float(np.max(np.abs(ends[i] - case.pmap.q_to_pin(res.q[i, -1])))) for i in range(n_pin)
    )
    best_p, runs_p = _best(pin_roll, repeat)
    rd_row["ratio_to_pinocchio"] = rd_row["median_s"] / (best_p / (n_pin * K))
    rd_row["status"], rd_row["check_err"] = ("ok" if err < 1e-8 else "FAIL"), err
    return _row("simulate", "ur5", "open-loop rollouts, RK4", "pinocchio",
                call=f"the RK4 loop in Python over pin.aba, {n_pin} rollouts",
                median_s=best_p / (n_pin * K), runs_s=[r / (n_pin * K) for r in runs_p],
                n_states=n_pin * K, status="reference")  # fmt: skip


def _floating_rows(cfg, pin, case, repeat: int) -> list[dict]:
    """solo12 on its floating base, open loop and under PD to a pose: the compiled rollout
    beside robodyn's Python loop (the road before issue 29), each checked equal to it first
    (the samples q, v, a, tau), and the open loop beside the Lie-group RK4 over Pinocchio."""
    from .. import control
    from ..model.configuration import integrate, neutral
    from ..sim import simulate

    m = case.model
    dur = 0.1 if cfg.quick else 1.0
    K = round(dur / 1e-3)
    q0 = neutral(m)
    q0[2] = 0.3
    v0 = np.linspace(-1.0, 1.0, m.nv)
    pd = control.PD(m, integrate(m, q0, np.linspace(0.2, -0.2, m.nv)))
    rows = []
    for name, ctrl in (("floating base, RK4", None), ("floating base PD, RK4", pd)):
        slow_ctrl = (lambda t, q, v: np.zeros(np.shape(v))) if ctrl is None else (
            lambda t, q, v, c=ctrl: c(t, q, v))  # fmt: skip

        def run(c, duration=dur):
            return simulate(m, q0, v0, controller=c, duration=duration, dt=1e-3, friction=False)

        fast, slow = run(ctrl), run(slow_ctrl)
        err = max(float(np.max(np.abs(getattr(fast, x) - getattr(slow, x))))
                  for x in ("q", "v", "a", "tau"))  # fmt: skip
        best, runs = _best(lambda c=ctrl: run(c), repeat)
        best_py, _ = _best(lambda c=slow_ctrl: run(c), repeat)
        law = "no controller" if ctrl is None else "PD to a pose (every dof)"
        rd_row = _row("simulate", "solo12", name, "robodyn",
                      call=f"simulate {dur:g} s at 1 kHz, {law} ({4 * K} evaluations): "
                           f"{best / best_py:.3f}x robodyn's Python loop ({best_py * 1e3:.0f} ms, "
                           "the road before issue 29)",
                      median_s=best, runs_s=runs, n_states=K, python_loop_s=best_py,
                      ratio_to_python_loop=best / best_py,
                      status="ok" if err < 1e-10 else "FAIL", check_err=err)  # fmt: skip
        rows.append(rd_row)
        if ctrl is None and pin is not None:
            rows.append(_pin_floating(pin, case, q0, v0, K, fast, best, repeat, rd_row))
    return rows


def _pin_lie_rk4(pin, pm, pd, q, v, h, K):
    """RK4 on a Pinocchio model's configuration manifold, open loop: the stages at
    q (+) d_i with chart rates dIntegrate(q, d_i)^-1 v_i, the Munthe-Kaas step robodyn takes
    (a Pinocchio user's loop; without the rates it is second order on SE(3))."""
    arg = pin.ArgumentPosition.ARG1
    tau = np.zeros(pm.nv)

    def rate(d, x):
        return np.linalg.solve(pin.dIntegrate(pm, q, d, arg), x)

    for _ in range(K):
        a1 = pin.aba(pm, pd, q, v, tau)
        d2, v2 = 0.5 * h * v, v + 0.5 * h * a1
        a2 = pin.aba(pm, pd, pin.integrate(pm, q, d2), v2, tau)
        r2 = rate(d2, v2)
        d3, v3 = 0.5 * h * r2, v + 0.5 * h * a2
        a3 = pin.aba(pm, pd, pin.integrate(pm, q, d3), v3, tau)
        r3 = rate(d3, v3)
        d4, v4 = h * r3, v + h * a3
        a4 = pin.aba(pm, pd, pin.integrate(pm, q, d4), v4, tau)
        r4 = rate(d4, v4)
        q = pin.integrate(pm, q, h / 6 * (v + 2 * (r2 + r3) + r4))
        v = v + h / 6 * (a1 + 2 * (a2 + a3) + a4)
    return q, v


def _pin_floating(pin, case, q0, v0, K, res, best, repeat, rd_row) -> dict:
    """Pinocchio's row of the open-loop floating base: the Lie-group RK4 over pin.aba,
    checked on the final state; its ratio goes into ``rd_row``."""
    pm, pd = case.pin_model, case.pin_model.createData()
    q_pin, v_pin = case.pmap.q_to_pin(q0), case.pmap.v_to_pin(v0)
    q, v = _pin_lie_rk4(pin, pm, pd, q_pin, v_pin, 1e-3, K)
    err = max(float(np.max(np.abs(q - case.pmap.q_to_pin(res.q[-1])))),
              float(np.max(np.abs(v - case.pmap.v_to_pin(res.v[-1])))))  # fmt: skip
    best_p, runs_p = _best(lambda: _pin_lie_rk4(pin, pm, pd, q_pin, v_pin, 1e-3, K), repeat)
    rd_row["ratio_to_pinocchio"] = best / best_p
    if err >= 1e-8:
        rd_row["status"] = "FAIL"
    rd_row["check_err"] = max(rd_row["check_err"], err)
    return _row("simulate", "solo12", "floating base, RK4", "pinocchio",
                call="the same Lie-group RK4 in Python over pin.aba, pin.integrate and "
                     "pin.dIntegrate", median_s=best_p, runs_s=runs_p, n_states=K,
                status="reference", check_err=err)  # fmt: skip


# the time-optimal row's via points (Panda, within its joint limits), evenly spaced in s
_VIA_PANDA = [
    [0.0, -0.6, 0.0, -2.2, 0.0, 1.6, 0.8],
    [0.6, -0.2, 0.4, -1.8, 0.3, 1.9, 0.3],
    [1.2, 0.3, -0.2, -1.4, -0.3, 2.2, -0.4],
]


def _toppra_duration(toppra, pin, case, knots, tau_max, n):
    """toppra's run on the same path: a zero-argument call returning the duration; its
    inverse dynamics is Pinocchio's rnea (robodyn's without Pinocchio)."""
    import toppra.algorithm as ta
    import toppra.constraint as tc

    if pin is not None:
        pm, pd, to_pin = case.pin_model, case.pin_model.createData(), case.pmap.q_to_pin

        def inv_dyn(q, v, a):
            return pin.rnea(pm, pd, to_pin(q), v, a)
    else:
        from ..dynamics import inverse_dynamics

        def inv_dyn(q, v, a):
            return inverse_dynamics(case.model, q, v, a, friction=False)

    grid = np.linspace(0.0, 1.0, n)
    path = toppra.SplineInterpolator(np.linspace(0.0, 1.0, len(knots)), knots, bc_type="clamped")
    lim = np.column_stack([-tau_max, tau_max])

    def run():
        c = tc.JointTorqueConstraint(
            inv_dyn,
            lim,
            np.zeros(len(tau_max)),
            discretization_scheme=tc.DiscretizationType.Interpolation,
        )
        algo = ta.TOPPRA([c], path, gridpoints=grid, solver_wrapper="seidel")
        return algo.compute_trajectory(0.0, 0.0).duration

    return run


def _time_optimal_rows(pin, case) -> list[dict]:
    """The Panda's via-point path timed by ``time_optimal`` on 1,000 grid points, beside
    toppra on the same path (the ratio in robodyn's row), checked first: the durations
    within 1 % (without toppra: against robodyn's own bisection method)."""
    import logging

    from ..trajectory import spline_path, time_optimal

    m, n, repeat = case.model, 1000, 20
    knots = np.array(_VIA_PANDA)
    tau_max = np.asarray(m.effort_limit, dtype=float)
    path = spline_path(knots)

    def rd_run():
        return time_optimal(m, path, tau_max=tau_max, n=n)

    T = rd_run().duration
    best, runs = _best(rd_run, repeat)
    call = f"time_optimal, {n} grid points, reachability, tau_max = the URDF's effort limits"
    try:
        import toppra
    except ImportError:
        T_peer = time_optimal(m, path, tau_max=tau_max, n=n, method="bisection").duration
        err = abs(T - T_peer) / T_peer
        return [
            _row(
                "simulate",
                "panda",
                "time-optimal scaling",
                "robodyn",
                call=call + f" ({T:.4g} s; toppra not installed: checked against "
                "method='bisection')",
                median_s=best,
                runs_s=runs,
                n_states=n,
                duration_s=T,
                status="ok" if err < 0.01 else "FAIL",
                check_err=err,
            )
        ]
    logging.getLogger("toppra").setLevel(logging.WARNING)
    peer = _toppra_duration(toppra, pin, case, knots, tau_max, n)
    T_peer = peer()
    err = abs(T - T_peer) / T_peer
    best_p, runs_p = _best(peer, repeat)
    dyn = "pin.rnea" if pin is not None else "robodyn's rnea"
    rd_row = _row(
        "simulate",
        "panda",
        "time-optimal scaling",
        "robodyn",
        call=call + f" ({T:.4g} s): {best / best_p:.2f}x toppra's time",
        median_s=best,
        runs_s=runs,
        n_states=n,
        duration_s=T,
        ratio_to_toppra=best / best_p,
        status="ok" if err < 0.01 else "FAIL",
        check_err=err,
    )
    return [
        rd_row,
        _row(
            "simulate",
            "panda",
            "time-optimal scaling",
            "toppra",
            call=f"toppra.algorithm.TOPPRA, seidel, interpolation, inv_dyn {dyn} ({T_peer:.4g} s)",
            median_s=best_p,
            runs_s=runs_p,
            n_states=n,
            duration_s=T_peer,
            status="reference",
        ),
    ]
