/*
 * mcfps CPU reference: the steps of libavfilter/mcfps.h over row ranges
 * (slice jobs), and the conversion of AVMotionVector side data into the
 * per-cell vector fields.
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

#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "libavutil/intreadwrite.h"
#include "libavutil/mem_internal.h"
#include "libavutil/pixdesc.h"

#include "gpume_pad.h"
#include "mcfps_backend.h"
#include "mcfps_cpu.h"
#include "mcfps_dsp.h"

/** Vector of one AVMotionVector as A -> B displacement in quarter pel, from its own frame's view. */
static void mv_qpel(const AVMotionVector *mv, int *qx, int *qy)
{
    if (mv->motion_scale == 4) {
        /* quarter pel already (gpume's): the formula below gives it as it is */
        *qx = FFMIN(FFMAX(mv->motion_x, -MCFPS_MAX_MV), MCFPS_MAX_MV);
        *qy = FFMIN(FFMAX(mv->motion_y, -MCFPS_MAX_MV), MCFPS_MAX_MV);
    } else if (mv->motion_scale > 0) {
        /* floor((4 mx + scale / 2) / scale): the nearest quarter pel, halves up */
        const int64_t s = mv->motion_scale;
        int64_t x = 4 * (int64_t)mv->motion_x * 2 + s, y = 4 * (int64_t)mv->motion_y * 2 + s;
        x = x >= 0 ? x / (2 * s) : -((-x + 2 * s - 1) / (2 * s));
        y = y >= 0 ? y / (2 * s) : -((-y + 2 * s - 1) / (2 * s));
        *qx = (int)FFMIN(FFMAX(x, -MCFPS_MAX_MV), MCFPS_MAX_MV);
        *qy = (int)FFMIN(FFMAX(y, -MCFPS_MAX_MV), MCFPS_MAX_MV);
    } else {
        /* producers that leave motion_scale unset (mestimate): src - dst in pixels */
        *qx = FFMIN(FFMAX(4 * (mv->src_x - mv->dst_x), -MCFPS_MAX_MV), MCFPS_MAX_MV);
        *qy = FFMIN(FFMAX(4 * (mv->src_y - mv->dst_y), -MCFPS_MAX_MV), MCFPS_MAX_MV);
    }
}

/** Cell k takes vector (qx, qy) of block n: in field, or in cells[] unless a later block holds it. */
static av_always_inline void raster_cell(int16_t *field, atomic_uint_least64_t *cells, int k,
                                         int n, int qx, int qy)
{
    if (cells) {
        const uint64_t tag = (uint64_t)(n + 1) << 32 | (uint32_t)(uint16_t)qx << 16 | (uint16_t)qy;
        uint64_t old = atomic_load_explicit(&cells[k], memory_order_relaxed);
        /* on failure old is reloaded; the pass's end orders the stores */
        while (old < tag && !atomic_compare_exchange_weak_explicit(&cells[k], &old, tag, memory_order_relaxed,
                                                                   memory_order_relaxed))
            ;
    } else {
        field[2 * k]     = qx;
        field[2 * k + 1] = qy;
    }
}

/**
 * The vectors mvs[start, end) of source into field or cells[] (one of them,
 * or neither), see ff_mcfps_raster() and ff_mcfps_raster_run().
 */
static av_always_inline int raster(const AVMotionVector *mvs, int start, int end, int source, int negate,
                                   const McfpsParams *p, int16_t *field, atomic_uint_least64_t *cells,
                                   McfpsRasterStats *stats)
{
    McfpsRasterStats st = { 0 };
    int covered = 0;

    for (int n = start; n < end; n++) {
        const AVMotionVector *mv = &mvs[n];
        const int x0 = mv->dst_x - mv->w / 2, y0 = mv->dst_y - mv->h / 2;
        int qx, qy, i0, i1, j0, j1;

        if (mv->source != source)
            continue;
        st.nb++;
        st.outside += x0 >= p->width || y0 >= p->height;
        st.right    = FFMAX(st.right,  x0 + mv->w);
        st.bottom   = FFMAX(st.bottom, y0 + mv->h);
        if ((!field && !cells) || mv->w <= 0 || mv->h <= 0)
            continue;
        mv_qpel(mv, &qx, &qy);
        if (negate) {
            qx = -qx;
            qy = -qy;
        }
        if (!((x0 | y0 | mv->w | mv->h) & (MCFPS_CELL - 1)) && x0 >= 0 && y0 >= 0 &&
            x0 + mv->w <= p->width && y0 + mv->h <= p->height) {
            /* a block of whole cells inside the frame (gpume's): its cells'
             * centres are in it, unclamped, and no other cell's is */
            for (int j = y0 >> MCFPS_CELL_LOG2; j < (y0 + mv->h) >> MCFPS_CELL_LOG2; j++) {
                const int k0 = j * p->cw + (x0 >> MCFPS_CELL_LOG2);
                for (int i = 0; i < mv->w >> MCFPS_CELL_LOG2; i++)
                    raster_cell(field, cells, k0 + i, n, qx, qy);
            }
            covered += (mv->w >> MCFPS_CELL_LOG2) * (mv->h >> MCFPS_CELL_LOG2);
            continue;
        }
        /* a superset of the cells whose sample point (centre, clamped into
         * the frame) lies in the block, the exact test follows: a centre
         * i * CELL + CELL / 2 at or after x0 starts it; clamping moves
         * only the last cell's centre, and only back */
        i0 = FFMAX(0, (x0 + MCFPS_CELL / 2 - 1) >> MCFPS_CELL_LOG2);
        i1 = FFMIN(p->cw - 1, (x0 + mv->w + MCFPS_CELL / 2 - 1) >> MCFPS_CELL_LOG2);
        j0 = FFMAX(0, (y0 + MCFPS_CELL / 2 - 1) >> MCFPS_CELL_LOG2);
        j1 = FFMIN(p->ch - 1, (y0 + mv->h + MCFPS_CELL / 2 - 1) >> MCFPS_CELL_LOG2);
        for (int j = j0; j <= j1; j++) {
            for (int i = i0; i <= i1; i++) {
                int cx, cy;

                mcfps_cell_point(p, i, j, &cx, &cy);
                if (cx < x0 || cx >= x0 + mv->w || cy < y0 || cy >= y0 + mv->h)
                    continue;
                raster_cell(field, cells, j * p->cw + i, n, qx, qy);
                covered++;
            }
        }
    }
    if (stats)
        *stats = st;
    return covered;
}

int ff_mcfps_raster(const AVMotionVector *mvs, int nb, int source, int negate,
                    const McfpsParams *p, int16_t *field, McfpsRasterStats *stats)
{
    if (field)
        memset(field, 0, sizeof(*field) * 2 * p->cw * p->ch);
    return raster(mvs, 0, nb, source, negate, p, field, NULL, stats);
}

void ff_mcfps_raster_run(const AVMotionVector *mvs, int start, int end, int source, int negate,
                         const McfpsParams *p, atomic_uint_least64_t *cells, McfpsRasterStats *stats)
{
    raster(mvs, start, end, source, negate, p, NULL, cells, stats);
}

void ff_mcfps_raster_stats_add(McfpsRasterStats *sum, const McfpsRasterStats *run)
{
    sum->nb      += run->nb;
    sum->outside += run->outside;
    sum->right    = FFMAX(sum->right,  run->right);
    sum->bottom   = FFMAX(sum->bottom, run->bottom);
}

int ff_mcfps_raster_resolve(const McfpsParams *p, atomic_uint_least64_t *cells, int16_t *field,
                            int j0, int j1)
{
    int covered = 0;

    for (int k = j0 * p->cw; k < j1 * p->cw; k++) {
        const uint64_t tag = atomic_load_explicit(&cells[k], memory_order_relaxed);
        field[2 * k]     = tag ? (int16_t)(tag >> 16) : 0;
        field[2 * k + 1] = tag ? (int16_t)tag : 0;
        covered += !!tag;
        atomic_store_explicit(&cells[k], 0, memory_order_relaxed);
    }
    return covered;
}

/* FFmpeg builds with -fno-tree-vectorize; these integer loops are written
 * for the vectoriser */
#if defined(__GNUC__) && !defined(__clang__)
#define MCFPS_VECTORIZE __attribute__((optimize("tree-vectorize")))
#else
#define MCFPS_VECTORIZE
#endif

/* a and b in order, the lesser first */
#define SORT2(a, b) do { const int16_t lo_ = FFMIN(a, b); b = FFMAX(a, b); a = lo_; } while (0)

/**
 * mcfps_smooth_cell() of the n components out[e] of a row of cells whose
 * 3x3 neighbourhoods lie inside the grid: up, mid and down point at the same
 * component in the rows above, of and below them, a cell's neighbours are
 * two components away. The median of nine by a network of exchanges, which
 * the vectoriser takes; it equals the middle of the nine sorted.
 */
static MCFPS_VECTORIZE void median9_row(int16_t *restrict out, const int16_t *up, const int16_t *mid,
                                        const int16_t *down, int n)
{
    for (int e = 0; e < n; e++) {
        int16_t v0 = up[e - 2],   v1 = up[e],   v2 = up[e + 2];
        int16_t v3 = mid[e - 2],  v4 = mid[e],  v5 = mid[e + 2];
        int16_t v6 = down[e - 2], v7 = down[e], v8 = down[e + 2];

        /* each triple sorted, then the largest of the least, the median of
         * the middles and the least of the largest */
        SORT2(v1, v2); SORT2(v4, v5); SORT2(v7, v8);
        SORT2(v0, v1); SORT2(v3, v4); SORT2(v6, v7);
        SORT2(v1, v2); SORT2(v4, v5); SORT2(v7, v8);
        v3 = FFMAX(v0, v3); v6 = FFMAX(v3, v6);     /* largest of the least */
        v5 = FFMIN(v5, v8); v2 = FFMIN(v2, v5);     /* least of the largest */
        SORT2(v1, v4); SORT2(v4, v7); v4 = FFMAX(v1, v4); /* median of the middles */
        SORT2(v6, v4); v4 = FFMAX(v6, FFMIN(v4, v2)); /* median of the three */
        out[e] = v4;
    }
}

