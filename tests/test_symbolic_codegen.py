"""robodyn.symbolic.codegen: generated numeric code against sympy and the numeric RNEA/CRBA."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from robodyn.dynamics import gravity_forces, inverse_dynamics, mass_matrix
from robodyn.models import load
from robodyn.symbolic.codegen import load_module, to_function, write_module
from robodyn.symbolic.derive import derive
from robodyn.symbolic.lagrange import lagrange

TOL = 1e-10


def states(n, k=4, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-3, 3, (k, n)), rng.normal(size=(k, n)), rng.normal(size=(k, n))


def sympy_values(eom, q, v, a):
    """M, C, g, tau evaluated by sympy substitution (no code generation)."""
    sub = dict(eom.parameters)
    sub |= dict(zip(eom.q, q)) | dict(zip(eom.qd, v)) | dict(zip(eom.qdd, a))
    M = np.array(eom.M.xreplace(sub).evalf(), dtype=float)
    C = np.array(eom.C.xreplace(sub).evalf(), dtype=float)
    g = np.array(eom.g.xreplace(sub).evalf(), dtype=float).ravel()
    tau = np.array(eom.lhs.xreplace(sub).evalf(), dtype=float).ravel()
    return M, C, g, tau


def check(fn, model, eom, k=4):
    Q, V, A = states(model.nv, k)
    for q, v, a in zip(Q, V, A):
        M, C, g, tau = sympy_values(eom, q, v, a)
        np.testing.assert_allclose(fn.M(q), M, atol=TOL, rtol=0)
        np.testing.assert_allclose(fn.C(q, v), C, atol=TOL, rtol=0)
        np.testing.assert_allclose(fn.g(q), g, atol=TOL, rtol=0)
        np.testing.assert_allclose(fn.h(q, v), C @ v + g, atol=TOL, rtol=0)
        np.testing.assert_allclose(fn.inverse_dynamics(q, v, a), tau, atol=TOL, rtol=0)
        np.testing.assert_allclose(fn.M(q), mass_matrix(model, q), atol=TOL, rtol=0)
        np.testing.assert_allclose(fn.g(q), gravity_forces(model, q), atol=TOL, rtol=0)
        rnea = inverse_dynamics(model, q, v, a, friction=False)
        np.testing.assert_allclose(fn.inverse_dynamics(q, v, a), rnea, atol=TOL, rtol=0)
        np.testing.assert_allclose(fn.forward_dynamics(q, v, rnea), a, atol=1e-9, rtol=0)


@pytest.mark.parametrize("name", ["planar_2r", "rp_arm"])
@pytest.mark.parametrize("parameters", ["numeric", "symbolic"])
def test_numpy_backend(name, parameters):
    model = load(name)
    eom = derive(model, parameters)
    fn = to_function(eom, "numpy")
    check(fn, model, eom)
    # batches (N, n) give (N, ...) and equal the row-by-row values
    Q, V, A = states(model.nv, 6, seed=3)
    Mb = fn.M(Q)
    assert Mb.shape == (6, model.nv, model.nv)
    np.testing.assert_allclose(Mb, mass_matrix(model, Q), atol=TOL, rtol=0)
    tb = fn.inverse_dynamics(Q, V, A)
    np.testing.assert_allclose(tb, inverse_dynamics(model, Q, V, A, friction=False), atol=TOL)
    np.testing.assert_allclose(fn.forward_dynamics(Q, V, tb), A, atol=1e-9)


def test_numba_backend():
    model = load("planar_2r")
    eom = derive(model, "numeric")
    fn = to_function(eom, "numba")
    assert fn.backend == "numba"
    check(fn, model, eom, k=3)
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        fn.M(np.zeros((3, 2)))


def test_written_module_imports_back(tmp_path):
    model = load("rp_arm")
    eom = derive(model, "symbolic")  # parameter values substituted from eom.parameters
    path = write_module(eom, tmp_path / "rp_dynamics.py")
    mod = load_module(path)
    assert mod.N_DOF == 2
    Q, V, A = states(2, 3, seed=7)
    for q, v, a in zip(Q, V, A):
        M, C, g, tau = sympy_values(eom, q, v, a)
        np.testing.assert_allclose(mod.M(q), M, atol=TOL, rtol=0)
        np.testing.assert_allclose(mod.C(q, v), C, atol=TOL, rtol=0)
        np.testing.assert_allclose(mod.g(q), g, atol=TOL, rtol=0)
        rnea = inverse_dynamics(model, q, v, a, friction=False)
        np.testing.assert_allclose(mod.inverse_dynamics(q, v, a), rnea, atol=TOL, rtol=0)
    text = path.read_text()
    assert "import numpy as np" in text and "sympy" not in text.split('"""')[-1]
    with pytest.raises(ValueError, match=".py"):
        write_module(eom, tmp_path / "bad-name.py")
    # an existing file is kept unless overwrite=True (issue 27), then replaced whole
    with pytest.raises(FileExistsError, match="pass overwrite=True"):
        write_module(eom, path)
    assert path.read_text() == text
    path.write_text("edited by hand")
    assert write_module(eom, path, overwrite=True).read_text() == text


def test_ur5_mass_matrix_and_gravity_code():
    model = load("ur5")
    eom = derive(model, "numeric", simplify=False)
    fn = to_function(eom, "numpy", functions=("M", "g"))
    Q, _, _ = states(6, 3, seed=11)
    np.testing.assert_allclose(fn.M(Q), mass_matrix(model, Q), atol=TOL, rtol=0)
    np.testing.assert_allclose(fn.g(Q), gravity_forces(model, Q), atol=TOL, rtol=0)


def test_user_lagrangian_and_errors():
    q1, q2, qd1, qd2 = sp.symbols("q1 q2 qd1 qd2", real=True)
    m, k = sp.symbols("m k", positive=True)
    # point mass in polar coordinates with a radial spring: V = k q1^2 / 2
    eom = lagrange(K=m * (qd1**2 + q1**2 * qd2**2) / 2, V=k * q1**2 / 2, q=[q1, q2], qd=[qd1, qd2])
    with pytest.raises(ValueError, match="k, m"):
        to_function(eom)
    fn = to_function(eom, parameters={m: 2.0, k: 3.0})
    q, v, a = np.array([1.5, 0.2]), np.array([0.3, -0.4]), np.array([0.1, 0.2])
    # m (rdd - r thd^2) + k r, m r^2 thdd + 2 m r rd thd
    want = [2 * (0.1 - 1.5 * 0.16) + 3 * 1.5, 2 * 1.5**2 * 0.2 + 2 * 2 * 1.5 * 0.3 * -0.4]
    np.testing.assert_allclose(fn.inverse_dynamics(q, v, a), want, atol=1e-14)
    with pytest.raises(ValueError, match="backend"):
        to_function(eom, "c", parameters={m: 1, k: 1})
    with pytest.raises(ValueError, match="functions"):
        to_function(eom, parameters={m: 1, k: 1}, functions=("K",))
    with pytest.raises(ValueError, match="q must have shape"):
        fn.M([1.0, 2.0, 3.0])
