"""Parameter identification (issue 14): regressors against inverse dynamics and Pinocchio,
base parameters against hand derivations and an independent rank, estimation on simulated
data, bad data."""

from __future__ import annotations

import warnings

import numpy as np
import pinocchio as pin
import pytest

import robodyn as rd
from helpers import (
    JOINT_KINDS,
    erd_path,
    erd_robots,
    expect_count,
    load_pair,
    random_model,
    random_state,
    random_tree,
    rel_err,
)
from robodyn.errors import ModelWarning
from robodyn.ident import energy_regressor, parameters, regressor, regressor_reference

TOL = 1e-10
# Pinocchio's 10-vector is [m, mc, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]; robodyn's rotational
# part is [Ixx, Ixy, Ixz, Iyy, Iyz, Izz]: robodyn column k is Pinocchio column PIN[k]
PIN = [0, 1, 2, 3, 4, 5, 7, 6, 8, 9]


# ------------------------------------------------------------------ the regressor
@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
@pytest.mark.parametrize("mimic", [False, True], ids=["plain", "mimic"])
def test_regressor_times_parameters_is_inverse_dynamics_on_random_trees(rng, floating, mimic):
    model = random_model(int(rng.integers(1 << 30)), 6, floating=floating, mimic=mimic)
    q, v, a = random_state(model, rng, 24)
    for kw in (dict(), dict(friction=False, armature=False), dict(offset=True)):
        Y = regressor(model, q, v, a, **kw)
        pi = parameters(model, **kw)
        assert Y.shape == (24, model.nv, pi.size)
        tau = rd.inverse_dynamics(
            model, q, v, a, friction=kw.get("friction", True), armature=kw.get("armature", True)
        )
        assert rel_err(Y @ pi, tau) < TOL, kw
    # the compiled core == the numpy reference
    Y = regressor(model, q, v, a, offset=True)
    assert rel_err(Y, regressor_reference(model, q, v, a, offset=True)) < 1e-13
    # batch == single, and any leading dimensions
    Y = regressor(model, q, v, a)
    for k in (0, 7, 23):
        assert rel_err(regressor(model, q[k], v[k], a[k]), Y[k]) < 1e-14  # rounding only
    Y3 = regressor(model, q.reshape(4, 6, -1), v.reshape(4, 6, -1), a.reshape(4, 6, -1))
    assert Y3.shape == (4, 6, model.nv, Y.shape[-1])
    np.testing.assert_array_equal(Y3.reshape(Y.shape), Y)


def test_every_joint_type_of_mr_table_2_1(rng):
    """Spherical, planar, helical, cylindrical, universal joints and free joints anywhere,
    with friction, armature and mimics: Y pi = inverse dynamics, and the energy regressor
    (its per-state path) = kinetic + potential energy."""
    for seed in range(2):
        model = random_tree(
            int(rng.integers(1 << 30)), 10, kinds=JOINT_KINDS, damping=True, mimic=seed == 1
        )[0]
        q, v, a = random_state(model, rng, 12)
        Y = regressor(model, q, v, a, offset=True)
        pi = parameters(model, offset=True)
        assert rel_err(Y @ pi, rd.inverse_dynamics(model, q, v, a)) < TOL
        assert rel_err(regressor(model, q[5], v[5], a[5], offset=True), Y[5]) < 1e-14
        M = rd.mass_matrix(model, q)  # K = 1/2 v^T M v (armature included)
        U = -model.total_mass * (rd.com(model, q) @ model.gravity)  # U = -m g . c
        H = 0.5 * np.einsum("ni,nij,nj->n", v, M, v) + U
        assert rel_err(energy_regressor(model, q, v) @ parameters(model), H) < TOL
        with pytest.raises(rd.ModelError, match="regressor_reference takes fixed, revolute"):
            regressor_reference(model, q, v, a)


