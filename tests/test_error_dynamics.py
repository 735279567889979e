"""rd.control.error_dynamics and rd.control.gains_for (MR sec. 11.2; issue 31).

Oracles: the second-order closed forms typed from MR sec. 11.2.2 (omega_n = sqrt(k/m),
zeta = b / (2 sqrt(k m)), roots -zeta omega_n +- omega_n sqrt(zeta^2 - 1), overshoot
exp(-pi zeta / sqrt(1 - zeta^2)), 2 % settling time 4 / (zeta omega_n)); Vieta's relations
and the polynomial's residual at the roots; scipy's solve_ivp integrating the error ODE
(the response, its overshoot and the time it enters the 2 % band); the Routh-Hurwitz
condition of the PID cubic; the mass matrix's diagonal from Pinocchio (which parses the
URDFs itself) and from the modern_robotics package (the book's UR5 numbers).
"""

import json
from importlib import resources

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import robodyn as rd
from helpers import erd_path, figure_problems, load_pair

# (m, kp, kd): underdamped, critically damped, overdamped, undamped; an inertia not 1
CASES = [(1.0, 100.0, 12.0), (1.0, 100.0, 20.0), (1.0, 100.0, 50.0), (2.5, 40.0, 0.0),
         (0.37, 81.0, 3.0)]  # fmt: skip


def _ode_response(m, kp, kd, ki, t):
    """e(t) of m e'' + kd e' + kp e + ki int e = 0 from e(0) = 1, e'(0) = 0, int e = 0,
    integrated by scipy (RK45 to 1e-11)."""

    def f(_, x):  # x = [int e, e, e']
        return [x[1], x[2], -(ki * x[0] + kp * x[1] + kd * x[2]) / m]

    sol = solve_ivp(f, (t[0], t[-1]), [0.0, 1.0, 0.0], t_eval=t, rtol=1e-11, atol=1e-13)
    assert sol.success
    return sol.y[1]


@pytest.mark.parametrize("m, kp, kd", CASES)
def test_second_order_quantities_are_mr_closed_forms(m, kp, kd):
    ed = rd.control.error_dynamics(kp, kd, m=m)
    w = np.sqrt(kp / m)
    z = kd / (2.0 * np.sqrt(kp * m))
    assert ed.order == 2
    assert ed.omega_n == pytest.approx(w, rel=1e-15)
    assert ed.zeta == pytest.approx(z, rel=1e-15)
    want = sorted(
        -z * w + np.array([1, -1]) * w * np.sqrt(complex(z**2 - 1)), key=lambda s: -s.real
    )
    np.testing.assert_allclose(ed.roots, want, rtol=1e-13, atol=1e-12)
    s1, s2 = ed.roots
    assert s1 + s2 == pytest.approx(-kd / m, rel=1e-13, abs=1e-13)  # Vieta
    assert s1 * s2 == pytest.approx(kp / m, rel=1e-13)
    np.testing.assert_allclose(m * ed.roots**2 + kd * ed.roots + kp, 0, atol=1e-10 * kp)
    if z < 1:
        assert ed.overshoot == pytest.approx(np.exp(-np.pi * z / np.sqrt(1 - z**2)), rel=1e-14)
        assert ed.omega_d == pytest.approx(w * np.sqrt(1 - z**2), rel=1e-14)
    else:
        assert ed.overshoot == 0.0 and ed.omega_d == 0.0
    if z == 0:
        assert not ed.stable and ed.settling_time == np.inf and ed.overshoot == 1.0
    elif z <= 1:
        assert ed.settling_time == pytest.approx(4.0 / (z * w), rel=1e-14)
    else:  # the slower root dominates
        assert ed.settling_time == pytest.approx(4.0 / abs((-z + np.sqrt(z**2 - 1)) * w), rel=1e-12)