void ff_mcfps_smooth_rows(const McfpsParams *p, const int16_t *raw, int16_t *out, int j0, int j1)
{
    const int cw = p->cw, ch = p->ch;

    for (int j = j0; j < j1; j++) {
        if (j > 0 && j < ch - 1 && cw > 2) {
            const int16_t *mid = raw + 2 * j * cw;
            median9_row(out + 2 * j * cw + 2, mid - 2 * cw + 2, mid + 2, mid + 2 * cw + 2, 2 * (cw - 2));
            mcfps_smooth_cell(raw, out, cw, ch, 0, j);
            mcfps_smooth_cell(raw, out, cw, ch, cw - 1, j);
            continue;
        }
        for (int i = 0; i < cw; i++)
            mcfps_smooth_cell(raw, out, cw, ch, i, j);
    }
}

/** The weights of the four samples of mcfps_sample() at fractions (fx, fy) in quarter pel. */
static av_always_inline void bilinear_weights(int8_t *wt, int fx, int fy)
{
    wt[0] = (4 - fx) * (4 - fy);
    wt[1] = fx * (4 - fy);
    wt[2] = (4 - fx) * fy;
    wt[3] = fx * fy;
}

/** mcfps_sample() whose four samples, from r on, lie inside the plane; wt: bilinear_weights(). */
static av_always_inline int bilinear(const uint8_t *r, ptrdiff_t stride, const int8_t *wt)
{
    return (wt[0] * r[0] + wt[1] * r[1] + wt[2] * r[stride] + wt[3] * r[stride + 1] + 8) >> 4;
}

/**
 * Bilateral error over a w x h window (w <= MCFPS_WIN) whose bilinear
 * footprints lie inside both planes: a and b point at the top-left integer
 * samples, wt[] holds the bilinear weights of the four samples of a, then
 * of b (bilateral_sad16()). Equals the sum of mcfps_bilateral_px() over
 * the window where that is below limit, else it is some value of at least
 * limit (the rows stop once the sum reaches it).
 */
static MCFPS_VECTORIZE uint32_t window_sad(const uint8_t *a, ptrdiff_t sa, const uint8_t *b, ptrdiff_t sb,
                                           const int8_t *wt, int w, int h, uint32_t limit)
{
    uint32_t sad = 0;

    for (int y = 0; y < h && sad < limit; y++) {
        const uint8_t *a0 = a + (ptrdiff_t)y * sa, *b0 = b + (ptrdiff_t)y * sb;
        for (int x = 0; x < w; x++)
            sad += abs(bilinear(a0 + x, sa, wt) - bilinear(b0 + x, sb, wt + 4));
    }
    return sad;
}

static uint32_t bilateral_sad16_c(const uint8_t *a, ptrdiff_t a_stride,
                                  const uint8_t *b, ptrdiff_t b_stride,
                                  const int8_t *w, int h, uint32_t limit)
{
    return window_sad(a, a_stride, b, b_stride, w, 16, h, limit);
}

static uint32_t bilateral_sad_part_c(const uint8_t *a, ptrdiff_t a_stride,
                                     const uint8_t *b, ptrdiff_t b_stride,
                                     const int8_t *w, int h, uint32_t limit, int width)
{
    return window_sad(a, a_stride, b, b_stride, w, width, h, limit);
}

static void bilinear_plane_c(uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src, ptrdiff_t src_stride,
                             const int8_t *w, int width, int h)
{
    for (int y = 0; y < h; y++, dst += dst_stride, src += src_stride)
        for (int x = 0; x < width; x++)
            dst[x] = bilinear(src + x, src_stride, w);
}

static uint32_t plane_sad(const uint8_t *a, ptrdiff_t sa, const uint8_t *b, ptrdiff_t sb,
                          int w, int h, uint32_t limit)
{
    uint32_t sad = 0;

    for (int y = 0; y < h && sad < limit; y++, a += sa, b += sb)
        for (int x = 0; x < w; x++)
            sad += abs(a[x] - b[x]);
    return sad;
}

static uint32_t sad16_c(const uint8_t *a, ptrdiff_t a_stride, const uint8_t *b, ptrdiff_t b_stride,
                        int h, uint32_t limit)
{
    return plane_sad(a, a_stride, b, b_stride, 16, h, limit);
}

static uint32_t sad_part_c(const uint8_t *a, ptrdiff_t a_stride, const uint8_t *b, ptrdiff_t b_stride,
                           int h, uint32_t limit, int width)
{
    return plane_sad(a, a_stride, b, b_stride, width, h, limit);
}

void ff_mcfps_phase_rows(const McfpsDSPContext *dsp, uint8_t *const *phase,
                         const uint8_t *src, int stride, int w, int pad, int y0, int y1)
{
    const ptrdiff_t o = (ptrdiff_t)y0 * stride - pad;

    for (int f = 1; f < MCFPS_NB_PHASES && y1 > y0; f++) {
        int8_t wt[4];
        bilinear_weights(wt, f & 3, f >> 2);
        dsp->bilinear_plane(phase[f] + o, stride, src + o, stride, wt, w + 2 * pad - 1, y1 - y0);
    }
}

/**
 * The n x rows samples of plane p (pw x ph, samples step bytes apart in a
 * row) from sample (x, y) on, each clamped into the plane as mcfps_sample()
 * clamps them, into dst (rows ds bytes apart, samples packed). Inlined, so
 * that a constant n makes the copy of a row inside the plane a few moves.
 */
static av_always_inline void copy_clamped(uint8_t *dst, int ds, const uint8_t *p, int sp, int step,
                                          int pw, int ph, int x, int y, int n, int rows)
{
    /* samples [l, r) of a row lie inside; those left of them are the
     * row's first, those right of them its last */
    const int l = mcfps_clip(-x, 0, n), r = FFMAX(mcfps_clip(pw - x, 0, n), l);
    const int inside = step == 1 && !l && r == n;

    for (int j = 0; j < rows; j++, dst += ds) {
        const uint8_t *row = p + (ptrdiff_t)mcfps_clip(y + j, 0, ph - 1) * sp;
        if (inside) {
            memcpy(dst, row + x, n);
            continue;
        }
        if (l)
            memset(dst, row[0], l);
        if (step == 1 && r > l)
            memcpy(dst + l, row + x + l, r - l);
        else
            for (int i = l; i < r; i++)
                dst[i] = row[(x + i) * step];
        if (r < n)
            memset(dst + r, row[(pw - 1) * step], n - r);
    }
}

#if MCFPS_WIN != 16
#error "cell_sad() takes the windows' width from bilateral_sad16()"
#endif

/**
 * mcfps_bilateral_sad(): where every sample read lies inside the planes
 * or their pads, in place; elsewhere on copies of the footprints clamped
 * into the planes, which give the same samples. A sum that reaches limit
 * may stop there (window_sad()). The DSP functions read 17 samples a row,
 * whatever the window's width.
 */
static uint32_t cell_sad(const McfpsParams *p, const McfpsDSPContext *dsp,
                         const uint8_t *a, int sa, const uint8_t *b, int sb, int pad,
                         const uint8_t *const *pha, const uint8_t *const *phb,
                         int x0, int x1, int y0, int y1, int oax, int oay, int dx, int dy,
                         uint32_t limit)
{
    const int obx = oax + dx, oby = oay + dy;
    const int ax = x0 + (oax >> 2), ay = y0 + (oay >> 2), bx = x0 + (obx >> 2), by = y0 + (oby >> 2);
    const int fax = oax & 3, fay = oay & 3, fbx = obx & 3, fby = oby & 3;
    const int w = x1 - x0, h = y1 - y0;
    int8_t wt[8];
    uint8_t ca[(MCFPS_WIN + 1) * (MCFPS_WIN + 1)], cb[(MCFPS_WIN + 1) * (MCFPS_WIN + 1)];

    /* the window's full width, as the DSP functions read it */
    if (mcfps_window_inside(p, x0, x0 + MCFPS_WIN, y0, y1, oax, oay, dx, dy, pad)) {
        if (pha) {
            /* the samples of both windows made already */
            a = pha[MCFPS_PHASE(fax, fay)] + (ptrdiff_t)ay * sa + ax;
            b = phb[MCFPS_PHASE(fbx, fby)] + (ptrdiff_t)by * sb + bx;
            return w == MCFPS_WIN ? dsp->sad16(a, sa, b, sb, h, limit) :
                                    dsp->sad_part(a, sa, b, sb, h, limit, w);
        }
        a += (ptrdiff_t)ay * sa + ax;
        b += (ptrdiff_t)by * sb + bx;
    } else {
        copy_clamped(ca, MCFPS_WIN + 1, a, sa, 1, p->width, p->height, ax, ay, MCFPS_WIN + 1, h + 1);
        copy_clamped(cb, MCFPS_WIN + 1, b, sb, 1, p->width, p->height, bx, by, MCFPS_WIN + 1, h + 1);
        a  = ca;
        b  = cb;
        sa = sb = MCFPS_WIN + 1;
    }
    bilinear_weights(wt, fax, fay);
    bilinear_weights(wt + 4, fbx, fby);
    return w == MCFPS_WIN ? dsp->bilateral_sad16(a, sa, b, sb, wt, h, limit) :
                            dsp->bilateral_sad_part(a, sa, b, sb, wt, h, limit, w);
}

void ff_mcfps_bend_smooth_rows(const McfpsParams *p, const int16_t *fp, uint8_t *smooth, int j0, int j1)
{
    for (int j = j0; j < j1; j++)
        for (int i = 0; i < p->cw; i++)
            smooth[j * p->cw + i] = mcfps_bend_smooth(p, fp, i, j);
}

