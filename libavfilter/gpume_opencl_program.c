/*
 * gpume: building OpenCL programs and kernels (gpume_opencl_program.h).
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

#include <inttypes.h>

#include "libavutil/log.h"
#include "libavutil/mem.h"

#include "gpume_opencl_program.h"

int ff_gpume_opencl_open(void *log_ctx, AVBufferRef *hw_device, AVBufferRef **device_ref,
                         AVOpenCLDeviceContext **hwctx, cl_command_queue *queue)
{
    AVOpenCLDeviceContext *dev;
    cl_int cle;

    if (!hw_device || ((AVHWDeviceContext *)hw_device->data)->type != AV_HWDEVICE_TYPE_OPENCL)
        return AVERROR(EINVAL);
    *device_ref = av_buffer_ref(hw_device);
    if (!*device_ref)
        return AVERROR(ENOMEM);
    *hwctx = dev = ((AVHWDeviceContext *)hw_device->data)->hwctx;
    if (dev->command_queue) {
        cle = clRetainCommandQueue(dev->command_queue);
        if (cle == CL_SUCCESS)
            *queue = dev->command_queue;
    } else {
        *queue = clCreateCommandQueue(dev->context, dev->device_id, 0, &cle);
    }
    if (cle != CL_SUCCESS) {
        av_log(log_ctx, AV_LOG_ERROR, "failed to get an OpenCL command queue: %d\n", cle);
        return AVERROR(EIO);
    }
    return 0;
}

int ff_gpume_opencl_build(void *log_ctx, cl_context context, cl_device_id device,
                          const char **src, int nb_src, const char *opts, cl_program *program)
{
    size_t size = 0;
    char *log;
    cl_int cle;

    *program = clCreateProgramWithSource(context, nb_src, src, NULL, &cle);
    if (!*program) {
        av_log(log_ctx, AV_LOG_ERROR, "failed to create an OpenCL program: %d\n", cle);
        return AVERROR(EIO);
    }
    cle = clBuildProgram(*program, 1, &device, opts, NULL, NULL);
    if (cle == CL_SUCCESS)
        return 0;
    av_log(log_ctx, AV_LOG_ERROR, "failed to build an OpenCL program (%s): %d\n", opts, cle);
    clGetProgramBuildInfo(*program, device, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
    log = av_malloc(size + 1);
    if (log && clGetProgramBuildInfo(*program, device, CL_PROGRAM_BUILD_LOG,
                                     size, log, NULL) == CL_SUCCESS) {
        log[size] = 0;
        av_log(log_ctx, AV_LOG_ERROR, "build log:\n%s\n", log);
    }
    av_free(log);
    clReleaseProgram(*program);
    *program = NULL;
    return AVERROR(EIO);
}

int ff_gpume_opencl_kernel_local(void *log_ctx, cl_program program, cl_device_id device,
                                 const char *name, size_t threads, size_t local_args,
                                 cl_kernel *kernel)
{
    cl_ulong used = 0, avail = 0;
    size_t wg = 0;
    cl_int cle;

    *kernel = clCreateKernel(program, name, &cle);
    if (!*kernel) {
        av_log(log_ctx, AV_LOG_ERROR, "failed to create kernel %s: %d\n", name, cle);
        return AVERROR(EIO);
    }
    cle = clGetKernelWorkGroupInfo(*kernel, device, CL_KERNEL_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL);
    if (cle != CL_SUCCESS || wg < threads) {
        if (cle != CL_SUCCESS)
            av_log(log_ctx, AV_LOG_ERROR, "failed to query kernel %s: %d\n", name, cle);
        else
            av_log(log_ctx, AV_LOG_ERROR, "kernel %s: the device runs at most %zu "
                   "work-items per group, %zu needed\n", name, wg, threads);
        clReleaseKernel(*kernel);
        *kernel = NULL;
        return cle != CL_SUCCESS ? AVERROR(EIO) : AVERROR(ENOSYS);
    }
    /* a group that does not fit would fail only when the first frame's
     * kernels are enqueued: found here, device=auto takes the next device */
    cle = clGetKernelWorkGroupInfo(*kernel, device, CL_KERNEL_LOCAL_MEM_SIZE, sizeof(used), &used, NULL);
    if (cle == CL_SUCCESS)
        cle = clGetDeviceInfo(device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof(avail), &avail, NULL);
    if (cle != CL_SUCCESS || used + local_args > avail) {
        if (cle != CL_SUCCESS)
            av_log(log_ctx, AV_LOG_ERROR, "failed to query the local memory of kernel %s: %d\n",
                   name, cle);
        else
            av_log(log_ctx, AV_LOG_ERROR, "kernel %s: the device has %" PRIu64 " bytes of local "
                   "memory, %" PRIu64 " needed\n", name, (uint64_t)avail,
                   (uint64_t)(used + local_args));
        clReleaseKernel(*kernel);
        *kernel = NULL;
        return cle != CL_SUCCESS ? AVERROR(EIO) : AVERROR(ENOSYS);
    }
    return 0;
}
