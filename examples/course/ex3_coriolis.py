"""Course notes 003, Exercise 3: Coriolis and centrifugal effects on the lesson's arm.

At q = (45, 60) deg with only joint 1 moving (qdot = (2, 0)), the torque on joint 2 is
h qdot1^2 with h = m2 l1 lc2 sin(theta2): swinging link 1 whirls link 2 outward, which
turns it about joint 2. dM/dt - 2C is skew-symmetric (the velocity forces do no work).

    python examples/course/ex3_coriolis.py [outdir]     (default ./out/course/ex3)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from matplotlib.figure import Figure

import robodyn as rd


def main(outdir: str = "out/course/ex3") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    arm = rd.models.load("planar_2r")
    q, qd = np.radians([45.0, 60.0]), np.array([2.0, 0.0])
    c = rd.velocity_forces(arm, q, qd)
    print(f"3.1 C(q, qdot) qdot = {(c.round(5) + 0.0).tolist()} N m; Coriolis torque on joint 2: "
          f"{c[1]:.5f} N m = h qdot1^2, h = m2 l1 lc2 sin(theta2) = 0.3 sin 60 deg   "
          f"(course notes 003, Exercise 3; C as in 'Coriolis and Centrifugal Terms')")  # fmt: skip
    rng = np.random.default_rng(3)
    for _ in range(3):
        q3, qd3 = rng.uniform(-np.pi, np.pi, 2), rng.normal(size=2)
        S = rd.mass_matrix_dot(arm, q3, qd3) - 2 * rd.coriolis_matrix(arm, q3, qd3)
        print(
            f"3.3 q = {np.degrees(q3).round(1)} deg: |S + S^T| = {np.abs(S + S.T).max():.1e} "
            "(S = dM/dt - 2C skew-symmetric, course notes 003, 'The Skew-Symmetry Property')"
        )
    t2 = np.radians(np.arange(-180, 181))
    Q = np.stack([np.full_like(t2, q[0]), t2], -1)
    C = rd.velocity_forces(arm, Q, np.broadcast_to(qd, Q.shape))
    fig = Figure(figsize=(8, 4), layout="constrained")
    ax = fig.subplots()
    ax.plot(np.degrees(t2), C[:, 1], label="joint 2, qdot = (2, 0) rad/s")
    ax.plot(np.degrees(t2), C[:, 0], label="joint 1, qdot = (2, 0) rad/s")
    ax.set_xlabel("theta2 (deg)")
    ax.set_ylabel("velocity torque C(q, qdot) qdot (N m)")
    ax.set_title("Centrifugal torque of joint 1's motion on the 2-link arm")
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    fig.savefig(out / "coriolis.png", dpi=100)
    print(f"figure: {out / 'coriolis.png'}")


if __name__ == "__main__":
    main(*sys.argv[1:2])
