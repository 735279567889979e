"""MJCF in and out: ``rd.load_mjcf`` against MuJoCo's own compile of models written here
(every orientation form, every geom and mesh inertia rule, defaults, includes, joints,
couplings), its one warning, its errors; ``rd.to_mjcf`` round trips (example-robot-data
robots and hypothesis trees of every joint type) and its file rules.

MuJoCo parses each text itself; :func:`helpers.mujoco_errors` compares the dynamics on
random states through :class:`helpers.MujocoMap` (contacts and constraints off in MuJoCo).
"""

from __future__ import annotations

import math
import struct
import warnings
import xml.etree.ElementTree as ET

import mujoco
import numpy as np
import pytest
from hypothesis import given, settings

from helpers import (
    TREE_KINDS,
    erd_robots,
    expect_count,
    mujoco_errors,
    mujoco_frames,
    scaled_err,
    trees,
)
from robodyn import dynamics as dyn
from robodyn import models
from robodyn.errors import ModelError, ModelWarning
from robodyn.inertia import compound
from robodyn.kinematics import fk
from robodyn.model.configuration import random_configuration
from robodyn.model.mjcf import load_mjcf
from robodyn.model.mjcf_export import to_mjcf
from robodyn.model.mjcf_inertia import read_mesh
from robodyn.model.urdf import load_urdf
from robodyn.spatial import quat_to_rotation, rot_x, rot_y, rot_z

TOL = 1e-9


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # MuJoCo writes its warnings to ./MUJOCO_LOG.TXT


def _quiet_load(xml, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        return load_mjcf(xml, **kw)


def _pair(xml: str, **kw):
    """MuJoCo's and robodyn's models of one text, contacts and constraints off in MuJoCo."""
    m = mujoco.MjModel.from_xml_string(xml) if "<include" not in xml else None
    if m is not None:
        m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONTACT)
        m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    return m, _quiet_load(xml, **kw)


def _assert_inertias_like_mujoco(model, m, tol=TOL):
    """Each robodyn body holds the MuJoCo bodies whose frames are on it: the compound of
    their mass, centre of mass and inertia (MuJoCo's principal form turned back)."""
    parts: dict[int, list] = {}
    for i in range(1, m.nbody):
        k = model.frame_id(m.body(i).name or f"body{i}")
        b, R, p = int(model.frame_body[k]), model.frame_R[k], model.frame_p[k]
        Ri = quat_to_rotation(m.body_iquat[i])
        parts.setdefault(b, []).append(
            (
                m.body_mass[i],
                R @ m.body_ipos[i] + p,
                R @ Ri @ np.diag(m.body_inertia[i]) @ Ri.T @ R.T,
            )
        )
    for b in range(1, model.nb):
        mass, c, I = compound(parts[b]) if b in parts else (0.0, np.zeros(3), np.zeros((3, 3)))
        name = model.body_names[b]
        assert scaled_err(model.body_mass[b], mass) <= tol, name
        if mass > 0:
            assert scaled_err(model.body_com[b], c) <= tol, name
            assert scaled_err(model.body_inertia[b], I) <= tol, name


def _assert_dynamics_like_mujoco(model, m, states=6, tol=TOL):
    worst = mujoco_errors(model, m, states, seed=7)
    assert all(v <= tol for v in worst.values()), worst


# ------------------------------------------------------------------ orientations
def _random_orientations(rng) -> list[tuple[str, str]]:
    """(compiler attributes, body orientation attribute) in every form MJCF has."""
    out = []
    for _ in range(3):
        q = rng.normal(size=4)
        out.append(("", f'quat="{q[0]} {q[1]} {q[2]} {q[3]}"'))  # not normalised
        a, t = rng.normal(size=3), rng.uniform(-180, 180)
        out.append(("", f'axisangle="{a[0]} {a[1]} {a[2]} {t}"'))
        out.append(('angle="radian"', f'axisangle="{a[0]} {a[1]} {a[2]} {math.radians(t)}"'))
        x, y = rng.normal(size=3), rng.normal(size=3)
        out.append(("", f'xyaxes="{" ".join(map(str, np.r_[x, y]))}"'))
        z = rng.normal(size=3)
        out.append(("", f'zaxis="{z[0]} {z[1]} {z[2]}"'))
        e = rng.uniform(-180, 180, 3)
        for seq in ("xyz", "XYZ", "zyx", "ZxY", "yXz"):
            out.append((f'eulerseq="{seq}"', f'euler="{e[0]} {e[1]} {e[2]}"'))
    out += [("", 'zaxis="0 0 -1"'), ("", 'zaxis="0 0 2"'), ("", 'zaxis="1e-13 0 -1"')]
    return out


def test_every_orientation_form_matches_mujoco(rng):
    for compiler, orient in _random_orientations(rng):
        xml = f"""<mujoco><compiler {compiler}/><worldbody>
          <body name="b" pos="0.1 0.2 0.3" {orient}><joint name="j" axis="0 1 0"/>
            <geom size="0.1"/><site name="s" pos="0.3 0 0" {orient}/>
            <body name="welded" pos="0 0.2 0" {orient}><geom size="0.1"/></body>
          </body></worldbody></mujoco>"""
        m, model = _pair(xml)
        _assert_dynamics_like_mujoco(model, m, states=2)
        d = mujoco.MjData(m)
        mujoco.mj_kinematics(m, d)
        frames, sites, bframes, bodies = mujoco_frames(model, m)
        T = fk(model, np.zeros(1))
        assert np.abs(T[bframes, :3, :3] - d.xmat[bodies].reshape(-1, 3, 3)).max() < 1e-12
        assert np.abs(T[frames, :3, :3] - d.site_xmat[sites].reshape(-1, 3, 3)).max() < 1e-12


