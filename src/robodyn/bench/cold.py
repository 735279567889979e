"""The ``cold`` section of ``robodyn bench``: ``import robodyn`` in a fresh process, the
first call in a fresh process, and a typical script in a fresh process, import included
(fk, jacobian, rnea, crba, aba, gravity and coriolis, each on one state and on a
10,000-state batch), beside Pinocchio's import and first call."""

from __future__ import annotations

import statistics
from collections.abc import Callable

from .common import Config, Progress, _python, _row

_IMPORT_CODE = """
import json, time
t0 = time.perf_counter()
import {mod}
print(json.dumps({{"t": time.perf_counter() - t0}}))
"""


_FIRST_CALL_CODE = """
import json, time
t0 = time.perf_counter()
import numpy as np
import robodyn
from robodyn import models
from robodyn.dynamics import inverse_dynamics
model = models.load("ur5")
q = np.linspace(-1.0, 1.0, model.nq); v = np.ones(model.nv); a = np.ones(model.nv)
t1 = time.perf_counter()
inverse_dynamics(model, q, v, a)
t2 = time.perf_counter()
res = {{"first_call": t2 - t1, "since_start": t2 - t0}}
if {typical}:
    from robodyn import dynamics as d, kinematics as k
    from robodyn.coriolis import coriolis_matrix
    rng = np.random.default_rng(0)
    Q = rng.uniform(-1.0, 1.0, (10_000, model.nq)); V = rng.normal(size=(10_000, model.nv))
    for x, y in ((q, v), (Q, V)):
        k.fk(model, x); k.jacobian(model, x, "ee"); d.inverse_dynamics(model, x, y, y)
        d.mass_matrix(model, x); d.forward_dynamics(model, x, y, y); d.gravity_forces(model, x)
        coriolis_matrix(model, x, y)
    res["typical_script"] = time.perf_counter() - t0
print(json.dumps(res))
"""


_PIN_FIRST_CALL_CODE = """
import json, time
import numpy as np
import pinocchio as pin
from robodyn import models
from robodyn.bench.robots import pin_model_from
pm = pin_model_from(models.load("ur5"), pin); pd = pm.createData()
q = np.linspace(-1.0, 1.0, pm.nq); v = np.ones(pm.nv); a = np.ones(pm.nv)
t1 = time.perf_counter()
pin.rnea(pm, pd, q, v, a)
print(json.dumps({"first_call": time.perf_counter() - t1}))
"""


def _median_runs(fn: Callable[[], float], n: int) -> tuple[float, list[float]]:
    runs = [fn() for _ in range(max(1, n))]
    return statistics.median(runs), runs


def run_cold(cfg: Config, libs: dict, prog: Progress) -> list[dict]:
    """Cold-start rows: import, the first call and a typical script in fresh processes."""
    rows = []
    pin_ok = libs.get("pinocchio") is not None

    def imp(mod: str) -> float:
        return _python(_IMPORT_CODE.format(mod=mod))["t"]

    prog.show("cold: import robodyn")
    med, runs = _median_runs(lambda: imp("robodyn"), cfg.cold_repeat)
    r_imp = _row("cold", "-", "import", "robodyn", call="import robodyn", median_s=med, runs_s=runs)
    prog.step()
    rows.append(r_imp)
    pin_imp = pin_first = None
    if pin_ok:
        prog.show("cold: import pinocchio")
        pin_imp, runs = _median_runs(lambda: imp("pinocchio"), cfg.cold_repeat)
        rows.append(
            _row("cold", "-", "import", "pinocchio", call="import pinocchio", median_s=pin_imp,
                 runs_s=runs, status="reference")
        )  # fmt: skip
        r_imp["ratio_to_pinocchio"] = med / pin_imp
        prog.step()
        prog.show("cold: pinocchio first call")
        pin_first, runs = _median_runs(
            lambda: _python(_PIN_FIRST_CALL_CODE)["first_call"], cfg.cold_repeat
        )
        rows.append(
            _row("cold", "ur5", "first rnea call", "pinocchio", call="pin.rnea, fresh process",
                 median_s=pin_first, runs_s=runs, status="reference")
        )  # fmt: skip
        prog.step()
    # ---- a fresh process: nothing is compiled or cached at run time
    prog.show("cold: first call and a typical script, fresh process")
    res = [_python(_FIRST_CALL_CODE.format(typical=True)) for _ in range(cfg.cold_repeat)]
    first = [r["first_call"] for r in res]
    typ = [r["typical_script"] for r in res]
    rows.append(
        _row("cold", "ur5", "first rnea call", "robodyn",
             call="inverse_dynamics, fresh process",
             median_s=statistics.median(first), runs_s=first,
             ratio_to_pinocchio=statistics.median(first) / pin_first if pin_first else None)
    )  # fmt: skip
    rows.append(
        _row("cold", "ur5", "typical script", "robodyn",
             call="import; fk, jacobian, rnea, crba, aba, gravity, coriolis on one state and "
             "on 10,000 states; fresh process",
             median_s=statistics.median(typ), runs_s=typ)
    )  # fmt: skip
    prog.step()
    return rows
