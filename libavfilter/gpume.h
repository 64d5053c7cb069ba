/*
 * gpume: definitions shared by the filter, the CPU reference backend, the
 * CUDA kernels and the OpenCL kernels (prepended to opencl/gpume.cl).
 * docs/ALGORITHMS.md is the prose form of what is coded here; every backend
 * calls these functions so that all give the same vectors.
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

#ifndef AVFILTER_GPUME_H
#define AVFILTER_GPUME_H

/*
 * GPUME_GLOBAL: address space of the pictures that the shared sample
 * functions read (__global in OpenCL). GPUME_LOCAL: address space of the
 * arrays of gpume_choose_partition() (__local in OpenCL, where one work-item
 * runs it on its work-group's arrays). Both are empty in C and CUDA.
 * GPUME_BARRIER() and GPUME_LOCAL_INC() (an atomic increment of a local
 * int, returning its old value): a block's barrier and counters, on the
 * GPUs only.
 */
#if defined(__OPENCL_C_VERSION__)
typedef uchar  uint8_t;
typedef short  int16_t;
typedef ushort uint16_t;
typedef int    int32_t;
typedef uint   uint32_t;
typedef long   int64_t;
typedef ulong  uint64_t;
#define GPUME_FN static inline
#define GPUME_GLOBAL __global
#define GPUME_LOCAL  __local
#define GPUME_UNROLL _Pragma("unroll")
#define GPUME_NO_UNROLL _Pragma("unroll 1")
#define GPUME_BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define GPUME_LOCAL_INC(p) atomic_inc(p)
#elif defined(__CUDACC__) || defined(__CUDA__)
typedef unsigned char      uint8_t;
typedef short              int16_t;
typedef unsigned short     uint16_t;
typedef int                int32_t;
typedef unsigned int       uint32_t;
typedef long long          int64_t;
typedef unsigned long long uint64_t;
#define GPUME_FN __device__ static inline
#define GPUME_UNROLL _Pragma("unroll")
#define GPUME_NO_UNROLL _Pragma("unroll 1")
#define GPUME_BARRIER() __syncthreads()
#define GPUME_LOCAL_INC(p) atomicAdd(p, 1)
#else
#include <stdint.h>
#define GPUME_FN static inline
#endif
#ifndef GPUME_UNROLL
/* a loop whose arrays stay in registers on a GPU only when it is unrolled */
#define GPUME_UNROLL
/* a loop whose unrolled iterations would take a GPU thread more registers
 * than its block's share */
#define GPUME_NO_UNROLL
#endif
#ifndef GPUME_GLOBAL
#define GPUME_GLOBAL
#define GPUME_LOCAL
#endif

enum GpumeAlgo {
    GPUME_ALGO_FULL,    ///< exhaustive search, PU-level SAD integral table
    GPUME_ALGO_HME,     ///< pyramid, coarse full search, PU-table refinement
    GPUME_ALGO_LFS,     ///< local full search with early termination
    GPUME_ALGO_VME,     ///< Intel device-side VME (OpenCL only)
    GPUME_ALGO_DIS,     ///< dense inverse search: coarse-to-fine patch flow (gpume_dis.h)
    GPUME_ALGO_NB,
};

enum GpumePred {
    GPUME_PRED_ZERO,     ///< MV cost measured from (0,0)
    GPUME_PRED_TEMPORAL, ///< from the co-located CTU's vector of the previous estimate
    GPUME_PRED_NB,
};

/** Search window of the Intel VME path (CLK_AVC_ME_SEARCH_WINDOW_*_INTEL, mapped in opencl/gpume_vme.cl). */
enum GpumeVmeWindow {
    GPUME_VME_WINDOW_AUTO,          ///< from range: the smallest of the four below that covers it
    GPUME_VME_WINDOW_EXHAUSTIVE,    ///< 48x40: vectors within +-16 x +-12
    GPUME_VME_WINDOW_SMALL,         ///< 28x28: +-6
    GPUME_VME_WINDOW_TINY,          ///< 24x24: +-4
    GPUME_VME_WINDOW_EXTRA_TINY,    ///< 20x20: +-2
    GPUME_VME_WINDOW_DIAMOND,       ///< 48x40, diamond path
    GPUME_VME_WINDOW_LARGE_DIAMOND, ///< 48x40, large diamond path
    GPUME_VME_WINDOW_NB,
};

enum GpumeDir {
    GPUME_DIR_FWD = 1,  ///< vectors into the previous frame (source = -1)
    GPUME_DIR_BWD = 2,  ///< vectors into the next frame (source = +1)
    GPUME_DIR_BI  = 3,
};

/* PU partition modes of one CU, in the order ties are broken. */
enum GpumePartMode {
    GPUME_PART_2Nx2N,
    GPUME_PART_2NxN,
    GPUME_PART_Nx2N,
    GPUME_PART_2NxnU,   ///< CU >= 16; for 8x8 CUs this slot is NxN (4x4 PUs)
    GPUME_PART_2NxnD,
    GPUME_PART_nLx2N,
    GPUME_PART_nRx2N,
    GPUME_PART_NB,
};
#define GPUME_PART_NxN GPUME_PART_2NxnU

#define GPUME_MIN_CU          8
#define GPUME_MAX_CTU        64
#define GPUME_MAX_UNITS      (GPUME_MAX_CTU / 4)          ///< 4x4 units per CTU side
#define GPUME_MAX_RANGE      64
#define GPUME_MAX_LAMBDA     256                          ///< keeps every cost below 2^32
#define GPUME_MAX_PU_PENALTY 65535
#define GPUME_PUS_PER_CU     13                           ///< CU >= 16: 1 + 2 + 2 + 4 * 2
#define GPUME_PUS_PER_CU8    9                            ///< CU == 8: 1 + 2 + 2 + 4
#define GPUME_MAX_PUS        849                          ///< CTU 64: 64*9 + 16*13 + 4*13 + 13
#define GPUME_MAX_OUT_PER_CTU (GPUME_MAX_UNITS * GPUME_MAX_UNITS)
#define GPUME_HME_LEVELS     2                            ///< coarse levels: 1/2 and 1/4
#define GPUME_HME_L1_RANGE   2                            ///< refinement radius at level 1
#define GPUME_HME_MINIMA     3                            ///< distinct level-2 minima refined at level 1
#define GPUME_HME_MINIMA_SEP 1                            ///< a further minimum lies farther (max norm, level-2 pels)
#define GPUME_HME_L0_RANGE   2                            ///< radius of the level-0 windows
#define GPUME_HME_WINDOW     (2 * GPUME_HME_L0_RANGE + 1) ///< side of a level-0 window
#define GPUME_HME_WINDOWS    8                            ///< level-0 windows per CTU
#define GPUME_HME_WIN_STRIDE 81                           ///< candidate index = window * 81 + row * 5 + column
#define GPUME_HME_CANDIDATES (GPUME_HME_WINDOWS * GPUME_HME_WINDOW * GPUME_HME_WINDOW) ///< level-0 window candidates per CTU (duplicates included)
#define GPUME_HME_BLOCK_MINIMA 2                          ///< separated level-1 minima of each block, level-0 candidates
#define GPUME_HME_BLOCK_VECTORS (GPUME_HME_BLOCK_MINIMA * (GPUME_MAX_CTU / GPUME_MIN_CU) * (GPUME_MAX_CTU / GPUME_MIN_CU)) ///< block vectors of a CTU, at most
#define GPUME_HME_ROUNDS     2                            ///< level-0 rounds around the winners of the 2Nx2N PUs
#define GPUME_HME_ROUND_BASE (GPUME_HME_WINDOWS * GPUME_HME_WIN_STRIDE) ///< index of the rounds' vector (-range, -range)
#define GPUME_HME_SEEDS(ctu) ((ctu) == 16 ? 5 : (ctu) == 32 ? 21 : 85) ///< 2Nx2N PUs of a CTU of 16, 32, 64
#define GPUME_LFS_N          8                            ///< template is N x N points
#define GPUME_LFS_LO         (-GPUME_LFS_N / 2)           ///< template offsets LO .. LO + N - 1
#define GPUME_SCENE_BAD_SAD  20                           ///< mean |error| per pixel of a badly predicted block
#define GPUME_INVALID_KEY    0xffffffffffffffffULL

