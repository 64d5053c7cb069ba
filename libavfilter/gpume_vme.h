/*
 * gpume: conversion of Intel VME results (GpumeVmeMB, gpume_opencl.h) into
 * exported blocks. Plain C without OpenCL, so that it builds everywhere and
 * is unit-tested without a device (tests/vmecheck.c).
 *
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

#ifndef AVFILTER_GPUME_VME_H
#define AVFILTER_GPUME_VME_H

/*
 * In OpenCL, gpume.h and this file are the source strings before
 * opencl/gpume_vme.cl; the rest of it (the conversion of VME results into
 * blocks, gpume_vme.c) is host code.
 */
#ifndef __OPENCL_C_VERSION__
#include "gpume.h"
#endif

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

#ifndef __OPENCL_C_VERSION__
/** Blocks one macroblock exports at most: sixteen 4x4 partitions. */
#define GPUME_VME_MAX_BLOCKS GPUME_VME_SUBS

/**
 * The blocks of macroblock (mb_x, mb_y) of a width x height picture from its
 * VME result: one per partition of its major shape (and, for 8x8, of each
 * quadrant's minor shape), in H.264 scan (Z) order; x, y absolute, w, h
 * clipped to the picture, partitions entirely outside it dropped; mvx, mvy
 * the partition's quarter-pel vector, sad its distortion (those of its
 * first sub-block). out must hold GPUME_VME_MAX_BLOCKS entries.
 * Returns the number written (0 when the macroblock lies outside the
 * picture), or AVERROR_INVALIDDATA for a major shape above 3.
 */
int ff_gpume_vme_blocks(const GpumeVmeMB *mb, int mb_x, int mb_y, int width, int height,
                        GpumeBlock *out);

#endif /* __OPENCL_C_VERSION__ */

#endif /* AVFILTER_GPUME_VME_H */
