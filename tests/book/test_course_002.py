"""Course notes 002 (lecture slides on manipulator dynamics), worked: the iterative
Newton-Euler equations in Craig's 3-vector form (robodyn.reference.rnea_craig) against
Pinocchio and against robodyn's RNEA; the two misprints of the slides' recursion shown
to give wrong torques; the dynamic equation with friction as the slides write it,
tau = M(theta) thetadd + V(theta, thetad) + G(theta) + F(theta, thetad)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import robodyn as rd
from helpers import erd_path, random_tree
from robodyn.reference import rnea_craig


def test_craig_newton_euler_equals_pinocchio_on_the_ur5(rng):
    import pinocchio as pin

    path = erd_path("ur_description/urdf/ur5_robot.urdf")
    model = rd.load_urdf(path)
    pm = pin.buildModelFromUrdf(path)  # Pinocchio parses the URDF itself
    pd = pm.createData()
    pm.gravity.linear = np.array([0.0, 0.0, -9.81])
    for _ in range(3):
        q, v, a = rng.uniform(-np.pi, np.pi, 6), rng.normal(size=6), rng.normal(size=6)
        # the UR5's joints appear in the same order in both (a serial chain)
        assert np.allclose(rnea_craig(model, q, v, a), pin.rnea(pm, pd, q, v, a), atol=1e-11)


@pytest.mark.parametrize("seed", range(4))
def test_craig_newton_euler_equals_rnea_on_trees(seed):
    model, _ = random_tree(seed, 7, fixed=True)  # revolute and prismatic, branching
    rng = np.random.default_rng(seed)
    q = rd.random_configuration(model, rng=rng)
    v, a = rng.normal(size=model.nv), rng.normal(size=model.nv)
    want = rd.inverse_dynamics(model, q, v, a, friction=False, armature=False)
    assert np.allclose(rnea_craig(model, q, v, a), want, atol=1e-11)
    assert np.allclose(rd.reference.rnea(model, q, v, a), want, atol=1e-11)


def test_the_slides_misprints_give_wrong_torques():
    # the lesson's 2-link arm (planar_2r) at rest: tau = g(q). Craig's recursion statically,
    # gravity along -y: vdot_0 = (0, g, 0); frame i turned by q_i about z.
    arm = rd.models.load("planar_2r")
    m2, lc2, g = 3.0, 0.2, 9.81
    q = np.radians([30.0, 50.0])

    def Rz(t):
        return np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1.0]])

    dv0 = np.array([0.0, g, 0.0])
    dv1 = Rz(q[0]).T @ dv0  # frame 1
    pc2 = np.array([lc2, 0.0, 0.0])
    # printed: vdot_2 = R^T (...) + vdot_1, the last term left in frame 1's axes
    for dv2, right in ((Rz(q[1]).T @ dv1, True), (dv1, False)):
        F2 = m2 * dv2
        tau2 = np.cross(pc2, F2)[2]
        assert (abs(tau2 - rd.gravity_forces(arm, q)[1]) < 1e-12) == right
    # printed: tau_i = n_{i+1} . z_i, the next joint's moment: joint 1 would get tau_2
    g_q = rd.gravity_forces(arm, q)
    assert g_q[0] != pytest.approx(g_q[1])  # ... which differs from joint 1's own moment
    assert np.allclose(rnea_craig(arm, q, np.zeros(2), np.zeros(2)), g_q, atol=1e-12)


def test_the_dynamic_equation_with_friction_as_the_slides_write_it(rng):
    # tau = M thetadd + V + G + F, F(theta, thetad) = B thetad + f_c sgn(thetad) (viscous and
    # Coulomb friction, per joint)
    B, fc = np.array([0.4, 0.15]), np.array([0.8, 0.3])
    arm = dataclasses.replace(rd.models.load("planar_2r"), dof_damping=B, dof_friction=fc)
    q, v, a = rng.uniform(-np.pi, np.pi, 2), np.array([0.7, -1.3]), rng.normal(size=2)
    M = rd.mass_matrix(arm, q, armature=False)
    V = rd.velocity_forces(arm, q, v)
    G = rd.gravity_forces(arm, q)
    F = B * v + fc * np.sign(v)  # typed: 0.28 + 0.8, -0.195 - 0.3
    assert np.allclose(F, [0.4 * 0.7 + 0.8, -0.15 * 1.3 - 0.3])
    assert np.allclose(rd.inverse_dynamics(arm, q, v, a), M @ a + V + G + F, atol=1e-12)
    # forward dynamics solves the same equation
    tau = M @ a + V + G + F
    assert np.allclose(rd.forward_dynamics(arm, q, v, tau), a, atol=1e-12)


def test_link_built_from_bodies_a_b_c_against_a_voxel_integration():
    # The slides' link (in symbols there; our numbers): A = box - bore at x = -d, B = a rod
    # along x at the centre, C = A turned about x by -alpha at x = +d. robodyn assembles it
    # from shapes (holes subtracted, moved, summed); the oracle sums 1.25 mm voxels.
    from robodyn.inertia import box, cylinder

    rho, ext, bore, (r_rod, l_rod), d, alpha = (
        2700.0,
        (0.08, 0.06, 0.04),
        0.015,
        (0.02, 0.16),
        0.12,
        0.5,
    )
    c, s = np.cos(-alpha), np.sin(-alpha)
    Rx = np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])
    plate = box(density=rho, size=ext) - cylinder(density=rho, radius=bore, length=ext[2])
    rod = cylinder(density=rho, radius=r_rod, length=l_rod, axis="x")
    link = plate.moved(p=[-d, 0, 0]) + rod + plate.moved(R=Rx, p=[d, 0, 0])

    h = 1.25e-3
    axes = [np.arange(-d - 0.06, d + 0.06, h) + h / 2, *(np.arange(-0.05, 0.05, h) + h / 2,) * 2]
    P = np.stack(np.meshgrid(*axes, indexing="ij"), -1)

    def plate_at(x0, R):
        loc = (P - [x0, 0.0, 0.0]) @ R
        return np.all(np.abs(loc) <= np.array(ext) / 2, -1) & (
            loc[..., 0] ** 2 + loc[..., 1] ** 2 > bore**2
        )

    rod_in = (np.abs(P[..., 0]) <= l_rod / 2) & (P[..., 1] ** 2 + P[..., 2] ** 2 <= r_rod**2)
    pts = P[plate_at(-d, np.eye(3)) | rod_in | plate_at(d, Rx)]
    m = rho * h**3 * len(pts)
    com = pts.mean(0)
    r = pts - com
    I = rho * h**3 * (np.sum(r * r) * np.eye(3) - r.T @ r)
    assert link.mass == pytest.approx(m, rel=5e-3)
    assert np.allclose(link.com, com, atol=2e-4)
    assert np.abs(link.inertia - I).max() < 5e-3 * np.abs(I).max()
    # the tilt of C couples y and z, and only them
    assert abs(link.inertia[1, 2]) > 1e-5 and abs(link.inertia[0, 1]) < 1e-12
