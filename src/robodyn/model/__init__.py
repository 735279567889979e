"""Robot models: the frozen :class:`Model`, its builder and its loaders."""

from .actuators import Actuators
from .builder import JOINT_TYPES, ModelBuilder
from .configuration import difference, integrate, neutral, normalize, random_configuration
from .dh import dh_transform, from_dh
from .model import (
    JOINT_FIXED,
    JOINT_FREE,
    JOINT_PRISMATIC,
    JOINT_REVOLUTE,
    JOINT_TYPE_NAMES,
    Model,
    ModelArrays,
)
from .poe import fk_body, fk_space, from_mr, jacobian_body, jacobian_space, to_mr

__all__ = [
    "Actuators",
    "JOINT_FIXED",
    "JOINT_FREE",
    "JOINT_PRISMATIC",
    "JOINT_REVOLUTE",
    "JOINT_TYPES",
    "JOINT_TYPE_NAMES",
    "Model",
    "ModelArrays",
    "ModelBuilder",
    "dh_transform",
    "difference",
    "fk_body",
    "fk_space",
    "from_dh",
    "from_mr",
    "integrate",
    "jacobian_body",
    "jacobian_space",
    "neutral",
    "normalize",
    "random_configuration",
    "to_mr",
]
