/*
 * gpume: what the OpenCL backends of the filters of this repository
 * (gpume's search, its VME path, mcfps) share: the device's queue, and
 * their programs built from the source strings FFmpeg's build embeds.
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

#ifndef AVFILTER_GPUME_OPENCL_PROGRAM_H
#define AVFILTER_GPUME_OPENCL_PROGRAM_H

#include "opencl.h"

/**
 * Take the OpenCL device hw_device (opened by gpume_device.c) for a backend:
 * *device_ref becomes a new reference to it, *hwctx its device context and
 * *queue the device's command queue, retained, where it has one (FFmpeg's
 * convention), else an in-order queue of its own. Returns 0,
 * AVERROR(EINVAL) for a device that is not OpenCL, AVERROR(ENOMEM), or
 * AVERROR(EIO) (logged); what was set is the caller's to release.
 */
int ff_gpume_opencl_open(void *log_ctx, AVBufferRef *hw_device, AVBufferRef **device_ref,
                         AVOpenCLDeviceContext **hwctx, cl_command_queue *queue);

/**
 * Build a program of the nb_src source strings src with the build options
 * opts for device on context. A failed build logs the compiler's log at
 * error level. Returns 0, or AVERROR(EIO) with *program NULL.
 */
int ff_gpume_opencl_build(void *log_ctx, cl_context context, cl_device_id device,
                          const char **src, int nb_src, const char *opts, cl_program *program);

/**
 * Create the kernel name of program, and check that device runs at least
 * threads work-items per work-group (the kernels' required group size) and
 * has the local memory the kernel declares plus local_args bytes (its
 * __local arguments, sized by the host). Returns 0, AVERROR(EIO), or
 * AVERROR(ENOSYS) for a device whose groups or local memory are too small;
 * *kernel is NULL on failure.
 */
int ff_gpume_opencl_kernel_local(void *log_ctx, cl_program program, cl_device_id device,
                                 const char *name, size_t threads, size_t local_args,
                                 cl_kernel *kernel);

/** ff_gpume_opencl_kernel_local() for a kernel without __local arguments */
static inline int ff_gpume_opencl_kernel(void *log_ctx, cl_program program, cl_device_id device,
                                         const char *name, size_t threads, cl_kernel *kernel)
{
    return ff_gpume_opencl_kernel_local(log_ctx, program, device, name, threads, 0, kernel);
}

/**
 * The AVERROR of a failed allocation or mapping: AVERROR(ENOMEM) only where
 * the host is out of memory (the device layer stops there), else
 * AVERROR(EIO), after which device=auto tries the next backend.
 */
static inline int ff_gpume_opencl_error(cl_int cle)
{
    return cle == CL_OUT_OF_HOST_MEMORY ? AVERROR(ENOMEM) : AVERROR(EIO);
}

#endif /* AVFILTER_GPUME_OPENCL_PROGRAM_H */
