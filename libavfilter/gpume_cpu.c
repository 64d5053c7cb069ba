/*
 * gpume: CPU reference backend (full, hme, lfs; sub-pel; partitions).
 * Other backends must reproduce its vectors bit for bit.
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

#include <string.h>

#include "config.h"
#include "libavutil/avassert.h"
#include "libavutil/common.h"
#include "libavutil/error.h"
#include "libavutil/log.h"
#include "libavutil/macros.h"
#include "libavutil/mem.h"
#include "libavutil/pixelutils.h"
#include "gpume_backend.h"
#include "gpume_dsp.h"
#include "gpume_pad.h"

/**
 * A pyramid level with a replicated border of at least pad samples on
 * every side, so that reads within the border equal clamped reads.
 */
typedef struct CPUPlane {
    uint8_t *buf;
    uint8_t *data;      ///< sample (0, 0)
    int stride, w, h;
} CPUPlane;

/* radius and side of hme's level-1 block search at the largest range */
#define HME_L1_MAX_R    ((GPUME_MAX_RANGE + 1) >> 1)
#define HME_L1_MAX_SIDE (2 * HME_L1_MAX_R + 1)
#define HME_L1_SAD_STRIDE FFALIGN(HME_L1_MAX_SIDE, 8)
/* hme level 2: the side of a CTU's search, its SADs' row stride */
#define HME_L2_MAX_SIDE (2 * ((GPUME_MAX_RANGE + 3) >> 2) + 1)
#define HME_L2_SAD_STRIDE FFALIGN(HME_L2_MAX_SIDE, 8)

/* above every cost of a 4x4 block's candidates: the pads after each row */
#define HME_PAD_COST 0x8000

#if 16 * 255 + GPUME_MAX_LAMBDA * 2 * HME_L1_MAX_R >= HME_PAD_COST
#error "hme_minima4x4() keeps the costs of 4x4 blocks in 15 bits"
#endif

/** Estimates run together: the two directions of a frame. */
#define CPU_BATCH 2

typedef struct GpumeCPUContext GpumeCPUContext;

typedef struct EstimateJob {
    GpumeCPUContext *s;
    const CPUPlane *cur, *ref;  ///< pyramids (coarse levels for hme only)
    int cur_slot, ref_slot;     ///< their slots, where dis finds its levels beyond hme's
    const int16_t *pred;
    GpumeResult *res;
    GpumeHmeCoarse *coarse;     ///< hme: the coarse results of each CTU
    /* dis: the level being searched, its pictures, and its field's coarser level */
    const uint8_t *dis_cur, *dis_ref;
    int dis_stride, dis_w, dis_h;
    const int32_t *dis_coarse;  ///< NULL at the coarsest level
    int dis_coarse_w;
    int32_t *dis_field;         ///< the field this level writes
    int dis_finest;             ///< this level is the finest searched: hme's blocks (res) may start its patches
    int dis_export;             ///< estimate_ctus() exports dis's blocks
} EstimateJob;

struct GpumeCPUContext {
    const GpumeHost *host;
    GpumeParams p;      ///< for dis, its hme search (algo=hme), which starts dis's finest level
    int dis;            ///< algo=dis
    int pad;
    int levels;         ///< pyramid levels kept: 1, or GPUME_HME_LEVELS + 1 for hme
    GpumePU pu[GPUME_MAX_PUS];
    uint16_t fixed_pus[GPUME_MAX_OUT_PER_CTU];  ///< exported PUs in fixed-block mode
    int nb_fixed_pus;
    /**
     * Fixed-block mode: the PUs in the order of the integer search's keys,
     * fixed_pus[z] as search_pus[search_pos[z]]; with block=8 the 8x8
     * blocks in raster order, as sad8x8_grid() gives their SADs
     */
    uint16_t search_pus[GPUME_MAX_OUT_PER_CTU];
    uint16_t search_pos[GPUME_MAX_OUT_PER_CTU];
    /** hme: the vector costs of a 4x4 block's level-1 search, hme_vector_costs4x4() */
    uint16_t vcost4x4[HME_L1_MAX_SIDE * HME_L1_SAD_STRIDE];
    CPUPlane pic[GPUME_NB_SLOTS][GPUME_HME_LEVELS + 1];
    GpumeResult res[GPUME_NB_RESULTS];          ///< where each result slot was written
    /**
     * The estimates issued and not yet run (cpu_sync()): the two directions
     * of a frame share their passes, so that the slice threads wake half as
     * often. Each has its predictors and, for hme, its CTUs' coarse results.
     */
    EstimateJob batch[CPU_BATCH];               ///< each res points into res[]
    int nb_batch;
    int batch_jobs;                             ///< slice jobs of each estimate of a pass
    int16_t *pred[CPU_BATCH];
    GpumeHmeCoarse *coarse[CPU_BATCH];
    /* dis: its pyramid's levels beyond hme's in a buffer of each slot (the
     * others are pic[slot][]), and the patch vectors and fields of one estimate */
    int dis_coarsest, dis_finest;
    GpumeDisLevel dis_level[GPUME_DIS_MAX_LEVELS];
    uint8_t *dis_pic[GPUME_NB_SLOTS];
    int32_t *dis_patch, *dis_field[2];
    int64_t *dis_acc;   ///< the densification's sums: 3 planes of a level, at most the finest searched
    av_pixelutils_sad_fn square_sad[3];         ///< SAD of 8x8, 16x16, 32x32 blocks; NULL: C
    GpumeDSPContext dsp;
};

static av_cold void cpu_uninit(void *priv)
{
    GpumeCPUContext *s = priv;
    for (int i = 0; i < GPUME_NB_SLOTS; i++)
        for (int k = 0; k <= GPUME_HME_LEVELS; k++)
            av_freep(&s->pic[i][k].buf);
    for (int i = 0; i < CPU_BATCH; i++) {
        av_freep(&s->pred[i]);
        av_freep(&s->coarse[i]);
    }
    s->nb_batch = 0;
    for (int i = 0; i < GPUME_NB_SLOTS; i++)
        av_freep(&s->dis_pic[i]);
    av_freep(&s->dis_patch);
    av_freep(&s->dis_field[0]);
    av_freep(&s->dis_field[1]);
    av_freep(&s->dis_acc);
}

/** dis: the levels of its pyramid, each slot's beyond hme's, and the buffers of one estimate. */
static av_cold int dis_init(GpumeCPUContext *s)
{
    const GpumeParams *p = &s->p;
    const GpumeDisLevel *lv = s->dis_level;
    size_t size;
    int lf;

    for (int k = 0; k <= GPUME_HME_LEVELS; k++)
        s->dis_level[k] = (GpumeDisLevel) { s->pic[0][k].w, s->pic[0][k].h, s->pic[0][k].stride, 0 };
    if (!(size = ff_gpume_dis_layout(p, 1, s->dis_level)))
        return AVERROR(EINVAL);
    for (int i = 0; i < GPUME_NB_SLOTS; i++)
        if (!(s->dis_pic[i] = av_malloc(size)))
            return AVERROR(ENOMEM);
    s->dis_coarsest = gpume_dis_coarsest(p->width, p->height);
    s->dis_finest   = lf = gpume_dis_finest(s->dis_coarsest);
    /* the finest level searched has the most patches and pixels */
    s->dis_patch    = av_malloc_array(2 * gpume_dis_nb_patches(lv[lf].w) * gpume_dis_nb_patches(lv[lf].h),
                                      sizeof(*s->dis_patch));
    s->dis_field[0] = av_malloc_array(2 * lv[lf].w * lv[lf].h, sizeof(**s->dis_field));
    s->dis_field[1] = av_malloc_array(2 * lv[lf].w * lv[lf].h, sizeof(**s->dis_field));
    s->dis_acc      = av_malloc_array(3 * lv[lf].w * lv[lf].h, sizeof(*s->dis_acc));
    if (!s->dis_patch || !s->dis_field[0] || !s->dis_field[1] || !s->dis_acc)
        return AVERROR(ENOMEM);
    return 0;
}

/** dis: level k of slot's pyramid, hme's planes up to GPUME_HME_LEVELS, rows dis_level[k].pitch apart. */
static uint8_t *dis_plane(const GpumeCPUContext *s, int slot, int k)
{
    return k <= GPUME_HME_LEVELS ? s->pic[slot][k].data : s->dis_pic[slot] + s->dis_level[k].offset;
}

/**
 * The vector costs of a 4x4 block's search over (dx, dy) in [-r, r]^2, in
 * rows of FFALIGN(2 r + 1, 8), and HME_PAD_COST after each row's 2 r + 1.
 */
static void hme_vector_costs4x4(uint16_t *vcost, int lambda, int r)
{
    const int n = 2 * r + 1, stride = FFALIGN(n, 8);

    for (int y = 0; y < n; y++, vcost += stride) {
        for (int x = 0; x < n; x++)
            vcost[x] = lambda * (FFABS(x - r) + FFABS(y - r));
        for (int x = n; x < stride; x++)
            vcost[x] = HME_PAD_COST;
    }
}

