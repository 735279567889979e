/*
 * robodyn.kernels._core: the Python interface of the compiled core.
 *
 * Every entry point takes the packed model P (kernels/_pack.py: Packed.P), the state
 * arguments, and, last, the number of threads for a batch (<= 0: the default, the
 * environment variable ROBODYN_NUM_THREADS read at import, else every core):
 *
 *   rnea(P, q, v, a, fext, flags, eps, threads)        -> tau (nv)
 *   aba(P, q, v, tau, fext, flags, eps, threads)       -> qdd (nv)
 *   crba(P, q, flags, threads)                         -> M (nv, nv)
 *   coriolis(P, q, v, flags, threads)                  -> C (nv, nv)
 *   minv(P, q, flags, threads)                         -> M^-1 (nv, nv)
 *   mass_matrix_dot(P, q, v, flags, threads)           -> dM/dt = C + C^T (nv, nv)
 *   aba_derivatives(P, q, v, tau, fext, flags, eps, threads) -> [da/dq, da/dv, M^-1]
 *   rnea_derivatives(P, q, v, a, fext, flags, eps, threads)
 *                                                      -> [dtau/dq, dtau/dv, M] (3, nv, nv)
 *   christoffel(P, q, flags, threads)                  -> Gamma (nv, nv, nv), [i, j, k]
 *   mass_matrix_derivative(P, q, flags, threads)       -> dM_ij/dq_k (nv, nv, nv)
 *   forward(P, q, v, tau, fext, flags, eps, threads)   -> qdd (nv), by Cholesky of M
 *   body_poses(P, q, threads)                          -> T (nb, 4, 4)
 *   frame_poses(P, q, threads)                         -> T (nf, 4, 4)
 *   frame_pose(P, q, frame, threads)                   -> T (4, 4)
 *   jacobian(P, q, frame, kind, threads)               -> J (6, nv)
 *   jacobian_dot(P, q, v, frame, kind, threads)        -> [J (6 nv), dJ (6 nv), V (6)]
 *   frame_velocity(P, q, v, frame, kind, threads)      -> V (6)
 *   frame_acceleration(P, q, v, a, frame, kind, threads) -> dV (6)
 *   jacobian_dot_dj(P, q, v, frame, kind, threads)     -> dJ/dt (6, nv)
 *   com_jacobian_j(P, q, threads)                      -> J_c (3, nv)
 *   manipulability(P, q, frame, kind, rows, threads)   -> sqrt(det(J_k J_k^T)) ()
 *   ellipsoid(P, q, frame, kind, rows, threads)        -> [sigma (6), U (k x k in 36)]
 *   com(P, q, threads)                                 -> c (3)
 *   com_jacobian(P, q, threads)                        -> [c (3), J_c (3 nv)]
 *   kinetic(P, q, v, flags, kind, threads)             -> K (), kind 1: K + U
 *   potential(P, q, flags, 0, threads)                 -> U ()
 *   energy_regressor(P, q, v, flags, 0, threads)       -> e (10 (nb - 1)): K + U = e . pi
 *   momentum(P, q, v, flags, kind, threads)            -> h (6), kind 0 origin, 1 CoM
 *   momentum_rate(P, q, v, a, flags, kind, threads)    -> dh/dt (6); a read when FL_ACC
 *   com_velocity(P, q, v, flags, 2, threads)           -> dc/dt (3)
 *   com_acceleration(P, q, v, a, flags, 2, threads)    -> d2c/dt2 (3)
 *   ccrba(P, q, flags, kind, threads)                  -> A (6, nv), kind 0 A_o, 1 A_G
 *   task_lambda(P, q, frame, kind, rows, threads)      -> Lambda (6, 6), k x k first for k rows
 *   task_jbar(P, q, frame, kind, rows, threads)        -> Jbar (nv, 6), nv x k first
 *   ik_residual(P, q, T_sd, frame, threads)            -> [T (16), J_b (6 nv), V_b (6)]
 *   ik_dls(P, q0, T_sd, frame, lo, hi, w, opts, hist) -> (q, q_best, status, iterations, err)
 *   integrate(P, q, v, dt, flags, threads)            -> q (+) v dt (nq)
 *   difference(P, q0, q1, flags, threads)             -> q1 (-) q0 (nv)
 *   constrained(P, q, v, tau, A, dA_v, fext, flags, eps, threads)
 *                                                      -> [qdd (nv), lambda (k)] under A qd = 0
 *   simulate(P, Pc, q0, v0, K, h, integrator, law, flags, cflags, params, Q, V, A, TAU,
 *            k0, env, fext, z0, Z, FC)                 -> (code, samples done, exc)
 *
 * A state argument is a C-contiguous, native float64 array: (n,) for one state, (N, n)
 * for a batch of N (the result gains the leading N); v and a of rnea may be None when
 * their flag (FL_VEL, FL_ACC) is not set, fext is None, (nb, 6) or (N, nb, 6). Instead of
 * an array an entry point returns an int when an argument is not such an array (-1: the
 * caller converts it and calls again) or its size is wrong (k = 1, 2, ...: argument k),
 * or, after checking the numbers (flags & FL_CHECK), a tuple (code, state) with the error
 * code of rd.h and the index of the failing state (0 for one state); for a singular mass
 * matrix (code >= 1000) a tuple (code, state, cond) with the condition number of M in that
 * state (a lower bound; inf: not positive definite; NaN: not computed, nv > 2000).
 */
#define PY_SSIZE_T_CLEAN
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <Python.h>
#include <numpy/arrayobject.h>

#include <stdlib.h>

/* numpy includes complex.h, whose I (the imaginary unit) is a field of model_t here */
#undef I

#include "ik.h"
#include "rollout.h"
#include "contact.h"
#include "cspace.h"

/* ---------------------------------------------------------------- the algorithms */
static int64_t sz_nv(const model_t *md) { return md->nv; }
static int64_t sz_nv2(const model_t *md) { return md->nv * md->nv; }
static int64_t sz_nv3(const model_t *md) { return md->nv * md->nv * md->nv; }
static int64_t sz_bodies16(const model_t *md) { return 16 * md->nb; }
static int64_t sz_frames16(const model_t *md) { return 16 * md->nf; }
static int64_t sz_16(const model_t *md) { (void)md; return 16; }
static int64_t sz_6nv(const model_t *md) { return 6 * md->nv; }
static int64_t sz_jdot(const model_t *md) { return 12 * md->nv + 6; }
static int64_t sz_3(const model_t *md) { (void)md; return 3; }
static int64_t sz_comj(const model_t *md) { return 3 + 3 * md->nv; }
static int64_t sz_ik(const model_t *md) { return 16 + 6 * md->nv + 6; }
static int64_t sz_regressor(const model_t *md) { return md->nv * 10 * (md->nb - 1); }
static int64_t sz_1(const model_t *md) { (void)md; return 1; }
static int64_t sz_6(const model_t *md) { (void)md; return 6; }
static int64_t sz_36(const model_t *md) { (void)md; return 36; }
static int64_t sz_3nv(const model_t *md) { return 3 * md->nv; }
static int64_t sz_42(const model_t *md) { (void)md; return 42; }
static int64_t sz_eregressor(const model_t *md) { return 10 * (md->nb - 1); }
static int64_t sz_6nv2(const model_t *md) { return 6 * md->nv * md->nv; }
static int64_t sz_12nv(const model_t *md) { return 12 * md->nv; }
static int64_t sz_18nv(const model_t *md) { return 18 * md->nv; }
static int64_t sz_3nv2(const model_t *md) { return 3 * md->nv * md->nv; }

enum { A_RNEA, A_ABA, A_CRBA, A_CORIOLIS, A_MINV, A_FORWARD, A_BODY_POSES, A_FRAME_POSES, A_FRAME_POSE, A_JACOBIAN,
       A_JACOBIAN_DOT, A_COM, A_COM_JACOBIAN, A_IK_RESIDUAL, A_REGRESSOR, A_KINETIC, A_POTENTIAL, A_MOMENTUM,
       A_MOMENTUM_RATE, A_COM_VEL, A_COM_ACC, A_CCRBA, A_TASK_LAMBDA, A_TASK_JBAR,
       A_ENERGY_REGRESSOR, A_FRAME_VEL, A_FRAME_ACC, A_JDOT_DJ, A_COM_J, A_MANIP, A_MDOT,
       A_ELLIPSOID, A_INTEGRATE, A_DIFFERENCE, A_CONSTRAINED, A_KIN_HESSIAN, A_FRAME_VEL_DERIV,
       A_FRAME_ACC_DERIV, A_RNEA_DERIV, A_ABA_DERIV,
       A_CHRISTOFFEL, A_DMDQ };

