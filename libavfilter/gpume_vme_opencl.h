/*
 * gpume: the Intel VME path of the OpenCL backend (algo=vme), host side.
 * gpume_opencl.c owns the device, the queue and the staging buffer of each
 * picture and calls these; kernels in opencl/gpume_vme.cl.
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

#ifndef AVFILTER_GPUME_VME_OPENCL_H
#define AVFILTER_GPUME_VME_OPENCL_H

#include "opencl.h"
#include "gpume_backend.h"

/** The name of the OpenCL extension the VME path needs. */
#define GPUME_VME_EXTENSION "cl_intel_device_side_avc_motion_estimation"

typedef struct GpumeVmeOpenCL GpumeVmeOpenCL;

/**
 * 0 if device has GPUME_VME_EXTENSION, else AVERROR(ENOSYS) after an error
 * message naming the requirement (an Intel Gen9-Gen11 GPU with Intel's
 * compute runtime).
 */
int ff_gpume_vme_opencl_check(void *log_ctx, cl_device_id device);

/**
 * Build the VME program and allocate images for GPUME_NB_SLOTS pictures of
 * p->width x p->height and nb_results results. p->algo is GPUME_ALGO_VME
 * (ctu 16, block 16 or 0, checked by ff_gpume_params_derive()).
 */
int ff_gpume_vme_opencl_init(GpumeVmeOpenCL **vme, void *log_ctx, cl_context context,
                             cl_device_id device, cl_command_queue queue,
                             const GpumeParams *p, int nb_results);

/** Make the packed luma plane in staging (width x height bytes) the picture of slot, with its HME tiers. */
int ff_gpume_vme_opencl_load(GpumeVmeOpenCL *vme, int slot, cl_mem staging);

/**
 * Enqueue the estimate of slot cur into slot ref as result e; *done
 * completes when its macroblocks are on the host for ff_gpume_vme_opencl_result().
 */
int ff_gpume_vme_opencl_estimate(GpumeVmeOpenCL *vme, int cur, int ref, int e, cl_event *done);

/** Convert result e (complete) into res: one CTU per macroblock, blocks in Z order. */
int ff_gpume_vme_opencl_result(GpumeVmeOpenCL *vme, int e, GpumeBlock *blocks, uint16_t *counts);

void ff_gpume_vme_opencl_uninit(GpumeVmeOpenCL **vme);

#endif /* AVFILTER_GPUME_VME_OPENCL_H */
