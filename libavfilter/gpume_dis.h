/*
 * gpume: dis, a dense inverse search (Kroeger et al., "Fast Optical Flow
 * using Dense Inverse Search", ECCV 2016) in integers, without its spatial
 * propagation and variational refinement. The per-level, per-patch,
 * per-pixel and per-block steps are shared by the CPU reference, the CUDA
 * kernels and the OpenCL kernels (prepended to them after gpume.h), so that
 * every backend exports the same vectors. docs/ALGORITHMS.md ("dis") is the
 * prose form of what is coded here.
 *
 * This file is part of FFmpeg.
 *
 * FFmpeg is free software; you can redistribute it and/or
 * modify it under the terms of the GNU Lesser General Public
 * License as published by the Free Software Foundation; either
 * version 2.1 of the License, or (at your option) any later version.
 *
 * FFmpeg is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the GNU
 * Lesser General Public License for more details.
 *
 * You should have received a copy of the GNU Lesser General Public
 * License along with FFmpeg; if not, write to the Free Software
 * Foundation, Inc., 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA
 */

#ifndef AVFILTER_GPUME_DIS_H
#define AVFILTER_GPUME_DIS_H

#ifndef __OPENCL_C_VERSION__
#include "gpume.h"
#endif

#define GPUME_DIS_PATCH      8   ///< side of a patch
#define GPUME_DIS_SPACING    3   ///< distance between neighbouring patches
#define GPUME_DIS_STEPS      25  ///< Gauss-Newton steps of a patch at most
#define GPUME_DIS_STEP_MAX   64  ///< largest step, 1/16 pel (4 pixels)
#define GPUME_DIS_REG        64  ///< added to the diagonal of a patch's Hessian
#define GPUME_DIS_FRAC       4   ///< the flow is in 1/16 pel: 2^GPUME_DIS_FRAC
#define GPUME_DIS_MAX_LEVELS 12  ///< levels 0 .. 11: 2^11 * 8 pixels
/* largest component of an exported vector, pixels: about the reach of the
 * levels of a 1080p picture, 8 pixels a level from level 6 down to 1 */
#define GPUME_DIS_MAX_MV     1024

/*
 * The arguments of the GPU kernels, passed by value (ints only, so that
 * host and device layouts agree, as in gpume_kernel.h).
 */

/** One level of a picture's pyramid: w x h samples whose rows are pitch bytes apart from byte offset of its buffer. */
typedef struct GpumeDisLevel {
    int w, h, pitch, offset;
} GpumeDisLevel;

/** hme's blocks that may start the patches of the finest level lf (on: this level). */
typedef struct GpumeDisHmeArgs {
    int on, nb_fixed, ctu, ctu_cols, max_out, width, height, lf;
} GpumeDisHmeArgs;

/** The exported blocks of each CTU from the finest field (fw wide, of level lu). */
typedef struct GpumeDisBlockArgs {
    int width, height, pitch, offset; ///< level 0 of both pictures
    int ctu, ctu_cols, nb_ctus, block, max_out, subpel, range;
    int fw, lu;
} GpumeDisBlockArgs;

/** Rounded a / b, halves away from zero; b > 0. */
GPUME_FN int64_t gpume_dis_rdiv(int64_t a, int64_t b)
{
    return a >= 0 ? (a + b / 2) / b : -((-a + b / 2) / b);
}

/**
 * The coarsest level searched for a w x h picture: the largest k with
 * 64 * 2^k <= 3 max(w, h) (log2(max / 32), rounded), at most the largest
 * k with 8 * 2^k <= min(w, h), so that level k still holds a patch.
 */
GPUME_FN int gpume_dis_coarsest(int w, int h)
{
    const int mx = w > h ? w : h, mn = w < h ? w : h;
    int kc = 0, km = 0;

    while (kc < GPUME_DIS_MAX_LEVELS - 1 && (64 << (kc + 1)) <= 3 * mx)
        kc++;
    while (km < GPUME_DIS_MAX_LEVELS - 1 && (GPUME_DIS_PATCH << (km + 1)) <= mn)
        km++;
    return kc < km ? kc : km;
}

/** The finest level searched: 1 (half resolution), or 0 when level 0 is the coarsest. */
GPUME_FN int gpume_dis_finest(int coarsest)
{
    return coarsest > 0 ? 1 : 0;
}

/** Side of the patches of a level side n: GPUME_DIS_PATCH, or n where it is smaller. */
GPUME_FN int gpume_dis_patch_side(int n)
{
    return n < GPUME_DIS_PATCH ? n : GPUME_DIS_PATCH;
}

/** Number of patches along a level side n. */
GPUME_FN int gpume_dis_nb_patches(int n)
{
    return n <= GPUME_DIS_PATCH ? 1 :
           (n - GPUME_DIS_PATCH + GPUME_DIS_SPACING - 1) / GPUME_DIS_SPACING + 1;
}