static const algo_t ALGOS[] = {
    [A_RNEA] = {"rnea", rd_rnea, rd_rnea_work, sz_nv, 3, {SZ_NQ, SZ_NV, SZ_NV}, {0, FL_VEL, FL_ACC}},
    [A_ABA] = {"aba", rd_aba, rd_aba_work, sz_nv, 3, {SZ_NQ, SZ_NV, SZ_NV}, {0, 0, 0}},
    [A_CRBA] = {"crba", rd_crba, rd_crba_work, sz_nv2, 1, {SZ_NQ}, {0}, rd_crba_pattern},
    [A_CORIOLIS] = {"coriolis", rd_coriolis, rd_coriolis_work, sz_nv2, 2, {SZ_NQ, SZ_NV}, {0, 0}},
    [A_MINV] = {"minv", rd_minv, rd_minv_work, sz_nv2, 1, {SZ_NQ}, {0}},
    [A_FORWARD] = {"forward", rd_forward, rd_minv_work, sz_nv, 3, {SZ_NQ, SZ_NV, SZ_NV}, {0, 0, 0}},
    [A_BODY_POSES] = {"body_poses", rd_body_poses, rd_kin_work, sz_bodies16, 1, {SZ_NQ}, {0}},
    [A_FRAME_POSES] = {"frame_poses", rd_frame_poses, rd_kin_work, sz_frames16, 1, {SZ_NQ}, {0}},
    [A_FRAME_POSE] = {"frame_pose", rd_frame_pose, rd_kin_work, sz_16, 1, {SZ_NQ}, {0}},
    [A_JACOBIAN] = {"jacobian", rd_jacobian, rd_kin_work, sz_6nv, 1, {SZ_NQ}, {0},
                    rd_jacobian_pattern},
    [A_JACOBIAN_DOT] = {"jacobian_dot", rd_jacobian_dot, rd_kin_work, sz_jdot, 2, {SZ_NQ, SZ_NV},
                        {0, 0}},
    [A_COM] = {"com", rd_com, rd_kin_work, sz_3, 1, {SZ_NQ}, {0}},
    [A_COM_JACOBIAN] = {"com_jacobian", rd_com_jacobian, rd_kin_work, sz_comj, 1, {SZ_NQ}, {0}},
    [A_IK_RESIDUAL] = {"ik_residual", rd_ik_residual, rd_kin_work, sz_ik, 2, {SZ_NQ, SZ_16},
                       {0, 0}},
    [A_REGRESSOR] = {"regressor", rd_regressor, rd_regressor_work, sz_regressor, 3,
                     {SZ_NQ, SZ_NV, SZ_NV}, {0, 0, 0}},
    [A_KINETIC] = {"kinetic", rd_kinetic, rd_momentum_work, sz_1, 2, {SZ_NQ, SZ_NV}, {0, 0}},
    [A_POTENTIAL] = {"potential", rd_potential, rd_momentum_work, sz_1, 1, {SZ_NQ}, {0}},
    [A_MOMENTUM] = {"momentum", rd_momentum, rd_momentum_work, sz_6, 2, {SZ_NQ, SZ_NV}, {0, 0}},
    [A_MOMENTUM_RATE] = {"momentum_rate", rd_momentum_rate, rd_momentum_work, sz_6, 3,
                         {SZ_NQ, SZ_NV, SZ_NV}, {0, 0, FL_ACC}},
    [A_COM_VEL] = {"com_velocity", rd_momentum, rd_momentum_work, sz_3, 2, {SZ_NQ, SZ_NV}, {0, 0}},
    [A_COM_ACC] = {"com_acceleration", rd_momentum_rate, rd_momentum_work, sz_3, 3,
                   {SZ_NQ, SZ_NV, SZ_NV}, {0, 0, FL_ACC}},
    [A_CCRBA] = {"ccrba", rd_ccrba, rd_momentum_work, sz_6nv, 1, {SZ_NQ}, {0}},
    [A_TASK_LAMBDA] = {"task_lambda", rd_task_lambda, rd_task_space_work, sz_36, 1, {SZ_NQ}, {0}},
    [A_ENERGY_REGRESSOR] = {"energy_regressor", rd_energy_regressor, rd_momentum_work, sz_eregressor,
                            2, {SZ_NQ, SZ_NV}, {0, 0}},
    [A_FRAME_VEL] = {"frame_velocity", rd_frame_motion, rd_kin_work, sz_6, 2, {SZ_NQ, SZ_NV}, {0, 0}},
    [A_FRAME_ACC] = {"frame_acceleration", rd_frame_motion, rd_kin_work, sz_6, 3,
                     {SZ_NQ, SZ_NV, SZ_NV}, {0, 0, 0}},
    [A_JDOT_DJ] = {"jacobian_dot_dj", rd_jacobian_dot_dj, rd_kin_part_work, sz_6nv, 2, {SZ_NQ, SZ_NV},
                   {0, 0}},
    [A_COM_J] = {"com_jacobian_j", rd_com_jacobian_j, rd_kin_part_work, sz_3nv, 1, {SZ_NQ}, {0}},
    [A_MANIP] = {"manipulability", rd_manipulability, rd_kin_part_work, sz_1, 1, {SZ_NQ}, {0}},
    [A_MDOT] = {"mass_matrix_dot", rd_mass_matrix_dot, rd_mass_matrix_dot_work, sz_nv2, 2,
                {SZ_NQ, SZ_NV}, {0, 0}},
    [A_ELLIPSOID] = {"ellipsoid", rd_ellipsoid, rd_kin_part_work, sz_42, 1, {SZ_NQ}, {0}},
    [A_TASK_JBAR] = {"task_jbar", rd_task_jbar, rd_task_space_work, sz_6nv, 1, {SZ_NQ}, {0}},
    [A_INTEGRATE] = {"integrate", rd_integrate, rd_cspace_work, rd_integrate_out, 2,
                     {SZ_NQ, SZ_NV}, {0, 0}, .min_chunks = 256, .rows = rd_integrate_rows,
                     .rows_ok = rd_integrate_vector},
    [A_DIFFERENCE] = {"difference", rd_difference, rd_cspace_work, sz_nv, 2, {SZ_NQ, SZ_NQ},
                      {0, 0}, .min_chunks = 256},
    [A_CONSTRAINED] = {"constrained", rd_constrained, rd_constrained_work, sz_nv, 5,
                       {SZ_NQ, SZ_NV, SZ_NV, SZ_KNV, SZ_K}, {0, 0, 0, 0, 0}, .out_per_row = 1,
                       .work_rows = rd_constrained_work_rows},
    [A_KIN_HESSIAN] = {"kinematic_hessian", rd_kinematic_hessian, rd_kinderiv_work, sz_6nv2, 1,
                       {SZ_NQ}, {0}},
    [A_FRAME_VEL_DERIV] = {"frame_velocity_derivatives", rd_motion_derivatives, rd_kinderiv_work,
                           sz_12nv, 2, {SZ_NQ, SZ_NV}, {0, 0}},
    [A_FRAME_ACC_DERIV] = {"frame_acceleration_derivatives", rd_motion_derivatives,
                           rd_kinderiv_work, sz_18nv, 3, {SZ_NQ, SZ_NV, SZ_NV}, {0, 0, 0}},
    [A_ABA_DERIV] = {"aba_derivatives", rd_aba_derivatives, rd_aba_derivatives_work, sz_3nv2, 3,
                     {SZ_NQ, SZ_NV, SZ_NV}, {0, 0, 0}},
    [A_RNEA_DERIV] = {"rnea_derivatives", rd_rnea_derivatives, rd_rnea_derivatives_work, sz_3nv2,
                      3, {SZ_NQ, SZ_NV, SZ_NV}, {0, 0, 0}},
    [A_CHRISTOFFEL] = {"christoffel", rd_christoffel, rd_christoffel_work, sz_nv3, 1, {SZ_NQ}, {0}},
    [A_DMDQ] = {"mass_matrix_derivative", rd_mass_matrix_derivative, rd_christoffel_work, sz_nv3,
                1, {SZ_NQ}, {0}},
};

static int out_dims(const model_t *md, int algo, const args_t *a, npy_intp *d)
{
    /* the shape of one state's output; its number of dimensions */
    switch (algo) {
    case A_RNEA: case A_ABA: case A_FORWARD: d[0] = md->nv; return 1;
    case A_CRBA: case A_CORIOLIS: case A_MINV: case A_MDOT: d[0] = d[1] = md->nv; return 2;
    case A_CHRISTOFFEL: case A_DMDQ: d[0] = d[1] = d[2] = md->nv; return 3;
    case A_BODY_POSES: d[0] = md->nb, d[1] = d[2] = 4; return 3;
    case A_FRAME_POSES: d[0] = md->nf, d[1] = d[2] = 4; return 3;
    case A_FRAME_POSE: d[0] = d[1] = 4; return 2;
    case A_JACOBIAN: d[0] = 6, d[1] = md->nv; return 2;
    case A_REGRESSOR: d[0] = md->nv, d[1] = 10 * (md->nb - 1); return 2;
    case A_KINETIC: case A_POTENTIAL: return 0;
    case A_CCRBA: d[0] = 6, d[1] = md->nv; return 2;
    case A_TASK_LAMBDA: d[0] = d[1] = 6; return 2;
    case A_JDOT_DJ: d[0] = 6, d[1] = md->nv; return 2;
    case A_COM_J: d[0] = 3, d[1] = md->nv; return 2;
    case A_MANIP: return 0;
    case A_TASK_JBAR: d[0] = md->nv, d[1] = 6; return 2;
    case A_KIN_HESSIAN: d[0] = 6, d[1] = d[2] = md->nv; return 3;
    case A_FRAME_VEL_DERIV: d[0] = 2, d[1] = 6, d[2] = md->nv; return 3;
    case A_FRAME_ACC_DERIV: d[0] = 3, d[1] = 6, d[2] = md->nv; return 3;
    case A_RNEA_DERIV: case A_ABA_DERIV: d[0] = 3, d[1] = d[2] = md->nv; return 3;
    default: d[0] = rd_out_size(md, &ALGOS[algo], a); return 1;
    }
}

static int default_threads = 1;

/* ---------------------------------------------------------------- arguments */
static int get_model(PyObject *P, model_t *md)
{
    /* the packed model P: int64 [I (HI + WI nb), frame bodies (nf)], then the bytes of
     * F [HF + WF nb, damping, friction, armature (nv each), frames (12 nf)]; -1 with an
     * exception */
    PyArrayObject *a = (PyArrayObject *)P;
    if (!PyArray_Check(P) || PyArray_TYPE(a) != NPY_INT64 || PyArray_NDIM(a) != 1
        || !PyArray_ISCARRAY_RO(a)) {
        PyErr_SetString(PyExc_TypeError, "P must be a packed model (Packed.P)");
        return -1;
    }
    const int64_t *I = (const int64_t *)PyArray_DATA(a);
    const npy_intp n = PyArray_DIM(a, 0);
    if (n < HI || I[0] < 1 || I[1] < 0 || I[2] < 0 || I[4] < 0
        || n != HI + WI * I[0] + I[4] + HF + WF * I[0] + 3 * I[2] + 12 * I[4]) {
        PyErr_SetString(PyExc_ValueError, "P is not a packed model (its sizes do not add up)");
        return -1;
    }
    md->I = I;
    md->nb = I[0], md->nq = I[1], md->nv = I[2], md->nf = I[4], md->has_free = I[5];
    md->frame_body = I + HI + WI * md->nb;
    md->F = (const double *)(md->frame_body + md->nf);
    md->frame_Rp = md->F + HF + WF * md->nb + 3 * md->nv;
    return 0;
}

static int state_array(PyObject *o, int ndim, npy_intp N, npy_intp n, int code,
                       const double **out)
{
    /* 0 and *out = data if o is a C-contiguous native float64 array of shape (n,)
     * (ndim 1) or (N, n) (ndim 2); -1 if it is not such an array; code if its shape is
     * wrong */
    if (!PyArray_Check(o))
        return -1;
    PyArrayObject *x = (PyArrayObject *)o;
    if (PyArray_TYPE(x) != NPY_DOUBLE || !PyArray_ISCARRAY_RO(x) || !PyArray_ISNOTSWAPPED(x))
        return -1;
    if (PyArray_NDIM(x) != ndim || PyArray_DIM(x, ndim - 1) != n
        || (ndim == 2 && PyArray_DIM(x, 0) != N))
        return code;
    *out = (const double *)PyArray_DATA(x);
    return 0;
}

static int matrix_array(PyObject *o, int ndim, npy_intp N, npy_intp rows, npy_intp cols,
                        int code, const double **out)
{
    /* a state argument of rows x cols (fext: (nb, 6); the constraint matrix A: (k, nv)):
     * (rows, cols) for one state, (N, rows, cols) for a batch */
    if (!PyArray_Check(o))
        return -1;
    PyArrayObject *x = (PyArrayObject *)o;
    if (PyArray_TYPE(x) != NPY_DOUBLE || !PyArray_ISCARRAY_RO(x) || !PyArray_ISNOTSWAPPED(x))
        return -1;
    if (PyArray_NDIM(x) != ndim + 1 || PyArray_DIM(x, ndim - 1) != rows
        || PyArray_DIM(x, ndim) != cols || (ndim == 2 && PyArray_DIM(x, 0) != N))
        return code;
    *out = (const double *)PyArray_DATA(x);
    return 0;
}

