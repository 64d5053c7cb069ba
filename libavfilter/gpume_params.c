/*
 * gpume: derived search parameters, shared by all backends.
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

#include <limits.h>
#include <string.h>

#include "libavutil/error.h"
#include "libavutil/macros.h"
#include "gpume_backend.h"

int ff_gpume_params_derive(GpumeParams *p)
{
    if (p->width < 1 || p->height < 1 || p->width > INT16_MAX / 2 || p->height > INT16_MAX / 2 ||
        (p->ctu != 16 && p->ctu != 32 && p->ctu != 64) ||
        (p->block && (p->block < GPUME_MIN_CU || p->block > p->ctu || (p->block & (p->block - 1)))) ||
        p->range < 1 || p->range > GPUME_MAX_RANGE || p->subpel < 0 || p->subpel > 2 ||
        p->lambda < 0 || p->lambda > GPUME_MAX_LAMBDA ||
        p->pu_penalty < 0 || p->pu_penalty > GPUME_MAX_PU_PENALTY ||
        p->lfs_threshold < 0 || p->lfs_threshold > 64 * 255 ||
        p->algo < 0 || p->algo >= GPUME_ALGO_NB || p->pred < 0 || p->pred >= GPUME_PRED_NB ||
        ((p->algo == GPUME_ALGO_LFS || p->algo == GPUME_ALGO_DIS) && !p->block) ||
        p->vme_qp < 0 || p->vme_qp > 51 || p->vme_window < 0 || p->vme_window >= GPUME_VME_WINDOW_NB ||
        /* VME estimates 16x16 macroblocks: one per CTU, all of its partitions or 16x16 only */
        (p->algo == GPUME_ALGO_VME && (p->ctu != 16 || (p->block && p->block != 16))))
        return AVERROR(EINVAL);

    p->units    = p->ctu / 4;
    p->ctu_cols = (p->width  + p->ctu - 1) / p->ctu;
    p->ctu_rows = (p->height + p->ctu - 1) / p->ctu;
    p->nb_ctus  = p->ctu_cols * p->ctu_rows;
    p->nb_pus   = gpume_nb_pus(p->ctu);
    p->max_out  = p->block ? (p->ctu / p->block) * (p->ctu / p->block) : p->units * p->units;
    p->nb_fixed_pus = p->block ? p->max_out : 0;
    /* vectors reach range pixels, bilinear taps one more, sub-pel one
     * more; dis's exported SADs read the pads up to GPUME_MAX_RANGE and
     * clamped samples beyond (ctu_dis(), gpume_dis_block_sad()) */
    p->pad      = (p->algo == GPUME_ALGO_DIS ? GPUME_MAX_RANGE : p->range) + 4;
    p->lw[0] = p->width;
    p->lh[0] = p->height;
    for (int k = 1; k <= GPUME_HME_LEVELS; k++) {
        p->lw[k] = (p->lw[k - 1] + 1) >> 1;
        p->lh[k] = (p->lh[k - 1] + 1) >> 1;
    }
    return 0;
}

void ff_gpume_pu_tables(const GpumeParams *p, GpumePU *pu, uint16_t *fixed_pus)
{
    for (int i = 0; i < p->nb_pus; i++)
        pu[i] = gpume_pu_rect(p->ctu, i);
    for (int z = 0; z < p->nb_fixed_pus; z++)
        fixed_pus[z] = gpume_square_pu(p->ctu, p->block, z);
}

size_t ff_gpume_pyramid_layout(const GpumeParams *p, int align, GpumePlane *level)
{
    size_t size = 0;

    for (int k = 0; k <= GPUME_HME_LEVELS; k++) {
        GpumePlane *pl = &level[k];
        pl->w      = p->lw[k];
        pl->h      = p->lh[k];
        pl->pitch  = FFALIGN(pl->w + 2 * p->pad, align);
        pl->offset = size + (size_t)p->pad * pl->pitch + p->pad;
        size      += (size_t)pl->pitch * (pl->h + 2 * p->pad);
        if (size > INT32_MAX)
            return 0;
    }
    return size;
}

static void add_rect(GpumePyramidArgs *a, int *blocks, int level, int x, int y, int w, int h)
{
    if (w <= 0 || h <= 0)
        return;
    a->rect[a->nb_rects++] = (GpumePyramidRect) { x, y, w, h, level, *blocks };
    *blocks += FFALIGN(w, GPUME_PYR_BW) / GPUME_PYR_BW * (FFALIGN(h, GPUME_PYR_BH) / GPUME_PYR_BH);
}

