/*
 * Running an algorithm on one state or on a batch of N states.
 *
 * A batch is cut into chunks of LANES states; each chunk is gathered into the lane-major
 * layout of rd.h (padding the lanes past the last state with a copy of the chunk's first
 * state), checked state by state (finite numbers, nonzero quaternions), computed by the
 * algorithm with L = LANES, and its lanes are scattered into the output rows. A last chunk
 * of a few states runs them one at a time (L = 1) instead of padding. An algorithm with a
 * sparsity pattern (CRBA: M_jk = 0 unless dofs j and k share a chain) writes only those
 * entries, into output rows that start at zero (fresh zero pages, module.c): for a
 * branched robot most of M is never stored twice.
 *
 * With checks on (FL_CHECK), every state's output is checked too, once computed: inputs that
 * are finite but large (v = 1e160, tau = 1e308) can overflow a product into inf or NaN, and
 * such a state is an error (E_OVERFLOW), never a silent NaN. The test is a sum over the
 * output (rd.h: nonfinite_sum): for a whole chunk, added up while scatter moves the lanes
 * into the rows (no second pass over them); for one state or a last short chunk, a pass of
 * vector additions. Profiled, it is under 1 % of a batch and 10-20 ns of a one-state call.
 *
 * An algorithm that offers a row-major path for the model (algo_t.rows: cspace.c's q + v dt)
 * runs each thread's states straight from the rows instead, in pieces between two polls.
 *
 * Threads: the chunks are split into contiguous ranges, one per thread; the calling thread
 * takes the first range. Each thread allocates its workspace once per call; nothing is
 * allocated per state. The error reported is that of the lowest failing state.
 *
 * Ctrl-C: the calling thread polls (poll_t) every POLL_CHUNKS chunks of its range; a stop
 * raises a flag every thread reads before its next chunk, and the call returns
 * E_INTERRUPTED.
 */
#include "batch.h"

#include <stdlib.h>

#if defined(__SSE2__) || defined(_M_X64)
#include <emmintrin.h>
#define RD_SSE2 1
#endif

enum { POLL_CHUNKS = 256 }; /* 4096 states between two polls */
/* a row-major path (algo_t.rows) takes 1-2 ns a state: a thread (20-40 us to start and join)
 * is worth it from 2^16 states */
enum { ROWS_MIN_CHUNKS = 4096 };

#if defined(_WIN32)
#include <windows.h>
#else
#include <pthread.h>
#include <unistd.h>
#endif

int64_t rd_size(const model_t *md, const args_t *a, int sz)
{
    switch (sz) {
    case SZ_NQ: return md->nq;
    case SZ_NV: return md->nv;
    case SZ_16: return 16;
    case SZ_K: return a->nk;
    case SZ_KNV: return a->nk * md->nv;
    default: return 0;
    }
}

int64_t rd_out_size(const model_t *md, const algo_t *al, const args_t *a)
{
    return al->out_size(md) + al->out_per_row * a->nk;
}

int64_t rd_work_size(const model_t *md, const algo_t *al, const args_t *a)
{
    return al->work(md) + (al->work_rows ? al->work_rows(md, a->nk) : 0);
}

int rd_cpu_count(void)
{
#if defined(_WIN32)
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return (int)si.dwNumberOfProcessors;
#else
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
#endif
}

static int check_state(const model_t *md, const algo_t *al, const args_t *a, int64_t s)
{
    /* 0, or the error code of state s (E_NONFINITE + k, E_QUATERNION) */
    for (int k = 0; k < al->nx; k++) {
        if (!a->x[k])
            continue;
        int64_t n = rd_size(md, a, al->xsize[k]);
        if (nonfinite(a->x[k] + s * n, n))
            return E_NONFINITE + k;
    }
    if (a->fext && nonfinite(a->fext + s * 6 * md->nb, 6 * md->nb))
        return E_NONFINITE + al->nx; /* the wrenches follow the state arguments */
    /* a zero quaternion in configuration argument k (q; difference's q1): E_QUATERNION + k */
    for (int k = 0; k < al->nx; k++)
        if (a->x[k] && al->xsize[k] == SZ_NQ) {
            const int e = joint_check(md, a->x[k] + s * md->nq);
            if (e)
                return e + k;
        }
    return 0;
}

