/*
 * gpume: page-locked host memory for the CUDA backends of gpume and mcfps.
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

#ifndef AVFILTER_GPUME_CUDA_STAGING_H
#define AVFILTER_GPUME_CUDA_STAGING_H

#include <stddef.h>
#include <stdint.h>

#include "libavutil/hwcontext_cuda_internal.h"

/**
 * Host memory that the device copies to and from asynchronously. A copy
 * from pageable memory waits for the work queued before it on its stream
 * (and one into pageable memory for the copy itself), so the backends
 * stage their frames and results in page-locked memory instead.
 */
typedef struct GpumeCudaStaging {
    uint8_t *data;
    size_t   size;
    int      locked;    ///< page-locked; else av_malloc()ed (copies then wait)
} GpumeCudaStaging;

/**
 * Allocate size bytes of page-locked memory in the current context, or
 * pageable memory where the driver does not provide it (logged at verbose
 * level, once for each buffer). Returns 0 or AVERROR(ENOMEM).
 */
int ff_gpume_cuda_staging_alloc(void *note_ctx, CudaFunctions *cu, GpumeCudaStaging *buf,
                                size_t size);

/**
 * Allocate buf as ff_gpume_cuda_staging_alloc() does where it is still blank,
 * so that a filter whose frames all stay on the device locks no host memory
 * for them.
 */
int ff_gpume_cuda_staging_get(void *note_ctx, CudaFunctions *cu, GpumeCudaStaging *buf,
                              size_t size);

/** Free buf (the context that allocated it current); a blank buf is left. */
void ff_gpume_cuda_staging_free(CudaFunctions *cu, GpumeCudaStaging *buf);

/** One plane to copy: width bytes of height rows. */
typedef struct GpumeCopyPlane {
    uint8_t       *dst;
    const uint8_t *src;
    ptrdiff_t      dst_linesize, src_linesize;
    int            width, height;
} GpumeCopyPlane;

/**
 * Copy planes[0 .. nb_planes) with the rows split across up to nb_threads
 * jobs of execute (the filter's slice threads): one thread does not fill
 * the memory bandwidth a frame's copy into staging needs.
 */
int ff_gpume_copy_planes(int (*execute)(void *opaque, int (*job)(void *arg, int jobnr, int nb_jobs),
                                        void *arg, int nb_jobs),
                         void *opaque, int nb_threads, const GpumeCopyPlane *planes, int nb_planes);

#endif /* AVFILTER_GPUME_CUDA_STAGING_H */