/** Position of patch i along a level side n: i spacings, the last one moved inside. */
GPUME_FN int gpume_dis_patch_pos(int i, int n)
{
    return gpume_clip(i * GPUME_DIS_SPACING, 0, n > GPUME_DIS_PATCH ? n - GPUME_DIS_PATCH : 0);
}

/**
 * Sample of p (w x h, rows stride apart) at (x, y) in 1/16 pel: bilinear
 * between the four nearest samples, each clamped into the picture, in
 * 1/256 of a level (exact, no rounding).
 */
GPUME_FN int gpume_dis_sample(const GPUME_GLOBAL uint8_t *p, int stride, int w, int h,
                              int x, int y)
{
    const int one = 1 << GPUME_DIS_FRAC;
    const int fx = x & (one - 1), fy = y & (one - 1);
    const int x0 = gpume_clip(x >> GPUME_DIS_FRAC, 0, w - 1);
    const int x1 = gpume_clip((x >> GPUME_DIS_FRAC) + 1, 0, w - 1);
    const GPUME_GLOBAL uint8_t *r0 = p + gpume_clip(y >> GPUME_DIS_FRAC, 0, h - 1) * stride;
    const GPUME_GLOBAL uint8_t *r1 = p + gpume_clip((y >> GPUME_DIS_FRAC) + 1, 0, h - 1) * stride;

    return (one - fx) * (one - fy) * r0[x0] + fx * (one - fy) * r0[x1] +
           (one - fx) * fy * r1[x0] + fx * fy * r1[x1];
}

/** The descent of one patch: its Hessian, and where its steps stand. */
typedef struct GpumeDisDescent {
    int hxx, hxy, hyy, sgx, sgy, n;   ///< Hessian (regularised), gradient sums, pixels
    int64_t det;
    int x0, y0;                       ///< the start, 1/16 pel
    int vx, vy;                       ///< the position of the next step
    int bestx, besty;                 ///< the result so far
    int64_t prev;                     ///< the error of the last step
    int it;                           ///< steps taken
} GpumeDisDescent;

/** Gradients of c (w x h) at (x, y): central differences, clamped. */
GPUME_FN void gpume_dis_gradient(const GPUME_GLOBAL uint8_t *c, int cs, int w, int h, int x, int y,
                                 int *gx, int *gy)
{
    const GPUME_GLOBAL uint8_t *row = c + y * cs;
    *gx = row[gpume_clip(x + 1, 0, w - 1)] - row[gpume_clip(x - 1, 0, w - 1)];
    *gy = c[gpume_clip(y + 1, 0, h - 1) * cs + x] - c[gpume_clip(y - 1, 0, h - 1) * cs + x];
}

/**
 * Start a descent from (ux0, uy0) in 1/16 pel with the template's gradient
 * sums over its n pixels: the Hessian regularised, its determinant.
 */
GPUME_FN void gpume_dis_descent_start(GpumeDisDescent *d, int gxx, int gxy, int gyy, int sgx, int sgy,
                                      int n, int ux0, int uy0)
{
    d->hxx   = GPUME_DIS_REG + gxx;
    d->hxy   = gxy;
    d->hyy   = GPUME_DIS_REG + gyy;
    d->sgx   = sgx;
    d->sgy   = sgy;
    d->n     = n;
    d->det   = (int64_t)d->hxx * d->hyy - (int64_t)d->hxy * d->hxy;
    d->x0    = d->vx = d->bestx = ux0;
    d->y0    = d->vy = d->besty = uy0;
    d->prev  = 0;
    d->it    = 0;
}

/** The template's gradient sums over row y of the patch at px (pw wide): gx^2, gx gy, gy^2, gx, gy. */
GPUME_FN void gpume_dis_gradient_row(const GPUME_GLOBAL uint8_t *c, int cs, int w, int h, int px, int y,
                                     int *g)
{
    const int pw = gpume_dis_patch_side(w);

    g[0] = g[1] = g[2] = g[3] = g[4] = 0;
    for (int x = px; x < px + pw; x++) {
        int gx, gy;
        gpume_dis_gradient(c, cs, w, h, x, y, &gx, &gy);
        g[0] += gx * gx;
        g[1] += gx * gy;
        g[2] += gy * gy;
        g[3] += gx;
        g[4] += gy;
    }
}

/**
 * Start the descent of the patch at (px, py) of the current picture c
 * (w x h at this level) from (ux0, uy0) in 1/16 pel: the Hessian of the
 * template from central differences, not mean-normalised, regularised.
 */
GPUME_FN void gpume_dis_descent_init(GpumeDisDescent *d, const GPUME_GLOBAL uint8_t *c, int cs,
                                     int w, int h, int px, int py, int ux0, int uy0)
{
    const int pw = gpume_dis_patch_side(w), ph = gpume_dis_patch_side(h);
    int t[5] = { 0, 0, 0, 0, 0 };

    for (int y = py; y < py + ph; y++) {
        int g[5];
        gpume_dis_gradient_row(c, cs, w, h, px, y, g);
        for (int i = 0; i < 5; i++)
            t[i] += g[i];
    }
    gpume_dis_descent_start(d, t[0], t[1], t[2], t[3], t[4], pw * ph, ux0, uy0);
}

