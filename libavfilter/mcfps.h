/*
 * mcfps: the per-cell and per-pixel steps of motion-compensated frame-rate
 * conversion, shared by the CPU reference, the CUDA kernels and the OpenCL
 * kernels. docs/ALGORITHMS.md ("mcfps") is the prose form of what is coded
 * here. Integer arithmetic only, so that every backend writes the same bytes.
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

#ifndef AVFILTER_MCFPS_H
#define AVFILTER_MCFPS_H

/* MCFPS_GLOBAL: address space of pictures and vector fields (__global in OpenCL). */
#if defined(__OPENCL_C_VERSION__)
typedef uchar  uint8_t;
typedef char   int8_t;
typedef short  int16_t;
typedef ushort uint16_t;
typedef int    int32_t;
typedef uint   uint32_t;
typedef long   int64_t;
typedef ulong  uint64_t;
#define MCFPS_FN static inline
#define MCFPS_GLOBAL __global
#define MCFPS_CONST __constant
#elif defined(__CUDACC__) || defined(__CUDA__)
typedef unsigned char  uint8_t;
typedef signed char    int8_t;
typedef short          int16_t;
typedef unsigned short uint16_t;
typedef int            int32_t;
typedef unsigned int   uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#define MCFPS_FN __device__ static inline
#define MCFPS_CONST static __device__ const
#else
#include <stdint.h>
#define MCFPS_FN static inline
#define MCFPS_CONST static const
#endif
#ifndef MCFPS_GLOBAL
#define MCFPS_GLOBAL
#endif

enum McfpsMode {
    MCFPS_MODE_MC,      ///< motion-compensated interpolation
    MCFPS_MODE_BLEND,   ///< weighted average of the two frames
    MCFPS_MODE_DUP,     ///< nearest frame
    MCFPS_MODE_NB,
};

/** How a cell of the intermediate frame is predicted (occlusion handling). */
enum McfpsSide {
    MCFPS_SIDE_BOTH,    ///< visible in both frames: bidirectional
    MCFPS_SIDE_A,       ///< visible in the earlier frame only
    MCFPS_SIDE_B,       ///< visible in the later frame only
};

#define MCFPS_CELL_LOG2   3                       ///< cells of 8x8 luma pixels
#define MCFPS_CELL        (1 << MCFPS_CELL_LOG2)
#define MCFPS_MARGIN      4                       ///< matching window: the cell plus 4 pixels each side (its OBMC support)
#define MCFPS_WIN         (MCFPS_CELL + 2 * MCFPS_MARGIN) ///< the window's largest width and height
#define MCFPS_PHI_ONE     256                     ///< phase unit: phi in 1/256 of the frame interval
#define MCFPS_MAX_MV      (4 * 1024)              ///< |vector| clamp, quarter pel (1024 pixels)
#define MCFPS_NB_CAND     12
#define MCFPS_CONSIST     8                       ///< L1 distance (quarter pel) of consistent vectors
#define MCFPS_OCC_ERR     (8 * 16)                ///< mean |error| (1/16 level) above which occlusion is tested
#define MCFPS_REL_LO      (10 * 16)               ///< mean |error| (1/16 level): full MC at or below
#define MCFPS_REL_HI      (40 * 16)               ///< plain average at or above
#define MCFPS_STILL_E0    2                       ///< mean |error| (1/16 level) added to both errors of the still test
#define MCFPS_OBMC_E0     16                      ///< matching error (1/16 level) that halves a cell's OBMC weight
#define MCFPS_OBMC_RMAX   32                      ///< OBMC weight of a perfect match; the poorest weigh 1
#define MCFPS_CHECK_STEP  2                       ///< the motion check reads every 2nd pixel of every 2nd row
#define MCFPS_CHECK_BIAS  4                       ///< the motion check counts the plain average's error 4 times
#define MCFPS_TRUST_E0    16                      ///< mean |error| (1/16 level) at which a cell keeps half its distrust
#define MCFPS_BEND_GATE   6                       ///< L1 distance (quarter pel) from the smoothed A vector within which a trajectory bends
#define MCFPS_BEND_SPREAD 6                       ///< largest L1 distance (quarter pel) of the previous motion beside the bend's cell from its own
#define MCFPS_BEND_MAX    16                      ///< largest bend of a trajectory, 1/16 pel per component
#define MCFPS_VEC_N       4                       ///< entries per cell of the intermediate frame's vectors: (dx, dy, bend x, bend y)
#define MCFPS_CHECK_GROUP_W 32                    ///< GPU check kernels: pixels read per group, 32 x 8, a thread each
#define MCFPS_CHECK_GROUP_H 8
#define MCFPS_TRUST_GROUP   256                   ///< GPU trust kernels: one group of 256 threads
/** per-cell info word: side, MC weight m 0..256, OBMC weight r 1..MCFPS_OBMC_RMAX */
#define MCFPS_INFO(side, m, r) ((side) | ((m) << 2) | (((r) - 1) << 11))
#define MCFPS_INFO_SIDE(i)  ((i) & 3)
#define MCFPS_INFO_M(i)     (((i) >> 2) & 511)
#define MCFPS_INFO_R(i)     (((i) >> 11) + 1)

/** Everything the steps need about one interpolated frame; identical on all backends. */
typedef struct McfpsParams {
    int width, height;  ///< luma size
    int cw, ch;         ///< cells per row and column: ceil(size / MCFPS_CELL)
    int phi;            ///< phase, 1..255: position of the new frame between A (0) and B (256)
    int lambda;         ///< cost of distance to the smoothed vector, per quarter pel per 32 pixels
    int rel_lo, rel_hi; ///< reliability thresholds (mean |error| in 1/16 level), rel_lo < rel_hi
    int gx, gy;         ///< the pair's dominant non-zero vector (ff_mcfps_dominant), quarter pel
    int phi_a;          ///< A's phase between P and B, 1..255 (M6): the previous pair's interval against this one's
    int bend;           ///< weight of the trajectories' bend (mcfps_bend_weight()); 0: straight, no previous pair
} McfpsParams;

