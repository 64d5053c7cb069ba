/*
 * gpume: the arguments of the search kernels, one definition for the host
 * code (C), the CUDA kernels and the OpenCL kernels (where gpume.h and this
 * file are the source strings before opencl/gpume.cl).
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

#ifndef AVFILTER_GPUME_KERNEL_H
#define AVFILTER_GPUME_KERNEL_H

#ifndef __OPENCL_C_VERSION__
#include "gpume.h"
#include "gpume_dis.h"
#endif

/*
 * Every struct here is passed by value and holds ints only, so that host
 * and device layouts agree on every CUDA and OpenCL implementation.
 * Buffers travel beside them: CUDA kernels take a struct of device
 * pointers (gpume_cuda.h), OpenCL kernels one __global parameter each.
 */

#define GPUME_KERNEL_THREADS 256                         ///< threads of every search block
#define GPUME_LFS_THREADS    (GPUME_LFS_N * GPUME_LFS_N) ///< one thread per LFS template point
/** Entries of the per-level work arrays of gpume_choose_partition(). */
#define GPUME_PART_TMP       (2 * (GPUME_MAX_CTU / 8) * (GPUME_MAX_CTU / 8))

/**
 * hme's coarse search: words per row of a reference window kept as words,
 * for a block of `block` samples searched at byte offsets 0 .. 2r: the
 * block's words, one more for the offsets and one that a word straddles;
 * odd, so that the rows a warp's threads read lie in different banks.
 */
#define GPUME_WINDOW_PITCH(block, r) ((((block) >> 2) + ((2 * (r)) >> 2) + 2) | 1)

/**
 * A padded plane inside a picture's buffer, which holds the picture's
 * pyramid (level 0 and the coarse levels): sample (0, 0) of the plane is
 * at byte offset of the buffer, with pad samples of border around it.
 */
typedef struct GpumePlane {
    int offset, pitch, w, h;
} GpumePlane;

/**
 * The argument of every search kernel (hme coarse levels, PU-table search,
 * refinement, LFS). Its buffers: the pyramids of the current and the
 * reference picture, the predictors, the hme coarse results (GpumeHmeCoarse), the PU keys, the PU
 * table, the fixed-block PU list, the blocks and the block counts.
 */
typedef struct GpumeSearchArgs {
    GpumeParams p;
    GpumePlane cur[GPUME_HME_LEVELS + 1], ref[GPUME_HME_LEVELS + 1];
    int nb_fixed_pus;
} GpumeSearchArgs;

/**
 * Argument of the pyramid kernels, which write a picture's pyramid in one
 * launch: rectangles of samples, each of one level, in level coordinates
 * (the border at negative ones). Blocks of GPUME_PYR_BW x GPUME_PYR_BH
 * threads cover each rectangle in rows; rectangle r's start at block
 * rect[r].first_block (ff_gpume_pyramid_args()).
 */
#define GPUME_PYR_BW    32
#define GPUME_PYR_BH    8
#define GPUME_PYR_RECTS (4 + GPUME_HME_LEVELS)  ///< level 0's border or whole plane, then each coarse level
typedef struct GpumePyramidRect {
    int x, y, w, h, level, first_block;
} GpumePyramidRect;

typedef struct GpumePyramidArgs {
    GpumePlane level[GPUME_HME_LEVELS + 1];
    GpumePyramidRect rect[GPUME_PYR_RECTS];
    int nb_rects;
} GpumePyramidArgs;

/** Argument of the predictor kernel (pred=temporal): its buffers are blocks, counts, pred. */
typedef struct GpumePredArgs {
    int nb_ctus, max_out;
} GpumePredArgs;

/*
 * dis (gpume_dis.h, its kernels' arguments): the thread blocks of its
 * kernels; the patches kernel of many patches has its own in gpume_dis.h
 * (GPUME_DIS_GROUP).
 */
#define GPUME_DIS_PATCH_THREADS 128  ///< CUDA's patches kernel of few patches: 16 patches a block
#define GPUME_DIS_FEW_PATCHES   8192 ///< levels of fewer patches than this run that kernel

#endif /* AVFILTER_GPUME_KERNEL_H */
