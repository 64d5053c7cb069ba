/*
 * gpume: kernel arguments shared by the OpenCL host code and opencl/gpume.cl
 * (prepended to the kernel source after gpume.h).
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

#ifndef AVFILTER_GPUME_OPENCL_H
#define AVFILTER_GPUME_OPENCL_H

/* in OpenCL, gpume.h and gpume_kernel.h are the source strings before this one */
#ifndef __OPENCL_C_VERSION__
#include "gpume_kernel.h"
#endif

/**
 * Candidates per batch of the PU-table search of a CTU of size ctu, as in
 * the CUDA kernels: its prefix tables take 25 to 40.5 KiB of local memory.
 */
#define GPUME_OCL_BATCH(ctu) ((ctu) == 16 ? 256 : (ctu) == 32 ? 128 : 32)

/* hme's coarse levels: the CTU's blocks and the reference windows they are searched in */
#define GPUME_OCL_L2_MAX_R     ((GPUME_MAX_RANGE + 3) >> 2)        ///< gpume_hme_l2_range() at most
#define GPUME_OCL_L2_ROWS(ctu)  ((ctu) / 4 + 2 * GPUME_OCL_L2_MAX_R)
#define GPUME_OCL_L2_PITCH(ctu) GPUME_WINDOW_PITCH((ctu) / 4, GPUME_OCL_L2_MAX_R)
#define GPUME_OCL_L1_ROWS(ctu)  ((ctu) / 2 + 2 * GPUME_HME_L1_RANGE)
#define GPUME_OCL_L1_PITCH(ctu) GPUME_WINDOW_PITCH((ctu) / 2, GPUME_HME_L1_RANGE)
#define GPUME_OCL_L1_POINTS    ((2 * GPUME_HME_L1_RANGE + 1) * (2 * GPUME_HME_L1_RANGE + 1))
/** Work-items sharing the SAD of one level-1 point (rows split among them). */
#define GPUME_OCL_L1_PARTS     (GPUME_KERNEL_THREADS / (GPUME_HME_MINIMA * GPUME_OCL_L1_POINTS))

/* hme's level-1 block search: the CTU's level-1 block and its reference
 * window as words, rows of LB_PITCH words at most (an odd pitch, rounded
 * up); the least key of each part of each row of candidates of each block */
#define GPUME_OCL_LB_MAX_R     ((GPUME_MAX_RANGE + 1) >> 1)        ///< gpume_hme_l1_block_range() at most
#define GPUME_OCL_LB_N         (2 * GPUME_OCL_LB_MAX_R + 1)        ///< rows of candidates, at most
#define GPUME_OCL_LB_PITCH(ctu) (((ctu) / 2 + 2 * GPUME_OCL_LB_MAX_R + 4) / 4 + 1)
#define GPUME_OCL_LB_BLOCKS    (GPUME_HME_BLOCK_VECTORS / GPUME_HME_BLOCK_MINIMA) ///< blocks of a CTU, at most

/** hme's candidate list in the PU-table search: the windows' then the CTU's block vectors. */
#define GPUME_OCL_LIST(ctu)    (GPUME_HME_CANDIDATES +                                    \
                                GPUME_HME_BLOCK_MINIMA * ((ctu) / GPUME_MIN_CU) * ((ctu) / GPUME_MIN_CU))

/** Row segments of at most 4 samples of all exported PUs of a CTU: they tile it and are at least 4 wide. */
#define GPUME_OCL_SEGS(ctu) ((ctu) * (ctu) / 4)
/** Exported PUs of a CTU at most: its 4x4 units. */
#define GPUME_OCL_OUT(ctu)     (((ctu) / 4) * ((ctu) / 4))

/*
 * The local memory of each search kernel, one list per kernel: an entry
 * X(type, name, count) is one __local array of count elements, in the order
 * of the kernel's __local parameters, for a CTU of size ctu. The kernels
 * declare those parameters from these lists (GPUME_OCL_LOCAL_PARAM) and the
 * host sizes them from the same lists (gpume_opencl.c). They are kernel
 * arguments rather than kernel-scope arrays: PoCL 3.1 shares those between
 * work-groups running at the same time. Each list's first entry has the
 * largest element type, so that the others may be reinterpreted as it.
 */
