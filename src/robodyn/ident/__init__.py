"""Dynamic parameter identification: regressors, base parameters, estimation, excitation.

``tau = Y(q, v, a) pi`` is linear in the standard parameters ``pi`` (10 per body about its
joint frame, plus joint friction and armature): :func:`regressor`, :func:`parameters`,
:func:`with_parameters`; the energy form ``H = e(q, v) pi``: :func:`energy_regressor`.
"""

from ..model import parameters as _parameters
from ..model.parameters import (  # noqa: F401 (handed on, see __all__)
    BODY_PARAMETER_NAMES,
    inertia_vector,
    joint_dofs,
    layout,
    parameter_names,
    parameters,
    physical_violations,
    pseudo_inertia,
    with_parameters,
)
from .base import BaseParameters, base_parameters
from .data import Experiment, filtered, load_csv, save_csv, simulate_experiment
from .estimate import (
    Identification,
    check_data,
    from_log_cholesky,
    identify,
    identify_energy,
    log_cholesky,
)
from .excitation import FourierTrajectory, excitation_trajectory, regressor_condition
from .regressor import energy_regressor, regressor, regressor_reference

__all__ = [
    "BaseParameters",
    "Identification",
    "base_parameters",
    "check_data",
    "from_log_cholesky",
    "identify",
    "identify_energy",
    "Experiment",
    "FourierTrajectory",
    "filtered",
    "excitation_trajectory",
    "load_csv",
    "regressor_condition",
    "save_csv",
    "simulate_experiment",
    "log_cholesky",
    "energy_regressor",
    "regressor",
    "regressor_reference",
    # the standard parameter vector (robodyn.model.parameters), all but its layout class
    *(name for name in _parameters.__all__ if name != "ParameterLayout"),
]
