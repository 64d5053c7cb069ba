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

/* in OpenCL, gpume.h is the source string before this one */
#ifndef __OPENCL_C_VERSION__
#include "gpume.h"
#endif

/*
 * The structs below are kernel arguments passed by value: int members only,
 * so that host and device layouts agree on every OpenCL implementation.
 */

#define GPUME_OCL_THREADS     256                         ///< work-items of every search work-group
#define GPUME_OCL_LFS_THREADS (GPUME_LFS_N * GPUME_LFS_N) ///< one work-item per template point

/**
 * Candidates per batch of the PU-table search of a CTU of size ctu: its
 * prefix tables take 12.5 to 20.3 KiB of local memory.
 */
#define GPUME_OCL_BATCH(ctu) ((ctu) == 16 ? 128 : (ctu) == 32 ? 64 : 16)
/** Entries of the per-level work arrays of gpume_choose_partition(). */
#define GPUME_OCL_PART_TMP   (2 * (GPUME_MAX_CTU / 8) * (GPUME_MAX_CTU / 8))

/** A padded plane inside a buffer: sample (0, 0) is at byte offset. */
typedef struct GpumeOclPlane {
    int offset, pitch, w, h;
} GpumeOclPlane;

/** Window origins of the PU-table search of one CTU (hme: two windows). */
typedef struct GpumeOclWindows {
    int x0[2], y0[2];
} GpumeOclWindows;

/**
 * The by-value argument of every search kernel. The buffers follow it:
 * cur, ref (the pyramid of each picture), pred, windows, pu_keys, pu,
 * fixed_pus, blocks, counts, then the kernel's local memory (see
 * gpume_opencl.c, run_search()).
 */
typedef struct GpumeOclArgs {
    GpumeParams p;
    GpumeOclPlane cur[GPUME_HME_LEVELS + 1], ref[GPUME_HME_LEVELS + 1];
    int nb_fixed_pus;
} GpumeOclArgs;

/** Argument of the plane kernels (import with border fill, downscale). */
typedef struct GpumeOclPlaneArgs {
    GpumeOclPlane src, dst;
    int pad;    ///< border of dst written, in samples
} GpumeOclPlaneArgs;

#endif /* AVFILTER_GPUME_OPENCL_H */
