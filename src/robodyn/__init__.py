"""robodyn: the mechanics of robots and rigid bodies, in the notation of Modern Robotics.

``import robodyn as rd`` re-exports the public API. Importing computes and compiles
nothing: modules load on first use of one of their names (``rd.rigidbody``,
``rd.inverse_dynamics``, ...; sympy only with ``rd.symbolic``), and the numeric functions
run in robodyn's compiled core, a C extension built when robodyn is installed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from . import errors as _errors
from . import inertia, spatial
from .inertia import RigidInertia
from .spatial import ad, adjoint, exp3, exp6, inv_transform, log3, log6, skew, transform, unskew

__version__ = "0.1.0"

# name -> module that defines it; loaded on first access (PEP 562).
_LAZY: dict[str, str] = {
    # errors and warnings (robodyn.errors, every one a subclass of a builtin)
    **{name: "robodyn.errors" for name in _errors.__all__},
    # modules
    "rigidbody": "robodyn.rigidbody",
    "models": "robodyn.models",
    "convert": "robodyn.convert",
    "dynamics": "robodyn.dynamics",
    "kinematics": "robodyn.kinematics",
    "symbolic": "robodyn.symbolic",
    "mr": "robodyn.mr",
    # models
    "Model": "robodyn.model.model",
    "ModelBuilder": "robodyn.model.builder",
    "load_urdf": "robodyn.model.urdf",
    "to_urdf": "robodyn.model.urdf_export",
    "lock_joints": "robodyn.model.compose",
    "attach": "robodyn.model.compose",
    "load_mjcf": "robodyn.model.mjcf",
    "to_mjcf": "robodyn.model.mjcf_export",
    "from_mr": "robodyn.model.poe",
    "to_mr": "robodyn.model.poe",
    "from_dh": "robodyn.model.dh",
    "check_model": "robodyn.model.doctor",
    "fix_urdf": "robodyn.model.doctor",
    "neutral": "robodyn.model.configuration",
    "random_configuration": "robodyn.model.configuration",
    "integrate": "robodyn.kinematics.configuration",  # compiled (model/ keeps numpy's)
    "difference": "robodyn.kinematics.configuration",
    "normalize": "robodyn.model.configuration",
    "fk_space": "robodyn.model.poe",
    "fk_body": "robodyn.model.poe",
    "jacobian_space": "robodyn.model.poe",
    "jacobian_body": "robodyn.model.poe",
    "dh_transform": "robodyn.model.dh",
    # configuration space (MR ch. 2)
    "grubler": "robodyn.cspace",
    "cspace": "robodyn.cspace",
    # kinematics (MR ch. 4-6)
    "fk": "robodyn.kinematics",
    "forward_kinematics": "robodyn.kinematics",
    "body_poses": "robodyn.kinematics",
    "jacobian": "robodyn.kinematics",
    "jacobian_dot": "robodyn.kinematics",
    "frame_velocity": "robodyn.kinematics",
    "frame_acceleration": "robodyn.kinematics",
    "kinematic_hessian": "robodyn.kinematics",
    "frame_velocity_derivatives": "robodyn.kinematics",
    "frame_acceleration_derivatives": "robodyn.kinematics",
    "com": "robodyn.kinematics",
    "com_jacobian": "robodyn.kinematics",
    "com_acceleration": "robodyn.kinematics",
    "manipulability": "robodyn.kinematics",
    "velocity_ellipsoid": "robodyn.kinematics",
    "force_ellipsoid": "robodyn.kinematics",
    "Ellipsoid": "robodyn.kinematics",
    "ik": "robodyn.kinematics",
    "IKResult": "robodyn.kinematics",
    # dynamics (MR ch. 8)
    "inverse_dynamics": "robodyn.dynamics",
    "rnea": "robodyn.dynamics",
    "mass_matrix": "robodyn.dynamics",
    "crba": "robodyn.dynamics",
    "mass_matrix_inverse": "robodyn.dynamics",
    "forward_dynamics": "robodyn.dynamics",
    "aba": "robodyn.dynamics",
    "gravity_forces": "robodyn.dynamics",
    "velocity_forces": "robodyn.dynamics",
    "bias_forces": "robodyn.dynamics",
    # analytic derivatives of the dynamics (issue 30)
    "inverse_dynamics_derivatives": "robodyn.derivatives",
    "rnea_derivatives": "robodyn.derivatives",
    "forward_dynamics_derivatives": "robodyn.derivatives",
    "aba_derivatives": "robodyn.derivatives",
    "coriolis_matrix": "robodyn.coriolis",
    "christoffel": "robodyn.coriolis",
    "christoffel_reference": "robodyn.coriolis",
    "mass_matrix_derivative_reference": "robodyn.coriolis",
    "coriolis_matrix_reference": "robodyn.coriolis",
    "mass_matrix_derivative": "robodyn.coriolis",
    "mass_matrix_dot": "robodyn.coriolis",
    "kinetic_energy": "robodyn.energy",
    "potential_energy": "robodyn.energy",
    "mechanical_energy": "robodyn.energy",
    "momentum": "robodyn.energy",
    "centroidal_momentum": "robodyn.energy",
    "centroidal_momentum_rate": "robodyn.energy",
    "momentum_matrix": "robodyn.energy",
    "com_velocity": "robodyn.energy",
    "task_space_inertia": "robodyn.taskspace",
    # the course's planar arms in two dimensions (issue 33)
    "planar": "robodyn.planar",
    "task_space_ellipsoid": "robodyn.taskspace",
    "dynamically_consistent_pinv": "robodyn.taskspace",
    "constrained_forward_dynamics": "robodyn.constrained",
    "kkt_solve": "robodyn.constrained",
    "constraint_projections": "robodyn.constrained",
    "HolonomicConstraint": "robodyn.constrained",
    "holonomic_forward_dynamics": "robodyn.constrained",
    "inverse_dynamics_trajectory": "robodyn.sim.dynamics_trajectory",
    "forward_dynamics_trajectory": "robodyn.sim.dynamics_trajectory",
    "reference": "robodyn.reference",
    # simulation and control (MR ch. 9, 11)
    "sim": "robodyn.sim",
    "simulate": "robodyn.sim",
    "linearize": "robodyn.sim",
    "Trajectory": "robodyn.sim",
    "control": "robodyn.control",
    "trajectory": "robodyn.trajectory",
    # workspace, singularities and inverse kinematics (MR ch. 5-6)
    "workspace": "robodyn.workspace_maps",
    "Workspace": "robodyn.workspace_maps",
    "singularities": "robodyn.workspace_maps",
    "Singularity": "robodyn.workspace_maps",
    "ik_batch": "robodyn.kinematics",
    "ik_all": "robodyn.kinematics",
    # wheeled mobile robots and mobile manipulation (MR ch. 13)
    "mobile": "robodyn.mobile",
    # scale-out with Dask (issue 16): dask is imported only when a dask array arrives
    "distributed": "robodyn.distributed",
    "sweep": "robodyn.sweep",
    # 3-D viewer: one self-contained HTML page (three.js inside)
    "viz": "robodyn.viz",
    # dynamic parameter identification (issue 14)
    "ident": "robodyn.ident",
    "parameters": "robodyn.ident",
    "parameter_names": "robodyn.ident",
    "regressor": "robodyn.ident",
    "energy_regressor": "robodyn.ident",
    "base_parameters": "robodyn.ident",
    "identify": "robodyn.ident",
    "identify_energy": "robodyn.ident",
    "excitation_trajectory": "robodyn.ident",
}

if TYPE_CHECKING:  # pragma: no cover
    from . import rigidbody  # noqa: F401


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'robodyn' has no attribute {name!r}")
    mod = importlib.import_module(module)
    value = mod if module.endswith("." + name) else getattr(mod, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public API only (what ``__all__`` lists), not this module's helpers."""
    return sorted(__all__)


__all__ = [
    "RigidInertia",
    "__version__",
    "ad",
    "adjoint",
    "exp3",
    "exp6",
    "inertia",
    "inv_transform",
    "log3",
    "log6",
    "skew",
    "spatial",
    "transform",
    "unskew",
    *_LAZY,
]
