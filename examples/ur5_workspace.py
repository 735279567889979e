"""Workspace, manipulability maps, singularities and all IK solutions of the UR5 (MR ch. 5, 6).

8,000 random configurations within the limits give the reachable positions of the
tool and MR sec. 5.4's measures there (a 3-D map of the manipulability mu_3 and a slice
at the shoulder's height coloured by the isotropy mu_1); a joint path through q5 = 0 is
searched for singular configurations (the wrist singularity: axes 4 and 6 line up); and
one pose is solved for all eight of its inverse-kinematics solutions, then as a batch.

    python examples/ur5_workspace.py [outdir]        (default ./out/ur5_workspace)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import robodyn as rd


def main(outdir: str = "out/ur5_workspace") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    np.set_printoptions(precision=3, suppress=True)
    model = rd.models.load("ur5")

    ws = rd.workspace(model, "ee", n=8000, rng=0)
    print(f"reach {ws.reach:.3f} m, convex hull {ws.hull().volume:.2f} m^3, "
          f"median isotropy mu_1 {np.median(ws.isotropy):.1f}")  # fmt: skip
    # this script's own figures: a new run replaces them (overwrite=True)
    ws.plot("manipulability", out / "workspace_manipulability.png", overwrite=True)
    ws.plot_slice("isotropy", out / "workspace_slice_isotropy.png", axis="z", value=0.09,
                  overwrite=True)  # fmt: skip

    qa = np.array([0.3, -1.0, 1.2, -0.5, -0.4, 0.2])
    qb = np.array([0.6, -1.0, 1.2, -0.5, 0.5, -0.3])
    for s in rd.singularities(model, "ee", np.linspace(qa, qb, 41)):
        print(s)

    q_true = np.array([0.5, -1.1, 1.3, -0.6, 0.9, 0.4])
    T = rd.fk(model, q_true, "ee")
    sols = rd.ik_all(model, "ee", T)
    print(f"{len(sols)} solutions of one pose (shoulder x elbow x wrist):\n{sols}")
    Ts = rd.fk(model, rd.random_configuration(model, 1, size=200), "ee")
    res = rd.ik(model, "ee", Ts)  # a batch of 200 poses at once
    print(f"batch IK: {res.success.sum()} of {res.success.size} solved, "
          f"median {np.median(res.iterations):.0f} iterations")  # fmt: skip
    np.savez(out / "ur5_workspace.npz", points=ws.points, manipulability=ws.manipulability,
             solutions=sols)  # fmt: skip


if __name__ == "__main__":
    main(*sys.argv[1:])
