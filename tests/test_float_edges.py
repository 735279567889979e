"""Numbers at the edges of the float range, and singular mass matrices (issue 27 s.6).

* Finite inputs whose products overflow float64 (v = 1e160: v^2 = 1e320) are an error naming
  the state, never a silent NaN; just below (v = 1e150) the result is computed, and obeys
  the identity it must (the velocity terms of inverse dynamics are quadratic in v).
* A URDF number whose products overflow (a 1e308 origin) is refused naming the element, and
  ``robodyn check`` reports it.
* A pivot of ABA or of M's Cholesky factor is zero relative to its own subtree's inertia: a
  1e-6 kg body beside a 1e3 kg one (cond(M) ~ 8e11) is computed as Pinocchio computes it;
  a subtree with no inertia about its joint is refused with M's condition number, which
  equals numpy's on Pinocchio's M.
"""

from __future__ import annotations

import re

import numpy as np
import pinocchio as pin
import pytest

import robodyn as rd
from robodyn.errors import ModelError
from robodyn.model.doctor import check_model
from robodyn.model.urdf import load_urdf

OVERFLOW = r"overflowed: the inputs \(q, v, a, f_ext\) are finite but too large"


@pytest.fixture(scope="module")
def panda():
    return rd.models.load("panda")


def test_an_overflowing_state_is_an_error_naming_it(panda):
    rng = np.random.default_rng(7)
    q, u, z = rng.uniform(-1, 1, 7), rng.normal(size=7), np.zeros(7)
    g = rd.inverse_dynamics(panda, q, z, z, friction=False)
    base = rd.inverse_dynamics(panda, q, u, z, friction=False) - g
    # v = 1e150 u: the velocity terms are s^2 times those of u (1e300, still finite);
    # measured 6.6e-15 relative
    s = 1e150
    big = rd.inverse_dynamics(panda, q, s * u, z, friction=False) - g
    np.testing.assert_allclose(big / s**2, base, rtol=0, atol=5e-14 * np.abs(base).max())
    # v = 1e160: v^2 = 1e320 is beyond float64 (the core returned NaN without a word)
    with pytest.raises(ValueError, match=OVERFLOW):
        rd.inverse_dynamics(panda, q, 1e160 * u, z)
    V = np.tile(u, (4, 1))
    V[2] *= 1e160
    with pytest.raises(ValueError, match=r"the result at state \[2\] " + OVERFLOW):
        rd.inverse_dynamics(panda, np.tile(q, (4, 1)), V, np.zeros((4, 7)))
    V = np.tile(u, (2, 3, 1))
    V[1, 0] *= 1e160
    with pytest.raises(ValueError, match=r"at state \[1, 0\]"):
        rd.inverse_dynamics(panda, q, V, z)
    # whole chunks of the core's 16 lanes, a last chunk of 8 lanes, a last one of 2 states
    # (run one at a time): every state named
    for n, k in ((40, 0), (40, 17), (40, 39), (34, 33)):
        V = np.tile(u, (n, 1))
        V[k] *= 1e160
        with pytest.raises(ValueError, match=rf"at state \[{k}\]"):
            rd.inverse_dynamics(panda, np.tile(q, (n, 1)), V, np.zeros((n, 7)))
    # check=False asks for no checks: the overflow is the caller's to see
    assert not np.all(np.isfinite(rd.inverse_dynamics(panda, q, 1e160 * u, z, check=False)))


def test_an_overflowing_torque_is_an_error_and_a_large_one_is_not(panda):
    rng = np.random.default_rng(8)
    q, e, z = rng.uniform(-1, 1, 7), rng.normal(size=7), np.zeros(7)
    # qdd = M^-1 (tau - g): tau = 1e300 e gives 1e300 M^-1 e (g is nothing beside it);
    # measured 2.8e-15 relative
    a = rd.forward_dynamics(panda, q, z, 1e300 * e, friction=False)
    want = np.linalg.solve(rd.mass_matrix(panda, q), e)
    np.testing.assert_allclose(a / 1e300, want, rtol=0, atol=3e-14 * np.abs(want).max())
    for method in ("aba", "crba"):  # tau = 1e308: M^-1 tau is beyond float64
        with pytest.raises(ValueError, match=r"overflowed: the inputs \(q, v, tau, f_ext\)"):
            rd.forward_dynamics(panda, q, z, np.full(7, 1e308), method=method)


