"""Grübler's formula (MR ch. 2, eq. 2.4) on the book's mechanisms: N links with the ground,
J joints, the degrees of freedom typed from the book's examples."""

from __future__ import annotations

import pytest

import robodyn as rd

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
