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

/*
 * Intel VME path (algo=vme, opencl/gpume_vme.cl; needs the device extension
 * cl_intel_device_side_avc_motion_estimation, Intel Gen9-Gen11 only). One
 * sub-group of 16 work-items per 16x16 macroblock; the HME tiers are the
 * frame downscaled 8x, 4x and 2x (tier 3, 2, 1) above the full picture (tier 0).
 */
#define GPUME_VME_MB       16
#define GPUME_VME_TIERS    4    ///< tier t is the picture downscaled by 1 << t
#define GPUME_VME_SUBS     16   ///< 4x4 sub-blocks of a macroblock

/* VME major shapes (CLK_AVC_ME_MAJOR_*_INTEL) and minor shapes (CLK_AVC_ME_MINOR_*_INTEL) */
#define GPUME_VME_MAJOR_16x16 0
#define GPUME_VME_MAJOR_16x8  1
#define GPUME_VME_MAJOR_8x16  2
#define GPUME_VME_MAJOR_8x8   3
#define GPUME_VME_MINOR_8x8   0
#define GPUME_VME_MINOR_8x4   1
#define GPUME_VME_MINOR_4x8   2
#define GPUME_VME_MINOR_4x4   3

/**
 * The result of one macroblock as the VME returns it. Sub-block i is the
 * 4x4 block of the H.264 scan order: 8x8 quadrant i / 4 (top-left,
 * top-right, bottom-left, bottom-right), 4x4 i % 4 in the same order within
 * it; its vector (quarter pel, relative to the macroblock) and distortion
 * are those of the partition that contains it. minor holds two bits per
 * 8x8 quadrant (quadrant q in bits 2q, 2q + 1), meaningful for major 8x8.
 */
typedef struct GpumeVmeMB {
    int16_t  mv[GPUME_VME_SUBS][2];
    uint16_t dist[GPUME_VME_SUBS];
    uint8_t  major, minor, dir, pad;
} GpumeVmeMB;

/** The by-value argument of the VME search kernels. */
typedef struct GpumeVmeArgs {
    int mb_cols, mb_rows;       ///< macroblocks of this tier
    int pred_cols, pred_rows;   ///< macroblocks of the coarser tier (predictors), 0: none
    int width, height;          ///< picture size of this tier
    int window;                 ///< enum GpumeVmeWindow, not AUTO
    int all_partitions;         ///< 1: every major and minor shape, 0: 16x16 only
    int qp;                     ///< QP of the default cost tables, 0..51
    int subpel;                 ///< 0 integer, 1 half, 2 quarter pel (REF)
    int chain_zero;             ///< also search around (0,0), chained by stream-out/stream-in
} GpumeVmeArgs;

#endif /* AVFILTER_GPUME_OPENCL_H */