static PyObject *error(int code, int64_t state)
{
    return Py_BuildValue("(iL)", code, (long long)state);
}

/* ---------------------------------------------------------------- Ctrl-C */
static int poll_signals(void *ctx)
{
    /* poll_t for a loop running without the GIL (*ctx its saved thread state): take the
     * GIL, run Python's signal handlers (Ctrl-C raises KeyboardInterrupt: nonzero, with the
     * exception set) and give the GIL back */
    PyThreadState **save = (PyThreadState **)ctx;
    PyEval_RestoreThread(*save);
    const int stop = PyErr_CheckSignals() != 0;
    *save = PyEval_SaveThread();
    return stop;
}

/* ---------------------------------------------------------------- the one call */
enum { STACK_WORK = 4096 };

static int dest_ok(PyObject *dest, int od, const npy_intp *dims, const args_t *a, int nx,
                   const model_t *md, const algo_t *al, npy_intp N)
{
    /* 1 if dest can take the result: a writeable, aligned, C-contiguous native float64 array
     * of the result's shape whose memory is none of the arguments' */
    if (!PyArray_Check(dest))
        return 0;
    PyArrayObject *d = (PyArrayObject *)dest;
    if (PyArray_TYPE(d) != NPY_DOUBLE || !PyArray_ISCARRAY(d) || !PyArray_ISNOTSWAPPED(d)
        || PyArray_NDIM(d) != od)
        return 0;
    for (int k = 0; k < od; k++)
        if (PyArray_DIM(d, k) != dims[k])
            return 0;
    const char *lo = (const char *)PyArray_DATA(d), *hi = lo + PyArray_NBYTES(d);
    for (int k = 0; k < nx; k++) {
        if (!a->x[k])
            continue;
        const char *x0 = (const char *)a->x[k];
        const char *x1 = x0 + sizeof(double) * (size_t)(N * rd_size(md, a, al->xsize[k]));
        if (x0 < hi && lo < x1)
            return 0;
    }
    if (a->fext) {
        const char *x0 = (const char *)a->fext, *x1 = x0 + sizeof(double) * (size_t)(N * 6 * md->nb);
        if (x0 < hi && lo < x1)
            return 0;
    }
    return 1;
}

static PyObject *call_k(int algo, PyObject *P, PyObject *const *xs, PyObject *fext, long flags,
                        double eps, int64_t frame, int kind, long threads, unsigned rows,
                        int64_t nk, PyObject *dest)
{
    /* the algorithm on the state arguments xs (nk: the rows of the constraint matrix) */
    const algo_t *al = &ALGOS[algo];
    model_t md;
    if (get_model(P, &md))
        return NULL;
    if (al->xsize[0] != SZ_NQ || !PyArray_Check(xs[0]))
        return PyLong_FromLong(-1);
    const int ndim = PyArray_NDIM((PyArrayObject *)xs[0]);
    if (ndim != 1 && ndim != 2)
        return PyLong_FromLong(1);
    const npy_intp N = ndim == 2 ? PyArray_DIM((PyArrayObject *)xs[0], 0) : 1;
    args_t a = {{NULL}, NULL, flags, eps, frame, kind};
    a.rows = rows;
    a.nk = nk;
    for (int k = 0; k < al->nx; k++) {
        if (al->xflag[k] && !(flags & al->xflag[k]))
            continue;
        int e = al->xsize[k] == SZ_KNV
                    ? matrix_array(xs[k], ndim, N, nk, md.nv, k + 1, &a.x[k])
                    : state_array(xs[k], ndim, N, rd_size(&md, &a, al->xsize[k]), k + 1, &a.x[k]);
        if (e)
            return PyLong_FromLong(e);
    }
    if ((flags & FL_FEXT) && fext != Py_None) {
        int e = matrix_array(fext, ndim, N, md.nb, 6, al->nx + 1, &a.fext);
        if (e)
            return PyLong_FromLong(e);
    }
    if ((algo == A_FRAME_POSE || algo == A_JACOBIAN || algo == A_JACOBIAN_DOT
         || algo == A_IK_RESIDUAL || algo == A_TASK_LAMBDA || algo == A_TASK_JBAR
         || algo == A_FRAME_VEL || algo == A_FRAME_ACC || algo == A_JDOT_DJ || algo == A_MANIP
         || algo == A_ELLIPSOID || algo == A_KIN_HESSIAN || algo == A_FRAME_VEL_DERIV
         || algo == A_FRAME_ACC_DERIV)
        && (frame < 0 || frame >= md.nf)) {
        PyErr_Format(PyExc_IndexError, "frame index %lld out of range (%lld frames)",
                     (long long)frame, (long long)md.nf);
        return NULL;
    }
    npy_intp dims[4];
    int od = out_dims(&md, algo, &a, dims + (ndim == 2));
    if (ndim == 2)
        dims[0] = N, od++;
    /* a batch of an algorithm with a sparsity pattern fills only those entries of rows
     * that start at zero: fresh zero pages from the system, not a pass of stores; the
     * caller's array (out=) is zeroed first */
    /* dest = Py_Ellipsis (a compiled entry of a scalar function): one state's result is a
     * float, computed into a double on the stack (no 0-d array) */
    const int want_float = dest == Py_Ellipsis && ndim == 1 && od == 0;
    if (dest == Py_Ellipsis)
        dest = NULL;
    PyObject *out = NULL;
    double scalar = 0.0;
    if (want_float)
        ;
    else if (dest != NULL && dest != Py_None) {
        if (!dest_ok(dest, od, dims, &a, al->nx, &md, al, N))
            return PyLong_FromLong(-1); /* the general path: converts, checks and copies */
        out = Py_NewRef(dest);
        if (ndim == 2 && al->pattern)
            memset(PyArray_DATA((PyArrayObject *)out), 0, PyArray_NBYTES((PyArrayObject *)out));
    }
    else
        out = ndim == 2 && al->pattern ? PyArray_ZEROS(od, dims, NPY_DOUBLE, 0)
                                       : PyArray_SimpleNew(od, dims, NPY_DOUBLE);
    if (out == NULL && !want_float)
        return NULL;
    double *res = want_float ? &scalar : (double *)PyArray_DATA((PyArrayObject *)out);
    const int check = (flags & FL_CHECK) != 0;
    int err = 0;
    int64_t bad = 0;
    if (ndim == 1) {
        const int64_t wsz = rd_work_size(&md, al, &a);
        double stackW[STACK_WORK], *W = stackW;
        if (wsz > STACK_WORK && !(W = malloc(sizeof(double) * (size_t)wsz))) {
            Py_XDECREF(out);
            return PyErr_NoMemory();
        }
        /* one state of a model under 64 bodies takes a few microseconds: releasing and
         * taking back the GIL (~50 ns) would cost more than other threads gain */
        if (md.nb >= 64) {
            Py_BEGIN_ALLOW_THREADS
            err = rd_run_one(&md, al, &a, res, check, W);
            Py_END_ALLOW_THREADS
        }
        else
            err = rd_run_one(&md, al, &a, res, check, W);
        if (W != stackW)
            free(W);
    }
    else if (N > 0) {
        int nt = threads > 0 ? (int)threads : default_threads;
        PyThreadState *save = PyEval_SaveThread();
        const poll_t poll = {poll_signals, &save};
        err = rd_run_batch(&md, al, &a, N, res, nt, check, &bad, &poll);
        PyEval_RestoreThread(save);
        if (err == -3) {
            Py_DECREF(out);
            return PyErr_NoMemory();
        }
        if (err == E_INTERRUPTED) { /* the signal handler's exception (KeyboardInterrupt) */
            Py_DECREF(out);
            if (!PyErr_Occurred())
                PyErr_SetNone(PyExc_KeyboardInterrupt);
            return NULL;
        }
    }
    if (err == 0)
        return want_float ? PyFloat_FromDouble(scalar) : out;
    Py_XDECREF(out);
    if (err >= E_PIVOT) { /* a singular M: the message says how singular (its condition number) */
        const double *q = a.x[0] + (ndim == 2 ? bad * md.nq : 0);
        double cond;
        Py_BEGIN_ALLOW_THREADS
        cond = rd_mass_cond(&md, q, flags);
        Py_END_ALLOW_THREADS
        return Py_BuildValue("(iLd)", err, (long long)bad, cond);
    }
    return error(err, bad);
}

static PyObject *call(int algo, PyObject *P, PyObject *const *xs, PyObject *fext, long flags,
                      double eps, int64_t frame, int kind, long threads, unsigned rows,
                      PyObject *dest)
{
    return call_k(algo, P, xs, fext, flags, eps, frame, kind, threads, rows, 0, dest);
}

/* ---------------------------------------------------------------- entry points */
static int nargs_ok(const char *name, Py_ssize_t nargs, Py_ssize_t want)
{
    if (nargs == want)
        return 1;
    PyErr_Format(PyExc_TypeError, "%s takes %zd arguments (%zd given)", name, want, nargs);
    return 0;
}

static int nargs_out(const char *name, Py_ssize_t *nargs, Py_ssize_t want, PyObject *const *args,
                     PyObject **dest)
{
    /* the state entry points take an optional last argument, the array to write the result
     * into (out=; None: a new array): *dest, and *nargs without it */
    *dest = NULL;
    if (*nargs == want + 1) {
        *dest = args[want];
        *nargs = want;
    }
    return nargs_ok(name, *nargs, want);
}

static PyObject *dyn_call(int algo, const char *name, PyObject *const *args, Py_ssize_t nargs,
                          int nx)
{
    /* (P, x_0 .. x_{nx-1}, fext, flags, eps, threads) when nx = 3 (rnea, aba, forward),
     * (P, x_0 .. x_{nx-1}, flags, threads) otherwise (crba, minv, coriolis) */
    const int full = nx == 3;
    PyObject *dest;
    if (!nargs_out(name, &nargs, 1 + nx + (full ? 4 : 2), args, &dest))
        return NULL;
    const long flags = PyLong_AsLong(args[1 + nx + full]);
    const double eps = full ? PyFloat_AsDouble(args[1 + nx + 2]) : 0.0;
    const long threads = PyLong_AsLong(args[nargs - 1]);
    if (PyErr_Occurred())
        return NULL;
    return call(algo, args[0], args + 1, full ? args[1 + nx] : Py_None, flags, eps, 0, 0, threads,
                0, dest);
}