def test_regressor_on_bundled_models(rng):
    for name in rd.models.names():
        model = rd.models.load(name)
        q, v, a = random_state(model, rng, 16)
        Y = rd.regressor(model, q, v, a)
        assert rel_err(Y @ rd.parameters(model), rd.inverse_dynamics(model, q, v, a)) < TOL, name


def _pin_regressor_in_robodyn_order(model, pm, pd, mp, q, v, a):
    """Pinocchio's joint torque regressor with rows and columns in robodyn's order."""
    Yp = pin.computeJointTorqueRegressor(pm, pd, mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a))
    Yp = mp.v_from_pin(Yp.T).T  # rows (dofs) in robodyn's order; free flyer -> [w, v]
    out = np.zeros((model.nv, 10 * (model.nb - 1)))
    for j in range(1, pm.njoints):
        i = model.joint_id(pm.names[j])  # the body Pinocchio's joint j moves (same frame)
        out[:, 10 * (i - 1) : 10 * i] = Yp[:, 10 * (j - 1) : 10 * j][:, PIN]
    return out


# every example-robot-data URDF Pinocchio loads with a degree of freedom: 66, typed, so a
# robot that drops out of the comparison fails at collection instead of shrinking it
ROBOTS = expect_count(erd_robots(), 66, "example-robot-data URDFs Pinocchio loads")


@pytest.mark.parametrize("floating", [False, True], ids=["fixed", "floating"])
@pytest.mark.parametrize("path", [p for _, p in ROBOTS], ids=[n for n, _ in ROBOTS])
def test_regressor_matches_pinocchio_on_example_robot_data(path, floating):
    model, pm, pd, mp = load_pair(path, floating_base=floating)
    rng = np.random.default_rng(len(path) + floating)
    q, v, a = random_state(model, rng, 3)
    Y = regressor(model, q, v, a)
    Yi = regressor(model, q, v, a, friction=False, armature=False)
    pi = parameters(model)
    for k in range(3):
        tau = rd.inverse_dynamics(model, q[k], v[k], a[k])
        assert rel_err(Y[k] @ pi, tau) < TOL
        want = _pin_regressor_in_robodyn_order(model, pm, pd, mp, q[k], v[k], a[k])
        assert rel_err(Yi[k], want) < TOL
    # the energy regressor against Pinocchio's kinetic + potential energy (no armature)
    e = energy_regressor(model, q, v, friction=False, armature=False)
    bare = parameters(model, friction=False, armature=False)
    for k in range(3):
        qp, vp = mp.q_to_pin(q[k]), mp.v_to_pin(v[k])
        H = pin.computeKineticEnergy(pm, pd, qp, vp) + pin.computePotentialEnergy(pm, pd, qp)
        assert rel_err(e[k] @ bare, H) < TOL


def test_energy_regressor_is_the_mechanical_energy(rng):
    for floating in (False, True):
        model = random_model(int(rng.integers(1 << 30)), 5, floating=floating, mimic=True)
        q, v, _ = random_state(model, rng, 20)
        e = energy_regressor(model, q, v)
        H = rd.kinetic_energy(model, q, v) + rd.potential_energy(model, q)
        assert rel_err(e @ parameters(model), H) < TOL
        assert rel_err(energy_regressor(model, q[3], v[3]), e[3]) < 1e-14


def test_energy_regressor_rate_is_power_without_friction(rng):
    """dH/dt = v . (tau - friction) along a motion (the energy theorem): central differences
    of e(q(t), v(t)) pi against v . Y_nofriction pi."""
    model = random_model(int(rng.integers(1 << 30)), 4)
    q0, v0, a0 = random_state(model, rng)
    h = 1e-5

    def state(t):
        return rd.integrate(model, q0, v0 * t + 0.5 * a0 * t * t), v0 + a0 * t

    pi = parameters(model)
    dH = (energy_regressor(model, *state(h)) - energy_regressor(model, *state(-h))) @ pi / (2 * h)
    power = v0 @ rd.inverse_dynamics(model, q0, v0, a0, friction=False)
    assert abs(dH - power) < 1e-6 * max(1.0, abs(power))