static av_cold int cpu_init(void *priv, const GpumeHost *host, const GpumeParams *p)
{
    GpumeCPUContext *s = priv;

    s->host = host;
    s->p    = *p;
    s->pad  = p->pad;
    s->dis  = p->algo == GPUME_ALGO_DIS;
    if (s->dis)
        s->p.algo = GPUME_ALGO_HME;
    p = &s->p;
    /* only hme searches the coarse levels */
    s->levels = p->algo == GPUME_ALGO_HME ? GPUME_HME_LEVELS + 1 : 1;
    ff_gpume_pu_tables(p, s->pu, s->fixed_pus);
    s->nb_fixed_pus = p->nb_fixed_pus;
    for (int z = 0; z < s->nb_fixed_pus; z++) {
        const GpumePU pu = s->pu[s->fixed_pus[z]];
        s->search_pos[z] = p->block == 8 ? pu.t / 2 * (p->ctu / 8) + pu.l / 2 : z;
        s->search_pus[s->search_pos[z]] = s->fixed_pus[z];
    }
    if (p->algo == GPUME_ALGO_HME)
        hme_vector_costs4x4(s->vcost4x4, p->lambda, gpume_hme_l1_block_range(p->range));
    ff_gpume_dsp_init(&s->dsp);
#if CONFIG_PIXELUTILS
    /* libavutil's SIMD SADs, for any alignment: the planes' borders make
     * block addresses odd */
    for (int k = 0; k < FF_ARRAY_ELEMS(s->square_sad); k++)
        s->square_sad[k] = av_pixelutils_get_sad_fn(k + 3, k + 3, 0, host->log_ctx);
#endif
    for (int i = 0; i < CPU_BATCH; i++) {
        if (!(s->pred[i] = av_malloc_array(p->nb_ctus, 2 * sizeof(*s->pred[i]))) ||
            (p->algo == GPUME_ALGO_HME && !(s->coarse[i] = av_calloc(p->nb_ctus, sizeof(*s->coarse[i]))))) {
            cpu_uninit(s);
            return AVERROR(ENOMEM);
        }
    }
    s->batch_jobs = host->nb_threads > 1 ? FFMIN(p->nb_ctus, 32 * host->nb_threads) : 1;

    for (int i = 0; i < GPUME_NB_SLOTS; i++) {
        for (int k = 0; k < s->levels; k++) {
            CPUPlane *pl = &s->pic[i][k];
            pl->w      = p->lw[k];
            pl->h      = p->lh[k];
            pl->stride = FFALIGN(pl->w + 2 * s->pad, 64);
            /* sad4x4_rows() may read a few bytes past a row's border */
            pl->buf    = av_mallocz((size_t)pl->stride * (pl->h + 2 * s->pad) + 16);
            if (!pl->buf) {
                cpu_uninit(s);
                return AVERROR(ENOMEM);
            }
            pl->data = pl->buf + s->pad * pl->stride + s->pad;
        }
    }
    if (s->dis) {
        int err = dis_init(s);
        if (err < 0) {
            cpu_uninit(s);
            return err;
        }
    }
    return 0;
}

/* FFmpeg builds with -fno-tree-vectorize; the integer loops of the SADs, of
 * the sub-pel predictions and of the pyramid are written for the vectoriser */
#if defined(__GNUC__) && !defined(__clang__)
#define GPUME_VECTORIZE __attribute__((optimize("tree-vectorize")))
#else
#define GPUME_VECTORIZE
#endif

/**
 * A pyramid level, dw x dh, from the one below it, sw x sh:
 * gpume_downscale_px(), without its clamps where the 2x2 samples lie inside.
 */
static GPUME_VECTORIZE void downscale_plane(uint8_t *dst, ptrdiff_t ds, int dw, int dh,
                                            const uint8_t *src, ptrdiff_t ss, int sw, int sh)
{
    const int iw = FFMIN(dw, sw / 2), ih = FFMIN(dh, sh / 2);

    for (int y = 0; y < dh; y++) {
        const uint8_t *r0 = src + 2 * y * ss, *r1 = r0 + ss;
        uint8_t *d = dst + y * ds;
        int x = 0;

        if (y < ih)
            for (; x < iw; x++)
                d[x] = (uint16_t)(r0[2 * x] + r0[2 * x + 1] + r1[2 * x] + r1[2 * x + 1] + 2) >> 2;
        for (; x < dw; x++)
            d[x] = gpume_downscale_px(src, ss, sw, sh, x, y);
    }
}

static int cpu_load(void *priv, int slot, const AVFrame *frame)
{
    GpumeCPUContext *s = priv;
    CPUPlane *lv = s->pic[slot];

    if (frame->width != s->p.width || frame->height != s->p.height)
        return AVERROR(EINVAL);
    ff_gpume_pad_plane(lv[0].data, lv[0].stride, frame->data[0], frame->linesize[0],
                       lv[0].w, lv[0].h, s->pad);
    for (int k = 1; k < s->levels; k++) {
        downscale_plane(lv[k].data, lv[k].stride, lv[k].w, lv[k].h,
                        lv[k - 1].data, lv[k - 1].stride, lv[k - 1].w, lv[k - 1].h);
        ff_gpume_pad_plane(lv[k].data, lv[k].stride, lv[k].data, lv[k].stride, lv[k].w, lv[k].h, s->pad);
    }
    /* dis's levels beyond hme's, which are made above */
    for (int k = GPUME_HME_LEVELS + 1; s->dis && k <= s->dis_coarsest; k++) {
        const GpumeDisLevel *src = &s->dis_level[k - 1], *dst = &s->dis_level[k];
        downscale_plane(dis_plane(s, slot, k), dst->pitch, dst->w, dst->h,
                        dis_plane(s, slot, k - 1), src->pitch, src->w, src->h);
    }
    return 0;
}

/** SAD of a vw x vh region; ref may point into the border. */
static av_always_inline uint32_t sad_rect(const uint8_t *cur, int cs, const uint8_t *ref, int rs, int vw, int vh)
{
    uint32_t sad = 0;

    /* four columns at a time where the width allows: without SIMD,
     * sad_rect_c() takes the level-1 blocks of hme, 4 to 32 samples wide */
    if (!(vw & 3)) {
        for (int y = 0; y < vh; y++, cur += cs, ref += rs)
            for (int x = 0; x < vw; x += 4)
                sad += FFABS(cur[x]     - ref[x])     + FFABS(cur[x + 1] - ref[x + 1]) +
                       FFABS(cur[x + 2] - ref[x + 2]) + FFABS(cur[x + 3] - ref[x + 3]);
        return sad;
    }
    for (int y = 0; y < vh; y++) {
        for (int x = 0; x < vw; x++)
            sad += FFABS(cur[x] - ref[x]);
        cur += cs;
        ref += rs;
    }
    return sad;
}

static uint32_t sad_rect_c(const uint8_t *cur, ptrdiff_t cs, const uint8_t *ref, ptrdiff_t rs,
                           int w, int h, uint32_t limit)
{
    uint32_t sad = 0;

    for (int y = 0; y < h && sad < limit; y++, cur += cs, ref += rs)
        sad += sad_rect(cur, cs, ref, rs, w, 1);
    return sad;
}

/** pixelutils' SAD of vw x vh blocks, or NULL where the size needs the C code. */
static av_pixelutils_sad_fn square_sad_fn(const GpumeCPUContext *s, int vw, int vh)
{
    return vw == vh && (vw == 8 || vw == 16 || vw == 32) ? s->square_sad[av_log2(vw) - 3] : NULL;
}

/** SAD of a vw x vh region, pixelutils' where it has the size. */
static uint32_t block_sad(const GpumeCPUContext *s, const uint8_t *cur, int cs,
                          const uint8_t *ref, int rs, int vw, int vh)
{
    const av_pixelutils_sad_fn sad = square_sad_fn(s, vw, vh);
    return sad ? sad(cur, cs, ref, rs) : s->dsp.sad_rect(cur, cs, ref, rs, vw, vh, UINT32_MAX);
}

/**
 * sad_qpel() of GpumeDSPContext in C, for any width: the bilinear weights
 * factor, (4 - fx)(4 - fy) a + fx (4 - fy) b + (4 - fx) fy c + fx fy d =
 * (4 - fy) h0 + fy h1 with h0, h1 the horizontal sums of the two rows, so
 * each row's sums serve two output rows; with fx or fy 0,
 * (4 X + 8) >> 4 = (X + 2) >> 2 needs one pass.
 */
static GPUME_VECTORIZE uint32_t sad_qpel_c(const uint8_t *cur, ptrdiff_t cs, const uint8_t *r, ptrdiff_t rs,
                                           int fx, int fy, int vw, int vh)
{
    uint8_t pred[GPUME_MAX_CTU * GPUME_MAX_CTU];
    uint16_t h[2][GPUME_MAX_CTU];

    if (!fy) {
        for (int y = 0; y < vh; y++, r += rs)
            for (int x = 0; x < vw; x++)
                pred[y * vw + x] = ((4 - fx) * r[x] + fx * r[x + 1] + 2) >> 2;
    } else if (!fx) {
        for (int y = 0; y < vh; y++, r += rs)
            for (int x = 0; x < vw; x++)
                pred[y * vw + x] = ((4 - fy) * r[x] + fy * r[x + rs] + 2) >> 2;
    } else {
        for (int x = 0; x < vw; x++)
            h[0][x] = (4 - fx) * r[x] + fx * r[x + 1];
        for (int y = 0; y < vh; y++) {
            const uint16_t *h0 = h[y & 1];
            uint16_t *h1 = h[!(y & 1)];
            r += rs;
            for (int x = 0; x < vw; x++) {
                const int hx = (4 - fx) * r[x] + fx * r[x + 1];
                pred[y * vw + x] = ((4 - fy) * h0[x] + fy * hx + 8) >> 4;
                h1[x] = hx;
            }
        }
    }
    return sad_rect(cur, cs, pred, vw, vw, vh);
}

/**
 * sad_hpel() of GpumeDSPContext in C: per pixel, the 3x3 samples around
 * it give all eight half-pel points, (a + b + 1) >> 1 between two samples
 * and (a + b + c + d + 2) >> 2 between four, sad_qpel_c()'s values at
 * fractions 2 and 0.
 */
static GPUME_VECTORIZE void sad_hpel_c(uint32_t *sad, const uint8_t *cur, ptrdiff_t cs,
                                       const uint8_t *ref, ptrdiff_t rs, int w, int h)
{
    uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;

    for (int y = 0; y < h; y++) {
        const uint8_t *c = cur + y * cs, *r0 = ref + (y - 1) * rs, *r1 = r0 + rs, *r2 = r1 + rs;
        for (int x = 0; x < w; x++) {
            const int v = c[x], e = r1[x];
            const int up = r0[x - 1] + r0[x], dn = r2[x - 1] + r2[x];
            const int le = r1[x - 1] + e, ri = e + r1[x + 1];
            const int upr = r0[x] + r0[x + 1], dnr = r2[x] + r2[x + 1];
            s0 += abs(v - ((up + le + 2) >> 2));
            s1 += abs(v - ((r0[x] + e + 1) >> 1));
            s2 += abs(v - ((upr + ri + 2) >> 2));
            s3 += abs(v - ((le + 1) >> 1));
            s4 += abs(v - ((ri + 1) >> 1));
            s5 += abs(v - ((le + dn + 2) >> 2));
            s6 += abs(v - ((e + r2[x] + 1) >> 1));
            s7 += abs(v - ((ri + dnr + 2) >> 2));
        }
    }
    sad[0] = s0; sad[1] = s1; sad[2] = s2; sad[3] = s3;
    sad[4] = s4; sad[5] = s5; sad[6] = s6; sad[7] = s7;
}