void ff_mcfps_select_rows(const McfpsParams *params, const McfpsDSPContext *dsp_ctx,
                          const uint8_t *a, int sa, const uint8_t *b, int sb, int pad,
                          const uint8_t *const *pha, const uint8_t *const *phb,
                          const int16_t *ra, const int16_t *rb, const int16_t *fa, const int16_t *fb,
                          const int16_t *fp, const uint8_t *smooth, int trust,
                          int16_t *vec, uint16_t *info, int j0, int j1)
{
    /* copies that the SAD functions, called through pointers, cannot
     * change: their fields stay in registers across the calls */
    const McfpsParams par = *params, *p = &par;
    const McfpsDSPContext dsp_copy = *dsp_ctx, *dsp = &dsp_copy;

    for (int j = j0; j < j1; j++) {
        for (int i = 0; i < p->cw; i++) {
            McfpsSearch st;
            int x0, x1, y0, y1, n;

            mcfps_window(p, i, j, &x0, &x1, &y0, &y1);
            n = (x1 - x0) * (y1 - y0);
            mcfps_search_init(p, fa, i, j, &st);
            for (int q = 0; q < MCFPS_NB_PROBES; q++) {
                uint32_t limit = UINT32_MAX;
                int dx, dy, oax, oay;
                if (!mcfps_search_probe(p, ra, rb, fa, fb, i, j, &st, q, &dx, &dy))
                    continue;
                mcfps_search_offsets(p, fa, fp, smooth, i, j, dx, dy, &oax, &oay);
                /* a probe whose error reaches best_cost less its vector cost
                 * cannot win, and only the winner's error and that of
                 * (0, 0) are used: the others may stop early */
                if (dx || dy) {
                    const uint32_t vc = mcfps_search_vector_cost(p, &st, dx, dy, n);
                    limit = st.best_cost > vc ? st.best_cost - vc : 0;
                }
                mcfps_search_update(p, &st, q, dx, dy,
                                    cell_sad(p, dsp, a, sa, b, sb, pad, pha, phb, x0, x1, y0, y1, oax, oay, dx, dy, limit), n);
            }
            info[j * p->cw + i] = mcfps_search_finish(p, fa, fb, fp, smooth, i, j, &st, n, trust, vec);
        }
    }
}

void ff_mcfps_check_rows(const McfpsParams *p, const int16_t *d, int phi,
                         const uint8_t *pp, int sp, const uint8_t *a, int sa, const uint8_t *b, int sb,
                         int y0, int y1, uint64_t *em, uint64_t *eb)
{
    const int w = p->width, h = p->height;
    uint64_t sum_mc = 0, sum_avg = 0;

    for (int y = y0; y < y1; y += MCFPS_CHECK_STEP) {
        const int16_t *dr = d + 2 * (y >> MCFPS_CELL_LOG2) * p->cw;
        const uint8_t *ra = a + (ptrdiff_t)y * sa, *rp = pp + (ptrdiff_t)y * sp, *rb = b + (ptrdiff_t)y * sb;

        for (int i = 0; i < p->cw; i++) {
            const int x0 = i * MCFPS_CELL, x1 = FFMIN(x0 + MCFPS_CELL, w);
            const int dx = dr[2 * i], dy = dr[2 * i + 1];
            const int oax = mcfps_off_a(dx, phi), oay = mcfps_off_a(dy, phi);
            const int pdx = oax >> 2, pdy = oay >> 2, bdx = (oax + dx) >> 2, bdy = (oay + dy) >> 2;
            const int fpx = oax & 3, fpy = oay & 3, fbx = (oax + dx) & 3, fby = (oay + dy) & 3;
            const int last = x1 - 1 - (x1 - 1 - x0) % MCFPS_CHECK_STEP;

            if (FFMIN(pdx, bdx) + x0 < 0 || FFMAX(pdx, bdx) + last + 1 > w - 1 ||
                FFMIN(pdy, bdy) + y < 0 || FFMAX(pdy, bdy) + y + 1 > h - 1) {
                /* an end's samples clamped, or outside: mcfps_check_px() */
                for (int x = x0; x < x1; x += MCFPS_CHECK_STEP) {
                    int e_mc, e_avg;
                    mcfps_check_px(p, d, phi, pp, sp, a, sa, b, sb, x, y, &e_mc, &e_avg);
                    sum_mc  += e_mc;
                    sum_avg += e_avg;
                }
                continue;
            }
            /* both ends' bilinear footprints inside the picture, at the
             * cell's fractions: mcfps_sample() without its clamps */
            {
                const uint8_t *p0 = pp + (ptrdiff_t)(y + pdy) * sp + pdx;
                const uint8_t *b0 = b + (ptrdiff_t)(y + bdy) * sb + bdx;
                int8_t wp[4], wb[4];

                bilinear_weights(wp, fpx, fpy);
                bilinear_weights(wb, fbx, fby);
                for (int x = x0; x < x1; x += MCFPS_CHECK_STEP) {
                    const int vp = bilinear(p0 + x, sp, wp), vb = bilinear(b0 + x, sb, wb);
                    const int e1 = mcfps_blend_pixel(vp, vb, phi) - ra[x];
                    const int e0 = mcfps_blend_pixel(rp[x], rb[x], phi) - ra[x];
                    sum_mc  += e1 * e1;
                    sum_avg += e0 * e0;
                }
            }
        }
    }
    *em = sum_mc;
    *eb = sum_avg;
}

#if MCFPS_VEC_N != 4
#error "ff_mcfps_render_rows() compares a cell's four int16_t vector entries as one 64-bit word"
#endif

#define TILE (MCFPS_CELL)   ///< largest tile: the pixels between four cell centres

#if 4 * MCFPS_CELL * MCFPS_CELL * MCFPS_OBMC_RMAX > INT16_MAX
#error "mix_sums() keeps the OBMC weights in int16_t"
#endif

/**
 * 4-tap prediction (mcfps_sample4()) of a w x h block whose footprint lies
 * inside the plane: src points at the integer sample of the block's first
 * pixel, taps[] holds mcfps_tap() of the fractions in 1/32 pel in x, then in
 * y. Rows of out are TILE apart.
 */
static MCFPS_VECTORIZE void predict_tile(const uint8_t *src, ptrdiff_t stride, const int8_t *taps,
                                         int w, int h, int16_t *out)
{
    /* int16_t taps: 16-bit multiplies, widening ones in the vertical pass */
    const int16_t h0 = taps[0], h1 = taps[1], h2 = taps[2], h3 = taps[3];
    const int16_t v0 = taps[4], v1 = taps[5], v2 = taps[6], v3 = taps[7];
    /* horizontal sums in [-10 * 255, 74 * 255]: int16 */
    int16_t tmp[(TILE + 3) * TILE];

    src -= stride + 1;
    for (int y = 0; y < h + 3; y++) {
        const uint8_t *r = src + (ptrdiff_t)y * stride;
        for (int x = 0; x < w; x++)
            tmp[y * TILE + x] = h0 * r[x] + h1 * r[x + 1] + h2 * r[x + 2] + h3 * r[x + 3];
    }
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const int v = v0 * tmp[y * TILE + x] + v1 * tmp[(y + 1) * TILE + x] +
                          v2 * tmp[(y + 2) * TILE + x] + v3 * tmp[(y + 3) * TILE + x];
            out[y * TILE + x] = av_clip_uint8((v + 2048) >> 12);
        }
    }
}

static void predict8_4tap_c(int16_t *out, const uint8_t *src, ptrdiff_t stride, const int8_t *taps, int h)
{
    predict_tile(src, stride, taps, 8, h, out);
}

static void predict4_4tap_c(int16_t *out, const uint8_t *src, ptrdiff_t stride, const int8_t *taps, int h)
{
    predict_tile(src, stride, taps, 4, h, out);
}

static void predict4x2_4tap_c(int16_t *out, const uint8_t *src0, const uint8_t *src1, ptrdiff_t stride,
                              const int8_t *taps, int h)
{
    predict_tile(src0, stride, taps, 4, h, out);
    predict_tile(src1, stride, taps, 4, h, out + 4);
}

/**
 * predict_tile() with the 8-tap luma filter of mcfps_sample8(): the taps of
 * mcfps_tap8() in x, then in y (predict8_8tap()).
 */
static MCFPS_VECTORIZE void predict_tile8(const uint8_t *src, ptrdiff_t stride, const int8_t *taps,
                                          int w, int h, int16_t *out)
{
    /* int16_t taps: 16-bit multiplies, widening ones in the vertical pass */
    int16_t hc[8], vc[8];
    /* horizontal sums in [-24 * 255, 88 * 255]: int16 */
    int16_t tmp[(TILE + 7) * TILE];

    for (int t = 0; t < 8; t++) {
        hc[t] = taps[t];
        vc[t] = taps[8 + t];
    }
    src -= 3 * stride + 3;
    for (int y = 0; y < h + 7; y++) {
        const uint8_t *r = src + (ptrdiff_t)y * stride;
        for (int x = 0; x < w; x++)
            tmp[y * TILE + x] = hc[0] * r[x]     + hc[1] * r[x + 1] + hc[2] * r[x + 2] + hc[3] * r[x + 3] +
                                hc[4] * r[x + 4] + hc[5] * r[x + 5] + hc[6] * r[x + 6] + hc[7] * r[x + 7];
    }
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const int16_t *c = tmp + y * TILE + x;
            const int v = vc[0] * c[0]        + vc[1] * c[TILE]     + vc[2] * c[2 * TILE] + vc[3] * c[3 * TILE] +
                          vc[4] * c[4 * TILE] + vc[5] * c[5 * TILE] + vc[6] * c[6 * TILE] + vc[7] * c[7 * TILE];
            out[y * TILE + x] = av_clip_uint8((v + 2048) >> 12);
        }
    }
}

static void predict8_8tap_c(int16_t *out, const uint8_t *src, ptrdiff_t stride, const int8_t *taps, int h)
{
    predict_tile8(src, stride, taps, 8, h, out);
}

/**
 * Whether the footprints of a filter of 2 * half taps at the positions
 * pos0 .. pos1 (units of 1/2^s pixel) lie inside [0, size): then no sample
 * is clamped and no end lies outside the plane.
 */
static int inside(int pos0, int pos1, int s, int size, int half)
{
    return (pos0 >> s) >= half - 1 && (pos1 >> s) + half < size;
}

/** taps of a 4-tap prediction at (px, py), in units of 1/2^sx, 1/2^sy pixel: mcfps_tap() in x, then in y */
static const int8_t *chroma_taps(int8_t *taps, int px, int py, int sx, int sy)
{
    for (int t = 0; t < 4; t++) {
        taps[t]     = mcfps_tap(mcfps_frac32(px, sx), t);
        taps[4 + t] = mcfps_tap(mcfps_frac32(py, sy), t);
    }
    return taps;
}

/** room for the samples one prediction reads (footprints()) */
#define FOOTPRINT_SIZE ((TILE + 7) * (TILE + 7))

