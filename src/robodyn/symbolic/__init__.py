"""Symbolic dynamics with sympy: Lagrange's equations, models, constraints, code generation.

* :func:`lagrange` -- Euler-Lagrange equations of a Lagrangian in standard form
  (course notes 001, 10.1-10.14) as an :class:`EquationsOfMotion`;
* :func:`derive` -- the same for a robodyn Model, numeric or textbook-named parameters;
* :func:`constrain` -- Pfaffian constraints, multipliers and projections (10.15-10.20),
  :func:`is_holonomic` -- Frobenius integrability test, :func:`classify_constraints` --
  how many constraints of a set are holonomic (the involutive closure of ker A);
* :func:`to_function`, :func:`write_module` -- numeric code (numpy or numba) with cse.

Importing this package imports sympy (not done by ``import robodyn``).
"""

from .codegen import NumericEquations, generate_source, load_module, to_function, write_module
from .constraints import (
    ConstrainedEquations,
    ConstraintClassification,
    classify_constraints,
    constrain,
    frobenius_conditions,
    is_holonomic,
)
from .derive import derive, exact_number
from .lagrange import (
    EquationsOfMotion,
    christoffel_symbols,
    coriolis_matrix,
    fast_simplify,
    generalized_forces,
    inertia_matrix,
    lagrange,
    trig_reduce,
)

lambdify = to_function

__all__ = [
    "ConstrainedEquations",
    "ConstraintClassification",
    "EquationsOfMotion",
    "NumericEquations",
    "christoffel_symbols",
    "classify_constraints",
    "constrain",
    "coriolis_matrix",
    "derive",
    "exact_number",
    "fast_simplify",
    "frobenius_conditions",
    "generalized_forces",
    "generate_source",
    "inertia_matrix",
    "is_holonomic",
    "lagrange",
    "lambdify",
    "load_module",
    "to_function",
    "trig_reduce",
    "write_module",
]