/**
 * SAD of a region against the reference displaced by quarter-pel (qx, qy);
 * the padded reference makes unclamped reads equal gpume_sample_qpel().
 */
static uint32_t sad_qpel(const GpumeCPUContext *s, const uint8_t *cur, int cs,
                         const CPUPlane *ref, int x0, int y0, int vw, int vh, int qx, int qy)
{
    const int fx = qx & 3, fy = qy & 3, rs = ref->stride;
    const uint8_t *r = ref->data + (y0 + (qy >> 2)) * rs + x0 + (qx >> 2);

    if (!fx && !fy)
        return block_sad(s, cur, cs, r, rs, vw, vh);
    return s->dsp.sad_qpel(cur, cs, r, rs, fx, fy, vw, vh);
}

/**
 * Per-candidate step of the PU-table search: SADs of the 4x4 units of the
 * valid vw x vh part of a CTU, then their 2-D prefix sums S, (u+1)^2 entries
 * with a zero first row and column.
 */
static void unit_sad_table(const uint8_t *cur, int cs, const uint8_t *ref, int rs,
                           int vw, int vh, int u, uint32_t *S)
{
    uint32_t U[GPUME_MAX_UNITS * GPUME_MAX_UNITS];
    const int uw = (vw + 3) >> 2, uh = (vh + 3) >> 2;

    for (int uy = 0; uy < u; uy++) {
        const int rows = FFMIN(4, vh - 4 * uy);
        for (int ux = 0; ux < u; ux++) {
            const int cols = FFMIN(4, vw - 4 * ux);
            uint32_t sad = 0;
            if (uy < uh && ux < uw) {
                const uint8_t *c = cur + 4 * uy * cs + 4 * ux;
                const uint8_t *r = ref + 4 * uy * rs + 4 * ux;
                if (rows == 4 && cols == 4) {
                    for (int y = 0; y < 4; y++, c += cs, r += rs)
                        sad += FFABS(c[0] - r[0]) + FFABS(c[1] - r[1]) +
                               FFABS(c[2] - r[2]) + FFABS(c[3] - r[3]);
                } else {
                    sad = sad_rect(c, cs, r, rs, cols, rows);
                }
            }
            U[uy * u + ux] = sad;
        }
    }
    for (int x = 0; x <= u; x++)
        S[x] = 0;
    for (int y = 0; y < u; y++) {
        uint32_t row = 0;
        S[(y + 1) * (u + 1)] = 0;
        for (int x = 0; x < u; x++) {
            row += U[y * u + x];
            S[(y + 1) * (u + 1) + x + 1] = S[y * (u + 1) + x + 1] + row;
        }
    }
}

static inline uint32_t pu_sad(const uint32_t *S, int u, GpumePU pu)
{
    const int w = u + 1;
    return S[pu.b * w + pu.r] - S[pu.t * w + pu.r] - S[pu.b * w + pu.l] + S[pu.t * w + pu.l];
}

/** Costs below this beat key best for candidate idx: at equal cost the smaller index wins. */
static inline uint64_t key_limit(uint64_t best, uint32_t idx)
{
    return (best >> 32) + ((uint32_t)best > idx);
}

/**
 * Fixed-block mode's step of the PU-table search: the SAD of each PU of
 * list, the part of it within the valid vw x vh, directly; the same sums as
 * the unit table's without the table. best[i] is the key of list[i]. A PU's
 * SAD stops once its cost can no longer win, but where whole 8x8 blocks
 * have theirs at once.
 */
static void fixed_pus_candidate(const GpumeCPUContext *s, const uint8_t *cur, int cs,
                                const uint8_t *ref, int rs, int vw, int vh,
                                uint32_t mvc, uint32_t idx, const uint16_t *list, int nb,
                                uint64_t *best)
{
    /* 8x8 blocks: the SADs of the whole ones, in pairs of columns, at once
     * (all of a CTU but at the picture's edges) */
    uint32_t grid[(GPUME_MAX_CTU / 8) * (GPUME_MAX_CTU / 8)];
    int cols = 0, rows = 0;

    /* a whole CTU, and list is s->search_pus: its blocks in raster order */
    if (s->p.block == 8 && vw == s->p.ctu && vh == s->p.ctu) {
        av_assert2(list == s->search_pus && nb == (vw / 8) * (vh / 8));
        s->dsp.sad8x8_grid(grid, cur, cs, ref, rs, vw / 8, vh / 8);
        s->dsp.min_keys(best, grid, mvc, idx, nb);
        return;
    }
    if (s->p.block == 8 && vw >= 16 && vh >= 8) {
        cols = vw / 16 * 2;
        rows = vh / 8;
        s->dsp.sad8x8_grid(grid, cur, cs, ref, rs, cols, rows);
    }
    for (int i = 0; i < nb; i++) {
        const int k = list[i];
        const GpumePU pu = s->pu[k];
        const int x = 4 * pu.l, y = 4 * pu.t;
        const int w = FFMIN(4 * (pu.r - pu.l), vw - x), h = FFMIN(4 * (pu.b - pu.t), vh - y);
        uint64_t limit;
        uint32_t cost = mvc;

        if (x < 8 * cols && y < 8 * rows) {
            best[i] = FFMIN(best[i], gpume_key(cost + grid[y / 8 * cols + x / 8], idx));
            continue;
        }
        limit = key_limit(best[i], idx);
        if (cost >= limit)
            continue;
        if (w > 0 && h > 0) {
            const av_pixelutils_sad_fn sad = square_sad_fn(s, w, h);
            const uint8_t *c = cur + y * cs + x, *r = ref + y * rs + x;
            /* the exact cost below limit, else at least limit */
            cost += sad ? sad(c, cs, r, rs) :
                          s->dsp.sad_rect(c, cs, r, rs, w, h, FFMIN(limit - cost, UINT32_MAX));
        }
        if (cost < limit)
            best[i] = gpume_key(cost, idx);
    }
}

/**
 * Evaluate integer candidate (dx, dy) with index idx for every PU in list
 * (fixed-block mode) or of the table (list NULL), keeping the smallest key
 * per PU: best[i] for list[i], or for PU i of the table.
 */
static void pu_table_candidate(const GpumeCPUContext *s, const uint8_t *cur, int cs,
                               const CPUPlane *ref, int x0, int y0, int vw, int vh,
                               int dx, int dy, uint32_t idx, int px, int py,
                               const uint16_t *list, int nb, uint64_t *best)
{
    uint32_t S[(GPUME_MAX_UNITS + 1) * (GPUME_MAX_UNITS + 1)];
    const int u = s->p.units;
    const uint32_t mvc = gpume_mv_cost(s->p.lambda, 4 * dx, 4 * dy, px, py);
    const uint8_t *r = ref->data + (y0 + dy) * ref->stride + x0 + dx;

    if (list) {
        fixed_pus_candidate(s, cur, cs, r, ref->stride, vw, vh, mvc, idx, list, nb, best);
        return;
    }
    unit_sad_table(cur, cs, r, ref->stride, vw, vh, u, S);
    for (int i = 0; i < nb; i++) {
        const uint64_t key = gpume_key(pu_sad(S, u, s->pu[i]) + mvc, idx);
        if (key < best[i])
            best[i] = key;
    }
}

/**
 * Half- then quarter-pel refinement of quarter-pel vector *q, whose SAD is
 * best_sad; returns the SAD at the result.
 */
static uint32_t subpel_refine(const GpumeCPUContext *s, const uint8_t *cur, int cs,
                              const CPUPlane *ref, int x, int y, int w, int h,
                              int *qx, int *qy, int px, int py, uint32_t best_sad)
{
    for (int step = 2; step >= 1; step--) {
        uint32_t hpel[8];
        uint64_t best;
        int cx = *qx, cy = *qy;
        /* the half-pel points around an integer vector at once */
        const int batch = step == 2 && !(cx & 3) && !(cy & 3) && !(w & 7);
        if (step == 2 ? s->p.subpel < 1 : s->p.subpel < 2)
            continue;
        if (batch)
            s->dsp.sad_hpel(hpel, cur, cs, ref->data + (y + (cy >> 2)) * ref->stride + x + (cx >> 2),
                            ref->stride, w, h);
        best = gpume_key(best_sad + gpume_mv_cost(s->p.lambda, cx, cy, px, py), 0);
        for (int i = 1; i < 9; i++) {
            int ox, oy;
            uint32_t sad;
            uint64_t key;
            gpume_subpel_offset(i, step, &ox, &oy);
            sad = batch ? hpel[i - 1] : sad_qpel(s, cur, cs, ref, x, y, w, h, cx + ox, cy + oy);
            key = gpume_key(sad + gpume_mv_cost(s->p.lambda, cx + ox, cy + oy, px, py), i);
            if (key < best) {
                best     = key;
                best_sad = sad;
                *qx = cx + ox;
                *qy = cy + oy;
            }
        }
    }
    return best_sad;
}

/** Key of integer vector (dx, dy) of a coarse level's block whose SAD is sad. */
static uint64_t level_key_sad(const GpumeCPUContext *s, uint32_t sad, int dx, int dy, uint32_t idx)
{
    return gpume_key(sad + s->p.lambda * (FFABS(dx) + FFABS(dy)), idx);
}

/** Key of integer vector (dx, dy) for the block at (x0, y0), vw x vh, of a pyramid level. */
static uint64_t level_key(const GpumeCPUContext *s, const CPUPlane *cur, const CPUPlane *ref,
                          int x0, int y0, int vw, int vh, int dx, int dy, uint32_t idx)
{
    const uint32_t sad = block_sad(s, cur->data + y0 * cur->stride + x0, cur->stride,
                                   ref->data + (y0 + dy) * ref->stride + x0 + dx, ref->stride, vw, vh);
    return level_key_sad(s, sad, dx, dy, idx);
}

/** Integer full search of a block at a pyramid level around (cxv, cyv); returns the best vector. */
static void level_search(const GpumeCPUContext *s, const CPUPlane *cur, const CPUPlane *ref,
                         int x0, int y0, int bs, int cxv, int cyv, int r, int *vx, int *vy)
{
    const int vw = FFMIN(bs, cur->w - x0), vh = FFMIN(bs, cur->h - y0);
    uint64_t best = GPUME_INVALID_KEY;

    for (int j = -r; j <= r; j++) {
        for (int i = -r; i <= r; i++) {
            const uint64_t key = level_key(s, cur, ref, x0, y0, vw, vh, cxv + i, cyv + j,
                                           (j + r) * (2 * r + 1) + i + r);
            if (key < best) {
                best = key;
                *vx  = cxv + i;
                *vy  = cyv + j;
            }
        }
    }
}