def _robot(body: str) -> str:
    return f'<robot name="edge"><link name="base"/>{body}</robot>'


def _link(name: str, xyz="0 0 0", mass="1", inertia="0.1") -> str:
    return (
        f'<link name="{name}"><inertial><origin xyz="{xyz}"/><mass value="{mass}"/>'
        f'<inertia ixx="{inertia}" ixy="0" ixz="0" iyy="{inertia}" iyz="0" izz="{inertia}"/>'
        "</inertial></link>"
    )


def _joint(name, parent, child, xyz="0 0 0", axis="0 0 1") -> str:
    return (
        f'<joint name="{name}" type="continuous"><parent link="{parent}"/>'
        f'<child link="{child}"/><origin xyz="{xyz}"/><axis xyz="{axis}"/></joint>'
    )


TOO_BIG = {
    # a 1e308 joint origin: the mass matrix came out all NaN, forward dynamics 0
    "joint origin": (
        _link("a") + _joint("j", "base", "a", xyz="1e308 0 0"),
        "joint 'j'",
        r"<origin xyz='1e\+308 0 0'>: 1e\+308 m is beyond robodyn's bound of 1e\+30 m",
    ),
    "inertial origin": (
        _link("a", xyz="0 -2e35 0") + _joint("j", "base", "a"),
        "link 'a'",
        r"<inertial><origin xyz='0 -2e\+35 0'>: 2e\+35 m",
    ),
    "mass": (
        _link("a", mass="1e40") + _joint("j", "base", "a"),
        "link 'a'",
        r"<inertial><mass value='1e\+40'>: 1e\+40 kg is beyond robodyn's bound of 1e\+30 kg",
    ),
    "inertia": (
        _link("a", inertia="1e100") + _joint("j", "base", "a"),
        "link 'a'",
        r"<inertial><inertia>: 1e\+100 kg m\^2 is beyond robodyn's bound of 1e\+90 kg m\^2",
    ),
}


@pytest.mark.parametrize("key", list(TOO_BIG))
def test_a_urdf_number_whose_products_overflow_is_refused_naming_it(key):
    body, element, pattern = TOO_BIG[key]
    xml = _robot(body)
    with pytest.raises(ModelError, match=re.escape(element) + " " + pattern):
        load_urdf(xml)
    report = check_model(xml)
    (f,) = [f for f in report if f.kind == "overflow"]
    assert f.severity == "error" and f.element == element and re.search(pattern, f.message)
    assert not report.ok


def test_numbers_within_the_bounds_load_and_compute():
    # a 1e20 kg link whose centre is 1e25 m off its joint's axis: M = I_zz + m r^2 = 1e70
    # (products ~1e70, finite)
    xml = _robot(_link("a", xyz="1e25 0 0", mass="1e20", inertia="3e20") + _joint("j", "base", "a"))
    model = load_urdf(xml)
    np.testing.assert_allclose(rd.mass_matrix(model, np.zeros(1)), [[1e70]], rtol=1e-15)
    assert check_model(xml).ok


LIGHT = _robot(
    # the 1e3 kg arm's centre 0.25 m out on joint 1 (z); the 1e-6 kg finger 0.5 m further,
    # its centre 0.01 m out on joint 2 (y): its inertia about j2 is 1e-11 + 1e-6 * 0.01^2
    '<link name="heavy"><inertial><origin xyz="0.25 0 0"/><mass value="1000"/><inertia '
    'ixx="2" ixy="0" ixz="0" iyy="25" iyz="0" izz="25"/></inertial></link>'
    '<link name="light"><inertial><origin xyz="0.01 0 0"/><mass value="1e-6"/><inertia '
    'ixx="1e-11" ixy="0" ixz="0" iyy="1e-11" iyz="0" izz="1e-11"/></inertial></link>'
    + _joint("j1", "base", "heavy")
    + _joint("j2", "heavy", "light", xyz="0.5 0 0", axis="0 1 0")
)


def _pin_q(q):
    return np.concatenate([[np.cos(x), np.sin(x)] for x in q])