def test_euler_sequences_are_the_turns_they_name():
    """Closed forms: moving axes multiply on the right, fixed ones on the left."""
    a, b, c = 0.3, -1.1, 2.0
    for seq, R in (("xyz", rot_x(a) @ rot_y(b) @ rot_z(c)), ("XYZ", rot_z(c) @ rot_y(b) @ rot_x(a)),
                   ("zYx", rot_y(b) @ rot_z(a) @ rot_x(c))):  # fmt: skip
        model = _quiet_load(f"""<mujoco><compiler angle="radian" eulerseq="{seq}"/>
          <worldbody><site name="s" euler="{a} {b} {c}"/></worldbody></mujoco>""")
        assert np.abs(model.frame_R[model.frame_id("s")] - R).max() < 1e-15


# ------------------------------------------------------------------ inertia from geoms
_GEOMS = """
  <body name="sphere"><joint/><geom size="0.1"/></body>
  <body name="capsule"><joint/><geom type="capsule" size="0.05 0.2" euler="10 20 30"/></body>
  <body name="capsule_ft"><joint/>
    <geom type="capsule" fromto="0 0 0 0.3 0.1 -0.2" size="0.04"/></body>
  <body name="cylinder"><joint/>
    <geom type="cylinder" fromto="0.1 0 0 0 0.2 0.3" size="0.04" mass="2"/></body>
  <body name="ellipsoid"><joint/><geom type="ellipsoid" size="0.1 0.2 0.3" pos="0.1 0 0"/></body>
  <body name="ellipsoid_ft"><joint/>
    <geom type="ellipsoid" fromto="0 0 0 0 0 0.4" size="0.1"/></body>
  <body name="box"><joint/>
    <geom type="box" size="0.1 0.2 0.3" xyaxes="1 1 0 -1 1 0" density="700"/></body>
  <body name="box_ft"><joint/><geom type="box" fromto="0 0 0 0.1 0.2 0.3" size="0.05"/></body>
  <body name="shells"><joint/><geom size="0.1" shellinertia="true"/>
    <geom type="capsule" size="0.05 0.2" shellinertia="true" pos="0.3 0 0"/>
    <geom type="cylinder" size="0.05 0.2" shellinertia="true" pos="0 0.3 0" euler="0 90 0"/>
    <geom type="box" size="0.1 0.2 0.3" shellinertia="true" pos="0 0 0.3"/>
    <geom type="ellipsoid" size="0.1 0.2 0.3" shellinertia="true" pos="0.2 0.2 0"/></body>
  <body name="several"><joint/><geom size="0.1" pos="0.2 0 0"/>
    <geom type="box" size="0.1 0.05 0.02" pos="-0.1 0.1 0" euler="30 0 0" mass="0.7"/>
    <geom type="capsule" size="0.02 0.1" group="4" density="300"/>
    <geom size="0.3" group="6"/><geom size="0.05" mass="0"/><geom size="0.05" density="0"/>
    <body name="welded" pos="0.3 0 0"><geom type="box" size="0.1 0.1 0.1"/></body></body>
  <body name="explicit"><joint/><inertial pos="0.1 0 0" mass="2" diaginertia="0.1 0.2 0.25"
    euler="10 20 30"/><geom size="0.3"/></body>
  <body name="full"><joint/><inertial pos="0 0.1 0" mass="1"
    fullinertia="0.1 0.2 0.25 0.01 -0.02 0.03"/></body>
"""


@pytest.mark.parametrize(
    "compiler",
    ["", 'inertiafromgeom="true"', 'inertiagrouprange="0 3"', 'settotalmass="12"',
     'boundmass="20" boundinertia="2"', 'inertiafromgeom="auto" angle="radian"'],
)  # fmt: skip
def test_geom_inertia_rules_match_mujoco(compiler):
    xml = f"<mujoco><compiler {compiler}/><worldbody>{_GEOMS}</worldbody></mujoco>"
    m, model = _pair(xml)
    _assert_inertias_like_mujoco(model, m)
    _assert_dynamics_like_mujoco(model, m, states=3)


