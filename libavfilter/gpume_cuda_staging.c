/*
 * gpume: page-locked host memory for the CUDA backends (gpume_cuda_staging.h).
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

#include "libavutil/error.h"
#include "libavutil/log.h"
#include "libavutil/macros.h"
#include "libavutil/mem.h"

#include "gpume_cuda_staging.h"

/* not among the functions the loader of ffnvcodec resolves: taken from the
 * library it opened (the driver API, stable since CUDA 3.2) */
typedef CUresult CUDAAPI GpumeMemHostAllocFn(void **pp, size_t bytesize, unsigned int flags);
typedef CUresult CUDAAPI GpumeMemFreeHostFn(void *p);

int ff_gpume_cuda_staging_alloc(void *log_ctx, CudaFunctions *cu, GpumeCudaStaging *buf,
                                size_t size)
{
    GpumeMemHostAllocFn *host_alloc = (GpumeMemHostAllocFn *)FFNV_SYM_FUNC(cu->lib, "cuMemHostAlloc");
    void *p = NULL;

    *buf = (GpumeCudaStaging) { 0 };
    size = FFMAX(size, 1);
    if (host_alloc && host_alloc(&p, size, 0) == CUDA_SUCCESS && p) {
        *buf = (GpumeCudaStaging) { p, size, 1 };
        return 0;
    }
    av_log(log_ctx, AV_LOG_VERBOSE, "no page-locked memory (%zu bytes): copies to and from "
           "the device wait for their stream\n", size);
    buf->data = av_malloc(size);
    if (!buf->data)
        return AVERROR(ENOMEM);
    buf->size = size;
    return 0;
}

void ff_gpume_cuda_staging_free(CudaFunctions *cu, GpumeCudaStaging *buf)
{
    if (buf->locked) {
        GpumeMemFreeHostFn *free_host = (GpumeMemFreeHostFn *)FFNV_SYM_FUNC(cu->lib, "cuMemFreeHost");
        if (free_host)
            free_host(buf->data);
    } else {
        av_free(buf->data);
    }
    *buf = (GpumeCudaStaging) { 0 };
}
