"""robodyn's MJCF loader against MuJoCo's own compile of the same files: every MJCF model
shipped in dm_control (the suite, the locomotion walkers, the ant, the Kinova Jaco arm and
hand) and in gymnasium's MuJoCo environments.

MuJoCo parses each file itself (``MjSpec.from_file`` then ``compile``); robodyn's
``load_mjcf`` parses the same file. :data:`EXPECTED` lists every file with its outcome:
compared, loaded without a joint (nothing moves: a template or a file of defaults), or
refused by MuJoCo (with MuJoCo's message, asserted). For each compared model:

* the model: each robodyn body's mass, centre of mass and inertia equal the MuJoCo
  bodies it holds (MuJoCo's ``body_mass``, ``body_ipos``, ``body_iquat`` and principal
  ``body_inertia``, moved by the pose of each MuJoCo body's frame in robodyn's body),
  joint axes, limits (MuJoCo's ``jnt_range`` minus ``qpos0``), damping, armature,
  Coulomb friction (``frictionloss``) and gravity;
* on 20 random states, with :class:`helpers.MujocoMap` between the coordinates:
  ``mj_rne`` (no armature, no passive force) = ``inverse_dynamics(friction=False,
  armature=False)``; ``mj_fullM`` (armature included) = ``mass_matrix``; ``mj_forward``'s
  qacc (joint damping included) = ``forward_dynamics`` given the torque plus the Coulomb
  friction MuJoCo leaves out here; ``site_xpos``/``site_xmat`` and ``xpos``/``xmat`` =
  ``fk`` of the sites' and bodies' frames.

What MuJoCo adds and robodyn leaves out (listed in load_mjcf's one ModelWarning) is off in
MuJoCo: contacts, constraints (limits, equalities, frictionloss) and actuation by
``opt.disableflags``; springs by ``mjDSBL_SPRING``; gravity compensation, tendon damping
and armature, actuator armature and fluid forces by zeroing them; the damping MuJoCo
derives from ``springdamper`` (from its mass matrix at qpos0: which joints have one is
read from MuJoCo's MjSpec) by zeroing it on those dofs.

Tolerance: 1e-9 relative to each quantity's own scale (:func:`helpers.scaled_err`; a
fly's mass matrix is ~1e-9 kg m^2). MuJoCo's compile of a mesh's inertia is exact but for
its principal axes: its Jacobi eigen-solver stops at an off-diagonal of 1e-12 absolute in
the mesh's unit-density tensor, ~1e-7 of the tensors of the small OBJ meshes of
``drosophila_fused`` (robodyn's tensor is the exact one). :data:`MESH_AXES` lists the
models where that reaches the dynamics, with the measured error; the mesh inertias
themselves are compared to 1e-9 (volume, centre of mass, principal moments) and to
MuJoCo's solver tolerance (axes) in :func:`test_mesh_inertias_match_mujoco`.
"""

from __future__ import annotations

import os
import zlib
from pathlib import Path

import mujoco
import numpy as np
import pytest

from helpers import (
    MJCF_COMPARED,
    MJCF_EXPECTED,
    MJCF_NO_JOINT,
    expect_count,
    mjcf_files,
    mujoco_errors,
    mujoco_pair,
    mujoco_site_packages,
    scaled_err,
)
from robodyn.inertia import compound
from robodyn.model.mjcf_inertia import mesh_inertia, read_mesh
from robodyn.model.model import JOINT_PRISMATIC, JOINT_REVOLUTE
from robodyn.spatial import quat_to_rotation

STATES = 20
TOL = 1e-9
SITE_PACKAGES = mujoco_site_packages()

_C, _NONE = MJCF_COMPARED, MJCF_NO_JOINT
EXPECTED = MJCF_EXPECTED  # every file with its outcome (tests/helpers.py)
N_FILES = 52  # of which MuJoCo compiles 48, robodyn loads all 48 and 44 have joints
N_COMPARED = 44
COMPARED = sorted(k for k, v in EXPECTED.items() if v == _C)
#: models whose inertias MuJoCo computes from meshes with inexact principal axes (see the
#: module docstring): the bounds asserted there, ~3x robodyn's measured error (in brackets)
MESH_AXES = {
    "dm_control/suite/dog.xml": {"inertia": 4e-8},  # (1.2e-8)
    "dm_control/locomotion/walkers/assets/dog_v2/dog.xml": {"inertia": 4e-8},  # (1.2e-8)
    "dm_control/third_party/kinova/jaco_arm.xml": {"inertia": 5e-9},  # (1.7e-9)
    "dm_control/third_party/kinova/jaco_hand.xml": {"inertia": 1e-8},  # (2.8e-9)
    "dm_control/locomotion/walkers/assets/build_fruitfly/assets/drosophila_fused.xml": {
        "inertia": 3e-7, "rne": 5e-9, "qacc": 7e-8},  # (9.3e-8, 1.4e-9, 2.3e-8)
    "dm_control/locomotion/walkers/assets/fruitfly_v2/fruitfly.xml": {
        "inertia": 3e-7, "qacc": 7e-9},  # (9.3e-8, 2.4e-9)
    "dm_control/locomotion/walkers/assets/fruitfly_v2/floor.xml": {
        "inertia": 3e-7, "qacc": 7e-9},  # (9.3e-8, 1.9e-9)
}  # fmt: skip


