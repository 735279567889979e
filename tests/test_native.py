"""The C fast path (robodyn.kernels._native) against the numba kernels behind the same
contract, and its handling of bad input.

Both implementations of rnea1 / aba1 / crba1 (robodyn.kernels.single) are run on the
same packed models and states; the numba kernels are in turn checked against Pinocchio
and the numpy reference by the oracle tests, and the public functions (which use the C
path for single states) against Pinocchio on every example-robot-data URDF.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from dynamics_models import random_state, random_tree
from robodyn import dynamics as dyn
from robodyn import models
from robodyn.inertia import RigidInertia
from robodyn.kernels import _pack, single
from robodyn.kernels._pack import (
    FL_ACC,
    FL_ARMATURE,
    FL_CHECK,
    FL_FEXT,
    FL_FRICTION,
    FL_GRAVITY,
    FL_VEL,
    packed,
)
from robodyn.model.builder import ModelBuilder
from robodyn.model.configuration import random_configuration
from robodyn.model.urdf import load_urdf
from robodyn.spatial import transform

ALL = FL_GRAVITY | FL_VEL | FL_ACC | FL_FRICTION | FL_ARMATURE | FL_CHECK
FLAGS = [
    ALL,
    ALL | FL_FEXT,
    FL_GRAVITY | FL_CHECK,  # g(q)
    FL_VEL,  # C(q, v) v
    FL_GRAVITY | FL_VEL | FL_FRICTION,
    FL_ACC | FL_ARMATURE,
    0,
]


def test_the_c_extension_is_built_and_in_use():
    assert single.NATIVE, (
        f"{single.WHY}. It is compiled by `pip install -e .` (setup.py) and needs a C compiler."
    )
    assert single.rnea1 is single._native.rnea
    # the layout it was compiled with is the one the model is packed with
    for name, value in single._native.LAYOUT.items():
        assert getattr(_pack, name) == value, name
    assert {"HI", "WI", "HF", "WF", "BF_A2", "FL_FEXT", "J_FREE"} <= set(single._native.LAYOUT)


def _talos():
    from oracle.oracle_support import erd_path

    return load_urdf(erd_path("talos_full"), floating_base=True, mimic=False, strict=False)


def _models():
    tree, _ = random_tree(7, 8, floating=True, mimic=True, damping=True)
    fixed_tree, _ = random_tree(11, 6, floating=False, damping=True)
    return [models.load("ur5"), models.load("panda"), tree, fixed_tree, _talos()]


def _close(x, y, what):
    """Equal up to rounding (the C kernels may fuse multiply-adds, numba does not)."""
    assert x.__class__ is np.ndarray and y.__class__ is np.ndarray, (what, x, y)
    np.testing.assert_allclose(x, y, rtol=0, atol=2e-14 * (1.0 + np.abs(y).max()), err_msg=what)


@pytest.mark.parametrize("k", range(5))
def test_c_kernels_equal_the_numba_kernels(k):
    model = _models()[k]
    pk = packed(model)
    rng = np.random.default_rng(k)
    for _ in range(6):
        q, v, a = random_state(model, rng)
        fe = rng.normal(size=(model.nb, 6))
        for flags in FLAGS:
            for eps in (0.0, 0.05):
                args = (pk.P, q, v, a, fe, flags, eps)
                _close(single.rnea1(*args), single.numba_rnea1(*args), f"rnea {flags} {eps}")
                if not pk.has_mimic:  # ABA's recursion has no mimic joints
                    fl = flags | FL_VEL
                    args = (pk.P, q, v, a, fe, fl, eps)
                    _close(single.aba1(*args), single.numba_aba1(*args), f"aba {fl} {eps}")
        C = single.coriolis1(pk.P, q, v, FL_CHECK)
        _close(C, single.numba_coriolis1(pk.P, q, v, FL_CHECK), "coriolis")
        for flags in (0, FL_ARMATURE, FL_ARMATURE | FL_CHECK):
            M = single.crba1(pk.P, q, flags)
            _close(M, single.numba_crba1(pk.P, q, flags), f"crba {flags}")
            np.testing.assert_allclose(M, M.T, rtol=0, atol=1e-14 * np.abs(M).max())


def test_c_inverse_of_c_forward_dynamics():
    # an identity that does not go through numba at all: rnea(q, v, aba(q, v, tau)) = tau
    model = _talos()
    pk = packed(model)
    rng = np.random.default_rng(5)
    q, v, tau = random_state(model, rng)
    qdd = single.aba1(pk.P, q, v, tau, None, ALL, 0.0)
    back = single.rnea1(pk.P, q, v, qdd, None, ALL, 0.0)
    np.testing.assert_allclose(back, tau, rtol=0, atol=1e-9 * np.abs(tau).max())
    M = single.crba1(pk.P, q, FL_ARMATURE)
    h = single.rnea1(pk.P, q, v, None, None, FL_GRAVITY | FL_VEL, 0.0)
    friction = model.dof_damping * v + model.dof_friction * np.sign(v)
    np.testing.assert_allclose(M @ qdd + h + friction, tau, rtol=0, atol=1e-9 * np.abs(tau).max())


def _both(name, *args):
    """The result of the C and of the numba entry point ``name``."""
    return getattr(single, name)(*args), getattr(single, "numba_" + name)(*args)


def test_error_codes_are_those_of_the_numba_kernels():
    model, _ = random_tree(3, 5, floating=True, damping=True)
    pk = packed(model)
    rng = np.random.default_rng(0)
    q, v, a = random_state(model, rng)
    fe = rng.normal(size=(model.nb, 6))
    nan = np.array(np.nan)

    def with_nan(x):
        y = x.copy()
        y[1] = nan
        return y

    cases = {
        # not a C-contiguous float64 vector: -1 (the wrappers convert and call again)
        "list q": ((pk.P, list(q), v, a, None, ALL, 0.0), -1),
        "float32 v": ((pk.P, q, v.astype(np.float32), a, None, ALL, 0.0), -1),
        "int a": ((pk.P, q, v, np.zeros(model.nv, dtype=np.int64), None, ALL, 0.0), -1),
        "batch q": ((pk.P, q[None], v, a, None, ALL, 0.0), -1),
        "strided v": ((pk.P, q, np.repeat(v, 2)[::2], a, None, ALL, 0.0), -1),
        "fortran fext": ((pk.P, q, v, a, np.asfortranarray(fe), ALL | FL_FEXT, 0.0), -1),
        # sizes: 1-4
        "size q": ((pk.P, q[:-1], v, a, None, ALL, 0.0), 1),
        "size v": ((pk.P, q, v[:-1], a, None, ALL, 0.0), 2),
        "size a": ((pk.P, q, v, np.append(a, 1.0), None, ALL, 0.0), 3),
        "shape fext": ((pk.P, q, v, a, fe[1:], ALL | FL_FEXT, 0.0), 4),
        # NaN / inf: 11-14
        "nan q": ((pk.P, with_nan(q), v, a, None, ALL, 0.0), 11),
        "nan v": ((pk.P, q, with_nan(v), a, None, ALL, 0.0), 12),
        "inf a": ((pk.P, q, v, np.full(model.nv, np.inf), None, ALL, 0.0), 13),
        "nan fext": ((pk.P, q, v, a, np.where(fe > 1, np.nan, fe), ALL | FL_FEXT, 0.0), 14),
        # zero quaternion of the free joint: 15
        "zero quat": ((pk.P, np.r_[q[:3], 0, 0, 0, 0, q[7:]], v, a, None, ALL, 0.0), 15),
    }
    for what, (args, code) in cases.items():
        assert _both("rnea1", *args) == (code, code), what
        assert _both("aba1", *args) == (code, code), what
    # unused arguments are not read: v and a may be anything without FL_VEL / FL_ACC
    g, g_numba = _both("rnea1", pk.P, q, None, "unused", None, FL_GRAVITY | FL_CHECK, 0.0)
    _close(g, g_numba, "gravity")
    # without FL_CHECK a NaN propagates instead of being reported
    assert np.isnan(single.rnea1(pk.P, with_nan(q), v, a, None, FL_GRAVITY, 0.0)).all()
    for args, code in [
        ((pk.P, list(q), v, FL_CHECK), -1),
        ((pk.P, q, v[:-1], FL_CHECK), 2),
        ((pk.P, with_nan(q), v, FL_CHECK), 11),
        ((pk.P, q, with_nan(v), FL_CHECK), 12),
        ((pk.P, np.r_[q[:3], 0, 0, 0, 0, q[7:]], v, 0), 15),
    ]:
        assert _both("coriolis1", *args) == (code, code)
    assert _both("crba1", pk.P, list(q), 0) == (-1, -1)
    assert _both("crba1", pk.P, q[:-1], 0) == (1, 1)
    assert _both("crba1", pk.P, with_nan(q), FL_CHECK) == (11, 11)


def test_singular_articulated_inertia_names_the_body():
    b = ModelBuilder("m").add_body(
        "heavy", "world", axis=(0, 0, 1), inertia=RigidInertia(1.0, (0.3, 0, 0), np.eye(3) * 0.01)
    )
    b.add_body("ghost", "heavy", axis=(0, 1, 0), T=transform(None, (0.6, 0, 0)))
    model = b.build()
    pk = packed(model)
    z = np.zeros(2)
    ghost = model.body_id("ghost")
    assert _both("aba1", pk.P, z, z, z, None, ALL, 0.0) == (1000 + ghost, 1000 + ghost)
    with pytest.raises(ValueError, match="joint 'ghost_joint' drives a massless subtree"):
        dyn.forward_dynamics(model, z, z, z)


def test_a_bad_packed_model_is_refused():
    pk = packed(models.load("ur5"))
    q = np.zeros(6)
    with pytest.raises(TypeError, match="P must be a packed model"):
        single.rnea1(pk.F, q, q, q, None, ALL, 0.0)
    with pytest.raises(ValueError, match="sizes do not add up"):
        single.crba1(pk.P[:-1], q, 0)
    with pytest.raises(TypeError, match="takes 7 arguments"):
        single.aba1(pk.P, q, q, q)


def test_the_public_functions_use_it_for_lists_and_views_too():
    # the general path converts and calls the same entry point: same numbers
    model = models.load("panda")
    q, v, a = random_state(model, np.random.default_rng(2))
    tau = dyn.rnea(model, q, v, a)
    np.testing.assert_array_equal(dyn.rnea(model, list(q), tuple(v), a.tolist()), tau)
    wide = np.zeros((model.nv, 2))
    wide[:, 0] = a
    np.testing.assert_array_equal(dyn.rnea(model, q, v, wide[:, 0]), tau)
    np.testing.assert_array_equal(dyn.rnea(model, q.astype(np.float32), v, a).shape, tau.shape)
    with pytest.raises(ValueError, match=r"v must have shape \(7,\), got \(6,\)"):
        dyn.rnea(model, q, v[:6], a)
    with pytest.raises(ValueError, match=r"a contains NaN or inf"):
        dyn.rnea(model, q, v, np.full(7, np.inf))


def test_threads_share_a_model_safely():
    # Talos (45 bodies) releases the GIL and takes its workspace from the heap
    model = _talos()
    assert model.nb > 24
    rng = np.random.default_rng(9)
    states = [random_state(model, rng) for _ in range(8)]
    want = [dyn.forward_dynamics(model, q, v, t) for q, v, t in states]
    got: dict[int, list] = {}

    def work(k):
        got[k] = [dyn.forward_dynamics(model, q, v, t) for _ in range(50) for q, v, t in states]

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(2):
        for i, res in enumerate(got[k]):
            np.testing.assert_array_equal(res, want[i % len(states)])


def test_free_joint_quaternion_is_normalised_like_numba():
    model, _ = random_tree(5, 4, floating=True)
    pk = packed(model)
    rng = np.random.default_rng(1)
    q = random_configuration(model, rng)
    q2 = q.copy()
    q2[3:7] *= 3.0  # a scaled quaternion is the same rotation
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    _close(
        single.rnea1(pk.P, q2, v, a, None, ALL, 0.0),
        single.rnea1(pk.P, q, v, a, None, ALL, 0.0),
        "q",
    )


@pytest.mark.parametrize("k", range(5))
def test_c_kinematics_equal_the_numba_kernels(k):
    from robodyn.kernels import kinematics as kk

    model = _models()[k]
    I, F = _pack.pack_kinematics(model)
    N = single.native
    rng = np.random.default_rng(20 + k)
    for _ in range(4):
        q = random_configuration(model, rng)
        want = np.empty((model.nf, 4, 4))
        kk.frame_poses_kernel(I, F, q, want)
        _close(N.frame_poses(I, F, q), want, "frame_poses")
        for f in range(model.nf):
            want = np.empty((4, 4))
            kk.frame_pose_kernel(I, F, q, f, want)
            _close(N.frame_pose(I, F, q, f), want, f"frame_pose {f}")
            for kind in (_pack.KIND_SPACE, _pack.KIND_BODY, _pack.KIND_WORLD_ALIGNED):
                want = np.empty((6, model.nv))
                kk.jacobian_kernel(I, F, q, f, kind, want)
                _close(N.jacobian(I, F, q, f, kind), want, f"jacobian {f} {kind}")


def test_c_kinematics_errors():
    from robodyn import kinematics as kin

    model, _ = random_tree(3, 5, floating=True)
    I, F = _pack.pack_kinematics(model)
    N = single.native
    q = random_configuration(model, np.random.default_rng(0))
    bad = q.copy()
    bad[-1] = np.inf
    zero = q.copy()
    zero[3:7] = 0.0
    for call in (
        lambda x: N.frame_pose(I, F, x, 0),
        lambda x: N.frame_poses(I, F, x),
        lambda x: N.jacobian(I, F, x, 0, 1),
    ):
        assert call(list(q)) == -1 and call(q[None]) == -1 and call(q[:-1]) == 1
        assert call(bad) == 11 and call(zero) == 15
    with pytest.raises(IndexError, match="frame index 99 out of range"):
        N.frame_pose(I, F, q, 99)
    with pytest.raises(ValueError, match="kind must be 0, 1 or 2"):
        N.jacobian(I, F, q, 0, 3)
    with pytest.raises(ValueError, match="not a kinematic packing"):
        N.frame_poses(I[:-1], F, q)
    # the public functions word them as the numba kernels do, and convert lists
    with pytest.raises(ValueError, match="q contains NaN or inf"):
        kin.fk(model, bad, "tool")
    with pytest.raises(ValueError, match="quaternion of the free joint is zero"):
        kin.jacobian(model, zero, "tool")
    with pytest.raises(ValueError, match=r"q must have shape"):
        kin.fk(model, q[:-1])
    np.testing.assert_array_equal(kin.fk(model, list(q), "tool"), kin.fk(model, q, "tool"))


def test_the_public_functions_work_without_the_c_extension(monkeypatch):
    # what a machine without a C compiler runs: the numba entry points behind the same
    # contract, and the numba kinematics kernels
    from robodyn import coriolis as cor
    from robodyn import kinematics as kin

    model, _ = random_tree(17, 6, floating=True, damping=True)
    rng = np.random.default_rng(4)
    q, v, a = random_state(model, rng)
    fe = rng.normal(size=(model.nb, 6))
    want = {
        "rnea": dyn.rnea(model, q, v, a, fe, coulomb_eps=0.1),
        "g": dyn.gravity_forces(model, q),
        "M": dyn.mass_matrix(model, q),
        "aba": dyn.forward_dynamics(model, q, v, a),
        "fk": kin.fk(model, q),
        "J": kin.jacobian(model, q, "tool", "body"),
        "C": cor.coriolis_matrix(model, q, v),
    }
    monkeypatch.setattr(dyn, "_RNEA1", single.numba_rnea1)
    monkeypatch.setattr(dyn, "_ABA1", single.numba_aba1)
    monkeypatch.setattr(dyn, "_CRBA1", single.numba_crba1)
    monkeypatch.setattr(kin, "_native", None)
    monkeypatch.setattr(cor, "_COR1", single.numba_coriolis1)
    got = {
        "rnea": dyn.rnea(model, list(q), v, a, fe, coulomb_eps=0.1),
        "g": dyn.gravity_forces(model, q),
        "M": dyn.mass_matrix(model, q),
        "aba": dyn.forward_dynamics(model, q, v, a),
        "fk": kin.fk(model, q),
        "J": kin.jacobian(model, q, "tool", "body"),
        "C": cor.coriolis_matrix(model, q, v),
    }
    for key, value in want.items():
        _close(got[key], value, key)
    bad = v.copy()
    bad[0] = np.nan
    with pytest.raises(ValueError, match="v contains NaN or inf"):
        dyn.forward_dynamics(model, q, bad, a)
    with pytest.raises(ValueError, match=r"q must have shape"):
        dyn.mass_matrix(model, q[:-1])


def test_unaligned_big_endian_and_readonly_arrays_are_converted():
    # the C kernels read aligned native doubles; anything else is copied first, never
    # misread and never a crash
    from robodyn import coriolis as cor
    from robodyn import kinematics as kin

    model = models.load("panda")
    q, v, a = random_state(model, np.random.default_rng(8))
    buf = bytearray(8 * model.nq + 1)
    unaligned = np.frombuffer(buf, dtype=np.float64, offset=1, count=model.nq)
    unaligned[:] = q
    assert not unaligned.flags.aligned
    big = q.astype(">f8")
    readonly = q.copy()
    readonly.flags.writeable = False
    for x in (unaligned, big, readonly):
        np.testing.assert_array_equal(dyn.rnea(model, x, v, a), dyn.rnea(model, q, v, a))
        np.testing.assert_array_equal(dyn.gravity_forces(model, x), dyn.gravity_forces(model, q))
        np.testing.assert_array_equal(dyn.mass_matrix(model, x), dyn.mass_matrix(model, q))
        np.testing.assert_array_equal(dyn.aba(model, x, v, a), dyn.aba(model, q, v, a))
        np.testing.assert_array_equal(
            cor.coriolis_matrix(model, x, v), cor.coriolis_matrix(model, q, v)
        )
        np.testing.assert_array_equal(kin.fk(model, x, "ee"), kin.fk(model, q, "ee"))
        np.testing.assert_array_equal(kin.fk(model, x), kin.fk(model, q))
        np.testing.assert_array_equal(kin.jacobian(model, x, "ee"), kin.jacobian(model, q, "ee"))