/**
 * The samples that the prediction of a w x h block reads in nb planes of
 * one geometry and stride, pl[0]'s (luma: !pl->lx && !pl->ly, which a
 * caller may know as a constant), whose samples are src[n], the block's
 * first pixel at (x0, y0): src[n] itself where the footprint lies inside
 * the planes or their pads, which hold what the clamps would read;
 * elsewhere copies into packed (FOOTPRINT_SIZE bytes a plane) with every
 * sample clamped into the plane, as mcfps_sample8() and mcfps_sample4()
 * clamp them. The block's first sample of plane n goes to out[n]; returns
 * the stride of the samples.
 */
static av_always_inline int footprints(const McfpsPlane *pl, int luma, int nb, const uint8_t *const *src,
                                       int stride, int x0, int y0, int w, int h, uint8_t *packed,
                                       const uint8_t **out)
{
    const int half = luma ? 4 : 2;      /* 8 taps on luma-sized planes, 4 on chroma */
    /* the samples of a row that the DSP function reads: luma and chroma
     * tiles wider than 4 are predicted 8 samples wide, narrower chroma
     * tiles 4 wide, the samples beyond w unused */
    const int narrow = !luma && w <= TILE / 2;
    const int fw = luma ? TILE + 7 : narrow ? 8 : TILE + 3, fh = h + 2 * half - 1;
    const int left = x0 - half + 1, top = y0 - half + 1, pad = pl->pad;

    if (pl->step == 1 && left >= -pad && left + fw <= pl->w + pad &&
                         top  >= -pad && top + fh  <= pl->h + pad) {
        for (int n = 0; n < nb; n++)
            out[n] = src[n] + (ptrdiff_t)y0 * stride + x0;
        return stride;
    }
    for (int n = 0; n < nb; n++) {
        uint8_t *dst = packed + n * FOOTPRINT_SIZE;
        /* clamping changes nothing where the footprint lies inside; a
         * constant width makes the copy of each row a few moves */
        if (luma)
            copy_clamped(dst, TILE + 7, src[n], stride, pl->step, pl->w, pl->h, left, top, TILE + 7, fh);
        else if (narrow)
            copy_clamped(dst, 8, src[n], stride, pl->step, pl->w, pl->h, left, top, 8, fh);
        else
            copy_clamped(dst, TILE + 3, src[n], stride, pl->step, pl->w, pl->h, left, top, TILE + 3, fh);
        out[n] = dst + (half - 1) * fw + half - 1;
    }
    return fw;
}

/**
 * The prediction (mcfps_render_term()'s va or vb) of a w x h block of plane
 * pl of src, its first pixel's end at (px, py) in units of 1/(16 * 2^l)
 * pixel, from its footprints(). Rows of out are TILE apart.
 */
static void predict_block(const McfpsDSPContext *dsp, const McfpsPlane *pl, const uint8_t *src, int stride,
                          int px, int py, int w, int h, int16_t *out)
{
    const int sx = 4 + pl->lx, sy = 4 + pl->ly, luma = !pl->lx && !pl->ly;
    /* the footprint's samples, packed: interleaved chroma, or clamped */
    uint8_t packed[FOOTPRINT_SIZE];
    int8_t taps[16];

    stride = footprints(pl, luma, 1, &src, stride, px >> sx, py >> sy, w, h, packed, &src);
    if (luma) {
        for (int t = 0; t < 8; t++) {
            taps[t]     = mcfps_tap8(px & 15, t);
            taps[8 + t] = mcfps_tap8(py & 15, t);
        }
        dsp->predict8_8tap(out, src, stride, taps, h);
        return;
    }
    if (w <= TILE / 2)
        dsp->predict4_4tap(out, src, stride, chroma_taps(taps, px, py, sx, sy), h);
    else
        dsp->predict8_4tap(out, src, stride, chroma_taps(taps, px, py, sx, sy), h);
}

/**
 * predict_block() of the same block of two chroma planes 4 samples wide
 * (pl and the next plane, of one geometry, stride and pad) from side s
 * (0: a, 1: b): the first plane's prediction in columns 0 .. 3 of out, the
 * second's in columns 4 .. 7.
 */
static void predict_pair(const McfpsDSPContext *dsp, const McfpsPlane *pl, int s,
                         int px, int py, int h, int16_t *out)
{
    const int sx = 4 + pl->lx, sy = 4 + pl->ly;
    const uint8_t *const src[2] = { s ? pl[0].b : pl[0].a, s ? pl[1].b : pl[1].a };
    const uint8_t *f[2];
    uint8_t packed[2 * FOOTPRINT_SIZE];
    int8_t taps[8];
    const int stride = footprints(pl, 0, 2, src, s ? pl->sb : pl->sa, px >> sx, py >> sy, TILE / 2, h,
                                  packed, f);

    dsp->predict4x2_4tap(out, f[0], f[1], stride, chroma_taps(taps, px, py, sx, sy), h);
}

/**
 * The prediction of side s (0: from a, 1: from b) of a w x h block of plane
 * pl (predict_block()), and where pair, that of the next plane beside it
 * (predict_pair()).
 */
static void predict(const McfpsDSPContext *dsp, const McfpsPlane *pl, int pair, int s,
                    int px, int py, int w, int h, int16_t *out)
{
    if (pair)
        predict_pair(dsp, pl, s, px, py, h, out);
    else
        predict_block(dsp, pl, s ? pl->b : pl->a, s ? pl->sb : pl->sa, px, py, w, h, out);
}

/**
 * The weighted sums of a w x h tile from its four cells' terms (c: column
 * c & 1, row c >> 1): acc = sum wt P and wsum = sum wt over the cells, with
 * P = (m mc + (256 - m) avg + 128) >> 8, mc = ((256 - cb) va + cb vb + 128) >> 8,
 * va = ends[2 c], vb = ends[2 c + 1], cb = coef[c], m = coef[4 + c] and
 * wt = wx[TILE (c & 1) + x] wyr[4 y + c]. The weights and terms fit int16_t
 * (wx wy r at most 2 MCFPS_CELL * 2 MCFPS_CELL * MCFPS_OBMC_RMAX): 16-bit
 * and widening multiplies. Rows are TILE apart.
 */
static MCFPS_VECTORIZE void mix_sums(int *restrict acc, int *restrict wsum, const int16_t *const *ends,
                                     const int16_t *avg, const int16_t *coef, const int16_t *wx,
                                     const int16_t *wyr, int w, int h)
{
    const int16_t *va0 = ends[0], *vb0 = ends[1], *va1 = ends[2], *vb1 = ends[3];
    const int16_t *va2 = ends[4], *vb2 = ends[5], *va3 = ends[6], *vb3 = ends[7];
    const int16_t cb0 = coef[0], cb1 = coef[1], cb2 = coef[2], cb3 = coef[3];
    const int16_t ca0 = MCFPS_PHI_ONE - cb0, ca1 = MCFPS_PHI_ONE - cb1;
    const int16_t ca2 = MCFPS_PHI_ONE - cb2, ca3 = MCFPS_PHI_ONE - cb3;
    const int16_t m0 = coef[4], m1 = coef[5], m2 = coef[6], m3 = coef[7];
    const int16_t n0 = MCFPS_PHI_ONE - m0, n1 = MCFPS_PHI_ONE - m1;
    const int16_t n2 = MCFPS_PHI_ONE - m2, n3 = MCFPS_PHI_ONE - m3;

    for (int y = 0; y < h; y++) {
        const int16_t w0 = wyr[4 * y], w1 = wyr[4 * y + 1], w2 = wyr[4 * y + 2], w3 = wyr[4 * y + 3];

        for (int x = 0; x < w; x++) {
            const int o = y * TILE + x;
            const int16_t t0 = wx[x] * w0, t1 = wx[TILE + x] * w1;
            const int16_t t2 = wx[x] * w2, t3 = wx[TILE + x] * w3;
            const int16_t mc0 = (ca0 * va0[o] + cb0 * vb0[o] + 128) >> 8;
            const int16_t mc1 = (ca1 * va1[o] + cb1 * vb1[o] + 128) >> 8;
            const int16_t mc2 = (ca2 * va2[o] + cb2 * vb2[o] + 128) >> 8;
            const int16_t mc3 = (ca3 * va3[o] + cb3 * vb3[o] + 128) >> 8;
            acc[o]  = t0 * (int16_t)((m0 * mc0 + n0 * avg[o] + 128) >> 8) +
                      t1 * (int16_t)((m1 * mc1 + n1 * avg[o] + 128) >> 8) +
                      t2 * (int16_t)((m2 * mc2 + n2 * avg[o] + 128) >> 8) +
                      t3 * (int16_t)((m3 * mc3 + n3 * avg[o] + 128) >> 8);
            wsum[o] = t0 + t1 + t2 + t3;
        }
    }
}

/**
 * The samples of a tile's row: the rounded quotients of the weighted sums,
 * (acc + wsum / 2) / wsum, in double, which is exact (both terms lie below
 * 2^31, the quotient below 2^8) and which the vectoriser takes.
 */
static MCFPS_VECTORIZE void normalize_row(uint8_t *restrict dst, int step, const int *acc, const int *wsum, int w)
{
    for (int x = 0; x < w; x++)
        dst[x * step] = (int)((double)(acc[x] + wsum[x] / 2) / wsum[x]);
}

/** The samples of a w x h tile (McfpsDSPContext.mix8() of any width), step bytes apart in a row. */
static void mix_tile(uint8_t *dst, ptrdiff_t dst_stride, int step, const int16_t *const *ends,
                     const int16_t *avg, const int16_t *coef, const int16_t *wx, const int16_t *wyr,
                     int w, int h)
{
    int acc[TILE * TILE], wsum[TILE * TILE];

    mix_sums(acc, wsum, ends, avg, coef, wx, wyr, w, h);
    for (int y = 0; y < h; y++)
        normalize_row(dst + y * dst_stride, step, acc + y * TILE, wsum + y * TILE, w);
}

static void mix8_c(uint8_t *dst, ptrdiff_t dst_stride, const int16_t *const *ends, const int16_t *avg,
                   const int16_t *coef, const int16_t *wx, const int16_t *wyr, int h)
{
    mix_tile(dst, dst_stride, 1, ends, avg, coef, wx, wyr, TILE, h);
}

