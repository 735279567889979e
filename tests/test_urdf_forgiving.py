"""URDFs outside the letter of the specification whose intent is unambiguous (issue 32):
whitespace before the XML declaration, a non-positive-semi-definite inertia whose negative
principal moment is negligible against the robot's inertia scale, PyBullet's spherical
joint. Each loads by default with exactly one ModelWarning, from files written here; the
oracles (Pinocchio, MuJoCo) parse the same files."""

from __future__ import annotations

import warnings

import mujoco
import numpy as np
import pinocchio as pin
import pytest

from robodyn.dynamics import inverse_dynamics, mass_matrix
from robodyn.errors import ModelError, ModelWarning
from robodyn.model.configuration import random_configuration
from robodyn.model.doctor import check_model
from robodyn.model.urdf import load_urdf


def _load_warned(source, **kw):
    """(model, the ModelWarnings' messages) of a default load."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = load_urdf(source, **kw)
    return model, [str(w.message) for w in caught if issubclass(w.category, ModelWarning)]


def _inertial(m, I, xyz="0 0 0", rpy="0 0 0") -> str:
    keys = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
    entries = (I[0][0], I[0][1], I[0][2], I[1][1], I[1][2], I[2][2])
    attrs = " ".join(f'{k}="{v!r}"' for k, v in zip(keys, entries))
    return (
        f'<inertial><origin xyz="{xyz}" rpy="{rpy}"/><mass value="{m!r}"/>'
        f"<inertia {attrs}/></inertial>"
    )


_BOX = [[0.3, 0.01, -0.02], [0.01, 0.4, 0.03], [-0.02, 0.03, 0.5]]
_SMALL = [[0.002, 0, 0], [0, 0.003, 0], [0, 0, 0.004]]


# ------------------------------------------------------------------ blank before <?xml
def _arm(declaration: str, name: str = "arm") -> str:
    return (
        f'{declaration}\n<robot name="{name}">\n  <link name="base"/>\n'
        f'  <link name="l1">{_inertial(2.0, _BOX, "0.1 0.2 0.3", "0.3 -0.2 0.5")}</link>\n'
        f'  <link name="l2">{_inertial(0.5, _SMALL, "0 0 0.2")}</link>\n'
        '  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>'
        '<axis xyz="0 0 1"/><limit lower="-2" upper="2" effort="1" velocity="1"/></joint>\n'
        '  <joint name="j2" type="continuous"><parent link="l1"/><child link="l2"/>'
        '<origin xyz="0.5 0 0" rpy="0.2 0 0"/><axis xyz="0 1 0"/></joint>\n</robot>\n'
    )


def test_blank_lines_before_the_declaration_load_from_a_path_as_from_a_string(tmp_path):
    text = "\n\n  \n" + _arm('<?xml version="1.0" encoding="UTF-8"?>')
    path = tmp_path / "blank.urdf"
    path.write_text(text)
    models = []
    for source in (path, str(path), text, text.encode("utf-8")):
        model, warned = _load_warned(source)
        assert len(warned) == 1, warned
        assert "5 whitespace character(s) before the <?xml declaration" in warned[0]
        assert any("before the <?xml declaration" in n for n in model.notes)
        models.append(model)
    # strict=True is about physics: the blank line still loads (with its warning)
    with pytest.warns(ModelWarning, match="before the <\\?xml"):
        load_urdf(path, strict=True)
    # Pinocchio reads the same file; every source gives its mass matrix and dynamics
    pm = pin.buildModelFromUrdf(str(path))
    pd = pm.createData()
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, v, a = rng.normal(size=(3, 2))
        qp = np.array([q[0], np.cos(q[1]), np.sin(q[1])])
        M = pin.crba(pm, pd, qp)
        M = np.triu(M) + np.triu(M, 1).T
        tau = pin.rnea(pm, pd, qp, v, a)
        for model in models:
            np.testing.assert_allclose(mass_matrix(model, q), M, rtol=0, atol=1e-14)
            np.testing.assert_allclose(inverse_dynamics(model, q, v, a), tau, rtol=0, atol=1e-13)


def test_the_declared_encoding_still_applies_to_a_file_with_a_blank_line(tmp_path):
    # one road: the blank is dropped, the declaration kept for the bytes (latin-1 here),
    # while a string, already decoded, loads the same robot
    text = "\r\n" + _arm('<?xml version="1.0" encoding="ISO-8859-1"?>', name="bras articul\xe9")
    path = tmp_path / "latin1.urdf"
    path.write_bytes(text.encode("latin-1"))
    from_file, w1 = _load_warned(path)
    from_text, w2 = _load_warned(text)
    assert from_file.name == from_text.name == "bras articul\xe9"
    assert len(w1) == len(w2) == 1
    assert check_model(path).kinds() >= {"xml_leading_blank"}


def test_a_well_formed_document_gives_no_warning():
    for text in (_arm('<?xml version="1.0"?>'), "\n  " + _arm("")):  # blank before <robot>
        _, warned = _load_warned(text)  # is allowed by XML
        assert warned == []


# ------------------------------------------------------------------ negligible negative moment
def _rotated(moments, rpy=(0.3, -0.4, 1.1)) -> np.ndarray:
    """A tensor with the given principal moments in tilted axes (independent rotation:
    scipy-free fixed-axis roll, pitch, yaw)."""
    r, p, y = rpy
    Rx = np.array([[1, 0, 0], [0, np.cos(r), -np.sin(r)], [0, np.sin(r), np.cos(r)]])
    Ry = np.array([[np.cos(p), 0, np.sin(p)], [0, 1, 0], [-np.sin(p), 0, np.cos(p)]])
    Rz = np.array([[np.cos(y), -np.sin(y), 0], [np.sin(y), np.cos(y), 0], [0, 0, 1]])
    R = Rz @ Ry @ Rx
    I = R @ np.diag(moments) @ R.T
    return 0.5 * (I + I.T)


# the tiny antenna of the issue: smallest principal moment -3.5e-8 kg m^2 on a robot whose
# largest principal moment is ~1 kg m^2 (ratio 3.5e-8 < 1e-6)
ANTENNA = _rotated([-3.5e-8, 5.0e-8, 9.0e-8])
TORSO = np.diag([0.8, 0.9, 1.0])


def _robot_with_antenna(antenna: np.ndarray, torso: np.ndarray = TORSO) -> str:
    return (
        '<?xml version="1.0"?>\n<robot name="r"><link name="world_link"/>'
        f'<link name="torso">{_inertial(20.0, torso.tolist(), "0 0 0.3")}</link>'
        f'<link name="antenna">{_inertial(0.001, antenna.tolist(), "0 0.01 0.05")}</link>'
        '<joint name="j" type="continuous"><parent link="world_link"/><child link="torso"/>'
        '<axis xyz="0 0 1"/></joint>'
        '<joint name="k" type="revolute"><parent link="torso"/><child link="antenna"/>'
        '<origin xyz="0.1 0 0.6" rpy="0 0.5 0"/><axis xyz="1 0 0"/>'
        '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>'
    )


def _nearest_physical(I: np.ndarray) -> np.ndarray:
    """The documented repair, computed here: principal moments clipped at 0, then, if
    I1 + I2 < I3, I1 and I2 raised by half the deficit each (same axes)."""
    w, V = np.linalg.eigh(I)
    w = np.clip(w, 0.0, None)
    deficit = w[2] - w[0] - w[1]
    if deficit > 0:
        w[:2] += deficit / 2
    return V @ np.diag(w) @ V.T


def test_a_negligible_negative_moment_loads_with_one_warning_and_the_nearest_tensor(tmp_path):
    path = tmp_path / "antenna.urdf"
    path.write_text(_robot_with_antenna(ANTENNA))
    model, warned = _load_warned(path)
    assert len(warned) == 1, warned
    assert warned[0].startswith("link 'antenna' <inertial>: inertia is not positive semi")
    assert "negligible" in warned[0] and "inertia scale 1 kg m^2" in warned[0]
    repaired = _nearest_physical(ANTENNA)
    assert np.linalg.eigvalsh(repaired)[0] >= 0
    # the warning names the tensor, entries as the URDF writes them
    for key, value in (("ixx", repaired[0, 0]), ("ixy", repaired[0, 1]), ("izz", repaired[2, 2])):
        shown = float(warned[0].split(f'{key}="')[1].split('"')[0])
        assert shown == pytest.approx(value, rel=1e-8)
    # the loaded model is Pinocchio's model of the URDF with the repaired tensor written in
    fixed = tmp_path / "repaired.urdf"
    fixed.write_text(_robot_with_antenna(repaired))
    pm = pin.buildModelFromUrdf(str(fixed))
    pm_raw = pin.buildModelFromUrdf(str(path))  # and differs from the raw one by less than
    # the threshold times the scale (1e-6 kg m^2 here): each moment moved by < 1e-7
    rng = np.random.default_rng(5)
    for _ in range(3):
        q, v, a = rng.normal(size=(3, 2))
        qp = np.array([np.cos(q[0]), np.sin(q[0]), q[1]])
        for pmodel, tol in ((pm, 1e-14), (pm_raw, 1e-6)):
            pd = pmodel.createData()
            M = pin.crba(pmodel, pd, qp)
            M = np.triu(M) + np.triu(M, 1).T
            np.testing.assert_allclose(mass_matrix(model, q), M, rtol=0, atol=tol)
            tau = pin.rnea(pmodel, pd, qp, v, a)
            np.testing.assert_allclose(inverse_dynamics(model, q, v, a), tau, rtol=0, atol=tol)
    with pytest.raises(ModelError, match="link 'antenna'.*strict=True"):
        load_urdf(path, strict=True)
    report = check_model(path)
    assert report.ok and [f.element for f in report.warnings] == ["link 'antenna'"]


def test_a_negative_moment_that_is_not_negligible_is_still_refused():
    # -1e-3 kg m^2 on the same robot: 1e-3 of its scale, far beyond 1e-6
    with pytest.raises(ModelError, match="link 'antenna' <inertial>: .*not positive semi.*"):
        load_urdf(_robot_with_antenna(_rotated([-1e-3, 0.002, 0.003])))
    # the antenna's -3.5e-8 is not negligible on a robot whose largest moment is 1e-3:
    # the scale is the robot's, not the link's
    light = np.diag([5e-4, 8e-4, 1e-3])
    with pytest.raises(ModelError, match=r"link 'antenna'.*more than 1e-06 of the robot's"):
        load_urdf(_robot_with_antenna(ANTENNA, light))
    assert not check_model(_robot_with_antenna(ANTENNA, light)).ok
    # asked for explicitly, 'keep' still keeps the tensor as written
    with pytest.warns(ModelWarning, match="kept as written"):
        kept = load_urdf(_robot_with_antenna(ANTENNA), invalid_inertia="keep")
    assert np.linalg.eigvalsh(kept.body_inertia[2])[0] < 0


# ------------------------------------------------------------------ PyBullet's spherical joint
SPHERICAL = """<?xml version="1.0"?>
<robot name="shoulder">
  <link name="base"/>
  <link name="upper">{upper}</link>
  <link name="fore">{fore}</link>
  <joint name="yaw" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.4"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="50" velocity="2"/></joint>
  <joint name="ball" type="spherical"><parent link="upper"/><child link="fore"/>
    <origin xyz="0.3 0.05 0.1" rpy="0.4 -0.2 0.7"/></joint>
