"""Worked examples and closed forms of the course notes on rigid-body inertia.

Every expected number is typed here from a textbook closed form (the course notes 001,
002 and 004); nothing is taken from the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from robodyn import inertia as ri
from robodyn.inertia import RigidInertia
from robodyn.spatial import adjoint, transform

RTOL = 1e-12


def diag(*d):
    return np.diag(np.array(d, dtype=float))


# ------------------------------------------------ shape table (notes 002, 004)
def test_box_table():
    # notes 004: rectangular parallelepiped, l along x, w along y, h along z
    m, l, w, h = 2.5, 0.3, 0.2, 0.7
    b = ri.box(mass=m, size=(l, w, h))
    np.testing.assert_allclose(b.com, 0, atol=0)
    np.testing.assert_allclose(
        b.inertia,
        diag(m * (w**2 + h**2) / 12, m * (l**2 + h**2) / 12, m * (l**2 + w**2) / 12),
        rtol=RTOL,
    )
    rho = 2700.0
    bd = ri.box(density=rho, size=(l, w, h))
    assert bd.mass == pytest.approx(rho * l * w * h, rel=RTOL)
    np.testing.assert_allclose(bd.inertia, b.inertia * (rho * l * w * h / m), rtol=RTOL)


@pytest.mark.parametrize("axis,k", [("x", 0), ("y", 1), ("z", 2)])
def test_cylinder_table(axis, k):
    # notes 002: circular cylinder I_axis = m a^2 / 2, I_perp = m (3 a^2 + L^2) / 12
    m, a, L = 3.0, 0.15, 0.8
    c = ri.cylinder(mass=m, radius=a, length=L, axis=axis)
    expected = np.full(3, m * (3 * a**2 + L**2) / 12)
    expected[k] = m * a**2 / 2
    np.testing.assert_allclose(c.inertia, np.diag(expected), rtol=RTOL, atol=1e-15)
    assert ri.cylinder(density=7850.0, radius=a, length=L, axis=axis).mass == pytest.approx(
        7850.0 * math.pi * a**2 * L, rel=RTOL
    )


def test_cylinder_vector_axis():
    m, a, L = 3.0, 0.15, 0.8
    d = np.array([1.0, 2.0, -2.0]) / 3.0  # unit
    c = ri.cylinder(mass=m, radius=a, length=L, axis=[1.0, 2.0, -2.0])
    Ia, Ip = m * a**2 / 2, m * (3 * a**2 + L**2) / 12
    # axisymmetric body: I = I_p 1 + (I_a - I_p) d d^T
    np.testing.assert_allclose(c.inertia, Ip * np.eye(3) + (Ia - Ip) * np.outer(d, d), rtol=1e-12)


def test_tube_table():
    m, r1, r2, L = 1.7, 0.03, 0.05, 0.6
    t = ri.tube(mass=m, r_inner=r1, r_outer=r2, length=L, axis="y")
    perp = m * (3 * (r1**2 + r2**2) + L**2) / 12
    np.testing.assert_allclose(t.inertia, diag(perp, m * (r1**2 + r2**2) / 2, perp), rtol=RTOL)
    rho = 1200.0
    assert ri.tube(density=rho, r_inner=r1, r_outer=r2, length=L).mass == pytest.approx(
        rho * math.pi * (r2**2 - r1**2) * L, rel=RTOL
    )


def test_sphere_and_hollow_sphere():
    m, a = 4.0, 0.12
    np.testing.assert_allclose(ri.sphere(mass=m, radius=a).inertia, diag(*[0.4 * m * a**2] * 3))
    assert ri.sphere(density=1000.0, radius=a).mass == pytest.approx(
        1000.0 * 4 / 3 * math.pi * a**3, rel=RTOL
    )
    np.testing.assert_allclose(
        ri.hollow_sphere(mass=m, radius=a).inertia, diag(*[2 / 3 * m * a**2] * 3), rtol=RTOL
    )
    t = 1e-3
    hs = ri.hollow_sphere(density=7850.0, radius=a, thickness=t)
    assert hs.mass == pytest.approx(7850.0 * 4 * math.pi * a**2 * t, rel=RTOL)
    # a thin shell is the limit of the difference of two solid spheres
    shell = ri.sphere(density=7850.0, radius=a + t / 2) - ri.sphere(
        density=7850.0, radius=a - t / 2
    )
    np.testing.assert_allclose(shell.inertia, hs.inertia, rtol=1e-4)


def test_ellipsoid_table():
    # notes 004: ellipsoid Ixx = m (b^2 + c^2) / 5, volume 4 pi a b c / 3
    m, a, b, c = 2.0, 0.3, 0.2, 0.1
    e = ri.ellipsoid(mass=m, semi_axes=(a, b, c))
    np.testing.assert_allclose(
        e.inertia, diag(m * (b**2 + c**2) / 5, m * (a**2 + c**2) / 5, m * (a**2 + b**2) / 5)
    )
    assert ri.ellipsoid(density=500.0, semi_axes=(a, b, c)).mass == pytest.approx(
        500.0 * 4 * math.pi * a * b * c / 3, rel=RTOL
    )


def test_cone_about_apex_and_com():
    # The 002 table's cone rows carry typos; the correct closed forms are
    # about the apex I_perp = 3/5 m (a^2/4 + h^2), about the CoM 3/80 m (4 a^2 + h^2),
    # I_axis = 3/10 m a^2; the CoM lies h/4 above the base.
    m, a, h = 1.3, 0.2, 0.9
    k = ri.cone(mass=m, radius=a, height=h)
    np.testing.assert_allclose(k.com, [0, 0, h / 4], rtol=RTOL)
    perp_c = 3 / 80 * m * (4 * a**2 + h**2)
    np.testing.assert_allclose(k.inertia, diag(perp_c, perp_c, 3 / 10 * m * a**2), rtol=RTOL)
    apex = np.array([0.0, 0.0, h])
    perp_apex = 3 / 5 * m * (a**2 / 4 + h**2)
    np.testing.assert_allclose(
        k.about(apex), diag(perp_apex, perp_apex, 3 / 10 * m * a**2), rtol=RTOL
    )
    assert ri.cone(density=900.0, radius=a, height=h).mass == pytest.approx(
        900.0 * math.pi * a**2 * h / 3, rel=RTOL
    )
    # along x: base at the origin, apex at +h x
    kx = ri.cone(mass=m, radius=a, height=h, axis="x")
    np.testing.assert_allclose(kx.com, [h / 4, 0, 0], rtol=RTOL, atol=0)
    np.testing.assert_allclose(
        kx.about([h, 0, 0]), diag(3 / 10 * m * a**2, perp_apex, perp_apex), rtol=RTOL
    )


def test_rod_plate_disk_table():
    m, L = 0.9, 1.4
    np.testing.assert_allclose(
        ri.rod(mass=m, length=L, axis="x").inertia, diag(0, m * L**2 / 12, m * L**2 / 12)
    )
    assert ri.rod(density=2700.0, area=1e-4, length=L).mass == pytest.approx(
        2700.0 * 1e-4 * L, rel=RTOL
    )
    # notes 002 thin plate with normal x, sides b (along y) and c (along z):
    # I_x = m (b^2 + c^2) / 12, I_y = m c^2 / 12, I_z = m b^2 / 12
    b, c = 0.4, 0.25
    np.testing.assert_allclose(
        ri.plate(mass=m, size=(b, c), normal="x").inertia,
        diag(m * (b**2 + c**2) / 12, m * c**2 / 12, m * b**2 / 12),
        rtol=RTOL,
    )
    np.testing.assert_allclose(
        ri.plate(mass=m, size=(b, c), normal="z").inertia,
        diag(m * c**2 / 12, m * b**2 / 12, m * (b**2 + c**2) / 12),
        rtol=RTOL,
    )
    assert ri.plate(density=2700.0, thickness=0.002, size=(b, c)).mass == pytest.approx(
        2700.0 * b * c * 0.002, rel=RTOL
    )
    # notes 002 thin disk with normal x: I_x = m r^2 / 2, I_y = I_z = m r^2 / 4
    r = 0.3
    np.testing.assert_allclose(
        ri.disk(mass=m, radius=r, normal="x").inertia,
        diag(m * r**2 / 2, m * r**2 / 4, m * r**2 / 4),
        rtol=RTOL,
    )
    assert ri.disk(density=8000.0, thickness=0.01, radius=r).mass == pytest.approx(
        8000.0 * math.pi * r**2 * 0.01, rel=RTOL
    )


def test_point_and_points():
    p = ri.point(2.0, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(p.inertia, 0, atol=0)
    # about the origin a point mass has I = m (|r|^2 1 - r r^T)
    r = np.array([1.0, 2.0, 3.0])
    np.testing.assert_allclose(p.about(), 2.0 * (14.0 * np.eye(3) - np.outer(r, r)), rtol=RTOL)
    # dumbbell: two 1 kg masses at +-0.5 x -> I = diag(0, 0.5, 0.5) about the middle
    d = ri.points([1.0, 1.0], [[0.5, 1.0, 0.0], [-0.5, 1.0, 0.0]])
    np.testing.assert_allclose(d.com, [0.0, 1.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(d.inertia, diag(0, 0.5, 0.5), atol=1e-15)


# ----------------------------------------------- notes 002: box about a corner
def test_box_about_corner_002():
    # box w x l x h with x in [0, w], y in [0, l], z in [0, h], frame at a corner
    m, w, l, h = 3.0, 0.4, 0.7, 0.2
    corner_frame = ri.box(mass=m, size=(w, l, h)).moved(p=[w / 2, l / 2, h / 2])
    I_A = corner_frame.about([0.0, 0.0, 0.0])
    expected = np.array(
        [
            [m * (l**2 + h**2) / 3, -m * w * l / 4, -m * h * w / 4],
            [-m * w * l / 4, m * (w**2 + h**2) / 3, -m * h * l / 4],
            [-m * h * w / 4, -m * h * l / 4, m * (l**2 + w**2) / 3],
        ]
    )
    np.testing.assert_allclose(I_A, expected, rtol=RTOL)
    # and back to the CoM with Steiner typed by hand: C_I = A_I - m (P.P 1 - P P^T)
    P = np.array([w, l, h]) / 2
    back = expected - m * (P @ P * np.eye(3) - np.outer(P, P))
    np.testing.assert_allclose(
        back, m / 12 * diag(h**2 + l**2, w**2 + h**2, l**2 + w**2), rtol=1e-12, atol=1e-15
    )
    # the 10-vector about the corner rebuilds the same body
    pi = [m, m * w / 2, m * l / 2, m * h / 2, *np.diag(expected), -m * w * l / 4]
    pi += [-m * h * l / 4, -m * h * w / 4]
    assert RigidInertia.from_vector(pi).isclose(corner_frame, rtol=1e-12)
    # scalar moment about the body diagonal through the corner: l^T I_A l
    u = np.array([w, l, h]) / np.linalg.norm([w, l, h])
    assert corner_frame.about_axis([w, l, h]) == pytest.approx(u @ expected @ u, rel=1e-12)


# ------------------------------------------------ notes 001, problem 5: tube
@pytest.mark.parametrize("L,d1,d2", [(0.5, 0.04, 0.06), (1.2, 0.0001, 0.3)])
def test_problem5_round_tube(L, d1, d2):
    rho = 7850.0
    r1, r2 = d1 / 2, d2 / 2
    t = ri.cylinder(density=rho, radius=r2, length=L) - ri.cylinder(
        density=rho, radius=r1, length=L
    )
    m = rho * math.pi * (r2**2 - r1**2) * L
    assert t.mass == pytest.approx(m, rel=1e-12)
    perp = m / 12 * (3 * (r1**2 + r2**2) + L**2)
    np.testing.assert_allclose(t.inertia, diag(perp, perp, m / 2 * (r1**2 + r2**2)), rtol=1e-9)
    assert t.isclose(ri.tube(density=rho, r_inner=r1, r_outer=r2, length=L), rtol=1e-9)


# ------------------------------------------ notes 001, problem 6: eq. 10.46
@pytest.mark.parametrize("m", [1.0, 2.5])
def test_problem6_translate_then_rotate(m):
    I1 = diag(1, 2, 3)
    r1 = np.array([3.0, 0.0, 2.0])  # origin of x-y-z, seen in frame 1
    R1 = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])  # Rz(90 deg)
    # By hand: I' = I1 + m (|r1|^2 1 - r1 r1^T) = [[1 + 4m, 0, -6m], [0, 2 + 13m, 0],
    # [-6m, 0, 3 + 9m]]; I = R1 I' R1^T swaps the x and y rows/columns and negates the
    # x-z coupling: [[2 + 13m, 0, 0], [0, 1 + 4m, -6m], [0, -6m, 3 + 9m]].
    expected = np.array(
        [[2 + 13 * m, 0.0, 0.0], [0.0, 1 + 4 * m, -6 * m], [0.0, -6 * m, 3 + 9 * m]]
    )
    body = RigidInertia(m, [0, 0, 0], I1)  # in frame 1, at the CoM
    # pose of frame 1 in x-y-z: orientation R1, origin at -R1 r1
    in_xyz = body.moved(R1, -R1 @ r1)
    np.testing.assert_allclose(in_xyz.about([0.0, 0.0, 0.0]), expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(in_xyz.inertia, diag(2, 1, 3), atol=1e-15)


# ------------------------------------- notes 001, problem 7: steel barbell
def test_problem7_barbell():
    rho, rs, rb, Lb = 7850.0, 0.10, 0.02, 0.20
    ms = rho * 4 / 3 * math.pi * rs**3
    mb = rho * math.pi * rb**2 * Lb
    d = Lb / 2 + rs  # sphere centres at +-0.2 m along the bar (x)
    I_axis = 2 * (2 / 5 * ms * rs**2) + mb * rb**2 / 2
    I_perp = 2 * (2 / 5 * ms * rs**2 + ms * d**2) + mb * (3 * rb**2 + Lb**2) / 12
    bar = ri.cylinder(density=rho, radius=rb, length=Lb, axis="x")
    ball = ri.sphere(density=rho, radius=rs)
    barbell = ball.moved(p=[d, 0, 0]) + ball.moved(p=[-d, 0, 0]) + bar
    assert barbell.mass == pytest.approx(2 * ms + mb, rel=1e-12)
    np.testing.assert_allclose(barbell.com, 0, atol=1e-15)
    moments, axes = barbell.principal()
    np.testing.assert_allclose(moments, [I_axis, I_perp, I_perp], rtol=1e-12)
    assert abs(axes[0, 0]) == pytest.approx(1.0, abs=1e-12)  # smallest moment about x
    # by hand: m_s = 32.882 kg, m_b = 1.9729 kg; 2 (2/5 m_s rs^2) + m_b rb^2 / 2 = 0.26345,
    # 2 (2/5 m_s rs^2 + m_s 0.2^2) + m_b (3 rb^2 + Lb^2) / 12 = 2.8936 + 0.0068 = 2.9004
    assert (ms, mb) == pytest.approx((32.882, 1.97292), rel=1e-5)
    np.testing.assert_allclose(moments, [0.26345, 2.90039, 2.90039], rtol=2e-5)


# ----------------------------------------- notes 004: the compound object
def test_compound_object_004():
    # Dimensions chosen here (the notes give none): cylinder radius 0.1 m, height 0.2 m,
    # axis z, centred at the origin of {a}; box 0.3 (x) x 0.1 x 0.1 m whose centre is at
    # x = 0.1 + 0.15 = 0.25 m, touching the cylinder. Masses 2 kg and 1 kg.
    mc, r, hc = 2.0, 0.1, 0.2
    mp, lx, wy, hz = 1.0, 0.3, 0.1, 0.1
    xb = r + lx / 2
    cyl = ri.cylinder(mass=mc, radius=r, length=hc, axis="z")
    prism = ri.box(mass=mp, size=(lx, wy, hz)).moved(p=[xb, 0, 0])
    body_a = cyl + prism

    m = mc + mp
    x_cm = mp * xb / m  # = 0.25 / 3
    np.testing.assert_allclose(body_a.com, [x_cm, 0, 0], rtol=1e-12, atol=1e-15)
    # inertia at the CM in {b} aligned with {a}, by hand
    dc, dp = x_cm, xb - x_cm  # distances of the part CoMs from the CM along x
    Ixx = mc * (3 * r**2 + hc**2) / 12 + mp * (wy**2 + hz**2) / 12
    Iyy = mc * (3 * r**2 + hc**2) / 12 + mc * dc**2 + mp * (lx**2 + hz**2) / 12 + mp * dp**2
    Izz = mc * r**2 / 2 + mc * dc**2 + mp * (lx**2 + wy**2) / 12 + mp * dp**2
    I_b = diag(Ixx, Iyy, Izz)
    np.testing.assert_allclose(body_a.inertia, I_b, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose([Ixx, Iyy, Izz], [0.04 / 3, 0.185 / 3, 0.06], rtol=1e-9)

    # G_a = [Ad_T_ba]^T G_b [Ad_T_ba], T_ba = pose of {a} in {b} = (1, -x_cm x)
    G_b = np.zeros((6, 6))
    G_b[:3, :3] = I_b
    G_b[3:, 3:] = m * np.eye(3)
    Ad = adjoint(transform(None, [-x_cm, 0.0, 0.0]))
    G_a = Ad.T @ G_b @ Ad
    np.testing.assert_allclose(body_a.spatial_at_origin(), G_a, rtol=1e-12, atol=1e-15)
    body_b = body_a.moved(p=[-x_cm, 0, 0])  # the compound expressed in {b}
    np.testing.assert_allclose(body_b.spatial(), G_b, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(
        body_b.spatial_in(transform(None, [-x_cm, 0, 0])), G_a, rtol=1e-12, atol=1e-15
    )
    # the upper-left block of G_a is the inertia about the origin of {a} (Steiner)
    np.testing.assert_allclose(G_a[:3, :3], I_b + m * diag(0, x_cm**2, x_cm**2), rtol=1e-12)