/**
 * Add the terms of pixel (x, y) of a step at position (vx, vy) to the
 * sums: with cv the template's sample there and gx, gy its gradients, the
 * residual e = Rs(16x + vx, 16y + vy) - 256 cv, and gx e, gy e, e, e^2.
 */
GPUME_FN void gpume_dis_residual_px(const GPUME_GLOBAL uint8_t *r, int rs, int w, int h,
                                    int x, int y, int vx, int vy, int cv, int gx, int gy,
                                    int *bx, int *by, int *sr, int64_t *ssd)
{
    const int e = gpume_dis_sample(r, rs, w, h, (x << GPUME_DIS_FRAC) + vx, (y << GPUME_DIS_FRAC) + vy) -
                  (cv << 2 * GPUME_DIS_FRAC);

    *bx  += gx * e;
    *by  += gy * e;
    *sr  += e;
    *ssd += (int64_t)e * e;
}

/**
 * The sums of one step of the patch at px over its row y at position
 * (vx, vy) (gpume_dis_residual_px()): sum(gx e) and sum(gy e) (below 2^31:
 * 8 products), sum(e) and sum(e^2).
 */
GPUME_FN void gpume_dis_residual_row(const GPUME_GLOBAL uint8_t *c, int cs,
                                     const GPUME_GLOBAL uint8_t *r, int rs, int w, int h,
                                     int px, int y, int vx, int vy,
                                     int *bx, int *by, int *sr, int64_t *ssd)
{
    const int pw = gpume_dis_patch_side(w);

    *bx = *by = *sr = 0;
    *ssd = 0;
    for (int x = px; x < px + pw; x++) {
        int gx, gy;
        gpume_dis_gradient(c, cs, w, h, x, y, &gx, &gy);
        gpume_dis_residual_px(r, rs, w, h, x, y, vx, vy, c[y * cs + x], gx, gy, bx, by, sr, ssd);
    }
}

/**
 * The sums of one step of the patch at (px, py) at position (vx, vy), its
 * rows' sums of gpume_dis_residual_row() added. This is the descent's inner
 * loop, which the CPU also computes with the samples unclamped where the
 * patch lies inside, CUDA's kernel of few patches a row a thread, and the
 * GPU kernels of many patches on a template (gpume_dis_template_sums()).
 */
GPUME_FN void gpume_dis_residual_sums(const GPUME_GLOBAL uint8_t *c, int cs,
                                      const GPUME_GLOBAL uint8_t *r, int rs, int w, int h,
                                      int px, int py, int vx, int vy,
                                      int64_t *bx, int64_t *by, int *sr, int64_t *ssd)
{
    const int ph = gpume_dis_patch_side(h);

    *bx = *by = *ssd = 0;
    *sr = 0;
    for (int y = py; y < py + ph; y++) {
        int rbx, rby, rsr;
        int64_t rssd;
        gpume_dis_residual_row(c, cs, r, rs, w, h, px, y, vx, vy, &rbx, &rby, &rsr, &rssd);
        *bx  += rbx;
        *by  += rby;
        *sr  += rsr;
        *ssd += rssd;
    }
}

/**
 * One Gauss-Newton step from the sums at d->vx, d->vy: 0 when the descent
 * is over (the error did not fall, or GPUME_DIS_STEPS steps were taken).
 */
GPUME_FN int gpume_dis_descent_step(GpumeDisDescent *d, int64_t bx, int64_t by, int sr, int64_t ssd)
{
    int64_t dx, dy;

    /* the mean-normalised residual */
    bx  -= gpume_dis_rdiv((int64_t)d->sgx * sr, d->n);
    by  -= gpume_dis_rdiv((int64_t)d->sgy * sr, d->n);
    ssd -= gpume_dis_rdiv((int64_t)sr * sr, d->n);
    if (d->it && ssd >= d->prev)
        return 0;
    d->prev  = ssd;
    d->bestx = d->vx;
    d->besty = d->vy;
    /* H^-1 b: gradients of twice the derivative, residual in 1/256 */
    dx = gpume_dis_rdiv(2 * ((int64_t)d->hyy * bx - (int64_t)d->hxy * by), d->det << GPUME_DIS_FRAC);
    dy = gpume_dis_rdiv(2 * ((int64_t)d->hxx * by - (int64_t)d->hxy * bx), d->det << GPUME_DIS_FRAC);
    d->vx -= (int)(dx < -GPUME_DIS_STEP_MAX ? -GPUME_DIS_STEP_MAX : dx > GPUME_DIS_STEP_MAX ? GPUME_DIS_STEP_MAX : dx);
    d->vy -= (int)(dy < -GPUME_DIS_STEP_MAX ? -GPUME_DIS_STEP_MAX : dy > GPUME_DIS_STEP_MAX ? GPUME_DIS_STEP_MAX : dy);
    if (++d->it < GPUME_DIS_STEPS)
        return 1;
    d->bestx = d->vx;
    d->besty = d->vy;
    return 0;
}