#define DYN(fname, algo, nx)                                                                   \
    static PyObject *py_##fname(PyObject *self, PyObject *const *args, Py_ssize_t nargs)      \
    {                                                                                          \
        return dyn_call(algo, #fname, args, nargs, nx);                                        \
    }
DYN(rnea, A_RNEA, 3)
DYN(aba, A_ABA, 3)
DYN(forward, A_FORWARD, 3)
DYN(crba, A_CRBA, 1)
DYN(minv, A_MINV, 1)
DYN(coriolis, A_CORIOLIS, 2)
DYN(mass_matrix_dot, A_MDOT, 2)
DYN(regressor, A_REGRESSOR, 3)
DYN(rnea_derivatives, A_RNEA_DERIV, 3)
DYN(aba_derivatives, A_ABA_DERIV, 3)
DYN(christoffel, A_CHRISTOFFEL, 1)
DYN(mass_matrix_derivative, A_DMDQ, 1)

static PyObject *mom_call(int algo, const char *name, PyObject *const *args, Py_ssize_t nargs,
                          int nx)
{
    /* (P, x_0 .. x_{nx-1}, flags, kind, threads): momentum.c's algorithms, kind 0 about the
     * world origin, 1 about the centre of mass (2: the CoM acceleration) */
    PyObject *dest;
    if (!nargs_out(name, &nargs, 4 + nx, args, &dest))
        return NULL;
    const long flags = PyLong_AsLong(args[1 + nx]), kind = PyLong_AsLong(args[2 + nx]);
    const long threads = PyLong_AsLong(args[3 + nx]);
    if (PyErr_Occurred())
        return NULL;
    const long kmax = algo == A_COM_ACC || algo == A_COM_VEL ? 2
                      : algo == A_POTENTIAL || algo == A_ENERGY_REGRESSOR ? 0 : 1;
    if (kind < 0 || kind > kmax) {
        PyErr_Format(PyExc_ValueError, "%s: kind %ld out of range", name, kind);
        return NULL;
    }
    return call(algo, args[0], args + 1, Py_None, flags, 0.0, 0, (int)kind, threads, 0, dest);
}

#define MOM(fname, algo, nx)                                                                   \
    static PyObject *py_##fname(PyObject *self, PyObject *const *args, Py_ssize_t nargs)      \
    {                                                                                          \
        return mom_call(algo, #fname, args, nargs, nx);                                        \
    }
MOM(kinetic, A_KINETIC, 2)
MOM(potential, A_POTENTIAL, 1)
MOM(energy_regressor, A_ENERGY_REGRESSOR, 2)
MOM(momentum, A_MOMENTUM, 2)
MOM(momentum_rate, A_MOMENTUM_RATE, 3)
MOM(com_velocity, A_COM_VEL, 2)
MOM(com_acceleration, A_COM_ACC, 3)
MOM(ccrba, A_CCRBA, 1)

static PyObject *kin_call(int algo, const char *name, PyObject *const *args, Py_ssize_t nargs,
                          int nx, int has_frame, int has_kind)
{
    /* (P, x_0 .. x_{nx-1}, [frame], [kind], threads) */
    PyObject *dest;
    if (!nargs_out(name, &nargs, 2 + nx + has_frame + has_kind, args, &dest))
        return NULL;
    long frame = has_frame ? PyLong_AsLong(args[1 + nx]) : 0;
    long kind = has_kind ? PyLong_AsLong(args[1 + nx + has_frame]) : 0;
    long threads = PyLong_AsLong(args[nargs - 1]);
    if (PyErr_Occurred())
        return NULL;
    if (kind < KIND_SPACE || kind > KIND_WORLD_ALIGNED) {
        PyErr_Format(PyExc_ValueError, "kind must be 0, 1 or 2, got %ld", kind);
        return NULL;
    }
    return call(algo, args[0], args + 1, Py_None, FL_CHECK, 0.0, frame, (int)kind, threads, 0,
                dest);
}

static PyObject *rows_call(int algo, const char *name, PyObject *const *args, Py_ssize_t nargs)
{
    /* (P, q, frame, kind, rows, threads): an algorithm of some rows of a frame's Jacobian
     * (the bits of rows; 0: all six): the task-space inertia and inverse, the manipulability */
    PyObject *dest;
    if (!nargs_out(name, &nargs, 6, args, &dest))
        return NULL;
    const long frame = PyLong_AsLong(args[2]), kind = PyLong_AsLong(args[3]);
    const long rows = PyLong_AsLong(args[4]), threads = PyLong_AsLong(args[5]);
    if (PyErr_Occurred())
        return NULL;
    if (kind < KIND_SPACE || kind > KIND_WORLD_ALIGNED || rows < 0 || rows > 63) {
        PyErr_Format(PyExc_ValueError, "%s: kind %ld or rows %ld out of range", name, kind, rows);
        return NULL;
    }
    return call(algo, args[0], args + 1, Py_None, FL_CHECK, 0.0, frame, (int)kind, threads,
                (unsigned)rows, dest);
}

#define ROWS(fname, algo)                                                                      \
    static PyObject *py_##fname(PyObject *self, PyObject *const *args, Py_ssize_t nargs)      \
    {                                                                                          \
        return rows_call(algo, #fname, args, nargs);                                           \
    }
ROWS(task_lambda, A_TASK_LAMBDA)
ROWS(task_jbar, A_TASK_JBAR)
ROWS(manipulability, A_MANIP)
ROWS(ellipsoid, A_ELLIPSOID)

#define KIN(fname, algo, nx, has_frame, has_kind)                                              \
    static PyObject *py_##fname(PyObject *self, PyObject *const *args, Py_ssize_t nargs)      \
    {                                                                                          \
        return kin_call(algo, #fname, args, nargs, nx, has_frame, has_kind);                   \
    }
KIN(body_poses, A_BODY_POSES, 1, 0, 0)
KIN(frame_poses, A_FRAME_POSES, 1, 0, 0)
KIN(frame_pose, A_FRAME_POSE, 1, 1, 0)
KIN(jacobian, A_JACOBIAN, 1, 1, 1)
KIN(jacobian_dot, A_JACOBIAN_DOT, 2, 1, 1)
KIN(frame_velocity, A_FRAME_VEL, 2, 1, 1)
KIN(jacobian_dot_dj, A_JDOT_DJ, 2, 1, 1)
KIN(com_jacobian_j, A_COM_J, 1, 0, 0)
KIN(com, A_COM, 1, 0, 0)

static PyObject *acc_call(int algo, const char *name, PyObject *const *args, Py_ssize_t nargs)
{
    /* (P, q, v, a, frame, kind, threads): a frame's acceleration (kinematics.c's
     * frame_motion) or its derivatives (kinderiv.c), FL_ACC set */
    PyObject *dest;
    if (!nargs_out(name, &nargs, 7, args, &dest))
        return NULL;
    const long frame = PyLong_AsLong(args[4]), kind = PyLong_AsLong(args[5]);
    const long threads = PyLong_AsLong(args[6]);
    if (PyErr_Occurred())
        return NULL;
    if (kind < KIND_SPACE || kind > KIND_WORLD_ALIGNED) {
        PyErr_Format(PyExc_ValueError, "kind must be 0, 1 or 2, got %ld", kind);
        return NULL;
    }
    return call(algo, args[0], args + 1, Py_None, FL_CHECK | FL_ACC, 0.0, frame, (int)kind,
                threads, 0, dest);
}

static PyObject *py_frame_acceleration(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return acc_call(A_FRAME_ACC, "frame_acceleration", args, nargs);
}
KIN(com_jacobian, A_COM_JACOBIAN, 1, 0, 0)
KIN(kinematic_hessian, A_KIN_HESSIAN, 1, 1, 1)
KIN(frame_velocity_derivatives, A_FRAME_VEL_DERIV, 2, 1, 1)

static PyObject *py_frame_acceleration_derivatives(PyObject *self, PyObject *const *args,
                                                   Py_ssize_t nargs)
{
    return acc_call(A_FRAME_ACC_DERIV, "frame_acceleration_derivatives", args, nargs);
}
KIN(ik_residual, A_IK_RESIDUAL, 2, 1, 0)

static PyObject *cspace_call(int algo, const char *name, PyObject *const *args, Py_ssize_t nargs)
{
    /* integrate(P, q, v, dt, flags, threads), difference(P, q0, q1, flags, threads): cspace.c,
     * dt in args_t.eps */
    const int has_dt = algo == A_INTEGRATE;
    PyObject *dest;
    if (!nargs_out(name, &nargs, 5 + has_dt, args, &dest))
        return NULL;
    const double dt = has_dt ? PyFloat_AsDouble(args[3]) : 0.0;
    const long flags = PyLong_AsLong(args[3 + has_dt]), threads = PyLong_AsLong(args[4 + has_dt]);
    if (PyErr_Occurred())
        return NULL;
    if (!isfinite(dt)) {
        PyErr_SetString(PyExc_ValueError, "dt must be finite");
        return NULL;
    }
    return call(algo, args[0], args + 1, Py_None, flags, dt, 0, 0, threads, 0, dest);
}

static PyObject *py_constrained(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    /* (P, q, v, tau, A, dA_v, fext, flags, eps, threads): constrained.c; A is (k, nv) a
     * state, its rows k read from dA_v's last dimension */
    PyObject *dest;
    if (!nargs_out("constrained", &nargs, 10, args, &dest))
        return NULL;
    const long flags = PyLong_AsLong(args[7]), threads = PyLong_AsLong(args[9]);
    const double eps = PyFloat_AsDouble(args[8]);
    if (PyErr_Occurred())
        return NULL;
    if (!PyArray_Check(args[5]) || PyArray_NDIM((PyArrayObject *)args[5]) < 1)
        return PyLong_FromLong(-1);
    const PyArrayObject *dA = (const PyArrayObject *)args[5];
    const int64_t nk = PyArray_DIM(dA, PyArray_NDIM(dA) - 1);
    return call_k(A_CONSTRAINED, args[0], args + 1, args[6], flags, eps, 0, 0, threads, 0, nk,
                  dest);
}

static PyObject *py_integrate(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return cspace_call(A_INTEGRATE, "integrate", args, nargs);
}

static PyObject *py_difference(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    return cspace_call(A_DIFFERENCE, "difference", args, nargs);
}

/* ---------------------------------------------------------------- public functions
 * robodyn's public numeric functions (mass_matrix, fk, ...) are Python functions that
 * convert, check and name their arguments. Each is published as an entry_t holding it: the
 * call that needs none of that work (a packed model, states that are C-contiguous float64
 * arrays, a frame by name, keywords at values this file knows) goes from here straight to
 * call(), without a Python frame; any other call (a list, a bad shape, NaN, an unknown frame:
 * call() answers a code instead of an array) is handed to the Python function, which
 * answers it as it always did. The object otherwise behaves as that function (its name,
 * documentation, signature through __wrapped__, binding as a method, pickling by name). */
enum { OP_RNEA, OP_ABA, OP_CRBA, OP_CORIOLIS, OP_FK, OP_JACOBIAN, OP_MINV, OP_KINETIC,
       OP_POTENTIAL, OP_MOMENTUM, OP_MOMENTUM_RATE, OP_CCRBA, OP_COM, OP_COM_VEL, OP_COM_ACC,
       OP_TASK_LAMBDA, OP_TASK_JBAR, OP_FRAME_VEL, OP_FRAME_ACC, OP_JDOT_DJ, OP_COM_J, OP_MANIP,
       OP_MDOT, OP_INTEGRATE, OP_DIFFERENCE, OP_CONSTRAINED, OP_RNEA_DERIV, OP_ABA_DERIV, OP_KIN_HESSIAN,
       OP_FRAME_VEL_DERIV, OP_FRAME_ACC_DERIV,
       OP_CHRISTOFFEL, OP_DMDQ, OP_COUNT };
enum { KW_THREADS, KW_CHECK, KW_ARMATURE, KW_FRICTION, KW_FRAME, KW_KIND, KW_ABOUT, KW_OUT, KW_DT,
       KW_COUNT };

enum { SPLIT_STACK = 1, SPLIT_ROWS = 2 };

typedef struct {
    const char *name;
    int algo;         /* the core's algorithm (fk and aba choose theirs per call) */
    int nx;           /* state arguments (rnea: 1 to 3, its flags say which) */
    int dyn;          /* 1: P in model._rd_packed; 0: (P, frames) in model._kinematics_pack */
    int frame, kind;  /* slot of the frame / kind after the states (0: none) */
    int need_frame;   /* 1: the frame is required */
    int last_acc;     /* 1: the last state argument (a) may be left out or None: FL_ACC off */
    int scalar;       /* 1: one state's result is a float */
    int dt;           /* slot of a time step dt after the states (a float, default 1; 0: none) */
    int split;        /* SPLIT_STACK: one state's result is a stack of matrices (k, r, c),
                       * returned as the tuple of its k matrices (views); SPLIT_ROWS: the
                       * result [x (nv), y (k)] returned as the views (x, y), its rows k the
                       * last state argument's last dimension */
} op_t;

static const op_t OPS[OP_COUNT] = {
    [OP_RNEA] = {"rnea", A_RNEA, 3, 1},
    [OP_ABA] = {"aba", A_ABA, 3, 1},
    [OP_CRBA] = {"crba", A_CRBA, 1, 1},
    [OP_CORIOLIS] = {"coriolis", A_CORIOLIS, 2, 1},
    [OP_FK] = {"fk", A_FRAME_POSE, 1, 0, 1},
    [OP_JACOBIAN] = {"jacobian", A_JACOBIAN, 1, 0, 1, 2, 1},
    [OP_MINV] = {"minv", A_MINV, 1, 1},
    [OP_KINETIC] = {"kinetic", A_KINETIC, 2, 1, .scalar = 1},
    [OP_POTENTIAL] = {"potential", A_POTENTIAL, 1, 1, .scalar = 1},
    [OP_MOMENTUM] = {"momentum", A_MOMENTUM, 2, 1},
    [OP_MOMENTUM_RATE] = {"momentum_rate", A_MOMENTUM_RATE, 3, 1, .last_acc = 1},
    [OP_CCRBA] = {"ccrba", A_CCRBA, 1, 1, 0, 1},
    [OP_COM] = {"com", A_COM, 1, 0},
    [OP_COM_VEL] = {"com_velocity", A_COM_VEL, 2, 0},
    [OP_COM_ACC] = {"com_acceleration", A_COM_ACC, 3, 0},
    [OP_TASK_LAMBDA] = {"task_lambda", A_TASK_LAMBDA, 1, 0, 1, 2, 1},
    [OP_TASK_JBAR] = {"task_jbar", A_TASK_JBAR, 1, 0, 1, 2, 1},
    [OP_FRAME_VEL] = {"frame_velocity", A_FRAME_VEL, 2, 0, 1, 2, 1},
    [OP_FRAME_ACC] = {"frame_acceleration", A_FRAME_ACC, 3, 0, 1, 2, 1},
    [OP_JDOT_DJ] = {"jacobian_dot", A_JDOT_DJ, 2, 0, 1, 2, 1},
    [OP_COM_J] = {"com_jacobian", A_COM_J, 1, 0},
    [OP_MDOT] = {"mass_matrix_dot", A_MDOT, 2, 1},
    [OP_MANIP] = {"manipulability", A_MANIP, 1, 0, 1, 2, 1, .scalar = 1},
    [OP_INTEGRATE] = {"integrate", A_INTEGRATE, 2, 1, .dt = 1},
    [OP_DIFFERENCE] = {"difference", A_DIFFERENCE, 2, 1},
    [OP_CONSTRAINED] = {"constrained", A_CONSTRAINED, 5, 1, .split = SPLIT_ROWS},
    [OP_RNEA_DERIV] = {"rnea_derivatives", A_RNEA_DERIV, 3, 1, .split = SPLIT_STACK},
    [OP_ABA_DERIV] = {"aba_derivatives", A_ABA_DERIV, 3, 1, .split = SPLIT_STACK},
    [OP_KIN_HESSIAN] = {"kinematic_hessian", A_KIN_HESSIAN, 1, 0, 1, 2, 1},
    [OP_FRAME_VEL_DERIV] = {"frame_velocity_derivatives", A_FRAME_VEL_DERIV, 2, 0, 1, 2, 1,
                            .split = SPLIT_STACK},
    [OP_FRAME_ACC_DERIV] = {"frame_acceleration_derivatives", A_FRAME_ACC_DERIV, 3, 0, 1, 2, 1,
                            .split = SPLIT_STACK},
    [OP_CHRISTOFFEL] = {"christoffel", A_CHRISTOFFEL, 1, 1},
    [OP_DMDQ] = {"mass_matrix_derivative", A_DMDQ, 1, 1},
};

static const char *const KW_NAMES[KW_COUNT] = {"threads", "check", "armature", "friction",
                                               "frame", "kind", "about", "out", "dt"};
static PyObject *kw_str[KW_COUNT], *str_dyn, *str_kin;

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *fn;    /* the Python function: the general path, and everything else */
    PyObject *kinds; /* jacobian: {kind name: code}; else None */
    int op, nx;      /* the algorithm and its number of state arguments */
    long flags;      /* the flags of a call with every keyword at its default */
    long kind;       /* the default kind */
    unsigned kw;     /* the keywords the Python function takes (1 << KW_...) */
} entry_t;

static int keyword(PyObject *name)
{
    for (int k = 0; k < KW_COUNT; k++)
        if (name == kw_str[k])
            return k;
    for (int k = 0; k < KW_COUNT; k++)
        if (PyUnicode_Check(name) && PyUnicode_Compare(name, kw_str[k]) == 0)
            return k;
    return -1;
}

static PyObject *split_rows(PyObject *r, npy_intp n)
{
    /* the views (r[..., :n], r[..., n:]) of a result r (stolen) */
    PyObject *n_obj = PyLong_FromSsize_t(n), *lo = NULL, *hi = NULL, *t = NULL;
    if (n_obj)
        lo = PySlice_New(NULL, n_obj, NULL), hi = PySlice_New(n_obj, NULL, NULL);
    if (lo && hi) {
        PyObject *ilo = PyTuple_Pack(2, Py_Ellipsis, lo), *ihi = PyTuple_Pack(2, Py_Ellipsis, hi);
        PyObject *x = ilo ? PyObject_GetItem(r, ilo) : NULL;
        PyObject *y = ihi ? PyObject_GetItem(r, ihi) : NULL;
        if (x && y)
            t = PyTuple_Pack(2, x, y);
        Py_XDECREF(x), Py_XDECREF(y), Py_XDECREF(ilo), Py_XDECREF(ihi);
    }
    Py_XDECREF(lo), Py_XDECREF(hi), Py_XDECREF(n_obj), Py_DECREF(r);
    return t;
}

static PyObject *split_views(PyObject *r)
{
    /* the matrices of a stacked result r, (k, n, m) or (N, k, n, m), as a tuple of k views
     * (n, m) or (N, n, m) of it (steals the reference to r) */
    PyArrayObject *a = (PyArrayObject *)r;
    const int nd = PyArray_NDIM(a), k = (int)PyArray_DIM(a, nd - 3);
    PyObject *t = PyTuple_New(k);
    for (int j = 0; t != NULL && j < k; j++) {
        npy_intp dims[3], strides[3];
        int m = 0;
        for (int d = 0; d < nd; d++)
            if (d != nd - 3)
                dims[m] = PyArray_DIM(a, d), strides[m++] = PyArray_STRIDE(a, d);
        Py_INCREF(PyArray_DESCR(a));
        PyObject *v = PyArray_NewFromDescr(&PyArray_Type, PyArray_DESCR(a), nd - 1, dims,
                                           strides, PyArray_BYTES(a) + j * PyArray_STRIDE(a, nd - 3),
                                           NPY_ARRAY_WRITEABLE, NULL);
        if (v != NULL && PyArray_SetBaseObject((PyArrayObject *)v, Py_NewRef(r)) < 0)
            Py_CLEAR(v);
        if (v == NULL)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, j, v);
    }
    Py_DECREF(r);
    return t;
}

static PyObject *entry_fast(entry_t *e, PyObject *const *args, Py_ssize_t nargs,
                            PyObject *kwnames)
{
    /* the result of the call, NULL with an exception, or Py_None (a new reference): this
     * call is the Python function's to answer */
    const op_t *op = &OPS[e->op];
    const int nslot = 1 + e->nx + (op->frame > 0) + (op->kind > 0) + (op->dt > 0);
    PyObject *slot[8] = {NULL};
    if (nargs > nslot || nargs < 1 + e->nx - op->last_acc)
        Py_RETURN_NONE;
    for (Py_ssize_t k = 0; k < nargs; k++)
        slot[k] = args[k];
    long flags = e->flags, threads = 0;
    PyObject *dest = NULL;
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        int w = keyword(PyTuple_GET_ITEM(kwnames, k));
        PyObject *val = args[nargs + k];
        if (w < 0 || !(e->kw & (1u << w)))
            Py_RETURN_NONE;
        if (w == KW_ABOUT) /* momentum_matrix's about is its kind */
            w = KW_KIND;
        if (w == KW_OUT) { /* the array to write into */
            dest = val;
            continue;
        }
        if (w == KW_THREADS) {
            if (val != Py_None) {
                if (!PyLong_CheckExact(val))
                    Py_RETURN_NONE;
                threads = PyLong_AsLong(val);
                if (threads < 1) {
                    PyErr_Clear();
                    Py_RETURN_NONE;
                }
            }
        }
        else if (w == KW_FRAME || w == KW_KIND || w == KW_DT) {
            const int at = w == KW_FRAME ? op->frame : w == KW_KIND ? op->kind : op->dt;
            if (!at)
                Py_RETURN_NONE;
            const int s = 1 + e->nx + at - 1;
            if (slot[s] != NULL)
                Py_RETURN_NONE;
            slot[s] = val;
        }
        else {
            const long bit = w == KW_CHECK ? FL_CHECK : w == KW_ARMATURE ? FL_ARMATURE : FL_FRICTION;
            if (val == Py_False)
                flags &= ~bit;
            else if (val != Py_True)
                Py_RETURN_NONE;
        }
    }
    if (op->split && dest != NULL && dest != Py_None) /* out: a tuple of matrices */
        Py_RETURN_NONE;
    for (int k = 0; k < 1 + e->nx - op->last_acc; k++) /* the required arguments */
        if (slot[k] == NULL)
            Py_RETURN_NONE;
    if (op->need_frame && slot[1 + e->nx + op->frame - 1] == NULL)
        Py_RETURN_NONE;
    if (op->last_acc && (slot[e->nx] == NULL || slot[e->nx] == Py_None)) { /* a = None */
        slot[e->nx] = Py_None;
        flags &= ~FL_ACC;
    }
    double eps = 0.0; /* integrate's dt: a finite float or int, else the Python function */
    if (op->dt) {
        PyObject *d = slot[e->nx + op->dt];
        eps = d == NULL ? 1.0 : PyFloat_Check(d) ? PyFloat_AS_DOUBLE(d)
                              : PyLong_CheckExact(d) ? PyLong_AsDouble(d) : NAN;
        if (!isfinite(eps) || PyErr_Occurred()) { /* NaN, inf, an int too large */
            PyErr_Clear();
            Py_RETURN_NONE;
        }
    }
    /* the model's cached pack: a tuple (NamedTuple) with P first */
    PyObject *pack = PyObject_GetAttr(slot[0], op->dyn ? str_dyn : str_kin);
    if (pack == NULL) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    if (!PyTuple_Check(pack) || PyTuple_GET_SIZE(pack) < 2) {
        Py_DECREF(pack);
        Py_RETURN_NONE;
    }
    PyObject *P = PyTuple_GET_ITEM(pack, 0);
    int algo = op->algo;
    int64_t frame = 0;
    long kind = e->kind;
    if (op->frame) {
        PyObject *name = slot[1 + e->nx + op->frame - 1], *frames = PyTuple_GET_ITEM(pack, 1);
        if (e->op == OP_FK)
            algo = name == NULL || name == Py_None ? A_FRAME_POSES : A_FRAME_POSE;
        if (algo != A_FRAME_POSES) {
            PyObject *k = name != NULL && PyUnicode_CheckExact(name) && PyDict_CheckExact(frames)
                              ? PyDict_GetItemWithError(frames, name) : NULL;
            if (k == NULL || !PyLong_CheckExact(k)) {
                PyErr_Clear();
                Py_DECREF(pack);
                Py_RETURN_NONE;
            }
            frame = PyLong_AsLongLong(k);
        }
    }
    if (op->kind && slot[1 + e->nx + op->kind - 1] != NULL) {
        PyObject *name = slot[1 + e->nx + op->kind - 1];
        PyObject *k = PyUnicode_CheckExact(name) && e->kinds != Py_None
                          ? PyDict_GetItemWithError(e->kinds, name) : NULL;
        if (k == NULL || !PyLong_CheckExact(k)) {
            PyErr_Clear();
            Py_DECREF(pack);
            Py_RETURN_NONE;
        }
        kind = PyLong_AsLong(k);
    }
    if (e->op == OP_ABA) { /* a mimic joint couples bodies ABA cannot: M and Cholesky */
        PyArrayObject *a = (PyArrayObject *)P;
        if (!PyArray_Check(P) || PyArray_TYPE(a) != NPY_INT64 || PyArray_SIZE(a) < HI) {
            Py_DECREF(pack);
            Py_RETURN_NONE;
        }
        if (((const int64_t *)PyArray_DATA(a))[3])
            algo = A_FORWARD;
    }
    PyObject *xs[RD_MAX_X];
    for (int k = 0; k < RD_MAX_X; k++)
        xs[k] = k < e->nx ? slot[1 + k] : Py_None;
    int64_t nk = 0;
    if (op->split == SPLIT_ROWS) { /* the rows k: the last state argument's last dimension */
        PyObject *last = slot[e->nx];
        if ((dest != NULL && dest != Py_None) || !PyArray_Check(last)
            || PyArray_NDIM((PyArrayObject *)last) < 1) {
            Py_DECREF(pack);
            Py_RETURN_NONE;
        }
        nk = PyArray_DIM((PyArrayObject *)last, PyArray_NDIM((PyArrayObject *)last) - 1);
    }
    PyObject *want = op->scalar && (dest == NULL || dest == Py_None) ? Py_Ellipsis : dest;
    PyObject *r = call_k(algo, P, xs, Py_None, flags, eps, frame, (int)kind, threads, 0, nk, want);
    Py_DECREF(pack);
    if (r != NULL && op->split == SPLIT_ROWS && PyArray_Check(r))
        return split_rows(r, PyArray_DIM((PyArrayObject *)r, PyArray_NDIM((PyArrayObject *)r) - 1) - nk);
    if (r != NULL && op->scalar && (dest == NULL || dest == Py_None) && PyArray_Check(r) && PyArray_NDIM((PyArrayObject *)r) == 0) {
        PyObject *f = PyFloat_FromDouble(*(const double *)PyArray_DATA((PyArrayObject *)r));
        Py_DECREF(r);
        return f;
    }
    if (r != NULL && op->split == SPLIT_STACK && PyArray_Check(r))
        return split_views(r);
    if (r == NULL || PyArray_Check(r) || PyFloat_CheckExact(r))
        return r;
    Py_DECREF(r); /* a code: the general path */
    Py_RETURN_NONE;
}

static PyObject *entry_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                  PyObject *kwnames)
{
    entry_t *e = (entry_t *)self;
    PyObject *r = entry_fast(e, args, PyVectorcall_NARGS(nargsf), kwnames);
    if (r != Py_None)
        return r;
    Py_DECREF(r);
    return PyObject_Vectorcall(e->fn, args, nargsf, kwnames);
}

