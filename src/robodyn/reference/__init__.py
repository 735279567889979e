"""Short numpy versions of RNEA, CRBA and ABA written in the book's 6x6 notation.

For teaching and for parity tests of the compiled kernels in :mod:`robodyn.kernels`;
never the production path (use :mod:`robodyn.dynamics`). Each function handles every
joint through its motion subspace ``S_i`` (6 x nv, body coordinates): revolute, prismatic,
free (``S = 1_6`` on the body twist) and mimic joints (``mult * S_i`` in the leader's
column). No friction or armature: these are the rigid-body equations only.
:func:`rnea_craig` is the same inverse dynamics in Craig's 3-vector form (course notes 002),
a second teaching reference for fixed-base chains and trees.
"""

from ._joint import joint_placement, spatial_inertia
from .aba import aba
from .craig import rnea_craig
from .crba import crba
from .rnea import rnea

__all__ = ["aba", "crba", "joint_placement", "rnea", "rnea_craig", "spatial_inertia"]
