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
#include "libavutil/imgutils.h"
#include "libavutil/log.h"
#include "libavutil/common.h"
#include "libavutil/macros.h"
#include "libavutil/mem.h"

#include "gpume_cuda_staging.h"

/* not among the functions the loader of ffnvcodec resolves: taken from the
 * library it opened (the driver API, stable since CUDA 3.2) */
typedef CUresult CUDAAPI GpumeMemHostAllocFn(void **pp, size_t bytesize, unsigned int flags);
typedef CUresult CUDAAPI GpumeMemFreeHostFn(void *p);

int ff_gpume_cuda_staging_alloc(void *note_ctx, CudaFunctions *cu, GpumeCudaStaging *buf,
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
    av_log(note_ctx, AV_LOG_VERBOSE, "no page-locked memory (%zu bytes): copies to and from "
           "the device wait for their stream\n", size);
    buf->data = av_malloc(size);
    if (!buf->data)
        return AVERROR(ENOMEM);
    buf->size = size;
    return 0;
}

int ff_gpume_cuda_staging_get(void *note_ctx, CudaFunctions *cu, GpumeCudaStaging *buf,
                              size_t size)
{
    return buf->data ? 0 : ff_gpume_cuda_staging_alloc(note_ctx, cu, buf, size);
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

/** Copies beyond this many threads gain nothing: the memory bus is full. */
#define MAX_COPY_JOBS 8

typedef struct CopyJob {
    const GpumeCopyPlane *planes;
    int nb_planes;
} CopyJob;

static int copy_rows(void *arg, int jobnr, int nb_jobs)
{
    const CopyJob *c = arg;

    for (int i = 0; i < c->nb_planes; i++) {
        const GpumeCopyPlane *pl = &c->planes[i];
        const int y0 = (int)((int64_t)pl->height * jobnr / nb_jobs);
        const int y1 = (int)((int64_t)pl->height * (jobnr + 1) / nb_jobs);
        if (y1 > y0)
            av_image_copy_plane(pl->dst + y0 * pl->dst_linesize, pl->dst_linesize,
                                pl->src + y0 * pl->src_linesize, pl->src_linesize,
                                pl->width, y1 - y0);
    }
    return 0;
}

int ff_gpume_copy_planes(int (*execute)(void *opaque, int (*job)(void *arg, int jobnr, int nb_jobs),
                                        void *arg, int nb_jobs),
                         void *opaque, int nb_threads, const GpumeCopyPlane *planes, int nb_planes)
{
    CopyJob c = { planes, nb_planes };
    const int nb_jobs = av_clip(nb_threads, 1, MAX_COPY_JOBS);

    if (!execute || nb_jobs == 1)
        return copy_rows(&c, 0, 1);
    return execute(opaque, copy_rows, &c, nb_jobs);
}