def test_geom_inertias_are_the_closed_forms():
    r, h, rho = 0.1, 0.4, 1000.0
    model = _quiet_load(f"""<mujoco><worldbody>
      <body name="s"><joint/><geom size="{r}"/></body>
      <body name="c"><joint/><geom type="cylinder" size="{r} {h / 2}"/></body>
      <body name="p"><joint/><geom type="capsule" size="{r} {h / 2}"/></body>
      </worldbody></mujoco>""")
    m = rho * 4 / 3 * math.pi * r**3
    assert np.allclose(model.body_inertia[1], 0.4 * m * r * r * np.eye(3), rtol=1e-15)
    m = rho * math.pi * r * r * h
    want = np.diag([m * (3 * r * r + h * h) / 12] * 2 + [m * r * r / 2])
    assert np.allclose(model.body_inertia[2], want, rtol=1e-15)
    # a capsule is its cylinder and a sphere split at the middle, each half moved out by h/2
    mc, ms = rho * math.pi * r * r * h, rho * 4 / 3 * math.pi * r**3
    d = h / 2 + 3 * r / 8  # a hemisphere's centre from the capsule's
    I_half_c = 0.4 * (ms / 2) * r * r - (ms / 2) * (3 * r / 8) ** 2  # about its own centre
    Ixx = mc * (3 * r * r + h * h) / 12 + 2 * (I_half_c + (ms / 2) * d * d)
    Izz = 0.5 * mc * r * r + 0.4 * ms * r * r
    assert np.allclose(model.body_inertia[3], np.diag([Ixx, Ixx, Izz]), rtol=1e-14)


# ------------------------------------------------------------------ meshes
def _l_block() -> tuple[np.ndarray, np.ndarray]:
    """A closed, outward, non-convex L-shaped prism: 12 vertices, 20 triangles."""
    P = np.array([[0, 0], [3, 0], [3, 1], [1, 1], [1, 2], [0, 2]], float) * 0.05
    V = np.array([[x, y, z] for z in (0.0, 0.04) for x, y in P])
    tri2d = [(0, 1, 2), (0, 2, 3), (0, 3, 4), (0, 4, 5)]
    F = [(a, c, b) for a, b, c in tri2d] + [(a + 6, b + 6, c + 6) for a, b, c in tri2d]
    for k in range(6):
        n = (k + 1) % 6
        F += [(k, n, n + 6), (k, n + 6, k + 6)]
    return V, np.array(F)


def _write_meshes(folder, V, F) -> None:
    (folder / "meshes").mkdir()
    tri = V[F].astype("<f4")
    with open(folder / "meshes" / "l.stl", "wb") as fh:
        fh.write(b"\0" * 80 + struct.pack("<I", len(F)))
        for t in tri:
            fh.write(np.r_[np.zeros(3, "<f4"), t.ravel()].astype("<f4").tobytes() + b"\0\0")
    lines = ["solid l"] + [
        "facet normal 0 0 0\nouter loop\n"
        + "".join(f"vertex {float(x)!r} {float(y)!r} {float(z)!r}\n" for x, y, z in t)
        + "endloop\nendfacet"
        for t in tri
    ]
    (folder / "meshes" / "l_ascii.stl").write_text("\n".join(lines) + "\nendsolid l\n")
    obj = [f"v {float(x)!r} {float(y)!r} {float(z)!r}" for x, y, z in V] + [
        f"f {a + 1} {b + 1} {c + 1}" for a, b, c in F
    ]
    (folder / "meshes" / "l.obj").write_text("\n".join(obj) + "\n")
    head = struct.pack("<4i", len(V), 0, 0, len(F))
    msh = head + V.astype("<f4").tobytes() + F.astype("<i4").tobytes()
    (folder / "meshes" / "l.msh").write_bytes(msh)  # fmt: skip


@pytest.mark.parametrize("rule", ["legacy", "exact", "convex", "shell"])
def test_mesh_inertia_rules_and_files_match_mujoco(tmp_path, rule):
    V, F = _l_block()
    _write_meshes(tmp_path, V, F)
    vertex = " ".join(map(repr, V.ravel().tolist()))
    xml = f"""<mujoco><compiler meshdir="meshes"/><asset>
      <mesh name="stl" file="l.stl" inertia="{rule}"/>
      <mesh name="ascii" file="l.stl" inertia="{rule}" scale="2 1 0.5"/>
      <mesh file="l.obj" inertia="{rule}" scale="-1 1 1"/>
      <mesh name="msh" file="l.msh" inertia="{rule}"/>
      <mesh name="points" vertex="{vertex}" inertia="{rule}"/></asset><worldbody>
      <body name="a"><joint/><geom type="mesh" mesh="stl" pos="0.1 0 0" euler="10 20 30"/></body>
      <body name="b"><joint/><geom type="mesh" mesh="ascii" mass="3"/></body>
      <body name="c"><joint/><geom type="mesh" mesh="l" density="500"/>
        <geom type="mesh" mesh="msh" pos="0 0.2 0"/></body>
      <body name="d"><joint/><geom type="mesh" mesh="points"/></body></worldbody></mujoco>"""
    (tmp_path / "m.xml").write_text(xml)
    m = mujoco.MjModel.from_xml_path(str(tmp_path / "m.xml"))
    model = _quiet_load(tmp_path / "m.xml")
    # MuJoCo's principal axes are its Jacobi solver's (see tests/oracle/test_oracle_mjcf.py)
    _assert_inertias_like_mujoco(model, m, tol=1e-9 if rule != "shell" else 1e-8)
    # MuJoCo reads binary STL only; robodyn also reads ASCII STL, to the same numbers
    folder = tmp_path / "meshes"
    binary, ascii = read_mesh(folder / "l.stl", "b"), read_mesh(folder / "l_ascii.stl", "a")
    assert all(np.array_equal(x, y) for x, y in zip(binary, ascii))


