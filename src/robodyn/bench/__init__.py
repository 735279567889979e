"""``robodyn bench``: robodyn beside Pinocchio, MuJoCo and the Modern Robotics library.

Run ``robodyn bench`` or ``python -m robodyn.bench`` (``--help`` lists the options). In one
process and one run it measures, on the same models and the same random states:

* **latency**: one state from Python (forward kinematics of all frames, one frame
  Jacobian, inverse dynamics, mass matrix, forward dynamics, Coriolis matrix, gravity);
* **batch**: the same functions over N states (default 100,000), per state, on 1 and 2
  threads (robodyn's batch calls with ``threads=``; Pinocchio's
  ``rneaInParallel`` / ``abaInParallel`` with a ``ModelPool`` where they exist, else a
  Python loop over Pinocchio's single-state call, said so in the table);
* **functions**: every other public numeric function of a state (energies, momenta, CoM,
  task-space inertia, ellipsoids, frame velocity and acceleration, dJ/dt, dM/dt,
  Christoffel symbols, ...), one row each, checked against its Pinocchio peer (or finite
  differences of Pinocchio's M), timed on one state and per state of a batch, as ratios
  to the peer and to a Python loop over it (:mod:`robodyn.bench.functions`);
* **derivatives**: the analytic derivatives of the dynamics
  (``inverse_dynamics_derivatives`` beside Pinocchio's ``computeRNEADerivatives``): one
  state, per state of a batch and by central differences of robodyn's batch inverse
  dynamics, each checked first (:mod:`robodyn.bench.derivatives`);
* **cold**: ``import robodyn`` in a fresh process, the first call in a fresh process, and a
  typical script in a fresh process, import included (fk, jacobian, rnea, crba, aba,
  gravity and coriolis, each on one state and on a 10,000-state batch);
* **memory**: peak resident memory (``VmHWM``, else ``ru_maxrss``) of a 1,000,000-state
  inverse-dynamics batch in a fresh process, against the bytes of its inputs plus outputs;
* **load**: reading each example-robot-data URDF, ``rd.load_urdf`` beside Pinocchio's
  ``buildModelFromUrdf`` on the same file (the least CPU time of single calls,
  alternated; each row checked first by the mass matrix; :mod:`robodyn.bench.load`).

Every figure is the median of ``--repeat`` runs (>= 7 by default; each run is a loop sized
like :meth:`timeit.Timer.autorange`) and is shown as a ratio to Pinocchio (< 1: robodyn
is faster). Before anything is timed, each library's result is checked equal to
Pinocchio's (robodyn to 1e-8 relative, after the :class:`robodyn.convert.PinocchioMap`
reordering); a mismatch is printed as FAIL and its time is not shown. A peer that is not
installed leaves its rows out: each section it would appear in says so in one line naming
the package to install (``skipped: install Pinocchio (pip install pin)``); a peer that has
no such function is an "n/a" row.

Models, from example-robot-data: the UR5 (6 DoF), the Panda arm with the fingers locked
(7 DoF), the solo12 quadruped on a floating base (18 DoF) and Talos full (talos_full_v2,
44 joints + 6 floating-base DoF). Each library parses the same URDF text with its own
parser: robodyn's ``load_urdf``, Pinocchio's ``buildModelFromXML`` (plus its free flyer
for a floating base) and MuJoCo's URDF importer (geometry dropped, every link kept as a
body, a free joint added to the root body for a floating base), so the agreement check
covers model building too. Without example-robot-data the bundled UR5 and Panda are used,
and Pinocchio's and MuJoCo's models are then built from robodyn's Model (said in the
table); solo12 and Talos are skipped in one line. Joint friction, damping and armature
are removed from all models: the benchmark times the rigid-body algorithms, which is what
every peer computes.

MuJoCo runs with contacts and constraints disabled. Its functions have other semantics,
so the table names the timed calls: e.g. the mass matrix is ``mj_kinematics + mj_comPos +
mj_crb + mj_fullM`` and the forward dynamics is a whole ``mj_forward``. MuJoCo's
free-joint velocity is ``[v_world, omega_b]``; results are mapped to robodyn's
``[omega_b, v_b]`` before the check.

The ``flops`` section (analytic operation counts, achieved GFLOP/s beside the estimated
peak) is described in :mod:`robodyn.bench.machine`. The folder: :mod:`~robodyn.bench.common`
(the names, the run's options, timing and rows) at the bottom, :mod:`~robodyn.bench.robots`
(the robots in every library) and :mod:`~robodyn.bench.peers` (the libraries side by side)
above it, one module per section above them, :mod:`~robodyn.bench.report` (what is printed
and written) and :mod:`~robodyn.bench.main` (the options and the run) on top.
"""

from __future__ import annotations

from .common import FUNCTIONS, LIBRARIES, MODELS
from .machine import flop_count, machine_info
from .main import main
from .report import write_plot as write_plot  # also handed on: what the tests import here
from .robots import erd_dir as erd_dir
from .robots import mjcf_from as mjcf_from

__all__ = ["main", "flop_count", "machine_info", "MODELS", "FUNCTIONS", "LIBRARIES"]
