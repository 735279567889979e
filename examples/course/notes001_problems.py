"""Course notes 001 (the "Robot Dynamics" chapter), problems worked with robodyn.

Problem 4: a PR arm of our own (slider mass 2 kg; link 1.5 kg, I 0.08 kg m^2, centre at
0.35 m): M, c and g at a state, numeric and symbolic. Problem 5: a steel tube. Problem 6:
the inertia moved to another frame. Problem 7: the steel barbell. Problems 11-12: a mass
on the unit sphere, its multiplier and the projection P of (10.19).

    python examples/course/notes001_problems.py [outdir]     (default ./out/course/notes001)
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

import robodyn as rd
from robodyn.constrained import constraint_projections, kkt_solve
from robodyn.inertia import RigidInertia, cylinder, sphere


def main(outdir: str = "out/course/notes001") -> None:
    out = Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    np.set_printoptions(precision=5, suppress=True)
    lines = []

    def say(text):
        print(text)
        lines.append(text)

    # problem 4: the PR arm
    arm = (
        rd.ModelBuilder(name="pr_arm", gravity=(0.0, -9.81, 0.0))
        .add_body("slider", "world", joint_type="prismatic", axis=(1, 0, 0),
                  inertia=RigidInertia(2.0, np.zeros(3), np.diag([0.01, 0.01, 0.01])))
        .add_body("link", "slider", axis=(0, 0, 1),
                  inertia=RigidInertia(1.5, [0.35, 0.0, 0.0], np.diag([0.02, 0.06, 0.08])))
        .build()
    )  # fmt: skip
    q, qd = np.array([0.2, np.radians(40)]), np.array([0.5, 1.2])
    say(f"problem 4 (course notes 001, problems), PR arm at q = {q}: M =\n{rd.mass_matrix(arm, q)}")
    say(f"  c(q, qd) = {rd.velocity_forces(arm, q, qd)} (by hand: [-m2 r2 cos q2 qd2^2, 0])")
    say(f"  g(q) = {rd.gravity_forces(arm, q)} (by hand: [0, m2 a_g r2 cos q2])")
    eom = rd.symbolic.derive(arm, parameters="symbolic")
    say(f"  symbolic M11 = {eom.M[0, 0]}, M12 = {eom.M[0, 1]}")
    # problem 5: a steel tube, L = 0.5 m, d1 = 0.04 m, d2 = 0.06 m
    tube = cylinder(density=7850.0, radius=0.03, length=0.5) - cylinder(
        density=7850.0, radius=0.02, length=0.5
    )
    say(f"problem 5, tube: m = {tube.mass:.4f} kg, I = diag{np.diag(tube.inertia)} kg m^2")
    # problem 6: I1 = diag(1, 2, 3) moved to x-y-z (r1 = (3, 0, 2), R1 = Rz(90 deg)), m = 1
    R1 = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    body = RigidInertia(1.0, [0, 0, 0], np.diag([1.0, 2.0, 3.0])).moved(R1, -R1 @ [3.0, 0, 2])
    say(f"problem 6, about the origin of x-y-z (m = 1 kg):\n{body.about([0, 0, 0])}")
    # problem 7: the barbell
    ball = sphere(density=7850.0, radius=0.1)
    bar = cylinder(density=7850.0, radius=0.02, length=0.2, axis="x")
    barbell = ball.moved(p=[0.2, 0, 0]) + ball.moved(p=[-0.2, 0, 0]) + bar
    say(f"problem 7, barbell: m = {barbell.mass:.3f} kg, principal moments "
        f"{barbell.principal()[0]} kg m^2")  # fmt: skip
    # problems 11-12: a mass on the unit sphere
    m, qs = 1.7, np.array([0.3, -0.5, np.sqrt(1 - 0.34)])
    v = np.cross(qs, [0.2, 0.7, -0.4])
    u = np.array([0.9, -1.1, 0.4])
    qdd, lam = kkt_solve(m * np.eye(3), np.zeros(3), u, qs, [v @ v])
    _, P = constraint_projections(m * np.eye(3), qs)
    say(f"problem 11: qdd = {qdd}, lambda = {lam} (by hand -(m |qd|^2 + q.u) = "
        f"{-(m * v @ v + qs @ u):.5f})")  # fmt: skip
    say(f"problem 12: P = 1 - q q^T =\n{P}")
    (out / "answers.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:2])