static void mix4_c(uint8_t *dst, ptrdiff_t dst_stride, const int16_t *const *ends, const int16_t *avg,
                   const int16_t *coef, const int16_t *wx, const int16_t *wyr, int h)
{
    mix_tile(dst, dst_stride, 1, ends, avg, coef, wx, wyr, TILE / 2, h);
}

av_cold void ff_mcfps_dsp_init(McfpsDSPContext *c)
{
    c->bilateral_sad16    = bilateral_sad16_c;
    c->bilateral_sad_part = bilateral_sad_part_c;
    c->bilinear_plane     = bilinear_plane_c;
    c->sad16              = sad16_c;
    c->sad_part           = sad_part_c;
    c->predict8_8tap      = predict8_8tap_c;
    c->predict8_4tap      = predict8_4tap_c;
    c->predict4_4tap      = predict4_4tap_c;
    c->predict4x2_4tap    = predict4x2_4tap_c;
    c->mix8               = mix8_c;
    c->mix4               = mix4_c;
#if ARCH_X86 && HAVE_X86ASM
    ff_mcfps_dsp_init_x86(c);
#endif
}

/** The plain average at phase phi (mcfps_blend_pixel()) of a w x h tile, its rows TILE apart. */
static av_always_inline void blend_tile_c(int16_t *avg, const uint8_t *a, ptrdiff_t sa,
                                          const uint8_t *b, ptrdiff_t sb, int step, int phi, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            avg[y * TILE + x] = mcfps_blend_pixel(a[y * sa + x * step], b[y * sb + x * step], phi);
}

/**
 * blend_tile_c() of a tile n samples wide, n constant, in 16-bit lanes: the
 * sum (256 - phi) a + phi b + 128 is below 2^16.
 */
static av_always_inline void blend_tile_n(int16_t *avg, const uint8_t *a, ptrdiff_t sa,
                                          const uint8_t *b, ptrdiff_t sb, int phi, int n, int h)
{
    const uint16_t wa = MCFPS_PHI_ONE - phi, wb = phi;

    for (int y = 0; y < h; y++)
        for (int x = 0; x < n; x++)
            avg[y * TILE + x] = (uint16_t)(a[y * sa + x] * wa + b[y * sb + x] * wb + 128) >> 8;
}

static MCFPS_VECTORIZE void blend_tile(int16_t *avg, const uint8_t *a, ptrdiff_t sa,
                                       const uint8_t *b, ptrdiff_t sb, int step, int phi, int w, int h)
{
    if (step == 1 && w == TILE)
        blend_tile_n(avg, a, sa, b, sb, phi, TILE, h);
    else if (step == 1 && w == TILE / 2)
        blend_tile_n(avg, a, sa, b, sb, phi, TILE / 2, h);
    else if (step == 1)
        blend_tile_c(avg, a, sa, b, sb, 1, phi, w, h);
    else
        blend_tile_c(avg, a, sa, b, sb, step, phi, w, h);
}

/**
 * Rows [y0, y1) of nb planes of the same geometry (the chroma planes), tile
 * by tile: a tile is the rectangle of pixels that share their four cells
 * (mcfps_render_pixel()), whose ends, weights and kinds of term the planes
 * share. A cell whose ends lie inside the plane over the whole tile is
 * predicted as one block, the others pixel by pixel; the sums equal
 * mcfps_render_pixel()'s.
 */
void ff_mcfps_render_rows(const McfpsParams *p, const McfpsDSPContext *dsp, const McfpsPlane *planes, int nb,
                          const int16_t *vec, const uint16_t *info, int y0, int y1)
{
    const McfpsPlane *const geo = &planes[0];
    const int lx = geo->lx, ly = geo->ly, sx = 4 + lx, sy = 4 + ly, phi = p->phi, step = geo->step;
    const int tw = TILE >> lx, th = TILE >> ly;
    const int half = !lx && !ly ? 4 : 2;    /* 8 taps on luma-sized planes, 4 on chroma */

    /* tile j0 covers rows [th j0 + th / 2, th j0 + th / 2 + th), from j0 = -1 */
    for (int tj = ((y0 + th / 2) >> (MCFPS_CELL_LOG2 - ly)) - 1; ; tj++) {
        const int ty0 = FFMAX(tj * th + th / 2, y0), ty1 = FFMIN(tj * th + th / 2 + th, y1);
        if (ty0 >= y1)
            break;
        if (ty0 >= ty1)
            continue;
        for (int ti = -1; ti * tw + tw / 2 < geo->w; ti++) {
            const int tx0 = FFMAX(ti * tw + tw / 2, 0), tx1 = FFMIN(ti * tw + tw / 2 + tw, geo->w);
            const int w = tx1 - tx0, h = ty1 - ty0;
            DECLARE_ALIGNED(16, int16_t, avg)[TILE * TILE];
            DECLARE_ALIGNED(16, int16_t, pred)[4][2][TILE * TILE];
            DECLARE_ALIGNED(16, int16_t, wx)[2][TILE];
            /* each cell's term: cb and m, and weight wy r by row */
            int16_t coef[8], wyr[TILE][4], wy[2][TILE];
            uint64_t cell_v[4];     /* each cell's vector entries, as one word */
            int k_of[4], ends_of[4][4], edge[4];

            /* window weights of the left or right, upper or lower cell */
            for (int x = 0; x < w; x++) {
                const int tx = (((tx0 + x) << (lx + 1)) - MCFPS_CELL + 1) & (2 * MCFPS_CELL - 1);
                wx[1][x] = tx;
                wx[0][x] = 2 * MCFPS_CELL - tx;
            }
            for (int y = 0; y < h; y++) {
                const int ty = (((ty0 + y) << (ly + 1)) - MCFPS_CELL + 1) & (2 * MCFPS_CELL - 1);
                wy[1][y] = ty;
                wy[0][y] = 2 * MCFPS_CELL - ty;
            }
            for (int c = 0; c < 4; c++) {
                const int ci = mcfps_clip(ti + (c & 1), 0, p->cw - 1);
                const int cj = mcfps_clip(tj + (c >> 1), 0, p->ch - 1);
                const int k  = cj * p->cw + ci;
                const int16_t *v = vec + MCFPS_VEC_N * k;
                const int m  = MCFPS_INFO_M(info[k]), side = MCFPS_INFO_SIDE(info[k]);
                const int ex = (w - 1) << sx, ey = (h - 1) << sy;
                int *e = ends_of[c];

                mcfps_render_ends(tx0, ty0, v[0], v[1], v[2], v[3], phi, lx, ly, &e[0], &e[1], &e[2], &e[3]);
                k_of[c]   = k;
                cell_v[c] = AV_RN64(v);
                for (int y = 0; y < h; y++)
                    wyr[y][c] = wy[c >> 1][y] * MCFPS_INFO_R(info[k]);
                /* only where a footprint crosses an edge of the plane can
                 * an end leave it; while the ends lie inside over the whole
                 * tile, the term is still the block's, its samples clamped
                 * as predict_block() reads them */
                edge[c] = (!inside(e[0], e[0] + ex, sx, geo->w, half) ||
                           !inside(e[2], e[2] + ex, sx, geo->w, half) ||
                           !inside(e[1], e[1] + ey, sy, geo->h, half) ||
                           !inside(e[3], e[3] + ey, sy, geo->h, half)) &&
                          (mcfps_end_outside(geo->w, geo->h, sx, sy, e[0], e[1]) ||
                           mcfps_end_outside(geo->w, geo->h, sx, sy, e[0] + ex, e[1] + ey) ||
                           mcfps_end_outside(geo->w, geo->h, sx, sy, e[2], e[3]) ||
                           mcfps_end_outside(geo->w, geo->h, sx, sy, e[2] + ex, e[3] + ey));
                if (edge[c]) {
                    /* the term itself takes the place of the prediction, unfaded */
                    coef[c]     = 0;
                    coef[4 + c] = MCFPS_PHI_ONE;
                } else {
                    /* m = 0: the term is the plain average, (256 avg + 128) >> 8 */
                    coef[c]     = !m                     ? 0 :
                                  side == MCFPS_SIDE_BOTH ? phi :
                                  side == MCFPS_SIDE_B    ? MCFPS_PHI_ONE : 0;
                    coef[4 + c] = m;
                }
            }
            for (int n = 0; n < nb; n++) {
                const McfpsPlane *pl = &planes[n];
                /* two chroma planes 4 samples wide at once, the second's
                 * samples in columns TILE / 2 .. TILE - 1 of the buffers */
                const int pair = n + 1 < nb && half == 2 && w <= TILE / 2 && step == 1 &&
                                 pl[1].sa == pl->sa && pl[1].sb == pl->sb && pl[1].pad == pl->pad;
                const int16_t *va_of[4] = { NULL }, *vb_of[4] = { NULL };
                const int16_t *ends[2][8];

                for (int k = 0; k <= pair; k++)
                    blend_tile(avg + k * TILE / 2, pl[k].a + (ptrdiff_t)ty0 * pl[k].sa + tx0 * step, pl[k].sa,
                               pl[k].b + (ptrdiff_t)ty0 * pl[k].sb + tx0 * step, pl[k].sb, step, phi, w, h);
                for (int c = 0; c < 4; c++) {
                    const int k = k_of[c], side = MCFPS_INFO_SIDE(info[k]);
                    const int pax = ends_of[c][0], pay = ends_of[c][1];
                    const int pbx = ends_of[c][2], pby = ends_of[c][3];

                    if (edge[c]) {
                        /* an end leaves the plane somewhere in the tile: both
                         * predictions from clamped copies, mcfps_render_term()'s
                         * test of the ends sample by sample */
                        int16_t *term = pred[c][0];

                        predict(dsp, pl, pair, 0, pax, pay, w, h, pred[c][0]);
                        predict(dsp, pl, pair, 1, pbx, pby, w, h, pred[c][1]);
                        for (int y = 0; y < h; y++) {
                            for (int x = 0; x < w; x++) {
                                for (int e = 0; e <= pair; e++) {
                                    const int o = y * TILE + x + e * TILE / 2;
                                    term[o] = mcfps_render_mix(p, pl->w, pl->h, lx, ly, info[k],
                                                               pax + (x << sx), pay + (y << sy),
                                                               pbx + (x << sx), pby + (y << sy),
                                                               pred[c][0][o], pred[c][1][o], avg[o]);
                                }
                            }
                        }
                        ends[0][2 * c] = ends[0][2 * c + 1] = term;
                        continue;
                    }
                    if (!coef[4 + c]) {
                        ends[0][2 * c] = ends[0][2 * c + 1] = avg;
                        continue;
                    }
                    /* a predicted block depends on the vector and its bend
                     * alone: a neighbour of the same has made it already */
                    for (int e = 0; e < c; e++) {
                        if (cell_v[e] != cell_v[c])
                            continue;
                        if (!va_of[c])
                            va_of[c] = va_of[e];
                        if (!vb_of[c])
                            vb_of[c] = vb_of[e];
                    }
                    if (side != MCFPS_SIDE_B && !va_of[c]) {
                        predict(dsp, pl, pair, 0, pax, pay, w, h, pred[c][0]);
                        va_of[c] = pred[c][0];
                    }
                    if (side != MCFPS_SIDE_A && !vb_of[c]) {
                        predict(dsp, pl, pair, 1, pbx, pby, w, h, pred[c][1]);
                        vb_of[c] = pred[c][1];
                    }
                    ends[0][2 * c]     = side == MCFPS_SIDE_B ? vb_of[c] : va_of[c];
                    ends[0][2 * c + 1] = side == MCFPS_SIDE_A ? va_of[c] : vb_of[c];
                }
                for (int i = 0; i < 8 && pair; i++)
                    ends[1][i] = ends[0][i] + TILE / 2;
                for (int k = 0; k <= pair; k++) {
                    const int16_t *const *e = ends[k], *t_avg = avg + k * TILE / 2;
                    uint8_t *dst = pl[k].dst + (ptrdiff_t)ty0 * pl[k].sd + tx0 * step;

                    if (w == TILE && step == 1)
                        dsp->mix8(dst, pl[k].sd, e, t_avg, coef, wx[0], wyr[0], h);
                    else if (w == TILE / 2 && step == 1)
                        dsp->mix4(dst, pl[k].sd, e, t_avg, coef, wx[0], wyr[0], h);
                    else
                        mix_tile(dst, pl[k].sd, step, e, t_avg, coef, wx[0], wyr[0], w, h);
                }
                n += pair;
            }
        }
    }
}