typedef struct {
    const model_t *md;
    const algo_t *al;
    const args_t *a;     /* the whole batch, row-major: x[k] (N, n_k), fext (N, nb, 6) */
    const int64_t *chk;  /* the entries of a lane output to check (NULL: all out_size) */
    int64_t nchk;
    double *out;         /* (N, out_size) */
    int64_t N, c0, c1;   /* this worker's chunks [c0, c1) */
    int check;
    int err;             /* the first error in this worker's states, and where */
    int64_t bad;
    const poll_t *poll;  /* the calling thread's worker polls for Ctrl-C (others: NULL) */
    volatile int *stop;  /* set when it says stop; every worker reads it between chunks */
} work_t;

static void gather(const double *src, int64_t n, int64_t s0, int m, int L, double *dst)
{
    /* rows s0 .. s0+m-1 of src (N, n) into dst (n, L); lanes m..L-1 repeat row s0 */
    for (int64_t j = 0; j < n; j++)
        for (int l = 0; l < L; l++)
            dst[j * L + l] = src[(s0 + (l < m ? l : 0)) * n + j];
}

static void scatter(const double *ob, int m, const int64_t *nz, const int64_t *src,
                    int64_t nnz, int64_t osz, double *rows, double *sum)
{
    /* rows[l][nz[k]] = ob[src[k]][l] for the lanes l < m (nz = src = all osz entries when
     * NULL): a transpose, written as m row streams. Two adjacent entries of two lanes move
     * as one 2 x 2 block (SSE2), halving the stores. With sum (LANES doubles, m = LANES),
     * the entries of each lane are added into sum[l] on the way (rd.h: nonfinite_sum): the
     * output is checked while it is moved, not read twice. */
#ifdef RD_SSE2
    __m128d acc[LANES / 2];
    for (int p = 0; p < LANES / 2; p++)
        acc[p] = _mm_setzero_pd();
#endif
    int64_t k = 0;
    while (k < nnz) {
        const int64_t j = nz ? nz[k] : k, s = nz ? src[k] : k;
        int l = 0;
        if (k + 1 < nnz && (nz ? nz[k + 1] : k + 1) == j + 1) {
            const int64_t s1 = nz ? src[k + 1] : k + 1;
#ifdef RD_SSE2
            if (sum) /* all LANES lanes, the accumulators in registers */
                for (int p = 0; p < LANES / 2; p++) {
                    const __m128d a = _mm_loadu_pd(ob + s * LANES + 2 * p),
                                  b = _mm_loadu_pd(ob + s1 * LANES + 2 * p);
                    acc[p] = _mm_add_pd(acc[p], _mm_add_pd(a, b));
                    _mm_storeu_pd(rows + 2 * p * osz + j, _mm_unpacklo_pd(a, b));
                    _mm_storeu_pd(rows + (2 * p + 1) * osz + j, _mm_unpackhi_pd(a, b));
                }
            else
                for (; l + 1 < m; l += 2) {
                    const __m128d a = _mm_loadu_pd(ob + s * LANES + l),
                                  b = _mm_loadu_pd(ob + s1 * LANES + l);
                    _mm_storeu_pd(rows + l * osz + j, _mm_unpacklo_pd(a, b));
                    _mm_storeu_pd(rows + (l + 1) * osz + j, _mm_unpackhi_pd(a, b));
                }
            if (sum)
                l = m;
#endif
            for (; l < m; l++) {
                const double a = ob[s * LANES + l], b = ob[s1 * LANES + l];
                rows[l * osz + j] = a;
                rows[l * osz + j + 1] = b;
                if (sum)
                    sum[l] += a + b;
            }
            k += 2;
        }
        else {
            for (; l < m; l++) {
                rows[l * osz + j] = ob[s * LANES + l];
                if (sum)
                    sum[l] += ob[s * LANES + l];
            }
            k += 1;
        }
    }
#ifdef RD_SSE2
    if (sum)
        for (int p = 0; p < LANES / 2; p++) {
            double t[2];
            _mm_storeu_pd(t, acc[p]);
            sum[2 * p] += t[0], sum[2 * p + 1] += t[1];
        }
#endif
}

#if defined(__GNUC__)
/* four doubles, loaded from any 8-byte aligned address (GCC and clang vector extension) */
typedef double v4d __attribute__((vector_size(32), aligned(8)));

