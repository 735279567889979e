"""The compiled momentum kernels (kernels/core/momentum.c) against independent sources.

Functions: ``kinetic_energy``, ``potential_energy``, ``momentum``, ``centroidal_momentum``,
``centroidal_momentum_rate``, ``momentum_matrix`` (about the origin and the CoM),
``com_velocity`` and ``com_acceleration``. Sources:

* identities with other algorithms: ``K = 1/2 v^T M v`` (CRBA, with and without armature),
  ``dU/dq = g(q)`` (RNEA) by central differences, ``A v = h`` (CCRBA against the forward
  pass), ``h_G = [L_o - c x p; p]`` and ``dc/dt = p / m``;
* central differences along the motion (q(t) = q (+) (t v + t^2/2 a), v(t) = v + t a, so
  that dq/dt = v and dv/dt = a at t = 0 on any Lie group of joints) of the momentum, the
  CoM velocity and A_G(q) v: each at h and h/2, the error ratio checked to be 4 (the
  central difference's h^2) and Richardson's extrapolation (4 D(h/2) - D(h)) / 3 compared
  at a tolerance its h^4 allows;
* Pinocchio (it parses the URDF or builds the tree with its own joints): kinetic energy,
  centroidal momentum, map and its time variation, CoM velocity and acceleration, on the
  UR5 and the Panda (fixed), solo12 and TALOS (floating), and on random trees with every
  joint type and armature;
* momentum conservation of a free-floating tree with no gravity along ``rd.simulate``
  (RK4: the drift falls 16 times when dt is halved).

Tolerances are relative to max(1, |want|) (helpers.assert_close) and sit 5-10 times above
the worst error measured over many more states and trees than run here (in comments).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import robodyn as rd
from helpers import (
    JOINT_KINDS,
    MR_KINDS,
    TREE_KINDS,
    assert_close,
    erd_path,
    load_pair,
    random_tree,
    rel_err,
    states,
    trees,
)

H = 1e-3  # the finite-difference step (Richardson from h and h/2)
#: random trees of every joint type with mimic joints and armature (seed, floating base)
TREES = [(0, False), (1, True), (2, False), (3, True)]


def _tree(seed: int, floating: bool):
    """A random tree of 7 bodies, every joint type, two mimic joints, friction and armature
    (helpers.random_tree), and a state (q, v, a) drawn from the same seed."""
    model, _ = random_tree(seed, 7, floating=floating, mimic=True, damping=True,
                           kinds=JOINT_KINDS)  # fmt: skip
    rng = np.random.default_rng(seed)
    q = rd.random_configuration(model, rng)
    return model, q, rng.normal(size=model.nv), rng.normal(size=model.nv)


def _derivative(f, want, tol: float, what: str) -> None:
    """``want`` = df/dt at 0, from central differences at H and H/2: the error of the two
    must fall 4 times (h^2: what is left is truncation, not a wrong ``want``), and their
    Richardson extrapolation must meet ``want`` within ``tol``."""
    d1 = (f(H) - f(-H)) / (2 * H)
    d2 = (f(H / 2) - f(-H / 2)) / H
    e1, e2 = rel_err(d1, want), rel_err(d2, want)
    # measured 4.000 to three decimals on 40 trees (truncation ~1e-6, rounding ~1e-13)
    assert 3.9 < e1 / e2 < 4.1, f"{what}: errors {e1:.3g} at h, {e2:.3g} at h/2 (not h^2)"
    assert_close((4 * d2 - d1) / 3, want, tol, what)


def _along(model, q, v, a):
    """(q(t), v(t)) through (q, v) with dq/dt = v and dv/dt = a at t = 0."""
    return lambda t: (rd.integrate(model, q, t * v + 0.5 * t * t * a), v + t * a)


# ================================================================== identities on trees
@pytest.mark.parametrize("seed,floating", TREES)
def test_kinetic_energy_is_half_vT_M_v(seed, floating):
    """K from the forward pass = 1/2 v^T M v with M from CRBA, with and without armature."""
    model, q, v, _ = _tree(seed, floating)
    for armature in (True, False):
        M = rd.mass_matrix(model, q, armature=armature)
        # measured <= 1.7e-15 (relative, 40 trees)
        assert_close(rd.kinetic_energy(model, q, v, armature=armature), 0.5 * v @ M @ v,
                     2e-14, f"K armature={armature}")  # fmt: skip
    # the armature term is there (drawn in 0.01-0.5 per joint): the keyword has an effect
    K_arm = rd.kinetic_energy(model, q, v)
    assert K_arm - rd.kinetic_energy(model, q, v, armature=False) > 0.05
    assert rd.kinetic_energy(model, q, v) == K_arm  # armature=True is the default


@pytest.mark.parametrize("seed,floating", TREES)
def test_potential_energy_gradient_is_gravity_forces(seed, floating):
    """dU/dv_k along q (+) h e_k (tangent directions: floating bases and quaternion joints
    alike) = g(q) of RNEA."""
    model, q, _, _ = _tree(seed, floating)
    E = np.eye(model.nv)

    def U(t):
        return np.array([rd.potential_energy(model, rd.integrate(model, q, t * e)) for e in E])

    g = rd.gravity_forces(model, q)
    assert np.abs(g).max() > 1.0  # gravity is drawn at ~5 m/s^2 per axis
    # measured <= 1.9e-12 after extrapolation (40 trees)
    _derivative(U, g, 1e-11, "dU/dq")


@pytest.mark.parametrize("seed,floating", TREES)
def test_momentum_matrices_times_v(seed, floating):
    """CCRBA's A_o and A_G times v = the forward pass's h_o and h_G; h_G is h_o moved to
    the CoM; the CoM velocity is p / m."""
    model, q, v, _ = _tree(seed, floating)
    h_o, h_G = rd.momentum(model, q, v), rd.centroidal_momentum(model, q, v)
    # measured <= 2.2e-15 (40 trees)
    assert_close(rd.momentum_matrix(model, q) @ v, h_o, 2e-14, "A_o v")
    assert_close(rd.momentum_matrix(model, q, about="origin") @ v, h_o, 2e-14, "A_o v")
    assert_close(rd.momentum_matrix(model, q, about="com") @ v, h_G, 2e-14, "A_G v")
    # measured 0 and <= 2.6e-16 (40 trees)
    c, m = rd.com(model, q), model.total_mass
    assert_close(h_G, np.r_[h_o[:3] - np.cross(c, h_o[3:]), h_o[3:]], 3e-15, "h_G shift")
    assert_close(rd.com_velocity(model, q, v), h_o[3:] / m, 3e-15, "dc/dt = p/m")
    assert np.abs(h_o).max() > 1.0 and np.abs(h_G[:3] - h_o[:3]).max() > 0.1  # not trivial


@pytest.mark.parametrize("seed,floating", TREES)
def test_centroidal_momentum_rate_by_finite_differences(seed, floating):
    """dh_G/dt = A_G a + dA_G/dt v against the derivative of h_G along the motion; with
    a=None it is dA_G/dt v: the same call with a = 0, and the derivative of A_G(q (+) t v)
    times the constant v."""
    model, q, v, a = _tree(seed, floating)
    path = _along(model, q, v, a)
    rate = rd.centroidal_momentum_rate(model, q, v, a)
    # measured <= 4.1e-12 after extrapolation (40 trees; 5.2e-6 for the plain difference)
    _derivative(lambda t: rd.centroidal_momentum(model, *path(t)), rate, 2e-11, "dh_G/dt")
    bias = rd.centroidal_momentum_rate(model, q, v)
    # measured 0 on 40 trees (the same kernel with a = 0)
    assert_close(bias, rd.centroidal_momentum_rate(model, q, v, np.zeros(model.nv)), 1e-15,
                 "a=None")  # fmt: skip

    def A_G_v(t):
        return rd.momentum_matrix(model, rd.integrate(model, q, t * v), about="com") @ v

    # measured <= 3.3e-12 (40 trees)
    _derivative(A_G_v, bias, 2e-11, "dA_G/dt v")
    # and the rate splits as A_G a + dA_G/dt v (measured <= 1.5e-15)
    assert_close(rate, rd.momentum_matrix(model, q, about="com") @ a + bias, 2e-14, "split")


@pytest.mark.parametrize("seed,floating", TREES)
def test_com_acceleration_by_finite_differences(seed, floating):
    """d2c/dt2 against the derivative of the CoM velocity along the motion, and the linear
    rows of dh_G/dt over the total mass."""
    model, q, v, a = _tree(seed, floating)
    path = _along(model, q, v, a)
    acc = rd.com_acceleration(model, q, v, a)
    # measured <= 4.1e-12 after extrapolation (40 trees)
    _derivative(lambda t: rd.com_velocity(model, *path(t)), acc, 2e-11, "d2c/dt2")
    rate = rd.centroidal_momentum_rate(model, q, v, a)
    # measured <= 2.6e-16 (40 trees)
    assert_close(acc, rate[3:] / model.total_mass, 3e-15, "dp/dt / m")
    assert np.abs(acc).max() > 0.1


# ================================================================== Pinocchio
def _swap(x):
    """Pinocchio's rows [linear; angular] -> robodyn's [angular; linear] (axis 0)."""
    return np.concatenate([x[3:], x[:3]], axis=0)


def _pinocchio(pm, pd, mp, q, v, a) -> dict:
    """Pinocchio's quantities at robodyn's (q, v, a), in robodyn's order; h_o and A_o are
    Pinocchio's centroidal ones moved from its CoM to the world origin."""
    qp, vp, ap = mp.q_to_pin(q), mp.v_to_pin(v), mp.v_to_pin(a)
    out = {"K": pin.computeKineticEnergy(pm, pd, qp, vp)}
    hg = pin.computeCentroidalMomentum(pm, pd, qp, vp)
    out["h_G"] = np.r_[hg.angular, hg.linear]
    out["A_G"] = _swap(pin.computeCentroidalMap(pm, pd, qp))[:, mp.vperm]
    pin.computeCentroidalMomentumTimeVariation(pm, pd, qp, vp, ap)
    out["dh_G"] = np.r_[pd.dhg.angular, pd.dhg.linear]
    pin.computeCentroidalMomentumTimeVariation(pm, pd, qp, vp, np.zeros(pm.nv))
    out["dA_G v"] = np.r_[pd.dhg.angular, pd.dhg.linear]
    pin.centerOfMass(pm, pd, qp, vp, ap)
    c = pd.com[0].copy()
    out["vcom"], out["acom"] = pd.vcom[0].copy(), pd.acom[0].copy()
    shift = np.eye(6)  # [L_o; p] = [1, [c]; 0, 1] [k_G; p]
    shift[:3, 3:] = pin.skew(c)
    out["h_o"], out["A_o"] = shift @ out["h_G"], shift @ out["A_G"]
    return out