def test_exact_mesh_inertia_is_trimeshs(tmp_path):
    """A third source: trimesh's integrals of the closed L block, density 1."""
    import trimesh

    V, F = _l_block()
    _write_meshes(tmp_path, V, F)
    model = _quiet_load(f"""<mujoco><compiler meshdir="{tmp_path / "meshes"}"/><asset>
      <mesh name="l" file="l.obj" inertia="exact"/></asset><worldbody><body name="b">
      <joint/><geom type="mesh" mesh="l" density="1"/></body></worldbody></mujoco>""")
    mesh = trimesh.Trimesh(V.astype(np.float32).astype(float), F, process=False)
    assert scaled_err(model.body_mass[1], mesh.volume) <= 1e-12
    assert scaled_err(model.body_com[1], mesh.center_mass) <= 1e-12
    assert scaled_err(model.body_inertia[1], mesh.moment_inertia) <= 1e-9


# ------------------------------------------------------------------ defaults, includes, joints
def test_defaults_childclass_frames_and_includes_like_mujoco(tmp_path):
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "defaults.xml").write_text("""<mujoco><default>
      <joint damping="0.3" armature="0.01" range="-45 45"/><geom density="800"/>
      <default class="arm"><joint axis="0 1 0" frictionloss="0.2"/>
        <default class="wrist"><joint damping="0.05" range="-90 30"/>
          <geom type="box" size="0.02 0.03 0.04" euler="0 0 45"/></default></default>
      <default class="leg"><joint type="slide" axis="1 0 0" range="-0.1 0.2"/></default>
    </default></mujoco>""")
    (tmp_path / "parts" / "arm.xml").write_text("""<mujoco><worldbody>
      <body name="upper" childclass="arm" pos="0 0 0.5"><joint name="shoulder"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
        <frame pos="0.3 0 0" euler="0 0 30" childclass="wrist">
          <body name="hand"><joint name="wrist"/><geom/><joint name="twist" class="leg"/>
            <geom class="arm" size="0.05" quat="1 0 0 0"/><site name="tip" pos="0.1 0 0"/></body>
        </frame></body></worldbody></mujoco>""")
    (tmp_path / "robot.xml").write_text("""<mujoco model="r"><include file="parts/defaults.xml"/>
      <include file="parts/arm.xml"/></mujoco>""")
    m = mujoco.MjModel.from_xml_path(str(tmp_path / "robot.xml"))
    m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
    model = _quiet_load(tmp_path / "robot.xml")
    _assert_inertias_like_mujoco(model, m)
    _assert_dynamics_like_mujoco(model, m)
    for name in ("shoulder", "wrist", "twist"):
        i, j = model.joint_id(name), m.joint(name).id
        va, qa = model.jnt_vadr[i], model.jnt_qadr[i]
        assert model.dof_damping[va] == m.dof_damping[j] and model.dof_friction[va] == \
            m.dof_frictionloss[j]  # fmt: skip
        assert np.allclose([model.q_lower[qa], model.q_upper[qa]], m.jnt_range[j], rtol=1e-15)


_JOINTS = """<mujoco><compiler angle="{angle}"/><option gravity="0.5 -1 -9"/><worldbody>
  <body name="base" pos="0 0 1"><freejoint name="root"/><geom size="0.2"/>
    <body name="three" pos="0.2 0 0" euler="10 20 30">
      <joint name="a" pos="0.1 0 0" axis="0 0 1" ref="{ref}" range="-30 60" damping="0.2"/>
      <joint name="b" type="slide" pos="0.3 0.1 0" axis="1 1 0" ref="0.05" range="-0.1 0.1"
             armature="0.3" actuatorfrcrange="-7 7"/>
      <joint name="c" pos="0 0.1 0.2" axis="1 0 0" frictionloss="0.4"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
      <body name="ball" pos="0.3 0 0"><joint name="d" type="ball" pos="0.05 0 0" damping="0.1"/>
        <geom type="box" size="0.05 0.06 0.07" pos="0.1 0 0"/><site name="tip" pos="0.2 0 0"/>
        <body name="anchored" pos="0.2 0 0"><joint name="e" pos="0 0 0.1" axis="0 1 1"/>
          <geom size="0.04" pos="0.05 0 0"/></body></body></body></body>
  <body name="ball_only" pos="1 0 0"><joint name="f" type="ball"/><geom size="0.1" pos="0 0 0.2"/>
    <body name="after"><joint name="g" type="slide" axis="0 0 1" limited="false" range="0 1"/>
      <geom size="0.05"/></body></body></worldbody></mujoco>"""