/** The result of a descent: a vector more than a patch side from its start is not kept. */
GPUME_FN void gpume_dis_descent_result(const GpumeDisDescent *d, int *ux, int *uy)
{
    const int64_t far = (int64_t)GPUME_DIS_PATCH << GPUME_DIS_FRAC;
    const int64_t ex = d->bestx - d->x0, ey = d->besty - d->y0;

    *ux = ex * ex + ey * ey > far * far ? d->x0 : d->bestx;
    *uy = ex * ex + ey * ey > far * far ? d->y0 : d->besty;
}

/**
 * The starting vector of the patch at (px, py) of a level w x h: twice the
 * coarser level's field (cw wide, 2 values a pixel) at the patch centre's
 * coarse pixel; (0, 0) at the coarsest level (coarse NULL).
 */
GPUME_FN void gpume_dis_patch_start(const GPUME_GLOBAL int32_t *coarse, int cw, int w, int h,
                                    int px, int py, int *ux, int *uy)
{
    const int cx = (px + gpume_dis_patch_side(w) / 2) >> 1;
    const int cy = (py + gpume_dis_patch_side(h) / 2) >> 1;

    *ux = coarse ? 2 * coarse[2 * (cy * cw + cx)]     : 0;
    *uy = coarse ? 2 * coarse[2 * (cy * cw + cx) + 1] : 0;
}

/** The mean-normalised squared error of n residuals from their sum and sum of squares. */
GPUME_FN int64_t gpume_dis_error_of(int sr, int64_t ssd, int n)
{
    return ssd - gpume_dis_rdiv((int64_t)sr * sr, n);
}

/*
 * The GPU kernels of many patches keep a block of patches' template in
 * local memory, read once for all the block's descents: a word a sample,
 * with its gradients. The steps below are a patch's sums
 * (gpume_dis_residual_sums()), its error and its descent on it; t points
 * at the patch's first sample, rows tw words apart.
 */

/* a block (work-group) of those kernels: GPUME_DIS_BW x GPUME_DIS_BH
 * patches, a thread each, and GPUME_DIS_HELPERS threads more */
#define GPUME_DIS_BW      16
#define GPUME_DIS_BH      8
#define GPUME_DIS_HELPERS 32
#define GPUME_DIS_GROUP   (GPUME_DIS_BW * GPUME_DIS_BH + GPUME_DIS_HELPERS)
/** Its template (gpume_dis_template_rect()), at most. */
#define GPUME_DIS_TPL_W   (GPUME_DIS_SPACING * (GPUME_DIS_BW - 1) + GPUME_DIS_PATCH)
#define GPUME_DIS_TPL_H   (GPUME_DIS_SPACING * (GPUME_DIS_BH - 1) + GPUME_DIS_PATCH)

/** The template word of c (w x h) at (x, y): sample | (gx + 255) << 8 | (gy + 255) << 17. */
GPUME_FN int gpume_dis_template_word(const GPUME_GLOBAL uint8_t *c, int cs, int w, int h, int x, int y)
{
    int gx, gy;

    gpume_dis_gradient(c, cs, w, h, x, y, &gx, &gy);
    return c[y * cs + x] | (gx + 255) << 8 | (gy + 255) << 17;
}

/** The gradients of a template word. */
GPUME_FN int gpume_dis_template_gx(int t)
{
    return (t >> 8 & 511) - 255;
}

GPUME_FN int gpume_dis_template_gy(int t)
{
    return (t >> 17) - 255;
}

/**
 * The samples [*x0, *x0 + *tw) x [*y0, *y0 + *th) of a level w x h under
 * its patches (i0 .. i0 + bw - 1, j0 .. j0 + bh - 1), those that exist:
 * at most (GPUME_DIS_SPACING (bw - 1) + GPUME_DIS_PATCH) x (... bh ...).
 */
GPUME_FN void gpume_dis_template_rect(int w, int h, int i0, int j0, int bw, int bh,
                                      int *x0, int *y0, int *tw, int *th)
{
    const int i1 = gpume_clip(i0 + bw, 1, gpume_dis_nb_patches(w)) - 1;
    const int j1 = gpume_clip(j0 + bh, 1, gpume_dis_nb_patches(h)) - 1;

    *x0 = gpume_dis_patch_pos(i0, w);
    *y0 = gpume_dis_patch_pos(j0, h);
    *tw = gpume_dis_patch_pos(i1, w) + gpume_dis_patch_side(w) - *x0;
    *th = gpume_dis_patch_pos(j1, h) + gpume_dis_patch_side(h) - *y0;
}

