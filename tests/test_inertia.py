"""Tests of robodyn.inertia: meshes, 6x6 quantities, identities, bad input, Pinocchio.

Expected values come from closed forms typed here, from an independent quadrature, from
point-mass sums, or from Pinocchio.
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from robodyn import inertia as ri
from robodyn.inertia import RigidInertia
from robodyn.spatial import adjoint, exp3, inv_transform, transform

SETTINGS = settings(max_examples=50, deadline=None)


# ----------------------------------------------------------------- strategies
def finite(lo, hi):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


vec3 = arrays(np.float64, 3, elements=finite(-1.0, 1.0))
rotvec = arrays(np.float64, 3, elements=finite(-4.0, 4.0))


@st.composite
def bodies(draw):
    """A random physical body: a box-like tensor turned by a random rotation."""
    m = draw(finite(0.1, 10.0))
    a, b, c = draw(arrays(np.float64, 3, elements=finite(0.05, 2.0)))
    R = exp3(draw(rotvec))
    I_c = R @ np.diag([b * b + c * c, a * a + c * c, a * a + b * b]) @ R.T * m / 12
    return RigidInertia(m, draw(vec3), I_c)


def assert_physical(I, tol=1e-9):
    lam = np.linalg.eigvalsh(I)
    scale = tol * np.trace(I)
    assert lam[0] >= -scale
    assert lam[0] + lam[1] >= lam[2] - scale
    np.testing.assert_allclose(I, I.T, atol=scale)


# ----------------------------------------------------------------- meshes
def box_mesh(a, b, c):
    """12-triangle box [-a/2, a/2] x [-b/2, b/2] x [-c/2, c/2], outward winding."""
    V = np.array(
        [[x, y, z] for x in (-a / 2, a / 2) for y in (-b / 2, b / 2) for z in (-c / 2, c / 2)]
    )
    # vertex index = 4 ix + 2 iy + iz
    F = [
        (0, 1, 3), (0, 3, 2),  # x = -a/2, normal -x
        (4, 6, 7), (4, 7, 5),  # x = +a/2
        (0, 4, 5), (0, 5, 1),  # y = -b/2
        (2, 3, 7), (2, 7, 6),  # y = +b/2
        (0, 2, 6), (0, 6, 4),  # z = -c/2
        (1, 5, 7), (1, 7, 3),  # z = +c/2
    ]  # fmt: skip
    return V, np.array(F)


def icosphere(level):
    t = (1 + 5**0.5) / 2
    V = [[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t]]
    V += [[0, -1, -t], [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]]
    F = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4)]
    F += [(11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8)]
    F += [(3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    V = [np.array(v, float) / np.linalg.norm(v) for v in V]
    for _ in range(level):
        cache = {}

        def mid(i, j, V=V, cache=cache):
            key = (min(i, j), max(i, j))
            if key not in cache:
                p = V[i] + V[j]
                V.append(p / np.linalg.norm(p))
                cache[key] = len(V) - 1
            return cache[key]

        new = []
        for a, b, c in F:
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            new += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
        F = new
    return np.array(V), np.array(F)


def polyhedron_by_quadrature(V, F, rho):
    """Mass, CoM and second moment of a star-shaped polyhedron by an independent route:
    cone each face to the origin and integrate x x^T over every tetrahedron with the
    4-point rule exact for quadratics (barycentric (alpha, beta, beta, beta))."""
    alpha, beta = 0.5854101966249685, 0.1381966011250105
    vol = 0.0
    first = np.zeros(3)
    second = np.zeros((3, 3))
    for f in F:
        P = np.vstack([np.zeros(3), V[f]])  # tetra (0, a, b, c)
        v = np.linalg.det(P[1:]) / 6.0
        vol += v
        first += v * P.mean(axis=0)
        for k in range(4):
            w = np.full(4, beta)
            w[k] = alpha
            x = w @ P
            second += v / 4 * np.outer(x, x)
    m = rho * vol
    c = first / vol
    S = rho * second - m * np.outer(c, c)
    return m, c, np.trace(S) * np.eye(3) - S


def test_box_mesh_exact():
    a, b, c, rho = 0.3, 0.5, 0.2, 2700.0
    V, F = box_mesh(a, b, c)
    body = ri.from_mesh(V, F, density=rho)
    m = rho * a * b * c
    assert body.mass == pytest.approx(m, rel=1e-13)
    np.testing.assert_allclose(body.com, 0, atol=1e-15)
    expected = m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    np.testing.assert_allclose(body.inertia, expected, rtol=1e-12, atol=1e-15)


def test_translated_rotated_box_mesh():
    a, b, c, rho = 0.3, 0.5, 0.2, 1000.0
    V, F = box_mesh(a, b, c)
    R = exp3([0.3, -1.1, 0.7])
    p = np.array([2.0, -3.0, 5.0])
    body = ri.from_mesh(V @ R.T + p, F, density=rho)
    m = rho * a * b * c
    I_box = m / 12 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])
    assert body.mass == pytest.approx(m, rel=1e-12)
    np.testing.assert_allclose(body.com, p, rtol=1e-12)
    np.testing.assert_allclose(body.inertia, R @ I_box @ R.T, rtol=1e-10, atol=1e-13)


def test_icosphere_mesh():
    rho = 1.0
    errors = []
    for level in (1, 2, 3, 4):
        V, F = icosphere(level)
        body = ri.from_mesh(V, F, density=rho)
        # exact inertia of the polyhedron itself, by independent quadrature
        m, c, I_c = polyhedron_by_quadrature(V, F, rho)
        assert body.mass == pytest.approx(m, rel=1e-12)
        np.testing.assert_allclose(body.com, c, atol=1e-13)
        np.testing.assert_allclose(body.inertia, I_c, rtol=1e-11, atol=1e-14)
        # and against the sphere: I = 2/5 m r^2 with m = 4/3 pi r^3 (r = 1)
        I_sphere = 0.4 * (4 / 3 * math.pi)
        errors.append(np.abs(body.inertia - I_sphere * np.eye(3)).max() / I_sphere)
    # second-order convergence: the error shrinks about 4x per subdivision
    assert all(e1 / e2 > 3.5 for e1, e2 in zip(errors, errors[1:]))
    assert errors[-1] < 5e-3


def test_mesh_bad_input():
    V, F = box_mesh(1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="oriented inward"):
        ri.from_mesh(V, F[:, ::-1])
    with pytest.raises(ValueError, match="out of range"):
        ri.from_mesh(V, np.vstack([F, [0, 1, 8]]))
    with pytest.raises(ValueError, match="open or inconsistently oriented"):
        ri.from_mesh(V, F[:-1])  # a missing triangle
    Fbad = F.copy()
    Fbad[0] = Fbad[0, ::-1]  # one face flipped
    with pytest.raises(ValueError, match="not consistently oriented|inconsistently"):
        ri.from_mesh(V, Fbad)
    with pytest.raises(ValueError, match="shape"):
        ri.from_mesh(V[:, :2], F)
    with pytest.raises(ValueError, match="repeats a vertex"):
        ri.from_mesh(V, np.vstack([F, [0, 0, 1]]))
    with pytest.raises(ValueError, match="density must be > 0"):
        ri.from_mesh(V, F, density=-1.0)
    # a flat (zero-volume) closed surface: a square, front and back, split along the two
    # different diagonals so that every directed edge appears once
    Vf = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], float)
    Ff = np.array([[0, 1, 2], [0, 2, 3], [1, 0, 3], [1, 3, 2]])
    with pytest.raises(ValueError, match="no volume"):
        ri.from_mesh(Vf, Ff)


# ------------------------------------------------------------ spatial inertia
def test_spatial_at_origin_formula_and_ad():
    body = RigidInertia(2.0, [0.1, -0.2, 0.3], np.diag([0.05, 0.07, 0.04]))
    m, c = 2.0, np.array([0.1, -0.2, 0.3])
    C = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
    G_o = np.block([[body.inertia + m * C.T @ C, m * C], [m * C.T, m * np.eye(3)]])
    np.testing.assert_allclose(body.spatial_at_origin(), G_o, rtol=1e-14, atol=1e-15)
    # MR 8.42 with {b} = CoM frame, {a} = body frame: T_ba = (1, -c)
    Ad = adjoint(transform(None, -c))
    np.testing.assert_allclose(Ad.T @ body.spatial() @ Ad, G_o, rtol=1e-14, atol=1e-15)


@SETTINGS
@given(body=bodies(), w=rotvec, p=vec3)
def test_spatial_in_is_ad_transform(body, w, p):
    T_ba = transform(exp3(w), p)
    Ad = adjoint(T_ba)
    G_a = Ad.T @ body.spatial_at_origin() @ Ad
    np.testing.assert_allclose(body.spatial_in(T_ba), G_a, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(body.spatial_in(np.eye(4)), body.spatial_at_origin(), atol=1e-14)
    np.testing.assert_allclose(
        body.spatial_in(transform(None, body.com)), body.spatial(), atol=1e-12
    )


@SETTINGS
@given(body=bodies())
def test_from_spatial_round_trip(body):
    assert RigidInertia.from_spatial(body.spatial_at_origin()).isclose(body, rtol=1e-9)


def test_kinetic_energy_and_momentum_of_point_cloud():
    # independent: sum of 1/2 m_i |v + omega x r_i|^2 and sum of r_i x m_i v_i
    rng = np.random.default_rng(3)
    masses = rng.uniform(0.1, 2.0, 7)
    r = rng.normal(size=(7, 3))
    body = ri.points(masses, r)
    V = rng.normal(size=6)
    w, v = V[:3], V[3:]
    vel = v + np.cross(w, r)
    K = 0.5 * np.sum(masses * np.sum(vel**2, axis=1))
    assert body.kinetic_energy(V) == pytest.approx(K, rel=1e-12)
    L = np.sum(np.cross(r, masses[:, None] * vel), axis=0)
    P = masses @ vel
    np.testing.assert_allclose(body.momentum(V), np.concatenate([L, P]), rtol=1e-12)
    # batched
    Vs = rng.normal(size=(4, 6))
    np.testing.assert_allclose(
        body.kinetic_energy(Vs), [body.kinetic_energy(x) for x in Vs], rtol=1e-14
    )
    assert body.momentum(Vs).shape == (4, 6)


@SETTINGS
@given(body=bodies(), w=rotvec, p=vec3, V=arrays(np.float64, 6, elements=finite(-3, 3)))
def test_kinetic_energy_frame_invariance(body, w, p, V):
    # {a} rigidly attached to the body, T_ba its pose in the body frame {b}; the same
    # motion has twist V_a = [Ad_T_ab] V_b in {a}
    T_ba = transform(exp3(w), p)
    V_a = adjoint(inv_transform(T_ba)) @ V
    K = body.kinetic_energy(V)
    assert 0.5 * V_a @ body.spatial_in(T_ba) @ V_a == pytest.approx(K, rel=1e-9, abs=1e-12)
    moved = body.moved(*_Rp(inv_transform(T_ba)))
    assert moved.kinetic_energy(V_a) == pytest.approx(K, rel=1e-9, abs=1e-12)


def _Rp(T):
    return T[:3, :3], T[:3, 3]


# ---------------------------------------------------------------- Pinocchio
@SETTINGS
@given(body=bodies())
def test_against_pinocchio(body):
    I_pin = pin.Inertia(body.mass, body.com, body.inertia)
    # Pinocchio orders spatial vectors [v, omega]
    perm = [3, 4, 5, 0, 1, 2]
    G_pin = I_pin.matrix()[np.ix_(perm, perm)]
    np.testing.assert_allclose(body.spatial_at_origin(), G_pin, rtol=1e-12, atol=1e-12)
    # Pinocchio's 10-vector: [m, mc, Ixx, Ixy, Iyy, Ixz, Iyz, Izz] about the origin
    m, mcx, mcy, mcz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz = I_pin.toDynamicParameters()
    pi = [m, mcx, mcy, mcz, Ixx, Iyy, Izz, Ixy, Iyz, Ixz]
    np.testing.assert_allclose(body.to_vector(), pi, rtol=1e-12, atol=1e-12)
    # transformation: pin's se3 action places the body in the parent frame
    R, p = exp3([0.2, 0.5, -0.3]), np.array([0.4, -0.1, 0.2])
    moved_pin = pin.SE3(R, p).act(I_pin)
    moved = body.moved(R, p)
    np.testing.assert_allclose(moved.com, moved_pin.lever, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(moved.inertia, moved_pin.inertia, rtol=1e-12, atol=1e-12)
    summed = (I_pin + moved_pin).matrix()[np.ix_(perm, perm)]
    np.testing.assert_allclose((body + moved).spatial_at_origin(), summed, rtol=1e-10, atol=1e-12)


# ---------------------------------------------------------------- properties
@SETTINGS
@given(body=bodies(), q=vec3)
def test_steiner_there_and_back(body, q):
    I_q = body.about(q)
    d = body.com - q
    # by hand: I_c = I_q - m (|d|^2 1 - d d^T)
    back = I_q - body.mass * (d @ d * np.eye(3) - np.outer(d, d))
    np.testing.assert_allclose(back, body.inertia, atol=1e-12)
    assert_physical(I_q)
    # a point at the CoM gives the CoM inertia; about_axis is l^T I_q l
    np.testing.assert_allclose(body.about(body.com), body.inertia, atol=1e-15)
    ell = np.array([1.0, -2.0, 0.5]) / np.linalg.norm([1.0, -2.0, 0.5])
    assert body.about_axis([2.0, -4.0, 1.0], q) == pytest.approx(ell @ I_q @ ell, rel=1e-12)


@SETTINGS
@given(body=bodies())
def test_principal(body):
    moments, axes = body.principal()
    np.testing.assert_allclose(axes @ np.diag(moments) @ axes.T, body.inertia, atol=1e-12)
    np.testing.assert_allclose(axes.T @ axes, np.eye(3), atol=1e-12)
    assert np.linalg.det(axes) == pytest.approx(1.0, abs=1e-12)
    assert moments[0] <= moments[1] <= moments[2]
    # the trace and the characteristic invariants are frame independent
    assert moments.sum() == pytest.approx(np.trace(body.inertia), rel=1e-12)


@SETTINGS
@given(body=bodies(), w=rotvec, p=vec3)
def test_moved_and_back(body, w, p):
    R = exp3(w)
    there = body.moved(R, p)
    np.testing.assert_allclose(there.com, R @ body.com + p, atol=1e-14)
    np.testing.assert_allclose(there.inertia, R @ body.inertia @ R.T, atol=1e-13)
    assert_physical(there.inertia)
    assert_physical(there.about())
    back = there.moved(R.T, -R.T @ p)
    assert back.isclose(body, rtol=1e-10, atol=1e-12)
    T = transform(R, p)
    assert body.transformed(T).isclose(there, rtol=1e-14, atol=1e-15)


@SETTINGS
@given(body=bodies())
def test_vector_round_trip(body):
    pi = body.to_vector()
    assert pi[0] == body.mass
    np.testing.assert_allclose(pi[1:4], body.mass * body.com, atol=0)
    I_o = body.about()
    np.testing.assert_allclose(pi[4:], [*np.diag(I_o), I_o[0, 1], I_o[1, 2], I_o[0, 2]], atol=0)
    assert RigidInertia.from_vector(pi).isclose(body, rtol=1e-9, atol=1e-12)


@SETTINGS
@given(a=bodies(), b=bodies())
def test_add_then_subtract(a, b):
    s = a + b
    assert s.mass == pytest.approx(a.mass + b.mass, rel=1e-14)
    np.testing.assert_allclose(s.com, (a.mass * a.com + b.mass * b.com) / s.mass, atol=1e-14)
    # inertia about any fixed point adds (notes 001, "inertia matrices in a common frame")
    np.testing.assert_allclose(s.about(), a.about() + b.about(), rtol=1e-12, atol=1e-12)
    # 10-vectors are linear
    np.testing.assert_allclose(s.to_vector(), a.to_vector() + b.to_vector(), atol=1e-12)
    assert (s - b).isclose(a, rtol=1e-7, atol=1e-10)
    assert (a + b).isclose(b + a, rtol=1e-12, atol=1e-14)


def test_zero_and_sum():
    z = RigidInertia.zero()
    assert z.mass == 0.0
    np.testing.assert_array_equal(z.inertia, np.zeros((3, 3)))
    b = ri.box(mass=1.0, size=(1.0, 2.0, 3.0)).moved(p=[1.0, 0, 0])
    assert b + z == b
    assert z + b == b
    assert b - z == b
    assert (b - b) == z
    assert sum([b, b]).isclose(ri.box(mass=2.0, size=(1.0, 2.0, 3.0)).moved(p=[1.0, 0, 0]))
    np.testing.assert_array_equal(z.spatial_at_origin(), np.zeros((6, 6)))
    assert RigidInertia.from_vector(np.zeros(10)) == z
    assert z.moved(exp3([1.0, 0, 0]), [1.0, 2.0, 3.0]) == z


def test_immutable_and_repr():
    b = ri.box(mass=1.0, size=(1.0, 2.0, 3.0))
    with pytest.raises(ValueError):
        b.inertia[0, 0] = 5.0
    with pytest.raises(ValueError):
        b.com[0] = 5.0
    with pytest.raises(AttributeError):
        b.mass = 3.0
    text = repr(b)
    assert text.startswith("RigidInertia(mass=1, com=[")
    assert "1.083333" in text and "0.833333" in text and "0.416667" in text  # 13/12, 10/12, 5/12
    assert b == ri.box(mass=1.0, size=(1.0, 2.0, 3.0))
    assert b != ri.box(mass=1.0, size=(1.0, 2.0, 3.1))


def test_bore_removed_from_box():
    # steel block 0.1 x 0.1 x 0.05 with a 0.02 m radius bore along z through its centre
    rho, a, h, r = 7850.0, 0.1, 0.05, 0.02
    block = ri.box(density=rho, size=(a, a, h)) - ri.cylinder(density=rho, radius=r, length=h)
    mb, mc = rho * a * a * h, rho * math.pi * r * r * h
    Ixx = mb * (a * a + h * h) / 12 - mc * (3 * r * r + h * h) / 12
    Izz = mb * (2 * a * a) / 12 - mc * r * r / 2
    assert block.mass == pytest.approx(mb - mc, rel=1e-12)
    np.testing.assert_allclose(block.inertia, np.diag([Ixx, Ixx, Izz]), rtol=1e-10, atol=1e-16)
    # an off-centre bore moves the CoM away from it
    off = ri.box(density=rho, size=(a, a, h)) - ri.cylinder(density=rho, radius=r, length=h).moved(
        p=[0.02, 0, 0]
    )
    assert off.com[0] == pytest.approx(-mc * 0.02 / (mb - mc), rel=1e-12)


# ---------------------------------------------------------------- CAD products
def test_products_of_inertia_conventions():
    # a point mass at (1, 2, 3): int xy dm = m x y = 2 m etc.
    m = 0.5
    body = ri.point(m, [1.0, 2.0, 3.0])
    I_o = body.about()
    cad = ri.tensor_to_cad(I_o)
    assert cad["Pxy"] == pytest.approx(m * 1 * 2)
    assert cad["Pyz"] == pytest.approx(m * 2 * 3)
    assert cad["Pxz"] == pytest.approx(m * 1 * 3)
    assert cad["Ixx"] == pytest.approx(m * (4 + 9))
    np.testing.assert_allclose(ri.products_of_inertia(I_o, "tensor"), [-1.0, -3.0, -1.5])
    np.testing.assert_allclose(ri.products_of_inertia(I_o, "cad"), [1.0, 3.0, 1.5])
    back = ri.inertia_from_cad(cad["Ixx"], cad["Iyy"], cad["Izz"], 1.0, 3.0, 1.5)
    np.testing.assert_allclose(back, I_o, atol=1e-15)
    np.testing.assert_allclose(
        ri.inertia_tensor([6.5, 5.0, 2.5], [-1.0, -3.0, -1.5]), I_o, atol=1e-15
    )
    with pytest.raises(ValueError, match="convention"):
        ri.products_of_inertia(I_o, "solidworks")


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "args,match",
    [
        ((-1.0, None, None), "negative mass"),
        ((float("nan"), None, None), "mass must be finite"),
        ((1.0, [0, float("nan"), 0], None), "com contains NaN"),
        ((1.0, [0, 0], None), r"com must have shape \(\.\.\., 3\), got \(2,\)"),
        ((1.0, None, np.eye(2)), r"inertia must have shape"),
        ((1.0, None, [[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]), "not symmetric"),
        ((1.0, None, np.diag([1.0, 1.0, -0.1])), "not positive semi-definite"),
        ((1.0, None, np.diag([0.1, 0.2, 0.5])), r"triangle inequality: I1 \+ I2 = 0.3 < I3 = 0.5"),
        ((0.0, None, np.eye(3)), "massless body must have zero"),
        ((1.0, None, np.full((3, 3), np.inf)), "inertia contains NaN or inf"),
    ],
)
def test_constructor_rejects(args, match):
    with pytest.raises(ValueError, match=match):
        RigidInertia(*args)


def test_shape_constructors_reject():
    with pytest.raises(ValueError, match="exactly one of mass= or density=, got both"):
        ri.box(mass=1.0, size=(1, 1, 1), density=1000.0)
    with pytest.raises(ValueError, match="exactly one of mass= or density=, got neither"):
        ri.cylinder(radius=0.1, length=1.0)
    with pytest.raises(ValueError, match="radius must be > 0"):
        ri.sphere(mass=1.0, radius=-0.1)
    with pytest.raises(ValueError, match="radius is required"):
        ri.sphere(mass=1.0)
    with pytest.raises(ValueError, match="r_inner < r_outer"):
        ri.tube(mass=1.0, r_inner=0.2, r_outer=0.1, length=1.0)
    with pytest.raises(ValueError, match="axis must be"):
        ri.cylinder(mass=1.0, radius=0.1, length=1.0, axis="w")
    with pytest.raises(ValueError, match="nonzero"):
        ri.cone(mass=1.0, radius=0.1, height=1.0, axis=[0, 0, 0])
    with pytest.raises(ValueError, match="density= needs thickness="):
        ri.hollow_sphere(density=1.0, radius=1.0)
    with pytest.raises(ValueError, match=r"size must have shape"):
        ri.box(mass=1.0, size=(1.0, 2.0))
    with pytest.raises(ValueError, match="negative mass"):
        ri.points([1.0, -1.0], [[0, 0, 0], [1, 0, 0]])
    with pytest.raises(ValueError, match=r"positions must have shape \(2, 3\)"):
        ri.points([1.0, 1.0], [[0, 0, 0]])


def test_operations_reject():
    b = ri.box(mass=1.0, size=(0.1, 0.1, 0.1))
    big = ri.box(mass=2.0, size=(0.1, 0.1, 0.1))
    with pytest.raises(ValueError, match="negative mass"):
        b - big
    # lighter but with more inertia: the remainder would have a negative moment
    with pytest.raises(ValueError, match="not physical"):
        b - ri.rod(mass=0.5, length=1.0)
    with pytest.raises(ValueError, match="zero mass but a nonzero"):
        b - b.moved(p=[1.0, 0, 0])
    with pytest.raises(ValueError, match="R is not a rotation"):
        b.moved(R=2 * np.eye(3))
    with pytest.raises(ValueError, match="direction must be a nonzero"):
        b.about_axis([0, 0, 0])
    with pytest.raises(ValueError, match=r"pi must have shape"):
        RigidInertia.from_vector(np.ones(9))
    with pytest.raises(ValueError, match="triangle|semi-definite"):
        RigidInertia.from_vector([1.0, 0, 0, 0, 0.1, 0.1, 1.0, 0, 0, 0])
    with pytest.raises(ValueError, match=r"V must have shape"):
        b.kinetic_energy(np.ones(3))


def test_compound_of_plain_parts_equals_validated_sum():
    from robodyn.inertia import compound

    a = ri.box(mass=2.0, size=(0.3, 0.1, 0.2)).moved(np.eye(3), [0.1, -0.2, 0.3])
    b = ri.cylinder(mass=1.5, radius=0.05, length=0.4, axis="x").moved(np.eye(3), [-0.3, 0, 0])
    m, c, I = compound([(a.mass, a.com, a.inertia), (b.mass, b.com, b.inertia)])
    s = a + b
    assert m == pytest.approx(3.5)
    np.testing.assert_allclose(c, s.com, atol=1e-15)
    np.testing.assert_allclose(I, s.inertia, atol=1e-14)
    # by hand: c = (2 * (0.1, -0.2, 0.3) + 1.5 * (-0.3, 0, 0)) / 3.5
    np.testing.assert_allclose(c, [(0.2 - 0.45) / 3.5, -0.4 / 3.5, 0.6 / 3.5], atol=1e-15)