def test_with_parameters_round_trip(rng):
    model = random_model(int(rng.integers(1 << 30)), 5, floating=True, mimic=True)
    pi = parameters(model)
    np.testing.assert_allclose(parameters(model.with_parameters(pi)), pi, rtol=1e-12, atol=1e-14)
    # a different physical model: scale the masses and inertias, new friction
    pi2 = pi.copy()
    pi2[: 10 * (model.nb - 1)] *= 1.7
    pi2[10 * (model.nb - 1) :] = rng.uniform(0.1, 1.0, pi.size - 10 * (model.nb - 1))
    m2 = model.with_parameters(pi2)
    np.testing.assert_allclose(m2.body_mass[1:], 1.7 * model.body_mass[1:], rtol=1e-14)
    q, v, a = random_state(model, rng, 8)
    assert rel_err(regressor(model, q, v, a) @ pi2, rd.inverse_dynamics(m2, q, v, a)) < TOL
    # non-physical values are kept (dynamics stay linear in them) with a warning
    pi3 = pi.copy()
    pi3[0] = -1.0
    with pytest.warns(ModelWarning, match="mass -1"):
        m3 = model.with_parameters(pi3)
    assert rel_err(regressor(model, q, v, a) @ pi3, rd.inverse_dynamics(m3, q, v, a)) < TOL
    with pytest.raises(ValueError, match=r"pi must have shape \(\d+,\)"):
        model.with_parameters(pi[:-1])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.with_parameters(pi)  # physical: no warning


def test_regressor_bad_input_names_the_argument():
    model = rd.models.load("ur5")
    q = np.zeros(6)
    with pytest.raises(ValueError, match=r"v must have shape \(\.\.\., 6\)"):
        regressor(model, q, np.zeros(5), q)
    bad = np.zeros((3, 6))
    bad[1, 2] = np.nan
    free = random_model(3, 3, floating=True)
    qf = np.zeros((2, free.nq))
    qf[:, 3] = [1.0, 0.0]  # state 1: a zero quaternion
    with pytest.raises(ValueError, match=r"q\[1\]: the quaternion of a free joint is zero"):
        regressor(free, qf, np.zeros((2, free.nv)), np.zeros((2, free.nv)))
    with pytest.raises(ValueError, match=r"^a\[1\] contains NaN or inf"):
        regressor(model, np.full((3, 6), 0.1), np.zeros((3, 6)), bad)


