"""load_mjcf's visuals (``model.visuals``) against what MuJoCo itself draws, file by file.

MuJoCo parses each file (``MjSpec.from_file``, ``compile``), robodyn's ``load_mjcf`` the same
file. MuJoCo's renderer decides which geoms are drawn and in which colour: ``mjv_updateScene``
with the default ``MjvOption`` (geom groups 0, 1, 2 shown) lists the geoms it draws, with
the colour it draws them in (the geom's rgba, or its material's). Planes, height fields
and sdf geoms, which robodyn leaves out, are taken out of that list. Then, at MuJoCo's
qpos0 and at 3 random configurations (through :class:`helpers.MujocoMap`):

* the drawn geoms are robodyn's visuals, in MuJoCo's geom order, of the same type;
* each visual's world pose, robodyn's body pose (``body_poses``) times its
  ``T_body_geometry``, equals MuJoCo's ``geom_xpos``/``geom_xmat`` to 1e-9; for a mesh,
  MuJoCo's geom frame is the mesh's inertial frame (``mesh_pos``/``mesh_quat`` in the
  scaled file's coordinates), so the file's own frame is ``X_geom [R(mesh_quat),
  mesh_pos]^-1``;
* sizes equal ``geom_size`` (sphere radius; capsule, cylinder radius and length ``2
  size[1]``; box edges ``2 size``; ellipsoid semi-axes), a mesh's scale ``mesh_scale`` and
  its file the one MuJoCo read; the colour, rounded to float32 as MuJoCo stores it, equals
  the scene's exactly.

The mesh frame is also checked on the vertices: the file's vertices, scaled and placed by
robodyn's pose, land on MuJoCo's compiled vertices (``mesh_vert`` at the geom's pose) to
float32 precision.
"""

from __future__ import annotations

import os
import warnings
import zlib
from pathlib import Path

import mujoco
import numpy as np
import pytest
from scipy.spatial import cKDTree

import robodyn as rd
from helpers import (
    MJCF_EXPECTED,
    MujocoMap,
    expect_count,
    mujoco_pair,
    mujoco_site_packages,
)
from robodyn.model.mjcf_inertia import read_mesh
from robodyn.spatial import quat_to_rotation

TOL = 1e-9
RANDOM = 3
LOADS = sorted(rel for rel, v in MJCF_EXPECTED.items() if not v.startswith("MuJoCo refuses"))
N_LOADS = 48  # of the 52 files, MuJoCo compiles 48 (see tests/oracle/test_oracle_mjcf.py)
G = mujoco.mjtGeom
KINDS = {int(G.mjGEOM_SPHERE): "sphere", int(G.mjGEOM_CAPSULE): "capsule",
         int(G.mjGEOM_CYLINDER): "cylinder", int(G.mjGEOM_BOX): "box",
         int(G.mjGEOM_ELLIPSOID): "ellipsoid", int(G.mjGEOM_MESH): "mesh"}  # fmt: skip
#: the files that draw meshes
MESH_MODELS = ["dm_control/suite/dog.xml", "dm_control/locomotion/walkers/assets/dog_v2/dog.xml",
               "dm_control/locomotion/walkers/assets/build_fruitfly/assets/drosophila_fused.xml",
               "dm_control/locomotion/walkers/assets/fruitfly_v2/floor.xml",
               "dm_control/locomotion/walkers/assets/fruitfly_v2/fruitfly.xml",
               "dm_control/third_party/kinova/jaco_arm.xml",
               "dm_control/third_party/kinova/jaco_hand.xml"]  # fmt: skip


pytestmark = pytest.mark.usefixtures("in_tmp_folder")  # MuJoCo's log file goes there


def drawn_geoms(m, d) -> tuple[list[int], np.ndarray]:
    """The geoms MuJoCo's renderer draws with its default options (planes, height fields
    and sdf geoms left out), in geom order, and the rgba (float32) it draws each in."""
    scene = mujoco.MjvScene(m, maxgeom=max(1000, 2 * m.ngeom))
    mujoco.mjv_updateScene(m, d, mujoco.MjvOption(), mujoco.MjvPerturb(), mujoco.MjvCamera(),
                           int(mujoco.mjtCatBit.mjCAT_ALL), scene)  # fmt: skip
    found = {}
    for k in range(scene.ngeom):
        g = scene.geoms[k]
        if g.objtype == mujoco.mjtObj.mjOBJ_GEOM and int(m.geom_type[g.objid]) in KINDS:
            found[int(g.objid)] = np.array(g.rgba, dtype=np.float32)
    ids = sorted(found)
    return ids, np.array([found[i] for i in ids]).reshape(-1, 4)