/** gpume_dis_residual_sums() of the patch at (px, py), its template at t. */
GPUME_FN void gpume_dis_template_sums(const GPUME_LOCAL int *t, int tw,
                                      const GPUME_GLOBAL uint8_t *r, int rs, int w, int h,
                                      int px, int py, int vx, int vy,
                                      int64_t *bx, int64_t *by, int *sr, int64_t *ssd)
{
    const int pw = gpume_dis_patch_side(w), ph = gpume_dis_patch_side(h);

    *bx = *by = *ssd = 0;
    *sr = 0;
    for (int y = 0; y < ph; y++, t += tw) {
        int rbx = 0, rby = 0, rsr = 0;
        int64_t rssd = 0;
        GPUME_NO_UNROLL
        for (int x = 0; x < pw; x++)
            gpume_dis_residual_px(r, rs, w, h, px + x, py + y, vx, vy, t[x] & 255, gpume_dis_template_gx(t[x]),
                                  gpume_dis_template_gy(t[x]), &rbx, &rby, &rsr, &rssd);
        *bx  += rbx;
        *by  += rby;
        *sr  += rsr;
        *ssd += rssd;
    }
}

/**
 * The mean-normalised error (gpume_dis_error_of()) of the patch at (px, py)
 * moved by (vx, vy), its template at t.
 */
GPUME_FN int64_t gpume_dis_template_error(const GPUME_LOCAL int *t, int tw,
                                          const GPUME_GLOBAL uint8_t *r, int rs, int w, int h,
                                          int px, int py, int vx, int vy)
{
    int64_t bx, by, ssd;
    int sr;

    gpume_dis_template_sums(t, tw, r, rs, w, h, px, py, vx, vy, &bx, &by, &sr, &ssd);
    return gpume_dis_error_of(sr, ssd, gpume_dis_patch_side(w) * gpume_dis_patch_side(h));
}

/**
 * The descent of the patch at (px, py) from (*ux, *uy) (ALGORITHMS.md, dis,
 * "One patch"), its template at t.
 */
GPUME_FN void gpume_dis_template_patch(const GPUME_LOCAL int *t, int tw,
                                       const GPUME_GLOBAL uint8_t *r, int rs, int w, int h,
                                       int px, int py, int *ux, int *uy)
{
    const int pw = gpume_dis_patch_side(w), ph = gpume_dis_patch_side(h);
    int gxx = 0, gxy = 0, gyy = 0, sgx = 0, sgy = 0, sr;
    GpumeDisDescent d;
    int64_t bx, by, ssd;

    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++) {
            const int gx = gpume_dis_template_gx(t[y * tw + x]), gy = gpume_dis_template_gy(t[y * tw + x]);
            gxx += gx * gx;
            gxy += gx * gy;
            gyy += gy * gy;
            sgx += gx;
            sgy += gy;
        }
    gpume_dis_descent_start(&d, gxx, gxy, gyy, sgx, sgy, pw * ph, *ux, *uy);
    do
        gpume_dis_template_sums(t, tw, r, rs, w, h, px, py, d.vx, d.vy, &bx, &by, &sr, &ssd);
    while (gpume_dis_descent_step(&d, bx, by, sr, ssd));
    gpume_dis_descent_result(&d, ux, uy);
}

/**
 * hme's vector for the patch at (px, py) of the finest level lf (w x h):
 * that of the block of hme's estimate (blocks, max_out a CTU of ctu pixels,
 * ctu_cols a row, in the order of the fixed PUs fixed of the PU table pu)
 * that holds the level-0 pixel under the patch's centre, in 1/16 pel of
 * level lf. width x height is level 0.
 */
GPUME_FN void gpume_dis_hme_start(const GPUME_GLOBAL GpumeBlock *blocks, const GPUME_GLOBAL GpumePU *pu,
                                  const GPUME_GLOBAL uint16_t *fixed, int nb_fixed, int ctu, int ctu_cols,
                                  int max_out, int width, int height, int lf, int w, int h,
                                  int px, int py, int *ux, int *uy)
{
    const int x = gpume_clip((px + gpume_dis_patch_side(w) / 2) << lf, 0, width - 1);
    const int y = gpume_clip((py + gpume_dis_patch_side(h) / 2) << lf, 0, height - 1);
    const int x0 = x / ctu * ctu, y0 = y / ctu * ctu;
    int n = 0;

    *ux = *uy = 0;
    for (int k = 0; k < nb_fixed; k++) {
        const GpumePU u = pu[fixed[k]];
        if (x0 + 4 * u.l >= width || y0 + 4 * u.t >= height)
            continue;   /* not exported */
        if (x >= x0 + 4 * u.l && x < x0 + 4 * u.r && y >= y0 + 4 * u.t && y < y0 + 4 * u.b) {
            const GPUME_GLOBAL GpumeBlock *b = blocks + (y / ctu * ctu_cols + x / ctu) * max_out + n;
            *ux = 4 * b->mvx / (1 << lf);   /* lf is 0 or 1: exact */
            *uy = 4 * b->mvy / (1 << lf);
            return;
        }
        n++;
    }
}

/** How a patch of the finest level starts (gpume_dis_start_of()). */
enum GpumeDisStart {
    GPUME_DIS_FROM_COARSE,  ///< the coarser level's field
    GPUME_DIS_FROM_HME,     ///< hme's vector
    GPUME_DIS_FROM_BOTH,    ///< each in turn, the result of lower error kept (gpume_dis_keep_hme())
};

