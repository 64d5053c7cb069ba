/*
 * gpume: the Intel VME path of the OpenCL backend (see gpume_vme_opencl.h).
 *
 * Each picture slot holds GPUME_VME_TIERS images (CL_R, CL_UNORM_INT8, as
 * the VME media sampler reads them): the luma plane and its 2x, 4x and 8x
 * downscales. An estimate runs gpume_vme_hme on tiers 3, 2, 1 (each tier's
 * predictors feed the next finer one), then gpume_vme_search on tier 0,
 * and reads one GpumeVmeMB per macroblock back; ff_gpume_vme_blocks()
 * turns them into blocks. Compile-verified for Gen9 (skl) and Gen11
 * (icllp) with ocloc; not run (no Intel GPU was available).
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

#include <string.h>

#include "libavutil/log.h"
#include "libavutil/macros.h"
#include "libavutil/mem.h"

#include "gpume_vme.h"
#include "gpume_vme_opencl.h"
#include "gpume_opencl_program.h"

extern const char *ff_source_gpume_h_cl;
extern const char *ff_source_gpume_vme_h_cl;
extern const char *ff_source_gpume_vme_cl;

struct GpumeVmeOpenCL {
    void *log_ctx;
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    GpumeParams p;
    int nb_results;
    int window;                                 ///< enum GpumeVmeWindow of tier 0, resolved

    cl_program program;
    cl_kernel k_downscale, k_hme, k_search;
    cl_mem img[GPUME_NB_SLOTS][GPUME_VME_TIERS];
    int tw[GPUME_VME_TIERS], th[GPUME_VME_TIERS];       ///< tier sizes
    int mbc[GPUME_VME_TIERS], mbr[GPUME_VME_TIERS];     ///< macroblocks per tier
    cl_mem pred[GPUME_VME_TIERS];               ///< predictors written by tier t >= 1
    cl_mem out[GPUME_NB_RESULTS];
    GpumeVmeMB *host[GPUME_NB_RESULTS];
};

int ff_gpume_vme_opencl_check(void *log_ctx, cl_device_id device)
{
    size_t size = 0;
    char *ext;
    int found;

    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS || !size)
        size = 1;
    ext = av_mallocz(size + 1);
    if (!ext)
        return AVERROR(ENOMEM);
    if (clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, size, ext, NULL) != CL_SUCCESS)
        ext[0] = 0;
    found = !!strstr(ext, GPUME_VME_EXTENSION);
    av_free(ext);
    if (!found) {
        char name[128] = "";
        clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof(name) - 1, name, NULL);
        av_log(log_ctx, AV_LOG_ERROR, "algo=vme needs the OpenCL extension " GPUME_VME_EXTENSION
               ", which OpenCL device '%s' lacks: it needs an Intel Gen9-Gen11 GPU "
               "(Skylake to Ice Lake) with Intel's compute runtime\n", name);
        return AVERROR(ENOSYS);
    }
    return 0;
}

static int build_program(GpumeVmeOpenCL *v)
{
    const char *src[] = { ff_source_gpume_h_cl, ff_source_gpume_vme_h_cl, ff_source_gpume_vme_cl };
    int err;

    if ((err = ff_gpume_opencl_build(v->log_ctx, v->context, v->device, src, FF_ARRAY_ELEMS(src),
                                     "-cl-std=CL2.0", &v->program)) < 0 ||
        (err = ff_gpume_opencl_kernel(v->log_ctx, v->program, v->device, "gpume_vme_downscale", 1,
                                      &v->k_downscale)) < 0 ||
        (err = ff_gpume_opencl_kernel(v->log_ctx, v->program, v->device, "gpume_vme_hme", 1,
                                      &v->k_hme)) < 0)
        return err;
    return ff_gpume_opencl_kernel(v->log_ctx, v->program, v->device, "gpume_vme_search", 1, &v->k_search);
}

static cl_mem alloc(GpumeVmeOpenCL *v, const cl_image_format *fmt, int w, int h, size_t size, int *err)
{
    cl_int cle;
    cl_mem m;

    if (fmt) {
        const cl_image_desc desc = { .image_type = CL_MEM_OBJECT_IMAGE2D, .image_width = w,
                                     .image_height = h };
        m = clCreateImage(v->context, CL_MEM_READ_WRITE, fmt, &desc, NULL, &cle);
    } else {
        m = clCreateBuffer(v->context, CL_MEM_READ_WRITE, FFMAX(size, 1), NULL, &cle);
    }
    if (!m) {
        av_log(v->log_ctx, AV_LOG_ERROR, "failed to allocate VME %s: %d\n", fmt ? "image" : "buffer", cle);
        *err = ff_gpume_opencl_error(cle);
    }
    return m;
}

/** The smallest window covering +-range, or the exhaustive 48x40 one (+-16 x +-12). */
static int auto_window(int range)
{
    return range <= 2 ? GPUME_VME_WINDOW_EXTRA_TINY :
           range <= 4 ? GPUME_VME_WINDOW_TINY :
           range <= 6 ? GPUME_VME_WINDOW_SMALL : GPUME_VME_WINDOW_EXHAUSTIVE;
}