#define GPUME_OCL_COARSE_LOCALS(X, ctu)                                                 \
    X(uint64_t, red,       GPUME_KERNEL_THREADS)                                        \
    X(uint32_t, part,      GPUME_HME_MINIMA * GPUME_OCL_L1_POINTS * GPUME_OCL_L1_PARTS) \
    X(uint32_t, cur2,      ((ctu) / 4) * ((ctu) / 4) / 4)                               \
    X(uint32_t, ref2,      GPUME_OCL_L2_ROWS(ctu) * GPUME_OCL_L2_PITCH(ctu))            \
    X(uint32_t, cur1,      ((ctu) / 2) * ((ctu) / 2) / 4)                               \
    X(uint32_t, ref1,      GPUME_HME_MINIMA * GPUME_OCL_L1_ROWS(ctu) * GPUME_OCL_L1_PITCH(ctu))
/* part_best: as many parts per row as it holds (P of gpume_hme_blocks) */
#define GPUME_OCL_BLOCKS_LOCALS(X, ctu)                                                 \
    X(uint64_t, part_best, GPUME_OCL_LB_BLOCKS * GPUME_OCL_LB_N)                        \
    X(uint32_t, cur_w,     ((ctu) / 2) * ((ctu) / 2) / 4)                               \
    X(uint32_t, ref_w,     ((ctu) / 2 + 2 * GPUME_OCL_LB_MAX_R) * GPUME_OCL_LB_PITCH(ctu)) \
    X(int16_t,  m0,        2 * GPUME_OCL_LB_BLOCKS)
/* S also holds the keys of the work-items sharing PUs (as many uint64_t as work-items) */
#define GPUME_OCL_PU_SEARCH_LOCALS(X, ctu)                                              \
    X(uint64_t, S,         GPUME_OCL_BATCH(ctu) * ((ctu) / 4 + 1) * ((ctu) / 4 + 1) / 2 + 1) \
    X(uint32_t, cur_w,     (ctu) * (ctu) / 4)                                           \
    X(uint32_t, cand_idx,  GPUME_OCL_BATCH(ctu))                                        \
    X(uint32_t, cand_mvc,  GPUME_OCL_BATCH(ctu))                                        \
    X(int16_t,  cand_dx,   GPUME_OCL_BATCH(ctu))                                        \
    X(int16_t,  cand_dy,   GPUME_OCL_BATCH(ctu))                                        \
    X(uint32_t, list_idx,  GPUME_OCL_LIST(ctu))                                         \
    X(int16_t,  list_dx,   GPUME_OCL_LIST(ctu))                                         \
    X(int16_t,  list_dy,   GPUME_OCL_LIST(ctu))                                         \
    X(uint32_t, mask,      GPUME_KERNEL_THREADS / 32)                                   \
    X(int16_t,  seed_x,    GPUME_HME_ROUNDS * GPUME_HME_SEEDS(ctu))                     \
    X(int16_t,  seed_y,    GPUME_HME_ROUNDS * GPUME_HME_SEEDS(ctu))
/* geo: x, y, w, h and the quarter-pel vector of each exported PU, GPUME_OCL_OUT(ctu) each */
#define GPUME_OCL_REFINE_LOCALS(X, ctu)                                                 \
    X(uint32_t, cost,      GPUME_MAX_PUS)                                               \
    X(uint32_t, sad,       9 * GPUME_OCL_OUT(ctu))                                      \
    X(uint32_t, tmp_cost,  GPUME_PART_TMP)                                              \
    X(int32_t,  scan,      GPUME_KERNEL_THREADS)                                        \
    X(uint32_t, mask,      GPUME_KERNEL_THREADS / 32)                                   \
    X(int32_t,  nb_chosen, 1)                                                           \
    X(uint16_t, seg_sad,   9 * GPUME_OCL_SEGS(ctu))    /* a segment: <= 4 * 255 */      \
    X(uint16_t, chosen,    GPUME_MAX_OUT_PER_CTU)                                       \
    X(uint16_t, first_seg, GPUME_OCL_OUT(ctu) + 1)                                      \
    X(int16_t,  geo,       6 * GPUME_OCL_OUT(ctu))                                      \
    X(uint8_t,  tmp_mode,  GPUME_PART_TMP)                                              \
    X(uint8_t,  seg_pu,    GPUME_OCL_SEGS(ctu))
