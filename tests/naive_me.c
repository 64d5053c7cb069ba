/*
 * gpume tests: plain implementation of docs/ALGORITHMS.md (see naive_me.h).
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

#include "naive_me.h"

/* ---------------------------------------------------------------- pixels */

static int clampi(int v, int lo, int hi)
{
    if (v < lo)
        return lo;
    if (v > hi)
        return hi;
    return v;
}

static int absi(int v)
{
    return v < 0 ? -v : v;
}

/** floor(a / b) for b > 0, without relying on shifts of negative values. */
static int floor_div(int a, int b)
{
    int q = a / b;
    if (a % b != 0 && a < 0)
        q--;
    return q;
}

int naive_pixel(const NaivePlane *pl, int x, int y)
{
    x = clampi(x, 0, pl->w - 1);
    y = clampi(y, 0, pl->h - 1);
    return pl->data[(ptrdiff_t)y * pl->linesize + x];
}

int naive_sample_qpel(const NaivePlane *pl, int qx, int qy)
{
    const int x0 = floor_div(qx, 4), fx = qx - 4 * x0;
    const int y0 = floor_div(qy, 4), fy = qy - 4 * y0;
    const int a = naive_pixel(pl, x0,     y0);
    const int b = naive_pixel(pl, x0 + 1, y0);
    const int c = naive_pixel(pl, x0,     y0 + 1);
    const int d = naive_pixel(pl, x0 + 1, y0 + 1);
    return ((4 - fx) * (4 - fy) * a + fx * (4 - fy) * b +
            (4 - fx) * fy * c + fx * fy * d + 8) / 16;
}

uint64_t naive_sad_q(const NaivePlane *cur, const NaivePlane *ref,
                     int x, int y, int w, int h, int qx, int qy)
{
    uint64_t sad = 0;
    for (int j = y; j < y + h; j++) {
        if (j < 0 || j >= cur->h)
            continue;
        for (int i = x; i < x + w; i++) {
            int r;
            if (i < 0 || i >= cur->w)
                continue;
            if (qx % 4 == 0 && qy % 4 == 0)
                r = naive_pixel(ref, i + qx / 4, j + qy / 4);
            else
                r = naive_sample_qpel(ref, 4 * i + qx, 4 * j + qy);
            sad += absi(naive_pixel(cur, i, j) - r);
        }
    }
    return sad;
}

static uint64_t sad_int(const NaivePlane *cur, const NaivePlane *ref,
                        int x, int y, int w, int h, int vx, int vy)
{
    return naive_sad_q(cur, ref, x, y, w, h, 4 * vx, 4 * vy);
}

/* ---------------------------------------------------------- PU geometry */

/** Position of the z-th CU in Z order, in CU units. */
static void morton_decode(int z, int *cx, int *cy)
{
    int x = 0, y = 0;
    for (int bit = 0; bit < 8; bit++) {
        x |= ((z >> (2 * bit))     & 1) << bit;
        y |= ((z >> (2 * bit + 1)) & 1) << bit;
    }
    *cx = x;
    *cy = y;
}

static int add_pu(NaivePU *pus, int n, int cu_x, int cu_y, int cu, int mode, int part,
                  int x, int y, int w, int h)
{
    pus[n] = (NaivePU) { .x = cu_x + x, .y = cu_y + y, .w = w, .h = h,
                         .cu_x = cu_x, .cu_y = cu_y, .cu = cu, .mode = mode, .part = part };
    return n + 1;
}

