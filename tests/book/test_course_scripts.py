"""Every script in examples/course/ (and examples/two_link_arm.py, the lesson's walk-through)
prints the numbers the course notes print, to the notes' rounding.

Where a text prints a number (course notes 003's code prints its results), the number is
typed in below from the text as its code prints it. Where a text gives a closed form
and no number (notes 000's M, c, g, notes 003's exercises), the closed form is typed in
here and evaluated at the script's state, then rounded as the script prints it.
"""

from __future__ import annotations

import runpy
import sys
from math import cos, radians, sin, sqrt
from pathlib import Path

import numpy as np
import pytest
from scipy.special import ellipk

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
COURSE = sorted((EXAMPLES / "course").glob("*.py"))


def run(script: Path, tmp_path, monkeypatch, capsys, *args: str) -> str:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", [str(script), str(tmp_path / "out"), *args])
    runpy.run_path(str(script), run_name="__main__")
    return capsys.readouterr().out


def r(x, digits=4) -> str:
    """A value as the scripts print it: rounded, in a (nested) list."""
    return str((np.round(np.asarray(x, dtype=float), digits) + 0.0).tolist())


def lesson_M(t2, m1=5.0, m2=3.0, l1=0.5, lc1=0.25, lc2=0.2, I1=0.1, I2=0.05):
    """Course notes 003, 'Inertia Matrix' (typed in)."""
    a = m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * cos(t2)) + I1 + I2
    b = m2 * (lc2**2 + l1 * lc2 * cos(t2)) + I2
    return np.array([[a, b], [b, m2 * lc2**2 + I2]])


def test_every_course_script_is_checked_here():
    checked = {"ex1_single_link", "ex2_inertia_matrix", "ex3_coriolis", "ex4_controllers",
               "ex5_newton_euler", "notes000_2r", "notes001_problems", "notes002_link",
               "notes004_compound"}  # fmt: skip
    assert {p.stem for p in COURSE} == checked


def test_ex1_the_pendulum_snippet_and_exercise_1(tmp_path, monkeypatch, capsys):
    out = run(EXAMPLES / "course/ex1_single_link.py", tmp_path, monkeypatch, capsys)
    # course notes 003's snippet prints these three lines (m = 2, l = 0.5, theta = 45 deg)
    for line in ("Inertia: 0.5000 kg*m^2", "Gravity torque at 45 deg: 6.9367 N*m",
                 "To hold position (tau = g_term): 6.9367 N*m"):  # fmt: skip
        assert line in out
    m, lc, I, g = 2.0, 0.25, 0.02, 9.81  # Exercise 1
    assert "(I + lc**2*m) theta_dd + g*lc*m*sin(theta) = tau" in out
    assert f"I + m lc^2 = {I + m * lc**2:.3f} kg m^2" in out
    for deg in (0, 45, 90):
        assert f"gravity torque at {deg:2d} deg: {m * g * lc * sin(radians(deg)):.4f} N m" in out
    assert f"holding torque at 45 deg: {m * g * lc * sin(radians(45)):.4f} N m" in out
    period = 4 * sqrt((I + m * lc**2) / (m * g * lc)) * ellipk(sin(radians(45)) ** 2)
    assert f"period (elliptic integral) {period:.4f} s" in out


def test_ex2_the_inertia_table_and_exercise_2(tmp_path, monkeypatch, capsys):
    out = run(EXAMPLES / "course/ex2_inertia_matrix.py", tmp_path, monkeypatch, capsys)
    # course notes 003, "Inertia variation with theta2", as its code prints it
    table = """\
  theta2=  0 deg: M11=1.9325, M12=0.4700, M22=0.1700
  theta2= 30 deg: M11=1.8521, M12=0.4298, M22=0.1700
  theta2= 60 deg: M11=1.6325, M12=0.3200, M22=0.1700
  theta2= 90 deg: M11=1.3325, M12=0.1700, M22=0.1700
  theta2=120 deg: M11=1.0325, M12=0.0200, M22=0.1700
  theta2=150 deg: M11=0.8129, M12=-0.0898, M22=0.1700
  theta2=180 deg: M11=0.7325, M12=-0.1300, M22=0.1700"""
    assert table in out
    for deg in (0, 90, 180):
        M = lesson_M(radians(deg))
        assert (
            f"theta2 = {deg:3d} deg: M = {r(M)}, 2.2 eigenvalues {r(np.linalg.eigvalsh(M))}" in out
        )
    assert "M11 largest at theta2 = 0 deg, smallest at 180 deg" in out