/**
 * How a patch of the finest level starts, from hme's vector (hx, hy) of
 * error eh or the coarser level's (ux, uy) of error eu: from hme's where
 * its error is less than half (a flow's start is the better one for
 * interpolation where both match about as well); from both where hme's
 * error is lower, not by half, and the two lie more than a pixel of the
 * level apart (the coarse levels may have followed an alias of a fine
 * periodic texture, a false match that a descent does not leave); else
 * from the coarser level's.
 */
GPUME_FN int gpume_dis_start_of(int64_t eh, int64_t eu, int hx, int hy, int ux, int uy)
{
    if (2 * eh < eu)
        return GPUME_DIS_FROM_HME;
    if (eh < eu && gpume_iabs(hx - ux) + gpume_iabs(hy - uy) > 1 << GPUME_DIS_FRAC)
        return GPUME_DIS_FROM_BOTH;
    return GPUME_DIS_FROM_COARSE;
}

/**
 * Of the results of the descents from both starts, whether hme's, of error
 * eh, is kept rather than the coarser level's, of error eu.
 */
GPUME_FN int gpume_dis_keep_hme(int64_t eh, int64_t eu)
{
    return eh < eu;
}

#ifdef GPUME_BARRIER
/**
 * The vectors of a level's patches (ALGORITHMS.md, dis) by a block of the
 * GPU kernels of many patches, whose first patch is (i0, j0): thread k of
 * GPUME_DIS_GROUP, a patch each for the first GPUME_DIS_BW x GPUME_DIS_BH
 * threads. The block's template is read into tpl (gpume_dis_template_word());
 * coarse is the coarser level's field (coarse_w 0 at the coarsest). At the
 * finest level (ha.on) the patches' threads choose the starts and list the
 * patches that start from both (gpume_dis_start_of()) in list; then every
 * thread takes listed patches, one at a time, and descends them from hme's
 * start (vec, two values a patch, err): the helpers at once, the others
 * after their own patch's descent. A block so takes about one descent's
 * time where it lists up to GPUME_DIS_HELPERS patches, with a fifth more
 * threads, not twice as many. tpl, err, vec, list and counts (2) are the
 * block's local arrays.
 */
GPUME_FN void gpume_dis_patches_block(GpumeDisLevel l, const GPUME_GLOBAL uint8_t *cur,
                                      const GPUME_GLOBAL uint8_t *ref, const GPUME_GLOBAL int32_t *coarse,
                                      int coarse_w, GPUME_GLOBAL int32_t *patch, GpumeDisHmeArgs ha,
                                      const GPUME_GLOBAL GpumeBlock *hme, const GPUME_GLOBAL GpumePU *pu,
                                      const GPUME_GLOBAL uint16_t *fixed, int k, int i0, int j0,
                                      GPUME_LOCAL int *tpl, GPUME_LOCAL int64_t *err, GPUME_LOCAL int *vec,
                                      GPUME_LOCAL int *list, GPUME_LOCAL int *counts)
{
    const int nx = gpume_dis_nb_patches(l.w), ny = gpume_dis_nb_patches(l.h);
    const GPUME_GLOBAL uint8_t *c = cur + l.offset, *r = ref + l.offset;
    const int i = i0 + k % GPUME_DIS_BW, j = j0 + k / GPUME_DIS_BW;
    const int px = gpume_dis_patch_pos(i, l.w), py = gpume_dis_patch_pos(j, l.h);
    const int valid = k < GPUME_DIS_BW * GPUME_DIS_BH && i < nx && j < ny;
    int x0, y0, tw, th, ux = 0, uy = 0, start = GPUME_DIS_FROM_COARSE;
    const GPUME_LOCAL int *own;

    gpume_dis_template_rect(l.w, l.h, i0, j0, GPUME_DIS_BW, GPUME_DIS_BH, &x0, &y0, &tw, &th);
    own = tpl + (py - y0) * tw + px - x0;
    if (k == 0)
        counts[0] = counts[1] = 0;   /* listed, taken */
    for (int t = k; t < tw * th; t += GPUME_DIS_GROUP)
        tpl[t] = gpume_dis_template_word(c, l.pitch, l.w, l.h, x0 + t % tw, y0 + t / tw);
    GPUME_BARRIER();
    if (valid)
        gpume_dis_patch_start(coarse_w ? coarse : 0, coarse_w, l.w, l.h, px, py, &ux, &uy);
    if (valid && ha.on) {
        int hx, hy;
        gpume_dis_hme_start(hme, pu, fixed, ha.nb_fixed, ha.ctu, ha.ctu_cols, ha.max_out, ha.width,
                            ha.height, ha.lf, l.w, l.h, px, py, &hx, &hy);
        start = gpume_dis_start_of(gpume_dis_template_error(own, tw, r, l.pitch, l.w, l.h, px, py, hx, hy),
                                   gpume_dis_template_error(own, tw, r, l.pitch, l.w, l.h, px, py, ux, uy),
                                   hx, hy, ux, uy);
        if (start == GPUME_DIS_FROM_HME) {
            ux = hx;
            uy = hy;
        } else if (start == GPUME_DIS_FROM_BOTH) {
            list[GPUME_LOCAL_INC(&counts[0])] = k;
            vec[2 * k]     = hx;
            vec[2 * k + 1] = hy;
        }
    }
    GPUME_BARRIER();
    if (valid)
        gpume_dis_template_patch(own, tw, r, l.pitch, l.w, l.h, px, py, &ux, &uy);
    for (int n; (n = GPUME_LOCAL_INC(&counts[1])) < counts[0];) {
        /* listed patch q of the block, from hme's start */
        const int q  = list[n];
        const int qx = gpume_dis_patch_pos(i0 + q % GPUME_DIS_BW, l.w);
        const int qy = gpume_dis_patch_pos(j0 + q / GPUME_DIS_BW, l.h);
        const GPUME_LOCAL int *t = tpl + (qy - y0) * tw + qx - x0;
        int hx = vec[2 * q], hy = vec[2 * q + 1];
        gpume_dis_template_patch(t, tw, r, l.pitch, l.w, l.h, qx, qy, &hx, &hy);
        err[q]         = gpume_dis_template_error(t, tw, r, l.pitch, l.w, l.h, qx, qy, hx, hy);
        vec[2 * q]     = hx;
        vec[2 * q + 1] = hy;
    }
    GPUME_BARRIER();
    if (!valid)
        return;
    if (start == GPUME_DIS_FROM_BOTH &&
        gpume_dis_keep_hme(err[k], gpume_dis_template_error(own, tw, r, l.pitch, l.w, l.h, px, py, ux, uy))) {
        ux = vec[2 * k];
        uy = vec[2 * k + 1];
    }
    patch[2 * (j * nx + i)]     = ux;
    patch[2 * (j * nx + i) + 1] = uy;
}
#endif