int naive_pu_table(int ctu, NaivePU *pus)
{
    int n = 0;
    for (int s = 8; s <= ctu; s *= 2) {
        const int per_side = ctu / s, q = s / 4, hs = s / 2;
        for (int z = 0; z < per_side * per_side; z++) {
            int cx, cy, X, Y;
            morton_decode(z, &cx, &cy);
            X = cx * s;
            Y = cy * s;
            n = add_pu(pus, n, X, Y, s, 0, 0, 0, 0, s, s);           /* 2Nx2N */
            n = add_pu(pus, n, X, Y, s, 1, 0, 0, 0, s, hs);          /* 2NxN  */
            n = add_pu(pus, n, X, Y, s, 1, 1, 0, hs, s, hs);
            n = add_pu(pus, n, X, Y, s, 2, 0, 0, 0, hs, s);          /* Nx2N  */
            n = add_pu(pus, n, X, Y, s, 2, 1, hs, 0, hs, s);
            if (s == 8) {                                            /* NxN, Z order */
                n = add_pu(pus, n, X, Y, s, 3, 0, 0, 0, 4, 4);
                n = add_pu(pus, n, X, Y, s, 3, 1, 4, 0, 4, 4);
                n = add_pu(pus, n, X, Y, s, 3, 2, 0, 4, 4, 4);
                n = add_pu(pus, n, X, Y, s, 3, 3, 4, 4, 4, 4);
            } else {
                n = add_pu(pus, n, X, Y, s, 3, 0, 0, 0, s, q);       /* 2NxnU */
                n = add_pu(pus, n, X, Y, s, 3, 1, 0, q, s, s - q);
                n = add_pu(pus, n, X, Y, s, 4, 0, 0, 0, s, s - q);   /* 2NxnD */
                n = add_pu(pus, n, X, Y, s, 4, 1, 0, s - q, s, q);
                n = add_pu(pus, n, X, Y, s, 5, 0, 0, 0, q, s);       /* nLx2N */
                n = add_pu(pus, n, X, Y, s, 5, 1, q, 0, s - q, s);
                n = add_pu(pus, n, X, Y, s, 6, 0, 0, 0, s - q, s);   /* nRx2N */
                n = add_pu(pus, n, X, Y, s, 6, 1, s - q, 0, q, s);
            }
        }
    }
    return n;
}

static int find_pu(const NaivePU *pus, int nb, int cu_x, int cu_y, int cu, int mode, int part)
{
    for (int i = 0; i < nb; i++)
        if (pus[i].cu_x == cu_x && pus[i].cu_y == cu_y && pus[i].cu == cu &&
            pus[i].mode == mode && pus[i].part == part)
            return i;
    return -1;
}

/** Best cost of the CU (x, y, s); appends its chosen PUs to out. */
static uint64_t decide_cu(const NaivePU *pus, int nb, const uint64_t *cost, uint64_t pen,
                          int x, int y, int s, int *out, int *n)
{
    const int nb_modes = s == 8 ? 4 : 7;
    uint64_t best = UINT64_MAX;
    int best_mode = 0;

    for (int m = 0; m < nb_modes; m++) {
        const int parts = m == 0 ? 1 : (m == 3 && s == 8) ? 4 : 2;
        uint64_t c = pen * (parts - 1);
        for (int k = 0; k < parts; k++)
            c += cost[find_pu(pus, nb, x, y, s, m, k)];
        if (c < best) {
            best = c;
            best_mode = m;
        }
    }
    if (s > 8) {
        int sub[NAIVE_MAX_PUS], nsub = 0;
        const int h = s / 2;
        uint64_t split = 3 * pen;
        split += decide_cu(pus, nb, cost, pen, x,     y,     h, sub, &nsub);
        split += decide_cu(pus, nb, cost, pen, x + h, y,     h, sub, &nsub);
        split += decide_cu(pus, nb, cost, pen, x,     y + h, h, sub, &nsub);
        split += decide_cu(pus, nb, cost, pen, x + h, y + h, h, sub, &nsub);
        if (split < best) {
            for (int i = 0; i < nsub; i++)
                out[(*n)++] = sub[i];
            return split;
        }
    }
    {
        const int parts = best_mode == 0 ? 1 : (best_mode == 3 && s == 8) ? 4 : 2;
        for (int k = 0; k < parts; k++)
            out[(*n)++] = find_pu(pus, nb, x, y, s, best_mode, k);
    }
    return best;
}