def _robodyn(model, q, v, a) -> dict:
    """robodyn's quantities of :func:`_pinocchio` (one state, or a batch)."""
    return {
        "K": rd.kinetic_energy(model, q, v),
        "h_G": rd.centroidal_momentum(model, q, v),
        "A_G": rd.momentum_matrix(model, q, about="com"),
        "dh_G": rd.centroidal_momentum_rate(model, q, v, a),
        "dA_G v": rd.centroidal_momentum_rate(model, q, v),
        "vcom": rd.com_velocity(model, q, v),
        "acom": rd.com_acceleration(model, q, v, a),
        "h_o": rd.momentum(model, q, v),
        "A_o": rd.momentum_matrix(model, q),
    }


#: measured <= 1.6e-15 on 30 states of each robot below, <= 3e-15 on 100 random trees
#: (helpers.random_joint_pair) and <= 2.4e-15 on 400 drawn by the test below
TOL_PIN = 2e-14


@pytest.mark.parametrize(
    "fragment,floating",
    [("ur_description/urdf/ur5_robot", False), ("panda_description/urdf/panda", False),
     ("solo_description/robots/solo12", True), ("talos_data/robots/talos_reduced", True)],
    ids=["ur5", "panda", "solo12-floating", "talos-floating"],
)  # fmt: skip
def test_against_pinocchio_on_robots(fragment, floating):
    """Three states of each robot, one at a time and as one batch."""
    model, pm, pd, mp = load_pair(erd_path(fragment), floating)
    rng = np.random.default_rng(7)
    Q = rd.random_configuration(model, rng, size=3)
    V, A = rng.normal(size=(3, model.nv)), rng.normal(size=(3, model.nv))
    batch = _robodyn(model, Q, V, A)
    for k in range(3):
        want = _pinocchio(pm, pd, mp, Q[k], V[k], A[k])
        got = _robodyn(model, Q[k], V[k], A[k])
        for key, w in want.items():
            assert_close(got[key], w, TOL_PIN, f"{fragment} state {k}: {key}")
            assert_close(batch[key][k], w, TOL_PIN, f"{fragment} batch {k}: {key}")
    assert np.abs(want["dh_G"]).max() > 1.0 and np.abs(want["acom"]).max() > 0.1