@pytest.mark.parametrize("m, kp, kd", CASES)
def test_the_step_response_is_the_integrated_error_equation(m, kp, kd):
    """response(t) against scipy integrating the ODE; for the underdamped cases the
    overshoot read off the integrated response is MR's formula, and the 2 % envelope
    exp(-zeta omega_n t) / sqrt(1 - zeta^2) bounds |e| (MR's settling-time argument)."""
    ed = rd.control.error_dynamics(kp, kd, m=m)
    t = np.linspace(0.0, 3.0, 30001)
    e = _ode_response(m, kp, kd, 0.0, t)
    np.testing.assert_allclose(ed.response(t), e, atol=2e-9)
    z, w = float(ed.zeta), float(ed.omega_n)
    if 0 < z < 1:
        assert -e.min() == pytest.approx(float(ed.overshoot), abs=1e-6)
        envelope = np.exp(-z * w * t) / np.sqrt(1 - z**2)
        assert np.all(np.abs(e) <= envelope + 1e-9)
    if 0 < z < 1:
        # |e| <= the envelope, which is inside 2 % from t = (ln 50 - ln sqrt(1 - zeta^2)) /
        # (zeta omega_n): MR's 4 / (zeta omega_n) rounds ln 50 = 3.91 up and drops the root
        last_out = t[np.abs(e) > 0.02][-1]  # e stays in the 2 % band after this
        assert last_out <= (np.log(50) - 0.5 * np.log(1 - z**2)) / (z * w)
        assert last_out <= 1.1 * float(ed.settling_time)


def test_pid_cubic_roots_stability_and_response():
    """m e''' + kd e'' + kp e' + ki e = 0: its roots, Routh-Hurwitz (kd kp > m ki), the
    response integrated by scipy; the second-order quantities are NaN."""
    m, kp, kd = 1.0, 100.0, 20.0
    for ki, stable in ((200.0, True), (1999.0, True), (2001.0, False)):
        ed = rd.control.error_dynamics(kp, kd, ki, m=m)
        assert ed.order == 3
        np.testing.assert_allclose(np.polyval([m, kd, kp, ki], ed.roots), 0, atol=1e-8 * ki)
        assert ed.roots.sum() == pytest.approx(-kd / m, rel=1e-12)
        assert -np.prod(ed.roots).real == pytest.approx(ki / m, rel=1e-10)
        assert bool(ed.stable) is stable is (kd * kp > m * ki)
        assert np.isnan(ed.zeta) and np.isnan(ed.omega_n) and np.isnan(ed.overshoot)
        slow = -ed.roots.real.max()
        assert ed.settling_time == (pytest.approx(4.0 / slow, rel=1e-12) if stable else np.inf)
        t = np.linspace(0.0, 2.0, 2001)
        np.testing.assert_allclose(ed.response(t), _ode_response(m, kp, kd, ki, t), atol=1e-8)


def test_vector_gains_give_per_joint_results_and_a_readable_figure(tmp_path):
    kp, kd, m = np.array([100.0, 400.0, 25.0]), np.array([12.0, 40.0, 10.0]), 1.0
    ed = rd.control.error_dynamics(kp, kd, m=m)
    assert ed.shape == (3,) and ed.roots.shape == (3, 2)
    np.testing.assert_allclose(ed.zeta, kd / (2 * np.sqrt(kp)), rtol=1e-15)
    for j in range(3):
        one = rd.control.error_dynamics(kp[j], kd[j])
        assert ed.settling_time[j] == one.settling_time
    t = np.linspace(0, 1, 11)
    assert ed.response(t).shape == (3, 11)
    fig = ed.plot()
    assert figure_problems(fig) == []
    ax = fig.axes[0]
    assert ax.get_xlabel() == "t (s)" and "e(t) / e(0)" in ax.get_ylabel()
    fig1 = rd.control.error_dynamics(100.0, 12.0).plot(tmp_path / "e.png")
    assert figure_problems(fig1) == [] and (tmp_path / "e.png").stat().st_size > 10_000
    assert "zeta 0.6" in fig1.axes[0].get_title()
    with pytest.raises(FileExistsError, match="the file exists"):
        rd.control.error_dynamics(100.0, 12.0).plot(tmp_path / "e.png")
    assert figure_problems(rd.control.error_dynamics(100.0, 20.0, 200.0).plot()) == []


