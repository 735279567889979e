"""Dynamic parameter identification: regressors, base parameters, estimation, excitation.

``tau = Y(q, v, a) pi`` is linear in the standard parameters ``pi`` (10 per body about its
joint frame, plus joint friction and armature): :func:`regressor`, :func:`parameters`,
:func:`with_parameters`; the energy form ``H = e(q, v) pi``: :func:`energy_regressor`.
"""

from .parameters import (
    BODY_PARAMETER_NAMES,
    inertia_vector,
    joint_dofs,
    parameter_names,
    parameters,
    physical_violations,
    pseudo_inertia,
    with_parameters,
)
from .regressor import energy_regressor, regressor

__all__ = [
    "BODY_PARAMETER_NAMES",
    "energy_regressor",
    "inertia_vector",
    "joint_dofs",
    "parameter_names",
    "parameters",
    "physical_violations",
    "pseudo_inertia",
    "regressor",
    "with_parameters",
]
