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

#include "mcfps_cpu.h"

/** Vector of one AVMotionVector as A -> B displacement in quarter pel, from its own frame's view. */
static void mv_qpel(const AVMotionVector *mv, int *qx, int *qy)
{
    if (mv->motion_scale > 0) {
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

int ff_mcfps_raster(const AVMotionVector *mvs, int nb, int source, int negate,
                    const McfpsParams *p, int16_t *field)
{
    int covered = 0;

    memset(field, 0, sizeof(*field) * 2 * p->cw * p->ch);
    for (int n = 0; n < nb; n++) {
        const AVMotionVector *mv = &mvs[n];
        int qx, qy, x0, y0, i0, i1, j0, j1;

        if (mv->source != source || mv->w <= 0 || mv->h <= 0)
            continue;
        mv_qpel(mv, &qx, &qy);
        if (negate) {
            qx = -qx;
            qy = -qy;
        }
        x0 = mv->dst_x - mv->w / 2;
        y0 = mv->dst_y - mv->h / 2;
        /* a superset of the cells whose sample point (centre, clamped into
         * the frame) lies in the block; the exact test follows */
        i0 = FFMAX(0, (x0 - MCFPS_CELL) >> MCFPS_CELL_LOG2);
        i1 = FFMIN(p->cw - 1, (x0 + mv->w) >> MCFPS_CELL_LOG2);
        j0 = FFMAX(0, (y0 - MCFPS_CELL) >> MCFPS_CELL_LOG2);
        j1 = FFMIN(p->ch - 1, (y0 + mv->h) >> MCFPS_CELL_LOG2);
        for (int j = j0; j <= j1; j++) {
            for (int i = i0; i <= i1; i++) {
                const int cx = FFMIN(i * MCFPS_CELL + MCFPS_CELL / 2, p->width - 1);
                const int cy = FFMIN(j * MCFPS_CELL + MCFPS_CELL / 2, p->height - 1);
                if (cx < x0 || cx >= x0 + mv->w || cy < y0 || cy >= y0 + mv->h)
                    continue;
                field[2 * (j * p->cw + i)]     = qx;
                field[2 * (j * p->cw + i) + 1] = qy;
                covered++;
            }
        }
    }
    return covered;
}

void ff_mcfps_smooth_rows(const McfpsParams *p, const int16_t *raw, int16_t *out, int j0, int j1)
{
    for (int j = j0; j < j1; j++)
        for (int i = 0; i < p->cw; i++)
            mcfps_smooth_cell(raw, out, p->cw, p->ch, i, j);
}

void ff_mcfps_select_rows(const McfpsParams *p, const uint8_t *a, int sa, const uint8_t *b, int sb,
                          const int16_t *ra, const int16_t *rb, const int16_t *fa, const int16_t *fb,
                          int16_t *vec, uint16_t *info, int j0, int j1)
{
    for (int j = j0; j < j1; j++)
        for (int i = 0; i < p->cw; i++)
            info[j * p->cw + i] = mcfps_select_cell(p, a, sa, b, sb, ra, rb, fa, fb, i, j, vec);
}

void ff_mcfps_render_rows(const McfpsParams *p, const McfpsPlane *pl,
                          const int16_t *vec, const uint16_t *info, int y0, int y1)
{
    for (int y = y0; y < y1; y++) {
        uint8_t *dst = pl->dst + (ptrdiff_t)y * pl->sd;
        for (int x = 0; x < pl->w; x++)
            dst[x] = mcfps_render_pixel(p, pl->a, pl->sa, pl->b, pl->sb, pl->w, pl->h,
                                        pl->lx, pl->ly, vec, info, x, y);
    }
}

void ff_mcfps_blend_rows(const McfpsPlane *pl, int phi, int y0, int y1)
{
    for (int y = y0; y < y1; y++) {
        const uint8_t *a = pl->a + (ptrdiff_t)y * pl->sa, *b = pl->b + (ptrdiff_t)y * pl->sb;
        uint8_t *dst = pl->dst + (ptrdiff_t)y * pl->sd;
        for (int x = 0; x < pl->w; x++)
            dst[x] = mcfps_blend_pixel(a[x], b[x], phi);
    }
}

static int cmp_u32(const void *a, const void *b)
{
    const uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int ff_mcfps_dominant(const McfpsParams *p, const int16_t *ra, const int16_t *rb, int *gx, int *gy)
{
    const int cells = p->cw * p->ch;
    uint32_t *keys = av_malloc_array(2 * cells, sizeof(*keys));
    int n = 0, best = 0, best_n = 0;

    *gx = *gy = 0;
    if (!keys)
        return AVERROR(ENOMEM);
    for (int k = 0; k < cells; k++) {
        /* (vx, vy) + 32768 as one ascending key: vy major */
        if (ra[2 * k] || ra[2 * k + 1])
            keys[n++] = (uint32_t)(ra[2 * k + 1] + 32768) << 16 | (uint32_t)(ra[2 * k] + 32768);
        if (rb[2 * k] || rb[2 * k + 1])
            keys[n++] = (uint32_t)(rb[2 * k + 1] + 32768) << 16 | (uint32_t)(rb[2 * k] + 32768);
    }
    qsort(keys, n, sizeof(*keys), cmp_u32);
    for (int i = 0, run = 0; i < n; i++) {
        run = i && keys[i] == keys[i - 1] ? run + 1 : 1;
        if (run > best_n) {
            best_n = run;
            best   = i;
        }
    }
    if (best_n) {
        *gx = (int)(keys[best] & 0xffff) - 32768;
        *gy = (int)(keys[best] >> 16) - 32768;
    }
    av_free(keys);
    return 0;
}