av_cold int ff_gpume_vme_opencl_init(GpumeVmeOpenCL **vme, void *log_ctx, cl_context context,
                                     cl_device_id device, cl_command_queue queue,
                                     const GpumeParams *p, int nb_results)
{
    const cl_image_format fmt = { CL_R, CL_UNORM_INT8 };
    GpumeVmeOpenCL *v;
    int err = 0;

    if (p->algo != GPUME_ALGO_VME || p->ctu != GPUME_VME_MB || nb_results > GPUME_NB_RESULTS)
        return AVERROR_BUG;
    if ((err = ff_gpume_vme_opencl_check(log_ctx, device)) < 0)
        return err;
    v = av_mallocz(sizeof(*v));
    if (!v)
        return AVERROR(ENOMEM);
    *vme = v;
    v->log_ctx    = log_ctx;
    v->context    = context;
    v->device     = device;
    v->queue      = queue;
    v->p          = *p;
    v->nb_results = nb_results;
    v->window     = p->vme_window ? p->vme_window : auto_window(p->range);

    if ((err = build_program(v)) < 0)
        goto fail;
    for (int t = 0; t < GPUME_VME_TIERS; t++) {
        v->tw[t]  = (p->width  + (1 << t) - 1) >> t;
        v->th[t]  = (p->height + (1 << t) - 1) >> t;
        v->mbc[t] = (v->tw[t] + GPUME_VME_MB - 1) / GPUME_VME_MB;
        v->mbr[t] = (v->th[t] + GPUME_VME_MB - 1) / GPUME_VME_MB;
        for (int i = 0; i < GPUME_NB_SLOTS; i++)
            if (!(v->img[i][t] = alloc(v, &fmt, v->tw[t], v->th[t], 0, &err)))
                goto fail;
        if (t && !(v->pred[t] = alloc(v, NULL, 0, 0, (size_t)v->mbc[t] * v->mbr[t] * 2 * sizeof(int16_t), &err)))
            goto fail;
    }
    for (int e = 0; e < nb_results; e++) {
        const size_t size = (size_t)v->mbc[0] * v->mbr[0] * sizeof(GpumeVmeMB);
        if (!(v->out[e] = alloc(v, NULL, 0, 0, size, &err)))
            goto fail;
        if (!(v->host[e] = av_malloc(size))) {
            err = AVERROR(ENOMEM);
            goto fail;
        }
    }
    return 0;
fail:
    ff_gpume_vme_opencl_uninit(vme);
    return err;
}

int ff_gpume_vme_opencl_load(GpumeVmeOpenCL *v, int slot, cl_mem staging)
{
    void *avctx = v->log_ctx;
    const size_t origin[3] = { 0, 0, 0 }, region[3] = { v->tw[0], v->th[0], 1 };
    cl_int cle;
    int err = 0;

    cle = clEnqueueCopyBufferToImage(v->queue, staging, v->img[slot][0], 0, origin, region, 0, NULL, NULL);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to copy the luma plane to its VME image: %d\n", cle);
    for (int t = 1; t < GPUME_VME_TIERS; t++) {
        const size_t local[2] = { 16, 4 };
        const size_t global[2] = { FFALIGN(v->tw[t], 16), FFALIGN(v->th[t], 4) };
        CL_SET_KERNEL_ARG(v->k_downscale, 0, cl_mem, &v->img[slot][t - 1]);
        CL_SET_KERNEL_ARG(v->k_downscale, 1, cl_mem, &v->img[slot][t]);
        cle = clEnqueueNDRangeKernel(v->queue, v->k_downscale, 2, NULL, global, local, 0, NULL, NULL);
        CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to enqueue gpume_vme_downscale: %d\n", cle);
    }
fail:
    return err;
}

