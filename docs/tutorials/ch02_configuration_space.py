"""
Ch. 2: configuration space and Grübler's formula
=================================================

The number of degrees of freedom of a mechanism of N links (ground included) and J joints,
joint i with f_i freedoms, in a space where a body has m freedoms (m = 3 planar, 6
spatial), is Grübler's formula (MR eq. 2.4)::

    dof = m (N - 1 - J) + sum_i f_i
"""

import robodyn as rd

print(rd.grubler(4, "RRRR", planar=True))