@pytest.mark.parametrize("angle, ref", [("degree", 20.0), ("radian", 0.4)])
def test_joints_like_mujoco(angle, ref):
    xml = _JOINTS.format(angle=angle, ref=ref)
    if angle == "radian":
        xml = xml.replace('range="-30 60"', 'range="-0.5 1.0"')
    m, model = _pair(xml)
    _assert_inertias_like_mujoco(model, m)
    _assert_dynamics_like_mujoco(model, m)
    np.testing.assert_array_equal(model.gravity, [0.5, -1, -9])
    for name in "abce":  # limits: MuJoCo's range, less its qpos0 (ref)
        i, j = model.joint_id(name), m.joint(name).id
        lo, hi = m.jnt_range[j] if m.jnt_limited[j] else (-np.inf, np.inf)
        q0 = m.qpos0[m.jnt_qposadr[j]]
        qa = model.jnt_qadr[i]
        assert np.allclose([model.q_lower[qa] + q0, model.q_upper[qa] + q0], [lo, hi], rtol=1e-15)
    assert model.effort_limit[model.jnt_vadr[model.joint_id("b")]] == 7.0
    assert np.isinf(model.q_upper[model.jnt_qadr[model.joint_id("g")]])  # limited="false"
    # three joints in one body: a chain of three bodies, the first two massless, the last
    # at joint c's anchor carrying the mass, and "three" a frame on it at -anchor
    assert (
        model.body_mass[model.body_id("three_a")] == model.body_mass[model.body_id("three_b")] == 0
    )
    k = model.frame_id("three")
    assert model.body_names[model.frame_body[k]] == "three_c"
    assert np.allclose(model.frame_p[k], [0, -0.1, -0.2])


def test_autolimits_false_needs_limited():
    xml = """<mujoco><compiler autolimits="false"/><worldbody><body><joint name="j" {}/>
      <geom size="0.1"/></body></worldbody></mujoco>"""
    with pytest.raises(ModelError, match="<joint name='j'>.*range given without limited"):
        load_mjcf(xml.format('range="0 1"'))
    model = load_mjcf(xml.format('range="0 45" limited="true"'))
    assert np.allclose([model.q_lower[0], model.q_upper[0]], [0, math.pi / 4])


# ------------------------------------------------------------------ couplings, warnings
_COUPLED = """<mujoco><worldbody><body name="a"><joint name="lead" axis="0 0 1" ref="10"/>
  <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
  <body name="b" pos="0.3 0 0"><joint name="follow" axis="0 1 0" ref="-5"/>
    <geom type="box" size="0.1 0.02 0.03" pos="0.1 0 0"/>
    <body name="c" pos="0.2 0 0"><joint name="slider" type="slide" axis="1 0 0"/>
      <geom size="0.05"/></body></body></body></worldbody>
  <equality><joint joint1="follow" joint2="lead" polycoef="0.1 -0.7 0 0 0"/>
    <joint joint1="slider" joint2="lead" polycoef="{poly}"/></equality></mujoco>"""


def test_joint_couplings_are_mimic_joints_like_mujocos_constraint():
    """robodyn's reduced dynamics equal MuJoCo's projected on the coupling: M = T^T M_mj T,
    tau = T^T rne_mj with MuJoCo's follower rows mult times the leader's column."""
    m, model = _pair(_COUPLED.format(poly="0.02 0.05 0 0 0"))
    assert model.nv == 1 and model.joint_names == ("lead",)
    assert model.jnt_mimic_mult[model.joint_id("follow")] == -0.7
    _assert_dynamics_like_mujoco(model, m)
    # mimic=False: three independent joints, the couplings left out in the one warning
    with pytest.warns(ModelWarning, match="2 equality constraints"):
        free = load_mjcf(_COUPLED.format(poly="0.02 0.05 0 0 0"), mimic=False)
    assert free.nv == 3
    # a polynomial of degree two is no mimic: left out, named
    with pytest.warns(ModelWarning) as caught:
        model = load_mjcf(_COUPLED.format(poly="0.02 0.05 1 0 0"))
    assert len(caught) == 1 and "1 equality constraints ('<joint>')" in str(caught[0].message)
    assert model.nv == 2


_LEFT_OUT = """<mujoco><option density="1.2"/><worldbody>
  <body name="a" gravcomp="1"><joint name="j1" stiffness="3" springdamper="0 0"/>
    <geom size="0.1"/><site name="s1"/>
    <body name="b" pos="0.2 0 0"><joint name="j2" type="ball" range="0 30"/>
      <joint name="j3" type="slide" springdamper="0.1 1" damping="5"/><geom size="0.1"/>
      <site name="s2"/></body></body></worldbody>
  <tendon><fixed name="t"><joint joint="j1" coef="1"/></fixed></tendon>
  <equality><weld name="w" body1="a"/></equality>
  <actuator><motor name="m1" joint="j1"/><position joint="j3" kp="10"/></actuator></mujoco>"""


def test_one_warning_lists_what_robodyn_leaves_out():
    with pytest.warns(ModelWarning) as caught:
        model = load_mjcf(_LEFT_OUT)
    assert len(caught) == 1
    text = str(caught[0].message)
    for part in ("1 tendons ('t')", "2 actuators ('m1', '<position>')",
                 "1 equality constraints ('w')", "joint springs (stiffness) ('j1')",
                 "ball-joint cone limits ('j2')", "springdampers", "('j3')",
                 "gravity compensation (gravcomp) ('a')", "fluid forces"):  # fmt: skip
        assert part in text, (part, text)
    assert text in model.notes
    assert model.dof_damping[model.jnt_vadr[model.joint_id("j3")]] == 0.0  # MuJoCo derives it
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a model with nothing left out: no warning
        load_mjcf("<mujoco><worldbody><body><joint/><geom size='1'/></body></worldbody></mujoco>")