/** sad4x4_rows() in C: every candidate of a row at once, for the vectoriser. */
static GPUME_VECTORIZE void sad4x4_rows_c(uint16_t *sad, ptrdiff_t sad_stride, const uint16_t *add,
                                          const uint8_t *cur, ptrdiff_t cur_stride,
                                          const uint8_t *ref, ptrdiff_t ref_stride, int w, int h)
{
    w = FFALIGN(w, 8);
    for (int y = 0; y < h; y++, sad += sad_stride, add += sad_stride, ref += ref_stride) {
        for (int x = 0; x < w; x++)
            sad[x] = add[x];
        /* differences of bytes stay bytes; 16 of them fit 16 bits */
        for (int i = 0; i < 4; i++) {
            for (int k = 0; k < 4; k++) {
                const uint8_t c = cur[i * cur_stride + k];
                const uint8_t *p = ref + i * ref_stride + k;
                for (int x = 0; x < w; x++)
                    sad[x] += (uint8_t)(p[x] > c ? p[x] - c : c - p[x]);
            }
        }
    }
}

static void sad8x8_grid_c(uint32_t *sad, const uint8_t *cur, ptrdiff_t cur_stride,
                          const uint8_t *ref, ptrdiff_t ref_stride, int cols, int rows)
{
    for (int j = 0; j < rows; j++)
        for (int i = 0; i < cols; i++)
            *sad++ = sad_rect(cur + 8 * (j * cur_stride + i), cur_stride,
                              ref + 8 * (j * ref_stride + i), ref_stride, 8, 8);
}

static void min_keys_c(uint64_t *keys, const uint32_t *cost, uint32_t add, uint32_t idx, int n)
{
    for (int i = 0; i < n; i++)
        keys[i] = FFMIN(keys[i], gpume_key(cost[i] + add, idx));
}

static GPUME_VECTORIZE void dis_sums_c(int64_t *sums, const uint8_t *ref, ptrdiff_t stride, const int32_t *t,
                                       const int32_t *gx, const int32_t *gy, int fx, int fy)
{
    const int w00 = (16 - fx) * (16 - fy), w01 = fx * (16 - fy), w10 = (16 - fx) * fy, w11 = fx * fy;
    int64_t sbx = 0, sby = 0, s2 = 0;
    int s1 = 0;

    for (int y = 0; y < GPUME_DIS_PATCH; y++, t += GPUME_DIS_PATCH, gx += GPUME_DIS_PATCH, gy += GPUME_DIS_PATCH) {
        const uint8_t *ra = ref + y * stride, *rb = ra + stride;
        int rbx = 0, rby = 0, rsr = 0;
        for (int x = 0; x < GPUME_DIS_PATCH; x++) {
            const int e = w00 * ra[x] + w01 * ra[x + 1] + w10 * rb[x] + w11 * rb[x + 1] - t[x];
            const uint32_t ae = e < 0 ? -e : e;
            rbx += gx[x] * e;
            rby += gy[x] * e;
            rsr += e;
            s2  += (uint64_t)ae * ae;
        }
        sbx += rbx;
        sby += rby;
        s1  += rsr;
    }
    sums[0] = sbx;
    sums[1] = sby;
    sums[2] = s1;
    sums[3] = s2;
}

static void dis_template_c(int32_t *t, int32_t *gx, int32_t *gy, int32_t *sums,
                           const uint8_t *c, ptrdiff_t stride)
{
    int32_t gxx = 0, gxy = 0, gyy = 0, sgx = 0, sgy = 0;

    for (int y = 0; y < GPUME_DIS_PATCH; y++, c += stride) {
        for (int x = 0; x < GPUME_DIS_PATCH; x++) {
            const int k = y * GPUME_DIS_PATCH + x;
            const int dx = c[x + 1] - c[x - 1], dy = c[x + stride] - c[x - stride];
            t[k]  = c[x] << 2 * GPUME_DIS_FRAC;
            gx[k] = dx;
            gy[k] = dy;
            gxx  += dx * dx;
            gxy  += dx * dy;
            gyy  += dy * dy;
            sgx  += dx;
            sgy  += dy;
        }
    }
    sums[0] = gxx;
    sums[1] = gxy;
    sums[2] = gyy;
    sums[3] = sgx;
    sums[4] = sgy;
}

static void dis_weights_c(int64_t *acc, ptrdiff_t plane, const uint8_t *ref, ptrdiff_t stride,
                          const uint8_t *cur, int fx, int fy, const int32_t *v)
{
    const int w00 = (16 - fx) * (16 - fy), w01 = fx * (16 - fy), w10 = (16 - fx) * fy, w11 = fx * fy;

    for (int x = 0; x < GPUME_DIS_PATCH; x++) {
        const int smp = w00 * ref[x] + w01 * ref[x + 1] + w10 * ref[x + stride] + w11 * ref[x + stride + 1];
        const int wt  = gpume_dis_weight(smp - (cur[x] << 2 * GPUME_DIS_FRAC));
        acc[x]             += (int64_t)wt * v[0];
        acc[plane + x]     += (int64_t)wt * v[1];
        acc[2 * plane + x] += wt;
    }
}

static int first_least_c(const uint16_t *v, int n)
{
    int least = 0;

    for (int i = 1; i < n; i++)
        if (v[i] < v[least])
            least = i;
    return least;
}

av_cold void ff_gpume_dsp_init(GpumeDSPContext *c)
{
    c->sad4x4_rows  = sad4x4_rows_c;
    c->sad_qpel     = sad_qpel_c;
    c->sad_hpel     = sad_hpel_c;
    c->sad8x8_grid  = sad8x8_grid_c;
    c->first_least  = first_least_c;
    c->min_keys     = min_keys_c;
    c->sad_rect     = sad_rect_c;
    c->dis_sums     = dis_sums_c;
    c->dis_template = dis_template_c;
    c->dis_weights  = dis_weights_c;
#if ARCH_X86 && HAVE_X86ASM
    ff_gpume_dsp_init_x86(c);
#endif
}

/* the least cost of a row and its first column, packed: (cost << 7) | column */
#define ROW_LEAST(cost, x) ((uint32_t)(cost) << 7 | (x))

/**
 * The SADs of a vw x vh block at cb against the n x n blocks from rb on, in
 * raster order, into sad[]; vw, vh <= GPUME_MAX_CTU / 2 and one of them
 * below 4 keep them in 16 bits. Each column x of the reference is copied
 * with rows n apart, so that a sample of the block meets all n x n
 * candidates in one run.
 */
static GPUME_VECTORIZE void hme_narrow_sads(uint16_t *sad, const uint8_t *cb, int cs,
                                            const uint8_t *rb, int rs, int vw, int vh, int n)
{
    uint8_t col[(HME_L1_MAX_SIDE + GPUME_MAX_CTU / 2) * HME_L1_MAX_SIDE];

    for (int i = 0; i < n * n; i++)
        sad[i] = 0;
    for (int x = 0; x < vw; x++) {
        for (int y = 0; y < n + vh - 1; y++)
            memcpy(col + y * n, rb + y * rs + x, n);
        for (int y = 0; y < vh; y++) {
            const int v = cb[y * cs + x];
            const uint8_t *c = col + y * n;
            for (int i = 0; i < n * n; i++)
                sad[i] += abs(v - c[i]);
        }
    }
}

/**
 * hme level 1, one block of vw x vh at cb, not 4x4: the costs of its full
 * search over (dx, dy) in [-r, r]^2 around rb, in raster order, and the
 * least of each row with its first column (ROW_LEAST()).
 */
static void hme_block_costs(const GpumeCPUContext *s, const uint8_t *cb, int cs,
                            const uint8_t *rb, int rs, int vw, int vh, int r,
                            uint32_t *cost, uint32_t *row_least)
{
    const av_pixelutils_sad_fn sad = square_sad_fn(s, vw, vh);
    const int n = 2 * r + 1;
    uint16_t narrow_sads[HME_L1_MAX_SIDE * HME_L1_MAX_SIDE];
    const uint16_t *narrow = NULL;

    /* a block cut at the picture's edge to fewer than 4 columns or rows */
    if (vw < 4 || vh < 4) {
        hme_narrow_sads(narrow_sads, cb, cs, rb - r * rs - r, rs, vw, vh, n);
        narrow = narrow_sads;
    }
    for (int dy = -r; dy <= r; dy++, cost += n) {
        uint32_t least = UINT32_MAX;
        if (narrow) {
            for (int dx = -r; dx <= r; dx++)
                cost[dx + r] = s->p.lambda * (FFABS(dx) + FFABS(dy)) + narrow[(dy + r) * n + dx + r];
        } else {
            for (int dx = -r; dx <= r; dx++) {
                const uint8_t *rr = rb + dy * rs + dx;
                cost[dx + r] = s->p.lambda * (FFABS(dx) + FFABS(dy)) +
                               (sad ? sad(cb, cs, rr, rs) :
                                      s->dsp.sad_rect(cb, cs, rr, rs, vw, vh, UINT32_MAX));
            }
        }
        for (int dx = -r; dx <= r; dx++)
            least = FFMIN(least, ROW_LEAST(cost[dx + r], dx + r));
        row_least[dy + r] = least;
    }
}

/**
 * hme level 1, a block of 4x4 at cb: the minima (mx[], my[]) that
 * hme_least_separated() finds, each the first least of all the costs at
 * once; a minimum's neighbours within GPUME_HME_MINIMA_SEP then cost more
 * than any candidate. cost is scratch.
 */