MCFPS_FN int mcfps_clip(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

MCFPS_FN int mcfps_abs(int v)
{
    return v < 0 ? -v : v;
}

/**
 * Sample of a plane at fractional position (px, py) in units of 1/2^fbx and
 * 1/2^fby pixel: bilinear between the four nearest samples, each clamped into
 * the plane (edge replication). Result in [0, 255].
 */
MCFPS_FN int mcfps_sample(const MCFPS_GLOBAL uint8_t *p, int stride, int w, int h,
                          int px, int py, int fbx, int fby)
{
    const int nx = 1 << fbx, ny = 1 << fby;
    const int x0 = px >> fbx, y0 = py >> fby;
    const int fx = px & (nx - 1), fy = py & (ny - 1);
    const int xa = mcfps_clip(x0, 0, w - 1), xb = mcfps_clip(x0 + 1, 0, w - 1);
    const int ya = mcfps_clip(y0, 0, h - 1), yb = mcfps_clip(y0 + 1, 0, h - 1);
    const MCFPS_GLOBAL uint8_t *ra = p + (long)ya * stride, *rb = p + (long)yb * stride;
    const int v = (nx - fx) * (ny - fy) * ra[xa] + fx * (ny - fy) * ra[xb] +
                  (nx - fx) * fy * rb[xa] + fx * fy * rb[xb];
    return (v + ((nx * ny) >> 1)) >> (fbx + fby);
}

/**
 * VVC's chroma interpolation filter: 4 taps for samples -1, 0, 1, 2 at the
 * fraction f/32 (f = 0..31), summing to 64. Its rows 4f are HEVC's filter at
 * f/8.
 */
MCFPS_CONST int8_t mcfps_chroma_taps[32][4] = {
    {  0, 64,  0,  0 }, { -1, 63,  2,  0 }, { -2, 62,  4,  0 }, { -2, 60,  7, -1 },
    { -2, 58, 10, -2 }, { -3, 57, 12, -2 }, { -4, 56, 14, -2 }, { -4, 55, 15, -2 },
    { -4, 54, 16, -2 }, { -5, 53, 18, -2 }, { -6, 52, 20, -2 }, { -6, 49, 24, -3 },
    { -6, 46, 28, -4 }, { -5, 44, 29, -4 }, { -4, 42, 30, -4 }, { -4, 39, 33, -4 },
    { -4, 36, 36, -4 }, { -4, 33, 39, -4 }, { -4, 30, 42, -4 }, { -4, 29, 44, -5 },
    { -4, 28, 46, -6 }, { -3, 24, 49, -6 }, { -2, 20, 52, -6 }, { -2, 18, 53, -5 },
    { -2, 16, 54, -4 }, { -2, 15, 55, -4 }, { -2, 14, 56, -4 }, { -2, 12, 57, -3 },
    { -2, 10, 58, -2 }, { -1,  7, 60, -2 }, {  0,  4, 62, -2 }, {  0,  2, 63, -1 },
};

/**
 * VVC's luma interpolation filter: 8 taps for samples -3 .. 4 at the
 * fraction f/16 (f = 0..15), summing to 64. Its rows 4f are HEVC's filter
 * at f/4.
 */
MCFPS_CONST int8_t mcfps_luma_taps[16][8] = {
    {  0, 0,   0, 64,  0,   0,  0,  0 }, {  0, 1,  -3, 63,  4,  -2,  1,  0 },
    { -1, 2,  -5, 62,  8,  -3,  1,  0 }, { -1, 3,  -8, 60, 13,  -4,  1,  0 },
    { -1, 4, -10, 58, 17,  -5,  1,  0 }, { -1, 4, -11, 52, 26,  -8,  3, -1 },
    { -1, 3,  -9, 47, 31, -10,  4, -1 }, { -1, 4, -11, 45, 34, -10,  4, -1 },
    { -1, 4, -11, 40, 40, -11,  4, -1 }, { -1, 4, -10, 34, 45, -11,  4, -1 },
    { -1, 4, -10, 31, 47,  -9,  3, -1 }, { -1, 3,  -8, 26, 52, -11,  4, -1 },
    {  0, 1,  -5, 17, 58, -10,  4, -1 }, {  0, 1,  -4, 13, 60,  -8,  3, -1 },
    {  0, 1,  -3,  8, 62,  -5,  2, -1 }, {  0, 1,  -2,  4, 63,  -3,  1,  0 },
};

/** Tap t (0..3) of the 4-tap filter at the fraction f/32. */
MCFPS_FN int mcfps_tap(int f, int t)
{
    return mcfps_chroma_taps[f][t];
}

/** Row of mcfps_chroma_taps for the fraction of position p in units of 1/2^fb pixel (fb <= 5). */
MCFPS_FN int mcfps_frac32(int p, int fb)
{
    return (p & ((1 << fb) - 1)) << (5 - fb);
}

/**
 * Sample of a plane at (px, py) in units of 1/2^fbx, 1/2^fby pixel
 * (fb <= 5) with the 4-tap filter of mcfps_tap() in both directions,
 * samples clamped into the plane: sum of tap_x(i) tap_y(j) s(x0-1+i, y0-1+j),
 * (+ 2048) >> 12, clipped to [0, 255]. Sample (x, y) is p[y * stride + x * step]
 * (step 2: chroma interleaved with the other chroma plane, nv12).
 */
MCFPS_FN int mcfps_sample4(const MCFPS_GLOBAL uint8_t *p, int stride, int step, int w, int h,
                           int px, int py, int fbx, int fby)
{
    const int x0 = px >> fbx, y0 = py >> fby;
    const int fx = mcfps_frac32(px, fbx), fy = mcfps_frac32(py, fby);
    int v = 0;

    if (!fx && !fy)
        return p[(long)mcfps_clip(y0, 0, h - 1) * stride + mcfps_clip(x0, 0, w - 1) * step];
    for (int j = 0; j < 4; j++) {
        const int ty = mcfps_tap(fy, j);
        const MCFPS_GLOBAL uint8_t *row = p + (long)mcfps_clip(y0 - 1 + j, 0, h - 1) * stride;
        int r = 0;
        if (!ty)
            continue;
        for (int i = 0; i < 4; i++)
            r += mcfps_tap(fx, i) * row[mcfps_clip(x0 - 1 + i, 0, w - 1) * step];
        v += ty * r;
    }
    return mcfps_clip((v + 2048) >> 12, 0, 255);
}

/** Tap t (0..7) of the 8-tap filter at the fraction f/16. */
MCFPS_FN int mcfps_tap8(int f, int t)
{
    return mcfps_luma_taps[f][t];
}

/**
 * Sample of a luma plane at (px, py) in 1/16 pel with the 8-tap
 * filter of mcfps_tap8() in both directions, samples clamped into the
 * plane: sum of tap_x(i) tap_y(j) s(x0-3+i, y0-3+j), (+ 2048) >> 12,
 * clipped to [0, 255].
 */
MCFPS_FN int mcfps_sample8(const MCFPS_GLOBAL uint8_t *p, int stride, int w, int h, int px, int py)
{
    const int x0 = px >> 4, y0 = py >> 4, fx = px & 15, fy = py & 15;
    int tx[8], col[8], v = 0;

    if (!fx && !fy)
        return p[(long)mcfps_clip(y0, 0, h - 1) * stride + mcfps_clip(x0, 0, w - 1)];
    /* the same taps and columns for every row */
    for (int i = 0; i < 8; i++) {
        tx[i]  = mcfps_tap8(fx, i);
        col[i] = mcfps_clip(x0 - 3 + i, 0, w - 1);
    }
    for (int j = 0; j < 8; j++) {
        const int ty = mcfps_tap8(fy, j);
        const MCFPS_GLOBAL uint8_t *row = p + (long)mcfps_clip(y0 - 3 + j, 0, h - 1) * stride;
        int r = 0;
        if (!ty)
            continue;
        if (!fx) {
            r = 64 * row[col[3]];   /* the whole-pel filter */
        } else {
            for (int i = 0; i < 8; i++)
                r += tx[i] * row[col[i]];
        }
        v += ty * r;
    }
    return mcfps_clip((v + 2048) >> 12, 0, 255);
}

/**
 * The two ends of the trajectory of vector d (quarter pel, A -> B) through
 * the intermediate frame at phase phi, as matched (M4, M6): A is read at
 * offset oa, B at ob = oa + d (quarter pel), oa = -round(phi * d / 256)
 * (halves up).
 */
MCFPS_FN int mcfps_off_a(int d, int phi)
{
    return -((phi * d + 128) >> 8);
}

/**
 * mcfps_off_a() in 1/16 pel, for the output samples: A is read at
 * oa = -round(phi * 4 d / 256), B at oa + 4 d. Quarter pel would move the
 * picture made from a vector of an odd number of quarter pels by 1/8 pel at
 * phi = 1/2.
 */
MCFPS_FN int mcfps_off_a16(int d, int phi)
{
    return mcfps_off_a(4 * d, phi);
}

/**
 * Weight of the bend of the trajectories at phase phi, for a pair whose A
 * lies at phase phi_a between P and B (M3):
 * phi (256 - phi) (256 - phi_a) 128 / phi_a, rounded; below 2^29. The
 * division is made once per frame, on the host.
 */
MCFPS_FN int mcfps_bend_weight(int phi, int phi_a)
{
    return (int)(((int64_t)phi * (MCFPS_PHI_ONE - phi) * (MCFPS_PHI_ONE - phi_a) * 128 + phi_a / 2) / phi_a);
}

/**
 * Bend (1/16 pel) of one component of vector d (A -> B, quarter pel) whose
 * content moved by d0 from P to A: half the change of motion of the
 * parabola through P, A and B, at phase phi. With v = d phi_a -
 * d0 (256 - phi_a) (the change, over A -> B's interval, times phi_a),
 * round(bend v / 2^30), halves away from zero, clipped to
 * +-MCFPS_BEND_MAX. Both ends of the trajectory move by it.
 */
MCFPS_FN int mcfps_bend16(const McfpsParams *p, int d, int d0)
{
    const int64_t v = (int64_t)p->bend * (d * p->phi_a - d0 * (MCFPS_PHI_ONE - p->phi_a));
    const int64_t r = v < 0 ? -((-v + (1 << 29)) >> 30) : (v + (1 << 29)) >> 30;
    return (int)(r < -MCFPS_BEND_MAX ? -MCFPS_BEND_MAX : r > MCFPS_BEND_MAX ? MCFPS_BEND_MAX : r);
}

/** The offset in A (quarter pel) of a component of vector d whose trajectory bends by b (1/16 pel). */
MCFPS_FN int mcfps_off_a_bent(int d, int b, int phi)
{
    return mcfps_off_a(d, phi) + ((b + 2) >> 2);
}

/**
 * The ends in A (*pax, *pay) and in B (*pbx, *pby) of the trajectory of
 * vector (dx, dy) (quarter pel) bent by (bx, by) (1/16 pel) through sample
 * (x, y) of a plane subsampled by (lx, ly), in units of 1/(16 << lx) and
 * 1/(16 << ly) pixel (M5).
 */
MCFPS_FN void mcfps_render_ends(int x, int y, int dx, int dy, int bx, int by, int phi, int lx, int ly,
                                int *pax, int *pay, int *pbx, int *pby)
{
    *pax = (x << (4 + lx)) + mcfps_off_a16(dx, phi) + bx;
    *pay = (y << (4 + ly)) + mcfps_off_a16(dy, phi) + by;
    *pbx = *pax + 4 * dx;
    *pby = *pay + 4 * dy;
}

/** Median of n <= 9 values (the lower middle one when n is even). */
MCFPS_FN int mcfps_median(int *v, int n)
{
    for (int i = 1; i < n; i++) {
        const int x = v[i];
        int j = i - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            j--;
        }
        v[j + 1] = x;
    }
    return v[(n - 1) >> 1];
}

