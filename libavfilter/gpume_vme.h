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

#include "gpume_opencl.h"

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

#endif /* AVFILTER_GPUME_VME_H */