static void hme_minima4x4(const GpumeCPUContext *s, const uint8_t *cb, int cs,
                          const uint8_t *rb, int rs, int r,
                          uint16_t *cost, int *mx, int *my)
{
    const int n = 2 * r + 1, stride = FFALIGN(n, 8), sep = GPUME_HME_MINIMA_SEP;

    /* the SADs and the vectors' costs; the pads take SADs too, at most
     * 16 * 255, and HME_PAD_COST */
    s->dsp.sad4x4_rows(cost, stride, s->vcost4x4, cb, cs, rb - r * rs - r, rs, n, n);
    for (int k = 0; k < GPUME_HME_BLOCK_MINIMA; k++) {
        const int c = s->dsp.first_least(cost, n * stride);
        if (cost[c] >= HME_PAD_COST) {
            /* nothing far enough: the first again */
            mx[k] = mx[0];
            my[k] = my[0];
            continue;
        }
        mx[k] = c % stride - r;
        my[k] = c / stride - r;
        for (int y = FFMAX(my[k] - sep, -r); y <= FFMIN(my[k] + sep, r); y++)
            for (int x = FFMAX(mx[k] - sep, -r); x <= FFMIN(mx[k] + sep, r); x++)
                cost[(y + r) * stride + x + r] = UINT16_MAX;
    }
}

/**
 * The least of the (2r + 1)^2 costs, the first in raster order, among the
 * candidates separated from the k earlier minima (mx[], my[]) as
 * gpume_hme_separate() defines it; -1 where none is. A row far from every
 * earlier minimum takes its least cost from row_least[].
 */
static int hme_least_separated(const uint32_t *cost, const uint32_t *row_least, int r, int k,
                               const int *mx, const int *my)
{
    const int n = 2 * r + 1;
    uint32_t best = UINT32_MAX;
    int best_c = -1;

    for (int dy = -r; dy <= r; dy++) {
        const uint32_t *row = cost + (dy + r) * n;
        int near = 0;

        for (int e = 0; e < k; e++)
            near |= FFABS(dy - my[e]) <= GPUME_HME_MINIMA_SEP;
        if (!near) {
            if (row_least[dy + r] >> 7 >= best)
                continue;
            best   = row_least[dy + r] >> 7;
            best_c = (dy + r) * n + (row_least[dy + r] & 127);
            continue;
        }
        for (int x = 0; x < n; x++)
            if (row[x] < best && gpume_hme_separate_vector(x - r, dy, k, mx, my)) {
                best   = row[x];
                best_c = (dy + r) * n + x;
            }
    }
    return best_c;
}

/**
 * hme level 1, the blocks of CTU (cx, cy) one by one: the
 * GPUME_HME_BLOCK_MINIMA separated minima of each block's full search,
 * doubled; a block outside the picture takes the CTU's best coarse vector.
 */
static void hme_blocks(const GpumeCPUContext *s, const EstimateJob *job, int cx, int cy,
                       GpumeHmeCoarse *out)
{
    const GpumeParams *p = &s->p;
    const CPUPlane *cur = &job->cur[1], *ref = &job->ref[1];
    const int bs = gpume_hme_block_size(p->block), side = gpume_hme_blocks_per_side(p->ctu, p->block);
    const int r = gpume_hme_l1_block_range(p->range), n = 2 * r + 1;
    uint16_t cost[HME_L1_MAX_SIDE * HME_L1_SAD_STRIDE];

    for (int j = 0; j < side * side; j++) {
        const int x = cx * p->ctu + j % side * bs, y = cy * p->ctu + j / side * bs;
        const int x1 = x >> 1, y1 = y >> 1;
        const int vw = FFMIN(bs >> 1, cur->w - x1), vh = FFMIN(bs >> 1, cur->h - y1);
        const uint8_t *cb = cur->data + y1 * cur->stride + x1, *rb = ref->data + y1 * ref->stride + x1;
        /* set before use; zeroed as the compiler may read them ahead, which valgrind reports */
        int mx[GPUME_HME_BLOCK_MINIMA] = { 0 }, my[GPUME_HME_BLOCK_MINIMA] = { 0 };

        if (x >= p->width || y >= p->height) {
            for (int k = 0; k < GPUME_HME_BLOCK_MINIMA; k++) {
                out->b[GPUME_HME_BLOCK_MINIMA * j + k][0] = out->v[0][0];
                out->b[GPUME_HME_BLOCK_MINIMA * j + k][1] = out->v[0][1];
            }
            continue;
        }
        if (vw == 4 && vh == 4) {
            /* every block with block=8, one cut at the picture's corner else */
            hme_minima4x4(s, cb, cur->stride, rb, ref->stride, r, cost, mx, my);
        } else {
            uint32_t costs[HME_L1_MAX_SIDE * HME_L1_MAX_SIDE], row_least[HME_L1_MAX_SIDE];
            hme_block_costs(s, cb, cur->stride, rb, ref->stride, vw, vh, r, costs, row_least);
            for (int k = 0; k < GPUME_HME_BLOCK_MINIMA; k++) {
                const int c = hme_least_separated(costs, row_least, r, k, mx, my);
                /* nothing far enough: the first again */
                mx[k] = c >= 0 ? c % n - r : mx[0];
                my[k] = c >= 0 ? c / n - r : my[0];
            }
        }
        for (int k = 0; k < GPUME_HME_BLOCK_MINIMA; k++) {
            out->b[GPUME_HME_BLOCK_MINIMA * j + k][0] = gpume_clip(2 * mx[k], -p->range, p->range);
            out->b[GPUME_HME_BLOCK_MINIMA * j + k][1] = gpume_clip(2 * my[k], -p->range, p->range);
        }
    }
}

/**
 * hme levels 2 and 1 of CTU (cx, cy): the GPUME_HME_MINIMA separated minima
 * of the level-2 full search, each refined at level 1; then its blocks.
 */
static void hme_coarse(const GpumeCPUContext *s, const EstimateJob *job, int cx, int cy)
{
    const GpumeParams *p = &s->p;
    const CPUPlane *cur = &job->cur[2], *ref = &job->ref[2];
    const int x0 = (cx * p->ctu) >> 2, y0 = (cy * p->ctu) >> 2;
    const int vw = FFMIN(p->ctu >> 2, cur->w - x0), vh = FFMIN(p->ctu >> 2, cur->h - y0);
    const int r = gpume_hme_l2_range(p->range), n = 2 * r + 1;
    const int whole = vw == p->ctu >> 2 && vh == p->ctu >> 2, stride = FFALIGN(n, 8);
    uint64_t keys[HME_L2_MAX_SIDE * HME_L2_MAX_SIDE];
    /* the first part's SADs are added to none */
    static const uint16_t no_sads[HME_L2_MAX_SIDE * HME_L2_SAD_STRIDE];
    uint16_t sad[HME_L2_MAX_SIDE * HME_L2_SAD_STRIDE];
    int mx[GPUME_HME_MINIMA], my[GPUME_HME_MINIMA];
    GpumeHmeCoarse *out = &job->coarse[cy * p->ctu_cols + cx];

    if (whole) {
        /* a whole block: the SADs of its 4x4 parts, every candidate of a
         * row at once, each part's added to those before (16 x 16 x 255
         * fits 16 bits) */
        const uint8_t *cb = cur->data + y0 * cur->stride + x0;
        const uint8_t *rb = ref->data + (y0 - r) * ref->stride + x0 - r;

        for (int y = 0; y < vh; y += 4) {
            for (int x = 0; x < vw; x += 4) {
                s->dsp.sad4x4_rows(sad, stride, x || y ? sad : no_sads,
                                   cb + y * cur->stride + x, cur->stride,
                                   rb + y * ref->stride + x, ref->stride, n, n);
            }
        }
    }
    /* candidate c is vector (c % n - r, c / n - r) */
    for (int c = 0, dy = -r; dy <= r; dy++)
        for (int dx = -r; dx <= r; dx++, c++)
            keys[c] = whole ? level_key_sad(s, sad[(dy + r) * stride + dx + r], dx, dy, c) :
                              level_key(s, cur, ref, x0, y0, vw, vh, dx, dy, c);
    for (int k = 0; k < GPUME_HME_MINIMA; k++) {
        uint64_t best = GPUME_INVALID_KEY;
        int v1x = 0, v1y = 0;
        for (int c = 0, dy = -r; dy <= r; dy++)
            for (int dx = -r; dx <= r; dx++, c++)
                if (keys[c] < best && gpume_hme_separate_vector(dx, dy, k, mx, my))
                    best = keys[c];
        if (best == GPUME_INVALID_KEY)
            best = keys[(my[0] + r) * n + mx[0] + r];
        mx[k] = (int)((uint32_t)best % n) - r;
        my[k] = (int)((uint32_t)best / n) - r;
        level_search(s, &job->cur[1], &job->ref[1], x0 << 1, y0 << 1, p->ctu >> 1,
                     2 * mx[k], 2 * my[k], GPUME_HME_L1_RANGE, &v1x, &v1y);
        out->v[k][0] = gpume_clip(2 * v1x, -p->range, p->range);
        out->v[k][1] = gpume_clip(2 * v1y, -p->range, p->range);
    }
    hme_blocks(s, job, cx, cy, out);
}

/* a set of vectors of [-range, range]^2, a bit each */
#define VECTOR_SET_WORDS (FFALIGN((2 * GPUME_MAX_RANGE + 1) * (2 * GPUME_MAX_RANGE + 1), 64) / 64)

/** Empties set, of the vectors of [-range, range]^2. */
static void vector_set_clear(uint64_t *set, int range)
{
    memset(set, 0, FFALIGN((2 * range + 1) * (2 * range + 1), 64) / 8);
}

/** Adds vector (dx, dy), in range, to set; returns 1 where it was not in it. */
static int vector_set_add(uint64_t *set, int dx, int dy, int range)
{
    const unsigned b = (dy + range) * (2 * range + 1) + dx + range;
    const uint64_t m = UINT64_C(1) << (b & 63);

    if (set[b >> 6] & m)
        return 0;
    set[b >> 6] |= m;
    return 1;
}

