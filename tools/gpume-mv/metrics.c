/*
 * gpume-mv: metrics on luma planes (prediction, errors, smoothness).
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

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/common.h"
#include "libavutil/error.h"
#include "libavutil/mem.h"

#include "libavfilter/gpume.h"

#include "gpume-mv.h"

int mv_sample_q(const Plane *r, int qx, int qy)
{
    return gpume_sample_qpel(r->data, r->linesize, r->w, r->h, qx, qy);
}

int mv_to_qpel(int v, int scale)
{
    const int64_t num = 8 * (int64_t)v + scale, den = 2 * (int64_t)scale;
    int64_t q = num / den;
    if ((num % den) && num < 0)
        q--;                            /* floor */
    return (int)av_clip64(q, INT_MIN / 8, INT_MAX / 8);
}

int mv_block_from_mv(const AVMotionVector *mv, int w, int h, Block *b, int *inconsistent)
{
    const int x = mv->dst_x - mv->w / 2, y = mv->dst_y - mv->h / 2;
    const int x1 = FFMIN(x + mv->w, w), y1 = FFMIN(y + mv->h, h);

    b->x     = FFMAX(x, 0);
    b->y     = FFMAX(y, 0);
    b->w     = x1 - b->x;
    b->h     = y1 - b->y;
    b->dst_x = mv->dst_x;
    b->dst_y = mv->dst_y;
    b->mx = mv->motion_scale ? (double)mv->motion_x / mv->motion_scale : 0;
    b->my = mv->motion_scale ? (double)mv->motion_y / mv->motion_scale : 0;
    if (mv->motion_scale && fabs(b->mx - (mv->src_x - mv->dst_x)) <= 1 &&
        fabs(b->my - (mv->src_y - mv->dst_y)) <= 1) {
        b->qx = mv_to_qpel(mv->motion_x, mv->motion_scale);
        b->qy = mv_to_qpel(mv->motion_y, mv->motion_scale);
    } else {
        *inconsistent |= !!mv->motion_scale;
        b->mx = mv->src_x - mv->dst_x;
        b->my = mv->src_y - mv->dst_y;
        b->qx = 4 * (mv->src_x - mv->dst_x);
        b->qy = 4 * (mv->src_y - mv->dst_y);
    }
    return b->w > 0 && b->h > 0;
}

void mv_predict(const Plane *ref, const Block *blocks, int nb, uint8_t *pred, int32_t *label)
{
    const int w = ref->w, h = ref->h;

    for (int y = 0; y < h; y++) {
        memcpy(pred + (size_t)y * w, ref->data + y * ref->linesize, w);
        for (int x = 0; x < w; x++)
            label[(size_t)y * w + x] = -1;
    }
    for (int i = 0; i < nb; i++) {
        const Block *b = &blocks[i];
        for (int y = b->y; y < b->y + b->h; y++)
            for (int x = b->x; x < b->x + b->w; x++) {
                pred[(size_t)y * w + x]  = mv_sample_q(ref, 4 * x + b->qx, 4 * y + b->qy);
                label[(size_t)y * w + x] = i;
            }
    }
}

void mv_plane_diff(const Plane *c, const uint8_t *pred, ptrdiff_t pred_stride,
                   uint64_t *sse, uint64_t *sad)
{
    uint64_t s2 = 0, s1 = 0;
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x < c->w; x++) {
            const int d = c->data[y * c->linesize + x] - pred[y * pred_stride + x];
            s2 += d * d;
            s1 += FFABS(d);
        }
    *sse = s2;
    *sad = s1;
}

double mv_psnr(uint64_t sse, uint64_t pixels)
{
    if (!pixels)
        return NAN;
    if (!sse)
        return INFINITY;
    return 10.0 * log10(255.0 * 255.0 * pixels / sse);
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double mv_median(double *v, size_t n)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof(*v), cmp_double);
    return n & 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int push_pair(PairBuf *p, int32_t a, int32_t b)
{
    if (a > b)
        FFSWAP(int32_t, a, b);
    if (p->nb == p->size) {
        const size_t size = FFMAX(2 * p->size, 256);
        uint64_t *n = av_realloc_array(p->pairs, size, sizeof(*n));
        if (!n)
            return AVERROR(ENOMEM);
        p->pairs = n;
        p->size  = size;
    }
    p->pairs[p->nb++] = (uint64_t)a << 32 | (uint32_t)b;
    return 0;
}

int mv_smoothness(const int32_t *label, int w, int h, const Block *blocks,
                  PairBuf *buf, double *sum, int64_t *nb_pairs)
{
    int err;

    buf->nb = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int32_t *l = label + (size_t)y * w + x;
            /* a pair seen on the pixel above (right) / to the left (below) is not repeated */
            if (x + 1 < w && l[0] >= 0 && l[1] >= 0 && l[0] != l[1] &&
                !(y && l[-w] == l[0] && l[1 - w] == l[1]) &&
                (err = push_pair(buf, l[0], l[1])) < 0)
                return err;
            if (y + 1 < h && l[0] >= 0 && l[w] >= 0 && l[0] != l[w] &&
                !(x && l[-1] == l[0] && l[w - 1] == l[w]) &&
                (err = push_pair(buf, l[0], l[w])) < 0)
                return err;
        }
    if (buf->nb)                        /* else pairs may be NULL */
        qsort(buf->pairs, buf->nb, sizeof(*buf->pairs), cmp_u64);
    *sum      = 0;
    *nb_pairs = 0;
    for (size_t i = 0; i < buf->nb; i++) {
        const Block *a = &blocks[buf->pairs[i] >> 32], *b = &blocks[(uint32_t)buf->pairs[i]];
        if (i && buf->pairs[i] == buf->pairs[i - 1])
            continue;
        *sum += hypot(a->mx - b->mx, a->my - b->my);
        (*nb_pairs)++;
    }
    return 0;
}