/**
 * Smoothed field at cell (i, j): per component, the median over the 3x3
 * cells around it that lie inside the grid. raw and out hold (x, y) pairs.
 */
MCFPS_FN void mcfps_smooth_cell(const MCFPS_GLOBAL int16_t *raw, MCFPS_GLOBAL int16_t *out,
                                int cw, int ch, int i, int j)
{
    int vx[9], vy[9], n = 0;
    for (int dj = -1; dj <= 1; dj++) {
        for (int di = -1; di <= 1; di++) {
            const int ii = i + di, jj = j + dj;
            if (ii < 0 || jj < 0 || ii >= cw || jj >= ch)
                continue;
            vx[n] = raw[2 * (jj * cw + ii)];
            vy[n] = raw[2 * (jj * cw + ii) + 1];
            n++;
        }
    }
    out[2 * (j * cw + i)]     = mcfps_median(vx, n);
    out[2 * (j * cw + i) + 1] = mcfps_median(vy, n);
}

/** The luma pixel (*x, *y) that stands for cell (i, j): its centre, clamped into the frame. */
MCFPS_FN void mcfps_cell_point(const McfpsParams *p, int i, int j, int *x, int *y)
{
    *x = mcfps_clip(i * MCFPS_CELL + MCFPS_CELL / 2, 0, p->width - 1);
    *y = mcfps_clip(j * MCFPS_CELL + MCFPS_CELL / 2, 0, p->height - 1);
}

