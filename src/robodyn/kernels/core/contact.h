/*
 * The compliant contacts of robodyn.sim.Environment (contact.c): its flat parameter block,
 * as robodyn/sim/environment.py's Environment._c_block writes it.
 *
 *   [np, ns, np point records (PT_SIZE), ns shape records (SH_SIZE)]
 *
 * A point: its operational frame, its centre in the frame's coordinates, its radius. A
 * shape: its kind (SHAPE_*), the contact law's k, b, mu, v_eps, then its geometry: a
 * plane's point and unit outward normal; a sphere's centre and radius (at SH_N); a box's
 * centre, edge lengths and orientation R (row-major, columns its axes in the world).
 * Contact c = i ns + j is point i against shape j (point-major, as the Python class).
 */
#ifndef RD_CONTACT_H
#define RD_CONTACT_H

#include "rd.h"

enum { EV_NP = 0, EV_NS = 1, EV_HEAD = 2 };
enum { PT_FRAME = 0, PT_OFFSET = 1, PT_RADIUS = 4, PT_SIZE = 5 };
enum {
    SH_KIND = 0, SH_K = 1, SH_B = 2, SH_MU = 3, SH_VEPS = 4, SH_C = 5, SH_N = 8, SH_R = 11,
    SH_SIZE = 20
};
enum { SHAPE_PLANE = 0, SHAPE_SPHERE = 1, SHAPE_BOX = 2 };

/* the contacts np ns of an environment block, and the block's length in doubles */
RD_INLINE int64_t env_contacts(const double *env)
{
    return (int64_t)env[EV_NP] * (int64_t)env[EV_NS];
}

RD_INLINE int64_t env_size(const double *env)
{
    return EV_HEAD + PT_SIZE * (int64_t)env[EV_NP] + SH_SIZE * (int64_t)env[EV_NS];
}

/* Whether a block of n doubles is a valid environment of the model (frames in range,
 * known shape kinds): 1 or 0 */
int rd_env_valid(const model_t *md, const double *env, int64_t n);

/* The contacts at (q, v): fext (nb x 6, the wrench [m; f] on each body in its frame about
 * its origin, robodyn's f_ext), overwritten, and force (nc x 3, world coordinates), the
 * force of each contact on the robot. W: rd_contacts_work(md) doubles. */
int64_t rd_contacts_work(const model_t *md);
void rd_contacts(const model_t *md, const double *env, const double *q, const double *v,
                 double *fext, double *force, double *W);

#endif