/** The weight of a patch's vector at a pixel where its residual is e (1/256 of a level). */
GPUME_FN int gpume_dis_weight(int e)
{
    e = gpume_iabs(e);
    return (1 << 24) / (e > 256 ? e : 256);
}

/**
 * The field of a level w x h at pixel (x, y): the mean of the vectors of
 * the patches over it (patch, nx per row, 2 values each), each weighted by
 * 2^24 / max(256, |its error at the pixel|) (errors in 1/256 of a level).
 */
GPUME_FN void gpume_dis_densify_px(const GPUME_GLOBAL uint8_t *c, int cs,
                                   const GPUME_GLOBAL uint8_t *r, int rs, int w, int h,
                                   const GPUME_GLOBAL int32_t *patch, int x, int y,
                                   GPUME_GLOBAL int32_t *field)
{
    const int pw = gpume_dis_patch_side(w), ph = gpume_dis_patch_side(h);
    const int nx = gpume_dis_nb_patches(w), ny = gpume_dis_nb_patches(h);
    const int i0 = x >= pw ? (x - pw) / GPUME_DIS_SPACING + 1 : 0;
    const int j0 = y >= ph ? (y - ph) / GPUME_DIS_SPACING + 1 : 0;
    const int t = c[y * cs + x] << 2 * GPUME_DIS_FRAC;
    int64_t sx = 0, sy = 0, sw = 0;

    for (int j = j0; j < ny && gpume_dis_patch_pos(j, h) <= y; j++) {
        if (gpume_dis_patch_pos(j, h) + ph <= y)
            continue;
        for (int i = i0; i < nx && gpume_dis_patch_pos(i, w) <= x; i++) {
            const int vx = patch[2 * (j * nx + i)], vy = patch[2 * (j * nx + i) + 1];
            int wt;
            if (gpume_dis_patch_pos(i, w) + pw <= x)
                continue;
            wt = gpume_dis_weight(gpume_dis_sample(r, rs, w, h, (x << GPUME_DIS_FRAC) + vx,
                                                   (y << GPUME_DIS_FRAC) + vy) - t);
            sx += (int64_t)wt * vx;
            sy += (int64_t)wt * vy;
            sw += wt;
        }
    }
    field[2 * (y * w + x)]     = (int32_t)gpume_dis_rdiv(sx, sw);
    field[2 * (y * w + x) + 1] = (int32_t)gpume_dis_rdiv(sy, sw);
}

/**
 * The exported vector of the block at (x, y), bw x bh pixels of level 0:
 * the mean over its pixels of the field of level lu (fw wide; each level-0
 * pixel reads the field at its level-lu pixel, scaled by 2^lu), rounded to
 * the precision of subpel and clipped to GPUME_DIS_MAX_MV; in quarter pel.
 */