</robot>
"""


def test_pybullets_spherical_joint_loads_as_a_spherical_joint_like_mujocos_ball():
    xml = SPHERICAL.format(
        upper=_inertial(2.0, _BOX, "0.1 0 0.05", "0.2 0.1 0"),
        fore=_inertial(1.2, _rotated([0.02, 0.03, 0.04]).tolist(), "0.05 0.02 0.25"),
    )
    model, warned = _load_warned(xml)
    assert len(warned) == 1, warned
    assert warned[0].startswith("joint 'ball': type 'spherical' is PyBullet's extension")
    assert (model.nq, model.nv) == (5, 4)
    assert check_model(xml).kinds() >= {"joint_extension"}
    # MuJoCo's URDF reader makes the same joint a ball joint (qpos [w, x, y, z], qvel the
    # body angular velocity: robodyn's spherical q and v); it parses the same text
    mj = mujoco.MjModel.from_xml_string(
        xml.replace(
            '<robot name="shoulder">',
            '<robot name="shoulder"><mujoco><compiler balanceinertia="false" '
            'fusestatic="false"/></mujoco>',
        )
    )
    assert list(mj.jnt_type) == [mujoco.mjtJoint.mjJNT_HINGE, mujoco.mjtJoint.mjJNT_BALL]
    mj.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONSTRAINT
    data = mujoco.MjData(mj)
    rng = np.random.default_rng(11)
    for _ in range(5):
        q = random_configuration(model, rng)
        v = rng.normal(size=4)
        data.qpos[:], data.qvel[:] = q, v
        mujoco.mj_forward(mj, data)
        M = np.zeros((4, 4))
        mujoco.mj_fullM(mj, data, M)
        np.testing.assert_allclose(mass_matrix(model, q), M, rtol=0, atol=1e-13)
        bias = np.zeros(4)
        mujoco.mj_rne(mj, data, 0, bias)
        np.testing.assert_allclose(inverse_dynamics(model, q, v, np.zeros(4)), bias, atol=1e-12)