/** Index of the cell holding luma pixel (x, y), clamped into the grid. */
MCFPS_FN int mcfps_cell_at(const McfpsParams *p, int x, int y)
{
    const int i = mcfps_clip(x >> MCFPS_CELL_LOG2, 0, p->cw - 1);
    const int j = mcfps_clip(y >> MCFPS_CELL_LOG2, 0, p->ch - 1);
    return j * p->cw + i;
}

/**
 * Whether the previous motion fp (the previous pair's smoothed B field,
 * P -> A at A's cells) is smooth at cell q = (qi, qj): each of the four
 * cells beside it holds motion within MCFPS_BEND_SPREAD of q's. Flat or
 * ambiguous content and the edges of objects say nothing of how q's
 * content moved.
 */
MCFPS_FN int mcfps_bend_smooth(const McfpsParams *p, const MCFPS_GLOBAL int16_t *fp, int qi, int qj)
{
    const int q = qj * p->cw + qi;
    int spread = 0;

    for (int n = 0; n < 4; n++) {
        const int m = mcfps_clip(qj + (n == 2) - (n == 3), 0, p->ch - 1) * p->cw +
                      mcfps_clip(qi + (n == 0) - (n == 1), 0, p->cw - 1);
        const int e = mcfps_abs(fp[2 * m] - fp[2 * q]) + mcfps_abs(fp[2 * m + 1] - fp[2 * q + 1]);
        spread = spread > e ? spread : e;
    }
    return spread <= MCFPS_BEND_SPREAD;
}

/**
 * The bend (1/16 pel, *bx, *by) of the trajectory of vector (dx, dy)
 * through cell (i, j), from fp at the cell q where the straight trajectory
 * leaves A: where the vector lies within MCFPS_BEND_GATE of the cell's
 * smoothed A vector fa and the previous motion is smooth at q
 * (mcfps_bend_smooth(), or smooth[q] where the caller has them all: NULL
 * otherwise); (0, 0) elsewhere and when p->bend is 0.
 */
MCFPS_FN void mcfps_bend(const McfpsParams *p, const MCFPS_GLOBAL int16_t *fa, const MCFPS_GLOBAL int16_t *fp,
                         const uint8_t *smooth, int i, int j, int dx, int dy, int *bx, int *by)
{
    const int k = j * p->cw + i;
    int cx, cy, q, qi, qj;

    *bx = *by = 0;
    if (!p->bend || mcfps_abs(dx - fa[2 * k]) + mcfps_abs(dy - fa[2 * k + 1]) > MCFPS_BEND_GATE)
        return;
    /* mcfps_cell_at() of where the straight trajectory leaves A, kept as
     * column and row for the smoothness test */
    mcfps_cell_point(p, i, j, &cx, &cy);
    qi = mcfps_clip((cx + (mcfps_off_a(dx, p->phi) >> 2)) >> MCFPS_CELL_LOG2, 0, p->cw - 1);
    qj = mcfps_clip((cy + (mcfps_off_a(dy, p->phi) >> 2)) >> MCFPS_CELL_LOG2, 0, p->ch - 1);
    q  = qj * p->cw + qi;
    if (smooth ? !smooth[q] : !mcfps_bend_smooth(p, fp, qi, qj))
        return;
    *bx = mcfps_bend16(p, dx, fp[2 * q]);
    *by = mcfps_bend16(p, dy, fp[2 * q + 1]);
}

/** The matching window of cell (i, j): luma pixels [*x0, *x1) x [*y0, *y1), at most MCFPS_WIN x MCFPS_WIN. */
MCFPS_FN void mcfps_window(const McfpsParams *p, int i, int j, int *x0, int *x1, int *y0, int *y1)
{
    *x0 = mcfps_clip(i * MCFPS_CELL - MCFPS_MARGIN, 0, p->width);
    *x1 = mcfps_clip(i * MCFPS_CELL + MCFPS_CELL + MCFPS_MARGIN, 0, p->width);
    *y0 = mcfps_clip(j * MCFPS_CELL - MCFPS_MARGIN, 0, p->height);
    *y1 = mcfps_clip(j * MCFPS_CELL + MCFPS_CELL + MCFPS_MARGIN, 0, p->height);
}

/**
 * Bilateral matching error of vector (dx, dy) read at offset (oax, oay) in
 * A (quarter pel, mcfps_search_offsets()) at luma pixel (x, y):
 * |A(x + oa) - B(x + ob)| (quarter-pel samples), ob = oa + d.
 */
MCFPS_FN int mcfps_bilateral_px(const McfpsParams *p,
                                const MCFPS_GLOBAL uint8_t *a, int sa,
                                const MCFPS_GLOBAL uint8_t *b, int sb,
                                int x, int y, int oax, int oay, int dx, int dy)
{
    const int obx = oax + dx, oby = oay + dy;
    return mcfps_abs(mcfps_sample(a, sa, p->width, p->height, 4 * x + oax, 4 * y + oay, 2, 2) -
                     mcfps_sample(b, sb, p->width, p->height, 4 * x + obx, 4 * y + oby, 2, 2));
}

/** The weights of the four samples of a bilinear sample at the fractions (fx, fy), quarter pel. */
MCFPS_FN void mcfps_bilinear_weights(int fx, int fy, int *w)
{
    w[0] = (4 - fx) * (4 - fy);
    w[1] = fx * (4 - fy);
    w[2] = (4 - fx) * fy;
    w[3] = fx * fy;
}

/** A bilinear sample from its top-left sample r and weights w (mcfps_bilinear_weights()). */
MCFPS_FN int mcfps_bilinear_inside(const MCFPS_GLOBAL uint8_t *r, int stride, const int *w)
{
    return (w[0] * r[0] + w[1] * r[1] + w[2] * r[stride] + w[3] * r[stride + 1] + 8) >> 4;
}

/**
 * mcfps_sample() of a quarter-pel position (px, py) whose four samples lie
 * inside the plane: the same value without the clamping.
 */