def test_an_inertia_breaking_the_triangle_inequality_is_kept_with_a_warning():
    xml = """<mujoco><compiler {}/><worldbody><body name="a"><joint/>
      <inertial pos="0 0 0" mass="1" diaginertia="1 1 3"/></body></worldbody></mujoco>"""
    with pytest.warns(ModelWarning, match=r"<body name='a'>: principal moments .* violate A \+ B"):
        model = load_mjcf(xml.format(""))  # as load_urdf keeps it (MuJoCo refuses it)
    assert np.allclose(np.diag(model.body_inertia[1]), [1, 1, 3])
    m, balanced = _pair(xml.format('balanceinertia="true"'))  # MuJoCo's mean of the three
    assert np.allclose(balanced.body_inertia[1], np.eye(3) * 5 / 3)
    _assert_inertias_like_mujoco(balanced, m)


def test_sites_are_frames_renamed_when_a_body_has_the_name():
    model = _quiet_load("""<mujoco><worldbody><site name="origin" pos="1 2 3"/>
      <body name="arm"><joint/><geom size="0.1"/><site name="arm" pos="0 0 1"/><site/>
      </body></worldbody></mujoco>""")
    assert "arm_site" in model.frame_names and "site2" in model.frame_names
    assert any("site 'arm' is the frame 'arm_site'" in n for n in model.notes)
    assert np.allclose(model.frame_p[model.frame_id("origin")], [1, 2, 3])
    # unnamed sites, bodies and joints are named after MuJoCo's indices (sites by body,
    # the world's first, wherever they stand in the file)
    m, model = _pair("""<mujoco><worldbody><body pos="0 1 0"><joint/><geom size="0.1"/>
      <site pos="0 0 1"/><body pos="1 0 0"><joint/><geom size="0.1"/><site pos="2 0 0"/></body>
      </body><site pos="3 0 0"/></worldbody></mujoco>""")
    assert model.joint_names == ("joint0", "joint1") and model.body_names[1:] == ("body1", "body2")
    _assert_dynamics_like_mujoco(model, m)  # poses of "site0".."site2" against MuJoCo's


def test_floating_base_option():
    xml = """<mujoco><worldbody><body name="torso" pos="0 0 1"><freejoint name="free"/>
      <geom size="0.1"/><body name="leg"><joint name="knee"/><geom size="0.1"/></body></body>
      <body name="arm" pos="1 0 0"><geom size="0.1"/><body name="hand"><joint name="wrist"/>
      <geom size="0.1"/></body></body></worldbody></mujoco>"""
    assert _quiet_load(xml).nv == 8
    fixed = _quiet_load(xml, floating_base=False)
    assert fixed.nv == 2 and fixed.frame_names[fixed.frame_id("torso")] == "torso"
    assert np.allclose(fk(fixed, np.zeros(2), "torso")[:3, 3], [0, 0, 1])
    floating = _quiet_load(xml, floating_base=True)
    assert floating.nv == 14 and "root_joint" in floating.joint_names


# ------------------------------------------------------------------ bad input
_BAD = {
    "joint type": ("<body><joint name='j' type='screw'/><geom size='1'/></body>",
                   "<joint name='j'>: unknown joint type 'screw'"),
    "short quat": ("<body quat='1 0 0'><geom size='1'/></body>", "<body> quat='1 0 0': expected 4"),
    "zero quat": ("<body quat='0 0 0 0'><geom size='1'/></body>", "quaternion is too small"),
    "two orientations": ("<site name='s' quat='1 0 0 0' euler='0 0 1'/>",
                         "<site name='s'>: more than one orientation"),
    "parallel xyaxes": ("<site name='s' xyaxes='1 0 0 2 0 0'/>", "the y axis"),
    "zero axisangle": ("<site name='s' axisangle='0 0 0 30'/>", "axisangle: the axis"),
    "not a number": ("<site name='s' pos='1 x 2'/>", "<site name='s'> pos='1 x 2': not a number"),
    "unknown class": ("<body><joint class='nope'/><geom size='1'/></body>",
                      "unknown default class 'nope'"),
    "free below": ("<body name='a'><joint/><geom size='1'/><body name='b'><freejoint name='f'/>"
                   "<geom size='1'/></body></body>", "<freejoint name='f'>: a free joint"),
    "composite": ("<body name='a'><composite type='grid' count='2 2 1'/></body>",
                  "<composite> is not supported"),
    "fromto sphere": ("<body name='a'><joint/><geom fromto='0 0 0 1 0 0' size='1'/></body>",
                      "fromto needs a capsule"),
    "no size": ("<body name='a'><joint/><geom type='box' size='1 1'/></body>",
                "a box needs 3 positive size"),
    "geom type": ("<body name='a'><joint/><geom type='blob' size='1'/></body>",
                  "unknown geom type 'blob'"),
    "mesh file": ("<body name='a'><joint/><geom type='mesh' mesh='m'/></body>",
                  "mesh 'm' is not among the <asset> meshes"),
    "plane": ("<body name='a'><joint/><geom type='plane' size='1 1 1'/></body>",
              "a plane geom is only allowed in static bodies"),
    "negative moment": ("<body name='a'><joint/><inertial pos='0 0 0' mass='1' "
                        "fullinertia='1 1 1 2 0 0'/></body>", "negative principal moment"),
    "negative mass": ("<body name='a'><joint/><inertial pos='0 0 0' mass='-1' "
                      "diaginertia='1 1 1'/></body>", "negative mass"),
}  # fmt: skip