pytestmark = pytest.mark.usefixtures("in_tmp_folder")  # MuJoCo's log file goes there


def _pair(rel: str):
    """(MjSpec, MjModel, robodyn Model) of one file, each parsed by its own library."""
    return mujoco_pair(rel)


def _outcome(rel: str) -> str:
    try:
        mujoco.MjModel.from_xml_path(os.path.join(SITE_PACKAGES, rel))
    except ValueError as exc:
        first = str(exc).split("\n")[0].replace("XML Error: ", "").replace("Error: ", "")
        return f"MuJoCo refuses: {first}"
    return _C if _pair(rel)[2].nv > 0 else _NONE


def test_every_model_is_listed_with_its_outcome():
    files = expect_count(mjcf_files(), N_FILES, "MJCF files in dm_control and gymnasium")
    assert files == sorted(EXPECTED)
    for rel in files:
        got, want = _outcome(rel), EXPECTED[rel]
        assert got.startswith(want), (rel, got, want)
    assert len(COMPARED) == N_COMPARED


@pytest.mark.parametrize("rel", COMPARED)
def test_model_matches_mujoco(rel):
    _, m, model = _pair(rel)
    parts: dict[int, list] = {}  # robodyn body -> the MuJoCo bodies it holds, in its frame
    for i in range(1, m.nbody):
        k = model.frame_id(m.body(i).name or f"body{i}")
        b, R, p = int(model.frame_body[k]), model.frame_R[k], model.frame_p[k]
        Ri = quat_to_rotation(m.body_iquat[i])
        I = R @ Ri @ np.diag(m.body_inertia[i]) @ Ri.T @ R.T
        parts.setdefault(b, []).append((m.body_mass[i], R @ m.body_ipos[i] + p, I))
    tol = MESH_AXES.get(rel, {}).get("inertia", TOL)  # the principal axes of MuJoCo's meshes
    for b in range(1, model.nb):
        mass, c, I = compound(parts[b]) if b in parts else (0.0, np.zeros(3), np.zeros((3, 3)))
        assert scaled_err(model.body_mass[b], mass) <= TOL, (rel, model.body_names[b])
        if mass > 0:
            assert scaled_err(model.body_com[b], c) <= TOL, (rel, model.body_names[b])
            assert scaled_err(model.body_inertia[b], I) <= tol, (rel, model.body_names[b])
    no_gravity = m.opt.disableflags & int(mujoco.mjtDisableBit.mjDSBL_GRAVITY)
    np.testing.assert_array_equal(model.gravity, m.opt.gravity * (0.0 if no_gravity else 1.0))
    for i in range(1, model.nb):
        if model.jnt_nv[i] == 0:
            continue
        j = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, model.joint_names_all[i])
        j = j if j >= 0 else int(model.joint_names_all[i][5:])  # unnamed: "joint<id>"
        va, dof = int(model.jnt_vadr[i]), int(m.jnt_dofadr[j])
        assert model.dof_armature[va] == m.dof_armature[dof]
        assert model.dof_friction[va] == m.dof_frictionloss[dof]
        if int(model.jnt_type[i]) in (JOINT_REVOLUTE, JOINT_PRISMATIC):
            assert np.abs(model.jnt_axis[i] - m.jnt_axis[j]).max() <= 1e-15, rel
            qa, q0 = int(model.jnt_qadr[i]), m.qpos0[m.jnt_qposadr[j]]
            lo, hi = m.jnt_range[j] if m.jnt_limited[j] else (-np.inf, np.inf)
            assert np.allclose([model.q_lower[qa] + q0, model.q_upper[qa] + q0], [lo, hi],
                               rtol=1e-15, atol=1e-15), rel  # fmt: skip