MCFPS_FN int mcfps_sample_inside(const MCFPS_GLOBAL uint8_t *p, int stride, int px, int py)
{
    int w[4];

    mcfps_bilinear_weights(px & 3, py & 3, w);
    return mcfps_bilinear_inside(p + (long)(py >> 2) * stride + (px >> 2), stride, w);
}

/**
 * Whether every sample that the bilateral errors of vector (dx, dy), read at
 * offset (oax, oay) in A, over the window [x0, x1) x [y0, y1) read lies
 * inside both planes grown by margin samples on each side; with margin 0,
 * inside the planes, so that mcfps_bilateral_px_inside() gives them.
 */
MCFPS_FN int mcfps_window_inside(const McfpsParams *p, int x0, int x1, int y0, int y1,
                                 int oax, int oay, int dx, int dy, int margin)
{
    const int ax = x0 + (oax >> 2), ay = y0 + (oay >> 2);
    const int bx = x0 + ((oax + dx) >> 2), by = y0 + ((oay + dy) >> 2);
    return (ax < bx ? ax : bx) >= -margin && (ax > bx ? ax : bx) + (x1 - x0) < p->width + margin &&
           (ay < by ? ay : by) >= -margin && (ay > by ? ay : by) + (y1 - y0) < p->height + margin;
}

/** mcfps_bilateral_px() of a pixel of a window for which mcfps_window_inside() holds. */
MCFPS_FN int mcfps_bilateral_px_inside(const McfpsParams *p,
                                       const MCFPS_GLOBAL uint8_t *a, int sa,
                                       const MCFPS_GLOBAL uint8_t *b, int sb,
                                       int x, int y, int oax, int oay, int dx, int dy)
{
    return mcfps_abs(mcfps_sample_inside(a, sa, 4 * x + oax, 4 * y + oay) -
                     mcfps_sample_inside(b, sb, 4 * x + oax + dx, 4 * y + oay + dy));
}

/**
 * Bilateral matching error of vector (dx, dy) read at offset (oax, oay) in
 * A over the window of cell (i, j): the sum of mcfps_bilateral_px() over the
 * window's luma pixels. *n receives the window's pixel count.
 */
MCFPS_FN uint32_t mcfps_bilateral_sad(const McfpsParams *p,
                                      const MCFPS_GLOBAL uint8_t *a, int sa,
                                      const MCFPS_GLOBAL uint8_t *b, int sb,
                                      int i, int j, int oax, int oay, int dx, int dy, int *n)
{
    int x0, x1, y0, y1;
    uint32_t sad = 0;

    mcfps_window(p, i, j, &x0, &x1, &y0, &y1);
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            sad += mcfps_bilateral_px(p, a, sa, b, sb, x, y, oax, oay, dx, dy);
    *n = (x1 - x0) * (y1 - y0);
    return sad;
}

/**
 * Candidate c (0 .. MCFPS_NB_CAND-1) of cell (i, j), A -> B in quarter pel.
 * ra/rb: the raw fields, fa/fb: the smoothed fields (pairs per cell).
 */
MCFPS_FN void mcfps_candidate(const McfpsParams *p,
                              const MCFPS_GLOBAL int16_t *ra, const MCFPS_GLOBAL int16_t *rb,
                              const MCFPS_GLOBAL int16_t *fa, const MCFPS_GLOBAL int16_t *fb,
                              int i, int j, int c, int *dx, int *dy)
{
    const int k  = j * p->cw + i;
    int cx, cy, q = k, ox, oy;
    const MCFPS_GLOBAL int16_t *f = fa;

    mcfps_cell_point(p, i, j, &cx, &cy);
    switch (c) {
    case 0:  f = fa; q = k; break;
    case 1:  f = fb; q = k; break;
    case 2:  /* A's vector where the smoothed A vector of this cell leaves A */
        ox = mcfps_off_a(fa[2 * k], p->phi);
        oy = mcfps_off_a(fa[2 * k + 1], p->phi);
        f = fa; q = mcfps_cell_at(p, cx + (ox >> 2), cy + (oy >> 2));
        break;
    case 3:  /* B's vector where the smoothed B vector of this cell meets B */
        ox = mcfps_off_a(fb[2 * k], p->phi) + fb[2 * k];
        oy = mcfps_off_a(fb[2 * k + 1], p->phi) + fb[2 * k + 1];
        f = fb; q = mcfps_cell_at(p, cx + (ox >> 2), cy + (oy >> 2));
        break;
    case 4:  f = ra; q = k; break;
    case 5:  f = rb; q = k; break;
    case 6:  f = fa; q = j * p->cw + mcfps_clip(i - 2, 0, p->cw - 1); break;
    case 7:  f = fa; q = j * p->cw + mcfps_clip(i + 2, 0, p->cw - 1); break;
    case 8:  f = fa; q = mcfps_clip(j - 2, 0, p->ch - 1) * p->cw + i; break;
    case 9:  f = fa; q = mcfps_clip(j + 2, 0, p->ch - 1) * p->cw + i; break;
    case 10: *dx = 0; *dy = 0; return;
    default: *dx = p->gx; *dy = p->gy; return;
    }
    *dx = f[2 * q];
    *dy = f[2 * q + 1];
}

/**
 * The search of one cell's vector as a sequence of MCFPS_NB_PROBES probes:
 * the MCFPS_NB_CAND candidates (an earlier equal candidate has the same
 * cost and wins the tie, so a repeated one is skipped), then the refinement
 * +-1 pel, +-1/2, +-1/4 around the best vector so far (4 probes per step).
 * A probe costs its bilateral error plus lambda times its distance to the
 * smoothed A vector; a lower cost replaces the best. The CPU evaluates each
 * probe's error with one loop, the GPU kernels with one work-item per window
 * pixel and a sum; both drive the search with these functions.
 */
#define MCFPS_NB_PROBES (MCFPS_NB_CAND + 12)

typedef struct McfpsSearch {
    int cand[2 * MCFPS_NB_CAND];
    uint32_t best_cost, best_sad;
    uint32_t still_sad; ///< bilateral error of (0, 0) (candidate 10, always probed)
    int best;           ///< best candidate (probes < MCFPS_NB_CAND)
    int bx, by;         ///< refinement: centre of the current step
    int nx, ny;         ///< refinement: best vector so far
    int sx, sy;         ///< the smoothed A vector of the cell
} McfpsSearch;