# ------------------------------------------------------------------ base parameters
def test_planar_2r_base_parameters_by_hand_and_symbolically():
    """The planar 2R arm (joints about z, gravity -y in the plane, joint 2 at (l1, 0, 0)).

    By hand: link 1 only rotates about z, so of its 10 parameters only Izz1 (inertia) and
    mcx1, mcy1 (gravity) act; link 2's Izz2, mcx2, mcy2 act, and its mass only through
    the motion of joint 2's origin on a circle of radius l1: it adds m2 l1^2 to the inertia
    about joint 1 and m2 l1 to link 1's first moment along x. Hence 6 base parameters:

        Izz1 + l1^2 m2,  mcx1 + l1 m2,  mcy1,  Izz2,  mcx2,  mcy2

    With joint friction (viscous and Coulomb per joint, 4 independent columns) and
    armature, the armature of joint 1 multiplies a1 exactly as Izz1 does (it joins the
    first group), that of joint 2 is new: 6 + 4 + 1 = 11.
    """
    import sympy as sp

    model = rd.models.load("planar_2r")
    l1 = sp.Rational(1, 2)
    assert np.allclose(model.jnt_p[2], [0.5, 0, 0])  # the l1 typed above
    bare = rd.base_parameters(model, friction=False, armature=False)
    assert bare.rank == 6
    exprs, s = bare.symbolic()
    want = {
        s["link1.Izz"] + l1**2 * s["link2.m"],
        s["link1.mcx"] + l1 * s["link2.m"],
        s["link1.mcy"],
        s["link2.Izz"],
        s["link2.mcx"],
        s["link2.mcy"],
    }
    assert {sp.expand(e) for e in exprs} == {sp.expand(e) for e in want}
    full = rd.base_parameters(model)
    assert full.rank == 11
    exprs, s = full.symbolic()
    assert sp.expand(s["link1.Izz"] + l1**2 * s["link2.m"] + s["joint1.armature"]) in exprs

    # an independent, fully symbolic check from rd.symbolic's Lagrange equations (masses,
    # CoM offsets r, CoM inertias I and the length L1 all symbols): written in the base
    # parameters above, the torques no longer depend on m1 or m2 separately
    eom = rd.symbolic.derive(model, "symbolic")
    x = {str(v): v for v in eom.M.free_symbols | eom.g.free_symbols}
    m1, m2, r1, r2, I1, I2, L1 = (x[n] for n in ("m1", "m2", "r1", "r2", "I1", "I2", "L1"))
    b1, b2, b3, b4 = sp.symbols("b1 b2 b3 b4", real=True)  # Izz1+L1^2 m2, mcx1+L1 m2, mcx2, Izz2
    sub = {
        r1: (b2 - L1 * m2) / m1,  # mcx1 = m1 r1 (CoM on the link's x axis)
        r2: b3 / m2,
        I1: b1 - L1**2 * m2 - m1 * ((b2 - L1 * m2) / m1) ** 2,  # Izz1 = I1 + m1 r1^2
        I2: b4 - m2 * (b3 / m2) ** 2,
    }
    for part in (eom.M, eom.g):
        e = part.subs(sub)
        for mass in (m1, m2):
            d = e.diff(mass).applyfunc(lambda t: sp.cancel(sp.expand(t)))
            assert d == sp.zeros(*e.shape), (part, mass)


def test_base_regressor_reproduces_every_torque(rng):
    """Y pi = Y_b (K pi) at fresh states, on fixed and floating random trees."""
    for floating in (False, True):
        model = random_model(int(rng.integers(1 << 30)), 5, floating=floating, mimic=True)
        b = rd.base_parameters(model, offset=True)
        q, v, a = random_state(model, rng, 30)
        Y = regressor(model, q, v, a, offset=True)
        pi = rng.normal(size=b.size)  # any parameters, physical or not
        assert rel_err(b.regressor(Y) @ b(pi), Y @ pi) < TOL
        np.testing.assert_array_equal(b.K[:, b.independent], np.eye(b.rank))


def test_ur5_base_parameter_count_matches_pinocchio_rank():
    """The UR5 has 36 base inertial parameters (no friction): robodyn's QR on its own
    regressor, for the bundled (MR) UR5 and for example-robot-data's, and the numerical
    rank (SVD, with a gap of 14 orders) of Pinocchio's stacked regressors."""
    model, pm, pd, _ = load_pair(erd_path("ur_description/urdf/ur5_robot"))
    rng = np.random.default_rng(5)
    W = np.vstack(
        [
            pin.computeJointTorqueRegressor(
                pm, pd, pin.randomConfiguration(pm), rng.normal(size=6), rng.normal(size=6)
            ).copy()
            for _ in range(40)
        ]
    )
    s = np.linalg.svd(W, compute_uv=False)
    pin_rank = int(np.sum(s > 1e-9 * s[0]))
    assert s[pin_rank - 1] > 1e-4 * s[0] and s[pin_rank] < 1e-14 * s[0]  # a clear gap
    assert pin_rank == 36
    assert rd.base_parameters(model, friction=False, armature=False).rank == 36
    bundled = rd.models.load("ur5")
    assert rd.base_parameters(bundled, friction=False, armature=False).rank == 36
    # friction (12 columns) and armature: joint 1's armature joins link 1's Izz group
    assert rd.base_parameters(bundled).rank == 36 + 12 + 4