int naive_choose_partition(int ctu, const NaivePU *pus, int nb_pus,
                           const uint64_t *cost, uint64_t pu_penalty, int *out)
{
    int n = 0;
    decide_cu(pus, nb_pus, cost, pu_penalty, 0, 0, ctu, out, &n);
    return n;
}

/* -------------------------------------------------------------- layout */

int naive_max_out(const GpumeParams *p)
{
    const int b = p->block ? p->block : 4;
    return (p->ctu / b) * (p->ctu / b);
}

void naive_ctu_grid(const GpumeParams *p, int *cols, int *rows)
{
    *cols = 0;
    while (*cols * p->ctu < p->width)
        ++*cols;
    *rows = 0;
    while (*rows * p->ctu < p->height)
        ++*rows;
}

/* ------------------------------------------------------------- searches */

/** Running arg-min of the key (cost, index) of §3. */
typedef struct Best {
    uint64_t cost;
    uint32_t idx;
    int vx, vy;         ///< integer or quarter-pel vector, depending on the search
    uint64_t sad;
    int valid;
} Best;

static void best_offer(Best *b, uint64_t cost, uint32_t idx, int vx, int vy, uint64_t sad)
{
    if (!b->valid || cost < b->cost || (cost == b->cost && idx < b->idx)) {
        *b = (Best) { cost, idx, vx, vy, sad, 1 };
    }
}

static uint64_t mv_cost(int lambda, int qx, int qy, int px, int py)
{
    return (uint64_t)lambda * (uint64_t)(absi(qx - px) + absi(qy - py));
}

/** Pixels of (x, y, w, h) inside a w x h frame. */
static int clipped_size(int x, int y, int w, int h, int fw, int fh, int *cw, int *ch)
{
    *cw = (x + w > fw ? fw : x + w) - x;
    *ch = (y + h > fh ? fh : y + h) - y;
    return *cw > 0 && *ch > 0;
}

/** One pyramid level made from the previous one (§5 hme). */
static uint8_t *downscale(const NaivePlane *src, NaivePlane *dst)
{
    uint8_t *buf;
    dst->w = (src->w + 1) / 2;
    dst->h = (src->h + 1) / 2;
    buf = malloc((size_t)dst->w * dst->h);
    if (!buf)
        return NULL;
    for (int y = 0; y < dst->h; y++)
        for (int x = 0; x < dst->w; x++)
            buf[y * dst->w + x] = (naive_pixel(src, 2 * x, 2 * y) + naive_pixel(src, 2 * x + 1, 2 * y) +
                                   naive_pixel(src, 2 * x, 2 * y + 1) +
                                   naive_pixel(src, 2 * x + 1, 2 * y + 1) + 2) / 4;
    dst->data = buf;
    dst->linesize = dst->w;
    return buf;
}

/**
 * Coarse-level search of hme: block (x, y, s) clipped to the level, candidates
 * (cx + i, cy + j) for i, j in [-r, r], raster index, cost SAD + lambda * |v|_1.
 */
static void level_search(const NaivePlane *cur, const NaivePlane *ref, int x, int y, int s,
                         int cx, int cy, int r, int lambda, int *vx, int *vy)
{
    Best b = { 0 };
    for (int j = -r; j <= r; j++)
        for (int i = -r; i <= r; i++) {
            const int dx = cx + i, dy = cy + j;
            const uint64_t sad = sad_int(cur, ref, x, y, s, s, dx, dy);
            best_offer(&b, sad + (uint64_t)lambda * (absi(dx) + absi(dy)),
                       (j + r) * (2 * r + 1) + (i + r), dx, dy, sad);
        }
    *vx = b.vx;
    *vy = b.vy;
}

/** hme's first pass over one CTU: coarse vectors v (steps 1, 2), block vectors b (step 3). */
typedef struct NaiveCoarse {
    int v[3][2];
    int b[2 * (64 / 8) * (64 / 8)][2];
} NaiveCoarse;