void ff_mcfps_blend_rows(const McfpsPlane *pl, int phi, int y0, int y1)
{
    for (int y = y0; y < y1; y++) {
        const uint8_t *a = pl->a + (ptrdiff_t)y * pl->sa, *b = pl->b + (ptrdiff_t)y * pl->sb;
        uint8_t *dst = pl->dst + (ptrdiff_t)y * pl->sd;
        for (int x = 0; x < pl->w; x++)
            dst[x * pl->step] = mcfps_blend_pixel(a[x * pl->step], b[x * pl->step], phi);
    }
}

/**
 * Sort keys[0..n) in ascending order, tmp holding n more: LSD radix sort,
 * digits of 11, 11 and 10 bits (a pair's keys are sorted once per pair; at
 * 1080p that is up to 64800 keys, which qsort takes milliseconds over).
 */
static void sort_u32(uint32_t *keys, uint32_t *tmp, int n)
{
    static const int shift[3] = { 0, 11, 22 };
    uint32_t *src = keys, *dst = tmp;

    for (int d = 0; d < 3; d++) {
        int count[2048 + 1] = { 0 };
        for (int i = 0; i < n; i++)
            count[((src[i] >> shift[d]) & 2047) + 1]++;
        for (int i = 0; i < 2048; i++)
            count[i + 1] += count[i];
        for (int i = 0; i < n; i++)
            dst[count[(src[i] >> shift[d]) & 2047]++] = src[i];
        FFSWAP(uint32_t *, src, dst);
    }
    /* three passes: the result is in tmp */
    memcpy(keys, src, n * sizeof(*keys));
}

/** Vectors within this many quarter pels per component are counted in a table, the others sorted. */
#define DOMINANT_R 127
#define DOMINANT_SIDE (2 * DOMINANT_R + 1)

/* (vx, vy) + 32768 as one ascending key: vy major, as the table's index */
static av_always_inline uint32_t dominant_key(int vx, int vy)
{
    return (uint32_t)(vy + 32768) << 16 | (uint32_t)(vx + 32768);
}

static av_always_inline int dominant_counted(int vx, int vy)
{
    return FFABS(vx) <= DOMINANT_R && FFABS(vy) <= DOMINANT_R;
}

static av_always_inline int dominant_index(int vx, int vy)
{
    return (vy + DOMINANT_R) * DOMINANT_SIDE + vx + DOMINANT_R;
}

int ff_mcfps_dominant(McfpsDominant *d, const McfpsParams *p, const int16_t *ra, const int16_t *rb,
                      int *gx, int *gy)
{
    const int cells = p->cw * p->ch;
    uint32_t best = 0, best_n = 0;
    int n = 0;

    *gx = *gy = 0;
    if (!d->count && !(d->count = av_calloc(DOMINANT_SIDE * DOMINANT_SIDE, sizeof(*d->count))))
        return AVERROR(ENOMEM);
    av_fast_malloc(&d->keys, &d->keys_size, 4 * (size_t)cells * sizeof(*d->keys));
    if (!d->keys)
        return AVERROR(ENOMEM);
    /* the most frequent vector of the table as it is counted: an entry is
     * compared when it reaches its final count, so ties go to the least key */
    for (int f = 0; f < 2; f++) {
        const int16_t *v = f ? rb : ra;
        for (int k = 0; k < cells; k++) {
            const int vx = v[2 * k], vy = v[2 * k + 1];
            if (!vx && !vy)
                continue;
            if (dominant_counted(vx, vy)) {
                const uint32_t c = ++d->count[dominant_index(vx, vy)];
                const uint32_t key = dominant_key(vx, vy);
                if (c > best_n || (c == best_n && key < best)) {
                    best_n = c;
                    best   = key;
                }
            } else {
                d->keys[n++] = dominant_key(vx, vy);
            }
        }
    }
    /* the table is zero again for the next pair: only what was counted */
    for (int f = 0; f < 2; f++) {
        const int16_t *v = f ? rb : ra;
        for (int k = 0; k < cells; k++) {
            const int vx = v[2 * k], vy = v[2 * k + 1];
            if (dominant_counted(vx, vy))
                d->count[dominant_index(vx, vy)] = 0;
        }
    }
    if (n) {
        uint32_t *keys = d->keys;
        sort_u32(keys, keys + 2 * cells, n);
        for (int i = 0, run = 0; i < n; i++) {
            run = i && keys[i] == keys[i - 1] ? run + 1 : 1;
            if (run > best_n || (run == best_n && keys[i] < best)) {
                best_n = run;
                best   = keys[i];
            }
        }
    }
    if (best_n) {
        *gx = (int)(best & 0xffff) - 32768;
        *gy = (int)(best >> 16) - 32768;
    }
    return 0;
}

av_cold void ff_mcfps_dominant_uninit(McfpsDominant *d)
{
    av_freep(&d->count);
    av_freep(&d->keys);
    d->keys_size = 0;
}

int ff_mcfps_format(McfpsFormat *f, int width, int height, enum AVPixelFormat sw_format)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(sw_format);
    const int nb = desc ? desc->nb_components : 0;

    memset(f, 0, sizeof(*f));
    if (!desc || (desc->flags & (AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL |
                                 AV_PIX_FMT_FLAG_BITSTREAM)) ||
        nb <= 0 || nb > MCFPS_MAX_PLANES || width <= 0 || height <= 0)
        return AVERROR(EINVAL);
    f->width           = width;
    f->height          = height;
    f->nb_planes       = nb;
    f->nb_frame_planes = av_pix_fmt_count_planes(sw_format);
    for (int i = 0; i < nb; i++) {
        const AVComponentDescriptor *c = &desc->comp[i];
        const int chroma = i == 1 || i == 2;
        f->lx[i]     = chroma ? desc->log2_chroma_w : 0;
        f->ly[i]     = chroma ? desc->log2_chroma_h : 0;
        f->w[i]      = AV_CEIL_RSHIFT(width, f->lx[i]);
        f->h[i]      = AV_CEIL_RSHIFT(height, f->ly[i]);
        f->plane[i]  = c->plane;
        f->offset[i] = c->offset;
        f->step[i]   = c->step;
        /* 8-bit samples; interleaved ones only in subsampled planes (4-tap
         * filter); chroma subsampled by at most 2, whose positions in 1/16
         * luma pel are at most 1/32 chroma pel (mcfps_sample4()) */
        if (c->depth != 8 || c->shift || c->plane >= f->nb_frame_planes || c->offset >= c->step ||
            c->step > (f->lx[i] || f->ly[i] ? 2 : 1) || f->lx[i] > 1 || f->ly[i] > 1)
            return AVERROR(EINVAL);
        f->fw[c->plane]    = f->w[i] * c->step;
        f->fh[c->plane]    = f->h[i];
        f->fstep[c->plane] = c->step;
    }
    return 0;
}

/* The CPU backend: the row functions above on the filter's slice threads,
 * reading software frames in place. */

#define JOBS_PER_THREAD 16  ///< slice jobs of a pass per thread (cpu_jobs())
/**
 * Samples beyond each edge of the padded planes: the selection's windows
 * and the predictions of most vectors near the edges then read them in
 * place.
 */
#define PLANE_PAD       32
/**
 * Largest set of phase planes: beyond it, the selection's reads of 16
 * planes of each picture miss the caches more than the interpolation in
 * place costs (pictures above about 854x480)
 */
#define PHASE_MAX_BYTES (8 << 20)

