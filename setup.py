"""Build robodyn's compiled core (everything else is declared in pyproject.toml).

``robodyn.kernels._core`` is every numeric algorithm of robodyn, once, in C
(``src/robodyn/kernels/core/``: ``rd.h`` the shared definitions and spatial helpers,
``joint.h`` the joint model, one file per algorithm, ``batch.c`` the batch runner and its
threads, ``module.c`` the Python interface). It is required: without a C compiler the
install stops with a message saying so, rather than installing a slow or partial robodyn.
"""

import sys

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

CORE = [
    "module.c", "batch.c", "kinematics.c", "rnea.c", "crba.c", "aba.c", "coriolis.c",
    "minv.c", "rigidbody.c", "sim.c", "ik.c", "regressor.c",
]  # fmt: skip

if sys.platform == "win32":
    FLAGS = ["/O2", "/fp:contract"]
    LIBS = []
else:
    # no errno from sqrt and no FP-exception semantics: what lets the lane loops vectorise
    FLAGS = ["-O3", "-std=c11", "-fno-math-errno", "-fno-trapping-math", "-Wall"]
    LIBS = [] if sys.platform == "darwin" else ["m", "pthread"]


class BuildCore(build_ext):
    """build_ext that explains a failed compile instead of leaving a bare compiler error."""

    def run(self):
        try:
            super().run()
        except Exception as exc:  # CompileError, LinkError, a missing compiler
            raise SystemExit(
                "\nrobodyn: building its compiled core (a C extension) failed:\n"
                f"  {exc}\n"
                "robodyn needs a C compiler and the Python headers to install from source:\n"
                "  Debian/Ubuntu: apt install build-essential python3-dev\n"
                "  Fedora: dnf install gcc python3-devel;  macOS: xcode-select --install\n"
                "  Windows: the Microsoft C++ Build Tools\n"
                "or install a prebuilt wheel (pip install robodyn) on a supported platform.\n"
            ) from exc


setup(
    ext_modules=[
        Extension(
            "robodyn.kernels._core",
            [f"src/robodyn/kernels/core/{name}" for name in CORE],
            include_dirs=[numpy.get_include()],
            extra_compile_args=FLAGS,
            libraries=LIBS,
        )
    ],
    cmdclass={"build_ext": BuildCore},
)
