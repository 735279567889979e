"""State-major (lane) batch kernels: RNEA and ABA vectorised across states.

The per-state batch kernels (:func:`~robodyn.kernels.rnea.rnea_batch`,
:func:`~robodyn.kernels.aba.aba_batch`) run the scalar algorithm once per state; LLVM
cannot vectorise a tree walk of 3-vectors. Here every chunk of ``L`` states runs the
algorithm together: each per-body quantity is stored as ``L`` lanes (flat workspaces laid
out ``(nb, fields, L)``, see :func:`_ix`), and every arithmetic line is in a loop over the
lanes whose control flow is the same for all lanes (the tree and the joint types do not
depend on the state). LLVM turns those loops into AVX2 vector code, 4 doubles per
instruction.

The equations are those of :func:`~robodyn.kernels.rnea.rnea_core` (MR eqs. 8.50-8.54)
and :func:`~robodyn.kernels.aba.aba_core` (Featherstone table 7.1), term for term, so a
lane result equals the per-state result up to rounding (FMA contraction, the order of a
few sums: a few ulps). q, v, a / tau are transposed into lane-major buffers at the start
of a chunk and the result is transposed out at the end; the last chunk pads its unused
lanes with a copy of its first state.

LLVM vectorises a lane loop (checked on the assembly: ``inspect_asm``, ymm registers, and on
where a profile spends its time) only when

* within one array, the loop touches a single body row (fields at constant distances);
  with a second row of the same array (the parent's) it cannot tell the stores from the
  loads and leaves the loop scalar. Several arrays are fine: LLVM checks at run time that
  they do not overlap and has a scalar fallback. So a parent's values are first copied
  into a small scratch array ``S`` (:func:`_copy`, one flat loop over ``fields * L``
  doubles), what a body gives its parent goes through ``S`` (:func:`_add`), and ABA keeps
  its articulated inertias and bias wrenches in their own array ``A``;
* those run-time checks are made and pass: the row length is read from the array (with
  it a compile-time constant, LLVM left the loops that need checks scalar), and a loop
  over the bodies from the leaves down reads the body index from an array (``down``): as
  a decreasing induction variable it makes the checks, which LLVM hoists out of that
  loop, fail every time, so the scalar fallback runs;
* the loop is long and simple: a short loop of ``L`` iterations is unrolled before the
  vectoriser sees it; a load under a condition, a tuple indexed by a loop variable (a
  switch) or the rows of a 2-d lane buffer (not at constant distances: too many run-time
  checks) keep it scalar;
* every joint type runs the same lane loop: the joint rate is ``[s_w r; s_v r]`` with
  constant 3-vectors ``s_w, s_v`` (the axis or 0) and ``r`` from lane row ``k1`` (the
  joint's dof, or a row of zeros for a fixed or free joint), plus the 6 rates of a free
  joint from rows ``kf..kf+5`` (rows of zeros for the other joints); a fixed joint in ABA
  gets ``1/D = 0``.

ABA stores the symmetric 6x6 articulated inertias as their upper triangle (21 floats,
row by row: (0,0..5), (1,1..5), ..., (5,5)), which keeps a Talos chunk in L2.

Supported: revolute, prismatic, fixed and free joints (ABA: a free joint only on a child
of the world), friction, armature, gravity. Not supported (the wrappers use the per-state
kernels): mimic joints and external wrenches. Any bad input (non-finite number, zero
quaternion, singular articulated inertia) makes a kernel return a nonzero status without
saying which state; the wrapper then reruns the per-state kernel, which names it.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ._pack import (
    BF_A1,
    BF_A2,
    BF_AXIS,
    BF_H,
    BF_IO,
    BF_MASS,
    BF_MULT,
    BF_OFF,
    BF_P0,
    BF_R0,
    BF_RA,
    BI_PARENT,
    BI_QIDX,
    BI_TYPE,
    BI_VIDX,
    FL_ACC,
    FL_ARMATURE,
    FL_CHECK,
    FL_FRICTION,
    FL_GRAVITY,
    FL_VEL,
    HF,
    HI,
    J_FREE,
    J_PRISMATIC,
    J_REVOLUTE,
    WF,
    WI,
)
from ._small import coulomb, cross, mm, rot_sandwich, skew_left, transpose9, wrench_to_parent

# lanes per chunk: below 16 iterations LLVM treats a loop as tiny and adds no run-time
# overlap checks, so the lane loops (4 AVX2 registers wide) would stay scalar
L = 16
U = np.uint64
_GROUPS = 256  # prange iterations (each allocates its workspaces once)
_K = tuple([U(k * L) for k in range(27)])  # field k of a row starts k * L after field 0

_opts = dict(cache=True, nogil=True, fastmath={"contract"}, error_model="numpy")
_jit = njit(**_opts)
_inl = njit(inline="always", **_opts)

# RNEA workspace W, per body: R, p = T_{lambda(i), i} (0:12), V (12:18), dV (18:24),
# F (24:30). Scratch S: V_lambda, dV_lambda (0:12), Ad^T F_i for the parent (12:18).
WR = 30
SR = 18
# ABA workspace W, per body: R, p (0:12), V in pass 1 and dV in pass 3 (12:18), c (18:24),
# U = IA S (24:30), 1/D (30), u (31); a free joint also: the Cholesky factor of D (32:53,
# packed like IA), u (53:59), qdd (59:65). Accumulators A, per body: IA (0:21, upper
# triangle), pA (21:27). Scratch S: V_lambda or dV_lambda (0:6), Ia, pa (6:33).
WB = 65
WA = 27
SB = 33


@_inl
def _ix(i, k, l, RL):
    """Flat index of field k, lane l of body i in a workspace with RL = fields * L floats a
    row. Unsigned, so numba emits no negative-index wraparound (which would keep LLVM from
    seeing the accesses of a lane loop at constant distances)."""
    return U(i * RL + k * L + l)


@_inl
def _coulomb(fr, x, eps):
    """_small.coulomb, with the eps = 0 case (fr sgn x) inline so a lane loop vectorises."""
    if eps > 0.0:
        return coulomb(fr, x, eps)
    return fr if x > 0.0 else (-fr if x < 0.0 else 0.0)


@_inl
def _sincos(x):
    """(sin x, cos x) for |x| < 1e5 in arithmetic only, so that a lane loop vectorises
    (libm's sin and cos are scalar calls). Cody-Waite reduction x = n pi/2 + r with pi/2 in
    three parts (exact products n * part for |n| < 2^20), then minimax polynomials on
    |r| <= pi/4 (Cephes' sin/cos coefficients): within 1-2 ulp of libm."""
    n = math.floor(x * 0.6366197723675814 + 0.5)  # 2/pi
    r = x - n * 1.57079632673412561417e00
    r = r - n * 6.07710050630396597660e-11
    r = r - n * 2.02226624871116645580e-21
    z = r * r
    ps = 1.58962301576546568060e-10
    ps = ps * z - 2.50507477628578072866e-8
    ps = ps * z + 2.75573136213857245213e-6
    ps = ps * z - 1.98412698295895385996e-4
    ps = ps * z + 8.33333333332211858878e-3
    ps = ps * z - 1.66666666666666307295e-1
    sr = r + r * z * ps
    pc = -1.13585365213876817300e-11
    pc = pc * z + 2.08757008419747316778e-9
    pc = pc * z - 2.75573141792967388112e-7
    pc = pc * z + 2.48015872888517045348e-5
    pc = pc * z - 1.38888888888730564116e-3
    pc = pc * z + 4.16666666666665929218e-2
    cr = 1.0 - 0.5 * z + z * z * pc
    # quadrant k = n mod 4: (sin, cos) = (s, c), (c, -s), (-s, -c), (-c, s)
    k = n - 4.0 * math.floor(n * 0.25)
    odd = k == 1.0 or k == 3.0
    sn = cr if odd else sr
    cs = sr if odd else cr
    if k >= 2.0:
        sn = -sn
    if k == 1.0 or k == 2.0:
        cs = -cs
    return sn, cs


@_inl
def _symv(T, x0, x1, x2, x3, x4, x5):
    """M x for the symmetric 6x6 M whose upper triangle is the 21-tuple T (row by row:
    (0,0..5), (1,1..5), ..., (5,5))."""
    return (
        T[0] * x0 + T[1] * x1 + T[2] * x2 + T[3] * x3 + T[4] * x4 + T[5] * x5,
        T[1] * x0 + T[6] * x1 + T[7] * x2 + T[8] * x3 + T[9] * x4 + T[10] * x5,
        T[2] * x0 + T[7] * x1 + T[11] * x2 + T[12] * x3 + T[13] * x4 + T[14] * x5,
        T[3] * x0 + T[8] * x1 + T[12] * x2 + T[15] * x3 + T[16] * x4 + T[17] * x5,
        T[4] * x0 + T[9] * x1 + T[13] * x2 + T[16] * x3 + T[18] * x4 + T[19] * x5,
        T[5] * x0 + T[10] * x1 + T[14] * x2 + T[17] * x3 + T[19] * x4 + T[20] * x5,
    )


@_inl
def _load21(X, i, o, l, RL):
    """The 21 fields X[i, o:o+21] of lane l as a tuple."""
    b = _ix(i, o, l, RL)
    return (
        X[b],
        X[b + _K[1]],
        X[b + _K[2]],
        X[b + _K[3]],
        X[b + _K[4]],
        X[b + _K[5]],
        X[b + _K[6]],
        X[b + _K[7]],
        X[b + _K[8]],
        X[b + _K[9]],
        X[b + _K[10]],
        X[b + _K[11]],
        X[b + _K[12]],
        X[b + _K[13]],
        X[b + _K[14]],
        X[b + _K[15]],
        X[b + _K[16]],
        X[b + _K[17]],
        X[b + _K[18]],
        X[b + _K[19]],
        X[b + _K[20]],
    )


@_inl
def _load6(X, i, o, l, RL):
    """The 6 fields X[i, o:o+6] of lane l as a tuple."""
    b = _ix(i, o, l, RL)
    return X[b], X[b + _K[1]], X[b + _K[2]], X[b + _K[3]], X[b + _K[4]], X[b + _K[5]]


@_inl
def _load12(X, i, l, RL):
    """R (9-tuple, row-major) and p of lane l from X[i, 0:12]."""
    b = _ix(i, 0, l, RL)
    R = (
        X[b], X[b + _K[1]], X[b + _K[2]], X[b + _K[3]], X[b + _K[4]], X[b + _K[5]],
        X[b + _K[6]], X[b + _K[7]], X[b + _K[8]],
    )  # fmt: skip
    return R, X[b + _K[9]], X[b + _K[10]], X[b + _K[11]]


@_inl
def _store6(X, i, o, l, RL, a, b, c, d, e, f):
    """X[i, o:o+6, l] = (a, b, c, d, e, f)."""
    k = _ix(i, o, l, RL)
    X[k] = a
    X[k + _K[1]] = b
    X[k + _K[2]] = c
    X[k + _K[3]] = d
    X[k + _K[4]] = e
    X[k + _K[5]] = f


@_inl
def _store21(X, i, o, l, RL, T):
    """X[i, o:o+21, l] = T."""
    b = _ix(i, o, l, RL)
    X[b] = T[0]
    X[b + _K[1]] = T[1]
    X[b + _K[2]] = T[2]
    X[b + _K[3]] = T[3]
    X[b + _K[4]] = T[4]
    X[b + _K[5]] = T[5]
    X[b + _K[6]] = T[6]
    X[b + _K[7]] = T[7]
    X[b + _K[8]] = T[8]
    X[b + _K[9]] = T[9]
    X[b + _K[10]] = T[10]
    X[b + _K[11]] = T[11]
    X[b + _K[12]] = T[12]
    X[b + _K[13]] = T[13]
    X[b + _K[14]] = T[14]
    X[b + _K[15]] = T[15]
    X[b + _K[16]] = T[16]
    X[b + _K[17]] = T[17]
    X[b + _K[18]] = T[18]
    X[b + _K[19]] = T[19]
    X[b + _K[20]] = T[20]


@_inl
def _acc27(X, i, l, RL, P, g):
    """X[i, 0:27, l] += (P, g) for the 21-tuple P and the 6-tuple g."""
    b = _ix(i, 0, l, RL)
    X[b] += P[0]
    X[b + _K[1]] += P[1]
    X[b + _K[2]] += P[2]
    X[b + _K[3]] += P[3]
    X[b + _K[4]] += P[4]
    X[b + _K[5]] += P[5]
    X[b + _K[6]] += P[6]
    X[b + _K[7]] += P[7]
    X[b + _K[8]] += P[8]
    X[b + _K[9]] += P[9]
    X[b + _K[10]] += P[10]
    X[b + _K[11]] += P[11]
    X[b + _K[12]] += P[12]
    X[b + _K[13]] += P[13]
    X[b + _K[14]] += P[14]
    X[b + _K[15]] += P[15]
    X[b + _K[16]] += P[16]
    X[b + _K[17]] += P[17]
    X[b + _K[18]] += P[18]
    X[b + _K[19]] += P[19]
    X[b + _K[20]] += P[20]
    X[b + _K[21]] += g[0]
    X[b + _K[22]] += g[1]
    X[b + _K[23]] += g[2]
    X[b + _K[24]] += g[3]
    X[b + _K[25]] += g[4]
    X[b + _K[26]] += g[5]


@_inl
def _joint_rate(sw, sv, mu, x, k1, kf, l):
    """S_i x_i in lane l: ``[sw; sv] mu x[k1] + x[kf]`` (a 1-dof joint's axis scaled by its
    rate, plus the six rows kf of a free joint's; the unused parts are zero rows)."""
    r = mu * x[k1, l]
    return (
        sw[0] * r + x[kf[0], l], sw[1] * r + x[kf[1], l], sw[2] * r + x[kf[2], l],
        sv[0] * r + x[kf[3], l], sv[1] * r + x[kf[4], l], sv[2] * r + x[kf[5], l],
    )  # fmt: skip


@_inl
def _motion_from_parent(R, px, py, pz, X):
    """Ad_{T_{i,lambda}} [w_l; v_l] = [R^T w_l; R^T (v_l + w_l x p)], (R, p) = T_{lambda,i},
    X = (w_l, v_l) a 6-tuple."""
    lwx, lwy, lwz, lvx, lvy, lvz = X
    cx, cy, cz = cross(lwx, lwy, lwz, px, py, pz)
    tx, ty, tz = lvx + cx, lvy + cy, lvz + cz
    return (
        R[0] * lwx + R[3] * lwy + R[6] * lwz,
        R[1] * lwx + R[4] * lwy + R[7] * lwz,
        R[2] * lwx + R[5] * lwy + R[8] * lwz,
        R[0] * tx + R[3] * ty + R[6] * tz,
        R[1] * tx + R[4] * ty + R[7] * tz,
        R[2] * tx + R[5] * ty + R[8] * tz,
    )


@_jit
def supported(I, aba):
    """True if the lane kernels handle the model packed in I (no mimic; ABA: free joints
    only on children of the world)."""
    if I[3]:
        return False
    for i in range(1, I[0]):
        bi = HI + WI * i
        if aba and I[bi + BI_TYPE] == J_FREE and I[bi + BI_PARENT] != 0:
            return False
    return True


@_jit
def _load(X, s0, nl, out, check):
    """out[k, l] = X[s0 + l, k] for the chunk (lanes nl.. repeat lane 0; rows of out past
    X's columns are left alone). False if not finite and check is set."""
    n = X.shape[1]
    for l in range(L):
        s = s0 + l if l < nl else s0
        for k in range(n):
            out[k, l] = X[s, k]
    if check:
        for k in range(n):
            for l in range(nl):
                if not math.isfinite(out[k, l]):
                    return False
    return True


@_jit
def _store(out, X, s0, nl):
    """X[s0 + l, k] = out[k, l] for the nl live lanes."""
    n = X.shape[1]
    for l in range(nl):
        for k in range(n):
            X[s0 + l, k] = out[k, l]


@_jit
def _copy(src, so, dst, do, n):
    """dst[do:do+n] = src[so:so+n] (flat: n = fields * L)."""
    for j in range(U(n)):
        dst[U(do) + j] = src[U(so) + j]


@_jit
def _add(src, so, dst, do, n):
    """dst[do:do+n] += src[so:so+n] (flat: n = fields * L)."""
    for j in range(U(n)):
        dst[U(do) + j] += src[U(so) + j]


@_jit
def _rows(I, F, i, nv):
    """Lane rows and axes of the joint rate of body i: (k1, kf, s_w, s_v, free) with
    S_i qd_i = [s_w r; s_v r] + [x[kf0:kf3]; x[kf3:kf6]], r = mult * x[k1], kf = (kf0, ..,
    kf5) consecutive (rows nv.. of the lane buffers are zeros: k1 = nv for a fixed or free
    joint, kf0 = nv + 1 unless free)."""
    bi = HI + WI * i
    bf = HF + WF * i
    jt = I[bi + BI_TYPE]
    va = I[bi + BI_VIDX]
    ax, ay, az = F[bf + BF_AXIS], F[bf + BF_AXIS + 1], F[bf + BF_AXIS + 2]
    rev = jt == J_REVOLUTE
    pri = jt == J_PRISMATIC
    k1 = va if rev or pri else nv
    kf = va if jt == J_FREE else nv + 1
    sw = (ax, ay, az) if rev else (0.0, 0.0, 0.0)
    sv = (ax, ay, az) if pri else (0.0, 0.0, 0.0)
    # unsigned rows: numba emits no negative-index wraparound, so LLVM sees the 6 rows of a
    # free joint at constant distances
    kfs = (U(kf), U(kf + 1), U(kf + 2), U(kf + 3), U(kf + 4), U(kf + 5))
    return U(k1), kfs, sw, sv, jt == J_FREE


@_jit
def _pose(I, F, q, i, W, RL):
    """W[i, 0:12, :] = T_{lambda(i), i}(q) per lane (see _small.joint_pose). False on a zero
    quaternion."""
    bi = HI + WI * i
    bf = HF + WF * i
    jt = I[bi + BI_TYPE]
    qa = I[bi + BI_QIDX]
    if jt == J_REVOLUTE:
        # R = R0 + sin th R0 [a] + (1 - cos th) R0 [a]^2  (MR eq. 3.51)
        mu, off = F[bf + BF_MULT], F[bf + BF_OFF]
        r0, r1, r2 = F[bf + BF_R0], F[bf + BF_R0 + 1], F[bf + BF_R0 + 2]
        r3, r4, r5 = F[bf + BF_R0 + 3], F[bf + BF_R0 + 4], F[bf + BF_R0 + 5]
        r6, r7, r8 = F[bf + BF_R0 + 6], F[bf + BF_R0 + 7], F[bf + BF_R0 + 8]
        a0, a1, a2 = F[bf + BF_A1], F[bf + BF_A1 + 1], F[bf + BF_A1 + 2]
        a3, a4, a5 = F[bf + BF_A1 + 3], F[bf + BF_A1 + 4], F[bf + BF_A1 + 5]
        a6, a7, a8 = F[bf + BF_A1 + 6], F[bf + BF_A1 + 7], F[bf + BF_A1 + 8]
        b0, b1, b2 = F[bf + BF_A2], F[bf + BF_A2 + 1], F[bf + BF_A2 + 2]
        b3, b4, b5 = F[bf + BF_A2 + 3], F[bf + BF_A2 + 4], F[bf + BF_A2 + 5]
        b6, b7, b8 = F[bf + BF_A2 + 6], F[bf + BF_A2 + 7], F[bf + BF_A2 + 8]
        big = 0
        for l in range(L):
            th = mu * q[qa, l] + off
            big += 0 if abs(th) < 1e5 else 1
            s, c = _sincos(th)
            c = 1.0 - c
            W[_ix(i, 0, l, RL)] = r0 + s * a0 + c * b0
            W[_ix(i, 1, l, RL)] = r1 + s * a1 + c * b1
            W[_ix(i, 2, l, RL)] = r2 + s * a2 + c * b2
            W[_ix(i, 3, l, RL)] = r3 + s * a3 + c * b3
            W[_ix(i, 4, l, RL)] = r4 + s * a4 + c * b4
            W[_ix(i, 5, l, RL)] = r5 + s * a5 + c * b5
            W[_ix(i, 6, l, RL)] = r6 + s * a6 + c * b6
            W[_ix(i, 7, l, RL)] = r7 + s * a7 + c * b7
            W[_ix(i, 8, l, RL)] = r8 + s * a8 + c * b8
        if big:  # far outside the reduction's range (or not finite): libm's sin and cos
            for l in range(L):
                th = mu * q[qa, l] + off
                s, c = math.sin(th), 1.0 - math.cos(th)
                for k in range(9):
                    W[_ix(i, k, l, RL)] = (
                        F[bf + BF_R0 + k] + s * F[bf + BF_A1 + k] + c * F[bf + BF_A2 + k]
                    )
        for k in range(3):
            p0 = F[bf + BF_P0 + k]
            for l in range(L):
                W[_ix(i, 9 + k, l, RL)] = p0
    elif jt == J_PRISMATIC:
        # R = R0, p = p0 + d R0 axis
        mu, off = F[bf + BF_MULT], F[bf + BF_OFF]
        for k in range(9):
            r0 = F[bf + BF_R0 + k]
            for l in range(L):
                W[_ix(i, k, l, RL)] = r0
        for k in range(3):
            p0, ra = F[bf + BF_P0 + k], F[bf + BF_RA + k]
            for l in range(L):
                W[_ix(i, 9 + k, l, RL)] = p0 + (mu * q[qa, l] + off) * ra
    elif jt == J_FREE:
        # R = R0 R(quat), p = p0 + R0 xyz; R(quat) normalised on the fly (_small.quat_rot)
        R0 = (
            F[bf + BF_R0], F[bf + BF_R0 + 1], F[bf + BF_R0 + 2],
            F[bf + BF_R0 + 3], F[bf + BF_R0 + 4], F[bf + BF_R0 + 5],
            F[bf + BF_R0 + 6], F[bf + BF_R0 + 7], F[bf + BF_R0 + 8],
        )  # fmt: skip
        p0x, p0y, p0z = F[bf + BF_P0], F[bf + BF_P0 + 1], F[bf + BF_P0 + 2]
        zero = 0
        for l in range(L):
            w, x, y, z = q[qa + 3, l], q[qa + 4, l], q[qa + 5, l], q[qa + 6, l]
            n2 = w * w + x * x + y * y + z * z
            zero += 1 if n2 == 0.0 else 0
            s = 2.0 / n2
            Rq = (
                1.0 - s * (y * y + z * z), s * (x * y - w * z), s * (x * z + w * y),
                s * (x * y + w * z), 1.0 - s * (x * x + z * z), s * (y * z - w * x),
                s * (x * z - w * y), s * (y * z + w * x), 1.0 - s * (x * x + y * y),
            )  # fmt: skip
            Rm = mm(R0, Rq)
            for k in range(9):
                W[_ix(i, k, l, RL)] = Rm[k]
            x, y, z = q[qa, l], q[qa + 1, l], q[qa + 2, l]
            W[_ix(i, 9, l, RL)] = p0x + (R0[0] * x + R0[1] * y + R0[2] * z)
            W[_ix(i, 10, l, RL)] = p0y + (R0[3] * x + R0[4] * y + R0[5] * z)
            W[_ix(i, 11, l, RL)] = p0z + (R0[6] * x + R0[7] * y + R0[8] * z)
        if zero:
            return False
    else:
        for k in range(12):
            f0 = F[bf + BF_R0 + k] if k < 9 else F[bf + BF_P0 + k - 9]
            for l in range(L):
                W[_ix(i, k, l, RL)] = f0
    return True


@_jit
def _rnea_chunk(I, F, flags, eps, q, v, a, tau, W, S, down):
    """RNEA for the L states in q (nq, L), v, a (nv + 7, L; rows nv.. zero) into tau
    (nv + 1, L). False on a zero quaternion."""
    nb, nv = I[0], I[2]
    RL = W.shape[0] // nb  # = WR * L, read from W: as a constant it stops the vectoriser
    # base: V_0 = 0, dV_0 = [0, -g]
    for k in range(12, 24):
        g = 0.0
        if flags & FL_GRAVITY and 21 <= k:
            g = -F[k - 21]
        for l in range(L):
            W[_ix(0, k, l, RL)] = g
    # ---- forward pass, i = 1..n: MR eqs. 8.50-8.52
    for i in range(1, nb):
        bf = HF + WF * i
        lam = I[HI + WI * i + BI_PARENT]
        if not _pose(I, F, q, i, W, RL):
            return False
        _copy(W, lam * RL + 12 * L, S, 0, 12 * L)  # V_lambda, dV_lambda
        k1, kf, sw, sv, free = _rows(I, F, i, nv)
        mu = F[bf + BF_MULT]
        m = F[bf + BF_MASS]
        hx, hy, hz = F[bf + BF_H], F[bf + BF_H + 1], F[bf + BF_H + 2]
        I0, I1, I2 = F[bf + BF_IO], F[bf + BF_IO + 1], F[bf + BF_IO + 2]
        I3, I4, I5 = F[bf + BF_IO + 3], F[bf + BF_IO + 4], F[bf + BF_IO + 5]
        I6, I7, I8 = F[bf + BF_IO + 6], F[bf + BF_IO + 7], F[bf + BF_IO + 8]
        for l in range(L):
            R, px, py, pz = _load12(W, i, l, RL)
            # S_i qd_i and S_i qdd_i
            jwx, jwy, jwz, jvx, jvy, jvz = _joint_rate(sw, sv, mu, v, k1, kf, l)
            awx, awy, awz, avx, avy, avz = _joint_rate(sw, sv, mu, a, k1, kf, l)
            # 8.50: V_i = Ad_{T_{i,lambda}} V_lambda + S_i qd_i
            lw = _load6(S, 0, 0, l, 0)
            ew, ex, ey, vx0, vy0, vz0 = _motion_from_parent(R, px, py, pz, lw)
            wx, wy, wz = ew + jwx, ex + jwy, ey + jwz
            vx, vy, vz = vx0 + jvx, vy0 + jvy, vz0 + jvz
            # 8.51: dV_i = Ad_{T_{i,lambda}} dV_lambda + ad_{V_i}(S_i qd_i) + S_i qdd_i
            ld = _load6(S, 0, 6, l, 0)
            gwx, gwy, gwz, gvx, gvy, gvz = _motion_from_parent(R, px, py, pz, ld)
            e1x, e1y, e1z = cross(wx, wy, wz, jwx, jwy, jwz)
            e2x, e2y, e2z = cross(wx, wy, wz, jvx, jvy, jvz)
            e3x, e3y, e3z = cross(vx, vy, vz, jwx, jwy, jwz)
            dwx, dwy, dwz = gwx + e1x + awx, gwy + e1y + awy, gwz + e1z + awz
            dvx = gvx + e2x + e3x + avx
            dvy = gvy + e2y + e3y + avy
            dvz = gvz + e2z + e3z + avz
            _store6(W, i, 12, l, RL, wx, wy, wz, vx, vy, vz)
            _store6(W, i, 18, l, RL, dwx, dwy, dwz, dvx, dvy, dvz)
            # 8.53 (own part): F_i = G_i dV_i - ad_{V_i}^T (G_i V_i)
            c1x, c1y, c1z = cross(hx, hy, hz, vx, vy, vz)
            kx = I0 * wx + I1 * wy + I2 * wz + c1x
            ky = I3 * wx + I4 * wy + I5 * wz + c1y
            kz = I6 * wx + I7 * wy + I8 * wz + c1z
            c2x, c2y, c2z = cross(hx, hy, hz, wx, wy, wz)
            lx, ly, lz = m * vx - c2x, m * vy - c2y, m * vz - c2z
            c3x, c3y, c3z = cross(hx, hy, hz, dvx, dvy, dvz)
            c4x, c4y, c4z = cross(hx, hy, hz, dwx, dwy, dwz)
            c5x, c5y, c5z = cross(wx, wy, wz, kx, ky, kz)
            c6x, c6y, c6z = cross(vx, vy, vz, lx, ly, lz)
            c7x, c7y, c7z = cross(wx, wy, wz, lx, ly, lz)
            _store6(
                W, i, 24, l, RL,
                I0 * dwx + I1 * dwy + I2 * dwz + c3x + c5x + c6x,
                I3 * dwx + I4 * dwy + I5 * dwz + c3y + c5y + c6y,
                I6 * dwx + I7 * dwy + I8 * dwz + c3z + c5z + c6z,
                m * dvx - c4x + c7x,
                m * dvy - c4y + c7y,
                m * dvz - c4z + c7z,
            )  # fmt: skip
    # ---- backward pass, i = n..1: MR eqs. 8.53-8.54 (i from `down`)
    for j in range(nb - 1):
        i = down[j]
        bi = HI + WI * i
        bf = HF + WF * i
        lam = I[bi + BI_PARENT]
        k1, kf, sw, sv, free = _rows(I, F, i, nv)
        mu = F[bf + BF_MULT]
        for l in range(L):
            R, px, py, pz = _load12(W, i, l, RL)
            mx, my, mz, fx, fy, fz = _load6(W, i, 24, l, RL)
            # 8.54: tau_i = S_i^T F_i (a fixed or free joint writes the zero row nv)
            tau[k1, l] = mu * (
                sw[0] * mx + sw[1] * my + sw[2] * mz + sv[0] * fx + sv[1] * fy + sv[2] * fz
            )
            # 8.53 (child part): F_lambda += Ad_{T_{i,lambda}}^T F_i = [R m + p x (R f); R f]
            gmx, gmy, gmz, gfx, gfy, gfz = wrench_to_parent(R, px, py, pz, mx, my, mz, fx, fy, fz)
            _store6(S, 0, 12, l, 0, gmx, gmy, gmz, gfx, gfy, gfz)
        if free:  # free joint: tau_i = F_i
            for k in range(6):
                for l in range(L):
                    tau[kf[k], l] = W[_ix(i, 24 + k, l, RL)]
        if lam > 0:
            _add(S, 12 * L, W, lam * RL + 24 * L, 6 * L)
    # ---- joint friction and rotor inertia: tau += b qd + f_c sgn(qd) + armature qdd
    d = HF + WF * nb
    if flags & FL_FRICTION and flags & FL_VEL:
        for k in range(nv):
            if F[d + k] == 0.0 and F[d + nv + k] == 0.0:
                continue  # adds exactly 0
            for l in range(L):
                tau[k, l] += F[d + k] * v[k, l] + _coulomb(F[d + nv + k], v[k, l], eps)
    if flags & FL_ARMATURE and flags & FL_ACC:
        for k in range(nv):
            for l in range(L):
                tau[k, l] += F[d + 2 * nv + k] * a[k, l]
    return True


@njit(parallel=True, **_opts)
def rnea_lanes(I, F, Q, V, A, flags, eps, TAU):
    """Inverse dynamics over the rows of Q (N, nq), V, A (N, nv) into TAU (N, nv).

    V / A are read only with FL_VEL / FL_ACC set (pass Q otherwise). Returns 0, or 1 if
    some state failed (non-finite input, zero quaternion): rerun the per-state kernel to
    find which.
    """
    nb, nq, nv = I[0], I[1], I[2]
    N = Q.shape[0]
    nchunk = (N + L - 1) // L
    ng = min(nchunk, _GROUPS)
    bad = np.zeros(max(ng, 1), dtype=np.int64)
    check = (flags & FL_CHECK) != 0
    use_v = (flags & FL_VEL) != 0
    use_a = (flags & FL_ACC) != 0
    for g in prange(ng):
        W = np.empty(nb * WR * L)
        S = np.empty(SR * L)
        q = np.empty((nq, L))
        v = np.zeros((nv + 7, L))
        a = np.zeros((nv + 7, L))
        tau = np.empty((nv + 1, L))
        down = np.arange(nb - 1, 0, -1)
        for c in range(g * nchunk // ng, (g + 1) * nchunk // ng):
            s0 = c * L
            nl = min(L, N - s0)
            ok = _load(Q, s0, nl, q, check)
            if ok and use_v:
                ok = _load(V, s0, nl, v, check)
            if ok and use_a:
                ok = _load(A, s0, nl, a, check)
            if ok:
                ok = _rnea_chunk(I, F, flags, eps, q, v, a, tau, W, S, down)
            if not ok:
                bad[g] = 1
                break
            _store(tau, TAU, s0, nl)
    return int(bad.max())


@_inl
def _chol6(D, tol):
    """(number of pivots <= tol, lower Cholesky factor of the symmetric 6x6 D), D and the
    factor packed like IA (entry (r, c) of the factor, r >= c, at the index of (c, r));
    same operation order as aba._chol6."""
    bad = 0
    d = D[0]
    bad += not d > tol
    l00 = np.sqrt(d)
    l10 = D[1] / l00
    l20 = D[2] / l00
    l30 = D[3] / l00
    l40 = D[4] / l00
    l50 = D[5] / l00
    d = D[6] - l10 * l10
    bad += not d > tol
    l11 = np.sqrt(d)
    l21 = (D[7] - l20 * l10) / l11
    l31 = (D[8] - l30 * l10) / l11
    l41 = (D[9] - l40 * l10) / l11
    l51 = (D[10] - l50 * l10) / l11
    d = D[11] - l20 * l20 - l21 * l21
    bad += not d > tol
    l22 = np.sqrt(d)
    l32 = (D[12] - l30 * l20 - l31 * l21) / l22
    l42 = (D[13] - l40 * l20 - l41 * l21) / l22
    l52 = (D[14] - l50 * l20 - l51 * l21) / l22
    d = D[15] - l30 * l30 - l31 * l31 - l32 * l32
    bad += not d > tol
    l33 = np.sqrt(d)
    l43 = (D[16] - l40 * l30 - l41 * l31 - l42 * l32) / l33
    l53 = (D[17] - l50 * l30 - l51 * l31 - l52 * l32) / l33
    d = D[18] - l40 * l40 - l41 * l41 - l42 * l42 - l43 * l43
    bad += not d > tol
    l44 = np.sqrt(d)
    l54 = (D[19] - l50 * l40 - l51 * l41 - l52 * l42 - l53 * l43) / l44
    d = D[20] - l50 * l50 - l51 * l51 - l52 * l52 - l53 * l53 - l54 * l54
    bad += not d > tol
    l55 = np.sqrt(d)
    return bad, (
        l00, l10, l20, l30, l40, l50, l11, l21, l31, l41, l51, l22,
        l32, l42, l52, l33, l43, l53, l44, l54, l55,
    )  # fmt: skip


@_inl
def _chol6_solve(C, y0, y1, y2, y3, y4, y5):
    """x with L L^T x = y, L the factor of _chol6 (same operation order as
    aba._chol6_solve_col)."""
    z0 = y0 / C[0]
    z1 = (y1 - C[1] * z0) / C[6]
    z2 = (y2 - C[2] * z0 - C[7] * z1) / C[11]
    z3 = (y3 - C[3] * z0 - C[8] * z1 - C[12] * z2) / C[15]
    z4 = (y4 - C[4] * z0 - C[9] * z1 - C[13] * z2 - C[16] * z3) / C[18]
    z5 = (y5 - C[5] * z0 - C[10] * z1 - C[14] * z2 - C[17] * z3 - C[19] * z4) / C[20]
    x5 = z5 / C[20]
    x4 = (z4 - C[19] * x5) / C[18]
    x3 = (z3 - C[16] * x4 - C[17] * x5) / C[15]
    x2 = (z2 - C[12] * x3 - C[13] * x4 - C[14] * x5) / C[11]
    x1 = (z1 - C[7] * x2 - C[8] * x3 - C[9] * x4 - C[10] * x5) / C[6]
    x0 = (z0 - C[1] * x1 - C[2] * x2 - C[3] * x3 - C[4] * x4 - C[5] * x5) / C[0]
    return x0, x1, x2, x3, x4, x5


@_jit
def _aba_chunk(I, F, flags, eps, q, v, tau, qdd, W, A, S, down):
    """ABA for the L states in q (nq, L), v (nv + 7, L), tau (nv + 1, L; rows nv.. zero)
    into qdd (nv + 1, L). False on a zero quaternion or a pivot D_i <= tol."""
    nb, nv = I[0], I[2]
    # = WB * L and WA * L, read from the arrays: as constants they stop the vectoriser
    RL = W.shape[0] // nb
    RA = A.shape[0] // nb
    arm = (flags & FL_ARMATURE) != 0
    d0 = HF + WF * nb
    tol = F[3]
    # joint friction is a torque on the joint: tau - b qd - f_c sgn(qd) (in place)
    if flags & FL_FRICTION:
        for k in range(nv):
            if F[d0 + k] == 0.0 and F[d0 + nv + k] == 0.0:
                continue  # subtracts exactly 0
            for l in range(L):
                tau[k, l] -= F[d0 + k] * v[k, l] + _coulomb(F[d0 + nv + k], v[k, l], eps)
    for k in range(12, 18):
        for l in range(L):
            W[_ix(0, k, l, RL)] = 0.0
    # ---- pass 1, i = 1..n: V_i, c_i, IA_i = G_i, pA_i
    for i in range(1, nb):
        bf = HF + WF * i
        lam = I[HI + WI * i + BI_PARENT]
        if not _pose(I, F, q, i, W, RL):
            return False
        _copy(W, lam * RL + 12 * L, S, 0, 6 * L)  # V_lambda
        k1, kf, sw, sv, free = _rows(I, F, i, nv)
        mu = F[bf + BF_MULT]
        m = F[bf + BF_MASS]
        hx, hy, hz = F[bf + BF_H], F[bf + BF_H + 1], F[bf + BF_H + 2]
        I0, I1, I2 = F[bf + BF_IO], F[bf + BF_IO + 1], F[bf + BF_IO + 2]
        I3, I4, I5 = F[bf + BF_IO + 3], F[bf + BF_IO + 4], F[bf + BF_IO + 5]
        I6, I7, I8 = F[bf + BF_IO + 6], F[bf + BF_IO + 7], F[bf + BF_IO + 8]
        # IA_i = G_i = [[I_o, [h]], [[h]^T, m 1]] (upper triangle)
        G = (
            I0, I1, I2, 0.0, -hz, hy,
            I4, I5, hz, 0.0, -hx,
            I8, -hy, hx, 0.0,
            m, 0.0, 0.0,
            m, 0.0,
            m,
        )  # fmt: skip
        for l in range(L):
            R, px, py, pz = _load12(W, i, l, RL)
            jwx, jwy, jwz, jvx, jvy, jvz = _joint_rate(sw, sv, mu, v, k1, kf, l)
            # V_i = Ad_{T_{i,lambda}} V_lambda + S_i qd_i  (MR 8.50)
            lw = _load6(S, 0, 0, l, 0)
            ew, ex, ey, vx0, vy0, vz0 = _motion_from_parent(R, px, py, pz, lw)
            wx, wy, wz = ew + jwx, ex + jwy, ey + jwz
            vx, vy, vz = vx0 + jvx, vy0 + jvy, vz0 + jvz
            _store6(W, i, 12, l, RL, wx, wy, wz, vx, vy, vz)
            # c_i = ad_{V_i} S_i qd_i = [w x w_J; w x v_J + v x w_J]
            e1x, e1y, e1z = cross(wx, wy, wz, jwx, jwy, jwz)
            e2x, e2y, e2z = cross(wx, wy, wz, jvx, jvy, jvz)
            e3x, e3y, e3z = cross(vx, vy, vz, jwx, jwy, jwz)
            _store6(W, i, 18, l, RL, e1x, e1y, e1z, e2x + e3x, e2y + e3y, e2z + e3z)
            # pA_i = -ad_{V_i}^T G_i V_i = [w x k + v x l; w x l]
            c1x, c1y, c1z = cross(hx, hy, hz, vx, vy, vz)
            kx = I0 * wx + I1 * wy + I2 * wz + c1x
            ky = I3 * wx + I4 * wy + I5 * wz + c1y
            kz = I6 * wx + I7 * wy + I8 * wz + c1z
            c2x, c2y, c2z = cross(hx, hy, hz, wx, wy, wz)
            lx, ly, lz = m * vx - c2x, m * vy - c2y, m * vz - c2z
            a1x, a1y, a1z = cross(wx, wy, wz, kx, ky, kz)
            a2x, a2y, a2z = cross(vx, vy, vz, lx, ly, lz)
            a3x, a3y, a3z = cross(wx, wy, wz, lx, ly, lz)
            _store6(A, i, 21, l, RA, a1x + a2x, a1y + a2y, a1z + a2z, a3x, a3y, a3z)
            _store21(A, i, 0, l, RA, G)
    # ---- pass 2, i = n..1: articulated inertias and bias wrenches (i from `down`)
    for j in range(nb - 1):
        i = down[j]
        bi = HI + WI * i
        lam = I[bi + BI_PARENT]
        k1, kf, sw, sv, free = _rows(I, F, i, nv)
        if free:
            # free joint, a child of the world (`supported`): D = IA + armature, u = tau - pA
            va = I[bi + BI_VIDX]
            r0, r1, r2, r3, r4, r5 = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
            if arm:
                da = d0 + 2 * nv + va
                r0, r1, r2, r3, r4, r5 = (
                    F[da],
                    F[da + 1],
                    F[da + 2],
                    F[da + 3],
                    F[da + 4],
                    F[da + 5],
                )
            bad = 0
            for l in range(L):
                T = _load21(A, i, 0, l, RA)
                T = (
                    T[0] + r0, T[1], T[2], T[3], T[4], T[5],
                    T[6] + r1, T[7], T[8], T[9], T[10],
                    T[11] + r2, T[12], T[13], T[14],
                    T[15] + r3, T[16], T[17],
                    T[18] + r4, T[19],
                    T[20] + r5,
                )  # fmt: skip
                b, C = _chol6(T, tol)
                bad += b
                _store21(W, i, 32, l, RL, C)
                pm = _load6(A, i, 21, l, RA)
                _store6(
                    W, i, 53, l, RL,
                    tau[kf[0], l] - pm[0], tau[kf[1], l] - pm[1], tau[kf[2], l] - pm[2],
                    tau[kf[3], l] - pm[3], tau[kf[4], l] - pm[4], tau[kf[5], l] - pm[5],
                )  # fmt: skip
            if bad:
                return False
            continue
        # U_i = IA_i S_i, D_i = S_i^T U_i (+ armature), u_i = tau_i - S_i^T pA_i; a fixed
        # joint (S_i = 0) gets 1/D = 0, so Ia = IA and pa = pA + IA c
        dof = k1 < U(nv)
        arm_i = F[d0 + 2 * nv + I[bi + BI_VIDX]] if arm and dof else 0.0
        dfix = 0.0 if dof else 1.0
        bad = 0
        for l in range(L):
            T = _load21(A, i, 0, l, RA)
            pm = _load6(A, i, 21, l, RA)
            u0, u1, u2, u3, u4, u5 = _symv(T, sw[0], sw[1], sw[2], sv[0], sv[1], sv[2])
            D = sw[0] * u0 + sw[1] * u1 + sw[2] * u2 + sv[0] * u3 + sv[1] * u4 + sv[2] * u5
            D = D + arm_i + dfix  # (0.0 adds exactly 0; a fixed joint has D = 0 + 1)
            bad += not D > tol
            Dinv = (1.0 - dfix) / D
            sp = (
                sw[0] * pm[0] + sw[1] * pm[1] + sw[2] * pm[2]
                + sv[0] * pm[3] + sv[1] * pm[4] + sv[2] * pm[5]
            )  # fmt: skip
            u = tau[k1, l] - sp
            _store6(W, i, 24, l, RL, u0, u1, u2, u3, u4, u5)
            W[_ix(i, 30, l, RL)] = Dinv
            W[_ix(i, 31, l, RL)] = u
            # Ia = IA - U D^-1 U^T
            t0, t1, t2, t3, t4, t5 = (
                u0 * Dinv,
                u1 * Dinv,
                u2 * Dinv,
                u3 * Dinv,
                u4 * Dinv,
                u5 * Dinv,
            )
            Ia = (
                T[0] - t0 * u0, T[1] - t0 * u1, T[2] - t0 * u2,
                T[3] - t0 * u3, T[4] - t0 * u4, T[5] - t0 * u5,
                T[6] - t1 * u1, T[7] - t1 * u2, T[8] - t1 * u3, T[9] - t1 * u4, T[10] - t1 * u5,
                T[11] - t2 * u2, T[12] - t2 * u3, T[13] - t2 * u4, T[14] - t2 * u5,
                T[15] - t3 * u3, T[16] - t3 * u4, T[17] - t3 * u5,
                T[18] - t4 * u4, T[19] - t4 * u5,
                T[20] - t5 * u5,
            )  # fmt: skip
            # pa = pA + Ia c + U D^-1 u
            cw = _load6(W, i, 18, l, RL)
            y0, y1, y2, y3, y4, y5 = _symv(Ia, cw[0], cw[1], cw[2], cw[3], cw[4], cw[5])
            g = u * Dinv
            _store21(S, 0, 6, l, 0, Ia)
            _store6(
                S, 0, 27, l, 0,
                pm[0] + y0 + u0 * g, pm[1] + y1 + u1 * g, pm[2] + y2 + u2 * g,
                pm[3] + y3 + u3 * g, pm[4] + y4 + u4 * g, pm[5] + y5 + u5 * g,
            )  # fmt: skip
        if bad:
            return False
        if lam == 0:
            continue
        # IA_lambda += Ad^T Ia Ad, pA_lambda += Ad^T pa (Featherstone table 7.1): rotate each
        # block (R X R^T), then shift by p: C'' = C', B'' = B' + [p] C',
        # A'' = A' - B'[p] - (B'[p])^T - [p] C' [p]; wrench [R m + p x (R f); R f]
        for l in range(L):
            R, px, py, pz = _load12(W, i, l, RL)
            T = _load21(S, 0, 6, l, 0)
            A1 = rot_sandwich(R, (T[0], T[1], T[2], T[1], T[6], T[7], T[2], T[7], T[11]))
            B1 = rot_sandwich(R, (T[3], T[4], T[5], T[8], T[9], T[10], T[12], T[13], T[14]))
            C1 = rot_sandwich(R, (T[15], T[16], T[17], T[16], T[18], T[19], T[17], T[19], T[20]))
            C1 = (C1[0], C1[1], C1[2], C1[1], C1[4], C1[5], C1[2], C1[5], C1[8])  # symmetric
            Y = skew_left(px, py, pz, C1)  # [p] C'
            E = transpose9(skew_left(px, py, pz, transpose9(B1)))  # -(B'[p])
            Z = transpose9(skew_left(px, py, pz, transpose9(Y)))  # -([p] C' [p])
            Ap = (
                A1[0] + E[0] + E[0] + Z[0], A1[1] + E[1] + E[3] + Z[1],
                A1[2] + E[2] + E[6] + Z[2], B1[0] + Y[0], B1[1] + Y[1], B1[2] + Y[2],
                A1[4] + E[4] + E[4] + Z[4], A1[5] + E[5] + E[7] + Z[5],
                B1[3] + Y[3], B1[4] + Y[4], B1[5] + Y[5],
                A1[8] + E[8] + E[8] + Z[8], B1[6] + Y[6], B1[7] + Y[7], B1[8] + Y[8],
                C1[0], C1[1], C1[2], C1[4], C1[5], C1[8],
            )  # fmt: skip
            pm = _load6(S, 0, 27, l, 0)
            gw = wrench_to_parent(R, px, py, pz, pm[0], pm[1], pm[2], pm[3], pm[4], pm[5])
            _acc27(A, lam, l, RA, Ap, gw)
    # ---- pass 3, i = 1..n: accelerations, dV_0 = [0, -g]
    for k in range(6):
        g = -F[k - 3] if (flags & FL_GRAVITY) and k >= 3 else 0.0
        for l in range(L):
            W[_ix(0, 12 + k, l, RL)] = g
    for i in range(1, nb):
        lam = I[HI + WI * i + BI_PARENT]
        k1, kf, sw, sv, free = _rows(I, F, i, nv)
        _copy(W, lam * RL + 12 * L, S, 0, 6 * L)  # dV_lambda
        if free:
            # qdd_i = D^-1 (u_i - IA_i a');  dV_i = a' + qdd_i
            for l in range(L):
                R, px, py, pz = _load12(W, i, l, RL)
                ld = _load6(S, 0, 0, l, 0)
                gw0, gw1, gw2, gv0, gv1, gv2 = _motion_from_parent(R, px, py, pz, ld)
                c = _load6(W, i, 18, l, RL)
                aw0, aw1, aw2 = gw0 + c[0], gw1 + c[1], gw2 + c[2]
                av0, av1, av2 = gv0 + c[3], gv1 + c[4], gv2 + c[5]
                T = _load21(A, i, 0, l, RA)
                y = _symv(T, aw0, aw1, aw2, av0, av1, av2)
                uu = _load6(W, i, 53, l, RL)
                C = _load21(W, i, 32, l, RL)
                x0, x1, x2, x3, x4, x5 = _chol6_solve(
                    C, uu[0] - y[0], uu[1] - y[1], uu[2] - y[2],
                    uu[3] - y[3], uu[4] - y[4], uu[5] - y[5],
                )  # fmt: skip
                _store6(W, i, 59, l, RL, x0, x1, x2, x3, x4, x5)
                _store6(W, i, 12, l, RL, aw0 + x0, aw1 + x1, aw2 + x2, av0 + x3, av1 + x4, av2 + x5)
            for k in range(6):  # (a lane loop writing 6 rows of qdd needs too many checks)
                for l in range(L):
                    qdd[kf[k], l] = W[_ix(i, 59 + k, l, RL)]
            continue
        # a' = Ad_{T_{i,lambda}} dV_lambda + c_i; qdd_i = D_i^-1 (u_i - U_i^T a');
        # dV_i = a' + S_i qdd_i (a fixed joint: 1/D = 0, qdd into the spare row nv)
        for l in range(L):
            R, px, py, pz = _load12(W, i, l, RL)
            ld = _load6(S, 0, 0, l, 0)
            gw0, gw1, gw2, gv0, gv1, gv2 = _motion_from_parent(R, px, py, pz, ld)
            c = _load6(W, i, 18, l, RL)
            aw0, aw1, aw2 = gw0 + c[0], gw1 + c[1], gw2 + c[2]
            av0, av1, av2 = gv0 + c[3], gv1 + c[4], gv2 + c[5]
            uu = _load6(W, i, 24, l, RL)
            x = W[_ix(i, 30, l, RL)] * (
                W[_ix(i, 31, l, RL)]
                - uu[0] * aw0 - uu[1] * aw1 - uu[2] * aw2
                - uu[3] * av0 - uu[4] * av1 - uu[5] * av2
            )  # fmt: skip
            qdd[k1, l] = x
            _store6(
                W, i, 12, l, RL,
                aw0 + sw[0] * x, aw1 + sw[1] * x, aw2 + sw[2] * x,
                av0 + sv[0] * x, av1 + sv[1] * x, av2 + sv[2] * x,
            )  # fmt: skip
    return True


@njit(parallel=True, **_opts)
def aba_lanes(I, F, Q, V, TAU, flags, eps, QDD):
    """Forward dynamics over the rows of Q (N, nq), V, TAU (N, nv) into QDD (N, nv).

    The model must pass :func:`supported` (aba=True). Returns 0, or 1 if some state failed
    (non-finite input, zero quaternion, singular articulated inertia): rerun the per-state
    kernel to find which.
    """
    nb, nq, nv = I[0], I[1], I[2]
    N = Q.shape[0]
    nchunk = (N + L - 1) // L
    ng = min(nchunk, _GROUPS)
    bad = np.zeros(max(ng, 1), dtype=np.int64)
    check = (flags & FL_CHECK) != 0
    for g in prange(ng):
        W = np.empty(nb * WB * L)
        A = np.empty(nb * WA * L)
        S = np.empty(SB * L)
        q = np.empty((nq, L))
        v = np.zeros((nv + 7, L))
        tau = np.zeros((nv + 1, L))
        qdd = np.empty((nv + 1, L))
        down = np.arange(nb - 1, 0, -1)
        for c in range(g * nchunk // ng, (g + 1) * nchunk // ng):
            s0 = c * L
            nl = min(L, N - s0)
            ok = _load(Q, s0, nl, q, check)
            ok = ok and _load(V, s0, nl, v, check)
            ok = ok and _load(TAU, s0, nl, tau, check)
            ok = ok and _aba_chunk(I, F, flags, eps, q, v, tau, qdd, W, A, S, down)
            if not ok:
                bad[g] = 1
                break
            _store(qdd, QDD, s0, nl)
    return int(bad.max())
