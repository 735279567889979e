"""Configuration space (MR ch. 2): counting degrees of freedom.

* :func:`grubler`: Grübler's formula (MR eq. 2.4) for a mechanism of N links (the ground
  counted as a link) and J joints, joint i with f_i freedoms::

      dof = m (N - 1 - J) + sum_i f_i,      m = 3 (planar) or 6 (spatial)

  It counts what the constraints leave when they are independent; a mechanism whose
  constraints are redundant (an overconstrained linkage, a parallelogram) has more
  freedom than the formula says, and a negative count means a structure that is
  overconstrained beyond rigid.
* :data:`JOINT_FREEDOMS`: the freedoms f of the joints of MR Table 2.1.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["grubler", "JOINT_FREEDOMS"]

#: Freedoms f of each joint type (MR table 2.1; constraints c = m - f).
JOINT_FREEDOMS = {
    "revolute": 1,  # R
    "prismatic": 1,  # P
    "helical": 1,  # H
    "cylindrical": 2,  # C
    "universal": 2,  # U
    "spherical": 3,  # S
    "planar": 3,  # a planar joint in space (not in MR's table; the chassis of a mobile base)
}
_LETTERS = {"R": "revolute", "P": "prismatic", "H": "helical", "C": "cylindrical",
            "U": "universal", "S": "spherical"}  # fmt: skip


def _freedom(j, planar: bool) -> int:
    if isinstance(j, str):
        name = _LETTERS.get(j, j.lower())
        if name not in JOINT_FREEDOMS:
            raise ValueError(
                f"joint_freedoms: unknown joint {j!r}; use an integer or one of "
                f"{sorted(JOINT_FREEDOMS)} or the letters R P H C U S"
            )
        f = JOINT_FREEDOMS[name]
    else:
        f = int(j)
        if f != j:
            raise ValueError(f"joint_freedoms: {j!r} is not a whole number of freedoms")
    m = 3 if planar else 6
    if not 1 <= f <= m - 1:
        raise ValueError(f"joint_freedoms: a joint has 1 to {m - 1} freedoms in "
                         f"{'the plane' if planar else 'space'}, got {f}")  # fmt: skip
    return f


def grubler(n_links: int, joint_freedoms: Iterable, planar: bool = False) -> int:
    """Degrees of freedom of a mechanism by Grübler's formula (MR eq. 2.4).

    Parameters
    ----------
    n_links : int
        N, the number of links, the ground included.
    joint_freedoms : iterable of int or str
        The freedoms f_i of each joint, as numbers or joint names / MR's letters
        ("R", "P", "H", "C", "U", "S"; ``"revolute"``, ...). A string of letters such as
        ``"RRRR"`` lists one joint per letter.
    planar : bool
        A planar mechanism (m = 3) rather than a spatial one (m = 6).

    Returns
    -------
    int
        ``m (N - 1 - J) + sum f_i``; a lower bound when constraints are redundant.

    Examples
    --------
    >>> grubler(4, "RRRR", planar=True)  # a four-bar linkage
    1
    >>> grubler(14, "UPS" * 6)  # the Stewart-Gough platform
    6
    """
    N = int(n_links)
    if N != n_links or N < 1:
        raise ValueError(
            f"n_links must be a whole number >= 1 (the ground counts), got {n_links!r}"
        )
    fs = [_freedom(j, planar) for j in joint_freedoms]  # a string: one joint per letter
    m = 3 if planar else 6
    return m * (N - 1 - len(fs)) + sum(fs)