def _pinocchio_armature(tree, pm) -> np.ndarray:
    """Each joint's armature of the drawn tree on its dofs, in Pinocchio's dof order."""
    arm = np.zeros(pm.nv)
    for k, body in enumerate(tree.bodies):
        joint = pm.joints[pm.getJointId(f"j{k}")]
        arm[joint.idx_v : joint.idx_v + joint.nv] = body.armature
    return arm


@settings(max_examples=15, deadline=None)
@given(
    trees(max_bodies=7, kinds=tuple(k for k in TREE_KINDS if k != "fixed"), floating=None,
          damping=True, require=MR_KINDS),
    st.data(),
)  # fmt: skip
def test_against_pinocchio_on_random_trees(tree, data):
    """Trees with a spherical, planar, helical, cylindrical and universal joint each, free
    joints anywhere, maybe a floating base, and armature, built by Pinocchio from the same
    numbers. The kinetic energy with armature is 1/2 v^T M v with Pinocchio's CRBA given
    the armature: Pinocchio 4.1's computeKineticEnergy leaves out the armature of its
    unaligned revolute and helical joints (1/2 v^T M v counts it, as robodyn does)."""
    model = tree.model
    pm, pd, mp = tree.pinocchio()
    q, v, a = data.draw(states(model))
    want = _pinocchio(pm, pd, mp, q, v, a)  # no armature in Pinocchio's model yet
    got = _robodyn(model, q, v, a)
    got["K"] = rd.kinetic_energy(model, q, v, armature=False)
    for key, w in want.items():
        assert_close(got[key], w, TOL_PIN, key)
    pm.armature = _pinocchio_armature(tree, pm)
    M = pin.crba(pm, pm.createData(), mp.q_to_pin(q))
    M = np.triu(M) + np.triu(M, 1).T  # Pinocchio fills the upper triangle
    vp = mp.v_to_pin(v)
    assert_close(rd.kinetic_energy(model, q, v), 0.5 * vp @ M @ vp, TOL_PIN, "K armature")