def test_a_light_body_beside_a_heavy_one_is_computed_as_pinocchio():
    # refused before as a "massless subtree": 1e-12 * max(m + tr I) = 1.05e-9 (kg beside
    # kg m^2) was above the finger's 1.1e-10 kg m^2
    model = load_urdf(LIGHT)
    pm = pin.buildModelFromXML(LIGHT)
    pd = pm.createData()
    rng = np.random.default_rng(3)
    Q, V, TAU = rng.normal(size=(3, 12, 2))
    for q, v, tau in zip(Q, V, TAU):
        M = pin.crba(pm, pd, _pin_q(q))
        assert np.linalg.cond(np.triu(M) + np.triu(M, 1).T) > 5e11  # as ill-conditioned as that
        want = pin.aba(pm, pd, _pin_q(q), v, tau)
        # ABA against ABA: measured 2.1e-16 relative; the Cholesky of M: 8.5e-13 (cond 8e11)
        got = rd.forward_dynamics(model, q, v, tau)
        np.testing.assert_allclose(got, want, rtol=2e-15, atol=0)
        got = rd.forward_dynamics(model, q, v, tau, method="crba")
        np.testing.assert_allclose(got, want, rtol=1e-11, atol=0)
    batch = rd.forward_dynamics(model, Q, V, TAU)  # the lanes of a batch: the same test
    want = [pin.aba(pm, pd, _pin_q(q), v, t) for q, v, t in zip(Q, V, TAU)]
    np.testing.assert_allclose(batch, want, rtol=2e-15, atol=0)


def _bead(r: float) -> str:
    # a 1 kg point mass r off joint j2's axis (z) and 0.2 m along it: its inertia about j2
    # is r^2 kg m^2 (no inertia at all when r = 0), whatever its 0.04 kg m^2 about x and y
    return _robot(
        _link("heavy", xyz="0.25 0 0", mass="10", inertia="0.25")
        + f'<link name="bead"><inertial><origin xyz="{r} 0 0.2"/><mass value="1"/><inertia '
        'ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>'
        + _joint("j1", "base", "heavy")
        + _joint("j2", "heavy", "bead", xyz="0.5 0 0")
    )


def _pin_mass(xml: str, q) -> np.ndarray:
    pm = pin.buildModelFromXML(xml)
    M = pin.crba(pm, pm.createData(), _pin_q(q))
    return np.triu(M) + np.triu(M, 1).T


def test_a_joint_that_moves_no_inertia_is_refused_with_the_condition_number():
    q, v, tau = np.array([0.3, 0.4]), np.zeros(2), np.ones(2)
    singular = r"singular: joint 'j2' drives a massless subtree, or one with no inertia about"
    # exactly on the axis: M is singular (Pinocchio's has a zero eigenvalue)
    assert np.linalg.eigvalsh(_pin_mass(_bead(0.0), q))[0] == 0.0
    model = load_urdf(_bead(0.0))
    for method in ("aba", "crba"):
        with pytest.raises(ValueError, match=singular + ".*M is not positive definite"):
            rd.forward_dynamics(model, q, v, tau, method=method)
    for method in ("aba", "cholesky"):  # at every q
        with pytest.raises(ValueError, match=r"at state \[0\]: joint 'j2'"):
            rd.mass_matrix_inverse(model, np.array([[0.0, 0.0], [0.3, 0.4]]), method=method)
        with pytest.raises(ValueError, match=singular):
            rd.forward_dynamics_derivatives(model, q, v, tau, method=method)
    # 1e-7 m off: 1e-14 kg m^2 about j2 is 2.5e-13 of the bead's 0.04, below round-off's
    # reach (~1e-16 of it, ~4000x over the depth of a tree): refused, with cond(M), which
    # equals numpy's on Pinocchio's M (1.386e14; the message gives 3 digits)
    want = np.linalg.cond(_pin_mass(_bead(1e-7), q))
    model = load_urdf(_bead(1e-7))
    for method in ("aba", "crba"):
        with pytest.raises(ValueError, match=singular) as err:
            rd.forward_dynamics(model, q, v, tau, method=method)
        got = float(re.search(r"condition number of M is at least (\S+)\)", str(err.value))[1])
        assert 0.99 * want < got < 1.005 * want
    # 1e-5 m off (1e-10 kg m^2, 2.5e-9 of the bead's inertia; cond 1.4e10): computed, as
    # Pinocchio computes it, to what cond * eps = 3e-6 allows (measured 6.9e-8 relative for
    # ABA, 2.4e-7 for the Cholesky of M, as numpy's solve with robodyn's M)
    xml = _bead(1e-5)
    pm = pin.buildModelFromXML(xml)
    want = pin.aba(pm, pm.createData(), _pin_q(q), v, tau)
    model = load_urdf(xml)
    np.testing.assert_allclose(rd.forward_dynamics(model, q, v, tau), want, rtol=7e-7)
    np.testing.assert_allclose(
        rd.forward_dynamics(model, q, v, tau, method="crba"), want, rtol=2.5e-6
    )