/** PU-table search of one CTU (full or hme): the best integer keys, best[i] for list[i] or for PU i. */
static void ctu_integer_search(const GpumeCPUContext *s, const EstimateJob *job,
                               int cx, int cy, int px, int py,
                               const uint16_t *list, int nb, uint64_t *best,
                               int *cand_x0, int *cand_y0)
{
    const GpumeParams *p = &s->p;
    const CPUPlane *cur = &job->cur[0], *ref = &job->ref[0];
    const int x0 = cx * p->ctu, y0 = cy * p->ctu;
    const int vw = FFMIN(p->ctu, p->width - x0), vh = FFMIN(p->ctu, p->height - y0);
    const uint8_t *c = cur->data + y0 * cur->stride + x0;
    const int R = p->range;
    uint64_t costed[VECTOR_SET_WORDS], seeded[VECTOR_SET_WORDS];

    for (int i = 0; i < p->nb_pus; i++)
        best[i] = GPUME_INVALID_KEY;

    if (p->algo == GPUME_ALGO_FULL) {
        for (int dy = -R; dy <= R; dy++)
            for (int dx = -R; dx <= R; dx++)
                pu_table_candidate(s, c, cur->stride, ref, x0, y0, vw, vh, dx, dy,
                                   (dy + R) * (2 * R + 1) + dx + R, px, py, list, nb, best);
        return;
    }

    /* hme. A vector is costed once, at the first candidate index that
     * gpume_hme_seen(), gpume_hme_block_new() and gpume_hme_round_new() let
     * through: costed again, at that index or a higher one, it changes no
     * key, so the set of vectors costed so far stands for those tests */
    vector_set_clear(costed, R);
    vector_set_clear(seeded, R);
    gpume_hme_windows(job->coarse, p->ctu_cols, p->ctu_rows, cy * p->ctu_cols + cx, px, py, R,
                      cand_x0, cand_y0);
    for (int w = 0, n = GPUME_HME_WINDOW * GPUME_HME_WINDOW; w < GPUME_HME_WINDOWS; w++) {
        /* a window equal to an earlier one is costed already (most repeat) */
        int repeat = 0;
        for (int e = 0; e < w; e++)
            repeat |= cand_x0[e] == cand_x0[w] && cand_y0[e] == cand_y0[w];
        if (repeat)
            continue;
        for (int k = w * n; k < (w + 1) * n; k++) {
            int dx, dy;
            const uint32_t idx = gpume_hme_candidate(k, cand_x0, cand_y0, &dx, &dy);
            if (gpume_in_range(dx, dy, R) && vector_set_add(costed, dx, dy, R))
                pu_table_candidate(s, c, cur->stride, ref, x0, y0, vw, vh, dx, dy, idx, px, py,
                                   list, nb, best);
        }
    }

    /* the block vectors, in range */
    {
        const GpumeHmeCoarse *coarse = &job->coarse[cy * p->ctu_cols + cx];
        for (int j = 0; j < gpume_hme_nb_block_vectors(p->ctu, p->block); j++) {
            const int dx = coarse->b[j][0], dy = coarse->b[j][1];
            if (vector_set_add(costed, dx, dy, R))
                pu_table_candidate(s, c, cur->stride, ref, x0, y0, vw, vh, dx, dy,
                                   gpume_hme_round_index(dx, dy, R), px, py, list, nb, best);
        }
    }

    /* rounds: the 3x3 neighbourhoods of the 2Nx2N PUs' winners so far */
    for (int r = 0; r < GPUME_HME_ROUNDS; r++) {
        const int ns = gpume_hme_nb_seeds(p->ctu, p->block, nb);
        int16_t sx[GPUME_HME_SEEDS(GPUME_MAX_CTU)], sy[GPUME_HME_SEEDS(GPUME_MAX_CTU)];

        for (int i = 0; i < ns; i++) {
            const int k = list ? i : gpume_hme_seed_pu(p->ctu, i);
            int vx, vy;
            gpume_key_vector(best[k], p->algo, R, cand_x0, cand_y0, &vx, &vy);
            sx[i] = vx;
            sy[i] = vy;
        }
        for (int i = 0; i < ns; i++) {
            /* a seed met before, in this round or an earlier one, has had
             * its neighbourhood costed (most repeat) */
            if (!gpume_in_range(sx[i], sy[i], R) || !vector_set_add(seeded, sx[i], sy[i], R))
                continue;
            for (int k = 9 * i; k < 9 * (i + 1); k++) {
                int dx, dy;
                gpume_hme_round_vector(k, sx, sy, 0, &dx, &dy);
                if (gpume_in_range(dx, dy, R) && vector_set_add(costed, dx, dy, R))
                    pu_table_candidate(s, c, cur->stride, ref, x0, y0, vw, vh, dx, dy,
                                       gpume_hme_round_index(dx, dy, R), px, py, list, nb, best);
            }
        }
    }
}

static void ctu_pu_search(GpumeCPUContext *s, const EstimateJob *job, int cx, int cy)
{
    const GpumeParams *p = &s->p;
    const int ctu_idx = cy * p->ctu_cols + cx;
    const int px = job->pred[2 * ctu_idx], py = job->pred[2 * ctu_idx + 1];
    const int x0 = cx * p->ctu, y0 = cy * p->ctu;
    const CPUPlane *cur = &job->cur[0];
    GpumeBlock *out = job->res->blocks + (size_t)ctu_idx * p->max_out;
    uint64_t best[GPUME_MAX_PUS];
    uint16_t chosen[GPUME_MAX_OUT_PER_CTU];
    int cand_x0[GPUME_HME_WINDOWS] = { 0 }, cand_y0[GPUME_HME_WINDOWS] = { 0 }, nb, n = 0;

    if (p->block) {
        ctu_integer_search(s, job, cx, cy, px, py, s->search_pus, s->nb_fixed_pus, best,
                           cand_x0, cand_y0);
        memcpy(chosen, s->fixed_pus, s->nb_fixed_pus * sizeof(*chosen));
        nb = s->nb_fixed_pus;
    } else {
        uint32_t cost[GPUME_MAX_PUS], tmp_cost[2 * (GPUME_MAX_CTU / 8) * (GPUME_MAX_CTU / 8)];
        uint8_t tmp_mode[2 * (GPUME_MAX_CTU / 8) * (GPUME_MAX_CTU / 8)];
        ctu_integer_search(s, job, cx, cy, px, py, NULL, p->nb_pus, best,
                           cand_x0, cand_y0);
        for (int i = 0; i < p->nb_pus; i++)
            cost[i] = best[i] >> 32;
        nb = gpume_choose_partition(cost, p->ctu, p->pu_penalty, tmp_cost, tmp_mode, chosen);
    }

    for (int i = 0; i < nb; i++) {
        const GpumePU pu = s->pu[chosen[i]];
        const int x = x0 + 4 * pu.l, y = y0 + 4 * pu.t;
        const int w = FFMIN(4 * (pu.r - pu.l), p->width - x);
        const int h = FFMIN(4 * (pu.b - pu.t), p->height - y);
        const uint64_t key = best[p->block ? s->search_pos[i] : chosen[i]];
        int vx, vy, qx, qy;
        uint32_t sad;
        if (w <= 0 || h <= 0)
            continue;
        gpume_key_vector(key, p->algo, p->range, cand_x0, cand_y0, &vx, &vy);
        qx = 4 * vx;
        qy = 4 * vy;
        /* the key's cost is the SAD of the PU's part in the picture plus
         * the vector's cost */
        sad = (uint32_t)(key >> 32) - gpume_mv_cost(p->lambda, qx, qy, px, py);
        sad = subpel_refine(s, cur->data + y * cur->stride + x, cur->stride, &job->ref[0],
                            x, y, w, h, &qx, &qy, px, py, sad);
        out[n++] = gpume_make_block(x, y, w, h, qx, qy, sad);
    }
    job->res->counts[ctu_idx] = n;
}

/** LFS: best of the N x N template around (cx, cy) with the given stride. */
static uint64_t lfs_step(const GpumeCPUContext *s, const uint8_t *c, int cs, const CPUPlane *ref,
                         int x, int y, int w, int h, int cxv, int cyv, int stride,
                         int px, int py, int *bx, int *by, uint32_t *bsad)
{
    uint64_t best = GPUME_INVALID_KEY;
    for (int j = 0; j < GPUME_LFS_N; j++) {
        for (int i = 0; i < GPUME_LFS_N; i++) {
            const int dx = cxv + (GPUME_LFS_LO + i) * stride, dy = cyv + (GPUME_LFS_LO + j) * stride;
            uint32_t sad;
            uint64_t key;
            if (!gpume_in_range(dx, dy, s->p.range))
                continue;
            sad = block_sad(s, c, cs, ref->data + (y + dy) * ref->stride + x + dx, ref->stride, w, h);
            key = gpume_key(sad + gpume_mv_cost(s->p.lambda, 4 * dx, 4 * dy, px, py),
                            j * GPUME_LFS_N + i);
            if (key < best) {
                best  = key;
                *bx   = dx;
                *by   = dy;
                *bsad = sad;
            }
        }
    }
    return best;
}

/** LFS sub-pel step: best of the N x N template around quarter-pel (cqx, cqy) at quarter-pel stride st. */
static void lfs_qpel_step(const GpumeCPUContext *s, const uint8_t *c, int cs, const CPUPlane *ref,
                          int x, int y, int w, int h, int cqx, int cqy, int st,
                          int px, int py, int *bx, int *by, uint32_t *bsad)
{
    uint64_t best = GPUME_INVALID_KEY;
    for (int j = 0; j < GPUME_LFS_N; j++) {
        for (int i = 0; i < GPUME_LFS_N; i++) {
            const int qx = cqx + (GPUME_LFS_LO + i) * st, qy = cqy + (GPUME_LFS_LO + j) * st;
            const uint32_t sq = sad_qpel(s, c, cs, ref, x, y, w, h, qx, qy);
            const uint64_t key = gpume_key(sq + gpume_mv_cost(s->p.lambda, qx, qy, px, py),
                                           j * GPUME_LFS_N + i);
            if (key < best) {
                best  = key;
                *bx   = qx;
                *by   = qy;
                *bsad = sq;
            }
        }
    }
}

static void ctu_lfs(GpumeCPUContext *s, const EstimateJob *job, int cx, int cy)
{
    const GpumeParams *p = &s->p;
    const int ctu_idx = cy * p->ctu_cols + cx;
    const int px = job->pred[2 * ctu_idx], py = job->pred[2 * ctu_idx + 1];
    const CPUPlane *cur = &job->cur[0], *ref = &job->ref[0];
    GpumeBlock *out = job->res->blocks + (size_t)ctu_idx * p->max_out;
    int n = 0;

    for (int k = 0; k < s->nb_fixed_pus; k++) {
        const GpumePU pu = s->pu[s->fixed_pus[k]];
        const int x = cx * p->ctu + 4 * pu.l, y = cy * p->ctu + 4 * pu.t;
        const int w = FFMIN(p->block, p->width - x), h = FFMIN(p->block, p->height - y);
        const uint8_t *c = cur->data + y * cur->stride + x;
        const uint32_t thr = (uint32_t)p->lfs_threshold * w * h / 64;
        GpumeLfs l;
        int bx = 0, by = 0;
        uint32_t sad = 0;

        if (w <= 0 || h <= 0)
            continue;
        gpume_lfs_start(&l);
        do {
            if (l.qpel)
                lfs_qpel_step(s, c, cur->stride, ref, x, y, w, h, l.cx, l.cy, l.stride, px, py,
                              &bx, &by, &sad);
            else
                lfs_step(s, c, cur->stride, ref, x, y, w, h, l.cx, l.cy, l.stride, px, py,
                         &bx, &by, &sad);
        } while (gpume_lfs_next(&l, bx, by, sad, thr, p->subpel));
        out[n++] = gpume_make_block(x, y, w, h, l.bx, l.by, l.sad);
    }
    job->res->counts[ctu_idx] = n;
}

