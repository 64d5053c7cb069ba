/*
 * gpume: kernel arguments shared by the CUDA host code and cuda/gpume.cu.
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

#ifndef AVFILTER_GPUME_CUDA_H
#define AVFILTER_GPUME_CUDA_H

#include "gpume.h"

/* Device pointers are plain 64-bit integers on the host side. */
#if defined(__CUDACC__) || defined(__CUDA__)
#define GPUME_DEVPTR(type) type *
#else
#define GPUME_DEVPTR(type) uint64_t
#endif

#define GPUME_CUDA_THREADS  256   ///< threads of every search block
#define GPUME_CUDA_LFS_THREADS (GPUME_LFS_N * GPUME_LFS_N)

/** A padded plane on the device: data points at sample (0, 0). */
typedef struct GpumeCudaPlane {
    GPUME_DEVPTR(uint8_t) data;
    int pitch, w, h;
} GpumeCudaPlane;

/** Window origins of the PU-table search of one CTU (hme: two windows). */
typedef struct GpumeCudaWindows {
    int x0[2], y0[2];
} GpumeCudaWindows;

/** The one argument of every search kernel. */
typedef struct GpumeCudaArgs {
    GpumeParams p;
    GpumeCudaPlane cur[GPUME_HME_LEVELS + 1], ref[GPUME_HME_LEVELS + 1];
    GPUME_DEVPTR(const int16_t)   pred;      ///< nb_ctus (x, y) quarter-pel predictors
    GPUME_DEVPTR(GpumeCudaWindows) windows;  ///< nb_ctus, written by the hme coarse kernel
    GPUME_DEVPTR(uint64_t)        pu_keys;   ///< nb_ctus * nb_pus best keys
    GPUME_DEVPTR(const GpumePU)   pu;        ///< the PU table, nb_pus entries
    GPUME_DEVPTR(const uint16_t)  fixed_pus; ///< exported PUs in fixed-block mode
    int nb_fixed_pus;
    GPUME_DEVPTR(GpumeBlock)      blocks;    ///< nb_ctus * max_out
    GPUME_DEVPTR(uint16_t)        counts;    ///< nb_ctus
} GpumeCudaArgs;

/** Argument of gpume_predictor: the temporal predictors from an earlier result. */
typedef struct GpumeCudaPredArgs {
    GPUME_DEVPTR(const GpumeBlock) blocks;
    GPUME_DEVPTR(const uint16_t)   counts;
    GPUME_DEVPTR(int16_t)          pred;
    int nb_ctus, max_out;
} GpumeCudaPredArgs;

/** Argument of the plane kernels (border fill, downscale). */
typedef struct GpumeCudaPlaneArgs {
    GpumeCudaPlane src, dst;
    int pad;
} GpumeCudaPlaneArgs;

#endif /* AVFILTER_GPUME_CUDA_H */
