"""Build robodyn's C extension (everything else is declared in pyproject.toml).

``robodyn.kernels._native`` (src/robodyn/kernels/native.c) is the single-state fast path
of inverse dynamics, the mass matrix, forward dynamics, the Coriolis matrix, frame poses
and Jacobians. It is optional: without a C compiler robodyn installs anyway and uses its
numba kernels for single states too (slower per call); ``robodyn info`` says which path
is in use.
"""

import numpy
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "robodyn.kernels._native",
            ["src/robodyn/kernels/native.c"],
            include_dirs=[numpy.get_include()],
            extra_compile_args=["-O3"],
            optional=True,
        )
    ]
)