# ================================================================== conservation
def test_momentum_conserved_along_simulate():
    """A free-floating tree of every joint type with mimic joints, no gravity, constant
    joint torques (none on the base): the torques are internal, so h_o stays constant.
    RK4's drift is its O(dt^4) error: halving dt divides it by ~16."""
    model, _ = random_tree(4, 5, floating=True, mimic=True, kinds=JOINT_KINDS,
                           gravity=np.zeros(3))  # fmt: skip
    rng = np.random.default_rng(4)
    q, v = rd.random_configuration(model, rng), rng.normal(size=model.nv)
    tau = np.r_[np.zeros(6), 3.0 * rng.normal(size=model.nv - 6)]
    drift = []
    for dt in (5e-3, 2.5e-3):
        traj = rd.simulate(model, q, v, lambda t, q, v: tau, duration=0.4, dt=dt,
                           friction=False)  # fmt: skip
        h = rd.momentum(model, traj.q, traj.v)
        drift.append(rel_err(h, np.broadcast_to(h[0], h.shape)))
    # the motion is not trivial: the joints moved, the base turned
    assert np.abs(traj.q[-1] - q).max() > 0.1 and np.abs(h[0]).max() > 1.0
    # measured 7.0e-10 and 4.3e-11 (ratio 16.06); 8 seeds: ratios 15.8-16.1
    assert 14.0 < drift[0] / drift[1] < 18.0, drift
    assert drift[1] < 3e-10, drift