GPUME_FN void gpume_dis_block_vector(const GPUME_GLOBAL int32_t *field, int fw, int lu,
                                     int x, int y, int bw, int bh, int subpel, int *mvx, int *mvy)
{
    const int lim = 4 * GPUME_DIS_MAX_MV;
    const int64_t den = (int64_t)bw * bh << GPUME_DIS_FRAC;
    int64_t sx = 0, sy = 0, vx, vy;

    for (int j = y; j < y + bh; j++)
        for (int i = x; i < x + bw; i++) {
            sx += field[2 * ((j >> lu) * fw + (i >> lu))];
            sy += field[2 * ((j >> lu) * fw + (i >> lu)) + 1];
        }
    vx = gpume_dis_rdiv(sx * (1 << (lu + subpel)), den) * (1 << (2 - subpel));
    vy = gpume_dis_rdiv(sy * (1 << (lu + subpel)), den) * (1 << (2 - subpel));
    *mvx = (int)(vx < -lim ? -lim : vx > lim ? lim : vx);
    *mvy = (int)(vy < -lim ? -lim : vy > lim ? lim : vy);
}

/**
 * The SAD of the block at (x, y), bw x bh pixels of the current picture c,
 * against the reference r (w x h) moved by the quarter-pel (qx, qy), its
 * samples from gpume_sample_qpel(): what every algorithm exports.
 */
GPUME_FN uint32_t gpume_dis_block_sad(const GPUME_GLOBAL uint8_t *c, int cs,
                                      const GPUME_GLOBAL uint8_t *r, int rs, int w, int h,
                                      int x, int y, int bw, int bh, int qx, int qy)
{
    uint32_t sad = 0;

    for (int j = y; j < y + bh; j++)
        for (int i = x; i < x + bw; i++)
            sad += gpume_iabs(c[j * cs + i] -
                              gpume_sample_qpel(r, rs, w, h, 4 * i + qx, 4 * j + qy));
    return sad;
}

/**
 * The number of fixed PUs before the k-th of a CTU (fixed, indices into the
 * PU table pu) whose blocks lie inside the width x height picture: where
 * the k-th block goes among the CTU's exported blocks, or with k the
 * number of fixed PUs, how many it exports. (x0, y0) is the CTU's corner.
 */
GPUME_FN int gpume_dis_blocks_before(const GPUME_GLOBAL GpumePU *pu, const GPUME_GLOBAL uint16_t *fixed,
                                     int k, int x0, int y0, int width, int height)
{
    int n = 0;

    for (int i = 0; i < k; i++)
        n += x0 + 4 * pu[fixed[i]].l < width && y0 + 4 * pu[fixed[i]].t < height;
    return n;
}

/**
 * The exported block of fixed PU k of CTU c (its thread of the GPU
 * kernels): nothing when it lies outside the picture, else its vector from
 * the field (fw wide, of level lu) and its SAD, at its place among the
 * CTU's exported blocks.
 */
GPUME_FN void gpume_dis_export_block(const GPUME_GLOBAL uint8_t *cur, const GPUME_GLOBAL uint8_t *ref,
                                     int pitch, int width, int height, int ctu, int ctu_cols,
                                     int block, int max_out, int subpel,
                                     const GPUME_GLOBAL int32_t *field, int fw, int lu,
                                     const GPUME_GLOBAL GpumePU *pu, const GPUME_GLOBAL uint16_t *fixed,
                                     int c, int k, GPUME_GLOBAL GpumeBlock *blocks)
{
    const int x0 = c % ctu_cols * ctu, y0 = c / ctu_cols * ctu;
    const int x = x0 + 4 * pu[fixed[k]].l, y = y0 + 4 * pu[fixed[k]].t;
    int w, h, qx, qy;

    if (x >= width || y >= height)
        return;
    w = width - x < block ? width - x : block;
    h = height - y < block ? height - y : block;
    gpume_dis_block_vector(field, fw, lu, x, y, w, h, subpel, &qx, &qy);
    blocks[c * max_out + gpume_dis_blocks_before(pu, fixed, k, x0, y0, width, height)] =
        gpume_make_block(x, y, w, h, qx, qy,
                         gpume_dis_block_sad(cur, pitch, ref, pitch, width, height, x, y, w, h, qx, qy));
}

/**
 * Thread or work-item k of CTU c of the GPU kernels of the exported blocks:
 * the CTU's count of blocks (k = 0), and fixed PU k's block.
 */
GPUME_FN void gpume_dis_blocks_item(GpumeDisBlockArgs a, const GPUME_GLOBAL uint8_t *cur,
                                    const GPUME_GLOBAL uint8_t *ref, const GPUME_GLOBAL int32_t *field,
                                    const GPUME_GLOBAL GpumePU *pu, const GPUME_GLOBAL uint16_t *fixed,
                                    GPUME_GLOBAL GpumeBlock *blocks, GPUME_GLOBAL uint16_t *counts,
                                    int c, int k)
{
    if (k == 0)
        counts[c] = gpume_dis_blocks_before(pu, fixed, a.max_out, c % a.ctu_cols * a.ctu,
                                            c / a.ctu_cols * a.ctu, a.width, a.height);
    if (k < a.max_out)
        gpume_dis_export_block(cur + a.offset, ref + a.offset, a.pitch, a.width, a.height, a.ctu,
                               a.ctu_cols, a.block, a.max_out, a.subpel, field, a.fw, a.lu, pu, fixed,
                               c, k, blocks);
}

#endif /* AVFILTER_GPUME_DIS_H */
