"""The standard inertial parameters of a model, and back (identification's unknowns).

Defined in :mod:`robodyn.model.parameters` (the vector is a view of the Model's own
numbers, and :meth:`Model.with_parameters <robodyn.model.model.Model.with_parameters>`
uses it); this module hands the same names on to identification.
"""

from __future__ import annotations

from ..model.parameters import (
    BODY_PARAMETER_NAMES,
    ParameterLayout,
    inertia_vector,
    joint_dofs,
    layout,
    parameter_names,
    parameters,
    physical_violations,
    pseudo_inertia,
    with_parameters,
)

__all__ = [
    "BODY_PARAMETER_NAMES",
    "ParameterLayout",
    "inertia_vector",
    "joint_dofs",
    "layout",
    "parameter_names",
    "parameters",
    "physical_violations",
    "pseudo_inertia",
    "with_parameters",
]
