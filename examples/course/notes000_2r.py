"""Course notes 000: the 2R arm with point masses at the link tips (theta2 relative).

Prints M, c and g at a configuration beside the notes' closed forms, the torques of the
centripetal and Coriolis cases at theta = (0, pi/2) (zero gravity, zero joint
accelerations), and draws the torque ellipses of M for the unit arm and the end-effector
force ellipses (apparent mass Lambda) over the arm.

    python examples/course/notes000_2r.py [outdir]     (default ./out/course/notes000)
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np

import robodyn as rd
from robodyn.inertia import point
from robodyn.sim.plot import plot_ellipses


def point_mass_2r(m1, m2, L1, L2, g=9.81):
    """The notes' arm: point masses at the link tips, gravity along -y, a tip frame "ee"."""
    T2 = np.eye(4)
    T2[0, 3] = L1
    Te = np.eye(4)
    Te[0, 3] = L2
    return (
        rd.ModelBuilder(name="2r_point_masses", gravity=(0.0, -g, 0.0))
        .add_body("link1", "world", axis=(0, 0, 1), inertia=point(m1, (L1, 0, 0)))
        .add_body("link2", "link1", axis=(0, 0, 1), T=T2, inertia=point(m2, (L2, 0, 0)))
        .add_frame("ee", "link2", T=Te)
        .build()
    )


def main(outdir: str = "out/course/notes000") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    m1, m2, L1, L2 = 1.0, 1.0, 1.0, 1.0
    arm = point_mass_2r(m1, m2, L1, L2)
    still = dataclasses.replace(arm, gravity=np.zeros(3))
    th = np.array([0.0, np.pi / 2])
    np.set_printoptions(precision=4, suppress=True)
    print(f"M(0, 90 deg) = {rd.mass_matrix(arm, th).tolist()}")
    print("  (notes at c2 = 0: [[m1 L1^2 + m2 (L1^2 + L2^2), m2 L2^2], [m2 L2^2, m2 L2^2]])")
    for w in ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0)):
        tau = rd.inverse_dynamics(still, th, np.array(w), np.zeros(2))
        acc = rd.jacobian_dot(arm, th, np.array(w), "ee", kind="world_aligned")[3:5] @ w
        print(f"theta_dot = {w}: mass-2 acceleration {acc} m/s^2, torques {tau} N m")
    qs = np.radians([[0, 45], [0, 90], [0, 135]])
    # this script's own figures: a new run replaces them (overwrite=True)
    plot_ellipses(arm, qs, path=out / "torque_ellipses.png", overwrite=True)
    plot_ellipses(arm, np.radians([[0, 30], [45, 90], [-30, 120], [90, -45]]), kind="force",
                  path=out / "force_ellipses.png", overwrite=True)  # fmt: skip
    print(f"figures: {out / 'torque_ellipses.png'}, {out / 'force_ellipses.png'}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