typedef struct McfpsCPUContext {
    McfpsHost host;
    McfpsFormat f;
    AVFrame *pic[MCFPS_SLOTS];
    /** each slot's planes of step 1 padded by PLANE_PAD, from their first sample */
    uint8_t *padded[MCFPS_SLOTS][MCFPS_MAX_PLANES];
    int padded_stride[MCFPS_MAX_PLANES];
    int is_padded[MCFPS_SLOTS];     ///< padded[] holds the slot's picture
    uint8_t *padded_buf;            ///< padded[]'s, allocated at the first motion-compensated frame
    /**
     * The padded luma of A and B at the quarter-pel fractions
     * (ff_mcfps_phase_rows()) where they fit PHASE_MAX_BYTES, so that the
     * errors of the selection read samples made once a picture: two sets,
     * a slot's, -1: none; [0] of the pass of the moment is the slot's plane
     */
    uint8_t *phase[2][MCFPS_NB_PHASES];
    int phase_slot[2];
    uint8_t *phase_buf;
    int phase_todo[2], nb_phase_todo;   ///< the sets that the pass of the moment makes
    int phase_todo_slot[2];             ///< and the slots they are made of
    int phase_a;                        ///< A's set; B's is the other
    /* the jobs of the pair's pass (pair_pass()) */
    int phase_jobs, check_jobs, smooth_jobs;    ///< each set's, the check's, the smoothing's
    int smooth_pending;                 ///< fields() came after the last pass
    int16_t *fa, *fb, *vec;
    int16_t *fp;                ///< the previous pair's fb (P -> A), for the bend
    uint8_t *smooth;            ///< mcfps_bend_smooth() of each cell of fp
    const int16_t *ra, *rb;     ///< fields(): the caller's raw fields, valid during the call only
    const int16_t *check_d;     ///< check(): the caller's field, valid during the call only
    int16_t *raw[2];
    uint16_t *info;
    int trust;                  ///< the pair's, from check()
    uint64_t *check_sum;        ///< check(): the two sums of each job
    /* the job of the moment */
    const McfpsParams *p;
    McfpsPlane pl[MCFPS_MAX_PLANES];
    int group[MCFPS_MAX_PLANES], group_size[MCFPS_MAX_PLANES], nb_groups; ///< runs of planes of one geometry
    int mode, plane_jobs;
    int slot_a, slot_b;
    int check_phi;
    const AVFrame *check_pic[3];    ///< P, A, B
    McfpsDSPContext dsp;
} McfpsCPUContext;

static av_cold void cpu_uninit(void *priv)
{
    McfpsCPUContext *s = priv;
    for (int i = 0; i < MCFPS_SLOTS; i++)
        av_frame_free(&s->pic[i]);
    av_freep(&s->padded_buf);
    av_freep(&s->phase_buf);
    av_freep(&s->check_sum);
    av_freep(&s->raw[0]);
    av_freep(&s->raw[1]);
    av_freep(&s->fa);
    av_freep(&s->fb);
    av_freep(&s->fp);
    av_freep(&s->smooth);
    av_freep(&s->vec);
    av_freep(&s->info);
}

