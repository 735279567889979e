"""Course notes 002: the inertia of a robot link built from three bodies (the slides give
it in symbols; the numbers here are our own).

Body A: a box with a cylindrical bore (I = I_box - I_cyl), its centre at x = -d from the
link's centre of mass frame. Body B: a solid cylinder along x at the centre. Body C: like
A, turned about x by -alpha and placed at x = +d. The link's inertia is the sum of the
three moved to a common frame (Steiner for the translation, R I R^T for the rotation),
and it is checked against a direct integration over a voxel grid of the same solid.

    python examples/course/notes002_link.py [outdir]     (default ./out/course/notes002)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from robodyn.inertia import box, cylinder

RHO = 2700.0  # aluminium, kg/m^3
BOX = (0.08, 0.06, 0.04)  # x, y, z extents of bodies A and C (m)
BORE = 0.015  # radius of the bore through A and C, along z (m)
ROD = (0.02, 0.16)  # radius and length of body B, along x (m)
D = 0.12  # centres of A and C at x = -d and +d (m)
ALPHA = np.radians(30.0)


def rot_x(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]])


def link():
    """The three bodies assembled (robodyn.inertia: shapes, holes, moves, sums)."""
    plate = box(density=RHO, size=BOX) - cylinder(density=RHO, radius=BORE, length=BOX[2])
    body_a = plate.moved(p=[-D, 0.0, 0.0])
    body_b = cylinder(density=RHO, radius=ROD[0], length=ROD[1], axis="x")
    body_c = plate.moved(R=rot_x(-ALPHA), p=[D, 0.0, 0.0])
    return body_a, body_b, body_c


def voxel_inertia(h: float = 1e-3):
    """Mass, centre of mass and inertia about it by summing voxels of side h (midpoints)."""
    xs = np.arange(-D - 0.06, D + 0.06, h) + h / 2
    ys = np.arange(-0.05, 0.05, h) + h / 2
    zs = np.arange(-0.05, 0.05, h) + h / 2
    X, Y, Z = np.meshgrid(xs, ys, zs, indexing="ij")
    P = np.stack([X, Y, Z], -1)

    def plate_at(center, R):
        local = (P - center) @ R  # p_local = R^T (p - c)
        inside = np.all(np.abs(local) <= np.array(BOX) / 2, axis=-1)
        return inside & (local[..., 0] ** 2 + local[..., 1] ** 2 > BORE**2)

    rod = (np.abs(X) <= ROD[1] / 2) & (Y**2 + Z**2 <= ROD[0] ** 2)
    solid = plate_at(np.array([-D, 0, 0]), np.eye(3)) | rod
    solid |= plate_at(np.array([D, 0, 0]), rot_x(-ALPHA))
    p = P[solid]
    dm = RHO * h**3
    m = dm * len(p)
    c = p.mean(axis=0)
    r = p - c
    I = dm * (np.sum(r * r) * np.eye(3) - r.T @ r)
    return m, c, I


def main(outdir: str = "out/course/notes002") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    a, b, c = link()
    whole = a + b + c
    np.set_printoptions(precision=6, suppress=True)
    for name, part in (("A", a), ("B", b), ("C", c)):
        print(f"body {name}: m = {part.mass:.5f} kg, centre {part.com} m")
    print(
        f"link: m = {whole.mass:.5f} kg, centre of mass {whole.com} m   (course notes 002, "
        "'Inertia Tensor - Robotic Links'; the slides give symbols, these are our numbers)"
    )
    print(f"inertia about the centre of mass (kg m^2):\n{whole.inertia}")
    m, com, I = voxel_inertia()
    print(f"voxel integration (1 mm): m = {m:.5f} kg, centre {com}, inertia:\n{I}")
    moments, axes = whole.principal()
    print(f"principal moments {moments} kg m^2")
    (out / "link_inertia.txt").write_text(np.array2string(whole.inertia) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:2])