def _pose(R, p) -> np.ndarray:
    X = np.eye(4)
    X[:3, :3], X[:3, 3] = R, p
    return X


def mujoco_geom_pose(spec, m, d, i: int) -> np.ndarray:
    """World pose (4, 4) of geom i as MuJoCo places it; for a mesh, of the file's frame:
    MuJoCo's vertices are the file's moved to ``S R^T (v - p)`` (its refpos p, refquat R,
    scale S, here with S R^T = R^T S) and then to the mesh's inertial frame ``[R(mesh_quat),
    mesh_pos]``, both undone."""
    X = _pose(d.geom_xmat[i].reshape(3, 3), d.geom_xpos[i])
    if m.geom_type[i] != G.mjGEOM_MESH:
        return X
    k = m.geom_dataid[i]
    R, p = quat_to_rotation(m.mesh_quat[k]), m.mesh_pos[k]
    mesh = spec.meshes[k]
    Rt = quat_to_rotation(mesh.refquat / np.linalg.norm(mesh.refquat)).T
    return X @ _pose(R.T, -R.T @ p) @ _pose(Rt, -mesh.scale * (Rt @ mesh.refpos))


def _sizes(kind: str, g) -> np.ndarray:
    """robodyn's geometry as MuJoCo's geom_size (half sizes)."""
    if kind == "sphere":
        return np.array([g.radius])
    if kind in ("capsule", "cylinder"):
        return np.array([g.radius, g.length / 2])
    return np.array(g.size) / (2.0 if kind == "box" else 1.0)


def compare_visuals(model, spec, m, folder: str, qs, qposes) -> float:
    """Assert robodyn's visuals are what MuJoCo draws at each pair (q, qpos) (see the
    module docstring); returns the worst pose error."""
    d = mujoco.MjData(m)
    poses = rd.body_poses(model, np.asarray(qs))
    worst = 0.0
    for k, qpos in enumerate(qposes):
        d.qpos[:] = qpos
        mujoco.mj_kinematics(m, d)
        ids, rgba = drawn_geoms(m, d)
        assert len(ids) == len(model.visuals), (len(ids), len(model.visuals))
        for (b, T_bg, g), i, colour in zip(model.visuals, ids, rgba):
            kind = KINDS[int(m.geom_type[i])]
            assert g.kind == kind, (i, g.kind, kind)
            np.testing.assert_array_equal(np.float32(g.rgba), colour)
            X = poses[k, b] @ T_bg
            want = mujoco_geom_pose(spec, m, d, i)
            scale = max(1.0, float(np.abs(want[:3, 3]).max()))
            worst = max(worst, float(np.abs(X - want).max()) / scale)
            if kind != "mesh":
                n = {"sphere": 1, "capsule": 2, "cylinder": 2}.get(kind, 3)
                np.testing.assert_allclose(_sizes(kind, g), m.geom_size[i, :n], rtol=0, atol=0)
                continue
            mesh = spec.meshes[m.geom_dataid[i]]
            np.testing.assert_array_equal(g.scale, m.mesh_scale[m.geom_dataid[i]])
            assert os.path.samefile(g.filename, os.path.join(folder, spec.meshdir, mesh.file))
    assert worst <= TOL, worst
    return worst


def _configurations(model, m, seed: int):
    """MuJoCo's qpos0 and RANDOM random configurations, as (robodyn q, MuJoCo qpos)."""
    mp = MujocoMap(model, m)
    qs = [mp.q0(), *rd.random_configuration(model, np.random.default_rng(seed), size=RANDOM)]
    qposes = [mp.qpos(q) for q in qs]
    np.testing.assert_array_equal(qposes[0], m.qpos0)
    return qs, qposes


def test_every_file_that_loads_is_compared():
    assert len(expect_count(LOADS, N_LOADS, "MJCF files MuJoCo compiles")) == N_LOADS
    for rel in LOADS:  # the mesh models are listed
        has_mesh = any(g.kind == "mesh" for _, _, g in mujoco_pair(rel)[2].visuals)
        assert has_mesh == (rel in MESH_MODELS), rel