/** One prediction unit of a CTU, in 4x4 units: [l, r) x [t, b). */
typedef struct GpumePU {
    uint8_t l, t, r, b;
} GpumePU;

/** One exported block. Vectors are in quarter pel, src = dst + mv / 4. */
typedef struct GpumeBlock {
    int16_t  x, y;      ///< top-left, luma pixels
    int16_t  w, h;      ///< size, clipped to the frame
    int16_t  mvx, mvy;  ///< quarter-pel vector into the reference
    uint32_t sad;       ///< SAD of the exported vector over the block's pixels
} GpumeBlock;

/**
 * The temporal predictor of CTU c (pred=temporal) from an earlier estimate
 * of the same direction: the vector of the CTU's first exported block, (0,0)
 * when it exported none. Writes pred[2c], pred[2c + 1].
 */
GPUME_FN void gpume_ctu_predictor(const GPUME_GLOBAL GpumeBlock *blocks,
                                  const GPUME_GLOBAL uint16_t *counts, int max_out, int c,
                                  GPUME_GLOBAL int16_t *pred)
{
    const GPUME_GLOBAL GpumeBlock *b = blocks + c * max_out;
    pred[2 * c]     = counts[c] ? b->mvx : 0;
    pred[2 * c + 1] = counts[c] ? b->mvy : 0;
}

/** The exported block at (x, y) of w x h pixels with quarter-pel vector (mvx, mvy). */
GPUME_FN GpumeBlock gpume_make_block(int x, int y, int w, int h, int mvx, int mvy, uint32_t sad)
{
    GpumeBlock b;
    b.x   = x;
    b.y   = y;
    b.w   = w;
    b.h   = h;
    b.mvx = mvx;
    b.mvy = mvy;
    b.sad = sad;
    return b;
}

/** Everything a kernel needs to know about the search; identical on all backends. */
typedef struct GpumeParams {
    int width, height;  ///< luma size of level 0
    int algo;           ///< enum GpumeAlgo
    int range;          ///< integer search range, |mvx|, |mvy| <= range pixels
    int ctu;            ///< CTU size: 16, 32 or 64
    int block;          ///< exported block size (8..ctu), or 0 for the cost-optimal partition
    int subpel;         ///< 0 integer, 1 half, 2 quarter pel
    int lambda;         ///< cost per quarter pel of |mv - pred| (L1)
    int pu_penalty;     ///< cost of each PU beyond the first in a CTU partition
    int pred;           ///< enum GpumePred
    int lfs_threshold;  ///< LFS early-termination SAD per 64 pixels
    int vme_qp;         ///< VME: QP of the default MV cost and shape penalty tables, 0..51
    int vme_window;     ///< VME: enum GpumeVmeWindow
    /* derived by ff_gpume_params_derive() */
    int units;          ///< ctu / 4
    int ctu_cols, ctu_rows, nb_ctus;
    int nb_pus;         ///< PUs of one CTU in the PU table
    int max_out;        ///< exported blocks per CTU at most
    int nb_fixed_pus;   ///< block > 0: exported PUs of a CTU, (ctu / block)^2; else 0
    int pad;            ///< border of every padded plane: range + 4 (vectors, then bilinear taps)
    int lw[GPUME_HME_LEVELS + 1], lh[GPUME_HME_LEVELS + 1]; ///< pyramid sizes
} GpumeParams;

/**
 * Search-order key: lower cost wins, then lower candidate index.
 * cost < 2^32 and index < 2^32 always (costs are bounded in ALGORITHMS.md).
 */
GPUME_FN uint64_t gpume_key(uint32_t cost, uint32_t idx)
{
    return (uint64_t)cost << 32 | idx;
}

GPUME_FN int gpume_iabs(int v)
{
    return v < 0 ? -v : v;
}