/**
 * The nb separated minima of hme (§5 hme, steps 1 and 3) of the full search
 * of block (x, y, s) of a level, clipped to it, over [-r, r]^2, raster index,
 * cost SAD + lambda * |v|_1: minimum k is the best candidate farther than 1
 * (max norm) from every earlier one, or the first again when none is.
 */
static void separated_minima(const NaivePlane *cur, const NaivePlane *ref, int x, int y, int s,
                             int r, int lambda, int nb, int picked[][2])
{
    for (int k = 0; k < nb; k++) {
        Best b = { 0 };
        for (int j = -r; j <= r; j++)
            for (int i = -r; i <= r; i++) {
                int far = 1;
                for (int e = 0; e < k; e++)
                    if (absi(i - picked[e][0]) <= 1 && absi(j - picked[e][1]) <= 1)
                        far = 0;
                if (far) {
                    const uint64_t sad = sad_int(cur, ref, x, y, s, s, i, j);
                    best_offer(&b, sad + (uint64_t)lambda * (absi(i) + absi(j)),
                               (j + r) * (2 * r + 1) + (i + r), i, j, sad);
                }
            }
        if (!b.valid) {         /* nothing far enough: the best again */
            b.vx = picked[0][0];
            b.vy = picked[0][1];
        }
        picked[k][0] = b.vx;
        picked[k][1] = b.vy;
    }
}

/**
 * hme level 1 block by block (§5 hme, step 3): the blocks of side
 * block (8 with block=auto) of the CTU at (X, Y) in raster order, two
 * separated minima each over [-ceil(range / 2), ceil(range / 2)]^2, doubled
 * and clipped; a block outside the picture takes u0 = v[0].
 */
static void hme_blocks(const GpumeParams *p, const NaivePlane *cur_lv, const NaivePlane *ref_lv,
                       int X, int Y, NaiveCoarse *co)
{
    const int B = p->block ? p->block : 8, side = p->ctu / B, r = (p->range + 1) / 2;

    for (int q = 0; q < side * side; q++) {
        const int x = X + q % side * B, y = Y + q / side * B;
        const int inside = x < p->width && y < p->height;
        int picked[2][2];
        if (inside)
            separated_minima(&cur_lv[1], &ref_lv[1], x / 2, y / 2, B / 2, r, p->lambda, 2, picked);
        for (int k = 0; k < 2; k++) {
            co->b[2 * q + k][0] = inside ? clampi(2 * picked[k][0], -p->range, p->range) : co->v[0][0];
            co->b[2 * q + k][1] = inside ? clampi(2 * picked[k][1], -p->range, p->range) : co->v[0][1];
        }
    }
}

/**
 * hme levels 2 and 1 of the CTU at (X, Y) (§5 hme, steps 1 and 2): the three
 * separated minima of the level-2 search, each refined at level 1, doubled
 * and clipped to the range, best first, into v[k][0..1].
 */
static void hme_coarse(const GpumeParams *p, const NaivePlane *cur_lv, const NaivePlane *ref_lv,
                       int X, int Y, int v[3][2])
{
    int picked[3][2];

    separated_minima(&cur_lv[2], &ref_lv[2], X / 4, Y / 4, p->ctu / 4, (p->range + 3) / 4,
                     p->lambda, 3, picked);
    for (int k = 0; k < 3; k++) {
        int v1x, v1y;
        level_search(&cur_lv[1], &ref_lv[1], X / 2, Y / 2, p->ctu / 2,
                     2 * picked[k][0], 2 * picked[k][1], 2, p->lambda, &v1x, &v1y);
        v[k][0] = clampi(2 * v1x, -p->range, p->range);
        v[k][1] = clampi(2 * v1y, -p->range, p->range);
    }
}

