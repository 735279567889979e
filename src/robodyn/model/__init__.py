"""Robot models: the frozen :class:`Model`, its builder and its loaders."""

from .model import (
    JOINT_FIXED,
    JOINT_FREE,
    JOINT_PRISMATIC,
    JOINT_REVOLUTE,
    JOINT_TYPE_NAMES,
    Model,
    ModelArrays,
)

__all__ = [
    "JOINT_FIXED",
    "JOINT_FREE",
    "JOINT_PRISMATIC",
    "JOINT_REVOLUTE",
    "JOINT_TYPE_NAMES",
    "Model",
    "ModelArrays",
]