def _oracle_setup(spec, m):
    """Switch off in MuJoCo what robodyn leaves out (see the module docstring)."""
    off = mujoco.mjtDisableBit
    for bit in (off.mjDSBL_CONTACT, off.mjDSBL_CONSTRAINT, off.mjDSBL_ACTUATION,
                off.mjDSBL_SPRING):  # fmt: skip
        m.opt.disableflags |= int(bit)
    m.body_gravcomp[:] = 0.0
    m.tendon_damping[:] = 0.0
    m.tendon_armature[:] = 0.0
    m.actuator_armature[:] = 0.0
    m.opt.density, m.opt.viscosity, m.opt.wind[:] = 0.0, 0.0, 0.0
    for k, joint in enumerate(spec.joints):
        if joint.springdamper[0] > 0 and joint.springdamper[1] > 0:
            j = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_JOINT, joint.name) if joint.name else k
            n = {0: 6, 1: 3}.get(int(m.jnt_type[j]), 1)
            m.dof_damping[m.jnt_dofadr[j] : m.jnt_dofadr[j] + n] = 0.0


@pytest.mark.parametrize("rel", COMPARED)
def test_dynamics_match_mujoco(rel):
    spec, m0, model = _pair(rel)
    m = m0.__copy__()
    _oracle_setup(spec, m)
    worst = mujoco_errors(model, m, STATES, zlib.crc32(rel.encode()))
    bound = {key: MESH_AXES.get(rel, {}).get(key, TOL) for key in worst}
    assert all(worst[key] <= bound[key] for key in worst), (rel, worst)


MESH_MODELS = [rel for rel in MESH_AXES if "dog_v2" not in rel and "floor" not in rel]


@pytest.mark.parametrize("rel", MESH_MODELS)
def test_mesh_inertias_match_mujoco(rel):
    """Each mesh asset alone, on a free body of density 1: MuJoCo's body mass is the
    mesh's volume, its ipos the centre of mass, its principal moments the eigenvalues of
    the unit-density tensor, its iquat the principal axes to its solver's tolerance."""
    spec, _, _ = _pair(rel)
    folder = os.path.dirname(os.path.join(SITE_PACKAGES, rel))
    meshdir = spec.meshdir or ""
    test = mujoco.MjSpec()
    test.meshdir = os.path.join(folder, meshdir)
    ours, ours_vertices = [], []
    for mesh in spec.meshes:
        if mesh.inertia != mujoco.mjtMeshInertia.mjMESH_INERTIA_LEGACY:
            continue
        copy = test.add_mesh(name=mesh.name, file=mesh.file, scale=mesh.scale)
        copy.inertia = mesh.inertia
        body = test.worldbody.add_body(name=mesh.name)
        body.add_freejoint()
        body.add_geom(type=mujoco.mjtGeom.mjGEOM_MESH, meshname=mesh.name, density=1.0)
        V, F = read_mesh(Path(test.meshdir) / mesh.file, mesh.name)
        ours.append(mesh_inertia(V * np.array(mesh.scale), F, "legacy", mesh.name))
        ours_vertices.append(V * np.array(mesh.scale))
    m = test.compile()
    assert len(ours) == m.nbody - 1 > 0
    for i, mine in enumerate(ours, start=1):
        assert scaled_err(mine.volume, m.body_mass[i]) <= 1e-12
        size = float(np.abs(ours_vertices[i - 1]).max())  # the mesh's extent
        assert np.abs(mine.com - m.body_ipos[i]).max() <= 1e-12 * size, (rel, i)
        R = quat_to_rotation(m.body_iquat[i])
        P = R.T @ mine.unit_inertia @ R  # diagonal to MuJoCo's solver tolerance: its last
        assert scaled_err(np.diag(P), m.body_inertia[i]) <= 1e-9, (rel, i)  # turn is
        off = np.abs(P - np.diag(np.diag(P))).max()  # below acos(1 - 1e-12) ~ 1.4e-6 rad
        assert off <= 1.5e-6 * np.ptp(m.body_inertia[i]) + 1e-12, (rel, i, off)


def test_readme_states_these_counts():
    """The README's tour and its MJCF section give the numbers this file asserts."""
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    loads = sum(not v.startswith("MuJoCo refuses") for v in EXPECTED.values())
    assert f"all {loads} MJCF files of dm_control and gymnasium that MuJoCo compiles" in readme
    assert f"on the {N_COMPARED} with joints" in readme
    assert f"Of the {N_FILES} MJCF files shipped" in readme