/** Half- and quarter-pel refinement (§8) of the clipped block from 4 * (vx, vy). */
static void subpel_refine(const GpumeParams *p, const NaivePlane *cur, const NaivePlane *ref,
                          int x, int y, int w, int h, int vx, int vy, int px, int py,
                          int *qx, int *qy, uint64_t *sad)
{
    static const int nbr[9][2] = { { 0, 0 }, { -1, -1 }, { 0, -1 }, { 1, -1 }, { -1, 0 },
                                   { 1, 0 }, { -1, 1 }, { 0, 1 }, { 1, 1 } };
    int cx = 4 * vx, cy = 4 * vy;

    for (int stage = 1; stage <= p->subpel; stage++) {
        const int dist = stage == 1 ? 2 : 1;
        Best b = { 0 };
        for (int i = 0; i < 9; i++) {
            const int tx = cx + nbr[i][0] * dist, ty = cy + nbr[i][1] * dist;
            const uint64_t s = naive_sad_q(cur, ref, x, y, w, h, tx, ty);
            best_offer(&b, s + mv_cost(p->lambda, tx, ty, px, py), i, tx, ty, s);
        }
        cx = b.vx;
        cy = b.vy;
    }
    *qx = cx;
    *qy = cy;
    *sad = naive_sad_q(cur, ref, x, y, w, h, cx, cy);
}

static void put_block(GpumeBlock *b, int x, int y, int w, int h, int qx, int qy, uint64_t sad)
{
    b->x = x;
    b->y = y;
    b->w = w;
    b->h = h;
    b->mvx = qx;
    b->mvy = qy;
    b->sad = (uint32_t)sad;
}

/** Exported squares of fixed-block mode, as PU table indices, Z order. */
static int fixed_blocks(const GpumeParams *p, const NaivePU *pus, int nb, int *out)
{
    const int per_side = p->ctu / p->block;
    for (int z = 0; z < per_side * per_side; z++) {
        int cx, cy;
        morton_decode(z, &cx, &cy);
        out[z] = find_pu(pus, nb, cx * p->block, cy * p->block, p->block, 0, 0);
    }
    return per_side * per_side;
}