/** dis: the exported blocks of one CTU, from the field of the finest level searched. */
static void ctu_dis(GpumeCPUContext *s, const EstimateJob *job, int cx, int cy)
{
    const GpumeParams *p = &s->p;
    const int ctu_idx = cy * p->ctu_cols + cx;
    const CPUPlane *cur = &job->cur[0];
    GpumeBlock *out = job->res->blocks + (size_t)ctu_idx * p->max_out;
    const int lu = s->dis_finest;
    int n = 0;

    for (int k = 0; k < s->nb_fixed_pus; k++) {
        const GpumePU pu = s->pu[s->fixed_pus[k]];
        const int x = cx * p->ctu + 4 * pu.l, y = cy * p->ctu + 4 * pu.t;
        const int w = FFMIN(p->block, p->width - x), h = FFMIN(p->block, p->height - y);
        uint32_t sad;
        int qx, qy;

        if (w <= 0 || h <= 0)
            continue;
        gpume_dis_block_vector(job->dis_field, s->dis_level[lu].w, lu, x, y, w, h, p->subpel, &qx, &qy);
        /* the padded planes hold vectors of GPUME_MAX_RANGE; dis's reach
         * farther, where the samples are clamped as the pads would be */
        if (FFMAX(FFABS(qx), FFABS(qy)) <= 4 * GPUME_MAX_RANGE)
            sad = sad_qpel(s, cur->data + y * cur->stride + x, cur->stride, &job->ref[0], x, y, w, h, qx, qy);
        else
            sad = gpume_dis_block_sad(cur->data, cur->stride, job->ref[0].data, job->ref[0].stride,
                                      p->width, p->height, x, y, w, h, qx, qy);
        out[n++] = gpume_make_block(x, y, w, h, qx, qy, sad);
    }
    job->res->counts[ctu_idx] = n;
}

/**
 * The template of a patch of GPUME_DIS_PATCH x GPUME_DIS_PATCH pixels:
 * samples in 1/256 and central differences (gpume_dis_gradient()), read
 * once for all the errors and steps of its descents.
 */
typedef struct DisTemplate {
    int32_t t[GPUME_DIS_PATCH * GPUME_DIS_PATCH];
    int32_t gx[GPUME_DIS_PATCH * GPUME_DIS_PATCH], gy[GPUME_DIS_PATCH * GPUME_DIS_PATCH];
    int gxx, gxy, gyy, sgx, sgy;    ///< the sums of gpume_dis_descent_init()
} DisTemplate;

/** Whether the patches of a level w x h have a DisTemplate (they are whole). */
static int dis_whole(int w, int h)
{
    return gpume_dis_patch_side(w) == GPUME_DIS_PATCH && gpume_dis_patch_side(h) == GPUME_DIS_PATCH;
}

/** A patch at (px, py) of a level w x h: what the sums of its steps read. */
typedef struct DisPatch {
    const GpumeDSPContext *dsp;
    const uint8_t *c, *r;       ///< the level's current and reference pictures
    int stride, w, h, px, py;
    const DisTemplate *tp;      ///< its template (dis_whole()), else NULL
} DisPatch;

#define DIS_BLOCK_STRIDE 16

/**
 * The n x n samples of the level p (w x h) from (x, y) on, n <=
 * DIS_BLOCK_STRIDE, each clamped into the level as gpume_dis_sample() and
 * gpume_dis_gradient() clamp them, into blk (rows DIS_BLOCK_STRIDE apart);
 * or where none is clamped, a pointer to them in p.
 */
static const uint8_t *dis_clamped_block(uint8_t *blk, const uint8_t *p, int stride, int w, int h,
                                        int x, int y, int n, ptrdiff_t *blk_stride)
{
    if (x >= 0 && y >= 0 && x + n <= w && y + n <= h) {
        *blk_stride = stride;
        return p + (ptrdiff_t)y * stride + x;
    }
    for (int j = 0; j < n; j++) {
        const uint8_t *row = p + av_clip(y + j, 0, h - 1) * stride;
        for (int i = 0; i < n; i++)
            blk[j * DIS_BLOCK_STRIDE + i] = row[av_clip(x + i, 0, w - 1)];
    }
    *blk_stride = DIS_BLOCK_STRIDE;
    return blk;
}

/**
 * The template of the patch at (px, py) of the level c (w x h), whole:
 * dsp->dis_template() on its samples and their neighbours, clamped in a
 * block of their own where the patch touches the level's border.
 */
static void dis_template_init(const GpumeDSPContext *dsp, DisTemplate *tp, const uint8_t *c, int stride,
                              int w, int h, int px, int py)
{
    uint8_t blk[(GPUME_DIS_PATCH + 2) * DIS_BLOCK_STRIDE];
    ptrdiff_t bs;
    const uint8_t *src = dis_clamped_block(blk, c, stride, w, h, px - 1, py - 1,
                                           GPUME_DIS_PATCH + 2, &bs);
    int32_t sums[5];

    dsp->dis_template(tp->t, tp->gx, tp->gy, sums, src + bs + 1, bs);
    tp->gxx = sums[0];
    tp->gxy = sums[1];
    tp->gyy = sums[2];
    tp->sgx = sums[3];
    tp->sgy = sums[4];
}

/**
 * gpume_dis_residual_sums() of the patch at (vx, vy): dsp->dis_sums() on
 * its template where it has one (its reference samples clamped, where some
 * lie outside, in a block of their own).
 */
static void dis_sums(const DisPatch *pa, int vx, int vy, int64_t *bx, int64_t *by, int *sr, int64_t *ssd)
{
    if (pa->tp) {
        uint8_t blk[(GPUME_DIS_PATCH + 1) * DIS_BLOCK_STRIDE];
        ptrdiff_t bs;
        const uint8_t *ref = dis_clamped_block(blk, pa->r, pa->stride, pa->w, pa->h,
                                               pa->px + (vx >> GPUME_DIS_FRAC), pa->py + (vy >> GPUME_DIS_FRAC),
                                               GPUME_DIS_PATCH + 1, &bs);
        int64_t sums[4];
        pa->dsp->dis_sums(sums, ref, bs, pa->tp->t, pa->tp->gx, pa->tp->gy, vx & 15, vy & 15);
        *bx  = sums[0];
        *by  = sums[1];
        *sr  = (int)sums[2];
        *ssd = sums[3];
    } else {
        gpume_dis_residual_sums(pa->c, pa->stride, pa->r, pa->stride, pa->w, pa->h, pa->px, pa->py, vx, vy,
                                bx, by, sr, ssd);
    }
}

/** The mean-normalised error (gpume_dis_error_of()) of the patch at (vx, vy). */
static int64_t dis_error(const DisPatch *pa, int vx, int vy)
{
    int64_t bx, by, ssd;
    int sr;

    dis_sums(pa, vx, vy, &bx, &by, &sr, &ssd);
    return gpume_dis_error_of(sr, ssd, gpume_dis_patch_side(pa->w) * gpume_dis_patch_side(pa->h));
}

/** The descent of the patch from (*ux, *uy) (gpume_dis_descent_step()). */
static void dis_patch(const DisPatch *pa, int *ux, int *uy)
{
    const DisTemplate *tp = pa->tp;
    GpumeDisDescent d;
    int64_t bx, by, ssd;
    int sr;

    if (tp)
        gpume_dis_descent_start(&d, tp->gxx, tp->gxy, tp->gyy, tp->sgx, tp->sgy,
                                GPUME_DIS_PATCH * GPUME_DIS_PATCH, *ux, *uy);
    else
        gpume_dis_descent_init(&d, pa->c, pa->stride, pa->w, pa->h, pa->px, pa->py, *ux, *uy);
    do
        dis_sums(pa, d.vx, d.vy, &bx, &by, &sr, &ssd);
    while (gpume_dis_descent_step(&d, bx, by, sr, ssd));
    gpume_dis_descent_result(&d, ux, uy);
}

/** dis: the patches of rows [start, end) of patches at one level. */
static int dis_patches(void *arg, int jobnr, int nb_jobs)
{
    const EstimateJob *job = arg;
    const int w = job->dis_w, h = job->dis_h, stride = job->dis_stride;
    const int nx = gpume_dis_nb_patches(w), ny = gpume_dis_nb_patches(h);
    const uint8_t *c = job->dis_cur, *r = job->dis_ref;
    int32_t *patch = job->s->dis_patch;

    for (int j = ny * jobnr / nb_jobs; j < ny * (jobnr + 1) / nb_jobs; j++) {
        const int py = gpume_dis_patch_pos(j, h);
        for (int i = 0; i < nx; i++) {
            const int px = gpume_dis_patch_pos(i, w);
            int ux, uy, hx = 0, hy = 0, start = GPUME_DIS_FROM_COARSE;
            DisTemplate tpl;
            DisPatch pa = { &job->s->dsp, c, r, stride, w, h, px, py, NULL };
            if (dis_whole(w, h)) {
                dis_template_init(&job->s->dsp, &tpl, c, stride, w, h, px, py);
                pa.tp = &tpl;
            }
            gpume_dis_patch_start(job->dis_coarse, job->dis_coarse_w, w, h, px, py, &ux, &uy);
            if (job->dis_finest) {
                const GpumeParams *p = &job->s->p;
                gpume_dis_hme_start(job->res->blocks, job->s->pu, job->s->fixed_pus, job->s->nb_fixed_pus,
                                    p->ctu, p->ctu_cols, p->max_out, p->width, p->height,
                                    job->s->dis_finest, w, h, px, py, &hx, &hy);
                start = gpume_dis_start_of(dis_error(&pa, hx, hy), dis_error(&pa, ux, uy), hx, hy, ux, uy);
                if (start == GPUME_DIS_FROM_HME) {
                    ux = hx;
                    uy = hy;
                }
            }
            dis_patch(&pa, &ux, &uy);
            if (start == GPUME_DIS_FROM_BOTH) {
                dis_patch(&pa, &hx, &hy);
                if (gpume_dis_keep_hme(dis_error(&pa, hx, hy), dis_error(&pa, ux, uy))) {
                    ux = hx;
                    uy = hy;
                }
            }
            patch[2 * (j * nx + i)]     = ux;
            patch[2 * (j * nx + i) + 1] = uy;
        }
    }
    return 0;
}