# ------------------------------------------------------------------ estimation
@pytest.fixture(scope="module")
def ur5_experiment():
    """The bundled UR5 tracking an exciting Fourier trajectory in rd.simulate (with joint
    friction and armature set on the true model), noise-free and noisy torques."""
    from robodyn.ident import excitation_trajectory, simulate_experiment

    base = rd.models.load("ur5")
    pi = rd.parameters(base)
    nj = base.nv
    pi[60 : 60 + nj] = np.linspace(0.5, 1.5, nj)  # viscous N m s/rad
    pi[60 + nj : 60 + 2 * nj] = np.linspace(1.0, 0.3, nj)  # Coulomb N m
    pi[60 + 2 * nj :] = 0.05  # armature kg m^2
    true = base.with_parameters(pi)
    traj = excitation_trajectory(true, period=4.0, harmonics=3, maxiter=0, seed=2)
    clean = simulate_experiment(true, traj, duration=8.0, sample_dt=0.02)
    noisy = simulate_experiment(true, traj, duration=8.0, sample_dt=0.02, noise=0.5, seed=3)
    return true, traj, clean, noisy


def test_noise_free_simulation_recovers_the_base_parameters(ur5_experiment):
    true, _, clean, _ = ur5_experiment
    b = rd.base_parameters(true)
    truth = b(rd.parameters(true))
    pi = rd.parameters(true)
    with pytest.warns(ModelWarning, match="non-physical"):  # a wrong, non-physical prior
        wrong = true.with_parameters(pi * np.where(np.arange(pi.size) % 3 == 0, 1.4, 0.8))
    for method in ("ols", "wls", "consistent"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            res = rd.identify(wrong, clean.q, clean.v, clean.a, clean.tau, method=method)
        assert np.abs(res.base_parameters - truth).max() < 1e-8 * max(1, np.abs(truth).max())
        assert rel_err(res.predict(clean.q, clean.v, clean.a), clean.tau) < 1e-9
        assert res.base.rank == b.rank == 52
    # the identified model is a Model: its own inverse dynamics give the torques
    res = rd.identify(true, clean.q, clean.v, clean.a, clean.tau, method="consistent")
    tau = rd.inverse_dynamics(res.model, clean.q, clean.v, clean.a)
    assert rel_err(tau, clean.tau) < 1e-8
    assert res.physical and "physically consistent" in res.report()


def test_consistent_estimate_is_physical_and_predicts_held_out_torques_better(ur5_experiment):
    """Noisy torques (noise 0.5 x each joint's torque std), half the samples for training:
    OLS/WLS leave some bodies with an indefinite pseudo-inertia, the log-Cholesky estimate
    keeps every body physical and predicts the held-out true torques better."""
    true, _, _, noisy = ur5_experiment
    train, test = noisy.split(0.5)
    pi = rd.parameters(true)
    prior_pi = pi.copy()
    prior_pi[:60] *= 1.3  # a physical but wrong prior (every body 30 % heavier)
    prior = true.with_parameters(prior_pi)
    err, res = {}, {}
    for method in ("ols", "wls", "consistent"):
        r = rd.identify(prior, train.q, train.v, train.a, train.tau, method=method)
        res[method] = r
        err[method] = np.sqrt(np.mean((r.predict(test.q, test.v, test.a) - test.tau_true) ** 2))
    assert res["consistent"].physical, res["consistent"].violations()
    eig = np.linalg.eigvalsh(
        rd.ident.pseudo_inertia(res["consistent"].parameters[:60].reshape(6, 10))
    )
    assert np.all(eig > 0) and np.all(res["consistent"].parameters[:60:10] > 0)
    assert not res["ols"].physical  # "may not be": here it is not
    assert err["consistent"] < err["ols"], err
    # standard errors and condition number reported
    rep = res["wls"].report()
    assert "condition number" in rep and "std err" in rep
    assert np.all(np.isfinite(res["wls"].standard_errors))
    assert np.all(res["wls"].standard_errors > 0)


def test_energy_identification_needs_no_acceleration(ur5_experiment):
    """Noise-free data every 2 ms along a rich trajectory (6 harmonics: the energy model
    needs more excitation than the torque model): the energy model's base parameters
    (those of the torque model) agree with the truth to the trapezoid rule's O(dt^2)."""
    from robodyn.ident import excitation_trajectory, identify_energy, simulate_experiment

    true = ur5_experiment[0]
    traj = excitation_trajectory(true, period=8.0, harmonics=6, maxiter=0, seed=2)
    fine = simulate_experiment(true, traj, duration=8.0, dt=1e-3, sample_dt=2e-3)
    res = identify_energy(true, fine.t, fine.q, fine.v, fine.tau, window=25)
    truth = res.base(rd.parameters(true))
    assert np.abs(res.base_parameters - truth).max() < 2e-4 * np.abs(truth).max()
    assert rel_err(res.predict(fine.q, fine.v, fine.a), fine.tau) < 2e-4
    assert res.method == "energy" and "by ENERGY" in res.report()


def test_torque_offsets_and_given_weights(rng):
    """Offsets added to the torques are recovered with offset=True (noise-free, random
    states); WLS with weights given reproduces the same exact solution."""
    model = rd.models.load("panda")
    q, v, a = random_state(model, rng, 150)
    offsets = np.linspace(-1.0, 2.0, model.nv)
    tau = rd.inverse_dynamics(model, q, v, a) + offsets
    res = rd.identify(model, q, v, a, tau, offset=True)
    pi = res.parameters
    sl = rd.ident.layout(model, offset=True).block("offset")
    np.testing.assert_allclose(pi[sl], offsets, atol=1e-8)
    true_pi = rd.parameters(model, offset=True)
    true_pi[sl] = offsets
    truth = res.base(true_pi)
    assert np.abs(res.base_parameters - truth).max() < 1e-8
    w = rng.uniform(0.5, 2.0, model.nv)
    wls = rd.identify(model, q, v, a, tau, "wls", offset=True, weights=w)
    assert np.abs(wls.base_parameters - truth).max() < 1e-8
    np.testing.assert_array_equal(wls.weights, w)
    with pytest.raises(ValueError, match="weights must be 7 positive numbers"):
        rd.identify(model, q, v, a, tau, "wls", weights=-w)


def test_filtering_noisy_velocities_improves_the_estimate(ur5_experiment):
    """Velocity noise (0.02 rad/s) and torque noise: accelerations as raw differences of
    the noisy v are 10x worse than after zero-phase filtering (3 Hz, the excitation's
    bandwidth is 0.75 Hz), and so are the identified parameters and torques."""
    from robodyn.ident import Experiment, filtered

    true, _, clean, _ = ur5_experiment
    rng = np.random.default_rng(11)
    vn = clean.v + 0.02 * rng.normal(size=clean.v.shape)
    taun = clean.tau + 0.3 * clean.tau.std(0) * rng.normal(size=clean.tau.shape)
    raw = Experiment(clean.t, clean.q, vn, np.gradient(vn, clean.t, axis=0), taun, clean.tau)
    filt = filtered(raw, cutoff=3.0)
    inner = slice(10, -10)  # away from filtfilt's edges
    err_a = {
        k: np.sqrt(np.mean((e.a - clean.a)[inner] ** 2)) for k, e in (("raw", raw), ("filt", filt))
    }
    assert err_a["filt"] < 0.2 * err_a["raw"], err_a
    err_tau = {}
    for k, e in (("raw", raw), ("filt", filt)):
        r = rd.identify(true, e.q, e.v, e.a, e.tau)
        err_tau[k] = np.sqrt(np.mean((r.predict(clean.q, clean.v, clean.a) - clean.tau) ** 2))
    assert err_tau["filt"] < err_tau["raw"], err_tau
    with pytest.raises(ValueError, match="cutoff must be in"):
        filtered(raw, cutoff=100.0)


# ------------------------------------------------------------------ bad data
def test_bad_data_gives_clear_errors(ur5_experiment):
    true, _, clean, _ = ur5_experiment
    Q, V, A, T = clean.q, clean.v, clean.a, clean.tau
    Qn = Q.copy()
    Qn[[4, 9]] = np.nan
    with pytest.raises(ValueError, match=r"Q has NaN or inf in 2 row\(s\): 4, 9"):
        rd.identify(true, Qn, V, A, T)
    with pytest.raises(
        ValueError, match="one row per sample: Q has 401, V has 401, A has 401, TAU has 400"
    ):
        rd.identify(true, Q, V, A, T[:-1])
    with pytest.raises(ValueError, match=r"TAU must have shape \(N, 6\), got \(401, 5\)"):
        rd.identify(true, Q, V, A, T[:, :5])
    with pytest.raises(
        ValueError, match="too few samples: 5 samples x 6 joints = 30 equations for 52"
    ):
        rd.identify(true, Q[:5], V[:5], A[:5], T[:5])
    # enough rows but one repeated state: rank deficient
    rep = [np.repeat(x[:1], 50, axis=0) for x in (Q, V, A, T)]
    with pytest.raises(ValueError, match="do not excite every base parameter"):
        rd.identify(true, *rep)
    with pytest.raises(ValueError, match="method must be one of 'ols', 'wls', 'consistent'"):
        rd.identify(true, Q, V, A, T, method="lasso")


# ------------------------------------------------------------------ excitation, data, CLI
def test_fourier_excitation_respects_limits_and_is_consistent(rng):
    from robodyn.ident import excitation_trajectory, regressor_condition

    model = rd.models.load("panda")  # finite joint limits
    base = rd.base_parameters(model)
    traj = excitation_trajectory(model, period=5.0, harmonics=3, maxiter=0, candidates=4, base=base)
    t, q, v, a = traj.sample(0.005)
    lo, hi = model.q_lower, model.q_upper
    assert np.all(q >= lo) and np.all(q <= hi)
    assert np.all(q.min(0) >= lo + 0.09 * (hi - lo))  # the 10 % margin, up to the sampling
    # periodic, and v, a are the derivatives of q (central differences)
    np.testing.assert_allclose(traj(5.0)[0], traj(0.0)[0], atol=1e-12)
    h = 1e-5
    tt = rng.uniform(0, 5, 7)
    fd_v = (traj(tt + h)[0] - traj(tt - h)[0]) / (2 * h)
    fd_a = (traj(tt + h)[1] - traj(tt - h)[1]) / (2 * h)
    assert rel_err(traj(tt)[1], fd_v) < 1e-8 and rel_err(traj(tt)[2], fd_a) < 1e-7
    # optimising the coefficients lowers the regressor's condition number
    ur5 = rd.models.load("ur5")
    b5 = rd.base_parameters(ur5)
    c0 = regressor_condition(
        ur5,
        *excitation_trajectory(ur5, 4.0, 2, maxiter=0, candidates=1, base=b5).sample(0.1)[1:],
        base=b5,
    )
    c1 = regressor_condition(
        ur5,
        *excitation_trajectory(ur5, 4.0, 2, maxiter=4, candidates=1, base=b5).sample(0.1)[1:],
        base=b5,
    )
    assert c1 < c0


def test_log_cholesky_coordinates_are_always_physical(rng):
    from robodyn.ident import from_log_cholesky, log_cholesky, physical_violations

    theta = rng.normal(size=(50, 10))
    pi = from_log_cholesky(theta)
    assert physical_violations(pi) == []
    assert np.all(np.linalg.eigvalsh(rd.ident.pseudo_inertia(pi)) > 0)
    np.testing.assert_allclose(log_cholesky(pi), theta, atol=1e-9)
    # the pseudo-inertia test agrees with RigidInertia's own validation
    from robodyn.inertia import RigidInertia

    for p in pi[:5]:
        body = RigidInertia(p[0], p[1:4] / p[0], _inertia_about_com(p))
        np.testing.assert_allclose(
            rd.ident.inertia_vector(body.mass, body.com, body.inertia), p, atol=1e-12
        )


def _inertia_about_com(p):
    m, c = p[0], p[1:4] / p[0]
    I_o = np.array([[p[4], p[5], p[6]], [p[5], p[7], p[8]], [p[6], p[8], p[9]]])
    return I_o - m * (c @ c * np.eye(3) - np.outer(c, c))  # Steiner in reverse


def test_csv_round_trip_and_accelerations_from_v(tmp_path, ur5_experiment):
    from robodyn.ident import load_csv, save_csv

    true, _, clean, _ = ur5_experiment
    path = tmp_path / "data.csv"
    save_csv(path, true, clean)
    back = load_csv(path, true)
    for name in ("t", "q", "v", "a", "tau"):
        np.testing.assert_allclose(getattr(back, name), getattr(clean, name), rtol=1e-15)
    # without the a columns: central differences of v
    header = path.read_text().splitlines()[0].split(",")
    keep = [k for k, h in enumerate(header) if not h.startswith("a[")]
    data = np.loadtxt(path, delimiter=",", skiprows=1)[:, keep]
    np.savetxt(
        tmp_path / "no_a.csv",
        data,
        delimiter=",",
        header=",".join(header[k] for k in keep),
        comments="",
    )
    no_a = load_csv(tmp_path / "no_a.csv", true)
    inner = slice(5, -5)
    assert rel_err(no_a.a[inner], clean.a[inner]) < 0.05  # dt = 20 ms differences
    np.savetxt(
        tmp_path / "bad.csv",
        data[:, :-1],
        delimiter=",",
        header=",".join(header[k] for k in keep[:-1]),
        comments="",
    )
    with pytest.raises(ValueError, match=r"missing column\(s\) tau\[joint6\]"):
        load_csv(tmp_path / "bad.csv", true)


def test_cli_identify_simulates_then_identifies(tmp_path, capsys, monkeypatch):
    from matplotlib.figure import Figure

    from helpers import figure_problems
    from robodyn.cli import main

    data, png = tmp_path / "d.csv", tmp_path / "fit.png"
    argv = [
        "identify",
        "planar_2r",
        "--simulate",
        str(data),
        "--duration",
        "6",
        "--noise",
        "0.05",
        "--plot",
        str(png),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "by OLS" in out and "by WLS" in out and "by CONSISTENT" in out
    assert "11 base of 26 standard parameters" in out
    assert "link1.Izz + 0.25 link2.m + joint1.armature" in out
    assert "consistent: base parameters" in out and "held-out torque RMS" in out
    assert png.stat().st_size > 10_000
    # the same data file identified again, and its figure audited
    seen = []
    save = Figure.savefig

    def audited(fig, *args, **kwargs):
        seen.append(figure_problems(fig))
        return save(fig, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", audited)
    # fit.png exists: --force replaces it
    argv = ["identify", "planar_2r", str(data), "--method", "consistent", "--plot", str(png),
            "--cutoff", "10", "--force"]  # fmt: skip
    assert main(argv) == 0
    assert seen == [[]], seen
    out = capsys.readouterr().out
    assert "from the model's parameters" in out  # no truth: the prior
    assert "filtered at 10 Hz" in out
    assert main(["identify", "planar_2r"]) == 2
    assert "give DATA.csv, or --simulate FILE" in capsys.readouterr().err


def test_bench_ident_section_checks_against_pinocchio_before_timing(tmp_path):
    import json

    from robodyn.bench import main

    js = tmp_path / "b.json"
    argv = ["--quick", "--models", "ur5", "--only", "ident", "--json", str(js), "--no-progress"]
    assert main(argv) == 0
    rows = json.loads(js.read_text())["ident"]
    assert {(r["model"], r["library"]) for r in rows} == {("ur5", "robodyn"), ("ur5", "pinocchio")}
    ours = next(r for r in rows if r["library"] == "robodyn")
    assert ours["status"] == "ok" and ours["check_err"] < 1e-10
    assert ours["ratio_to_pinocchio"] > 0 and ours["median_s"] > 0