MCFPS_FN void mcfps_search_init(const McfpsParams *p, const MCFPS_GLOBAL int16_t *fa,
                                int i, int j, McfpsSearch *st)
{
    const int k = j * p->cw + i;
    st->sx        = fa[2 * k];
    st->sy        = fa[2 * k + 1];
    st->best_cost = 0xffffffffu;
    st->best_sad  = 0;
    st->still_sad = 0;
    st->best      = 0;
    st->bx = st->by = st->nx = st->ny = 0;
}

/**
 * The vector of probe q (in order 0 .. MCFPS_NB_PROBES-1) of cell (i, j)
 * into *dx, *dy; returns 0 when the probe is skipped (a repeated candidate).
 */
MCFPS_FN int mcfps_search_probe(const McfpsParams *p,
                                const MCFPS_GLOBAL int16_t *ra, const MCFPS_GLOBAL int16_t *rb,
                                const MCFPS_GLOBAL int16_t *fa, const MCFPS_GLOBAL int16_t *fb,
                                int i, int j, McfpsSearch *st, int q, int *dx, int *dy)
{
    if (q < MCFPS_NB_CAND) {
        int dup = 0;
        mcfps_candidate(p, ra, rb, fa, fb, i, j, q, dx, dy);
        st->cand[2 * q]     = *dx;
        st->cand[2 * q + 1] = *dy;
        for (int e = 0; e < q; e++)
            dup |= st->cand[2 * e] == *dx && st->cand[2 * e + 1] == *dy;
        return !dup;
    }
    {
        const int r = q - MCFPS_NB_CAND, step = 4 >> (r >> 2), c = r & 3;
        if (r == 0) {
            st->bx = st->nx = st->cand[2 * st->best];
            st->by = st->ny = st->cand[2 * st->best + 1];
        }
        *dx = st->bx + (c == 0 ? -step : c == 1 ? step : 0);
        *dy = st->by + (c == 2 ? -step : c == 3 ? step : 0);
        return 1;
    }
}

/**
 * Where probe (dx, dy) of cell (i, j) reads A: the offset (quarter pel) of
 * its trajectory, bent (mcfps_bend(); fp: the previous pair's smoothed B
 * field, smooth: NULL or mcfps_bend_smooth() of each cell).
 */
MCFPS_FN void mcfps_search_offsets(const McfpsParams *p, const MCFPS_GLOBAL int16_t *fa,
                                   const MCFPS_GLOBAL int16_t *fp, const uint8_t *smooth,
                                   int i, int j, int dx, int dy, int *oax, int *oay)
{
    int bx, by;

    mcfps_bend(p, fa, fp, smooth, i, j, dx, dy, &bx, &by);
    *oax = mcfps_off_a_bent(dx, bx, p->phi);
    *oay = mcfps_off_a_bent(dy, by, p->phi);
}

/** The part of a probe's cost that depends on its vector (dx, dy) alone; n: the window's pixels. */
MCFPS_FN uint32_t mcfps_search_vector_cost(const McfpsParams *p, const McfpsSearch *st,
                                           int dx, int dy, int n)
{
    return ((uint32_t)(mcfps_abs(dx - st->sx) + mcfps_abs(dy - st->sy)) * p->lambda * n) >> 5;
}

/** Probe q of vector (dx, dy) has bilateral error sad over n pixels. */
MCFPS_FN void mcfps_search_update(const McfpsParams *p, McfpsSearch *st, int q,
                                  int dx, int dy, uint32_t sad, int n)
{
    const uint32_t cost = sad + mcfps_search_vector_cost(p, st, dx, dy, n);
    if (!dx && !dy)
        st->still_sad = sad;
    if (cost < st->best_cost) {
        st->best_cost = cost;
        st->best_sad  = sad;
        if (q < MCFPS_NB_CAND) {
            st->best = q;
        } else {
            st->nx = dx;
            st->ny = dy;
        }
    }
    if (q >= MCFPS_NB_CAND && ((q - MCFPS_NB_CAND) & 3) == 3) {
        st->bx = st->nx;
        st->by = st->ny;
    }
}

/**
 * After the last probe: the chosen vector of cell (i, j) and its bend into
 * out_v (MCFPS_VEC_N entries a cell), and how it is predicted as the return
 * value, the info word MCFPS_INFO(side, m). n: the window's pixel count.
 */
MCFPS_FN int mcfps_search_finish(const McfpsParams *p,
                                 const MCFPS_GLOBAL int16_t *fa, const MCFPS_GLOBAL int16_t *fb,
                                 const MCFPS_GLOBAL int16_t *fp, const uint8_t *smooth,
                                 int i, int j, const McfpsSearch *st, int n, int trust,
                                 MCFPS_GLOBAL int16_t *out_v)
{
    const int k = j * p->cw + i;
    const int dx = st->bx, dy = st->by;
    int cx, cy, bx, by, oax, oay;
    const int err = (int)((st->best_sad * 16 + n / 2) / n);  /* mean |error|, 1/16 level */
    int side = MCFPS_SIDE_BOTH, m;

    mcfps_cell_point(p, i, j, &cx, &cy);
    mcfps_bend(p, fa, fp, smooth, i, j, dx, dy, &bx, &by);
    oax = mcfps_off_a_bent(dx, bx, p->phi);
    oay = mcfps_off_a_bent(dy, by, p->phi);
    if (err > MCFPS_OCC_ERR) {
        /* visible where the frame's own vector agrees with the trajectory */
        const int qa = mcfps_cell_at(p, cx + (oax >> 2), cy + (oay >> 2));
        const int qb = mcfps_cell_at(p, cx + ((oax + dx) >> 2), cy + ((oay + dy) >> 2));
        const int ca = mcfps_abs(fa[2 * qa] - dx) + mcfps_abs(fa[2 * qa + 1] - dy) <= MCFPS_CONSIST;
        const int cb = mcfps_abs(fb[2 * qb] - dx) + mcfps_abs(fb[2 * qb + 1] - dy) <= MCFPS_CONSIST;
        side = ca && !cb ? MCFPS_SIDE_A : cb && !ca ? MCFPS_SIDE_B : MCFPS_SIDE_BOTH;
    }
    if (side != MCFPS_SIDE_BOTH)
        m = MCFPS_PHI_ONE;
    else
        m = mcfps_clip((p->rel_hi - err) * MCFPS_PHI_ONE / (p->rel_hi - p->rel_lo), 0, MCFPS_PHI_ONE);
    if (side == MCFPS_SIDE_BOTH) {
        /* a vector that matches hardly better than none (leaves, water)
         * adds wrong detail where the average only blurs */
        const int gain = ((int)st->still_sad - (int)st->best_sad) * 16 / n;
        const int ms = mcfps_clip((gain + MCFPS_STILL_E0) * MCFPS_PHI_ONE / (err + MCFPS_STILL_E0),
                                  0, MCFPS_PHI_ONE);
        m = m < ms ? m : ms;
    }
    /* the pair's motion check: where A's vectors rebuilt A poorly, motion
     * is less to be trusted, except where the match is close */
    {
        const int tc = trust + (MCFPS_PHI_ONE - trust) * MCFPS_TRUST_E0 / (err + MCFPS_TRUST_E0);
        m = (m * tc + 128) >> 8;
    }
    out_v[MCFPS_VEC_N * k]     = dx;
    out_v[MCFPS_VEC_N * k + 1] = dy;
    out_v[MCFPS_VEC_N * k + 2] = bx;
    out_v[MCFPS_VEC_N * k + 3] = by;
    return MCFPS_INFO(side, m, mcfps_clip(MCFPS_OBMC_RMAX * MCFPS_OBMC_E0 / (err + MCFPS_OBMC_E0),
                                          1, MCFPS_OBMC_RMAX));
}