GPUME_FN int gpume_clip(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/** Integer vector (dx, dy) lies in the search range. */
GPUME_FN int gpume_in_range(int dx, int dy, int range)
{
    return gpume_iabs(dx) <= range && gpume_iabs(dy) <= range;
}

/**
 * hme: the coarse result of one CTU: its GPUME_HME_MINIMA level-2 minima,
 * each refined at level 1 and doubled to a full-resolution integer vector
 * clipped to the range (v[0] the best); and its block vectors, the
 * GPUME_HME_BLOCK_MINIMA level-1 minima of each of its blocks
 * (gpume_hme_block_size()) in raster order, doubled and clipped alike.
 */
typedef struct GpumeHmeCoarse {
    int v[GPUME_HME_MINIMA][2];
    int16_t b[GPUME_HME_BLOCK_VECTORS][2];
} GpumeHmeCoarse;

/** hme: radius of the full search at level 2 (1/4 resolution) for range. */
GPUME_FN int gpume_hme_l2_range(int range)
{
    return (range + 3) >> 2;
}

/**
 * hme: level-2 candidate c (of the (2r + 1)^2 raster around (0, 0)), vector
 * (vx, vy), may be minimum k when it lies more than GPUME_HME_MINIMA_SEP
 * from each earlier minimum (mx[i], my[i]), i < k, in the max norm.
 */
GPUME_FN int gpume_hme_separate_vector(int vx, int vy, int k, const int *mx, const int *my)
{
    int ok = 1;
    for (int i = 0; i < k; i++)
        ok &= gpume_iabs(vx - mx[i]) > GPUME_HME_MINIMA_SEP || gpume_iabs(vy - my[i]) > GPUME_HME_MINIMA_SEP;
    return ok;
}

GPUME_FN int gpume_hme_separate(int c, int r, int k, const int *mx, const int *my)
{
    const int n = 2 * r + 1;
    return gpume_hme_separate_vector(c % n - r, c / n - r, k, mx, my);
}

/** hme: side of the blocks searched one by one at level 1, in level-0 samples: the exported block, 8 with block=auto. */
GPUME_FN int gpume_hme_block_size(int block)
{
    return block ? block : GPUME_MIN_CU;
}

/** hme: blocks of a CTU per side in the level-1 block search. */
GPUME_FN int gpume_hme_blocks_per_side(int ctu, int block)
{
    return ctu / gpume_hme_block_size(block);
}

/** hme: block vectors of a CTU, GPUME_HME_BLOCK_MINIMA per block (GpumeHmeCoarse.b[]). */
GPUME_FN int gpume_hme_nb_block_vectors(int ctu, int block)
{
    const int side = gpume_hme_blocks_per_side(ctu, block);
    return GPUME_HME_BLOCK_MINIMA * side * side;
}

/** hme: radius of the level-1 block search for range (level-1 pels). */
GPUME_FN int gpume_hme_l1_block_range(int range)
{
    return (range + 1) >> 1;
}

/**
 * hme: top-left candidate vectors x0[w], y0[w] of the GPUME_HME_WINDOWS
 * level-0 windows of CTU c (in a grid of cols x rows CTUs), centred on:
 * 0 the CTU's best coarse vector; 1 the quarter-pel predictor (px, py)
 * rounded to integer pel and clipped to the range; 2, 3 its second and third
 * coarse vectors; 4..7 the best coarse vector of the CTU to the left, right,
 * above and below (the CTU's own where there is none). Reads coarse[] of
 * CTU c and its four neighbours.
 */
GPUME_FN void gpume_hme_windows(const GPUME_GLOBAL GpumeHmeCoarse *coarse, int cols, int rows,
                                int c, int px, int py, int range, int *x0, int *y0)
{
    const int cx = c % cols, cy = c / cols;
    const int nbr[4] = { cx > 0 ? c - 1 : c, cx < cols - 1 ? c + 1 : c,
                         cy > 0 ? c - cols : c, cy < rows - 1 ? c + cols : c };
    int vx[GPUME_HME_WINDOWS], vy[GPUME_HME_WINDOWS];

    vx[0] = coarse[c].v[0][0];
    vy[0] = coarse[c].v[0][1];
    vx[1] = gpume_clip((px + 2) >> 2, -range, range);
    vy[1] = gpume_clip((py + 2) >> 2, -range, range);
    for (int k = 1; k < GPUME_HME_MINIMA; k++) {
        vx[1 + k] = coarse[c].v[k][0];
        vy[1 + k] = coarse[c].v[k][1];
    }
    for (int k = 0; k < 4; k++) {
        vx[GPUME_HME_MINIMA + 1 + k] = coarse[nbr[k]].v[0][0];
        vy[GPUME_HME_MINIMA + 1 + k] = coarse[nbr[k]].v[0][1];
    }
    for (int w = 0; w < GPUME_HME_WINDOWS; w++) {
        x0[w] = vx[w] - GPUME_HME_L0_RANGE;
        y0[w] = vy[w] - GPUME_HME_L0_RANGE;
    }
}

/**
 * hme: the k-th of the GPUME_HME_CANDIDATES level-0 candidates (windows in
 * order, each in raster order) of the windows x0[], y0[]: writes its vector
 * and returns its candidate index.
 */
GPUME_FN uint32_t gpume_hme_candidate(int k, const int *x0, const int *y0, int *dx, int *dy)
{
    const int n = GPUME_HME_WINDOW, w = k / (n * n), r = k % (n * n);
    *dx = x0[w] + r % n;
    *dy = y0[w] + r / n;
    return (uint32_t)(w * GPUME_HME_WIN_STRIDE + r);
}

/**
 * hme: vector (dx, dy) of window w also lies in an earlier window of x0[],
 * y0[]: there it has a lower index and the same cost, so it cannot win in w.
 */
GPUME_FN int gpume_hme_seen(int dx, int dy, int w, const int *x0, const int *y0)
{
    int seen = 0;
    for (int e = 0; e < w; e++)
        seen |= dx >= x0[e] && dx < x0[e] + GPUME_HME_WINDOW &&
                dy >= y0[e] && dy < y0[e] + GPUME_HME_WINDOW;
    return seen;
}

/**
 * hme: block vector j of a CTU (coarse b[j]) needs costing at level 0: in no
 * window of x0[], y0[], and unlike every earlier block vector. It is in
 * range (clipped); its candidate index is gpume_hme_round_index().
 */
GPUME_FN int gpume_hme_block_new(const GPUME_GLOBAL GpumeHmeCoarse *coarse, int j,
                                 const int *x0, const int *y0, int *dx, int *dy)
{
    int fresh;

    *dx = coarse->b[j][0];
    *dy = coarse->b[j][1];
    fresh = !gpume_hme_seen(*dx, *dy, GPUME_HME_WINDOWS, x0, y0);
    /* no early exit: on a GPU the loads of all e then overlap */
    for (int e = 0; e < j; e++)
        fresh &= coarse->b[e][0] != *dx || coarse->b[e][1] != *dy;
    return fresh;
}

/** hme rounds: candidate index of vector (dx, dy), the raster over [-range, range]^2 after the windows. */
GPUME_FN uint32_t gpume_hme_round_index(int dx, int dy, int range)
{
    return GPUME_HME_ROUND_BASE + (uint32_t)((dy + range) * (2 * range + 1) + dx + range);
}

/**
 * hme rounds: candidate c of the round whose seeds (the winning vectors of
 * its 2Nx2N PUs) are sx[first + i], sy[first + i] is seed first + c / 9
 * plus offset (c % 9 % 3 - 1, c % 9 / 3 - 1): gpume_hme_round_vector()
 * writes it. gpume_hme_round_new() writes it too and returns 1 when it
 * needs costing: in range, in no window of x0[], y0[], and farther
 * than 1 (max norm) from every earlier seed sx[e], sy[e], e < first + c / 9,
 * of this and the earlier rounds, whose neighbourhoods were costed already.
 */
GPUME_FN void gpume_hme_round_vector(int c, const GPUME_LOCAL int16_t *sx, const GPUME_LOCAL int16_t *sy,
                                     int first, int *dx, int *dy)
{
    *dx = sx[first + c / 9] + c % 9 % 3 - 1;
    *dy = sy[first + c / 9] + c % 9 / 3 - 1;
}

GPUME_FN int gpume_hme_round_new(int c, const GPUME_LOCAL int16_t *sx, const GPUME_LOCAL int16_t *sy,
                                 int first, const int *x0, const int *y0, int range, int *dx, int *dy)
{
    const int e0 = first + c / 9;
    int fresh;

    gpume_hme_round_vector(c, sx, sy, first, dx, dy);
    fresh = gpume_in_range(*dx, *dy, range) &&
            !gpume_hme_seen(*dx, *dy, GPUME_HME_WINDOWS, x0, y0);
    for (int e = 0; e < e0; e++)
        fresh &= gpume_iabs(*dx - sx[e]) > 1 || gpume_iabs(*dy - sy[e]) > 1;
    return fresh;
}

/** Candidates of the PU-table search of a CTU: full's (2 range + 1)^2 or hme's windows. */
GPUME_FN int gpume_pu_nb_candidates(int algo, int range)
{
    return algo == GPUME_ALGO_FULL ? (2 * range + 1) * (2 * range + 1) : GPUME_HME_CANDIDATES;
}

/**
 * The k-th candidate of the PU-table search of a CTU (full: the raster over
 * [-range, range]^2; hme: gpume_hme_candidate() over the windows x0[], y0[]):
 * writes its vector and returns its candidate index.
 */
GPUME_FN uint32_t gpume_pu_candidate(int algo, int range, int k, const int *x0, const int *y0,
                                     int *dx, int *dy)
{
    if (algo == GPUME_ALGO_HME)
        return gpume_hme_candidate(k, x0, y0, dx, dy);
    *dx = k % (2 * range + 1) - range;
    *dy = k / (2 * range + 1) - range;
    return (uint32_t)k;
}

/**
 * Integer vector of a winning PU-table key: for full its index is the raster
 * over [-range, range]^2; for hme that of gpume_hme_candidate() over the
 * windows x0[], y0[] or of gpume_hme_round_index().
 */
GPUME_FN void gpume_key_vector(uint64_t key, int algo, int range, const int *x0, const int *y0,
                               int *vx, int *vy)
{
    const uint32_t idx = (uint32_t)key;
    const int round = algo == GPUME_ALGO_HME && idx >= GPUME_HME_ROUND_BASE;
    const int raster = algo == GPUME_ALGO_FULL || round;
    const int w = raster ? 0 : idx / GPUME_HME_WIN_STRIDE;
    const int r = round ? idx - GPUME_HME_ROUND_BASE : raster ? idx : idx % GPUME_HME_WIN_STRIDE;
    const int n = raster ? 2 * range + 1 : GPUME_HME_WINDOW;
    *vx = (raster ? -range : x0[w]) + r % n;
    *vy = (raster ? -range : y0[w]) + r / n;
}

/**
 * The LFS schedule of one block (ALGORITHMS.md, lfs) as a state machine.
 * Each step searches the 8 x 8 template at stride `stride` around (cx, cy)
 * (integer pels, or quarter pels when qpel is set) and reports its best
 * vector and SAD to gpume_lfs_next(), which says whether another step runs:
 * stride 1 around (0, 0); unless the best is within one pel of (0, 0) or its
 * SAD is at most the threshold, stride 2 around it, and if that moved and
 * is still above the threshold, stride 1 around the new best; then, with
 * subpel, one step at quarter-pel stride 2 (half pel) or 1 (quarter pel).
 */
typedef struct GpumeLfs {
    int stage;          ///< 0, 1, 2: the integer steps; 3: the sub-pel step; 4: done
    int cx, cy;         ///< centre of the next step
    int stride;         ///< its stride
    int qpel;           ///< its unit: 0 integer pels, 1 quarter pels
    int bx, by;         ///< best vector so far; quarter pels once done
    uint32_t sad;       ///< its SAD
} GpumeLfs;

GPUME_FN void gpume_lfs_start(GpumeLfs *l)
{
    l->stage  = 0;
    l->cx     = 0;
    l->cy     = 0;
    l->stride = 1;
    l->qpel   = 0;
    l->bx     = 0;
    l->by     = 0;
    l->sad    = 0;
}

/** Take the result of the step just run; 1: run the next step (cx, cy, stride, qpel), 0: done. */
GPUME_FN int gpume_lfs_next(GpumeLfs *l, int bx, int by, uint32_t sad, uint32_t thr, int subpel)
{
    const int moved = bx != l->cx || by != l->cy;

    l->bx  = bx;
    l->by  = by;
    l->sad = sad;
    if (l->stage == 0 && !(gpume_iabs(bx) <= 1 && gpume_iabs(by) <= 1) && sad > thr) {
        l->stage  = 1;
        l->stride = 2;
    } else if (l->stage == 1 && sad > thr && moved) {
        l->stage  = 2;
        l->stride = 1;
    } else if (l->stage < 3 && subpel) {
        l->stage  = 3;
        l->bx     = 4 * bx;
        l->by     = 4 * by;
        l->stride = subpel == 2 ? 1 : 2;
        l->qpel   = 1;
    } else {
        if (l->stage < 3) {
            l->bx = 4 * bx;
            l->by = 4 * by;
        }
        l->stage = 4;
        return 0;
    }
    l->cx = l->bx;
    l->cy = l->by;
    return 1;
}

/** MV cost of quarter-pel vector (qx, qy) against predictor (px, py). */
GPUME_FN uint32_t gpume_mv_cost(int lambda, int qx, int qy, int px, int py)
{
    return (uint32_t)lambda * (uint32_t)(gpume_iabs(qx - px) + gpume_iabs(qy - py));
}

/*
 * full, CTU 32: the search kernels of their own (gpume_full32 for
 * block=auto, gpume_full32_b8/b16/b32 for fixed blocks; CUDA and OpenCL).
 * A SAD item takes GPUME_FULL_K consecutive dy at one dx, a chunk
 * GPUME_FULL_PAIRS such items; each PU's best key is 32 bits: cost *
 * 2^key_bits + e, where e is the candidate index (local == 0) or the
 * thread's own increasing number of the candidate, turned back into the
 * index at the end (local == 1, key_bits == GPUME_FULL_LOCAL_BITS); the
 * host picks the packing with ff_gpume_full_key_packing().
 */
#define GPUME_FULL_K          4
#define GPUME_FULL_MIN_RANGE  2
#define GPUME_FULL_PAIRS      32
#define GPUME_FULL_LOCAL_BITS 11
#define GPUME_FULL_MAX_CHUNKS (1 << (GPUME_FULL_LOCAL_BITS - 2))

#if defined(__OPENCL_C_VERSION__) || defined(__CUDACC__) || defined(__CUDA__)
/*
 * The full kernels' sums of one candidate's SAD cells into the keys of the
 * PUs, the same steps in CUDA and OpenCL. A thread's keys stay in
 * registers: the functions are inlined and their loops unrolled.
 * GPUME_FULL_LOAD4: the 4 words at p (local memory, 16-byte aligned) into
 * d[0 .. 3] in one load.
 */
#if defined(__OPENCL_C_VERSION__)
#define GPUME_FULL_FN static inline
#define GPUME_FULL_LOAD4(d, p)                                                  \
    do {                                                                        \
        const uint4 v_ = *(__local const uint4 *)(p);                           \
        (d)[0] = v_.x; (d)[1] = v_.y; (d)[2] = v_.z; (d)[3] = v_.w;             \
    } while (0)
#else
#define GPUME_FULL_FN __device__ static inline __attribute__((always_inline))
#define GPUME_FULL_LOAD4(d, p)                                                  \
    do {                                                                        \
        const int4 v_ = *(const int4 *)(p);                                     \
        (d)[0] = v_.x; (d)[1] = v_.y; (d)[2] = v_.z; (d)[3] = v_.w;             \
    } while (0)
#endif

/** Word of cell (cy, ux) of a candidate: one row of cells of a quadrant is 4 consecutive words. */
GPUME_FULL_FN int gpume_full_cell(int block, int cy, int ux)
{
    const int nq = block == 0 ? 4 : block < 32 ? 16 / block : 1;  /* cell rows per quadrant */
    return block == 32 ? ux : (cy % nq) * 16 + (cy / nq) * 8 + ux;
}

/** *key = min(*key, the key of cost sum with the candidate's term ct). */
GPUME_FULL_FN void gpume_full_update(uint32_t *key, uint32_t sum, uint32_t scale, uint32_t ct)
{
    const uint32_t k = sum * scale + ct;
    *key = k < *key ? k : *key;
}

/* the 9 PUs of 8x8 CU z (of a quadrant, Z order) into keys 9 i .. 9 i + 8 */
#define GPUME_FULL_CU8(i, z)                                                    \
    do {                                                                        \
        const int o_ = 8 * ((z) >> 1) + 2 * ((z) & 1);                         \
        gpume_full_update(&key[9 * (i) + 0], s[z],      scale, ct);            \
        gpume_full_update(&key[9 * (i) + 1], t[z],      scale, ct);            \
        gpume_full_update(&key[9 * (i) + 2], bt[z],     scale, ct);            \
        gpume_full_update(&key[9 * (i) + 3], l[z],      scale, ct);            \
        gpume_full_update(&key[9 * (i) + 4], r[z],      scale, ct);            \
        gpume_full_update(&key[9 * (i) + 5], a[o_],     scale, ct);            \
        gpume_full_update(&key[9 * (i) + 6], a[o_ + 1], scale, ct);            \
        gpume_full_update(&key[9 * (i) + 7], a[o_ + 4], scale, ct);            \
        gpume_full_update(&key[9 * (i) + 8], a[o_ + 5], scale, ct);            \
    } while (0)

/**
 * A CU of 16 or 32 from its sums: its first 7 PUs (2Nx2N, 2NxN, Nx2N, the
 * top 2NxnU part and the rest), tq the top quarter's sum ...
 */
GPUME_FULL_FN void gpume_full_cu_first(uint32_t *k, uint32_t all, uint32_t top, uint32_t bottom,
                                       uint32_t left, uint32_t right, uint32_t tq,
                                       uint32_t scale, uint32_t ct)
{
    gpume_full_update(&k[0], all,      scale, ct);
    gpume_full_update(&k[1], top,      scale, ct);
    gpume_full_update(&k[2], bottom,   scale, ct);
    gpume_full_update(&k[3], left,     scale, ct);
    gpume_full_update(&k[4], right,    scale, ct);
    gpume_full_update(&k[5], tq,       scale, ct);
    gpume_full_update(&k[6], all - tq, scale, ct);
}

/** ... and its other 6 (2NxnD, nLx2N, nRx2N), with the bottom, left and right quarters' sums. */
GPUME_FULL_FN void gpume_full_cu_second(uint32_t *k, uint32_t all, uint32_t bq, uint32_t lq,
                                        uint32_t rq, uint32_t scale, uint32_t ct)
{
    gpume_full_update(&k[0], all - bq, scale, ct);
    gpume_full_update(&k[1], bq,       scale, ct);
    gpume_full_update(&k[2], lq,       scale, ct);
    gpume_full_update(&k[3], all - lq, scale, ct);
    gpume_full_update(&k[4], all - rq, scale, ct);
    gpume_full_update(&k[5], rq,       scale, ct);
}

/**
 * Stage 2, block=auto: half h of the 49 PUs of quadrant q from its 16 cells
 * u (row r of cells at u + 16 r): h = 0 the PUs of the top two 8x8 CUs and
 * the first 7 of the 16x16 CU, h = 1 those of the bottom two and the other 6
 * (25 keys a thread). Half 0 writes the quadrant's sum, top half and left
 * half to qs[q], qs[4 + q], qs[8 + q].
 */
GPUME_FULL_FN void gpume_full_quadrant(const GPUME_LOCAL uint32_t *u, GPUME_LOCAL uint32_t *qs,
                                       int q, int h, uint32_t scale, uint32_t ct, uint32_t *key)
{
    uint32_t a[16], s[4], t[4], bt[4], l[4], r[4];
    GPUME_UNROLL
    for (int i = 0; i < 4; i++)
        GPUME_FULL_LOAD4(a + 4 * i, u + 16 * i);
    GPUME_UNROLL
    for (int z = 0; z < 4; z++) {
        const int o = 8 * (z >> 1) + 2 * (z & 1);
        t[z]  = a[o] + a[o + 1];
        bt[z] = a[o + 4] + a[o + 5];
        s[z]  = t[z] + bt[z];
    }
    {
        const uint32_t top = s[0] + s[1], bottom = s[2] + s[3], all = top + bottom;
        uint32_t *k = key + 18;
        if (!h) {
            const uint32_t tq = t[0] + t[1];
            GPUME_UNROLL
            for (int z = 0; z < 2; z++) {
                const int o = 2 * z;
                l[z] = a[o] + a[o + 4];
                r[z] = a[o + 1] + a[o + 5];
            }
            GPUME_FULL_CU8(0, 0);
            GPUME_FULL_CU8(1, 1);
            gpume_full_cu_first(k, all, top, bottom, s[0] + s[2], s[1] + s[3], tq, scale, ct);
            qs[q]     = all;
            qs[4 + q] = top;
            qs[8 + q] = s[0] + s[2];
        } else {
            /* the left column of units of CUs 0 and 2, the right one of CUs 1 and 3 */
            const uint32_t bq = bt[2] + bt[3];
            const uint32_t lq = a[0] + a[4] + a[8] + a[12], rq = a[3] + a[7] + a[11] + a[15];
            GPUME_UNROLL
            for (int z = 2; z < 4; z++) {
                const int o = 8 + 2 * (z & 1);
                l[z] = a[o] + a[o + 4];
                r[z] = a[o + 1] + a[o + 5];
            }
            GPUME_FULL_CU8(0, 2);
            GPUME_FULL_CU8(1, 3);
            gpume_full_cu_second(k, all, bq, lq, rq, scale, ct);
        }
    }
}

/**
 * Stage 3, block=auto: PUs of the 32x32 CU from the quadrants' sums, top
 * and left halves; half h = 0 takes the first 7 PUs, h = 1 the other 6.
 */
GPUME_FULL_FN void gpume_full_ctu(const GPUME_LOCAL uint32_t *qs, int h, uint32_t scale, uint32_t ct,
                                  uint32_t *key)
{
    uint32_t vs[4], vt[4], vl[4];
    GPUME_FULL_LOAD4(vs, qs);
    GPUME_FULL_LOAD4(vt, qs + 4);
    GPUME_FULL_LOAD4(vl, qs + 8);
    {
        const uint32_t top = vs[0] + vs[1], bottom = vs[2] + vs[3];
        const uint32_t left = vs[0] + vs[2], right = vs[1] + vs[3], all = top + bottom;

        if (!h) {
            gpume_full_cu_first(key, all, top, bottom, left, right, vt[0] + vt[1], scale, ct);
        } else {
            const uint32_t bq = bottom - vt[2] - vt[3], lq = vl[0] + vl[2];
            const uint32_t rq = right - vl[1] - vl[3];
            gpume_full_cu_second(key, all, bq, lq, rq, scale, ct);
        }
    }
}

/** Candidate index of slot of chunk (n = 2 range + 1). */
GPUME_FULL_FN uint32_t gpume_full_index(int chunk, int slot, int n)
{
    const int pair = chunk * GPUME_FULL_PAIRS + slot % GPUME_FULL_PAIRS, j = slot / GPUME_FULL_PAIRS;
    const int band = pair / n, dxi = pair - band * n;
    const int b = GPUME_FULL_K * band, last = n - GPUME_FULL_K;
    return (uint32_t)(((b < last ? b : last) + j) * n + dxi);
}
#endif


/*
 * The search of 8x8 blocks at CTU 32 (ff_gpume_block8_search(); CUDA and
 * OpenCL): the CTU's search area, rows and columns -range .. 31 + range
 * around it, in words, one more per row for the reads that spill past it
 * and an odd count against bank conflicts.
 */
#define GPUME_B8_ROWS(range)  (32 + 2 * (range))
#define GPUME_B8_PITCH(range) ((((32 + 2 * (range) + 3) >> 2) + 1) | 1)

/** The first n bytes of a little-endian word (all for n >= 4, none for n <= 0). */
GPUME_FN uint32_t gpume_byte_mask(int n)
{
    return n >= 4 ? ~0u : n <= 0 ? 0 : (1u << (8 * n)) - 1;
}

#define GPUME_NO_CANDIDATE 0xffffffffu   ///< candidate index of a vector out of range

/**
 * Candidate k of the PU-table search of a CTU: hme's from its list (the
 * windows' and rounds' vectors that can win, compacted), full's from the
 * raster (GPUME_NO_CANDIDATE where out of range). Writes its vector and the
 * cost of the vector against the predictor (px, py); returns its index.
 */
GPUME_FN uint32_t gpume_table_candidate(const GpumeParams *p, int k, const GPUME_LOCAL uint32_t *list_idx,
                                        const GPUME_LOCAL int16_t *list_dx,
                                        const GPUME_LOCAL int16_t *list_dy,
                                        const int *x0, const int *y0, int px, int py,
                                        int *dx, int *dy, uint32_t *mvc)
{
    uint32_t idx;
    if (p->algo == GPUME_ALGO_HME) {
        idx = list_idx[k];
        *dx = list_dx[k];
        *dy = list_dy[k];
    } else {
        const uint32_t ci = gpume_pu_candidate(p->algo, p->range, k, x0, y0, dx, dy);
        idx = gpume_in_range(*dx, *dy, p->range) ? ci : GPUME_NO_CANDIDATE;
    }
    *mvc = gpume_mv_cost(p->lambda, 4 * *dx, 4 * *dy, px, py);
    return idx;
}

/**
 * Reference sample at quarter-pel position (qx, qy): bilinear between the
 * four nearest integer samples, each clamped into the frame.
 * Result in [0, 255]; equals the integer sample when qx, qy are multiples of 4.
 */
GPUME_FN int gpume_sample_qpel(const GPUME_GLOBAL uint8_t *ref, int stride, int w, int h,
                               int qx, int qy)
{
    const int fx = qx & 3, fy = qy & 3;
    const int x0 = gpume_clip(qx >> 2, 0, w - 1), x1 = gpume_clip((qx >> 2) + 1, 0, w - 1);
    const int y0 = gpume_clip(qy >> 2, 0, h - 1), y1 = gpume_clip((qy >> 2) + 1, 0, h - 1);
    const int a = ref[y0 * stride + x0], b = ref[y0 * stride + x1];
    const int c = ref[y1 * stride + x0], d = ref[y1 * stride + x1];
    return ((4 - fx) * (4 - fy) * a + fx * (4 - fy) * b +
            (4 - fx) * fy * c + fx * fy * d + 8) >> 4;
}

/**
 * Sub-pel refinement pattern: point 0 is the centre, points 1..8 its
 * neighbours in raster order, at distance step quarter pels.
 */
GPUME_FN void gpume_subpel_offset(int i, int step, int *dx, int *dy)
{
    const int p = i == 0 ? 4 : i <= 4 ? i - 1 : i;
    *dx = (p % 3 - 1) * step;
    *dy = (p / 3 - 1) * step;
}

/**
 * The GPU refinements' sub-pel step over a row segment: into sad[i] the SAD
 * of the w <= 4 samples c[0 .. w - 1] of the current row y, from column x0,
 * against the reference at quarter-pel vector (qx, qy) moved by
 * gpume_subpel_offset(i, step), for the 9 points at once.
 * gpume_sample_qpel() without its clamps: ref is sample (0, 0) of a plane
 * whose border holds them. The bilinear sum is taken as rows, then
 * columns, the same integers; the 3 x 3 integer samples around a pixel are
 * read once for all points.
 */
GPUME_FN void gpume_subpel_segment(const GPUME_GLOBAL uint8_t *c, const GPUME_GLOBAL uint8_t *ref,
                                   int pitch, int x0, int y, int w, int qx, int qy, int step,
                                   uint32_t *sad)
{
    /* the top-left of the samples any point reads; point offsets (j - 1) step
     * in each direction reach at most one sample further */
    const int cb = (qx - step) >> 2, rb = (4 * y + qy - step) >> 2;
    int dc[3], fx[3], dr[3], fy[3];
    uint32_t acc[9] = { 0 };

    GPUME_UNROLL
    for (int j = 0; j < 3; j++) {
        const int sx = qx + (j - 1) * step, sy = 4 * y + qy + (j - 1) * step;
        dc[j] = (sx >> 2) - cb;
        fx[j] = sx & 3;
        dr[j] = (sy >> 2) - rb;
        fy[j] = sy & 3;
    }
    GPUME_UNROLL
    for (int x = 0; x < 4; x++) {
        int h[3][3];    /* h[r][j]: row r of the samples at horizontal offset j */
        if (x >= w)
            break;
        GPUME_UNROLL
        for (int r = 0; r < 3; r++) {
            const GPUME_GLOBAL uint8_t *p = ref + (rb + r) * pitch + x0 + cb + x;
            const int s0 = p[0], s1 = p[1], s2 = p[2];
            GPUME_UNROLL
            for (int j = 0; j < 3; j++)
                h[r][j] = (4 - fx[j]) * (dc[j] ? s1 : s0) + fx[j] * (dc[j] ? s2 : s1);
        }
        GPUME_UNROLL
        for (int i = 0; i < 9; i++) {
            /* gpume_subpel_offset()'s raster position of point i */
            const int pos = i == 0 ? 4 : i <= 4 ? i - 1 : i, jx = pos % 3, jy = pos / 3;
            const int v = (4 - fy[jy]) * (dr[jy] ? h[1][jx] : h[0][jx]) +
                          fy[jy] * (dr[jy] ? h[2][jx] : h[1][jx]);
            acc[i] += gpume_iabs(c[x] - ((v + 8) >> 4));
        }
    }
    GPUME_UNROLL
    for (int i = 0; i < 9; i++)
        sad[i] = acc[i];
}

/** PUs of one CU of size cu_size (pixels) in the PU table. */
GPUME_FN int gpume_pus_per_cu(int cu_size)
{
    return cu_size == GPUME_MIN_CU ? GPUME_PUS_PER_CU8 : GPUME_PUS_PER_CU;
}

/** Number of parts of a partition mode for a CU of size cu_size. */
GPUME_FN int gpume_mode_parts(int mode, int cu_size)
{
    return mode == GPUME_PART_2Nx2N ? 1 :
           mode == GPUME_PART_NxN && cu_size == GPUME_MIN_CU ? 4 : 2;
}

/** Number of partition modes a CU of size cu_size may use. */
GPUME_FN int gpume_nb_modes(int cu_size)
{
    return cu_size == GPUME_MIN_CU ? GPUME_PART_NxN + 1 : GPUME_PART_NB;
}

/** Index of the first PU of mode within its CU's run of PUs. */
GPUME_FN int gpume_mode_first_pu(int mode)
{
    return mode == GPUME_PART_2Nx2N ? 0 : 1 + 2 * (mode - 1);
}

/**
 * Level index of CU size s in a CTU: level 0 holds 8x8 CUs, level k holds
 * (8 << k)-sized ones. The PU table lists level 0 first (small PUs first),
 * the CUs of a level in Z order, each CU's PUs in mode order.
 */
GPUME_FN int gpume_level_base(int ctu, int level)
{
    int base = 0;
    for (int l = 0; l < level; l++) {
        const int s = GPUME_MIN_CU << l;
        base += (ctu / s) * (ctu / s) * gpume_pus_per_cu(s);
    }
    return base;
}

/** Z-order (Morton) index of CU (cx, cy), in CU units. */
GPUME_FN int gpume_zorder(int cx, int cy)
{
    int z = 0;
    for (int b = 0; b < 4; b++)
        z |= ((cx >> b) & 1) << (2 * b) | ((cy >> b) & 1) << (2 * b + 1);
    return z;
}

/** Offset of level l's CUs (level 0: CU 8) in the work arrays of gpume_choose_partition(). */
GPUME_FN int gpume_cu_level_offset(int ctu, int l)
{
    int off = 0;
    for (int k = 0; k < l; k++)
        off += (ctu / (GPUME_MIN_CU << k)) * (ctu / (GPUME_MIN_CU << k));
    return off;
}

/**
 * gpume_choose_partition(), bottom-up step: the best cost and mode of the
 * z-th CU of level l (modes 0..NB-1, or NB for a split into the four CUs of
 * level l - 1, whose entries must be written already).
 */
GPUME_FN void gpume_cu_best(const GPUME_LOCAL uint32_t *pu_cost, int ctu, int pu_penalty, int l, int z,
                            GPUME_LOCAL uint32_t *tmp_cost, GPUME_LOCAL uint8_t *tmp_mode)
{
    const int s = GPUME_MIN_CU << l;
    const int base = gpume_level_base(ctu, l);
    const int npu = gpume_pus_per_cu(s);
    uint32_t best = 0xffffffffu;
    int best_mode = 0;
    for (int m = 0; m < gpume_nb_modes(s); m++) {
        const int parts = gpume_mode_parts(m, s);
        const int first = base + z * npu + gpume_mode_first_pu(m);
        uint32_t c = (uint32_t)pu_penalty * (parts - 1);
        for (int p = 0; p < parts; p++)
            c += pu_cost[first + p];
        if (c < best) {
            best = c;
            best_mode = m;
        }
    }
    if (l > 0) {
        const int child = gpume_cu_level_offset(ctu, l - 1) + 4 * z;
        const uint32_t c = tmp_cost[child] + tmp_cost[child + 1] +
                           tmp_cost[child + 2] + tmp_cost[child + 3] +
                           3 * (uint32_t)pu_penalty;
        if (c < best) {
            best = c;
            best_mode = GPUME_PART_NB;
        }
    }
    tmp_cost[gpume_cu_level_offset(ctu, l) + z] = best;
    tmp_mode[gpume_cu_level_offset(ctu, l) + z] = best_mode;
}

/**
 * gpume_choose_partition(), top-down step: the PUs of the chosen partition
 * in Z order from the modes of every CU; returns their number.
 */
GPUME_FN int gpume_emit_partition(int ctu, const GPUME_LOCAL uint8_t *tmp_mode, GPUME_LOCAL uint16_t *out)
{
    /* an explicit stack of (level, z) so the code also runs on GPUs */
    int stack_level[4 * 4], stack_z[4 * 4], sp = 0, levels = 0, n = 0;
    for (int s = GPUME_MIN_CU; s <= ctu; s <<= 1)
        levels++;
    stack_level[sp] = levels - 1;
    stack_z[sp++] = 0;
    while (sp > 0) {
        const int l = stack_level[--sp], z = stack_z[sp];
        const int s = GPUME_MIN_CU << l;
        const int m = tmp_mode[gpume_cu_level_offset(ctu, l) + z];
        if (m == GPUME_PART_NB) {
            for (int c = 3; c >= 0; c--) {
                stack_level[sp] = l - 1;
                stack_z[sp++] = 4 * z + c;
            }
        } else {
            const int first = gpume_level_base(ctu, l) + z * gpume_pus_per_cu(s) +
                              gpume_mode_first_pu(m);
            for (int p = 0; p < gpume_mode_parts(m, s); p++)
                out[n++] = first + p;
        }
    }
    return n;
}

/**
 * Cost-optimal partition of one CTU from its per-PU costs.
 * cost of a partition = sum of its PU costs + pu_penalty * (PUs - 1);
 * a CU keeps the cheapest mode (ties: lower mode); it splits into four only
 * when that is strictly cheaper. Writes the chosen PU indices in Z order
 * and returns their number. tmp must hold ctu*ctu/64 entries per level
 * (best cost) for all levels: 2 * (ctu/8)^2 entries suffice. The CUs of a
 * level are independent (gpume_cu_best()), so a GPU may cost them at once.
 */
GPUME_FN int gpume_choose_partition(const GPUME_LOCAL uint32_t *pu_cost, int ctu, int pu_penalty,
                                    GPUME_LOCAL uint32_t *tmp_cost, GPUME_LOCAL uint8_t *tmp_mode,
                                    GPUME_LOCAL uint16_t *out)
{
    for (int l = 0; GPUME_MIN_CU << l <= ctu; l++)
        for (int z = 0; z < (ctu / (GPUME_MIN_CU << l)) * (ctu / (GPUME_MIN_CU << l)); z++)
            gpume_cu_best(pu_cost, ctu, pu_penalty, l, z, tmp_cost, tmp_mode);
    return gpume_emit_partition(ctu, tmp_mode, out);
}

/** Geometry of PU idx of a CTU of size ctu (see gpume_level_base for the order). */
GPUME_FN GpumePU gpume_pu_rect(int ctu, int idx)
{
    GpumePU pu = { 0, 0, 0, 0 };
    int level = 0, base = 0;
    for (;;) {
        const int s = GPUME_MIN_CU << level;
        const int n = (ctu / s) * (ctu / s) * gpume_pus_per_cu(s);
        if (idx < base + n || s >= ctu)
            break;
        base += n;
        level++;
    }
    {
        const int s = GPUME_MIN_CU << level, us = s / 4, q = us / 4, h = us / 2;
        const int npu = gpume_pus_per_cu(s);
        const int z = (idx - base) / npu, k = (idx - base) % npu;
        int cx = 0, cy = 0, l, t, r, b;
        for (int bit = 0; bit < 4; bit++) {
            cx |= ((z >> (2 * bit)) & 1) << bit;
            cy |= ((z >> (2 * bit + 1)) & 1) << bit;
        }
        l = cx * us; t = cy * us; r = l + us; b = t + us;
        if (k == 1 || k == 2) {                 /* 2NxN */
            if (k == 1) b = t + h; else t += h;
        } else if (k == 3 || k == 4) {          /* Nx2N */
            if (k == 3) r = l + h; else l += h;
        } else if (k >= 5 && s == GPUME_MIN_CU) { /* NxN, Z order */
            const int p = k - 5;
            l += (p & 1) * h; t += (p >> 1) * h; r = l + h; b = t + h;
        } else if (k == 5 || k == 6) {          /* 2NxnU */
            if (k == 5) b = t + q; else t += q;
        } else if (k == 7 || k == 8) {          /* 2NxnD */
            if (k == 7) b = t + 3 * q; else t += 3 * q;
        } else if (k == 9 || k == 10) {         /* nLx2N */
            if (k == 9) r = l + q; else l += q;
        } else if (k == 11 || k == 12) {        /* nRx2N */
            if (k == 11) r = l + 3 * q; else l += 3 * q;
        }
        pu.l = l; pu.t = t; pu.r = r; pu.b = b;
    }
    return pu;
}

/** Number of PUs in the PU table of a CTU of size ctu. */
GPUME_FN int gpume_nb_pus(int ctu)
{
    int levels = 0;
    for (int s = GPUME_MIN_CU; s <= ctu; s <<= 1)
        levels++;
    return gpume_level_base(ctu, levels);
}

/**
 * hme rounds: the seeds of a round are the 2Nx2N PUs that the search costs:
 * with fixed blocks (block > 0) the nb_fixed exported PUs in Z order, else
 * those of every CU in PU-table order (gpume_hme_seed_pu()).
 */
GPUME_FN int gpume_hme_nb_seeds(int ctu, int block, int nb_fixed)
{
    return block ? nb_fixed : GPUME_HME_SEEDS(ctu);
}

/** hme rounds with block=auto: PU-table index of seed i. */
GPUME_FN int gpume_hme_seed_pu(int ctu, int i)
{
    int base = 0, s = GPUME_MIN_CU;
    for (; s < ctu && i >= (ctu / s) * (ctu / s); s <<= 1) {
        i    -= (ctu / s) * (ctu / s);
        base += (ctu / s) * (ctu / s) * gpume_pus_per_cu(s);
    }
    return base + i * gpume_pus_per_cu(s);
}

/** hme rounds with block=auto: the seed that PU k of the table is, or -1 for a PU that is no 2Nx2N. */
GPUME_FN int gpume_hme_seed_of_pu(int ctu, int k)
{
    int slot = 0;
    for (int s = GPUME_MIN_CU; s <= ctu; s <<= 1) {
        const int cus = (ctu / s) * (ctu / s), npu = gpume_pus_per_cu(s);
        if (k < cus * npu)
            return k % npu ? -1 : slot + k / npu;
        k    -= cus * npu;
        slot += cus;
    }
    return -1;
}

/** Index of the 2Nx2N PU of the z-th CU of size s. */
GPUME_FN int gpume_square_pu(int ctu, int s, int z)
{
    int level = 0;
    while ((GPUME_MIN_CU << level) < s)
        level++;
    return gpume_level_base(ctu, level) + z * gpume_pus_per_cu(s);
}

/**
 * One pixel of pyramid level k+1 from level k (size w x h): the rounded mean
 * of the 2x2 samples at (2x, 2y), with coordinates clamped into level k.
 */
GPUME_FN int gpume_downscale_px(const GPUME_GLOBAL uint8_t *src, int stride, int w, int h, int x, int y)
{
    const int x0 = gpume_clip(2 * x, 0, w - 1), x1 = gpume_clip(2 * x + 1, 0, w - 1);
    const int y0 = gpume_clip(2 * y, 0, h - 1), y1 = gpume_clip(2 * y + 1, 0, h - 1);
    return (src[y0 * stride + x0] + src[y0 * stride + x1] +
            src[y1 * stride + x0] + src[y1 * stride + x1] + 2) >> 2;
}

#if GPUME_HME_LEVELS != 2
#error "gpume_pyramid_px() computes levels 1 and 2"
#endif

/**
 * Sample (x, y) of pyramid level k (0, 1 or 2; x, y inside it) from level 0
 * (w x h at l0, rows pitch apart): level k + 1 is gpume_downscale_px() of
 * level k, and level 2 recomputes the four samples of level 1 (w1 x h1)
 * it covers, so that one pass makes every level.
 */
GPUME_FN int gpume_pyramid_px(const GPUME_GLOBAL uint8_t *l0, int pitch, int w, int h,
                              int w1, int h1, int k, int x, int y)
{
    int sum = 2;

    if (!k)
        return l0[y * pitch + x];
    if (k == 1)
        return gpume_downscale_px(l0, pitch, w, h, x, y);
    for (int i = 0; i < 4; i++)
        sum += gpume_downscale_px(l0, pitch, w, h, gpume_clip(2 * x + (i & 1), 0, w1 - 1),
                                  gpume_clip(2 * y + (i >> 1), 0, h1 - 1));
    return sum >> 2;
}

#endif /* AVFILTER_GPUME_H */
