"""Course notes 003, Exercise 2: the inertia matrix of the lesson's 2-link arm (planar_2r).

M(q) at theta2 = 0, 90, 180 deg (theta1 = 0) and its eigenvalues; M11 over theta2 (largest
stretched out, smallest folded: the second link's mass is farthest from joint 1 when the
arm is straight); symmetry and positive definiteness at 100 random configurations.

    python examples/course/ex2_inertia_matrix.py [outdir]     (default ./out/course/ex2)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

import robodyn as rd


def main(outdir: str = "out/course/ex2") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    arm = rd.models.load("planar_2r")
    for deg in (0, 90, 180):  # the lesson prints M to 4 decimals
        M = rd.mass_matrix(arm, [0.0, np.radians(deg)])
        lam = np.linalg.eigvalsh(M)
        print(f"2.1 theta2 = {deg:3d} deg: M = {(M.round(4) + 0.0).tolist()}, "
              f"2.2 eigenvalues {(lam.round(4) + 0.0).tolist()} kg m^2   "
              f"(course notes 003, Exercise 2; M as in 'Inertia Matrix')")  # fmt: skip
    print("Inertia variation with theta2:   (as in course notes 003, 'Inertia Matrix Properties')")
    for t2_deg in (0, 30, 60, 90, 120, 150, 180):
        M = rd.mass_matrix(arm, [0.0, np.radians(t2_deg)])
        print(f"  theta2={t2_deg:>3d} deg: M11={M[0, 0]:.4f}, M12={M[0, 1]:.4f}, "
              f"M22={M[1, 1]:.4f}")  # fmt: skip
    t2 = np.radians(np.arange(-180, 181))
    M = rd.mass_matrix(arm, np.stack([np.zeros_like(t2), t2], -1))
    print(f"2.3 M11 largest at theta2 = {np.degrees(t2[np.argmax(M[:, 0, 0])]):.0f} deg, "
          f"smallest at {abs(np.degrees(t2[np.argmin(M[:, 0, 0])])):.0f} deg")  # fmt: skip
    Q = np.random.default_rng(0).uniform(-np.pi, np.pi, (100, 2))
    lam = np.linalg.eigvalsh(rd.mass_matrix(arm, Q))
    print(f"2.4 100 random configurations: smallest eigenvalue {lam.min():.4f} kg m^2 (> 0)")
    fig = Figure(figsize=(8, 4), layout="constrained")
    ax = fig.subplots()
    for (i, j), name in (((0, 0), "M11"), ((0, 1), "M12"), ((1, 1), "M22")):
        ax.plot(np.degrees(t2), M[:, i, j], label=name)
    ax.set_xlabel("theta2 (deg), theta1 = 0")
    ax.set_ylabel("inertia (kg m^2)")
    ax.set_title("Mass matrix of the 2-link arm against the elbow angle")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    fig.savefig(out / "mass_matrix.png", dpi=100)
    print(f"figure: {out / 'mass_matrix.png'}")
    from robodyn.sim.plot import plot_ellipses

    # overwrite=True: this script's own figure, which a new run replaces
    plot_ellipses(arm, np.radians([[0, 0], [0, 90], [0, 180]]), path=out / "torque_ellipses.png",
                  overwrite=True)  # fmt: skip
    print(f"figure: {out / 'torque_ellipses.png'}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
