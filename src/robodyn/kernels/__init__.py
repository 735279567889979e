"""Compiled (numba) kernels over a model packed into flat arrays.

Submodules (import them explicitly; this package itself imports nothing heavy, so
``robodyn.kernels._pack`` can be used without loading numba):

* ``_pack``: :func:`~robodyn.kernels._pack.packed` -- the model as one int64 and one float64
  array, cached on the Model, and the layout constants;
* ``_small``: unrolled 3-vector / 3x3 helpers and the joint model (``joint_pose``);
* ``rnea``, ``crba``, ``aba``, ``forward``: the dynamics kernels (single state and batch);
* ``kinematics``: poses, Jacobians, centre of mass;
* ``coriolis``: the Christoffel-consistent Coriolis matrix.

Every kernel is cached on disk (``cache=True``), releases the GIL (``nogil=True``) and
has a batch version that runs ``prange`` over states.
"""

__all__ = ["aba", "coriolis", "crba", "forward", "kinematics", "rnea"]