/** full and hme: integer PU-table search, partition, sub-pel, export of one CTU. */
static int ctu_full_hme(const GpumeParams *p, const NaivePlane *cur, const NaivePlane *ref,
                        const NaivePlane *cur_lv, const NaivePlane *ref_lv,
                        const NaivePU *pus, int nb_pus, int X, int Y, int px, int py,
                        const NaiveCoarse *coarse, int cols, int rows, GpumeBlock *out)
{
    static Best best[NAIVE_MAX_PUS];
    static uint64_t cost[NAIVE_MAX_PUS];
    static int use[NAIVE_MAX_PUS], chosen[NAIVE_MAX_PUS];
    const int R = p->range;
    int nb_chosen = 0, n = 0;

    /* the PUs to search: all for block=auto, the exported squares otherwise */
    if (p->block) {
        nb_chosen = fixed_blocks(p, pus, nb_pus, chosen);
        memset(use, 0, sizeof(use));
        for (int i = 0; i < nb_chosen; i++)
            use[chosen[i]] = 1;
    } else {
        for (int i = 0; i < nb_pus; i++)
            use[i] = 1;
    }

    for (int k = 0; k < nb_pus; k++) {
        const NaivePU *pu = &pus[k];
        best[k] = (Best) { 0 };
        if (!use[k])
            continue;
        if (p->algo == GPUME_ALGO_FULL) {
            for (int vy = -R; vy <= R; vy++)
                for (int vx = -R; vx <= R; vx++) {
                    const uint64_t sad = sad_int(cur, ref, X + pu->x, Y + pu->y, pu->w, pu->h, vx, vy);
                    best_offer(&best[k], sad + mv_cost(p->lambda, 4 * vx, 4 * vy, px, py),
                               (vy + R) * (2 * R + 1) + (vx + R), vx, vy, sad);
                }
        }
    }

    if (p->algo == GPUME_ALGO_HME) {
        /* window centres and radii: own best, predictor, own 2nd and 3rd,
         * left, right, upper and lower neighbour's best */
        const int cx = X / p->ctu, cy = Y / p->ctu, c = cy * cols + cx;
        const int nb[4] = { cx > 0 ? c - 1 : c, cx + 1 < cols ? c + 1 : c,
                            cy > 0 ? c - cols : c, cy + 1 < rows ? c + cols : c };
        int centre[8][2], radius[8];
        centre[0][0] = coarse[c].v[0][0];
        centre[0][1] = coarse[c].v[0][1];
        centre[1][0] = clampi(floor_div(px + 2, 4), -R, R);
        centre[1][1] = clampi(floor_div(py + 2, 4), -R, R);
        for (int k = 0; k < 2; k++) {
            centre[2 + k][0] = coarse[c].v[1 + k][0];
            centre[2 + k][1] = coarse[c].v[1 + k][1];
        }
        for (int k = 0; k < 4; k++) {
            centre[4 + k][0] = coarse[nb[k]].v[0][0];
            centre[4 + k][1] = coarse[nb[k]].v[0][1];
        }
        for (int w = 0; w < 8; w++)
            radius[w] = 2;
        for (int k = 0; k < nb_pus; k++) {
            const NaivePU *pu = &pus[k];
            if (!use[k])
                continue;
            for (int w = 0; w < 8; w++) {
                const int n = 2 * radius[w] + 1;
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < n; i++) {
                        const int vx = centre[w][0] - radius[w] + i;
                        const int vy = centre[w][1] - radius[w] + j;
                        uint64_t sad;
                        if (absi(vx) > R || absi(vy) > R)
                            continue;
                        sad = sad_int(cur, ref, X + pu->x, Y + pu->y, pu->w, pu->h, vx, vy);
                        best_offer(&best[k], sad + mv_cost(p->lambda, 4 * vx, 4 * vy, px, py),
                                   w * 81 + j * n + i, vx, vy, sad);
                    }
            }
        }
        /* the block vectors, index 648 + raster */
        {
            const int nbv = 2 * (p->ctu / (p->block ? p->block : 8)) * (p->ctu / (p->block ? p->block : 8));
            for (int e = 0; e < nbv; e++) {
                const int vx = coarse[c].b[e][0], vy = coarse[c].b[e][1];
                for (int k = 0; k < nb_pus; k++) {
                    const NaivePU *pu = &pus[k];
                    uint64_t sad;
                    if (!use[k])
                        continue;
                    sad = sad_int(cur, ref, X + pu->x, Y + pu->y, pu->w, pu->h, vx, vy);
                    best_offer(&best[k], sad + mv_cost(p->lambda, 4 * vx, 4 * vy, px, py),
                               648 + (vy + R) * (2 * R + 1) + (vx + R), vx, vy, sad);
                }
            }
        }
        /* two rounds: every searched 2Nx2N PU's winner and its eight
         * neighbours, costed for every searched PU, index 648 + raster */
        for (int round = 0; round < 2; round++) {
            static int seed[NAIVE_MAX_PUS][2];
            int ns = 0;
            for (int k = 0; k < nb_pus; k++)
                if (use[k] && pus[k].mode == 0) {
                    seed[ns][0] = best[k].vx;
                    seed[ns++][1] = best[k].vy;
                }
            for (int e = 0; e < ns; e++)
                for (int oy = -1; oy <= 1; oy++)
                    for (int ox = -1; ox <= 1; ox++) {
                        const int vx = seed[e][0] + ox, vy = seed[e][1] + oy;
                        if (absi(vx) > R || absi(vy) > R)
                            continue;
                        for (int k = 0; k < nb_pus; k++) {
                            const NaivePU *pu = &pus[k];
                            uint64_t sad;
                            if (!use[k])
                                continue;
                            sad = sad_int(cur, ref, X + pu->x, Y + pu->y, pu->w, pu->h, vx, vy);
                            best_offer(&best[k], sad + mv_cost(p->lambda, 4 * vx, 4 * vy, px, py),
                                       648 + (vy + R) * (2 * R + 1) + (vx + R), vx, vy, sad);
                        }
                    }
        }
    }

    if (!p->block) {
        for (int k = 0; k < nb_pus; k++)
            cost[k] = best[k].cost;
        nb_chosen = naive_choose_partition(p->ctu, pus, nb_pus, cost, p->pu_penalty, chosen);
    }

    for (int i = 0; i < nb_chosen; i++) {
        const NaivePU *pu = &pus[chosen[i]];
        const int x = X + pu->x, y = Y + pu->y;
        int w, h, qx, qy;
        uint64_t sad;
        if (!clipped_size(x, y, pu->w, pu->h, p->width, p->height, &w, &h))
            continue;
        subpel_refine(p, cur, ref, x, y, w, h, best[chosen[i]].vx, best[chosen[i]].vy,
                      px, py, &qx, &qy, &sad);
        put_block(&out[n++], x, y, w, h, qx, qy, sad);
    }
    return n;
}