static PyObject *entry_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    /* entry(fn, op, nx, flags, keywords, kinds, kind): fn published with the fast path of
     * op ("rnea", "aba", "crba", "coriolis", "fk", "jacobian") on nx state arguments, the
     * default flags, the names of fn's keywords this path may meet, and for jacobian the
     * kind names and the default kind */
    PyObject *fn, *keywords, *kinds;
    const char *name;
    int nx;
    long flags, kind;
    if (kwds != NULL && PyDict_GET_SIZE(kwds)) {
        PyErr_SetString(PyExc_TypeError, "entry takes positional arguments only");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "OsilO!Ol", &fn, &name, &nx, &flags, &PyTuple_Type, &keywords,
                          &kinds, &kind))
        return NULL;
    int op = -1;
    for (int k = 0; k < OP_COUNT; k++)
        if (strcmp(name, OPS[k].name) == 0)
            op = k;
    if (op < 0 || nx < 1 || nx > RD_MAX_X || !PyCallable_Check(fn)
        || (op != OP_RNEA && nx != OPS[op].nx)
        || (kinds != Py_None && !PyDict_Check(kinds))) {
        PyErr_Format(PyExc_ValueError, "entry: bad arguments for %s", name);
        return NULL;
    }
    unsigned kw = 0;
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(keywords); k++) {
        const int w = keyword(PyTuple_GET_ITEM(keywords, k));
        if (w < 0) {
            PyErr_Format(PyExc_ValueError, "entry: unknown keyword %R",
                         PyTuple_GET_ITEM(keywords, k));
            return NULL;
        }
        kw |= 1u << w;
    }
    entry_t *e = (entry_t *)type->tp_alloc(type, 0);
    if (e == NULL)
        return NULL;
    e->vectorcall = entry_vectorcall;
    e->fn = Py_NewRef(fn);
    e->kinds = Py_NewRef(kinds);
    e->op = op, e->nx = nx, e->flags = flags, e->kind = kind, e->kw = kw;
    return (PyObject *)e;
}