@pytest.mark.parametrize("key", sorted(_BAD))
def test_bad_mjcf_raises_a_value_error_naming_the_element(key):
    body, message = _BAD[key]
    with pytest.raises(ValueError, match=re_escape(message)):
        load_mjcf(f"<mujoco><worldbody>{body}</worldbody></mujoco>")


def re_escape(text: str) -> str:
    import re

    return re.escape(text)


def test_bad_files_and_roots(tmp_path):
    with pytest.raises(ModelError, match="<include file='nope.xml'>: no such file"):
        load_mjcf("<mujoco><include file='nope.xml'/></mujoco>")
    (tmp_path / "a.xml").write_text("<mujoco><include file='a.xml'/></mujoco>")
    with pytest.raises(ModelError, match="included twice"):
        load_mjcf(tmp_path / "a.xml")
    with pytest.raises(ModelError, match="root element is <robot>, expected <mujoco>"):
        load_mjcf("<robot name='r'><link name='a'/></robot>")
    with pytest.raises(ModelError, match="mesh file not found"):
        load_mjcf("""<mujoco><asset><mesh name="m" file="gone.stl"/></asset><worldbody>
          <body><joint/><geom type="mesh" mesh="m"/></body></worldbody></mujoco>""")
    with pytest.raises(FileNotFoundError):
        load_mjcf(tmp_path / "missing.xml")
    with pytest.raises(ModelError, match="DTDs and entities are refused"):
        load_mjcf('<!DOCTYPE m [<!ENTITY x "y">]><mujoco/>')


def test_models_load_picks_the_reader_from_the_root(tmp_path):
    (tmp_path / "mj.xml").write_text("<?xml version='1.0'?>\n<!-- a robot -->\n<mujoco><worldbody>"
                                     "<body name='b'><joint name='j'/><geom size='0.1'/></body>"
                                     "</worldbody></mujoco>")  # fmt: skip
    (tmp_path / "ur.xml").write_text(
        "<robot name='r'><link name='a'/><link name='b'><inertial><mass value='1'/><inertia "
        "ixx='1' iyy='1' izz='1'/></inertial></link><joint name='j' type='continuous'>"
        "<parent link='a'/><child link='b'/></joint></robot>"
    )
    mj, ur = models.load(tmp_path / "mj.xml"), models.load(str(tmp_path / "ur.xml"))
    assert mj.joint_names == ("j",) and mj.source == str(tmp_path / "mj.xml")
    assert ur.joint_names == ("j",) and ur.name == "r"


# ------------------------------------------------------------------ the writer
def test_to_mjcf_follows_the_file_rules(tmp_path):
    model = models.load("ur5")
    path = tmp_path / "ur5.xml"
    assert to_mjcf(model, path) == path
    text = path.read_text()
    ET.fromstring(text)
    with pytest.raises(FileExistsError, match="overwrite=True"):
        to_mjcf(model, path)
    assert path.read_text() == text  # untouched
    with pytest.warns(ModelWarning, match="MJCF cannot say the velocity limit of 'joint1'"):
        to_mjcf(models.load("panda"), path, overwrite=True)
    assert "panda" in path.read_text() and not list(tmp_path.glob("*_tmp*"))
    with pytest.raises(ValueError, match="does not exist"):
        to_mjcf(model, tmp_path / "no" / "x.xml")
    assert to_mjcf(model) == text  # no path: the text


def test_written_models_compile_in_mujoco_and_match_it():
    for name in ("ur5", "panda", "planar_2r", "rp_arm"):
        model = models.load(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ModelWarning)  # velocity limits
            m = mujoco.MjModel.from_xml_string(to_mjcf(model))
        m.opt.disableflags |= int(mujoco.mjtDisableBit.mjDSBL_CONSTRAINT)
        _assert_dynamics_like_mujoco(model, m)


def _roundtrip(model):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        return load_mjcf(to_mjcf(model))