/** One LFS step: template around (cx, cy) with the given stride, beyond-range points skipped. */
static Best lfs_step(const GpumeParams *p, const NaivePlane *cur, const NaivePlane *ref,
                     int x, int y, int w, int h, int cx, int cy, int stride, int px, int py)
{
    Best b = { 0 };
    for (int oy = -4; oy <= 3; oy++)
        for (int ox = -4; ox <= 3; ox++) {
            const int vx = cx + stride * ox, vy = cy + stride * oy;
            uint64_t sad;
            if (absi(vx) > p->range || absi(vy) > p->range)
                continue;
            sad = sad_int(cur, ref, x, y, w, h, vx, vy);
            best_offer(&b, sad + mv_cost(p->lambda, 4 * vx, 4 * vy, px, py),
                       (oy + 4) * 8 + (ox + 4), vx, vy, sad);
        }
    return b;
}

static int ctu_lfs(const GpumeParams *p, const NaivePlane *cur, const NaivePlane *ref,
                   int X, int Y, int px, int py, GpumeBlock *out)
{
    const int per_side = p->ctu / p->block;
    int n = 0;

    for (int z = 0; z < per_side * per_side; z++) {
        int bx, by, x, y, w, h, qx, qy;
        uint64_t thr, sad;
        Best b;
        morton_decode(z, &bx, &by);
        x = X + bx * p->block;
        y = Y + by * p->block;
        if (!clipped_size(x, y, p->block, p->block, p->width, p->height, &w, &h))
            continue;
        thr = (uint64_t)p->lfs_threshold * (uint64_t)(w * h) / 64;

        b = lfs_step(p, cur, ref, x, y, w, h, 0, 0, 1, px, py);
        if (!((absi(b.vx) <= 1 && absi(b.vy) <= 1) || b.sad <= thr)) {
            const Best b1 = b;
            b = lfs_step(p, cur, ref, x, y, w, h, b1.vx, b1.vy, 2, px, py);
            if (!(b.sad <= thr || (b.vx == b1.vx && b.vy == b1.vy)))
                b = lfs_step(p, cur, ref, x, y, w, h, b.vx, b.vy, 1, px, py);
        }
        qx = 4 * b.vx;
        qy = 4 * b.vy;
        sad = b.sad;
        if (p->subpel > 0) {
            const int s = p->subpel == 2 ? 1 : 2;
            Best q = { 0 };
            for (int oy = -4; oy <= 3; oy++)
                for (int ox = -4; ox <= 3; ox++) {
                    const int tx = 4 * b.vx + s * ox, ty = 4 * b.vy + s * oy;
                    const uint64_t sq = naive_sad_q(cur, ref, x, y, w, h, tx, ty);
                    best_offer(&q, sq + mv_cost(p->lambda, tx, ty, px, py),
                               (oy + 4) * 8 + (ox + 4), tx, ty, sq);
                }
            qx = q.vx;
            qy = q.vy;
            sad = q.sad;
        }
        put_block(&out[n++], x, y, w, h, qx, qy, sad);
    }
    return n;
}