static int entry_traverse(PyObject *self, visitproc visit, void *arg)
{
    entry_t *e = (entry_t *)self;
    Py_VISIT(e->fn);
    Py_VISIT(e->kinds);
    return 0;
}

static int entry_clear(PyObject *self)
{
    entry_t *e = (entry_t *)self;
    Py_CLEAR(e->fn);
    Py_CLEAR(e->kinds);
    return 0;
}

static void entry_dealloc(PyObject *self)
{
    PyObject_GC_UnTrack(self);
    entry_clear(self);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *entry_getattro(PyObject *self, PyObject *name)
{
    /* its own attributes, else the Python function's (__name__, __module__, __code__, ...) */
    PyObject *r = PyObject_GenericGetAttr(self, name);
    if (r != NULL || !PyErr_ExceptionMatches(PyExc_AttributeError))
        return r;
    PyErr_Clear();
    return PyObject_GetAttr(((entry_t *)self)->fn, name);
}

static PyObject *entry_get(PyObject *self, PyObject *obj, PyObject *type)
{
    /* bound as a method when looked up on an instance, as a Python function is */
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

static PyObject *entry_repr(PyObject *self)
{
    PyObject *fn = ((entry_t *)self)->fn;
    PyObject *mod = PyObject_GetAttrString(fn, "__module__"),
             *name = mod ? PyObject_GetAttrString(fn, "__qualname__") : NULL;
    PyObject *r = name ? PyUnicode_FromFormat("<compiled function %S.%S>", mod, name) : NULL;
    Py_XDECREF(mod);
    Py_XDECREF(name);
    return r;
}

static PyObject *entry_doc(PyObject *self, void *c)
{
    return PyObject_GetAttrString(((entry_t *)self)->fn, "__doc__");
}

static PyObject *entry_wrapped(PyObject *self, void *c)
{
    return Py_NewRef(((entry_t *)self)->fn);
}

static PyObject *entry_reduce(PyObject *self, PyObject *unused)
{
    /* pickled by name, as a module-level function is */
    return PyObject_GetAttrString(((entry_t *)self)->fn, "__qualname__");
}

static PyGetSetDef entry_getset[] = {
    {"__doc__", entry_doc, NULL, "the Python function's documentation", NULL},
    {"__wrapped__", entry_wrapped, NULL, "the Python function (the general path)", NULL},
    {NULL},
};

static PyMethodDef entry_methods[] = {
    {"__reduce__", entry_reduce, METH_NOARGS, "pickled by its qualified name"},
    {NULL},
};

static PyTypeObject entry_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "robodyn.kernels._core.entry",
    .tp_basicsize = sizeof(entry_t),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "entry(fn, op, nx, flags, keywords, kinds, kind): the Python function fn with "
              "a compiled fast path (module.c)",
    .tp_vectorcall_offset = offsetof(entry_t, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_new = entry_new,
    .tp_traverse = entry_traverse,
    .tp_clear = entry_clear,
    .tp_dealloc = entry_dealloc,
    .tp_getattro = entry_getattro,
    .tp_descr_get = entry_get,
    .tp_repr = entry_repr,
    .tp_getset = entry_getset,
    .tp_methods = entry_methods,
};

void rd_tumble(const double *I, const double *Iinv, const double *R0, const double *w0, double h,
               int64_t n, int method, double *R_out, double *w_out);

static const double *mat(PyObject *o, npy_intp n)
{
    /* the data of a C-contiguous native float64 array of n doubles, else NULL */
    PyArrayObject *x = (PyArrayObject *)o;
    if (!PyArray_Check(o) || PyArray_TYPE(x) != NPY_DOUBLE || !PyArray_ISCARRAY_RO(x)
        || !PyArray_ISNOTSWAPPED(x) || PyArray_SIZE(x) != n)
        return NULL;
    return (const double *)PyArray_DATA(x);
}

static PyObject *py_tumble(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    /* tumble(I (3, 3), Iinv (3, 3), R0 (3, 3), w0 (3,), h, n, method) -> (R (n+1, 3, 3),
     * w (n+1, 3)): a torque-free rigid body (rigidbody.c) */
    if (!nargs_ok("tumble", nargs, 7))
        return NULL;
    const double *I = mat(args[0], 9), *Iinv = mat(args[1], 9), *R0 = mat(args[2], 9),
                 *w0 = mat(args[3], 3);
    const double h = PyFloat_AsDouble(args[4]);
    const long long n = PyLong_AsLongLong(args[5]);
    const long method = PyLong_AsLong(args[6]);
    if (PyErr_Occurred())
        return NULL;
    if (!I || !Iinv || !R0 || !w0 || n < 0 || method < 0 || method > 2) {
        PyErr_SetString(PyExc_ValueError, "tumble: I, Iinv, R0 must be float64 (3, 3), w0 (3,)");
        return NULL;
    }
    npy_intp dR[3] = {n + 1, 3, 3}, dw[2] = {n + 1, 3};
    PyObject *R = PyArray_SimpleNew(3, dR, NPY_DOUBLE), *w = PyArray_SimpleNew(2, dw, NPY_DOUBLE);
    if (!R || !w) {
        Py_XDECREF(R);
        Py_XDECREF(w);
        return NULL;
    }
    double *Rd = (double *)PyArray_DATA((PyArrayObject *)R);
    double *wd = (double *)PyArray_DATA((PyArrayObject *)w);
    Py_BEGIN_ALLOW_THREADS
    rd_tumble(I, Iinv, R0, w0, h, (int64_t)n, (int)method, Rd, wd);
    Py_END_ALLOW_THREADS
    return Py_BuildValue("(NN)", R, w);
}

static PyObject *py_threads(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    /* the default number of threads of a batch */
    return PyLong_FromLong(default_threads);
}

/* ---------------------------------------------------------------- the module */
typedef struct {
    const char *name;
    long value;
} named_t;

#define NAMED(x) {#x, x}
static const named_t LAYOUT[] = {
    NAMED(HI), NAMED(WI), NAMED(HF), NAMED(WF), NAMED(BI_PARENT), NAMED(BI_END),
    NAMED(BI_TYPE), NAMED(BI_QIDX), NAMED(BI_VIDX), NAMED(BI_NV), NAMED(BI_MIMIC),
    NAMED(BF_MASS), NAMED(BF_H), NAMED(BF_IO), NAMED(BF_AXIS), NAMED(BF_R0), NAMED(BF_P0),
    NAMED(BF_MULT), NAMED(BF_OFF), NAMED(BF_A1), NAMED(BF_A2), NAMED(BF_RA), NAMED(BF_S),
    NAMED(BF_PITCH), NAMED(BF_C), NAMED(BF_IC), NAMED(BF_SR), NAMED(BF_ST), NAMED(J_FIXED),
    NAMED(J_REVOLUTE), NAMED(J_PRISMATIC), NAMED(J_FREE),
    NAMED(J_SPHERICAL), NAMED(J_PLANAR), NAMED(J_HELICAL), NAMED(J_CYLINDRICAL), NAMED(J_UNIVERSAL),
    NAMED(FL_FRICTION),
    NAMED(FL_ARMATURE), NAMED(FL_CHECK), NAMED(FL_GRAVITY), NAMED(FL_VEL), NAMED(FL_ACC),
    NAMED(FL_FEXT), NAMED(KIND_SPACE), NAMED(KIND_BODY), NAMED(KIND_WORLD_ALIGNED),
    NAMED(LANES), {NULL, 0},
};

#define METHOD(name, doc) {#name, (PyCFunction)(void (*)(void))py_##name, METH_FASTCALL, doc}
/* ---------------------------------------------------------------- a rollout (sim.c) */
static double *out_array(PyObject *o, npy_intp rows, npy_intp n)
{
    /* a writable C-contiguous float64 (rows, n) array's data, or NULL */
    if (!PyArray_Check(o))
        return NULL;
    PyArrayObject *x = (PyArrayObject *)o;
    if (PyArray_TYPE(x) != NPY_DOUBLE || !PyArray_ISCARRAY(x) || !PyArray_ISNOTSWAPPED(x)
        || PyArray_NDIM(x) != 2 || PyArray_DIM(x, 0) != rows || PyArray_DIM(x, 1) != n)
        return NULL;
    return (double *)PyArray_DATA(x);
}

static int sim_params(PyObject *o, const model_t *md, int law, npy_intp npar, const double **par)
{
    /* params = [kp, kd (nv each), q_a, q_b (nq each), tau_max (nv), T, c_0 .. c_5] (npar),
     * then for LAW_TASK_CT the task-space law's TP_SIZE parameters, for LAW_SCHEDULE the
     * gain schedule, for a force law TP_SIZE then FP_SIZE (rollout.h); 0 or -1 */
    const int sched = law == LAW_SCHEDULE;
    npy_intp extra = law == LAW_TASK_CT ? TP_SIZE : (force_law(law) ? TP_SIZE + FP_SIZE : 0);
    if (sched && PyArray_Check(o) && PyArray_NDIM((PyArrayObject *)o) == 1
        && PyArray_TYPE((PyArrayObject *)o) == NPY_DOUBLE
        && PyArray_DIM((PyArrayObject *)o, 0) > npar + 3) { /* N samples */
        const double N = ((const double *)PyArray_DATA((PyArrayObject *)o))[npar];
        extra = N >= 1.0 && N < 1e9 && N == floor(N) ? 3 + (npy_intp)N * sched_record(md) : -1;
    }
    else if (sched)
        extra = -1;
    return extra < 0 || state_array(o, 1, 1, npar + extra, 1, par) ? -1 : 0;
}

static int sim_extras(PyObject *const *args, const model_t *md, int64_t K, sim_t *s,
                      const double **z0, samples_t *out)
{
    /* simulate's env, fext, z0, Z and FC (args 16 .. 20): the environment block (or None),
     * the constant wrenches (nb x 6, or None), and the law's states z0 (nz) with their
     * samples Z (K + 1, nz) and the contact forces FC (K + 1, 3 nc) (None when there are
     * none); 0 or -1 */
    s->env = s->fext = NULL, *z0 = NULL, out->Z = out->FC = NULL;
    if (args[16] != Py_None) {
        PyArrayObject *e = (PyArrayObject *)args[16];
        if (!PyArray_Check(args[16]) || PyArray_TYPE(e) != NPY_DOUBLE || !PyArray_ISCARRAY_RO(e)
            || !PyArray_ISNOTSWAPPED(e) || PyArray_NDIM(e) != 1
            || !rd_env_valid(md, PyArray_DATA(e), PyArray_DIM(e, 0)))
            return -1;
        s->env = PyArray_DATA(e);
        if (!(out->FC = out_array(args[20], K + 1, 3 * env_contacts(s->env))))
            return -1;
    }
    if (args[17] != Py_None && state_array(args[17], 1, 1, 6 * md->nb, 1, &s->fext))
        return -1;
    s->nz = force_law(s->law) ? rd_force_states(s) : 0;
    if (s->nz && (state_array(args[18], 1, 1, s->nz, 1, z0) || !(out->Z = out_array(args[19], K + 1, s->nz))))
        return -1;
    return 0;
}

static PyObject *sim_result(int code, int64_t done)
{
    /* (code, done, exc): exc is the exception of a signal handler that stopped the run
     * (Ctrl-C: KeyboardInterrupt, code E_INTERRUPTED), else None */
    if (code == E_MEMORY)
        return PyErr_NoMemory();
    if (code == E_INTERRUPTED && PyErr_Occurred()) { /* hand the handler's exception back */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        if (tb)
            PyException_SetTraceback(value, tb);
        Py_XDECREF(type);
        Py_XDECREF(tb);
        return Py_BuildValue("(iLN)", code, (long long)done, value);
    }
    return Py_BuildValue("(iLO)", code, (long long)done, Py_None);
}

static PyObject *py_simulate(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    /* (P, Pc, q0, v0, K, h, integrator, law, flags, cflags, params, Q, V, A, TAU, k0, env,
     * fext, z0, Z, FC) with params as sim_params reads them and env .. FC as sim_extras;
     * Q (K + 1, nq), V, A, TAU (K + 1, nv) -> (code, done, exc) (sim_result) */
    (void)self;
    if (!nargs_ok("simulate", nargs, 21))
        return NULL;
    model_t md, mc;
    if (get_model(args[0], &md) || get_model(args[1], &mc))
        return NULL;
    const int64_t K = PyLong_AsLongLong(args[4]);
    const double h = PyFloat_AsDouble(args[5]);
    const int integrator = (int)PyLong_AsLong(args[6]), law = (int)PyLong_AsLong(args[7]);
    const long flags = PyLong_AsLong(args[8]), cflags = PyLong_AsLong(args[9]);
    const int64_t k0 = PyLong_AsLongLong(args[15]);
    if (PyErr_Occurred())
        return NULL;
    const npy_intp n = md.nv, nq = md.nq, npar = 3 * n + 2 * nq + 7; /* params before task's */
    const double *q0, *v0, *z0, *par;
    samples_t out;
    const int task = law == LAW_TASK_CT || force_law(law), sched = law == LAW_SCHEDULE;
    sim_t s = {&md, &mc, integrator, law, flags, cflags};
    int bad = mc.nq != md.nq || mc.nv != md.nv || K < 0 || k0 < 0 || integrator < 0
              || integrator > INT_RK4 || law < 0 || law > LAW_ADMITTANCE
              || state_array(args[2], 1, 1, nq, 1, &q0) || state_array(args[3], 1, 1, n, 1, &v0)
              || sim_params(args[10], &md, law, npar, &par)
              || !(out.Q = out_array(args[11], K + 1, nq)) || !(out.V = out_array(args[12], K + 1, n))
              || !(out.A = out_array(args[13], K + 1, n)) || !(out.TAU = out_array(args[14], K + 1, n));
    if (!bad) {
        s.force = force_law(law) ? par + npar + TP_SIZE : NULL;
        bad = (task && !(par[npar + TP_FRAME] >= 0 && par[npar + TP_FRAME] < mc.nf))
              || (s.force && !rd_force_valid(&mc, law, s.force)) || sim_extras(args, &md, K, &s, &z0, &out);
    }
    if (bad) {
        PyErr_SetString(PyExc_ValueError, "simulate: bad arguments (see robodyn.sim.simulate)");
        return NULL;
    }
    PyThreadState *save = PyEval_SaveThread();
    const poll_t poll = {poll_signals, &save};
    const double *qa = par + 2 * n, *qb = qa + nq, *tau_max = qb + nq;
    s.kp = par, s.kd = par + n, s.qa = qa, s.qb = qb, s.T = tau_max[n], s.tau_max = tau_max;
    s.k0 = k0, s.poll = &poll;
    for (int k = 0; k < 6; k++)
        s.c[k] = tau_max[n + 1 + k];
    s.task = task ? par + npar : NULL;
    s.sched = sched ? par + npar : NULL;
    int64_t done = 0;
    const int code = rd_simulate(&s, q0, v0, z0, K, h, &out, &done);
    PyEval_RestoreThread(save);
    return sim_result(code, done);
}

static PyObject *py_ik_dls(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    /* (P, q0 (nv), T_sd (16), frame, lo (nv), hi (nv), w (6), opts = [tol_omega, tol_v,
     * damping^2, max_step, max_iterations, stall, position_only, it0], hist (it0 errors,
     * or None when it0 = 0)) -> (q, q_best, status, iterations, err): one
     * damped-least-squares start, or the rest of one from iteration it0 (ik.c) */
    (void)self;
    if (!nargs_ok("ik_dls", nargs, 9))
        return NULL;
    model_t md;
    if (get_model(args[0], &md))
        return NULL;
    const long frame = PyLong_AsLong(args[3]);
    if (PyErr_Occurred())
        return NULL;
    const npy_intp n = md.nv;
    const double *q0, *Td, *lo, *hi, *w, *op, *hist = NULL;
    if (md.has_free || md.nq != md.nv || frame < 0 || frame >= md.nf
        || state_array(args[1], 1, 1, n, 1, &q0) || state_array(args[2], 1, 1, 16, 1, &Td)
        || state_array(args[4], 1, 1, n, 1, &lo) || state_array(args[5], 1, 1, n, 1, &hi)
        || state_array(args[6], 1, 1, 6, 1, &w) || state_array(args[7], 1, 1, 8, 1, &op)
        || !(op[4] >= 0.0 && op[4] < 1e8) || !(op[7] >= 0.0 && op[7] <= op[4])
        || (op[7] > 0.0 && state_array(args[8], 1, 1, (npy_intp)op[7], 1, &hist))) {
        PyErr_SetString(PyExc_ValueError, "ik_dls: bad arguments (see robodyn.kinematics.ik)");
        return NULL;
    }
    ik_opts_t o = {op[0], op[1], op[2], op[3], (int)op[4], op[5] != 0.0, op[6] != 0.0, (int)op[7]};
    npy_intp d[1] = {n};
    PyObject *q = PyArray_SimpleNew(1, d, NPY_DOUBLE), *qb = PyArray_SimpleNew(1, d, NPY_DOUBLE);
    if (!q || !qb) {
        Py_XDECREF(q);
        Py_XDECREF(qb);
        return NULL;
    }
    ik_out_t res;
    int code = rd_ik_dls(&md, frame, Td, q0, lo, hi, w, &o, hist, (double *)PyArray_DATA((PyArrayObject *)q),
                         (double *)PyArray_DATA((PyArrayObject *)qb), &res);
    if (code) {
        Py_DECREF(q);
        Py_DECREF(qb);
        return PyErr_NoMemory();
    }
    return Py_BuildValue("(NNiid)", q, qb, res.status, res.iterations, res.err);
}

static PyMethodDef methods[] = {
    METHOD(rnea, "rnea(P, q, v, a, fext, flags, eps, threads) -> tau"),
    METHOD(aba, "aba(P, q, v, tau, fext, flags, eps, threads) -> qdd"),
    METHOD(crba, "crba(P, q, flags, threads) -> M"),
    METHOD(coriolis, "coriolis(P, q, v, flags, threads) -> C"),
    METHOD(minv, "minv(P, q, flags, threads) -> M^-1"),
    METHOD(mass_matrix_dot, "mass_matrix_dot(P, q, v, flags, threads) -> dM/dt = C + C^T"),
    METHOD(forward, "forward(P, q, v, tau, fext, flags, eps, threads) -> qdd (via M)"),
    METHOD(christoffel, "christoffel(P, q, flags, threads) -> Gamma (nv, nv, nv)"),
    METHOD(mass_matrix_derivative, "mass_matrix_derivative(P, q, flags, threads) -> dM/dq "
                                   "(nv, nv, nv)"),
    METHOD(regressor, "regressor(P, q, v, a, fext, flags, eps, threads) -> Y (nv, 10 (nb - 1))"),
    METHOD(rnea_derivatives, "rnea_derivatives(P, q, v, a, fext, flags, eps, threads) -> "
                             "[dtau/dq, dtau/dv, M] (3, nv, nv) (rnea_derivatives.c)"),
    METHOD(aba_derivatives, "aba_derivatives(P, q, v, tau, fext, flags, eps, threads) -> "
                            "[da/dq, da/dv, M^-1] (3, nv, nv) (aba_derivatives.c)"),
    METHOD(kinetic, "kinetic(P, q, v, flags, kind, threads) -> K (kind 0), K + U (kind 1)"),
    METHOD(potential, "potential(P, q, flags, 0, threads) -> U"),
    METHOD(energy_regressor, "energy_regressor(P, q, v, flags, 0, threads) -> e (10 (nb - 1))"),
    METHOD(momentum, "momentum(P, q, v, flags, kind, threads) -> h (6): kind 0 origin, 1 CoM"),
    METHOD(momentum_rate, "momentum_rate(P, q, v, a, flags, kind, threads) -> dh/dt (6)"),
    METHOD(com_velocity, "com_velocity(P, q, v, flags, 2, threads) -> dc/dt (3)"),
    METHOD(com_acceleration, "com_acceleration(P, q, v, a, flags, 2, threads) -> d2c/dt2 (3)"),
    METHOD(ccrba, "ccrba(P, q, flags, kind, threads) -> A (6, nv): kind 0 origin, 1 A_G"),
    METHOD(task_lambda, "task_lambda(P, q, frame, kind, rows, threads) -> Lambda (6, 6)"),
    METHOD(task_jbar, "task_jbar(P, q, frame, kind, rows, threads) -> Jbar (nv, 6)"),
    METHOD(body_poses, "body_poses(P, q, threads) -> T (nb, 4, 4)"),
    METHOD(frame_poses, "frame_poses(P, q, threads) -> T (nf, 4, 4)"),
    METHOD(frame_pose, "frame_pose(P, q, frame, threads) -> T (4, 4)"),
    METHOD(jacobian, "jacobian(P, q, frame, kind, threads) -> J (6, nv)"),
    METHOD(jacobian_dot, "jacobian_dot(P, q, v, frame, kind, threads) -> [J, dJ, V] flat"),
    METHOD(frame_velocity, "frame_velocity(P, q, v, frame, kind, threads) -> V (6)"),
    METHOD(frame_acceleration, "frame_acceleration(P, q, v, a, frame, kind, threads) -> dV (6)"),
    METHOD(jacobian_dot_dj, "jacobian_dot_dj(P, q, v, frame, kind, threads) -> dJ/dt (6, nv)"),
    METHOD(com_jacobian_j, "com_jacobian_j(P, q, threads) -> J_c (3, nv)"),
    METHOD(manipulability, "manipulability(P, q, frame, kind, rows, threads) -> w"),
    METHOD(ellipsoid, "ellipsoid(P, q, frame, kind, rows, threads) -> [sigma (6), U (36)]"),
    METHOD(com, "com(P, q, threads) -> c (3)"),
    METHOD(com_jacobian, "com_jacobian(P, q, threads) -> [c, J_c] flat"),
    METHOD(ik_residual, "ik_residual(P, q, T_sd, frame, threads) -> [T, J_b, V_b] flat"),
    METHOD(ik_dls, "ik_dls(P, q0, T_sd, frame, lo, hi, w, opts, hist) -> (q, q_best, status, "
                   "iterations, err): one damped-least-squares IK start (ik.c)"),
    METHOD(tumble, "tumble(I, Iinv, R0, w0, h, n, method) -> (R, w): a torque-free rigid body"),
    METHOD(simulate, "simulate(P, Pc, q0, v0, K, h, integrator, law, flags, cflags, params, "
                     "Q, V, A, TAU, k0, env, fext, z0, Z, FC) -> (code, done, exc): one "
                     "rollout (sim.c)"),
    METHOD(threads, "threads() -> the default number of threads of a batch"),
    METHOD(integrate, "integrate(P, q, v, dt, flags, threads) -> q (+) v dt (cspace.c)"),
    METHOD(difference, "difference(P, q0, q1, flags, threads) -> q1 (-) q0 (cspace.c)"),
    METHOD(kinematic_hessian, "kinematic_hessian(P, q, frame, kind, threads) -> H (6, nv, nv)"),
    METHOD(frame_velocity_derivatives, "frame_velocity_derivatives(P, q, v, frame, kind, threads) "
                                       "-> [dV/dq, dV/dv] (2, 6, nv)"),
    METHOD(frame_acceleration_derivatives, "frame_acceleration_derivatives(P, q, v, a, frame, "
                                           "kind, threads) -> [dA/dq, dA/dv, dA/da] (3, 6, nv)"),
    METHOD(constrained, "constrained(P, q, v, tau, A, dA_v, fext, flags, eps, threads) -> "
                        "[qdd (nv), lambda (k)] (constrained.c)"),
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_core",
    "robodyn's compiled core: kinematics and dynamics, one state or a batch (kernels/core/).",
    -1, methods,
};

PyMODINIT_FUNC PyInit__core(void)
{
    import_array();
    const char *env = getenv("ROBODYN_NUM_THREADS");
    default_threads = env && atoi(env) > 0 ? atoi(env) : rd_cpu_count();
    if (default_threads > RD_MAX_THREADS)
        default_threads = RD_MAX_THREADS;
    for (int k = 0; k < KW_COUNT; k++)
        if ((kw_str[k] = PyUnicode_InternFromString(KW_NAMES[k])) == NULL)
            return NULL;
    if ((str_dyn = PyUnicode_InternFromString("_rd_packed")) == NULL
        || (str_kin = PyUnicode_InternFromString("_kinematics_pack")) == NULL
        || PyType_Ready(&entry_type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddObjectRef(m, "entry", (PyObject *)&entry_type) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    /* the layout this file was compiled with, compared with kernels/_pack.py at import */
    PyObject *layout = PyDict_New();
    if (layout == NULL || PyModule_AddObject(m, "LAYOUT", layout) < 0) {
        Py_XDECREF(layout);
        Py_DECREF(m);
        return NULL;
    }
    for (const named_t *c = LAYOUT; c->name; c++) {
        PyObject *v = PyLong_FromLong(c->value);
        if (v == NULL || PyDict_SetItemString(layout, c->name, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(m);
            return NULL;
        }
        Py_DECREF(v);
    }
    return m;
}