def test_bad_gains_are_named():
    with pytest.raises(ValueError, match=r"kp must be finite and > 0, got 0\.0"):
        rd.control.error_dynamics(0.0, 1.0)
    with pytest.raises(ValueError, match=r"kd must be finite and >= 0"):
        rd.control.error_dynamics(1.0, -1.0)
    with pytest.raises(ValueError, match=r"ki must be finite and >= 0"):
        rd.control.error_dynamics(1.0, 1.0, np.nan)
    with pytest.raises(ValueError, match=r"m must be finite and > 0"):
        rd.control.error_dynamics(1.0, 1.0, m=0.0)
    with pytest.raises(ValueError, match=r"kp \(2,\), kd \(3,\), ki \(\) and m \(\) do not"):
        rd.control.error_dynamics([1.0, 2.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"t must be a finite vector"):
        rd.control.error_dynamics(1.0, 1.0).response([[0.0]])


# ------------------------------------------------------------------------ gains_for
def _check_gains(model, M_diag, zeta, omega_n):
    """gains_for at the neutral configuration gives each joint, alone (M_jj e'' + kd e' +
    kp e = 0), the asked damping ratio and natural frequency, computed here from the gains
    and the oracle's M_jj; error_dynamics says the same."""
    kp, kd = rd.control.gains_for(model, zeta, omega_n)
    assert kp.shape == kd.shape == M_diag.shape == (model.nv,)
    np.testing.assert_allclose(kd / (2 * np.sqrt(kp * M_diag)), zeta, rtol=1e-9)
    np.testing.assert_allclose(np.sqrt(kp / M_diag), omega_n, rtol=1e-9)
    ed = rd.control.error_dynamics(kp, kd, m=M_diag)
    np.testing.assert_allclose(ed.zeta, zeta, rtol=1e-9)
    # (at zeta = 1 the roots split as sqrt(zeta - 1): zeta's rounding moves them by ~1e-8)
    np.testing.assert_allclose(ed.settling_time, 4 / (zeta * omega_n), rtol=1e-7)


@pytest.mark.parametrize("fragment", ["ur_description/urdf/ur5_robot",
                                      "panda_description/urdf/panda"])  # fmt: skip
@pytest.mark.parametrize("zeta, omega_n", [(1.0, 10.0), (0.7, 25.0)])
def test_gains_for_gives_every_urdf_joint_the_asked_response(fragment, zeta, omega_n):
    import pinocchio as pin

    model, pm, pdata, pmap = load_pair(erd_path(fragment))
    q = rd.neutral(model)  # (the Panda's: its joint 4 range excludes 0)
    M = pmap.matrix_from_pin(pin.crba(pm, pdata, pmap.q_to_pin(q)))
    M_diag = np.diag(M) + np.asarray(model.dof_armature)  # the URDF's armature (zero here)
    _check_gains(model, M_diag, zeta, omega_n)


def test_gains_for_gives_every_joint_of_the_books_ur5_the_asked_response():
    """The bundled UR5 (the book's numbers) against the modern_robotics package's MassMatrix
    on the numbers of the bundled file, parsed here."""
    import modern_robotics as mr

    text = resources.files("robodyn.model").joinpath("data", "ur5.json").read_text("utf-8")
    d = json.loads(text)
    Slist, Mlist, Glist = (np.array(d[k], dtype=float) for k in ("Slist", "Mlist", "Glist"))
    M = mr.MassMatrix(np.zeros(6), Mlist, Glist, Slist)
    _check_gains(rd.models.load("ur5"), np.diag(M), 0.8, 12.0)