/** One sub-group of 16 work-items per macroblock of tier t. */
static int run_tier(GpumeVmeOpenCL *v, cl_kernel k, int t, int cur, int ref, cl_mem out,
                    const GpumeVmeArgs *a)
{
    void *avctx = v->log_ctx;
    const size_t local[2] = { 16, 1 }, global[2] = { (size_t)16 * v->mbc[t], v->mbr[t] };
    /* the finest tier without a coarser one reads no predictors: any valid buffer */
    const cl_mem pred_in = t + 1 < GPUME_VME_TIERS ? v->pred[t + 1] : out;
    cl_int cle;
    int err = 0;

    CL_SET_KERNEL_ARG(k, 0, GpumeVmeArgs, a);
    CL_SET_KERNEL_ARG(k, 1, cl_mem, &v->img[cur][t]);
    CL_SET_KERNEL_ARG(k, 2, cl_mem, &v->img[ref][t]);
    CL_SET_KERNEL_ARG(k, 3, cl_mem, &pred_in);
    CL_SET_KERNEL_ARG(k, 4, cl_mem, &out);
    cle = clEnqueueNDRangeKernel(v->queue, k, 2, NULL, global, local, 0, NULL, NULL);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to enqueue a VME kernel at tier %d: %d\n", t, cle);
fail:
    return err;
}

int ff_gpume_vme_opencl_estimate(GpumeVmeOpenCL *v, int cur, int ref, int e, cl_event *done)
{
    void *avctx = v->log_ctx;
    cl_int cle;
    int err = 0;

    for (int t = GPUME_VME_TIERS - 1; t >= 0 && err >= 0; t--) {
        const int coarser = t + 1 < GPUME_VME_TIERS;
        const GpumeVmeArgs a = {
            .mb_cols = v->mbc[t], .mb_rows = v->mbr[t],
            .pred_cols = coarser ? v->mbc[t + 1] : 0, .pred_rows = coarser ? v->mbr[t + 1] : 0,
            .width = v->tw[t], .height = v->th[t],
            .window = t ? GPUME_VME_WINDOW_EXHAUSTIVE : v->window,
            .all_partitions = !v->p.block,
            .qp = v->p.vme_qp, .subpel = v->p.subpel, .chain_zero = 1,
        };
        err = t ? run_tier(v, v->k_hme, t, cur, ref, v->pred[t], &a)
                : run_tier(v, v->k_search, 0, cur, ref, v->out[e], &a);
    }
    if (err < 0)
        return err;
    cle = clEnqueueReadBuffer(v->queue, v->out[e], CL_FALSE, 0,
                              (size_t)v->mbc[0] * v->mbr[0] * sizeof(GpumeVmeMB), v->host[e],
                              0, NULL, done);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to read the VME results: %d\n", cle);
fail:
    return err;
}

int ff_gpume_vme_opencl_result(GpumeVmeOpenCL *v, int e, GpumeBlock *blocks, uint16_t *counts)
{
    const GpumeParams *p = &v->p;

    for (int c = 0; c < p->nb_ctus; c++) {
        GpumeBlock tmp[GPUME_VME_MAX_BLOCKS];
        const int n = ff_gpume_vme_blocks(&v->host[e][c], c % p->ctu_cols, c / p->ctu_cols,
                                          p->width, p->height, tmp);
        if (n < 0 || n > p->max_out) {
            av_log(v->log_ctx, AV_LOG_ERROR, "macroblock %d: invalid VME result\n", c);
            return AVERROR_EXTERNAL;
        }
        memcpy(blocks + (size_t)c * p->max_out, tmp, n * sizeof(*tmp));
        counts[c] = n;
    }
    return 0;
}

av_cold void ff_gpume_vme_opencl_uninit(GpumeVmeOpenCL **vme)
{
    GpumeVmeOpenCL *v = *vme;
    void *avctx;
    cl_int cle;

    if (!v)
        return;
    avctx = v->log_ctx;
    CL_RELEASE_KERNEL(v->k_downscale);
    CL_RELEASE_KERNEL(v->k_hme);
    CL_RELEASE_KERNEL(v->k_search);
    if (v->program)
        clReleaseProgram(v->program);
    for (int t = 0; t < GPUME_VME_TIERS; t++) {
        for (int i = 0; i < GPUME_NB_SLOTS; i++)
            CL_RELEASE_MEMORY(v->img[i][t]);
        CL_RELEASE_MEMORY(v->pred[t]);
    }
    for (int e = 0; e < GPUME_NB_RESULTS; e++) {
        CL_RELEASE_MEMORY(v->out[e]);
        av_freep(&v->host[e]);
    }
    av_freep(vme);
}