def test_ex3_the_coriolis_torque_on_joint_2(tmp_path, monkeypatch, capsys):
    out = run(EXAMPLES / "course/ex3_coriolis.py", tmp_path, monkeypatch, capsys)
    h = 3.0 * 0.5 * 0.2 * sin(radians(60))  # h = m2 l1 lc2 sin(theta2), qdot = (2, 0)
    assert f"Coriolis torque on joint 2: {h * 2.0**2:.5f} N m" in out


def test_ex4_the_lessons_controller_errors(tmp_path, monkeypatch, capsys):
    out = run(EXAMPLES / "course/ex4_controllers.py", tmp_path, monkeypatch, capsys)
    # course notes 003 prints these (PD 2 s, computed torque 1 s, its rounding)
    assert "PD only:         joint1=36.58, joint2=9.91 after 2 s" in out
    assert "PD + gravity:    joint1=0.13, joint2=0.08 after 2 s" in out
    assert "Computed torque: joint1=0.0248, joint2=0.0165 after 1 s" in out


def test_ex5_the_lessons_newton_euler_comparison(tmp_path, monkeypatch, capsys):
    out = run(EXAMPLES / "course/ex5_newton_euler.py", tmp_path, monkeypatch, capsys, "4")
    # course notes 003 prints EL [21.7669 1.9393], NE [27.2421 1.9393], Match: False
    assert "Euler-Lagrange torques: [21.7669, 1.9393] N m" in out
    assert "Newton-Euler torques, as printed: [27.2421, 1.9393] N m, Match: False" in out
    assert "corrected (robodyn's RNEA): [21.7669, 1.9393] N m, Match: True" in out
    for n in (2, 3, 4):
        line = next(s for s in out.splitlines() if s.startswith(f"n = {n:2d}:"))
        assert float(line.split("difference ")[1].split()[0]) < 1e-10
    assert out.count("fit t ~ n^p") == 4 and "to c n^4" in out


def test_two_link_arm_prints_the_lessons_demo(tmp_path, monkeypatch, capsys):
    out = run(EXAMPLES / "two_link_arm.py", tmp_path, monkeypatch, capsys)
    # course notes 003's demo at q = (45, 30) deg, q_dot = (0.5, -0.3), as it prints them
    assert "Configuration: q = [45, 30] deg" in out
    assert "Inertia matrix M = [[1.8521, 0.4298], [0.4298, 0.17]]" in out
    assert "Coriolis matrix C = [[0.045, -0.03], [0.075, 0.0]]" in out
    assert "Gravity vector g = [20.5994, 1.5234]" in out
    assert "Torques to hold position = [20.5994, 1.5234]" in out
    assert "M_dot - 2C = [[0.0, 0.225], [-0.225, 0.0]], skew-symmetric: True" in out
    assert "Energy drift over 2s: 0.00%, Final configuration: q = [90.0, 0.0] deg" in out


