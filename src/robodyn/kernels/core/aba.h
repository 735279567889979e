/*
 * The workspace of the articulated body algorithm (aba.c), shared with minv_aba.c, which
 * reads what ABA's pass 2 leaves there: for every body with a joint of n dofs, U_i = IA_i
 * S_i and D_i^-1 (body coordinates; they depend on q only):
 *
 *   revolute, prismatic   U_i at A_U (6), 1 / D_i at A_DINV
 *   spherical, planar, helical, cylindrical, universal
 *                         U_i at A_LF (column c at A_LF + 6 c), D_i^-1 at A_LF + 18
 *                         ((r, c) at 3 r + c)
 *   free                  U_i = IA_i at A_IA (packed), D_i's Cholesky factor at A_LF
 *
 * and T_{lambda,i}(q) = (R, p) at A_R, A_P.
 */
#ifndef RD_ABA_H
#define RD_ABA_H

#include "joint.h"

/* workspace of body i, fields of L lanes: R, p of T_{lambda,i} (0:12); V_i in pass 1, dV_i
 * in pass 3 (12:18); c_i (18:24); pA_i (24:30); IA_i (30:51, packed); U_i (51:57); 1/D_i
 * (57); u_i (58); a free joint's Cholesky factor of D (59:80, packed: (r, c) for c <= r at
 * SYM[c][r]) and u (80:86) */
enum {
    WA = 86, A_R = 0, A_P = 9, A_V = 12, A_C = 18, A_PA = 24, A_IA = 30, A_U = 51, A_DINV = 57,
    A_UU = 58, A_LF = 59, A_UF = 80
};

RD_INLINE void chol6_solve(int L, const double *Lf, double *y)
{
    /* y <- D^-1 y for D = Lf Lf^T (Lf packed lower: (r, c), c <= r, at SYM[c][r]) */
    for (int r = 0; r < 6; r++)
        LANE {
            double s = y[r * L + l];
            for (int k = 0; k < r; k++)
                s -= Lf[SYM[k][r] * L + l] * y[k * L + l];
            y[r * L + l] = s / Lf[SYM[r][r] * L + l];
        }
    for (int r = 5; r >= 0; r--)
        LANE {
            double s = y[r * L + l];
            for (int k = r + 1; k < 6; k++)
                s -= Lf[SYM[r][k] * L + l] * y[k * L + l];
            y[r * L + l] = s / Lf[SYM[r][r] * L + l];
        }
}

#endif
