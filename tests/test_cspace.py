"""Grübler's formula (MR ch. 2, eq. 2.4) on the book's mechanisms: N links with the ground,
J joints, the degrees of freedom typed from the book's examples."""

from __future__ import annotations

import pytest
import sympy as sp

import robodyn as rd
from robodyn.symbolic import classify_constraints, is_holonomic

# (mechanism, N, joints, planar, dof)
BOOK = [
    ("four-bar linkage", 4, "RRRR", True, 1),
    ("slider-crank", 4, "RRRP", True, 1),
    ("k-link planar serial chain, k = 5", 6, "RRRRR", True, 5),
    ("five-bar linkage", 5, "RRRRR", True, 2),
    ("Stephenson six-bar", 6, "R" * 7, True, 1),
    ("Watt six-bar", 6, "R" * 7, True, 1),
    ("3xRPR planar parallel mechanism", 8, "RPR" * 3, True, 3),
    ("3xRRR planar parallel mechanism", 8, "RRR" * 3, True, 3),
    ("Stewart-Gough platform, 6xUPS", 14, "UPS" * 6, False, 6),
    # 6xSPS: 12 by the formula, of which 6 are the legs spinning about their own axes
    ("Stewart-Gough platform, 6xSPS", 14, "SPS" * 6, False, 12),
    ("6R spatial open chain", 7, "R" * 6, False, 6),
    # MR example 2.7: two platforms and three legs of 3 R, 4 S and 5 links each; 3 of the 15
    # freedoms move the platform, 12 spin the parallelograms' rods about their axes
    ("Delta robot", 17, "RRRSSSS" * 3, False, 15),
]


@pytest.mark.parametrize("name, N, joints, planar, dof", BOOK, ids=[b[0] for b in BOOK])
def test_grubler_on_the_books_mechanisms(name, N, joints, planar, dof):
    assert rd.grubler(N, joints, planar=planar) == dof
    # the same with the freedoms as numbers
    f = [rd.cspace.JOINT_FREEDOMS[{"R": "revolute", "P": "prismatic", "U": "universal",
                                    "S": "spherical"}[j]] for j in joints]  # fmt: skip
    assert rd.grubler(N, f, planar=planar) == dof


def test_grubler_undercounts_redundant_constraints():
    # a parallelogram four-bar with a fifth link parallel to two of its sides: N = 5,
    # J = 6 gives 0, yet it moves (1 dof): the constraints are not independent (MR ch. 2)
    assert rd.grubler(5, "R" * 6, planar=True) == 0


@pytest.mark.parametrize(
    "args, match",
    [
        ((0, "RR"), "n_links"),
        ((4, "RRXR"), "unknown joint 'X'"),
        ((4, [1, 1, 3, 1], True), "1 to 2 freedoms in the plane"),
        ((4, [1, 1.5]), "whole number"),
    ],
)
def test_bad_input_names_the_argument(args, match):
    with pytest.raises(ValueError, match=match):
        rd.grubler(*args)


# ------------------------------------------- holonomic and nonholonomic constraint sets
_x, _y, _phi, _th, _r, _d = sp.symbols("x y phi theta r d", positive=True)
_tl, _tr = sp.symbols("theta_l theta_r")
CONSTRAINT_SETS = [
    # (name, A, q, (rank, closure, holonomic, nonholonomic)), each worked by hand:
    # MR sec. 2.4's rolling coin, q = (x, y, phi, theta): xdot = r thetadot cos(phi),
    # ydot = r thetadot sin(phi); it reaches every (x, y, phi, theta): both nonholonomic
    ("rolling coin", [[1, 0, 0, -_r * sp.cos(_phi)], [0, 1, 0, -_r * sp.sin(_phi)]],
     [_x, _y, _phi, _th], (2, 4, 0, 2)),
    # the knife edge / unicycle chassis of course notes 001, q = (phi, x, y): no side slip
    ("knife edge", [[0, sp.sin(_phi), -sp.cos(_phi)]], [_phi, _x, _y], (1, 3, 0, 1)),
    # a diff drive with its wheel angles, q = (phi, x, y, theta_l, theta_r): no side slip and
    # two rolling rows; phi = r (theta_r - theta_l) / (2 d) + const integrates (MR ch. 13)
    ("diff drive with wheel angles",
     [[0, -sp.sin(_phi), sp.cos(_phi), 0, 0],
      [-_d, sp.cos(_phi), sp.sin(_phi), -_r, 0],
      [_d, sp.cos(_phi), sp.sin(_phi), 0, -_r]],
     [_phi, _x, _y, _tl, _tr], (3, 4, 1, 2)),
    # xdot + ydot = 0 is d(x + y) = 0: holonomic
    ("exact differential", [[0, 1, 1]], [_phi, _x, _y], (1, 2, 1, 0)),
    # y xdot - x ydot = 0 (a non-exact multiple of d(y / x)): still holonomic
    ("integrating factor", [[0, _y, -_x]], [_phi, _x, _y], (1, 2, 1, 0)),
    # two independent rows pin x and phi; a repeated row adds nothing
    ("two holonomic rows and a repeat", [[1, 0, 0], [0, 1, 0], [2, 0, 0]], [_phi, _x, _y],
     (2, 1, 2, 0)),
]  # fmt: skip


@pytest.mark.parametrize("name, A, q, want", CONSTRAINT_SETS, ids=[c[0] for c in CONSTRAINT_SETS])
def test_constraint_sets_are_classified(name, A, q, want):
    got = classify_constraints(A, q)
    assert (got.rank, got.closure, got.holonomic, got.nonholonomic) == want
    assert got.n == len(q)
    if len(A) == 1:  # one constraint: the Frobenius test a ^ da = 0 says the same
        assert is_holonomic(A[0], q) == (got.holonomic == 1)


def test_constraint_classification_names_a_bad_width():
    with pytest.raises(ValueError, match="A must have 3 columns"):
        classify_constraints([[1, 0]], [_phi, _x, _y])