int ff_gpume_pyramid_args(const GpumeParams *p, const GpumePlane *level, int level0_loaded,
                          GpumePyramidArgs *a)
{
    const int pad = p->pad, w = level[0].w, h = level[0].h;
    int blocks = 0;

    memset(a, 0, sizeof(*a));
    memcpy(a->level, level, sizeof(a->level));
    if (level0_loaded) {
        add_rect(a, &blocks, 0, -pad, -pad, w + 2 * pad, pad);   /* above */
        add_rect(a, &blocks, 0, -pad, h,    w + 2 * pad, pad);   /* below */
        add_rect(a, &blocks, 0, -pad, 0,    pad,         h);     /* left */
        add_rect(a, &blocks, 0, w,    0,    pad,         h);     /* right */
    } else {
        add_rect(a, &blocks, 0, -pad, -pad, w + 2 * pad, h + 2 * pad);
    }
    for (int k = 1; k <= GPUME_HME_LEVELS && p->algo == GPUME_ALGO_HME; k++)
        add_rect(a, &blocks, k, -pad, -pad, level[k].w + 2 * pad, level[k].h + 2 * pad);
    return blocks;
}

int ff_gpume_block8_search(const GpumeParams *p)
{
    return p->algo != GPUME_ALGO_LFS && p->ctu == 32 && p->block == 8;
}

int ff_gpume_full_key_packing(const GpumeParams *p, const int16_t *pred, int *key_bits, int *local)
{
    const int n = 2 * p->range + 1;
    const int nchunks = ((n + GPUME_FULL_K - 1) / GPUME_FULL_K * n + GPUME_FULL_PAIRS - 1) /
                        GPUME_FULL_PAIRS;
    int pmax = 4 * p->range + 3, bits = 0;
    uint64_t bound;

    if (p->range < GPUME_FULL_MIN_RANGE)
        return 0;
    if (pred) {
        pmax = 0;
        for (int i = 0; i < 2 * p->nb_ctus; i++)
            pmax = FFMAX(pmax, FFABS(pred[i]));
    }
    /* a cost: the SAD of a PU of at most 32 x 32 pixels, and the MV cost of
     * a vector in range; a key stays below the mark of no candidate (~0) */
    bound = 255 * 32 * 32 + (uint64_t)p->lambda * 2 * (4 * p->range + pmax);
    while ((1 << bits) < n * n)
        bits++;
    if (bound + 1 < (uint64_t)1 << (32 - bits)) {
        *key_bits = bits;
        *local    = 0;
        return 1;
    }
    if (bound + 1 < (uint64_t)1 << (32 - GPUME_FULL_LOCAL_BITS) && nchunks <= GPUME_FULL_MAX_CHUNKS) {
        *key_bits = GPUME_FULL_LOCAL_BITS;
        *local    = 1;
        return 1;
    }
    return 0;
}

size_t ff_gpume_readback_layout(const GpumeParams *p, size_t *blocks_offset)
{
    *blocks_offset = FFALIGN(p->nb_ctus * sizeof(uint16_t), 64);
    return *blocks_offset + (size_t)p->nb_ctus * p->max_out * sizeof(GpumeBlock);
}

int ff_gpume_readback_view(const GpumeParams *p, uint8_t *buf, size_t blocks_offset,
                           GpumeResult *view)
{
    const uint16_t *counts = (const uint16_t *)buf;

    for (int c = 0; c < p->nb_ctus; c++)
        if (counts[c] > p->max_out)
            return AVERROR_BUG;
    view->counts = (uint16_t *)buf;
    view->blocks = (GpumeBlock *)(buf + blocks_offset);
    return 0;
}

void ff_gpume_result_copy(const GpumeParams *p, const GpumeResult *src, const GpumeResult *dst)
{
    for (int c = 0; c < p->nb_ctus; c++) {
        const size_t at = (size_t)c * p->max_out;
        dst->counts[c] = src->counts[c];
        memcpy(dst->blocks + at, src->blocks + at, src->counts[c] * sizeof(*src->blocks));
    }
}

int ff_gpume_readback_result(const GpumeParams *p, uint8_t *buf, size_t blocks_offset,
                             const GpumeResult *res)
{
    GpumeResult view;
    int err = ff_gpume_readback_view(p, buf, blocks_offset, &view);

    if (err >= 0)
        ff_gpume_result_copy(p, &view, res);
    return err;
}

size_t ff_gpume_dis_layout(const GpumeParams *p, int align, GpumeDisLevel *lv)
{
    const int coarsest = gpume_dis_coarsest(p->width, p->height);
    size_t size = 0;

    for (int k = GPUME_HME_LEVELS + 1; k <= coarsest; k++) {
        lv[k].w      = (lv[k - 1].w + 1) >> 1;
        lv[k].h      = (lv[k - 1].h + 1) >> 1;
        lv[k].pitch  = FFALIGN(lv[k].w, align);
        lv[k].offset = size;
        size        += (size_t)lv[k].pitch * lv[k].h;
        if (size > INT_MAX)
            return 0;
    }
    return FFMAX(size, 1);
}
