"""Course notes 004: the compound object (a cylinder and a box, dimensions of our own:
cylinder radius 0.1 m, height 0.2 m, 2 kg; box 0.3 x 0.1 x 0.1 m, 1 kg, touching it along
x), its centre of mass, its inertia there, and its spatial inertia in the frame {a} of
the cylinder by G_a = [Ad_T_ba]^T G_b [Ad_T_ba].

    python examples/course/notes004_compound.py [outdir]     (default ./out/course/notes004)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import robodyn as rd
from robodyn.inertia import box, cylinder


def main(outdir: str = "out/course/notes004") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    np.set_printoptions(precision=5, suppress=True)
    body = cylinder(mass=2.0, radius=0.1, length=0.2, axis="z") + box(
        mass=1.0, size=(0.3, 0.1, 0.1)
    ).moved(p=[0.25, 0, 0])
    print(
        f"mass {body.mass} kg, centre of mass {body.com} m (by hand: 0.25 / 3 along x; "
        "course notes 004, the compound-object exercise)"
    )
    print(f"inertia at the centre of mass (kg m^2):\n{body.inertia}")
    G_b = body.moved(p=-body.com).spatial()
    Ad = rd.adjoint(rd.transform(None, -body.com))
    G_a = Ad.T @ G_b @ Ad
    print(f"G_a = [Ad_T_ba]^T G_b [Ad_T_ba]:\n{G_a}")
    print(
        f"robodyn's spatial inertia at {{a}} agrees: {np.allclose(body.spatial_at_origin(), G_a)}"
    )
    (out / "G_a.txt").write_text(np.array2string(G_a) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:2])