#define GPUME_OCL_LFS_LOCALS(X, ctu)                                                    \
    X(uint64_t, red,       GPUME_LFS_THREADS)                                           \
    X(uint32_t, sad_of,    GPUME_LFS_THREADS)

/*
 * full, CTU 32 (gpume_full32, gpume_full32_b8/b16/b32, as in CUDA): the
 * cells of a chunk's candidates (GPUME_OCL_FULL_STRIDE(block) words each: 8
 * strips of cells, padded against bank conflicts), their terms (two
 * chunks), the quadrants' sums (block=auto) and the current CTU as 8 strips
 * of 32 words. The arrays read as uint4 are lists of GpumeOclWord4, so that
 * they are 16-byte aligned.
 */
#define GPUME_OCL_FULL_SLOTS      (GPUME_FULL_PAIRS * GPUME_FULL_K)   ///< candidates of a chunk
#define GPUME_OCL_FULL_CUR_STRIDE 36   ///< words per strip of the current CTU: 8 strips, 8 bank groups
#define GPUME_OCL_FULL_STRIDE(block) ((block) == 0 ? 72 : (block) == 8 ? 40 : (block) == 16 ? 24 : 8)
#define GPUME_OCL_FULL32_LOCALS(X, block)                                               \
    X(GpumeOclWord4, cells4, GPUME_OCL_FULL_SLOTS * GPUME_OCL_FULL_STRIDE(block) / 4)   \
    X(GpumeOclWord4, quads4, (block) == 0 ? GPUME_OCL_FULL_SLOTS * 12 / 4 : 1)          \
    X(GpumeOclWord4, cur4,   8 * GPUME_OCL_FULL_CUR_STRIDE / 4)                         \
    X(uint32_t,      terms,  2 * GPUME_OCL_FULL_SLOTS)

#ifdef __OPENCL_C_VERSION__
typedef uint4 GpumeOclWord4;
#else
typedef struct GpumeOclWord4 {
    uint32_t w[4];
} GpumeOclWord4;
#endif

/**
 * The argument of the gpume_full32 kernels after the buffers: the key
 * packing of ff_gpume_full_key_packing() (numbered: its local), and
 * scale = 2^key_bits, an argument so that a key costs one multiply-add.
 */
typedef struct GpumeOclFullArgs {
    int key_bits;
    int numbered;   ///< e is the work-item's own candidate number (1) or the index (0)
    int scale;
} GpumeOclFullArgs;

/* the search of 8x8 blocks at CTU 32 (gpume_pu_blocks32), its search area sized for the range */
#define GPUME_OCL_BLOCK8_LOCALS(X, range)                                               \
    X(uint64_t, red,       32 * 16)                                                     \
    X(uint32_t, area,      GPUME_B8_ROWS(range) * GPUME_B8_PITCH(range))                \
    X(uint32_t, cur_w,     32 * 32 / 4)                                                 \
    X(uint32_t, list_idx,  GPUME_OCL_LIST(32))                                          \
    X(int16_t,  list_dx,   GPUME_OCL_LIST(32))                                          \
    X(int16_t,  list_dy,   GPUME_OCL_LIST(32))                                          \
    X(uint32_t, mask,      GPUME_KERNEL_THREADS / 32)                                   \
    X(int16_t,  seed_x,    GPUME_HME_ROUNDS * 16)                                       \
    X(int16_t,  seed_y,    GPUME_HME_ROUNDS * 16)                                       \
    X(int32_t,  win,       2 * GPUME_HME_WINDOWS)

/** A list entry as a kernel parameter, after the buffers. */
#define GPUME_OCL_LOCAL_PARAM(type, name, count) , __local type *name

#endif /* AVFILTER_GPUME_OPENCL_H */
