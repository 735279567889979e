"""Errors raised by robodyn."""

from __future__ import annotations

__all__ = ["ModelError"]


class ModelError(ValueError):
    """A robot description (URDF, DH table, PoE data, builder call) is invalid.

    The message names the offending element (link, joint, attribute) and the numbers.
    """
