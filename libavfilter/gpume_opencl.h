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
 * Candidates per batch of the PU-table search of a CTU of size ctu: its
 * prefix tables take 12.5 to 20.3 KiB of local memory.
 */
#define GPUME_OCL_BATCH(ctu) ((ctu) == 16 ? 128 : (ctu) == 32 ? 64 : 16)

/*
 * The local memory of each search kernel, one list per kernel: an entry
 * X(type, name, count) is one __local array of count elements, in the order
 * of the kernel's __local parameters, for a CTU of size ctu. The kernels
 * declare those parameters from these lists (GPUME_OCL_LOCAL_PARAM) and the
 * host sizes them from the same lists (gpume_opencl.c). They are kernel
 * arguments rather than kernel-scope arrays: PoCL 3.1 shares those between
 * work-groups running at the same time.
 */
#define GPUME_OCL_COARSE_LOCALS(X, ctu)                                                 \
    X(uint64_t, red,       GPUME_KERNEL_THREADS)
#define GPUME_OCL_PU_SEARCH_LOCALS(X, ctu)                                              \
    X(uint32_t, S,         GPUME_OCL_BATCH(ctu) * ((ctu) / 4 + 1) * ((ctu) / 4 + 1))    \
    X(uint8_t,  cur_s,     (ctu) * (ctu))                                               \
    X(uint32_t, cand_idx,  GPUME_OCL_BATCH(ctu))                                        \
    X(uint32_t, cand_mvc,  GPUME_OCL_BATCH(ctu))                                        \
    X(int16_t,  cand_dx,   GPUME_OCL_BATCH(ctu))                                        \
    X(int16_t,  cand_dy,   GPUME_OCL_BATCH(ctu))                                        \
    X(int16_t,  seed_x,    GPUME_HME_ROUNDS * GPUME_HME_SEEDS(ctu))                     \
    X(int16_t,  seed_y,    GPUME_HME_ROUNDS * GPUME_HME_SEEDS(ctu))                     \
    X(uint64_t, red,       GPUME_KERNEL_THREADS) /* keys of the work-items sharing PUs */
#define GPUME_OCL_REFINE_LOCALS(X, ctu)                                                 \
    X(uint32_t, cost,      GPUME_MAX_PUS)                                               \
    X(uint32_t, tmp_cost,  GPUME_PART_TMP)                                              \
    X(uint8_t,  tmp_mode,  GPUME_PART_TMP)                                              \
    X(uint16_t, chosen,    GPUME_MAX_OUT_PER_CTU)                                       \
    X(uint32_t, red,       9 * GPUME_KERNEL_THREADS)                                    \
    X(int32_t,  nb_chosen, 1)
#define GPUME_OCL_LFS_LOCALS(X, ctu)                                                    \
    X(uint64_t, red,       GPUME_LFS_THREADS)                                           \
    X(uint32_t, sad_of,    GPUME_LFS_THREADS)

/** A list entry as a kernel parameter, after the buffers. */
#define GPUME_OCL_LOCAL_PARAM(type, name, count) , __local type *name

#endif /* AVFILTER_GPUME_OPENCL_H */