# ================================================================== errors
def _massless():
    b = rd.ModelBuilder("massless")
    b.add_body("a", "world", joint_type="revolute", axis=(0, 0, 1))
    b.add_body("b", "a", joint_type="prismatic", axis=(1, 0, 0))
    return b.build()


def test_a_model_without_mass():
    """No mass, no centre of mass: the centroidal quantities raise ModelError naming the
    model; the quantities about the origin are zero."""
    model = _massless()
    assert model.total_mass == 0.0
    q, v = np.zeros(2), np.ones(2)
    for call in (
        lambda: rd.centroidal_momentum(model, q, v),
        lambda: rd.centroidal_momentum_rate(model, q, v),
        lambda: rd.centroidal_momentum_rate(model, q, v, v),
        lambda: rd.momentum_matrix(model, q, about="com"),
        lambda: rd.com_velocity(model, q, v),
        lambda: rd.com_acceleration(model, q, v, v),
    ):
        with pytest.raises(rd.ModelError, match="'massless' has no mass"):
            call()
    np.testing.assert_array_equal(rd.momentum(model, q, v), np.zeros(6))
    np.testing.assert_array_equal(rd.momentum_matrix(model, q), np.zeros((6, 2)))
    assert rd.kinetic_energy(model, q, v) == 0.0 and rd.potential_energy(model, q) == 0.0


#: each function with the arguments it takes, q, v and a
CALLS = {
    "kinetic_energy": (lambda m, q, v, a: rd.kinetic_energy(m, q, v), "qv"),
    "potential_energy": (lambda m, q, v, a: rd.potential_energy(m, q), "q"),
    "momentum": (lambda m, q, v, a: rd.momentum(m, q, v), "qv"),
    "centroidal_momentum": (lambda m, q, v, a: rd.centroidal_momentum(m, q, v), "qv"),
    "centroidal_momentum_rate": (
        lambda m, q, v, a: rd.centroidal_momentum_rate(m, q, v, a),
        "qva",
    ),
    "centroidal_momentum_rate(a=None)": (
        lambda m, q, v, a: rd.centroidal_momentum_rate(m, q, v),
        "qv",
    ),
    "momentum_matrix": (lambda m, q, v, a: rd.momentum_matrix(m, q), "q"),
    "momentum_matrix(com)": (lambda m, q, v, a: rd.momentum_matrix(m, q, about="com"), "q"),
    "com_velocity": (lambda m, q, v, a: rd.com_velocity(m, q, v), "qv"),
    "com_acceleration": (lambda m, q, v, a: rd.com_acceleration(m, q, v, a), "qva"),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_bad_arrays_name_the_argument(name):
    """A wrong length, a (n, 1) column, a batch that does not broadcast and NaN each raise
    ValueError naming the argument; the good call returns finite numbers."""
    call, args = CALLS[name]
    model, q, v, a = _tree(1, True)
    good = {"q": q, "v": v, "a": a}
    assert np.all(np.isfinite(call(model, q, v, a)))
    for arg in args:
        for bad, match in (
            (good[arg][:-1], f"{arg} must have shape"),
            (good[arg][:, None], f"{arg} must have shape"),
            (np.full_like(good[arg], np.nan), f"{arg} contains NaN"),
            (np.r_[good[arg][:-1], np.inf], f"{arg} contains NaN"),
        ):
            with pytest.raises(ValueError, match=match):
                call(model, **{**good, arg: bad})
    if "v" in args:  # two batches that do not broadcast
        Q = np.stack([q, q])
        with pytest.raises(ValueError, match="do not broadcast"):
            call(model, Q, np.stack([v, v, v]), np.stack([a, a, a]))
    with pytest.raises(ValueError, match="about must be 'origin' or 'com'"):
        rd.momentum_matrix(model, q, about="base")