def test_a_massless_subtree_is_still_refused(panda):
    # a link without <inertial> on a joint of its own: M has a zero row and column
    xml = _robot(_link("a", xyz="0.3 0 0") + '<link name="ghost"/>' + _joint("j", "base", "a")
                 + _joint("jg", "a", "ghost", xyz="0.6 0 0", axis="0 1 0"))  # fmt: skip
    with pytest.warns(rd.ModelWarning, match="joint 'jg': the continuous joint moves a massless"):
        model = load_urdf(xml)
    z = np.zeros(2)
    for method in ("aba", "crba"):
        with pytest.raises(ValueError, match="joint 'jg' drives a massless subtree.*not positive"):
            rd.forward_dynamics(model, z, z, z, method=method)
    with pytest.raises(ValueError, match=r"singular at state \[0\]: joint 'jg'"):
        rd.forward_dynamics(model, np.zeros((20, 2)), z, z)


def _chain(n: int, base_offset: str = "0 0 0") -> str:
    """n revolute links, alternately about y and x, 0.3 m apart, each 2 kg, its centre
    0.1 m out, I = 0.02 1; the first joint at base_offset from the world's origin."""
    parts = ['<robot name="chain"><link name="l0"/>']
    for k in range(1, n + 1):
        parts.append(
            f'<link name="l{k}"><inertial><origin xyz="0.05 0 0.1"/><mass value="2"/><inertia '
            'ixx="0.02" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial></link>'
            f'<joint name="j{k}" type="continuous"><parent link="l{k - 1}"/><child link="l{k}"/>'
            f'<origin xyz="{base_offset if k == 1 else "0 0 0.3"}"/>'
            f'<axis xyz="{"0 1 0" if k % 2 else "1 0 0"}"/></joint>'
        )
    return "".join(parts) + "</robot>"


def test_the_mass_and_coriolis_matrices_do_not_depend_on_where_the_robot_stands():
    # M and C about the world's origin lost |p|^2 / |I| of their digits: a link of 0.01 kg
    # m^2 1e6 m from the origin had M = 0.010009765625, 1e8 m away M = 0 (singular); they
    # are the same in any fixed frame, and are now computed about the robot's first body
    rng = np.random.default_rng(5)
    q, v = rng.uniform(-1, 1, (2, 4))
    here = load_urdf(_chain(4))
    for far in ("1e6 -2e6 3e5", "1e9 0 0"):
        there = load_urdf(_chain(4, far))
        np.testing.assert_array_equal(rd.mass_matrix(there, q), rd.mass_matrix(here, q))
        np.testing.assert_array_equal(
            rd.coriolis_matrix(there, q, v), rd.coriolis_matrix(here, q, v)
        )
    # a floating base at 1e9 m: the base's position moves nothing in M, C (a free joint)
    free = load_urdf(_chain(4), floating_base=True)
    q0 = np.concatenate(
        [[0, 0, 0], [0.9, 0.1, -0.3, 0.2] / np.linalg.norm([0.9, 0.1, -0.3, 0.2]), q]
    )
    q1 = q0.copy()
    q1[:3] = (1e9, -2e9, 3e8)
    v6 = rng.normal(size=10)
    np.testing.assert_array_equal(rd.mass_matrix(free, q1), rd.mass_matrix(free, q0))
    np.testing.assert_array_equal(
        rd.coriolis_matrix(free, q1, v6), rd.coriolis_matrix(free, q0, v6)
    )
    # and Pinocchio's M (its own frames) equals it there (measured 4e-16 relative)
    xml = _chain(4, "1e6 -2e6 3e5")
    pm = pin.buildModelFromXML(xml)
    M = pin.crba(pm, pm.createData(), _pin_q(q))
    want = np.triu(M) + np.triu(M, 1).T
    np.testing.assert_allclose(
        rd.mass_matrix(load_urdf(xml), q), want, rtol=0, atol=2e-15 * np.abs(want).max()
    )