static CLONES int nonfinite_big(const double *x, int64_t n)
{
    /* nonfinite_sum for a large output: 8 partial sums of 4 doubles, 32 doubles a step,
     * about as fast as they load */
    v4d s0 = {0.0}, s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
    int64_t k = 0;
    for (; k + 32 <= n; k += 32) {
        const v4d *v = (const v4d *)(x + k);
        s0 += v[0], s1 += v[1], s2 += v[2], s3 += v[3];
        s4 += v[4], s5 += v[5], s6 += v[6], s7 += v[7];
    }
    s0 += s1 + s2 + s3, s4 += s5 + s6 + s7; /* finite terms overflow only near 1e308 */
    int bad = nonfinite_sum(x + k, n - k);
    for (int j = 0; j < 4; j++)
        bad |= !isfinite(s0[j]) | !isfinite(s4[j]);
    return bad;
}

static CLONES int bad_lane(const double *ob, int m, const int64_t *chk, int64_t n)
{
    /* the first lane l < m of the lane output ob (entry j of lane l at ob[j LANES + l])
     * with NaN or inf among its entries 0 .. n-1 (chk NULL) or chk[0 .. n-1]; -1: none.
     * Per lane a sum of the entries (rd.h: nonfinite_sum): an entry's 16 lanes are 4
     * vectors, two entries a step into 8 partial sums */
    _Static_assert(LANES == 16, "bad_lane reads 16 lanes as 4 vectors");
    v4d a0 = {0.0}, a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
    int64_t k = 0;
    if (chk)
        for (; k + 2 <= n; k += 2) {
            const v4d *x = (const v4d *)(ob + chk[k] * LANES),
                      *y = (const v4d *)(ob + chk[k + 1] * LANES);
            a0 += x[0], a1 += x[1], a2 += x[2], a3 += x[3];
            b0 += y[0], b1 += y[1], b2 += y[2], b3 += y[3];
        }
    else
        for (; k + 2 <= n; k += 2) {
            const v4d *x = (const v4d *)(ob + k * LANES);
            a0 += x[0], a1 += x[1], a2 += x[2], a3 += x[3];
            b0 += x[4], b1 += x[5], b2 += x[6], b3 += x[7];
        }
    if (k < n) {
        const v4d *x = (const v4d *)(ob + (chk ? chk[k] : k) * LANES);
        a0 += x[0], a1 += x[1], a2 += x[2], a3 += x[3];
    }
    a0 += b0, a1 += b1, a2 += b2, a3 += b3;
    double sum[LANES];
    memcpy(sum, &a0, sizeof a0);
    memcpy(sum + 4, &a1, sizeof a1);
    memcpy(sum + 8, &a2, sizeof a2);
    memcpy(sum + 12, &a3, sizeof a3);
    for (int l = 0; l < m; l++)
        if (!isfinite(sum[l]))
            return l;
    return -1;
}
#else
static int nonfinite_big(const double *x, int64_t n) { return nonfinite_sum(x, n); }

static int bad_lane(const double *ob, int m, const int64_t *chk, int64_t n)
{
    double sum[LANES] = {0.0};
    for (int64_t k = 0; k < n; k++)
        for (int l = 0; l < LANES; l++)
            sum[l] += ob[(chk ? chk[k] : k) * LANES + l];
    for (int l = 0; l < m; l++)
        if (!isfinite(sum[l]))
            return l;
    return -1;
}
#endif

static int nonfinite_out(const double *x, int64_t n)
{
    /* 1 when one of the n doubles of a state's output is NaN or inf */
    return n < 64 ? nonfinite_sum(x, n) : nonfinite_big(x, n);
}

static void run_rows(work_t *w)
{
    /* the worker's states straight from the rows (algo_t.rows), in pieces of POLL_CHUNKS
     * chunks, polling for Ctrl-C between them as the lane path does */
    const int64_t step = POLL_CHUNKS * LANES, end = w->c1 * LANES < w->N ? w->c1 * LANES : w->N;
    w->err = 0;
    for (int64_t s0 = w->c0 * LANES; s0 < end; s0 += step) {
        if (w->poll && s0 > w->c0 * LANES && w->poll->fn(w->poll->ctx))
            *w->stop = 1;
        if (*w->stop) {
            w->err = E_INTERRUPTED, w->bad = s0;
            return;
        }
        int64_t bad = 0;
        const int e = w->al->rows(w->md, w->a, s0, s0 + step < end ? s0 + step : end, w->out,
                                  w->check, &bad);
        if (e) {
            w->err = e, w->bad = bad;
            return;
        }
    }
}

