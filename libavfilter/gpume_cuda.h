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

#include "gpume_kernel.h"

/* Device pointers are plain 64-bit integers on the host side. */
#if defined(__CUDACC__) || defined(__CUDA__)
#define GPUME_DEVPTR(type) type *
#else
#define GPUME_DEVPTR(type) uint64_t
#endif

/**
 * The buffers of every search kernel, the second argument after the
 * GpumeSearchArgs (gpume_kernel.h) that locates the planes inside cur and ref.
 */
typedef struct GpumeCudaBuffers {
    GPUME_DEVPTR(const uint8_t)   cur;       ///< pyramid of the current picture
    GPUME_DEVPTR(const uint8_t)   ref;       ///< pyramid of the reference picture
    GPUME_DEVPTR(const int16_t)   pred;      ///< nb_ctus (x, y) quarter-pel predictors
    GPUME_DEVPTR(GpumeHmeCoarse)  coarse;    ///< nb_ctus, written by the hme coarse kernel
    GPUME_DEVPTR(uint64_t)        pu_keys;   ///< nb_ctus * nb_pus best keys
    GPUME_DEVPTR(const GpumePU)   pu;        ///< the PU table, nb_pus entries
    GPUME_DEVPTR(const uint16_t)  fixed_pus; ///< exported PUs in fixed-block mode
    GPUME_DEVPTR(GpumeBlock)      blocks;    ///< nb_ctus * max_out
    GPUME_DEVPTR(uint16_t)        counts;    ///< nb_ctus
} GpumeCudaBuffers;

/** The key packing of the full-search kernels of CTU 32 (ff_gpume_full_key_packing()). */
typedef struct GpumeFullArgs {
    int key_bits;   ///< bits of e in a key
    int local;      ///< e is the thread's own candidate number (1) or the index (0)
} GpumeFullArgs;

#endif /* AVFILTER_GPUME_CUDA_H */