/**
 * Choose the vector of cell (i, j) of the intermediate frame and how it is
 * predicted: out_v receives the vector (A -> B, quarter pel) and its bend
 * (1/16 pel), the return value is the info word MCFPS_INFO(side, m). fp:
 * the previous pair's smoothed B field (read where p->bend is not 0).
 */
MCFPS_FN int mcfps_select_cell(const McfpsParams *p,
                               const MCFPS_GLOBAL uint8_t *a, int sa,
                               const MCFPS_GLOBAL uint8_t *b, int sb,
                               const MCFPS_GLOBAL int16_t *ra, const MCFPS_GLOBAL int16_t *rb,
                               const MCFPS_GLOBAL int16_t *fa, const MCFPS_GLOBAL int16_t *fb,
                               const MCFPS_GLOBAL int16_t *fp,
                               int i, int j, int trust, MCFPS_GLOBAL int16_t *out_v)
{
    McfpsSearch st;
    int n = 1;

    mcfps_search_init(p, fa, i, j, &st);
    for (int q = 0; q < MCFPS_NB_PROBES; q++) {
        int dx, dy, oax, oay;
        uint32_t sad;
        if (!mcfps_search_probe(p, ra, rb, fa, fb, i, j, &st, q, &dx, &dy))
            continue;
        mcfps_search_offsets(p, fa, fp, 0, i, j, dx, dy, &oax, &oay);
        sad = mcfps_bilateral_sad(p, a, sa, b, sb, i, j, oax, oay, dx, dy, &n);
        mcfps_search_update(p, &st, q, dx, dy, sad, n);
    }
    return mcfps_search_finish(p, fa, fb, fp, 0, i, j, &st, n, trust, out_v);
}

/** Plain weighted average of the two frames at phase phi. */
MCFPS_FN int mcfps_blend_pixel(int va, int vb, int phi)
{
    return ((MCFPS_PHI_ONE - phi) * va + phi * vb + 128) >> 8;
}

/**
 * Whether a trajectory end at (px, py), in units of 1/2^fbx and 1/2^fby
 * pixel of a pw x ph plane, lies outside the plane (M5).
 */
MCFPS_FN int mcfps_end_outside(int pw, int ph, int fbx, int fby, int px, int py)
{
    return px < 0 || py < 0 || px > ((pw - 1) << fbx) || py > ((ph - 1) << fby);
}

/**
 * The motion check at luma pixel (x, y) of A, which lies at phase phi
 * between its neighbours P and B: A rebuilt from P and B along the
 * trajectory through the pixel of d (quarter pel, P -> B, field of
 * p->cw x p->ch cells: the cell holding the pixel), and the plain average
 * of P and B. Their squared errors against A go to *em and *eb.
 */
MCFPS_FN void mcfps_check_px(const McfpsParams *p, const MCFPS_GLOBAL int16_t *d, int phi,
                             const MCFPS_GLOBAL uint8_t *pp, int sp,
                             const MCFPS_GLOBAL uint8_t *a, int sa,
                             const MCFPS_GLOBAL uint8_t *b, int sb,
                             int x, int y, int *em, int *eb)
{
    const int k = (y >> MCFPS_CELL_LOG2) * p->cw + (x >> MCFPS_CELL_LOG2);
    const int dx = d[2 * k], dy = d[2 * k + 1];
    const int oax = mcfps_off_a(dx, phi), oay = mcfps_off_a(dy, phi);
    const int pax = 4 * x + oax, pay = 4 * y + oay, pbx = pax + dx, pby = pay + dy;
    const int vp = mcfps_sample(pp, sp, p->width, p->height, pax, pay, 2, 2);
    const int vb = mcfps_sample(b, sb, p->width, p->height, pbx, pby, 2, 2);
    /* an end outside the picture sees nothing: the other end is taken (M5) */
    const int p_out = mcfps_end_outside(p->width, p->height, 2, 2, pax, pay);
    const int b_out = mcfps_end_outside(p->width, p->height, 2, 2, pbx, pby);
    const int va = a[(long)y * sa + x];
    const int e1 = (p_out && !b_out ? vb : b_out && !p_out ? vp : mcfps_blend_pixel(vp, vb, phi)) - va;
    const int e0 = mcfps_blend_pixel(pp[(long)y * sp + x], b[(long)y * sb + x], phi) - va;
    *em = e1 * e1;
    *eb = e0 * e0;
}

/**
 * The pair's trust in motion, 0..256, from the motion check's sums of
 * squared errors (mcfps_check_px() over the pixels it reads): 256 where
 * the vectors rebuild A far better than the plain average, falling as
 * their error nears MCFPS_CHECK_BIAS times the average's.
 */