static void run_range(work_t *w)
{
    if (w->al->rows && w->al->rows_ok(w->md)) {
        run_rows(w);
        return;
    }
    const model_t *md = w->md;
    const algo_t *al = w->al;
    const args_t *a = w->a;
    const int64_t osz = rd_out_size(md, al, a), wsz = rd_work_size(md, al, a);
    int64_t xs[RD_MAX_X] = {0}, xtot = 0;
    for (int k = 0; k < al->nx; k++)
        xs[k] = a->x[k] ? rd_size(md, a, al->xsize[k]) : 0, xtot += xs[k];
    const int64_t fs = a->fext ? 6 * md->nb : 0;
    /* one allocation: the workspace, then the lane buffers of the inputs and the output */
    double *buf = malloc(sizeof(double) * (size_t)(LANES * (wsz + xtot + fs + osz) + 1));
    if (!buf) {
        w->err = -3;
        w->bad = w->c0 * LANES;
        return;
    }
    double *W = buf, *xb = W + LANES * wsz, *fb = xb + LANES * xtot, *ob = fb + LANES * fs;
    w->err = 0;
    for (int64_t c = w->c0; c < w->c1; c++) {
        const int64_t s0 = c * LANES;
        const int m = (int)(w->N - s0 < LANES ? w->N - s0 : LANES);
        if (w->poll && (c - w->c0) % POLL_CHUNKS == POLL_CHUNKS - 1 && w->poll->fn(w->poll->ctx))
            *w->stop = 1;
        if (*w->stop) {
            w->err = E_INTERRUPTED, w->bad = s0;
            break;
        }
        if (w->check)
            for (int l = 0; l < m; l++) {
                int e = check_state(md, al, a, s0 + l);
                if (e) {
                    w->err = e, w->bad = s0 + l;
                    free(buf);
                    return;
                }
            }
        int lane = 0, e;
        if (m <= LANES / 4) {
            /* a short last chunk: one state at a time, straight from the rows */
            for (int l = 0; l < m; l++) {
                args_t one = *a; /* the whole row: no pattern */
                one.nz = one.src = NULL;
                for (int k = 0; k < al->nx; k++)
                    one.x[k] = a->x[k] ? a->x[k] + (s0 + l) * xs[k] : NULL;
                one.fext = a->fext ? a->fext + (s0 + l) * fs : NULL;
                e = al->fn(md, 1, &one, w->out + (s0 + l) * osz, W, &lane);
                if (!e && w->check && nonfinite_out(w->out + (s0 + l) * osz, osz))
                    e = E_OVERFLOW;
                if (e) {
                    w->err = e, w->bad = s0 + l;
                    free(buf);
                    return;
                }
            }
            continue;
        }
        args_t ch = *a;
        double *x = xb;
        for (int k = 0; k < al->nx; k++) {
            ch.x[k] = NULL;
            if (a->x[k]) {
                gather(a->x[k], xs[k], s0, m, LANES, x);
                ch.x[k] = x;
                x += LANES * xs[k];
            }
        }
        if (a->fext) {
            gather(a->fext, fs, s0, m, LANES, fb);
            ch.fext = fb;
        }
        e = al->fn(md, LANES, &ch, ob, W, &lane);
        /* a whole chunk is checked as it is scattered; a last one of fewer lanes, before */
        if (!e && w->check && m < LANES
            && (lane = bad_lane(ob, m, w->chk, w->chk ? w->nchk : osz)) >= 0)
            e = E_OVERFLOW;
        if (e) {
            w->err = e, w->bad = s0 + lane;
            free(buf);
            return;
        }
        /* the lanes into the output rows; rows that are zero already (a->nz) take only the
         * entries the algorithm fills */
        double sum[LANES] = {0.0};
        const int whole = w->check && m == LANES;
        scatter(ob, m, a->nz, a->src, a->nz ? a->nnz : osz, osz, w->out + s0 * osz,
                whole ? sum : NULL);
        for (int l = 0; whole && l < LANES; l++)
            if (!isfinite(sum[l])) {
                w->err = E_OVERFLOW, w->bad = s0 + l;
                free(buf);
                return;
            }
    }
    free(buf);
}

