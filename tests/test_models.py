"""Bundled robots: names(), load(), the numbers of the course notes and the sources."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import robodyn as rd
from helpers import chain_frame_poses, erd_path
from robodyn import models
from robodyn.errors import ModelError
from robodyn.model.configuration import neutral, random_configuration
from robodyn.model.poe import to_mr as rd_to_mr


def _com_world(model, q) -> np.ndarray:
    F = chain_frame_poses(model, q)
    out = []
    for i in range(1, model.nb):
        Tb = F[model.frame_id(model.body_names[i])]
        out.append(Tb[:3, :3] @ model.body_com[i] + Tb[:3, 3])
    return np.array(out)


def test_names_and_every_model_loads():
    sizes = {"pendulum": 1, "planar_2r": 2, "point_mass_2r": 2, "single_link": 1, "rp_arm": 2,
             "ur5": 6, "panda": 7}  # fmt: skip
    assert set(models.names()) == set(sizes)
    for name in models.names():
        m = models.load(name)
        assert m.name == name
        assert (m.nq, m.nv) == (sizes[name], sizes[name])
        assert {"ee", "bob", "tip"} & set(m.frame_names)
        meta = models.info(name)
        assert meta["source"] and meta["description"]
    assert models.load("ur5") is models.load("ur5")  # immutable, loaded once


def test_total_masses():
    assert models.load("pendulum").total_mass == pytest.approx(1.0, rel=1e-15)
    assert models.load("planar_2r").total_mass == pytest.approx(8.0, rel=1e-15)
    assert models.load("rp_arm").total_mass == pytest.approx(3.0, rel=1e-15)
    ur5 = 3.7 + 8.393 + 2.275 + 1.219 + 1.219 + 0.1879
    assert models.load("ur5").total_mass == pytest.approx(ur5, rel=1e-15)
    # Gaz et al. (2019) link masses, links 1..7
    panda = 4.970684 + 0.646926 + 3.228604 + 3.587895 + 1.225946 + 1.666555 + 0.735522
    assert models.load("panda").total_mass == pytest.approx(panda, rel=1e-15)


def test_planar_2r_is_the_course_arm():
    # course notes 003: m1=5, m2=3, l1=0.5, l2=0.4, lc1=0.25, lc2=0.2, I1=0.1, I2=0.05
    m = models.load("planar_2r")
    np.testing.assert_array_equal(m.body_mass, [0, 5.0, 3.0])
    np.testing.assert_array_equal(m.body_com[1:], [[0.25, 0, 0], [0.2, 0, 0]])
    assert m.body_inertia[1][2, 2] == 0.1 and m.body_inertia[2][2, 2] == 0.05
    np.testing.assert_array_equal(m.jnt_p[2], [0.5, 0, 0])
    np.testing.assert_array_equal(m.jnt_axis[1:], [[0, 0, 1], [0, 0, 1]])
    np.testing.assert_array_equal(m.gravity, [0, -9.81, 0])
    rng = np.random.default_rng(0)
    for _ in range(5):
        q1, q2 = rng.uniform(-math.pi, math.pi, 2)
        ee = chain_frame_poses(m, [q1, q2])[m.frame_id("ee")][:3, 3]
        np.testing.assert_allclose(
            ee, [0.5 * math.cos(q1) + 0.4 * math.cos(q1 + q2),
                 0.5 * math.sin(q1) + 0.4 * math.sin(q1 + q2), 0], atol=1e-15
        )  # fmt: skip
        c = _com_world(m, [q1, q2])
        np.testing.assert_allclose(c[0], [0.25 * math.cos(q1), 0.25 * math.sin(q1), 0], atol=1e-15)
        np.testing.assert_allclose(
            c[1], [0.5 * math.cos(q1) + 0.2 * math.cos(q1 + q2),
                   0.5 * math.sin(q1) + 0.2 * math.sin(q1 + q2), 0], atol=1e-15
        )  # fmt: skip


def test_rp_arm_matches_the_lagrangian_of_the_text():
    # notes 001 Example 10.1.2: link-1 CoM at r1 (c1, s1), link-2 CoM at q2 (c1, s1);
    # V = a_g sin q1 (m1 r1 + m2 q2) with gravity along -x2
    m = models.load("rp_arm")
    p = models.info("rp_arm")["parameters"]
    m1, r1, m2, a_g = p["m1"], p["r1"], p["m2"], p["a_g"]
    assert m.body_mass[1:].tolist() == [m1, m2]
    assert m.body_inertia[1][2, 2] == p["I1"] and m.body_inertia[2][2, 2] == p["I2"]
    np.testing.assert_array_equal(m.gravity, [0, -a_g, 0])
    for q in random_configuration(m, 1, size=5):
        c = _com_world(m, q)
        u = np.array([math.cos(q[0]), math.sin(q[0]), 0])
        np.testing.assert_allclose(c, [r1 * u, q[1] * u], atol=1e-15)
        V = -(m.body_mass[1:] @ (c @ m.gravity))
        assert V == pytest.approx(a_g * math.sin(q[0]) * (m1 * r1 + m2 * q[1]), abs=1e-13)
        assert 0.0 <= q[1] <= 1.0
    assert m.jnt_type[2] == 2  # prismatic


def test_pendulum_numbers():
    m = models.load("pendulum")
    p = models.info("pendulum")["parameters"]
    assert (p["m"], p["l"], p["g"]) == (1.0, 1.0, 9.81)
    np.testing.assert_array_equal(m.body_inertia[1], np.zeros((3, 3)))  # point bob
    np.testing.assert_array_equal(neutral(m), [0.0])
    for q in (0.0, 0.4, -2.0):
        bob = chain_frame_poses(m, [q])[m.frame_id("bob")][:3, 3]
        np.testing.assert_allclose(bob, [math.sin(q), -math.cos(q), 0], atol=1e-15)
    # m l^2: the inertia about the pivot axis
    c = m.body_com[1]
    assert m.body_mass[1] * (c[0] ** 2 + c[1] ** 2) + m.body_inertia[1][2, 2] == 1.0


def test_ur5_and_panda_sources_are_cited():
    assert "Modern Robotics" in models.info("ur5")["source"]
    src = models.info("panda")["source"]
    assert "Gaz" in src["inertias"] and "panda.urdf" in src["inertias"]
    m = models.load("panda")
    assert m.q_lower[3] == -3.0718 and m.q_upper[5] == 3.7525  # Franka's joint 4 and 6 limits


def test_load_paths_and_errors(tmp_path):
    listed = "pendulum, planar_2r, point_mass_2r, single_link, rp_arm"
    with pytest.raises(ModelError, match=f"unknown robot 'nope'.*{listed}"):
        models.load("nope")
    with pytest.raises(ModelError, match="unknown robot"):
        models.info("nope")
    with pytest.raises(ModelError, match="expects a robot name or a file path"):
        models.load(3)
    with pytest.raises(ModelError, match="no such URDF file"):
        models.load(str(tmp_path / "missing.urdf"))
    # a JSON description in the bundled format
    spec = {
        "format": "builder",
        "name": "slider",
        "gravity": [0, 0, -9.81],
        "bodies": [{"name": "cart", "parent": "world", "type": "prismatic", "axis": [1, 0, 0],
                    "xyz": [0, 0, 0.5], "rpy": [0, 0, math.pi / 2], "mass": 2.0}],
    }  # fmt: skip
    path = tmp_path / "slider.json"
    path.write_text(json.dumps(spec))
    m = models.load(path)
    assert m.name == "slider" and m.nq == 1 and m.total_mass == 2.0
    np.testing.assert_allclose(m.jnt_R[1], [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)
    bad = dict(spec, format="sdf")
    path.write_text(json.dumps(bad))
    with pytest.raises(ModelError, match="unknown robot description format 'sdf'"):
        models.load(path)
    del spec["bodies"][0]["parent"]
    path.write_text(json.dumps(spec))
    with pytest.raises(ModelError, match="missing the key 'parent'"):
        models.load(path)


def test_load_urdf_path_dispatches_to_the_urdf_loader():
    from robodyn.model.urdf import load_urdf

    path = erd_path("ur_description/urdf/ur5_robot")
    m = models.load(path)
    ref = load_urdf(path)
    assert m.nq == ref.nq == 6
    assert m.body_names == ref.body_names
    np.testing.assert_array_equal(m.body_mass, ref.body_mass)


def test_bundled_ur5_inertias_are_the_books():
    """The Modern Robotics UR5's spatial inertias at the link CoMs, typed from the book's UR5
    example (Lynch & Park's chapter 8 simulation code: G_i = diag(I_xx, I_yy, I_zz, m, m, m)),
    against the bundled model's Glist (rd.to_mr). Only the masses were checked before."""
    book = [
        [0.010267495893, 0.010267495893, 0.00666, 3.7],
        [0.22689067591, 0.22689067591, 0.0151074, 8.393],
        [0.049443313556, 0.049443313556, 0.004095, 2.275],
        [0.111172755531, 0.111172755531, 0.21942, 1.219],
        [0.111172755531, 0.111172755531, 0.21942, 1.219],
        [0.0171364731454, 0.0171364731454, 0.033822, 0.1879],
    ]
    Glist = rd_to_mr(models.load("ur5"))[3]
    assert len(Glist) == 6
    for G, (ixx, iyy, izz, m) in zip(Glist, book):
        np.testing.assert_allclose(G, np.diag([ixx, iyy, izz, m, m, m]), rtol=1e-11, atol=1e-14)


# ------------------------------------------------------------------ parametric robots
def test_point_mass_2r_is_the_arm_of_notes_000(rng):
    """M, c, g of course notes 000 ("Equations of Motion"), typed in, at random parameters."""
    for _ in range(5):
        m1, m2, L1, L2 = rng.uniform(0.3, 3.0, 4)
        g = rng.uniform(1.0, 12.0)
        arm = models.load("point_mass_2r", m1=m1, m2=m2, L1=L1, L2=L2, g=g)
        th, thd = rng.uniform(-np.pi, np.pi, 2), rng.normal(size=2)
        c2, s2 = math.cos(th[1]), math.sin(th[1])
        M = np.array([
            [m1 * L1**2 + m2 * (L1**2 + L2**2 + 2 * L1 * L2 * c2), m2 * (L2**2 + L1 * L2 * c2)],
            [m2 * (L2**2 + L1 * L2 * c2), m2 * L2**2],
        ])  # fmt: skip
        c = np.array([-m2 * L1 * L2 * s2 * (2 * thd[0] * thd[1] + thd[1] ** 2),
                      m2 * L1 * L2 * s2 * thd[0] ** 2])  # fmt: skip
        c12 = math.cos(th[0] + th[1])
        gv = np.array([(m1 * L1 + m2 * L1) * g * math.cos(th[0]) + m2 * L2 * g * c12,
                       m2 * L2 * g * c12])  # fmt: skip
        np.testing.assert_allclose(rd.mass_matrix(arm, th), M, rtol=1e-13, atol=1e-13)
        np.testing.assert_allclose(rd.velocity_forces(arm, th, thd), c, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(rd.gravity_forces(arm, th), gv, rtol=1e-13, atol=1e-12)
        tip = rd.fk(arm, th, "ee")[:3, 3]
        np.testing.assert_allclose(tip[:2], [L1 * math.cos(th[0]) + L2 * c12,
                                             L1 * math.sin(th[0]) + L2 * math.sin(th.sum())],
                                   atol=1e-13)  # fmt: skip


def test_single_link_is_exercise_1_of_notes_003(rng):
    """(I + m lc^2) theta_dd + m g lc sin(theta) = tau, theta = 0 hanging down; tip at l."""
    assert models.info("single_link")["parameters"] == {
        "m": 2.0, "l": 0.5, "lc": 0.25, "I": 0.02, "g": 9.81}  # fmt: skip
    for m, l, lc, inertia, g in [(2.0, 0.5, 0.25, 0.02, 9.81), tuple(rng.uniform(0.1, 3.0, 5))]:
        link = models.load("single_link", m=m, l=l, lc=lc, I=inertia, g=g)
        th, thd, thdd = rng.uniform(-np.pi, np.pi), rng.normal(), rng.normal()
        tau = (inertia + m * lc**2) * thdd + m * g * lc * math.sin(th)
        assert rd.inverse_dynamics(link, [th], [thd], [thdd])[0] == pytest.approx(tau, rel=1e-13)
        np.testing.assert_allclose(rd.fk(link, [th], "tip")[:2, 3],
                                   [l * math.sin(th), -l * math.cos(th)], atol=1e-14)  # fmt: skip


def test_parameters_are_checked_and_models_cached():
    assert models.load("point_mass_2r", L1=0.5) is models.load("point_mass_2r", L1=0.5)
    assert models.load("point_mass_2r", L1=0.5) is not models.load("point_mass_2r")
    with pytest.raises(ModelError, match="unknown parameter.*'l1'.*m1, m2, L1, L2, g"):
        models.load("point_mass_2r", l1=0.5)
    with pytest.raises(ModelError, match="parameters"):
        models.load("ur5", m1=1.0)