int naive_me_estimate(const GpumeParams *p, const NaivePlane *cur, const NaivePlane *ref,
                      const int16_t *pred, GpumeBlock *blocks, uint16_t *counts)
{
    static NaivePU pus[NAIVE_MAX_PUS];
    NaivePlane cur_lv[3] = { *cur }, ref_lv[3] = { *ref };
    NaiveCoarse *coarse = NULL;
    uint8_t *bufs[4] = { NULL };
    const int max_out = naive_max_out(p);
    int cols, rows, nb_pus, ret = 0;

    if (p->algo != GPUME_ALGO_FULL && p->algo != GPUME_ALGO_HME && p->algo != GPUME_ALGO_LFS)
        return -1;
    if (p->algo == GPUME_ALGO_LFS && !p->block)
        return -1;
    nb_pus = naive_pu_table(p->ctu, pus);
    naive_ctu_grid(p, &cols, &rows);

    if (p->algo == GPUME_ALGO_HME) {
        for (int k = 1; k <= 2; k++) {
            bufs[2 * k - 2] = downscale(&cur_lv[k - 1], &cur_lv[k]);
            bufs[2 * k - 1] = downscale(&ref_lv[k - 1], &ref_lv[k]);
            if (!bufs[2 * k - 2] || !bufs[2 * k - 1]) {
                ret = -1;
                goto end;
            }
        }
        /* all CTUs' coarse vectors first: the windows of a CTU use its neighbours' */
        if (!(coarse = malloc(sizeof(*coarse) * cols * rows))) {
            ret = -1;
            goto end;
        }
        for (int c = 0; c < cols * rows; c++) {
            hme_coarse(p, cur_lv, ref_lv, c % cols * p->ctu, c / cols * p->ctu, coarse[c].v);
            hme_blocks(p, cur_lv, ref_lv, c % cols * p->ctu, c / cols * p->ctu, &coarse[c]);
        }
    }

    for (int cy = 0; cy < rows; cy++)
        for (int cx = 0; cx < cols; cx++) {
            const int c = cy * cols + cx;
            const int px = pred ? pred[2 * c] : 0, py = pred ? pred[2 * c + 1] : 0;
            GpumeBlock *out = blocks + (size_t)c * max_out;
            if (p->algo == GPUME_ALGO_LFS)
                counts[c] = ctu_lfs(p, cur, ref, cx * p->ctu, cy * p->ctu, px, py, out);
            else
                counts[c] = ctu_full_hme(p, cur, ref, cur_lv, ref_lv, pus, nb_pus,
                                         cx * p->ctu, cy * p->ctu, px, py, coarse, cols, rows, out);
        }
end:
    for (int i = 0; i < 4; i++)
        free(bufs[i]);
    free(coarse);
    return ret;
}

/* ------------------------------------------------------------ side data */

void naive_side_data(const GpumeBlock *b, int subpel, int source, AVMotionVector *mv)
{
    const int scale = 1 << subpel, div = 4 / scale;
    memset(mv, 0, sizeof(*mv));
    mv->source       = source;
    mv->w            = b->w;
    mv->h            = b->h;
    mv->dst_x        = b->x + b->w / 2;
    mv->dst_y        = b->y + b->h / 2;
    mv->motion_scale = scale;
    mv->motion_x     = floor_div(b->mvx, div);
    mv->motion_y     = floor_div(b->mvy, div);
    mv->src_x        = mv->dst_x + floor_div(b->mvx + 2, 4);
    mv->src_y        = mv->dst_y + floor_div(b->mvy + 2, 4);
    mv->flags        = 0;
}