#if defined(_WIN32)
static DWORD WINAPI worker(LPVOID p)
{
    run_range((work_t *)p);
    return 0;
}
#else
static void *worker(void *p)
{
    run_range((work_t *)p);
    return NULL;
}
#endif

int rd_run_batch(const model_t *md, const algo_t *al, const args_t *a, int64_t N, double *out,
                 int threads, int check, int64_t *bad, const poll_t *poll)
{
    /* the algorithm on the N states of a (row-major) into out (N, out_size), which must
     * be zero when the algorithm has a sparsity pattern; 0 or the error code of the lowest
     * failing state, *bad = that state (-3: out of memory; E_INTERRUPTED: poll said stop) */
    const int64_t nchunk = (N + LANES - 1) / LANES;
    args_t ap = *a; /* with the pattern, computed once for the whole batch */
    int64_t *nz = NULL, *chk = NULL, nchk = 0;
    if (al->pattern) {
        const int64_t osz = rd_out_size(md, al, a);
        if (!(nz = malloc(3 * sizeof(int64_t) * (size_t)osz)))
            return -3;
        ap.nz = nz;
        ap.src = nz + osz;
        ap.nnz = al->pattern(md, a, nz, nz + osz);
        /* the entries the algorithm computes: those read at their own index (a mirrored
         * entry of a symmetric output is a copy of one of them) */
        chk = nz + 2 * osz;
        for (int64_t k = 0; k < ap.nnz; k++)
            if (ap.src[k] == ap.nz[k])
                chk[nchk++] = ap.src[k];
    }
    /* at least 4 chunks a thread (al->min_chunks for a cheap algorithm), so a small batch
     * does not pay for threads (starting and joining one costs ~20-40 us) */
    const int64_t per = al->rows && al->rows_ok(md) ? ROWS_MIN_CHUNKS
                        : al->min_chunks > 0 ? al->min_chunks : 4;
    int64_t nt = threads < 1 ? 1 : threads;
    if (nt > nchunk / per)
        nt = nchunk / per > 0 ? nchunk / per : 1;
    if (nt > RD_MAX_THREADS)
        nt = RD_MAX_THREADS;
    work_t w[RD_MAX_THREADS];
    volatile int stop = 0;
    for (int64_t t = 0; t < nt; t++) {
        w[t] = (work_t){md, al, &ap, chk, nchk, out, N, nchunk * t / nt, nchunk * (t + 1) / nt,
                        check, 0, 0, t == 0 && poll && poll->fn ? poll : NULL, &stop};
    }
#if defined(_WIN32)
    HANDLE h[RD_MAX_THREADS];
#else
    pthread_t h[RD_MAX_THREADS];
#endif
    int started[RD_MAX_THREADS] = {0};
    for (int64_t t = 1; t < nt; t++) {
#if defined(_WIN32)
        h[t] = CreateThread(NULL, 0, worker, &w[t], 0, NULL);
        started[t] = h[t] != NULL;
#else
        started[t] = pthread_create(&h[t], NULL, worker, &w[t]) == 0;
#endif
        if (!started[t]) /* no thread: this one does that range too */
            run_range(&w[t]);
    }
    run_range(&w[0]);
    for (int64_t t = 1; t < nt; t++)
        if (started[t]) {
#if defined(_WIN32)
            WaitForSingleObject(h[t], INFINITE);
            CloseHandle(h[t]);
#else
            pthread_join(h[t], NULL);
#endif
        }
    free(nz);
    if (stop) {
        *bad = 0;
        return E_INTERRUPTED;
    }
    for (int64_t t = 0; t < nt; t++) /* ranges are in state order: the first error wins */
        if (w[t].err) {
            *bad = w[t].bad;
            return w[t].err;
        }
    return 0;
}

int rd_run_one(const model_t *md, const algo_t *al, const args_t *a, double *out, int check,
               double *W)
{
    /* the algorithm on one state (L = 1) with the workspace W (rd_work_size doubles) */
    if (check) {
        int e = check_state(md, al, a, 0);
        if (e)
            return e;
    }
    int lane;
    const int e = al->fn(md, 1, a, out, W, &lane);
    if (!e && check && nonfinite_out(out, rd_out_size(md, al, a)))
        return E_OVERFLOW;
    return e;
}