def test_notes000_prints_the_notes_closed_forms(tmp_path, monkeypatch, capsys):
    out = run(EXAMPLES / "course/notes000_2r.py", tmp_path, monkeypatch, capsys)
    m1 = m2 = L1 = L2 = 1.0
    g = 9.81
    t1, t2 = radians(30), radians(45)
    d1, d2 = 1.0, -2.0
    c2, s2, c12 = cos(t2), sin(t2), cos(t1 + t2)
    # course notes 000, "Equations of Motion", typed in
    M = [[m1 * L1**2 + m2 * (L1**2 + L2**2 + 2 * L1 * L2 * c2), m2 * (L2**2 + L1 * L2 * c2)],
         [m2 * (L2**2 + L1 * L2 * c2), m2 * L2**2]]  # fmt: skip
    c = [-m2 * L1 * L2 * s2 * (2 * d1 * d2 + d2**2), m2 * L1 * L2 * s2 * d1**2]
    gv = [(m1 * L1 + m2 * L1) * g * cos(t1) + m2 * L2 * g * c12, m2 * L2 * g * c12]
    assert f"M(theta) = {r(M)} kg m^2" in out
    assert f"c(theta, theta_dot) = {r(c)} N m" in out
    assert f"g(theta) = {r(gv)} N m" in out
    J = np.array([[-L1 * sin(t1) - L2 * sin(t1 + t2), -L2 * sin(t1 + t2)],
                  [L1 * cos(t1) + L2 * c12, L2 * c12]])  # fmt: skip
    assert f"J^T(theta) F_tip for F_tip = [1.0, 2.0] N: {r(J.T @ [1.0, 2.0])} N m" in out
    Jinv = np.linalg.inv(J)
    assert f"Lambda(theta) = J^-T M J^-1 = {r(Jinv.T @ np.array(M) @ Jinv)} kg" in out
    # theta = (0, pi/2): velocity-product part of mass 2's acceleration, corrected
    for w1, w2 in ((1.0, 0.0), (0.0, 1.0), (1.0, 1.0)):
        acc = [-L1 * w1**2, -L2 * (w1 + w2) ** 2]
        assert f"theta_dot = {(w1, w2)}: mass-2 acceleration {r(acc)} m/s^2" in out
    assert "the notes print [-1.0, -6.0]: erratum" in out
    # m(x) = 1 + x^2, x = 0.5, xdot = 2: m' = 2x = 1, m' xdot^2 / 2 = 2 N; dp/dt = m' xdot^2
    assert "f = 2.0000 N (Lagrange" in out and "the notes' f = dp/dt = 4.0000 N" in out


def test_notes001_notes002_notes004_print_their_numbers(tmp_path, monkeypatch, capsys):
    out = run(EXAMPLES / "course/notes004_compound.py", tmp_path, monkeypatch, capsys)
    assert "mass 3.0 kg" in out and "agrees: True" in out
    out = run(EXAMPLES / "course/notes002_link.py", tmp_path, monkeypatch, capsys)
    assert out.count("body ") == 3 and "principal moments" in out
    out = run(EXAMPLES / "course/notes001_problems.py", tmp_path, monkeypatch, capsys)
    tube = 7850.0 * np.pi * (0.03**2 - 0.02**2) * 0.5  # problem 5: rho pi (r2^2 - r1^2) L
    assert f"problem 5, tube: m = {tube:.4f} kg" in out


@pytest.mark.parametrize("script", COURSE, ids=[p.stem for p in COURSE])
def test_every_number_says_where_it_is_from(script, tmp_path, monkeypatch, capsys):
    args = ("3",) if script.stem == "ex5_newton_euler" else ()
    out = run(script, tmp_path, monkeypatch, capsys, *args)
    assert "course notes 00" in out, script.stem


def test_the_course_readme_names_existing_scripts_and_tests():
    """examples/course/README.md: every script, test and tutorial it names exists."""
    import re

    root = EXAMPLES.parent
    readme = (EXAMPLES / "course/README.md").read_text()
    sources = "\n".join(p.read_text() for p in (root / "tests").rglob("test_*.py"))
    names = set(re.findall(r"::(\w+)`", readme)) | set(re.findall(r", `::(\w+)`", readme))
    assert len(names) > 60
    missing = [n for n in names if f"def {n}(" not in sources]
    assert not missing, missing
    for script in re.findall(r"`((?:\.\./)?\w+\.py)`", readme):
        if script.startswith(("ch0", "ch1", "test_")):
            continue
        assert (EXAMPLES / "course" / script).resolve().is_file(), script
    for tutorial in set(re.findall(r"`(?:topics/)?(ch\w+\.py)`", readme)):
        assert (root / "docs/tutorials/course" / tutorial).is_file(), tutorial