def _coordinate_map(model, back, q, v):
    """q', v' = T v and b (a' = T a + b) of the model read back from its MJCF (see
    robodyn.model.mjcf_export): joints by name; a planar joint is (x, y, phi) with the
    rates in the joint frame, a free joint off the world three slides and a ball."""
    q2, T, b = np.zeros(back.nq), np.zeros((back.nv, model.nv)), np.zeros(back.nv)
    for i in range(1, model.nb):
        if model.jnt_nq[i] == 0:
            continue
        name, t = model.joint_names_all[i], int(model.jnt_type[i])
        qa, va, nq, nv = (int(x[i]) for x in (model.jnt_qadr, model.jnt_vadr, model.jnt_nq,
                                               model.jnt_nv))  # fmt: skip
        j = back.joint_id(name)
        bq, bv = int(back.jnt_qadr[j]), int(back.jnt_vadr[j])
        if t == 5:  # planar (phi, x, y) -> slides x, y then the hinge
            bx, by = back.joint_id(f"{name}_x"), back.joint_id(f"{name}_y")
            phi, (c, s) = q[qa], (math.cos(q[qa]), math.sin(q[qa]))
            R2 = np.array([[c, -s], [s, c]])
            q2[[back.jnt_qadr[bx], back.jnt_qadr[by], bq]] = q[qa + 1], q[qa + 2], phi
            rows = [back.jnt_vadr[bx], back.jnt_vadr[by]]
            T[bv, va] = 1.0
            T[np.ix_(rows, [va + 1, va + 2])] = R2
            b[rows] = R2 @ (v[va] * np.array([-v[va + 2], v[va + 1]]))
        elif t == 3 and back.jnt_type[j] == 4:  # free off the world: slides x, y, z, ball
            R = quat_to_rotation(q[qa + 3 : qa + 7])
            rows = [back.jnt_vadr[back.joint_id(f"{name}_{c}")] for c in "xyz"]
            for k, c in enumerate("xyz"):
                q2[back.jnt_qadr[back.joint_id(f"{name}_{c}")]] = q[qa + k]
            q2[bq : bq + 4] = q[qa + 3 : qa + 7]
            T[np.ix_(rows, range(va + 3, va + 6))] = R
            T[bv : bv + 3, va : va + 3] = np.eye(3)
            b[rows] = R @ np.cross(v[va : va + 3], v[va + 3 : va + 6])
        elif nq == 2 and back.jnt_nq[j] == 1:  # cylindrical, universal: two joints
            second = back.joint_id(name + ("_slide" if t == 7 else "_axis2"))
            q2[[bq, back.jnt_qadr[second]]] = q[qa : qa + 2]
            T[[bv, back.jnt_vadr[second]], [va, va + 1]] = 1.0
        else:
            q2[bq : bq + nq] = q[qa : qa + nq]
            T[bv : bv + nv, va : va + nv] = np.eye(nv)
    return q2, T, b


def _assert_same_dynamics(model, back, rng, states=4, tol=1e-12):
    turning = [i for i in range(1, model.nb) if int(model.jnt_type[i]) in (3, 5)
               and (model.jnt_p[i].any() or not np.array_equal(model.jnt_R[i], np.eye(3))
                    or model.body_parent[i] != 0 or int(model.jnt_type[i]) == 5)]  # fmt: skip
    exact = not any(model.dof_friction[model.jnt_vadr[i]] or model.dof_armature[
        model.jnt_vadr[i]] for i in turning)  # fmt: skip
    for _ in range(states):
        q = random_configuration(model, rng)
        v, a, tau = rng.normal(size=(3, model.nv))
        q2, T, b = _coordinate_map(model, back, q, v)
        v2, a2 = T @ v, T @ a + b
        # a planar joint's, or a free joint's off the world, Coulomb friction and armature
        # act on other rates once written on slides (to_mjcf's warning says so)
        kw = dict(friction=exact, armature=exact)
        tau_rd = dyn.inverse_dynamics(model, q, v, a, **kw)
        assert scaled_err(T.T @ dyn.inverse_dynamics(back, q2, v2, a2, **kw), tau_rd) <= tol
        M, M_back = (
            dyn.mass_matrix(model, q, armature=exact),
            dyn.mass_matrix(back, q2, armature=exact),
        )
        assert scaled_err(T.T @ M_back @ T, M) <= tol
        if np.linalg.cond(M) < 1e12:  # (a robot with a massless moving subtree has none)
            a_back = dyn.forward_dynamics(back, q2, v2, T @ tau, **kw)
            a_rd = dyn.forward_dynamics(model, q, v, tau, **kw)
            assert scaled_err(T.T @ (a_back - b), a_rd) <= tol * np.linalg.cond(M)
        for f in set(model.frame_names) & set(back.frame_names) - {model.body_names[0], "world"}:
            assert np.abs(fk(back, q2, f) - fk(model, q, f)).max() <= tol * 10, f


@pytest.fixture(scope="module")
def erd_models():
    """The example-robot-data robots robodyn loads by default (every other one floating)."""
    robots = expect_count(erd_robots(), 66, "example-robot-data URDFs Pinocchio loads")
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelWarning)
        for k, (name, path) in enumerate(robots):
            try:
                out.append((name, load_urdf(path, floating_base=bool(k % 2))))
            except ModelError:  # a non-physical inertia (see tests/oracle/conftest.py)
                continue
    return expect_count(out, 65, "example-robot-data URDFs robodyn loads by default")


def test_roundtrip_example_robot_data(erd_models, rng):
    for name, model in erd_models:
        back = _roundtrip(model)
        assert (back.nq, back.nv) == (model.nq, model.nv), name
        _assert_same_dynamics(model, back, rng, states=2)


@settings(max_examples=40, deadline=None)
@given(trees(kinds=TREE_KINDS, floating=None, mimic=None, damping=None))
def test_roundtrip_hypothesis_trees(tree):
    model = tree.model
    back = _roundtrip(model)
    assert (back.nq, back.nv) == (model.nq, model.nv)
    _assert_same_dynamics(model, back, np.random.default_rng(0))


def test_command_line_reads_mjcf_files(tmp_path, capsys):
    from robodyn.cli import main

    path = tmp_path / "arm.xml"
    path.write_text("""<mujoco><worldbody><body name="base"><geom size="0.1"/>
      <body name="link" pos="0 0 0.1"><joint name="j"/><geom size="0.05"/></body></body>
      </worldbody></mujoco>""")
    assert main(["info", str(path)]) == 0
    assert "nq = 1" in capsys.readouterr().out
    assert main(["info", str(path), "--floating-base"]) == 0
    assert "nq = 8" in capsys.readouterr().out
