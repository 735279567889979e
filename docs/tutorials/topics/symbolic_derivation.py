r"""
Symbolic derivation with sympy
==============================

:mod:`robodyn.symbolic` derives equations of motion in closed form: from a Lagrangian
you write (:func:`robodyn.symbolic.lagrange`, course notes 001 eqs. 10.1-10.7) or from a
robodyn model (:func:`robodyn.symbolic.derive`), then turns them into LaTeX or fast numeric
code.
"""

import numpy as np
import sympy as sp

import robodyn as rd

np.set_printoptions(precision=5, suppress=True)

# %%
# From a Lagrangian: the RP arm
# -----------------------------
# The RP arm of course notes 001 (eqs. 10.5-10.6): a revolute joint q1 and a prismatic
# joint r along the arm; link 1 with inertia I1 about the joint, a point mass m2 at
# distance r, gravity along -y.
q1, r, dq1, dr = sp.symbols("q1 r qdot1 rdot", real=True)
m2, I1, g = sp.symbols("m2 I1 g", positive=True)
K = sp.Rational(1, 2) * I1 * dq1**2 + sp.Rational(1, 2) * m2 * (dr**2 + r**2 * dq1**2)
V = m2 * g * r * sp.sin(q1)
eom = rd.symbolic.lagrange(K=K, V=V, q=[q1, r], qd=[dq1, dr])
print("M =", eom.M)
print("C =", eom.C)
print("g =", eom.g)

# %%
# The Christoffel symbols and the centrifugal and Coriolis parts of :math:`C\dot q`:
print("Gamma =", eom.christoffel)
print("centrifugal:", eom.centrifugal.T, " Coriolis:", eom.coriolis.T)

# %%
# The equations, one per coordinate, as LaTeX:
print(eom.latex())

# %%
# From a model
# ------------
# ``derive`` builds the kinetic and potential energy of a robodyn model; with
# ``parameters="symbolic"`` the masses, lengths and inertias are named symbols
# (``eom.parameters`` holds the model's numbers for them).
arm = rd.models.load("planar_2r")
eom2 = rd.symbolic.derive(arm, parameters="symbolic")
print("M22 =", eom2.M[1, 1], "  C12 =", eom2.C[0, 1])

# %%
# :math:`\dot M - 2C` is skew-symmetric, symbolically:
Mdot = sum((eom2.M.diff(qk) * vk for qk, vk in zip(eom2.q, eom2.qd)), sp.zeros(2, 2))
N = Mdot - 2 * eom2.C
print("N + N^T =", sp.simplify(N + N.T))

# %%
# Numeric code
# ------------
# :func:`robodyn.symbolic.to_function` compiles the closed forms (after common
# subexpression elimination) into numpy functions that take batches. They agree with the
# recursive Newton-Euler algorithm:
fast = rd.symbolic.to_function(rd.symbolic.derive(arm))
rng = np.random.default_rng(0)
q, v, a = rng.normal(size=(3, 2))
print("closed form:", fast.inverse_dynamics(q, v, a))
print("RNEA:       ", rd.inverse_dynamics(arm, q, v, a, friction=False))

# %%
# :func:`robodyn.symbolic.generate_source` writes the same functions as Python source,
# to keep in a project without sympy:
print(rd.symbolic.generate_source(rd.symbolic.derive(arm), functions=("M",))[:900])