static av_cold int cpu_init(void *priv, const McfpsHost *host, const McfpsFormat *f)
{
    McfpsCPUContext *s = priv;
    const size_t cells = (size_t)((f->width + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2) *
                         ((f->height + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2);

    s->host   = *host;
    s->f      = *f;
    ff_mcfps_dsp_init(&s->dsp);
    s->trust  = MCFPS_PHI_ONE;
    for (int i = 0; i < MCFPS_SLOTS; i++)
        if (!(s->pic[i] = av_frame_alloc()))
            goto fail;
    /* as many as cpu_jobs() makes */
    s->check_sum = av_malloc_array(2 * JOBS_PER_THREAD * FFMAX(host->nb_threads, 1), sizeof(*s->check_sum));
    s->raw[0] = av_malloc_array(cells, 2 * sizeof(*s->raw[0]));
    s->raw[1] = av_malloc_array(cells, 2 * sizeof(*s->raw[1]));
    s->fa     = av_malloc_array(cells, 2 * sizeof(*s->fa));
    s->fb     = av_calloc(cells, 2 * sizeof(*s->fb)); /* the first pair reads it as P -> A */
    s->fp     = av_calloc(cells, 2 * sizeof(*s->fp));
    s->smooth = av_malloc(cells);
    s->vec    = av_malloc_array(cells, MCFPS_VEC_N * sizeof(*s->vec));
    s->info   = av_malloc_array(cells, sizeof(*s->info));
    if (!s->check_sum || !s->raw[0] || !s->raw[1] || !s->fa || !s->fb || !s->fp || !s->smooth ||
        !s->vec || !s->info)
        goto fail;
    return 0;
fail:
    cpu_uninit(s);
    return AVERROR(ENOMEM);
}

static int cpu_load(void *priv, int slot, const AVFrame *frame)
{
    McfpsCPUContext *s = priv;
    if (!ff_mcfps_slot_valid(slot) || frame->hw_frames_ctx ||
        frame->width != s->f.width || frame->height != s->f.height)
        return AVERROR(EINVAL);
    av_frame_unref(s->pic[slot]);
    s->is_padded[slot] = 0;
    for (int i = 0; i < 2; i++)
        if (s->phase_slot[i] == slot)
            s->phase_slot[i] = -1;
    return av_frame_ref(s->pic[slot], frame);
}

/* jobs of a pass: parts of rows, several per thread, so that a thread
 * done with its share of them (ff_gpume_execute_slices()) takes over the
 * rest of another's */
static int cpu_jobs(const McfpsCPUContext *s, int rows)
{
    return s->host.nb_threads > 1 ? FFMIN(rows, JOBS_PER_THREAD * s->host.nb_threads) : 1;
}

static int cpu_execute(McfpsCPUContext *s, int (*job)(void *arg, int jobnr, int nb_jobs), int nb_jobs)
{
    if (s->host.execute)
        return s->host.execute(s->host.exec_opaque, job, s, nb_jobs);
    for (int i = 0; i < nb_jobs; i++)
        job(s, i, nb_jobs);
    return 0;
}

static int cpu_smooth_job(void *arg, int jobnr, int nb_jobs)
{
    McfpsCPUContext *s = arg;
    const int j0 = (int)((int64_t)s->p->ch * jobnr / nb_jobs);
    const int j1 = (int)((int64_t)s->p->ch * (jobnr + 1) / nb_jobs);
    ff_mcfps_smooth_rows(s->p, s->ra, s->fa, j0, j1);
    ff_mcfps_smooth_rows(s->p, s->rb, s->fb, j0, j1);
    ff_mcfps_bend_smooth_rows(s->p, s->fp, s->smooth, j0, j1);
    return 0;
}

static int cpu_fields(void *priv, const McfpsParams *p, const int16_t *ra, const int16_t *rb)
{
    McfpsCPUContext *s = priv;
    const size_t size = sizeof(*ra) * 2 * p->cw * p->ch;
    int16_t *swap = s->fp;
    /* the last pair's smoothed B field is this one's P -> A */
    s->fp = s->fb;
    s->fb = swap;
    /* candidates 4 and 5 read the raw fields at render time */
    memcpy(s->raw[0], ra, size);
    memcpy(s->raw[1], rb, size);
    s->ra = s->raw[0];
    s->rb = s->raw[1];
    s->p  = p;
    /* in the pair's next pass (pair_pass()) */
    s->smooth_pending = 1;
    return 0;
}

static int cpu_check_job(void *arg, int jobnr, int nb_jobs)
{
    McfpsCPUContext *s = arg;
    const int rows = ff_mcfps_check_samples(s->f.height);
    const int y0 = (int)((int64_t)rows * jobnr / nb_jobs) * MCFPS_CHECK_STEP;
    const int y1 = FFMIN((int)((int64_t)rows * (jobnr + 1) / nb_jobs) * MCFPS_CHECK_STEP, s->f.height);
    const AVFrame *pp = s->check_pic[0], *a = s->check_pic[1], *b = s->check_pic[2];
    ff_mcfps_check_rows(s->p, s->check_d, s->check_phi, pp->data[0], pp->linesize[0],
                        a->data[0], a->linesize[0], b->data[0], b->linesize[0], y0, y1,
                        &s->check_sum[2 * jobnr], &s->check_sum[2 * jobnr + 1]);
    return 0;
}

static int cpu_select_job(void *arg, int jobnr, int nb_jobs)
{
    McfpsCPUContext *s = arg;
    const int j0 = (int)((int64_t)s->p->ch * jobnr / nb_jobs);
    const int j1 = (int)((int64_t)s->p->ch * (jobnr + 1) / nb_jobs);
    ff_mcfps_select_rows(s->p, &s->dsp, s->padded[s->slot_a][0], s->padded_stride[0],
                         s->padded[s->slot_b][0], s->padded_stride[0], PLANE_PAD,
                         s->phase_buf ? (const uint8_t *const *)s->phase[s->phase_a] : NULL,
                         s->phase_buf ? (const uint8_t *const *)s->phase[!s->phase_a] : NULL,
                         s->ra, s->rb, s->fa, s->fb, s->fp, s->smooth, s->trust, s->vec, s->info, j0, j1);
    return 0;
}

/** The padded planes of slot, made once for the slot's picture. */
static int pad_planes(McfpsCPUContext *s, int slot)
{
    const AVFrame *f = s->pic[slot];

    if (!s->padded_buf) {
        size_t size = 0, offset[MCFPS_MAX_PLANES] = { 0 }, plane_size;
        for (int i = 0; i < s->f.nb_planes; i++) {
            if (s->f.step[i] != 1)
                continue;
            s->padded_stride[i] = FFALIGN(s->f.w[i] + 2 * PLANE_PAD, 32);
            offset[i] = size + (size_t)PLANE_PAD * s->padded_stride[i] + PLANE_PAD;
            size     += (size_t)(s->f.h[i] + 2 * PLANE_PAD) * s->padded_stride[i];
        }
        plane_size = (size_t)(s->f.h[0] + 2 * PLANE_PAD) * s->padded_stride[0];
        /* bilinear_plane() reads one sample beyond the last row */
        s->padded_buf = av_malloc(MCFPS_SLOTS * size + 16);
        if (!s->padded_buf)
            return AVERROR(ENOMEM);
        for (int k = 0; k < MCFPS_SLOTS; k++)
            for (int i = 0; i < s->f.nb_planes; i++)
                s->padded[k][i] = s->f.step[i] == 1 ? s->padded_buf + k * size + offset[i] : NULL;
        if ((MCFPS_NB_PHASES - 1) * plane_size <= PHASE_MAX_BYTES) {
            s->phase_buf = av_malloc(2 * (MCFPS_NB_PHASES - 1) * plane_size);
            if (!s->phase_buf)
                return AVERROR(ENOMEM);
            for (int k = 0; k < 2; k++) {
                for (int f = 1; f < MCFPS_NB_PHASES; f++)
                    s->phase[k][f] = s->phase_buf + offset[0] +
                                     (k * (MCFPS_NB_PHASES - 1) + f - 1) * plane_size;
                s->phase_slot[k] = -1;
            }
        }
    }
    for (int i = 0; i < s->f.nb_planes && !s->is_padded[slot]; i++)
        if (s->padded[slot][i])
            ff_gpume_pad_plane(s->padded[slot][i], s->padded_stride[i],
                               f->data[s->f.plane[i]] + s->f.offset[i], f->linesize[s->f.plane[i]],
                               s->f.w[i], s->f.h[i], PLANE_PAD);
    s->is_padded[slot] = 1;
    return 0;
}

/* the phase sets in phase_todo[], rows split between the jobs */
static int cpu_phase_job(void *arg, int jobnr, int nb_jobs)
{
    McfpsCPUContext *s = arg;
    const int per = nb_jobs / s->nb_phase_todo, set = s->phase_todo[jobnr / per], part = jobnr % per;
    const int rows = s->f.h[0] + 2 * PLANE_PAD - 1;
    ff_mcfps_phase_rows(&s->dsp, s->phase[set], s->phase[set][0], s->padded_stride[0], s->f.w[0],
                        PLANE_PAD, rows * part / per - PLANE_PAD, rows * (part + 1) / per - PLANE_PAD);
    return 0;
}

/* the phase sets of A and B (phase_a and the other): those not made yet go to phase_todo[] */
static void plan_phases(McfpsCPUContext *s, int a, int b)
{
    const int slot[2] = { a, b };
    int set[2];

    /* A's set is the one that holds A, else the one that does not hold B */
    set[0] = s->phase_slot[0] == a || (s->phase_slot[1] != a && s->phase_slot[0] != b) ? 0 : 1;
    set[1] = !set[0];
    s->phase_a       = set[0];
    s->nb_phase_todo = 0;
    for (int i = 0; i < 2; i++) {
        s->phase[set[i]][0] = s->padded[slot[i]][0];
        if (s->phase_slot[set[i]] != slot[i]) {
            s->phase_todo_slot[s->nb_phase_todo] = slot[i];
            s->phase_todo[s->nb_phase_todo++]    = set[i];
            s->phase_slot[set[i]] = -1;
        }
    }
}

/* the jobs of pair_pass(): the phases, the motion check, the smoothing */
static int cpu_pair_job(void *arg, int jobnr, int nb_jobs)
{
    McfpsCPUContext *s = arg;
    const int phase_jobs = s->nb_phase_todo * s->phase_jobs;

    if (jobnr < phase_jobs)
        return cpu_phase_job(s, jobnr, phase_jobs);
    jobnr -= phase_jobs;
    if (jobnr < s->check_jobs)
        return cpu_check_job(s, jobnr, s->check_jobs);
    return cpu_smooth_job(s, jobnr - s->check_jobs, s->smooth_jobs);
}

/**
 * What a pair needs before its selection, in one pass, so that the slice
 * threads wake once for it: the phases of A and B where phase buffers
 * exist (after pad_planes() of both), the motion check where check_jobs is
 * set, and the smoothing of the fields where it is pending.
 */
static int pair_pass(McfpsCPUContext *s, int a, int b)
{
    int jobs, err;

    if (s->phase_buf)
        plan_phases(s, a, b);
    s->phase_jobs  = cpu_jobs(s, s->f.h[0]);
    s->smooth_jobs = s->smooth_pending ? cpu_jobs(s, s->p->ch) : 0;
    jobs = s->nb_phase_todo * s->phase_jobs + s->check_jobs + s->smooth_jobs;
    err  = jobs ? cpu_execute(s, cpu_pair_job, jobs) : 0;
    s->check_jobs = 0;
    if (err < 0)
        return err;
    for (int i = 0; i < s->nb_phase_todo; i++)
        s->phase_slot[s->phase_todo[i]] = s->phase_todo_slot[i];
    s->nb_phase_todo  = 0;
    s->smooth_pending = 0;
    return 0;
}

static int cpu_check(void *priv, const McfpsParams *p, const int16_t *d, int phi, int prev, int a, int b)
{
    McfpsCPUContext *s = priv;
    const int slots[3] = { prev, a, b };
    const int jobs = d ? cpu_jobs(s, ff_mcfps_check_samples(p->height)) : 0;
    uint64_t em = 0, eb = 0;
    int err;

    s->trust = MCFPS_PHI_ONE;
    for (int i = !d; i < 3; i++) {
        if (!ff_mcfps_slot_valid(slots[i]) || !s->pic[slots[i]]->data[0])
            return AVERROR(EINVAL);
        s->check_pic[i] = s->pic[slots[i]];
    }
    if ((err = pad_planes(s, a)) < 0 || (err = pad_planes(s, b)) < 0)
        return err;
    /* the jobs run within this call: d is read in place */
    s->p          = p;
    s->check_d    = d;
    s->check_phi  = phi;
    s->check_jobs = jobs;
    err = pair_pass(s, a, b);
    s->check_d    = NULL;
    if (err < 0 || !d)
        return err;
    for (int i = 0; i < jobs; i++) {
        em += s->check_sum[2 * i];
        eb += s->check_sum[2 * i + 1];
    }
    s->trust = mcfps_trust(em, eb);
    return 0;
}

/* rendered tile rows of a plane: ff_mcfps_render_rows()'s tile row tj
 * covers plane rows [th tj + th / 2, th tj + th / 2 + th), from tj = -1 */
static int tile_rows(const McfpsPlane *pl)
{
    const int th = TILE >> pl->ly;
    return (pl->h + th / 2 + th - 1) / th;
}

/* first plane row of tile row t of a plane (t = 0 for tj = -1) */
static int tile_row_start(const McfpsPlane *pl, int t)
{
    const int th = TILE >> pl->ly;
    return t ? FFMIN(t * th - th / 2, pl->h) : 0;
}

/* every plane in one pass: plane_jobs jobs for each group of planes of
 * one geometry, so that no thread waits between planes; a job renders whole
 * tile rows, since a tile cut in two would filter its vertical footprint
 * twice */
static int cpu_render_job(void *arg, int jobnr, int nb_jobs)
{
    McfpsCPUContext *s = arg;
    const int g = jobnr / s->plane_jobs, nb = s->group_size[g];
    const McfpsPlane *pl = &s->pl[s->group[g]];
    const int part = jobnr % s->plane_jobs, rows = tile_rows(pl);
    const int y0 = tile_row_start(pl, (int)((int64_t)rows * part / s->plane_jobs));
    const int y1 = tile_row_start(pl, (int)((int64_t)rows * (part + 1) / s->plane_jobs));
    if (s->mode == MCFPS_MODE_BLEND) {
        for (int i = 0; i < nb; i++)
            ff_mcfps_blend_rows(&pl[i], s->p->phi, y0, y1);
    } else {
        ff_mcfps_render_rows(s->p, &s->dsp, pl, nb, s->vec, s->info, y0, y1);
    }
    return 0;
}

static int same_geometry(const McfpsPlane *a, const McfpsPlane *b)
{
    return a->w == b->w && a->h == b->h && a->lx == b->lx && a->ly == b->ly &&
           a->step == b->step && a->pad == b->pad;
}

static int cpu_render(void *priv, const McfpsParams *p, int mode, int a, int b, AVFrame *out)
{
    McfpsCPUContext *s = priv;
    const AVFrame *fa = s->pic[a], *fb = s->pic[b];
    int err, min_rows;

    if (!fa->data[0] || !fb->data[0] || out->hw_frames_ctx)
        return AVERROR(EINVAL);
    s->p    = p;
    s->mode = mode;
    for (int i = 0; i < s->f.nb_planes; i++) {
        const int k = s->f.plane[i], o = s->f.offset[i];
        s->pl[i] = (McfpsPlane) {
            .a = fa->data[k] + o, .b = fb->data[k] + o, .dst = out->data[k] + o,
            .sa = fa->linesize[k], .sb = fb->linesize[k], .sd = out->linesize[k], .step = s->f.step[i],
            .w = s->f.w[i], .h = s->f.h[i], .lx = s->f.lx[i], .ly = s->f.ly[i],
        };
    }
    if (mode == MCFPS_MODE_MC) {
        if ((err = pad_planes(s, a)) < 0 || (err = pad_planes(s, b)) < 0)
            return err;
        /* the predictions read the same planes, padded */
        for (int i = 0; i < s->f.nb_planes; i++) {
            if (!s->padded[a][i])
                continue;
            s->pl[i].a   = s->padded[a][i];
            s->pl[i].b   = s->padded[b][i];
            s->pl[i].sa  = s->pl[i].sb = s->padded_stride[i];
            s->pl[i].pad = PLANE_PAD;
        }
        /* what check() did not do yet: all, where it was not called */
        if ((err = pair_pass(s, a, b)) < 0)
            return err;
        s->slot_a = a;
        s->slot_b = b;
        err = cpu_execute(s, cpu_select_job, cpu_jobs(s, p->ch));
        if (err < 0)
            return err;
    }
    /* planes of one geometry, the chroma planes, are rendered together:
     * they share each tile's vectors and weights */
    s->nb_groups = 0;
    for (int i = 0; i < s->f.nb_planes; i++) {
        if (i && same_geometry(&s->pl[i - 1], &s->pl[i])) {
            s->group_size[s->nb_groups - 1]++;
            continue;
        }
        s->group[s->nb_groups]        = i;
        s->group_size[s->nb_groups++] = 1;
    }
    /* the least number of tile rows bounds the jobs per group */
    min_rows = tile_rows(&s->pl[0]);
    for (int i = 1; i < s->f.nb_planes; i++)
        min_rows = FFMIN(min_rows, tile_rows(&s->pl[i]));
    s->plane_jobs = cpu_jobs(s, min_rows);
    return cpu_execute(s, cpu_render_job, s->nb_groups * s->plane_jobs);
}

const McfpsBackend ff_mcfps_backend_cpu = {
    .name      = "cpu",
    .priv_size = sizeof(McfpsCPUContext),
    .init      = cpu_init,
    .load      = cpu_load,
    .fields    = cpu_fields,
    .check     = cpu_check,
    .render    = cpu_render,
    .uninit    = cpu_uninit,
};