@pytest.mark.parametrize("rel", LOADS)
def test_visuals_are_what_mujoco_draws(rel):
    spec, m, model = mujoco_pair(rel)
    folder = os.path.dirname(os.path.join(mujoco_site_packages(), rel))
    qs, qposes = _configurations(model, m, zlib.crc32(rel.encode()))
    compare_visuals(model, spec, m, folder, qs, qposes)


def compare_mesh_vertices(model, m, q, qpos) -> int:
    """Assert that the mesh files' vertices, scaled and placed by robodyn at q, are MuJoCo's
    compiled vertices at the geom's pose at qpos (as sets: MuJoCo merges repeated STL
    vertices), to float32 precision; for some 6 mesh geoms. Returns how many."""
    d = mujoco.MjData(m)
    d.qpos[:] = qpos
    mujoco.mj_kinematics(m, d)
    poses = rd.body_poses(model, q)
    meshes = [(v, i) for v, i in zip(model.visuals, drawn_geoms(m, d)[0]) if v[2].kind == "mesh"]
    for (b, T_bg, g), i in meshes[:: max(1, len(meshes) // 6)]:
        V, _ = read_mesh(Path(g.filename), g.filename)
        X = poses[b] @ T_bg
        ours = (V * g.scale) @ X[:3, :3].T + X[:3, 3]
        a, n = m.mesh_vertadr[m.geom_dataid[i]], m.mesh_vertnum[m.geom_dataid[i]]
        theirs = m.mesh_vert[a : a + n] @ d.geom_xmat[i].reshape(3, 3).T + d.geom_xpos[i]
        size = float(np.ptp(theirs, axis=0).max())
        dist, _ = cKDTree(ours).query(theirs)
        assert dist.max() <= 1e-6 * max(1.0, size), (i, dist.max())
    return len(meshes)


@pytest.mark.parametrize("rel", MESH_MODELS)
def test_mesh_files_land_on_mujocos_vertices(rel):
    spec, m, model = mujoco_pair(rel)
    qs, qposes = _configurations(model, m, 7)
    assert compare_mesh_vertices(model, m, qs[1], qposes[1]) > 0


SKEWED = np.array([[1.0, 0.3, 0.1], [0.2, 0.7, -0.2], [0.1, 0.1, 0.5]])  # a sheared box
CORNERS = [(x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1)]
EDGE_CASES = """<mujoco model="edges">
  <compiler angle="radian" meshdir="meshes"/>
  <asset>
    <mesh name="skew" file="skew.obj" scale="0.5 0.3 0.2"/>
    <mesh name="turned" file="skew.obj" scale="0.4 0.4 0.4" refpos="0.1 -0.2 0.3"
          refquat="0.9 0.1 0.2 0.3"/>
    <material name="red" rgba="1 0 0 1"/>
    <material name="clear" rgba="0 1 0 0"/>
    <material name="tinted" class="tint"/>
  </asset>
  <default>
    <default class="blue"><geom rgba="0 0 1 1"/></default>
    <default class="tint"><material rgba="0.2 0.3 0.4 0.5"/></default>
  </default>
  <worldbody>
    <geom type="plane" size="1 1 0.1"/>
    <geom name="post" type="cylinder" fromto="0 0 0 0.1 0 0.3" size="0.02" material="red"/>
    <frame pos="0.5 0 0" euler="0 0 0.3">
      <geom type="box" size="0.1 0.2 0.05" rgba="0.3 0.3 0.3 1"/></frame>
    <body name="base" pos="0 0 1" euler="0.1 0.2 0.3">
      <joint name="slide" type="slide" axis="1 0 0" ref="0.2"/>
      <joint name="tilt" pos="0.1 0.05 0" axis="0 1 0"/>
      <geom size="0.1" material="red" rgba="0.5 0.5 0.5 1"/>
      <geom size="0.1" class="blue" material="red" pos="0 0 0.2"/>
      <geom type="box" fromto="0 0 0 0.3 0.1 0.2" size="0.05"/>
      <geom type="ellipsoid" size="0.1 0.05 0.02" pos="0.1 0 0" euler="0.1 0.2 0.3"/>
      <geom size="0.05" rgba="1 1 1 0"/>
      <geom size="0.05" material="clear"/>
      <geom size="0.05" group="3"/>
      <geom type="capsule" size="0.03 0.1" group="2" material="tinted"/>
      <body name="welded" pos="0.2 0 0" quat="0.8 0.2 0.1 0.3">
        <geom type="mesh" mesh="skew" pos="0.1 0 0" euler="0.3 0.2 0.1"/>
        <body name="arm" pos="0 0.3 0">
          <joint type="ball" pos="0 0 0.1"/>
          <geom type="mesh" mesh="turned" pos="0 0.1 0"/>
          <frame euler="0.4 0 0">
            <geom type="capsule" fromto="0 0 0 0 0.3 0.1" size="0.02"/></frame>
          <body name="leaf" childclass="blue">
            <joint pos="0.05 0 0" axis="1 0 0"/>
            <geom size="0.04" pos="0.1 0 0"/>
          </body>
        </body>
      </body>
    </body>
    <body name="loose" pos="2 0 0"><freejoint/><geom type="box" size="0.1 0.1 0.1"/></body>
  </worldbody>
</mujoco>"""


def test_edge_cases_are_drawn_as_mujoco_draws_them(tmp_path):
    """Colours (a material under the default grey, a class's rgba over a material, a
    material's class default), what is hidden (alpha 0, a material of alpha 0, group 3, a
    plane), frames, fromto boxes and capsules, an ellipsoid, a body of two joints with
    anchors, a welded body, a free body, meshes scaled, with refpos/refquat, recentred by
    MuJoCo at a turned inertial frame."""
    (tmp_path / "meshes").mkdir()
    obj = [f"v {' '.join(map(str, SKEWED @ c))}" for c in CORNERS]
    obj += ["f 1 3 4 2", "f 5 6 8 7", "f 1 2 6 5", "f 3 7 8 4", "f 1 5 7 3", "f 2 4 8 6"]
    (tmp_path / "meshes" / "skew.obj").write_text("\n".join(obj) + "\n")
    path = tmp_path / "edges.xml"
    path.write_text(EDGE_CASES)
    spec = mujoco.MjSpec.from_file(str(path))
    m = spec.compile()
    model = rd.load_mjcf(path)
    assert [g.kind for _, _, g in model.visuals] == [
        "cylinder", "box", "sphere", "sphere", "box", "ellipsoid", "capsule", "mesh", "mesh",
        "capsule", "sphere", "box"]  # fmt: skip
    assert np.abs(m.mesh_quat[0] - [1, 0, 0, 0]).max() > 0.1  # MuJoCo turned the mesh
    qs, qposes = _configurations(model, m, 3)
    compare_visuals(model, spec, m, str(tmp_path), qs, qposes)
    assert compare_mesh_vertices(model, m, qs[2], qposes[2]) == 2


def _overridden(rel: str, floating_base: bool):
    """(MjSpec, MjModel, the file's folder, robodyn's Model with ``floating_base``)."""
    spec, m, _ = mujoco_pair(rel)
    path = os.path.join(mujoco_site_packages(), rel)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.ModelWarning)
        return spec, m, os.path.dirname(path), rd.load_mjcf(path, floating_base=floating_base)


def test_floating_base_overrides_move_the_visuals_with_the_base():
    """floating_base=False welds humanoid's free joint at its written pose (MuJoCo's
    qpos0); floating_base=True frees the Jaco arm's base, placed where MuJoCo has it."""
    spec, m, folder, welded = _overridden("dm_control/suite/humanoid.xml", False)
    assert welded.nq == m.nq - 7
    compare_visuals(welded, spec, m, folder, [np.zeros(welded.nq)], [m.qpos0])  # hinges only
    spec, m, folder, free = _overridden("dm_control/third_party/kinova/jaco_arm.xml", True)
    assert free.nq == m.nq + 7
    d = mujoco.MjData(m)
    mujoco.mj_kinematics(m, d)
    q = np.zeros(free.nq)  # the hinges at MuJoCo's qpos0 (no ref in the arm)
    i = free.joint_id("root_joint")
    body = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, free.body_names[i])
    a = int(free.jnt_qadr[i])
    q[a : a + 7] = np.r_[d.xpos[body], d.xquat[body]]
    compare_visuals(free, spec, m, folder, [q], [m.qpos0])
