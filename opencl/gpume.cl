/*
 * gpume: OpenCL kernels (OpenCL C 1.2, integer only, no subgroups). They
 * reproduce the CPU reference (docs/ALGORITHMS.md) bit for bit: every
 * arg-min is a minimum of (cost, index) keys, so work-item order never
 * matters. The host prepends gpume.h, gpume_kernel.h and gpume_opencl.h and
 * builds with -DGPUME_CTU=16|32|64 (the CTU size of the PU-table search).
 * Local memory comes as __local kernel arguments declared from the lists of
 * gpume_opencl.h, which the host sizes from the same lists.
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

#define NT GPUME_KERNEL_THREADS

/* the search kernels' buffers, after their GpumeSearchArgs */
#define SEARCH_BUFFERS                                                        \
    __global const uchar *cur_buf, __global const uchar *ref_buf,            \
    __global const short *pred, __global GpumeHmeCoarse *coarse,             \
    __global ulong *pu_keys, __global const GpumePU *pu_table,               \
    __global const ushort *fixed_pus, __global GpumeBlock *blocks,           \
    __global ushort *counts

/** Work-group minimum of one key per work-item; all get the result. */
static ulong wg_min_key(ulong key, __local ulong *red, int tid, int nt)
{
    red[tid] = key;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = nt / 2; s > 0; s >>= 1) {
        if (tid < s && red[tid + s] < red[tid])
            red[tid] = red[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    key = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return key;
}

/** Work-group sums of nv values per work-item (nv <= 9); results in red[v * NT]. */
static void wg_sums(const uint *vals, int nv, __local uint *red, int tid)
{
    for (int v = 0; v < nv; v++)
        red[v * NT + tid] = vals[v];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = NT / 2; s > 0; s >>= 1) {
        if (tid < s)
            for (int v = 0; v < nv; v++)
                red[v * NT + tid] += red[v * NT + tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/** SAD of the w x h block at (x, y) of cur against ref displaced by (dx, dy). */
static uint plane_sad(__global const uchar *cur, GpumePlane cp,
                      __global const uchar *ref, GpumePlane rp,
                      int x, int y, int w, int h, int dx, int dy)
{
    __global const uchar *c = cur + cp.offset + y * cp.pitch + x;
    __global const uchar *r = ref + rp.offset + (y + dy) * rp.pitch + x + dx;
    uint sad = 0;
    for (int j = 0; j < h; j++, c += cp.pitch, r += rp.pitch)
        for (int i = 0; i < w; i++)
            sad += abs_diff(c[i], r[i]);
    return sad;
}

/**
 * Level 0 of a picture from its luma plane (src, a.src.pitch, tightly
 * packed or not): every sample of the padded plane, the border replicating
 * the edges. One work-item per padded sample.
 */
__kernel void gpume_import(__global const uchar *src, __global uchar *pic, GpumePlaneArgs a)
{
    const int x = (int)get_global_id(0) - a.pad, y = (int)get_global_id(1) - a.pad;

    if (x >= a.dst.w + a.pad || y >= a.dst.h + a.pad)
        return;
    pic[a.dst.offset + y * a.dst.pitch + x] =
        src[a.src.offset + gpume_clip(y, 0, a.dst.h - 1) * a.src.pitch + gpume_clip(x, 0, a.dst.w - 1)];
}

/** Pyramid level a.dst from level a.src of the same buffer, border included. */
__kernel void gpume_downscale(__global uchar *pic, GpumePlaneArgs a)
{
    const int x = (int)get_global_id(0) - a.pad, y = (int)get_global_id(1) - a.pad;

    if (x >= a.dst.w + a.pad || y >= a.dst.h + a.pad)
        return;
    pic[a.dst.offset + y * a.dst.pitch + x] =
        gpume_downscale_px(pic + a.src.offset, a.src.pitch, a.src.w, a.src.h,
                           gpume_clip(x, 0, a.dst.w - 1), gpume_clip(y, 0, a.dst.h - 1));
}

/** The temporal predictor of each CTU from an earlier estimate (pred=temporal). */
__kernel void gpume_predictor(GpumePredArgs a, __global const GpumeBlock *blocks,
                              __global const ushort *counts, __global short *pred)
{
    const int c = get_global_id(0);

    if (c < a.nb_ctus)
        gpume_ctu_predictor(blocks, counts, a.max_out, c, pred);
}

/** Full search of the CTU's block at one coarse level; returns the winning vector. */
static void coarse_search(const GpumeSearchArgs *a, __global const uchar *cur_buf,
                          __global const uchar *ref_buf, int level, int ctu_idx,
                          int cxv, int cyv, int r, int *vx, int *vy, __local ulong *red)
{
    const int tid = get_local_id(0);
    const int cx = ctu_idx % a->p.ctu_cols, cy = ctu_idx / a->p.ctu_cols;
    const int bs = a->p.ctu >> level;
    const int x0 = (cx * a->p.ctu) >> level, y0 = (cy * a->p.ctu) >> level;
    const int vw = min(bs, a->cur[level].w - x0), vh = min(bs, a->cur[level].h - y0);
    const int n = 2 * r + 1;
    ulong best = GPUME_INVALID_KEY;

    for (int c = tid; c < n * n; c += NT) {
        const int dx = cxv + c % n - r, dy = cyv + c / n - r;
        const uint sad = plane_sad(cur_buf, a->cur[level], ref_buf, a->ref[level],
                                   x0, y0, vw, vh, dx, dy);
        const ulong key = gpume_key(sad + a->p.lambda * (gpume_iabs(dx) + gpume_iabs(dy)), c);
        if (key < best)
            best = key;
    }
    best = wg_min_key(best, red, tid, NT);
    *vx = cxv + (int)((uint)best % n) - r;
    *vy = cyv + (int)((uint)best / n) - r;
}

#define L2_MAX_R      ((GPUME_MAX_RANGE + 3) >> 2)
#define L2_PER_ITEM   (((2 * L2_MAX_R + 1) * (2 * L2_MAX_R + 1) + NT - 1) / NT)

/**
 * hme levels 2 and 1 of every CTU: the GPUME_HME_MINIMA separated minima of
 * the level-2 full search (each work-item keeps the keys of its
 * candidates), each refined at level 1; writes the CTU's GpumeHmeCoarse.
 */
__kernel __attribute__((reqd_work_group_size(NT, 1, 1)))
void gpume_hme_coarse(GpumeSearchArgs a, SEARCH_BUFFERS
                      GPUME_OCL_COARSE_LOCALS(GPUME_OCL_LOCAL_PARAM, GPUME_CTU))
{
    const int tid = get_local_id(0), ctu_idx = get_group_id(0);
    const int cx = ctu_idx % a.p.ctu_cols, cy = ctu_idx / a.p.ctu_cols;
    const int bs = a.p.ctu >> 2, x0 = (cx * a.p.ctu) >> 2, y0 = (cy * a.p.ctu) >> 2;
    const int vw = min(bs, a.cur[2].w - x0), vh = min(bs, a.cur[2].h - y0);
    const int r = gpume_hme_l2_range(a.p.range), n = 2 * r + 1;
    ulong keys[L2_PER_ITEM];
    int mx[GPUME_HME_MINIMA], my[GPUME_HME_MINIMA];

    for (int i = 0; i < L2_PER_ITEM; i++) {
        const int c = tid + i * NT;
        keys[i] = GPUME_INVALID_KEY;
        if (c < n * n) {
            const int dx = c % n - r, dy = c / n - r;
            const uint sad = plane_sad(cur_buf, a.cur[2], ref_buf, a.ref[2], x0, y0, vw, vh, dx, dy);
            keys[i] = gpume_key(sad + a.p.lambda * (gpume_iabs(dx) + gpume_iabs(dy)), c);
        }
    }
    for (int k = 0; k < GPUME_HME_MINIMA; k++) {
        ulong best = GPUME_INVALID_KEY;
        int v1x, v1y;
        for (int i = 0; i < L2_PER_ITEM; i++)
            if (keys[i] < best && gpume_hme_separate(tid + i * NT, r, k, mx, my))
                best = keys[i];
        best = wg_min_key(best, red, tid, NT);
        if (best == GPUME_INVALID_KEY) {    /* nothing far enough: the best again */
            mx[k] = mx[0];
            my[k] = my[0];
        } else {
            mx[k] = (int)((uint)best % n) - r;
            my[k] = (int)((uint)best / n) - r;
        }
        coarse_search(&a, cur_buf, ref_buf, 1, ctu_idx, 2 * mx[k], 2 * my[k], GPUME_HME_L1_RANGE,
                      &v1x, &v1y, red);
        if (tid == 0) {
            coarse[ctu_idx].v[k][0] = gpume_clip(2 * v1x, -a.p.range, a.p.range);
            coarse[ctu_idx].v[k][1] = gpume_clip(2 * v1y, -a.p.range, a.p.range);
        }
    }
}

/** Window origins of a CTU's PU-table search (full: one; hme: GPUME_HME_WINDOWS). */
static void pu_windows(const GpumeSearchArgs *a, __global const GpumeHmeCoarse *coarse,
                       int ctu_idx, int px, int py, int *x0, int *y0)
{
    if (a->p.algo == GPUME_ALGO_HME)
        gpume_hme_windows(coarse, a->p.ctu_cols, a->p.ctu_rows, ctu_idx, px, py, a->p.range,
                          x0, y0);
    else
        x0[0] = y0[0] = -a->p.range;
}

#define CTU GPUME_CTU
#define U   (CTU / 4)                 ///< 4x4 units per CTU side
#define U1  (U + 1)                   ///< side of the prefix table
#define TW  (U1 * U1)                 ///< entries of one prefix table
#define NB_CAND GPUME_OCL_BATCH(CTU)
#define MAX_PUS_PER_ITEM ((GPUME_MAX_PUS + NT - 1) / NT)
#define NO_CAND 0xffffffffu

/**
 * Row uy of the unit-SAD table of one candidate as running sums along the
 * row, written to row[1..U]. Interior CTUs take four samples per load;
 * CTUs crossing the frame edge count only their vw x vh valid samples.
 */
static void unit_row(__local const uchar *cur_s, __global const uchar *ref, int pitch,
                     int uy, int vw, int vh, int interior, __local uint *row)
{
    uint run = 0;
    if (interior) {
        for (int ux = 0; ux < U; ux++) {
            uint acc = 0;
            for (int y = 0; y < 4; y++) {
                const uint4 d = convert_uint4(abs_diff(vload4(0, cur_s + (4 * uy + y) * CTU + 4 * ux),
                                                       vload4(0, ref + (4 * uy + y) * pitch + 4 * ux)));
                acc += d.x + d.y + d.z + d.w;
            }
            run += acc;
            row[ux + 1] = run;
        }
    } else {
        const int rows = min(4, vh - 4 * uy);
        for (int ux = 0; ux < U; ux++) {
            const int cols = min(4, vw - 4 * ux);
            for (int y = 0; y < rows; y++)
                for (int x = 0; x < cols; x++)
                    run += abs_diff(cur_s[(4 * uy + y) * CTU + 4 * ux + x],
                                    ref[(4 * uy + y) * pitch + 4 * ux + x]);
            row[ux + 1] = run;
        }
    }
}

/**
 * PU-table search (full, hme level 0), one work-group per CTU. Per batch of
 * NB_CAND candidates: unit SADs as running row sums, column sums into the
 * 2-D prefix tables S, then the best key of every PU. With few PUs (fixed
 * blocks) G work-items share a PU, each taking every G-th candidate, and
 * their keys are reduced at the end. hme's rounds follow its windows: each
 * costs the 3x3 neighbourhoods of the 2Nx2N PUs' winners so far, those
 * gpume_hme_round_new() finds not costed yet.
 */
__kernel __attribute__((reqd_work_group_size(NT, 1, 1)))
void gpume_pu_search(GpumeSearchArgs a, SEARCH_BUFFERS
                     GPUME_OCL_PU_SEARCH_LOCALS(GPUME_OCL_LOCAL_PARAM, GPUME_CTU))
{

    const int tid = get_local_id(0), ctu_idx = get_group_id(0);
    const int X = (ctu_idx % a.p.ctu_cols) * CTU, Y = (ctu_idx / a.p.ctu_cols) * CTU;
    const int vw = min(CTU, a.p.width - X), vh = min(CTU, a.p.height - Y);
    const int interior = vw == CTU && vh == CTU;
    const int px = pred[2 * ctu_idx], py = pred[2 * ctu_idx + 1];
    const int nb = a.p.block ? a.nb_fixed_pus : a.p.nb_pus;
    const int G = 2 * nb <= NT ? NT / nb : 1;   /* work-items per PU */
    __global const uchar *cur0 = cur_buf + a.cur[0].offset;
    __global const uchar *ref0 = ref_buf + a.ref[0].offset;
    const int rpitch = a.ref[0].pitch;
    const int hme = a.p.algo == GPUME_ALGO_HME;
    const int ns = gpume_hme_nb_seeds(CTU, a.p.block, nb);
    int wx0[GPUME_HME_WINDOWS], wy0[GPUME_HME_WINDOWS];
    GpumePU my_pu[MAX_PUS_PER_ITEM];
    ulong best[MAX_PUS_PER_ITEM];

    pu_windows(&a, coarse, ctu_idx, px, py, wx0, wy0);
    for (int i = 0; i < MAX_PUS_PER_ITEM; i++) {
        const int k = G > 1 ? (i == 0 && tid < G * nb ? tid % nb : nb) : tid + i * NT;
        best[i] = GPUME_INVALID_KEY;
        if (k < nb)
            my_pu[i] = pu_table[a.p.block ? fixed_pus[k] : k];
    }
    for (int i = tid; i < CTU * CTU; i += NT) {
        const int x = i % CTU, y = i / CTU;
        cur_s[i] = x < vw && y < vh ? cur0[(Y + y) * a.cur[0].pitch + X + x] : 0;
    }

    /* round -1: full's raster or hme's windows; hme rounds 0.. after it */
    for (int round = -1; round < (hme ? GPUME_HME_ROUNDS : 0); round++) {
        const int total = round < 0 ? gpume_pu_nb_candidates(a.p.algo, a.p.range) : 9 * ns;

        if (round >= 0) {
            /* the seeds: the winning vectors of the 2Nx2N PUs so far */
            if (G > 1) {
                red[tid] = best[0];
                barrier(CLK_LOCAL_MEM_FENCE);
                for (int j = tid; j < nb; j += NT) {
                    const int slot = a.p.block ? j : gpume_hme_seed_of_pu(CTU, j);
                    ulong b = red[j];
                    int vx, vy;
                    for (int g = 1; g < G; g++)
                        b = red[g * nb + j] < b ? red[g * nb + j] : b;
                    if (slot >= 0) {
                        gpume_key_vector(b, a.p.algo, a.p.range, wx0, wy0, &vx, &vy);
                        seed_x[round * ns + slot] = vx;
                        seed_y[round * ns + slot] = vy;
                    }
                }
            } else {
                for (int i = 0; i < MAX_PUS_PER_ITEM; i++) {
                    const int k = tid + i * NT;
                    const int slot = k < nb ? a.p.block ? k : gpume_hme_seed_of_pu(CTU, k) : -1;
                    int vx, vy;
                    if (slot >= 0) {
                        gpume_key_vector(best[i], a.p.algo, a.p.range, wx0, wy0, &vx, &vy);
                        seed_x[round * ns + slot] = vx;
                        seed_y[round * ns + slot] = vy;
                    }
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }

        for (int base = 0; base < total; base += NB_CAND) {
            for (int c = tid; c < NB_CAND; c += NT) {
                const int k = base + c;
                uint idx = NO_CAND, mvc = 0;
                int dx = 0, dy = 0;
                if (k < total && round >= 0) {
                    if (gpume_hme_round_new(k, seed_x, seed_y, round * ns, wx0, wy0, a.p.range, &dx, &dy))
                        idx = gpume_hme_round_index(dx, dy, a.p.range);
                } else if (k < total) {
                    const uint ci = gpume_pu_candidate(a.p.algo, a.p.range, k, wx0, wy0, &dx, &dy);
                    if (gpume_in_range(dx, dy, a.p.range))
                        idx = ci;
                }
                cand_idx[c] = idx;
                cand_mvc[c] = gpume_mv_cost(a.p.lambda, 4 * dx, 4 * dy, px, py);
                cand_dx[c]  = dx;
                cand_dy[c]  = dy;
            }
            barrier(CLK_LOCAL_MEM_FENCE);

            for (int it = tid; it < NB_CAND * U; it += NT) {
                const int c = it % NB_CAND, uy = it / NB_CAND;
                __local uint *row = S + c * TW + (uy + 1) * U1;
                if (uy == 0)
                    for (int x = 0; x < U1; x++)
                        S[c * TW + x] = 0;
                row[0] = 0;
                if (cand_idx[c] != NO_CAND) {
                    unit_row(cur_s, ref0 + (Y + cand_dy[c]) * rpitch + X + cand_dx[c], rpitch, uy,
                             vw, vh, interior, row);
                } else {
                    for (int ux = 0; ux < U; ux++)
                        row[ux + 1] = 0;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            /* column sums turn row sums into the 2-D prefix table */
            for (int it = tid; it < NB_CAND * U; it += NT) {
                const int c = it % NB_CAND, ux = it / NB_CAND + 1;
                __local uint *col = S + c * TW + ux;
                uint run = col[U1];
                for (int y = 2; y <= U; y++) {
                    run += col[y * U1];
                    col[y * U1] = run;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);

            for (int i = 0; i < MAX_PUS_PER_ITEM; i++) {
                const int active = G > 1 ? i == 0 && tid < G * nb : tid + i * NT < nb;
                if (active) {
                    const GpumePU pu = my_pu[i];
                    const int o00 = pu.t * U1 + pu.l, o01 = pu.t * U1 + pu.r;
                    const int o10 = pu.b * U1 + pu.l, o11 = pu.b * U1 + pu.r;
                    ulong b = best[i];
                    for (int c = G > 1 ? tid / nb : 0; c < NB_CAND; c += G) {
                        __local const uint *t = S + c * TW;
                        const ulong key = gpume_key(t[o11] - t[o01] - t[o10] + t[o00] + cand_mvc[c],
                                                    cand_idx[c]);
                        if (cand_idx[c] != NO_CAND && key < b)
                            b = key;
                    }
                    best[i] = b;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }

    if (G > 1) {
        red[tid] = best[0];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid < nb) {
            ulong b = red[tid];
            for (int g = 1; g < G; g++)
                b = red[g * nb + tid] < b ? red[g * nb + tid] : b;
            pu_keys[(size_t)ctu_idx * a.p.nb_pus + (a.p.block ? fixed_pus[tid] : tid)] = b;
        }
        return;
    }
    for (int i = 0; i < MAX_PUS_PER_ITEM; i++) {
        const int k = tid + i * NT;
        if (k < nb)
            pu_keys[(size_t)ctu_idx * a.p.nb_pus + (a.p.block ? fixed_pus[k] : k)] = best[i];
    }
}

/** SADs of the 9 sub-pel points around (qx, qy) at distance step, summed by the work-group. */
static void subpel_sads(const GpumeSearchArgs *a, __global const uchar *cur0,
                        __global const uchar *ref0, int x, int y, int w, int h,
                        int qx, int qy, int step, __local uint *red, int tid)
{
    uint acc[9];
    for (int i = 0; i < 9; i++)
        acc[i] = 0;
    for (int p = tid; p < w * h; p += NT) {
        const int px = x + p % w, py = y + p / w;
        const int c = cur0[py * a->cur[0].pitch + px];
        for (int i = 0; i < 9; i++) {
            int ox, oy;
            gpume_subpel_offset(i, step, &ox, &oy);
            acc[i] += gpume_iabs(c - gpume_sample_qpel(ref0, a->ref[0].pitch,
                                                       a->ref[0].w, a->ref[0].h,
                                                       4 * px + qx + ox, 4 * py + qy + oy));
        }
    }
    wg_sums(acc, 9, red, tid);
}

/**
 * Partition choice (or the fixed blocks), then sub-pel refinement of every
 * exported PU; writes the CTU's blocks and count. One work-group per CTU.
 */
__kernel __attribute__((reqd_work_group_size(NT, 1, 1)))
void gpume_refine(GpumeSearchArgs a, SEARCH_BUFFERS
                  GPUME_OCL_REFINE_LOCALS(GPUME_OCL_LOCAL_PARAM, GPUME_CTU))
{

    const int tid = get_local_id(0), ctu_idx = get_group_id(0);
    const int X = (ctu_idx % a.p.ctu_cols) * a.p.ctu, Y = (ctu_idx / a.p.ctu_cols) * a.p.ctu;
    const int px = pred[2 * ctu_idx], py = pred[2 * ctu_idx + 1];
    __global const ulong *keys = pu_keys + (size_t)ctu_idx * a.p.nb_pus;
    __global GpumeBlock *out = blocks + (size_t)ctu_idx * a.p.max_out;
    __global const uchar *cur0 = cur_buf + a.cur[0].offset;
    __global const uchar *ref0 = ref_buf + a.ref[0].offset;
    int wx0[GPUME_HME_WINDOWS], wy0[GPUME_HME_WINDOWS], nout = 0;

    pu_windows(&a, coarse, ctu_idx, px, py, wx0, wy0);
    if (a.p.block) {
        for (int i = tid; i < a.nb_fixed_pus; i += NT)
            chosen[i] = fixed_pus[i];
        if (tid == 0)
            *nb_chosen = a.nb_fixed_pus;
    } else {
        for (int i = tid; i < a.p.nb_pus; i += NT)
            cost[i] = keys[i] >> 32;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid == 0)
            *nb_chosen = gpume_choose_partition(cost, a.p.ctu, a.p.pu_penalty,
                                               tmp_cost, tmp_mode, chosen);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int k = 0; k < *nb_chosen; k++) {
        const GpumePU pu = pu_table[chosen[k]];
        const int x = X + 4 * pu.l, y = Y + 4 * pu.t;
        const int w = min(4 * (pu.r - pu.l), a.p.width - x);
        const int h = min(4 * (pu.b - pu.t), a.p.height - y);
        int qx, qy;
        uint sad = 0;

        if (w <= 0 || h <= 0)
            continue;
        gpume_key_vector(keys[chosen[k]], a.p.algo, a.p.range, wx0, wy0, &qx, &qy);
        qx *= 4;
        qy *= 4;
        if (a.p.subpel == 0) {
            uint acc = 0;
            for (int p = tid; p < w * h; p += NT) {
                const int xx = x + p % w, yy = y + p / w;
                acc += abs_diff(cur0[yy * a.cur[0].pitch + xx],
                                ref0[(yy + qy / 4) * a.ref[0].pitch + xx + qx / 4]);
            }
            wg_sums(&acc, 1, red, tid);
            sad = red[0];
        }
        for (int step = 2; step >= 1; step--) {
            ulong best = GPUME_INVALID_KEY;
            int bx = qx, by = qy;
            if (step == 2 ? a.p.subpel < 1 : a.p.subpel < 2)
                continue;
            subpel_sads(&a, cur0, ref0, x, y, w, h, qx, qy, step, red, tid);
            for (int i = 0; i < 9; i++) {
                int ox, oy;
                ulong key;
                gpume_subpel_offset(i, step, &ox, &oy);
                key = gpume_key(red[i * NT] + gpume_mv_cost(a.p.lambda, qx + ox, qy + oy, px, py), i);
                if (key < best) {
                    best = key;
                    bx   = qx + ox;
                    by   = qy + oy;
                    sad  = red[i * NT];
                }
            }
            qx = bx;
            qy = by;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (tid == 0) {
            GpumeBlock b;
            b.x = x; b.y = y; b.w = w; b.h = h;
            b.mvx = qx; b.mvy = qy; b.sad = sad;
            out[nout] = b;
        }
        nout++;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        counts[ctu_idx] = nout;
}

/**
 * One LFS template step around (cxv, cyv): one work-item per template
 * point, integer (qpel = 0) or quarter-pel (qpel = 1) positions. Returns
 * the winner's SAD; (*bx, *by) is the winner.
 */
static uint lfs_step(const GpumeSearchArgs *a, __global const uchar *cur_buf,
                     __global const uchar *ref_buf, int x, int y, int w, int h,
                     int cxv, int cyv, int stride, int qpel, int px, int py,
                     __local ulong *red, __local uint *sad_of, int *bx, int *by)
{
    const int tid = get_local_id(0);
    const int i = tid % GPUME_LFS_N, j = tid / GPUME_LFS_N;
    const int dx = cxv + (GPUME_LFS_LO + i) * stride, dy = cyv + (GPUME_LFS_LO + j) * stride;
    ulong key = GPUME_INVALID_KEY;
    uint sad = 0;

    if (qpel) {
        __global const uchar *cur0 = cur_buf + a->cur[0].offset;
        __global const uchar *ref0 = ref_buf + a->ref[0].offset;
        for (int yy = 0; yy < h; yy++)
            for (int xx = 0; xx < w; xx++)
                sad += gpume_iabs(cur0[(y + yy) * a->cur[0].pitch + x + xx] -
                                  gpume_sample_qpel(ref0, a->ref[0].pitch, a->ref[0].w, a->ref[0].h,
                                                    4 * (x + xx) + dx, 4 * (y + yy) + dy));
        key = gpume_key(sad + gpume_mv_cost(a->p.lambda, dx, dy, px, py), tid);
    } else if (gpume_in_range(dx, dy, a->p.range)) {
        sad = plane_sad(cur_buf, a->cur[0], ref_buf, a->ref[0], x, y, w, h, dx, dy);
        key = gpume_key(sad + gpume_mv_cost(a->p.lambda, 4 * dx, 4 * dy, px, py), tid);
    }
    sad_of[tid] = sad;
    key = wg_min_key(key, red, tid, GPUME_LFS_THREADS);
    {
        const int w_idx = (uint)key;
        *bx = cxv + (GPUME_LFS_LO + w_idx % GPUME_LFS_N) * stride;
        *by = cyv + (GPUME_LFS_LO + w_idx / GPUME_LFS_N) * stride;
        sad = sad_of[w_idx];
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* sad_of is rewritten by the next step */
    return sad;
}

/** LFS over the fixed blocks of one CTU; one work-item per template point. */
__kernel __attribute__((reqd_work_group_size(GPUME_LFS_THREADS, 1, 1)))
void gpume_lfs(GpumeSearchArgs a, SEARCH_BUFFERS
               GPUME_OCL_LFS_LOCALS(GPUME_OCL_LOCAL_PARAM, GPUME_CTU))
{
    const int tid = get_local_id(0), ctu_idx = get_group_id(0);
    const int X = (ctu_idx % a.p.ctu_cols) * a.p.ctu, Y = (ctu_idx / a.p.ctu_cols) * a.p.ctu;
    const int px = pred[2 * ctu_idx], py = pred[2 * ctu_idx + 1];
    __global GpumeBlock *out = blocks + (size_t)ctu_idx * a.p.max_out;
    int nout = 0;

    for (int k = 0; k < a.nb_fixed_pus; k++) {
        const GpumePU pu = pu_table[fixed_pus[k]];
        const int x = X + 4 * pu.l, y = Y + 4 * pu.t;
        const int w = min(a.p.block, a.p.width - x), h = min(a.p.block, a.p.height - y);
        const uint thr = (uint)a.p.lfs_threshold * w * h / 64;
        GpumeLfs l;
        int bx, by;
        uint sad;

        if (w <= 0 || h <= 0)
            continue;
        gpume_lfs_start(&l);
        do {
            /* stride and unit as constants: each kind of step is specialised */
            if (l.qpel && l.stride == 1)
                sad = lfs_step(&a, cur_buf, ref_buf, x, y, w, h, l.cx, l.cy, 1, 1,
                               px, py, red, sad_of, &bx, &by);
            else if (l.qpel)
                sad = lfs_step(&a, cur_buf, ref_buf, x, y, w, h, l.cx, l.cy, 2, 1,
                               px, py, red, sad_of, &bx, &by);
            else if (l.stride == 1)
                sad = lfs_step(&a, cur_buf, ref_buf, x, y, w, h, l.cx, l.cy, 1, 0,
                               px, py, red, sad_of, &bx, &by);
            else
                sad = lfs_step(&a, cur_buf, ref_buf, x, y, w, h, l.cx, l.cy, 2, 0,
                               px, py, red, sad_of, &bx, &by);
        } while (gpume_lfs_next(&l, bx, by, sad, thr, a.p.subpel));
        if (tid == 0)
            out[nout] = gpume_make_block(x, y, w, h, l.bx, l.by, l.sad);
        nout++;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        counts[ctu_idx] = nout;
}