/**
 * dis: the field of a band of rows of one level from its patches: the sums
 * of gpume_dis_densify_px(), each patch adding its weighted vector to the
 * pixels of the band it covers (the same sums in another order), with
 * unclamped samples where the patch's reference lies inside the level.
 */
static int dis_densify(void *arg, int jobnr, int nb_jobs)
{
    const EstimateJob *job = arg;
    const int w = job->dis_w, h = job->dis_h, stride = job->dis_stride;
    const int pw = gpume_dis_patch_side(w), ph = gpume_dis_patch_side(h);
    const int nx = gpume_dis_nb_patches(w), ny = gpume_dis_nb_patches(h);
    const int y0 = h * jobnr / nb_jobs, y1 = h * (jobnr + 1) / nb_jobs;
    const ptrdiff_t plane = (ptrdiff_t)w * h;
    const int whole = dis_whole(w, h);
    const int32_t *patch = job->s->dis_patch;
    int64_t *acc = job->s->dis_acc;
    int32_t *field = job->dis_field;

    for (int k = 0; k < 3; k++)
        memset(acc + k * plane + y0 * w, 0, sizeof(*acc) * (y1 - y0) * w);
    for (int j = 0; j < ny; j++) {
        const int py = gpume_dis_patch_pos(j, h);
        const int ys = FFMAX(py, y0), ye = FFMIN(py + ph, y1);
        if (ys >= ye)
            continue;
        for (int i = 0; i < nx; i++) {
            const int px = gpume_dis_patch_pos(i, w);
            const int32_t *v = patch + 2 * (j * nx + i);
            uint8_t blk[(GPUME_DIS_PATCH + 1) * DIS_BLOCK_STRIDE];
            const uint8_t *ref = NULL;
            ptrdiff_t bs = 0;
            if (whole)
                ref = dis_clamped_block(blk, job->dis_ref, stride, w, h, px + (v[0] >> GPUME_DIS_FRAC),
                                        py + (v[1] >> GPUME_DIS_FRAC), GPUME_DIS_PATCH + 1, &bs);
            for (int y = ys; y < ye; y++) {
                int64_t *a = acc + y * w + px;
                if (whole) {
                    job->s->dsp.dis_weights(a, plane, ref + (y - py) * bs, bs, job->dis_cur + y * stride + px,
                                            v[0] & 15, v[1] & 15, v);
                    continue;
                }
                for (int x = 0; x < pw; x++) {
                    const int smp = gpume_dis_sample(job->dis_ref, stride, w, h, ((px + x) << GPUME_DIS_FRAC) + v[0],
                                                     (y << GPUME_DIS_FRAC) + v[1]);
                    const int wt  = gpume_dis_weight(smp - (job->dis_cur[y * stride + px + x] << 2 * GPUME_DIS_FRAC));
                    a[x]             += (int64_t)wt * v[0];
                    a[plane + x]     += (int64_t)wt * v[1];
                    a[2 * plane + x] += wt;
                }
            }
        }
    }
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < w; x++) {
            const int64_t *a = acc + y * w + x;
            field[2 * (y * w + x)]     = (int32_t)gpume_dis_rdiv(a[0], a[2 * plane]);
            field[2 * (y * w + x) + 1] = (int32_t)gpume_dis_rdiv(a[plane], a[2 * plane]);
        }
    return 0;
}

/** dis: the fields from the coarsest level to the finest searched; job->dis_field is the last. */
static int dis_levels(GpumeCPUContext *s, EstimateJob *job, int cur, int ref, int nb_threads)
{
    for (int l = s->dis_coarsest; l >= s->dis_finest; l--) {
        const int w = s->dis_level[l].w, h = s->dis_level[l].h;
        int err;

        job->dis_cur      = dis_plane(s, cur, l);
        job->dis_ref      = dis_plane(s, ref, l);
        job->dis_stride   = s->dis_level[l].pitch;
        job->dis_w        = w;
        job->dis_h        = h;
        job->dis_coarse   = l < s->dis_coarsest ? job->dis_field : NULL;
        job->dis_coarse_w = l < s->dis_coarsest ? s->dis_level[l + 1].w : 0;
        job->dis_field    = s->dis_field[l & 1];
        job->dis_finest   = l == s->dis_finest;
        err = s->host->execute(s->host->exec_opaque, dis_patches, job,
                               FFMIN(gpume_dis_nb_patches(h), nb_threads));
        if (err >= 0)
            err = s->host->execute(s->host->exec_opaque, dis_densify, job, FFMIN(h, nb_threads));
        if (err < 0)
            return err;
    }
    return 0;
}

/**
 * hme's first pass: the coarse levels of every CTU, which the level-0
 * windows of its neighbours read. A job of this pass and of the next is a
 * run of CTUs in raster order, so that the threads stay busy to its end.
 */
static int coarse_ctus(void *arg, int jobnr, int nb_jobs)
{
    EstimateJob *job = arg;
    GpumeCPUContext *s = job->s;
    const int start = (int64_t)s->p.nb_ctus * jobnr / nb_jobs;
    const int end   = (int64_t)s->p.nb_ctus * (jobnr + 1) / nb_jobs;

    for (int c = start; c < end; c++)
        hme_coarse(s, job, c % s->p.ctu_cols, c / s->p.ctu_cols);
    return 0;
}

static int estimate_ctus(void *arg, int jobnr, int nb_jobs)
{
    EstimateJob *job = arg;
    GpumeCPUContext *s = job->s;
    const int start = (int64_t)s->p.nb_ctus * jobnr / nb_jobs;
    const int end   = (int64_t)s->p.nb_ctus * (jobnr + 1) / nb_jobs;

    for (int c = start; c < end; c++) {
        if (s->p.algo == GPUME_ALGO_LFS)
            ctu_lfs(s, job, c % s->p.ctu_cols, c / s->p.ctu_cols);
        else if (job->dis_export)
            ctu_dis(s, job, c % s->p.ctu_cols, c / s->p.ctu_cols);
        else
            ctu_pu_search(s, job, c % s->p.ctu_cols, c / s->p.ctu_cols);
    }
    return 0;
}

/* a pass over the CTUs of every estimate of the batch: job k is job
 * k % batch_jobs of estimate k / batch_jobs */
static int batch_coarse_ctus(void *arg, int jobnr, int nb_jobs)
{
    GpumeCPUContext *s = arg;
    return coarse_ctus(&s->batch[jobnr / s->batch_jobs], jobnr % s->batch_jobs, s->batch_jobs);
}

static int batch_estimate_ctus(void *arg, int jobnr, int nb_jobs)
{
    GpumeCPUContext *s = arg;
    return estimate_ctus(&s->batch[jobnr / s->batch_jobs], jobnr % s->batch_jobs, s->batch_jobs);
}

/** Run the estimates issued since the last run into their results. */
static int run_batch(GpumeCPUContext *s)
{
    const int n = s->nb_batch;
    int err = 0;

    s->nb_batch = 0;
    if (!n)
        return 0;
    if (s->p.algo == GPUME_ALGO_HME)
        err = s->host->execute(s->host->exec_opaque, batch_coarse_ctus, s, n * s->batch_jobs);
    if (err >= 0)
        err = s->host->execute(s->host->exec_opaque, batch_estimate_ctus, s, n * s->batch_jobs);
    /* dis: from hme's blocks, just written into res, to its own */
    for (int i = 0; i < n && s->dis && err >= 0; i++) {
        EstimateJob *job = &s->batch[i];
        err = dis_levels(s, job, job->cur_slot, job->ref_slot,
                         s->host->nb_threads > 1 ? 8 * s->host->nb_threads : 1);
        job->dis_export = 1;
        if (err >= 0)
            err = s->host->execute(s->host->exec_opaque, estimate_ctus, job, s->batch_jobs);
    }
    return err;
}

static int cpu_estimate(void *priv, int cur, int ref, const int16_t *pred, int pred_from,
                        int out, GpumeResult *res)
{
    GpumeCPUContext *s = priv;
    int run = s->nb_batch == CPU_BATCH, n, err;

    if (!ff_gpume_is_search_algo(s->p.algo))
        return AVERROR(ENOSYS);
    if (out < 0 || out >= GPUME_NB_RESULTS || pred_from >= GPUME_NB_RESULTS ||
        (pred_from >= 0 && !s->res[pred_from].blocks))
        return AVERROR_BUG;
    /* the batch runs first when it is full, or when it writes the result
     * that the predictors are taken from */
    for (int i = 0; i < s->nb_batch; i++)
        run |= pred_from >= 0 && s->batch[i].res == &s->res[pred_from];
    if (run && (err = run_batch(s)) < 0)
        return err;

    n = s->nb_batch++;
    if (pred_from >= 0) {
        for (int c = 0; c < s->p.nb_ctus; c++)
            gpume_ctu_predictor(s->res[pred_from].blocks, s->res[pred_from].counts,
                                s->p.max_out, c, s->pred[n]);
    } else {
        memcpy(s->pred[n], pred, 2 * s->p.nb_ctus * sizeof(*pred));
    }
    s->res[out] = *res;
    s->batch[n] = (EstimateJob) {
        .s        = s,
        .cur      = s->pic[cur],
        .ref      = s->pic[ref],
        .cur_slot = cur,
        .ref_slot = ref,
        .pred     = s->pred[n],
        .res      = &s->res[out],
        .coarse   = s->coarse[n],
    };
    return 0;
}

static int cpu_sync(void *priv)
{
    return run_batch(priv);
}

const GpumeBackend ff_gpume_backend_cpu = {
    .name      = "cpu",
    .priv_size = sizeof(GpumeCPUContext),
    .synchronous = 1,
    .init      = cpu_init,
    .load      = cpu_load,
    .estimate  = cpu_estimate,
    .sync      = cpu_sync,
    .uninit    = cpu_uninit,
};
