"""Build robodyn's compiled core (everything else is declared in pyproject.toml).

``robodyn.kernels._core`` is every numeric algorithm of robodyn, once, in C
(``src/robodyn/kernels/core/``: ``rd.h`` the shared definitions and spatial helpers,
``joint.h`` the joint model, one file per algorithm, ``batch.c`` the batch runner and its
threads, ``module.c`` the Python interface). It is required: without a C compiler the
install stops with a message saying so, rather than installing a slow or partial robodyn.

Two things keep an install short:

- the core's files are compiled in parallel, one compiler per CPU (``build_ext -j N`` sets
  the number); setuptools' own ``parallel`` builds several extensions at once, not the files
  of one, and robodyn has one extension;
- each compiled object is kept in ``build/core-objects/`` under the checkout, named by a
  hash of everything that went into it (its source, the core's headers, the compiler and
  its flags, ``CFLAGS``, Python's and NumPy's versions), so a second ``pip install -e .``
  (the README's test command after its demo command) links the kept objects instead of
  compiling again; a changed source or flag compiles only what it changed. ``build_ext
  --force`` (or deleting ``build/``) compiles everything.
"""

import hashlib
import os
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
CORE_DIR = "src/robodyn/kernels/core"
CORE = [
    "module.c", "batch.c", "kinematics.c", "rnea.c", "crba.c", "aba.c", "coriolis.c",
    "minv.c", "rigidbody.c", "sim.c", "ik.c", "regressor.c", "momentum.c",
    "cspace.c", "constrained.c", "kinderiv.c", "rnea_derivatives.c",
    "aba_derivatives.c", "minv_aba.c", "contact.c", "force.c", "taskref.c",
]  # fmt: skip
# compiled objects kept between builds (build/ is git-ignored)
OBJECT_CACHE = ROOT / "build" / "core-objects"
KEEP_PER_SOURCE = 4  # kept objects of one source (other flags, older versions): the newest

if sys.platform == "win32":
    FLAGS = ["/O2", "/fp:contract"]
    LIBS = []