MCFPS_FN int mcfps_trust(uint64_t em, uint64_t eb)
{
    const uint64_t den = em + MCFPS_CHECK_BIAS * eb;
    return den ? (int)((MCFPS_PHI_ONE * MCFPS_CHECK_BIAS * eb + den / 2) / den) : MCFPS_PHI_ONE;
}

/**
 * One term of the overlapped-block sum from its two predictions: va from A
 * and vb from B, their ends (pax, pay) and (pbx, pby) in units of
 * 1/(16 << lx) and 1/(16 << ly) pixel of a pw x ph plane, the cell's info
 * word, faded towards avg, the plain average. An end outside the plane
 * sees nothing: the other end is taken.
 */
MCFPS_FN int mcfps_render_mix(const McfpsParams *p, int pw, int ph, int lx, int ly, int in,
                              int pax, int pay, int pbx, int pby, int va, int vb, int avg)
{
    const int phi = p->phi, m = MCFPS_INFO_M(in), side = MCFPS_INFO_SIDE(in);
    const int a_out = mcfps_end_outside(pw, ph, 4 + lx, 4 + ly, pax, pay);
    const int b_out = mcfps_end_outside(pw, ph, 4 + lx, 4 + ly, pbx, pby);
    const int s2 = a_out && !b_out ? MCFPS_SIDE_B : b_out && !a_out ? MCFPS_SIDE_A : side;
    const int mc = s2 == MCFPS_SIDE_A ? va : s2 == MCFPS_SIDE_B ? vb :
                   ((MCFPS_PHI_ONE - phi) * va + phi * vb + 128) >> 8;
    const int mm = a_out != b_out ? MCFPS_PHI_ONE : m;
    return (mm * mc + (MCFPS_PHI_ONE - mm) * avg + 128) >> 8;
}

/**
 * The prediction of sample (x, y) of a plane subsampled by (lx, ly) through
 * cell k (its vector and bend, side and weight m), faded towards avg, the plain
 * average at (x, y): one term of the overlapped-block sum. Samples are step
 * bytes apart in a row (1, or 2 in a subsampled plane: mcfps_sample4()).
 */
MCFPS_FN int mcfps_render_term(const McfpsParams *p,
                               const MCFPS_GLOBAL uint8_t *a, int sa,
                               const MCFPS_GLOBAL uint8_t *b, int sb, int step, int pw, int ph,
                               int lx, int ly,
                               const MCFPS_GLOBAL int16_t *vec, const MCFPS_GLOBAL uint16_t *info,
                               int k, int x, int y, int avg)
{
    int pax, pay, pbx, pby, va, vb;

    mcfps_render_ends(x, y, vec[MCFPS_VEC_N * k], vec[MCFPS_VEC_N * k + 1],
                      vec[MCFPS_VEC_N * k + 2], vec[MCFPS_VEC_N * k + 3], p->phi, lx, ly, &pax, &pay, &pbx, &pby);
    /* luma-sized planes: 8 taps; subsampled chroma: 4 */
    va = lx || ly ? mcfps_sample4(a, sa, step, pw, ph, pax, pay, 4 + lx, 4 + ly) :
                    mcfps_sample8(a, sa, pw, ph, pax, pay);
    vb = lx || ly ? mcfps_sample4(b, sb, step, pw, ph, pbx, pby, 4 + lx, 4 + ly) :
                    mcfps_sample8(b, sb, pw, ph, pbx, pby);
    return mcfps_render_mix(p, pw, ph, lx, ly, info[k], pax, pay, pbx, pby, va, vb, avg);
}

/**
 * One sample of the interpolated plane at (x, y): overlapped-block
 * compensation over the 2x2 cells whose centres surround the pixel, with
 * bilinear window weights (summing to 256) times each cell's OBMC weight r,
 * so that a cell whose vector matches better dominates its neighbours'. The
 * plane is subsampled by (lx, ly) (log2, 0 for luma), its samples step bytes
 * apart in a row (mcfps_render_term()); vectors and cells are in luma units.
 */
MCFPS_FN int mcfps_render_pixel(const McfpsParams *p,
                                const MCFPS_GLOBAL uint8_t *a, int sa,
                                const MCFPS_GLOBAL uint8_t *b, int sb, int step, int pw, int ph,
                                int lx, int ly,
                                const MCFPS_GLOBAL int16_t *vec, const MCFPS_GLOBAL uint16_t *info,
                                int x, int y)
{
    /* luma position of the sample in half pixels, cell centres at 16 i + 8 */
    const int tx = (x << (lx + 1)) - MCFPS_CELL + 1, ty = (y << (ly + 1)) - MCFPS_CELL + 1;
    const int i0 = tx >> (MCFPS_CELL_LOG2 + 1), j0 = ty >> (MCFPS_CELL_LOG2 + 1);
    const int wx1 = tx & (2 * MCFPS_CELL - 1), wy1 = ty & (2 * MCFPS_CELL - 1);
    const int phi = p->phi;
    const int avg = mcfps_blend_pixel(a[(long)y * sa + x * step], b[(long)y * sb + x * step], phi);
    int acc = 0, wsum = 0, kk[4], term[4];

    for (int c = 0; c < 4; c++) {
        const int ci = mcfps_clip(i0 + (c & 1), 0, p->cw - 1);
        const int cj = mcfps_clip(j0 + (c >> 1), 0, p->ch - 1);
        const int k  = cj * p->cw + ci;
        const int w  = ((c & 1) ? wx1 : 2 * MCFPS_CELL - wx1) * ((c >> 1) ? wy1 : 2 * MCFPS_CELL - wy1) *
                       MCFPS_INFO_R(info[k]);
        int t = -1;
        /* a term depends on the cell's vector, bend and info word only:
         * neighbours that share them share it */
        for (int e = 0; e < c && t < 0; e++) {
            int same = info[kk[e]] == info[k];
            for (int v = 0; v < MCFPS_VEC_N; v++)
                same &= vec[MCFPS_VEC_N * kk[e] + v] == vec[MCFPS_VEC_N * k + v];
            if (same)
                t = term[e];
        }
        if (t < 0)
            t = mcfps_render_term(p, a, sa, b, sb, step, pw, ph, lx, ly, vec, info, k, x, y, avg);
        kk[c]   = k;
        term[c] = t;
        acc  += w * t;
        wsum += w;
    }
    /* wsum >= 256: at least one window weight is non-zero */
    return (acc + wsum / 2) / wsum;
}

#endif /* AVFILTER_MCFPS_H */