else:
    # no errno from sqrt and no FP-exception semantics: what lets the lane loops vectorise
    FLAGS = ["-O3", "-std=c11", "-fno-math-errno", "-fno-trapping-math", "-Wall"]
    # no debug information (Python's own CFLAGS ask for -g, a quarter of the compile time;
    # the code is the same): CFLAGS=-g or build_ext --debug keeps it
    if not any(f.startswith("-g") and f != "-g0" for f in os.environ.get("CFLAGS", "").split()):
        FLAGS.append("-g0")
    LIBS = [] if sys.platform == "darwin" else ["m", "pthread"]


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class BuildCore(build_ext):
    """build_ext that compiles the core's files in parallel, reuses the objects of an earlier
    build of the same inputs, and explains a failed compile instead of leaving a bare
    compiler error."""

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

    def build_extension(self, ext):
        if self.debug:
            ext.extra_compile_args = [f for f in ext.extra_compile_args if f != "-g0"]
        serial = self.compiler.compile
        fresh = self.force  # --force: compile every object anew

        def compile_parallel(sources, output_dir=None, **kw):
            return self._compile(serial, sources, output_dir, fresh, **kw)

        # setuptools skips an extension whose library is newer than its .c files, blind to
        # the headers and to a change of CFLAGS (a stale core); the kept objects, named by
        # a hash of all their inputs, decide instead what is compiled
        self.compiler.compile, self.force = compile_parallel, True
        try:
            super().build_extension(ext)
        finally:
            self.compiler.compile, self.force = serial, fresh

    def _compile(self, serial, sources, output_dir, fresh, **kw):
        """``compiler.compile`` of each source on its own, on a pool of threads (each runs
        one compiler process), the largest files first; objects kept from an earlier build
        of the same inputs are copied instead of compiled."""
        objects = self.compiler.object_filenames(sources, strip_dir=0, output_dir=output_dir)
        for obj in objects:
            Path(obj).parent.mkdir(parents=True, exist_ok=True)
        if getattr(self.compiler, "initialized", True) is False:
            self.compiler.initialize()  # MSVC finds its tools once, before the threads
        keys = {src: self._object_key(src, kw) for src in sources}
        todo = []
        for src, obj in zip(sources, objects):
            kept = OBJECT_CACHE / f"{Path(src).stem}-{keys[src]}{Path(obj).suffix}"
            if kept.is_file() and not fresh:
                shutil.copyfile(kept, obj)
            else:
                todo.append((src, obj, kept))
        if len(todo) < len(sources):
            print(
                f"robodyn: {len(sources) - len(todo)} of {len(sources)} objects of the core "
                f"reused from {OBJECT_CACHE} (build_ext --force compiles them anew)"
            )
        todo.sort(key=lambda t: -os.path.getsize(t[0]))  # the longest compiles first
        jobs = self.parallel if isinstance(self.parallel, int) and self.parallel > 0 else None
        jobs = min(jobs or _cpus(), max(len(todo), 1))

        def one(item):
            src, obj, kept = item
            serial([src], output_dir=output_dir, **kw)
            self._keep(obj, kept)

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(one, item) for item in todo]
            try:
                for fut in futures:
                    fut.result()  # the first failure stops the build, with its error
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)
                raise
        return objects

    def _object_key(self, src, kw) -> str:
        """A hash of everything that goes into the object of ``src``: its text and the
        core's headers, the compiler (its path, size and date) with its flags and
        ``$CFLAGS``, the include folders and macros, Python's and NumPy's versions."""
        cc = self.compiler
        # folders whose path changes between builds of the same inputs: pip's isolated
        # build puts NumPy in a temporary folder, and build_ext adds the venv's include/
        # (headers installed by packages; the core includes only Python's and NumPy's),
        # so the demo's venv and a docs venv share the objects
        moving = {
            numpy.get_include(): f"<numpy {numpy.__version__}>",
            os.path.join(sys.exec_prefix, "include"): "<venv>/include",
        }

        def norm(value):
            text = repr(value)
            for path, name in moving.items():
                text = text.replace(path, name)
            return text

        compiler = getattr(cc, "compiler_so", None) or [getattr(cc, "cc", "")]
        exe = shutil.which(compiler[0]) if compiler and compiler[0] else None
        stat = os.stat(exe) if exe else None
        h = hashlib.sha256()
        for part in (
            cc.compiler_type,
            compiler,  # the compiler, its flags and $CFLAGS (Unix)
            (exe, stat.st_size, stat.st_mtime_ns) if stat else None,
            getattr(cc, "compile_options", None),  # MSVC
            cc.include_dirs,
            cc.macros,
            sorted(kw.items()),
            sys.version,
            numpy.__version__,
        ):
            h.update(norm(part).encode() + b"\0")
        src = Path(src)
        for path in [src, *sorted(src.parent.glob("*.h"))]:
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
        return h.hexdigest()[:24]

    @staticmethod
    def _keep(obj, kept):
        """Copy a new object into the cache (atomically: builds may run at once); keep the
        newest few per source. A cache that cannot be written is no error."""
        try:
            kept.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=kept.parent, suffix=".tmp")
            os.close(fd)
            shutil.copyfile(obj, tmp)
            os.replace(tmp, kept)
            stem = kept.name.rsplit("-", 1)[0]
            same = sorted(
                kept.parent.glob(f"{stem}-*{kept.suffix}"),
                key=lambda p: p.stat().st_mtime,
                reverse=True,
            )
            for old in same[KEEP_PER_SOURCE:]:
                old.unlink(missing_ok=True)
        except OSError:
            pass


setup(
    ext_modules=[
        Extension(
            "robodyn.kernels._core",
            [f"{CORE_DIR}/{name}" for name in CORE],
            include_dirs=[numpy.get_include()],
            extra_compile_args=FLAGS,
            libraries=LIBS,
        ),
        # the model layer's compiled helpers (the URDF reader, the Model's arrays): below
        # the core in the layers (robodyn.model may not import robodyn.kernels), so its own
        Extension(
            "robodyn.model._native",
            [f"src/robodyn/model/native/{name}" for name in ("native.c", "urdfread.c", "arrays.c")],
            include_dirs=[numpy.get_include()],
            extra_compile_args=FLAGS,
        ),
    ],
    cmdclass={"build_ext": BuildCore},
)
