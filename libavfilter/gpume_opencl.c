/*
 * gpume: OpenCL backend (host side). Kernels in opencl/gpume.cl.
 *
 * The program is built from three source strings: gpume.h, gpume_opencl.h
 * (both embedded as opencl/gpume_h.cl and opencl/gpume_opencl_h.cl by
 * tools/overlay.sh) and opencl/gpume.cl, so every constant and struct is
 * written once. Pictures live in one buffer per slot holding the padded
 * pyramid; a frame's luma plane first goes to a staging buffer (software
 * frames: copied on the slice threads into the slot's page-locked host
 * buffer, then a non-blocking write, so that the upload overlaps the
 * search before it; AV_PIX_FMT_OPENCL frames, whose planes are image2d_t
 * objects: clEnqueueCopyImageToBuffer, which writes tightly packed rows,
 * the frame held until the copy is done),
 * then gpume_pyramid makes the slot's pyramid from it. On NVIDIA's OpenCL
 * the kernels take the PTX byte-SIMD SAD instruction (GPUME_OCL_PTX).
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

#include <stdio.h>
#include <string.h>

#include "opencl.h"     /* first: it enables the OpenCL 1.2 API */

#include "libavutil/hwcontext.h"
#include "libavutil/hwcontext_opencl.h"
#include "libavutil/imgutils.h"
#include "libavutil/macros.h"
#include "libavutil/mem.h"
#include "libavutil/pixfmt.h"

#include "gpume_backend.h"
#include "gpume_opencl.h"
#include "gpume_opencl_program.h"
#include "gpume_vme_opencl.h"

extern const char *ff_source_gpume_h_cl;
extern const char *ff_source_gpume_dis_h_cl;
extern const char *ff_source_gpume_kernel_h_cl;
extern const char *ff_source_gpume_opencl_h_cl;
extern const char *ff_source_gpume_cl;

#define NB_RESULTS GPUME_NB_RESULTS

typedef struct GpumeOpenCLContext {
    const GpumeHost *host;
    GpumeParams p;              ///< for dis, its hme search (algo=hme)
    int dis;                    ///< algo=dis
    int pad;

    AVBufferRef *device_ref;
    AVOpenCLDeviceContext *hwctx;
    cl_command_queue queue;
    cl_program program;
    cl_kernel k_pyramid, k_hme_coarse, k_hme_blocks, k_pu_search, k_refine, k_lfs, k_predictor;
    cl_kernel k_full;           ///< full, CTU 32: the kernel of the block mode; NULL otherwise
    cl_kernel k_dis_down, k_dis_patches, k_dis_densify, k_dis_blocks;

    cl_mem pic[GPUME_NB_SLOTS];                 ///< padded pyramid of each slot
    GpumePlane level[GPUME_HME_LEVELS + 1];     ///< its planes, the same in every slot
    cl_mem staging;                             ///< a luma plane as received, width x height
    cl_mem host_buf[GPUME_NB_SLOTS];            ///< page-locked host memory of each slot's plane
    uint8_t *host_plane[GPUME_NB_SLOTS];        ///< host_buf mapped: width x height
    cl_event uploaded[GPUME_NB_SLOTS];          ///< completion of the slot's write from host_plane
    /* AV_PIX_FMT_OPENCL frames: the copy of one's luma into staging runs
     * in the queue's order, behind the searches issued before it, and the
     * frame is held until its copy is done, so that its images do not go
     * back to their pool before */
    AVFrame *copy_src[GPUME_NB_SLOTS];
    cl_event copied[GPUME_NB_SLOTS];            ///< completion of the copy from copy_src

    cl_mem pu, fixed_pus, coarse, keys;
    cl_mem pred[NB_RESULTS], blocks[NB_RESULTS], counts[NB_RESULTS];
    int16_t *pred_host[NB_RESULTS];             ///< source of the asynchronous pred writes
    int nb_fixed_pus;

    /* results are read back on a queue of their own, so that the next
     * searches run meanwhile: into page-locked host memory (the counts,
     * then the blocks at blocks_offset), from where wait() gives the
     * caller the exported blocks */
    cl_command_queue download;
    cl_mem result_buf[NB_RESULTS];
    uint8_t *result_host[NB_RESULTS];           ///< result_buf mapped
    size_t blocks_offset;

    /* the host buffers result slot i is given to; NULL: not in flight */
    GpumeBlock *pending[NB_RESULTS];
    uint16_t *pending_counts[NB_RESULTS];
    cl_event done[NB_RESULTS];                  ///< completion of that read-back

    /* dis: its pyramid's levels beyond hme's in a buffer of each slot, and
     * the patch vectors and fields of the estimate in the queue */
    int dis_coarsest, dis_finest;
    GpumeDisLevel dis_level[GPUME_DIS_MAX_LEVELS]; ///< hme's levels in pic[], the others in dis_pic[]
    cl_mem dis_pic[GPUME_NB_SLOTS], dis_patch, dis_field[2];

    GpumeVmeOpenCL *vme;                        ///< algo=vme: everything but device, queue, staging
} GpumeOpenCLContext;

static av_cold void ocl_uninit(void *priv)
{
    GpumeOpenCLContext *s = priv;
    void *avctx = s->host ? s->host->log_ctx : NULL;
    cl_int cle;

    if (s->queue)
        clFinish(s->queue);
    if (s->download)
        clFinish(s->download);
    for (int i = 0; i < NB_RESULTS; i++) {
        if (s->done[i])
            clReleaseEvent(s->done[i]);
        if (s->result_host[i]) {
            clEnqueueUnmapMemObject(s->queue, s->result_buf[i], s->result_host[i], 0, NULL, NULL);
            clFinish(s->queue);
        }
        CL_RELEASE_MEMORY(s->result_buf[i]);
    }
    for (int i = 0; i < GPUME_NB_SLOTS; i++) {
        if (s->copied[i])
            clReleaseEvent(s->copied[i]);
        av_frame_free(&s->copy_src[i]);
        if (s->uploaded[i])
            clReleaseEvent(s->uploaded[i]);
        if (s->host_plane[i]) {
            clEnqueueUnmapMemObject(s->queue, s->host_buf[i], s->host_plane[i], 0, NULL, NULL);
            clFinish(s->queue);
        }
        CL_RELEASE_MEMORY(s->host_buf[i]);
    }
    ff_gpume_vme_opencl_uninit(&s->vme);
    CL_RELEASE_KERNEL(s->k_pyramid);
    CL_RELEASE_KERNEL(s->k_hme_coarse);
    CL_RELEASE_KERNEL(s->k_hme_blocks);
    CL_RELEASE_KERNEL(s->k_pu_search);
    CL_RELEASE_KERNEL(s->k_refine);
    CL_RELEASE_KERNEL(s->k_lfs);
    CL_RELEASE_KERNEL(s->k_predictor);
    CL_RELEASE_KERNEL(s->k_full);
    CL_RELEASE_KERNEL(s->k_dis_down);
    CL_RELEASE_KERNEL(s->k_dis_patches);
    CL_RELEASE_KERNEL(s->k_dis_densify);
    CL_RELEASE_KERNEL(s->k_dis_blocks);
    if (s->program)
        clReleaseProgram(s->program);
    for (int i = 0; i < GPUME_NB_SLOTS; i++)
        CL_RELEASE_MEMORY(s->pic[i]);
    CL_RELEASE_MEMORY(s->staging);
    for (int i = 0; i < GPUME_NB_SLOTS; i++)
        CL_RELEASE_MEMORY(s->dis_pic[i]);
    CL_RELEASE_MEMORY(s->dis_patch);
    CL_RELEASE_MEMORY(s->dis_field[0]);
    CL_RELEASE_MEMORY(s->dis_field[1]);
    CL_RELEASE_MEMORY(s->pu);
    CL_RELEASE_MEMORY(s->fixed_pus);
    CL_RELEASE_MEMORY(s->coarse);
    CL_RELEASE_MEMORY(s->keys);
    for (int i = 0; i < NB_RESULTS; i++) {
        CL_RELEASE_MEMORY(s->pred[i]);
        CL_RELEASE_MEMORY(s->blocks[i]);
        CL_RELEASE_MEMORY(s->counts[i]);
        av_freep(&s->pred_host[i]);
    }
    CL_RELEASE_QUEUE(s->download);
    CL_RELEASE_QUEUE(s->queue);
    av_buffer_unref(&s->device_ref);
    memset(s, 0, sizeof(*s));
}

/**
 * 1 where the kernels may use inline PTX: NVIDIA's OpenCL (which names its
 * extensions cl_nv_*) built the program with it, else 0 (any other device,
 * or a driver that rejects it).
 */
static int try_ptx(GpumeOpenCLContext *s, const char **src, int nb_src, const char *opts)
{
    const cl_device_id dev = s->hwctx->device_id;
    size_t size = 0;
    char *ext;
    int nv;
    cl_int cle;

    if (clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &size) != CL_SUCCESS ||
        !(ext = av_malloc(size + 1)))
        return 0;
    nv = clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, size, ext, NULL) == CL_SUCCESS &&
         (ext[size] = 0, strstr(ext, "cl_nv_device_attribute_query"));
    av_free(ext);
    if (!nv)
        return 0;
    s->program = clCreateProgramWithSource(s->hwctx->context, nb_src, src, NULL, &cle);
    if (!s->program)
        return 0;
    if (clBuildProgram(s->program, 1, &dev, opts, NULL, NULL) == CL_SUCCESS)
        return 1;
    av_log(s->host->note_ctx, AV_LOG_VERBOSE, "inline PTX rejected: portable kernels\n");
    clReleaseProgram(s->program);
    s->program = NULL;
    return 0;
}

/** work-items per group of gpume_predictor, one per CTU */
#define PREDICTOR_GROUP 64

static int build_program(GpumeOpenCLContext *s)
{
    void *avctx = s->host->log_ctx;
    const cl_device_id dev = s->hwctx->device_id;
    const char *src[] = { ff_source_gpume_h_cl, ff_source_gpume_dis_h_cl, ff_source_gpume_kernel_h_cl,
                          ff_source_gpume_opencl_h_cl, ff_source_gpume_cl };
    const GpumeParams *p = &s->p;
    const int hme = p->algo == GPUME_ALGO_HME, lfs = p->algo == GPUME_ALGO_LFS;
    const int full32 = p->algo == GPUME_ALGO_FULL && p->ctu == 32;
    /* the bytes of the __local arguments of each search kernel these
     * options run (those of estimate()), 0 for those they do not */
#define LOCAL_BYTES(type, name, count) + (size_t)(count) * sizeof(type)
#define SUM(list, arg) (0 list(LOCAL_BYTES, arg))
    const size_t coarse = hme    ? SUM(GPUME_OCL_COARSE_LOCALS, p->ctu) : 0;
    const size_t blocks = hme    ? SUM(GPUME_OCL_BLOCKS_LOCALS, p->ctu) : 0;
    const size_t search = lfs    ? 0 :
                          ff_gpume_block8_search(p) ? SUM(GPUME_OCL_BLOCK8_LOCALS, p->range) :
                                                      SUM(GPUME_OCL_PU_SEARCH_LOCALS, p->ctu);
    const size_t refine = lfs    ? 0 : SUM(GPUME_OCL_REFINE_LOCALS, p->ctu);
    const size_t lfs_b  = lfs    ? SUM(GPUME_OCL_LFS_LOCALS, p->ctu) : 0;
    const size_t full   = full32 ? SUM(GPUME_OCL_FULL32_LOCALS, p->block) : 0;
#undef SUM
#undef LOCAL_BYTES
    char opts[64];
    int err = 0;

    snprintf(opts, sizeof(opts), "-cl-std=CL1.2 -DGPUME_CTU=%d -DGPUME_OCL_PTX=1", s->p.ctu);
    if (!try_ptx(s, src, FF_ARRAY_ELEMS(src), opts)) {
        snprintf(opts, sizeof(opts), "-cl-std=CL1.2 -DGPUME_CTU=%d -DGPUME_OCL_PTX=0", s->p.ctu);
        err = ff_gpume_opencl_build(avctx, s->hwctx->context, dev, src, FF_ARRAY_ELEMS(src),
                                    opts, &s->program);
    }
    if (err < 0 ||
        (err = ff_gpume_opencl_kernel(avctx, s->program, dev, "gpume_pyramid", GPUME_PYR_BW * GPUME_PYR_BH,
                                      &s->k_pyramid)) < 0 ||
        (err = ff_gpume_opencl_kernel_local(avctx, s->program, dev, "gpume_hme_coarse",
                                            GPUME_KERNEL_THREADS, coarse, &s->k_hme_coarse)) < 0 ||
        (err = ff_gpume_opencl_kernel_local(avctx, s->program, dev, "gpume_hme_blocks",
                                            GPUME_KERNEL_THREADS, blocks, &s->k_hme_blocks)) < 0 ||
        (err = ff_gpume_opencl_kernel_local(avctx, s->program, dev,
                                            ff_gpume_block8_search(p) ? "gpume_pu_blocks32" : "gpume_pu_search",
                                            GPUME_KERNEL_THREADS, search, &s->k_pu_search)) < 0 ||
        (err = ff_gpume_opencl_kernel_local(avctx, s->program, dev, "gpume_refine",
                                            GPUME_KERNEL_THREADS, refine, &s->k_refine)) < 0 ||
        (err = ff_gpume_opencl_kernel_local(avctx, s->program, dev, "gpume_lfs",
                                            GPUME_LFS_THREADS, lfs_b, &s->k_lfs)) < 0)
        return err;
    if (full32) {
        const int b = p->block;
        err = ff_gpume_opencl_kernel_local(avctx, s->program, dev,
                                           b == 8  ? "gpume_full32_b8"  : b == 16 ? "gpume_full32_b16" :
                                           b == 32 ? "gpume_full32_b32" : "gpume_full32",
                                           GPUME_KERNEL_THREADS, full, &s->k_full);
        if (err < 0)
            return err;
    }
    if ((err = ff_gpume_opencl_kernel(avctx, s->program, dev, "gpume_dis_down",
                                      GPUME_DIS_BW * GPUME_DIS_BH, &s->k_dis_down)) < 0 ||
        (err = ff_gpume_opencl_kernel(avctx, s->program, dev, "gpume_dis_patches",
                                      GPUME_DIS_GROUP, &s->k_dis_patches)) < 0 ||
        (err = ff_gpume_opencl_kernel(avctx, s->program, dev, "gpume_dis_densify",
                                      GPUME_DIS_BW * GPUME_DIS_BH, &s->k_dis_densify)) < 0 ||
        (err = ff_gpume_opencl_kernel(avctx, s->program, dev, "gpume_dis_blocks",
                                      FFALIGN(GPUME_MAX_OUT_PER_CTU, 32), &s->k_dis_blocks)) < 0)
        return err;
    return ff_gpume_opencl_kernel(avctx, s->program, dev, "gpume_predictor", PREDICTOR_GROUP, &s->k_predictor);
}

static cl_mem alloc_buffer(GpumeOpenCLContext *s, size_t size, int *err)
{
    cl_int cle;
    cl_mem m = clCreateBuffer(s->hwctx->context, CL_MEM_READ_WRITE, FFMAX(size, 1), NULL, &cle);
    if (!m) {
        av_log(s->host->log_ctx, AV_LOG_ERROR, "failed to allocate %zu bytes of OpenCL memory: %d\n",
               size, cle);
        *err = ff_gpume_opencl_error(cle);
    }
    return m;
}

/**
 * A buffer cleared once (on the queue, before any kernel), for buffers whose
 * every byte is read but not every byte written: the pictures' rows past
 * the pad up to the pitch, which the searches' word loads read under a
 * mask; the blocks past each CTU's count, read back whole.
 */
static cl_mem alloc_cleared(GpumeOpenCLContext *s, size_t size, int *err)
{
    static const cl_uchar zero;
    cl_mem m = alloc_buffer(s, size, err);
    cl_int cle;

    if (!m)
        return NULL;
    cle = clEnqueueFillBuffer(s->queue, m, &zero, sizeof(zero), 0, FFMAX(size, 1), 0, NULL, NULL);
    if (cle != CL_SUCCESS) {
        av_log(s->host->log_ctx, AV_LOG_ERROR, "failed to clear %zu bytes of OpenCL memory: %d\n",
               size, cle);
        *err = ff_gpume_opencl_error(cle);
        clReleaseMemObject(m);
        return NULL;
    }
    return m;
}

/**
 * Page-locked host memory of size bytes, mapped for good (map: CL_MAP_WRITE
 * for what the host writes to the device, CL_MAP_READ for what it reads).
 */
static int alloc_mapped(GpumeOpenCLContext *s, size_t size, cl_map_flags map,
                        cl_mem *buf, uint8_t **host)
{
    void *avctx = s->host->log_ctx;
    cl_int cle;
    int err = 0;

    *buf = clCreateBuffer(s->hwctx->context, CL_MEM_ALLOC_HOST_PTR |
                          (map == CL_MAP_WRITE ? CL_MEM_READ_ONLY : CL_MEM_WRITE_ONLY), size, NULL, &cle);
    CL_FAIL_ON_ERROR(ff_gpume_opencl_error(cle), "failed to allocate %zu bytes of host memory: %d\n",
                     size, cle);
    *host = clEnqueueMapBuffer(s->queue, *buf, CL_TRUE, map, 0, size, 0, NULL, NULL, &cle);
    CL_FAIL_ON_ERROR(ff_gpume_opencl_error(cle), "failed to map host memory: %d\n", cle);
fail:
    return err;
}

/** The page-locked host buffers of the slots' planes. */
static int alloc_host_planes(GpumeOpenCLContext *s)
{
    int err = 0;
    for (int i = 0; i < GPUME_NB_SLOTS && err >= 0; i++)
        err = alloc_mapped(s, (size_t)s->p.width * s->p.height, CL_MAP_WRITE,
                           &s->host_buf[i], &s->host_plane[i]);
    return err;
}

/** The download queue and the page-locked host buffers of the result slots. */
static int alloc_results(GpumeOpenCLContext *s)
{
    void *avctx = s->host->log_ctx;
    const size_t size = ff_gpume_readback_layout(&s->p, &s->blocks_offset);
    cl_int cle;
    int err = 0;

    s->download = clCreateCommandQueue(s->hwctx->context, s->hwctx->device_id, 0, &cle);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to create an OpenCL command queue: %d\n", cle);
    for (int i = 0; i < NB_RESULTS && err >= 0; i++)
        err = alloc_mapped(s, size, CL_MAP_READ, &s->result_buf[i], &s->result_host[i]);
fail:
    return err;
}

/** dis: the pyramids' coarse levels and the buffers of one estimate. */
static int dis_alloc(GpumeOpenCLContext *s)
{
    const GpumeParams *p = &s->p;
    size_t size;
    int lf, err = 0;

    for (int k = 0; k <= GPUME_HME_LEVELS; k++)
        s->dis_level[k] = (GpumeDisLevel) { s->level[k].w, s->level[k].h,
                                            s->level[k].pitch, s->level[k].offset };
    if (!(size = ff_gpume_dis_layout(p, 64, s->dis_level)))
        return AVERROR(EINVAL);
    s->dis_coarsest = gpume_dis_coarsest(p->width, p->height);
    s->dis_finest   = lf = gpume_dis_finest(s->dis_coarsest);
    for (int i = 0; i < GPUME_NB_SLOTS; i++)
        if (!(s->dis_pic[i] = alloc_buffer(s, size, &err)))
            return err;
    if (!(s->dis_patch = alloc_buffer(s, 2 * sizeof(int32_t) * gpume_dis_nb_patches(s->dis_level[lf].w) *
                                      gpume_dis_nb_patches(s->dis_level[lf].h), &err)))
        return err;
    for (int i = 0; i < 2; i++)
        if (!(s->dis_field[i] = alloc_buffer(s, 2 * sizeof(int32_t) * s->dis_level[lf].w *
                                             s->dis_level[lf].h, &err)))
            return err;
    return 0;
}

/** An argument of a dis kernel: size bytes at arg. */
typedef struct DisArg {
    size_t size;
    const void *arg;
} DisArg;

/**
 * Enqueue the dis kernel k over w x h work-items with its nb arguments, or
 * with group set, over w x h items of GPUME_DIS_BW x GPUME_DIS_BH a
 * work-group of that many work-items (the patches kernel).
 */
static int run_dis_kernel(GpumeOpenCLContext *s, cl_kernel k, int w, int h, int group,
                          const DisArg *args, int nb)
{
    void *avctx = s->host->log_ctx;
    const size_t local[2]  = { group ? group : GPUME_DIS_BW, group ? 1 : GPUME_DIS_BH };
    const size_t global[2] = {
        group ? (w + GPUME_DIS_BW - 1) / GPUME_DIS_BW * group : FFALIGN(w, GPUME_DIS_BW),
        group ? (h + GPUME_DIS_BH - 1) / GPUME_DIS_BH : FFALIGN(h, GPUME_DIS_BH),
    };
    cl_int cle;
    int err = 0;

    for (int i = 0; i < nb; i++) {
        cle = clSetKernelArg(k, i, args[i].size, args[i].arg);
        CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to set argument %d of a dis kernel: %d\n", i, cle);
    }
    cle = clEnqueueNDRangeKernel(s->queue, k, 2, NULL, global, local, 0, NULL, NULL);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to enqueue a dis kernel: %d\n", cle);
fail:
    return err;
}

/** dis: the buffer of level k of slot's pyramid (hme's levels are in its pyramid). */
static const cl_mem *dis_buffer(const GpumeOpenCLContext *s, int slot, int k)
{
    return k <= GPUME_HME_LEVELS ? &s->pic[slot] : &s->dis_pic[slot];
}

/** dis: the levels of slot's pyramid beyond hme's, from hme's last. */
static int run_dis_pyramid(GpumeOpenCLContext *s, int slot)
{
    for (int k = GPUME_HME_LEVELS + 1; k <= s->dis_coarsest; k++) {
        const DisArg args[] = {
            { sizeof(GpumeDisLevel), &s->dis_level[k - 1] },
            { sizeof(cl_mem), dis_buffer(s, slot, k - 1) },
            { sizeof(GpumeDisLevel), &s->dis_level[k] },
            { sizeof(cl_mem), &s->dis_pic[slot] },
        };
        int err = run_dis_kernel(s, s->k_dis_down, s->dis_level[k].w, s->dis_level[k].h, 0,
                                 args, FF_ARRAY_ELEMS(args));
        if (err < 0)
            return err;
    }
    return 0;
}

/** dis: the fields from the coarsest level to the finest searched, then the exported blocks of e. */
static int run_dis(GpumeOpenCLContext *s, int cur, int ref, int e)
{
    void *avctx = s->host->log_ctx;
    const GpumeParams *p = &s->p;
    const int lf = s->dis_finest;
    const cl_mem *field = &s->dis_field[1];  /* unread at the coarsest level */
    int coarse_w = 0, err = 0;
    cl_int cle;

    for (int l = s->dis_coarsest; l >= lf; l--) {
        const GpumeDisHmeArgs ha = {
            .on = l == lf, .nb_fixed = s->nb_fixed_pus, .ctu = p->ctu, .ctu_cols = p->ctu_cols,
            .max_out = p->max_out, .width = p->width, .height = p->height, .lf = lf,
        };
        const DisArg pargs[] = {
            { sizeof(GpumeDisLevel), &s->dis_level[l] },
            { sizeof(cl_mem), dis_buffer(s, cur, l) },
            { sizeof(cl_mem), dis_buffer(s, ref, l) },
            { sizeof(cl_mem), field },
            { sizeof(int), &coarse_w },
            { sizeof(cl_mem), &s->dis_patch },
            { sizeof(GpumeDisHmeArgs), &ha },
            { sizeof(cl_mem), &s->blocks[e] },
            { sizeof(cl_mem), &s->pu },
            { sizeof(cl_mem), &s->fixed_pus },
        };
        const DisArg dargs[] = {
            pargs[0], pargs[1], pargs[2],
            { sizeof(cl_mem), &s->dis_patch },
            { sizeof(cl_mem), &s->dis_field[l & 1] },
        };
        err = run_dis_kernel(s, s->k_dis_patches, gpume_dis_nb_patches(s->dis_level[l].w),
                             gpume_dis_nb_patches(s->dis_level[l].h), GPUME_DIS_GROUP,
                             pargs, FF_ARRAY_ELEMS(pargs));
        if (err >= 0)
            err = run_dis_kernel(s, s->k_dis_densify, s->dis_level[l].w, s->dis_level[l].h, 0,
                                 dargs, FF_ARRAY_ELEMS(dargs));
        if (err < 0)
            return err;
        field    = &s->dis_field[l & 1];
        coarse_w = s->dis_level[l].w;
    }
    {
        const GpumeDisBlockArgs a = {
            .width = p->width, .height = p->height,
            .pitch = s->level[0].pitch, .offset = s->level[0].offset,
            .ctu = p->ctu, .ctu_cols = p->ctu_cols, .nb_ctus = p->nb_ctus, .block = p->block,
            .max_out = p->max_out, .subpel = p->subpel, .range = GPUME_MAX_RANGE,
            .fw = s->dis_level[lf].w, .lu = lf,
        };
        const size_t local = FFALIGN(p->max_out, 32), global = (size_t)p->nb_ctus * local;
        cl_kernel k = s->k_dis_blocks;
        int arg = 0;
        CL_SET_KERNEL_ARG(k, arg++, GpumeDisBlockArgs, &a);
        CL_SET_KERNEL_ARG(k, arg++, cl_mem, &s->pic[cur]);
        CL_SET_KERNEL_ARG(k, arg++, cl_mem, &s->pic[ref]);
        CL_SET_KERNEL_ARG(k, arg++, cl_mem, field);
        CL_SET_KERNEL_ARG(k, arg++, cl_mem, &s->pu);
        CL_SET_KERNEL_ARG(k, arg++, cl_mem, &s->fixed_pus);
        CL_SET_KERNEL_ARG(k, arg++, cl_mem, &s->blocks[e]);
        CL_SET_KERNEL_ARG(k, arg++, cl_mem, &s->counts[e]);
        cle = clEnqueueNDRangeKernel(s->queue, k, 1, NULL, &global, &local, 0, NULL, NULL);
        CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to enqueue the dis blocks kernel: %d\n", cle);
    }
fail:
    return err;
}

static av_cold int ocl_init(void *priv, const GpumeHost *host, const GpumeParams *p)
{
    GpumeOpenCLContext *s = priv;
    void *avctx = host->log_ctx;
    GpumePU pu[GPUME_MAX_PUS];
    uint16_t fixed[GPUME_MAX_OUT_PER_CTU];
    size_t pic_size;
    cl_int cle;
    int err = 0;

    s->host = host;
    s->p    = *p;
    s->pad  = p->pad;
    /* dis starts from hme's search: s->p is that search */
    s->dis  = p->algo == GPUME_ALGO_DIS;
    if (s->dis)
        s->p.algo = GPUME_ALGO_HME;
    p = &s->p;
    pic_size = ff_gpume_pyramid_layout(p, 64, s->level);

    /* the device layer (gpume_device.c) opened the device */
    err = ff_gpume_opencl_open(avctx, host->hw_device, &s->device_ref, &s->hwctx, &s->queue);
    if (err < 0)
        goto fail;

    if (p->algo == GPUME_ALGO_VME) {
        if ((err = ff_gpume_vme_opencl_init(&s->vme, avctx, s->hwctx->context, s->hwctx->device_id,
                                            s->queue, p, NB_RESULTS)) < 0 ||
            !(s->staging = alloc_buffer(s, (size_t)p->width * p->height, &err)) ||
            (err = alloc_host_planes(s)) < 0)
            goto fail;
        return 0;
    }
    if ((err = build_program(s)) < 0)
        goto fail;

    if (!pic_size) {
        err = AVERROR(EINVAL);
        goto fail;
    }
    for (int i = 0; i < GPUME_NB_SLOTS; i++)
        if (!(s->pic[i] = alloc_cleared(s, pic_size, &err)))
            goto fail;
    if (s->dis && (err = dis_alloc(s)) < 0)
        goto fail;

    ff_gpume_pu_tables(p, pu, fixed);
    s->nb_fixed_pus = p->nb_fixed_pus;

    if (!(s->staging   = alloc_buffer(s, (size_t)p->width * p->height, &err)) ||
        !(s->pu        = alloc_buffer(s, p->nb_pus * sizeof(*pu), &err)) ||
        !(s->fixed_pus = alloc_buffer(s, s->nb_fixed_pus * sizeof(*fixed), &err)) ||
        !(s->coarse    = alloc_buffer(s, p->nb_ctus * sizeof(GpumeHmeCoarse), &err)) ||
        !(s->keys      = alloc_buffer(s, (size_t)p->nb_ctus * p->nb_pus * sizeof(uint64_t), &err)) ||
        (err = alloc_host_planes(s)) < 0 || (err = alloc_results(s)) < 0)
        goto fail;
    for (int i = 0; i < NB_RESULTS; i++) {
        if (!(s->pred[i]   = alloc_buffer(s, 2 * p->nb_ctus * sizeof(int16_t), &err)) ||
            !(s->blocks[i] = alloc_cleared(s, (size_t)p->nb_ctus * p->max_out * sizeof(GpumeBlock), &err)) ||
            !(s->counts[i] = alloc_buffer(s, p->nb_ctus * sizeof(uint16_t), &err)))
            goto fail;
        s->pred_host[i] = av_malloc_array(2 * p->nb_ctus, sizeof(*s->pred_host[i]));
        if (!s->pred_host[i]) {
            err = AVERROR(ENOMEM);
            goto fail;
        }
    }
    cle = clEnqueueWriteBuffer(s->queue, s->pu, CL_TRUE, 0, p->nb_pus * sizeof(*pu), pu, 0, NULL, NULL);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to upload the PU table: %d\n", cle);
    if (s->nb_fixed_pus) {
        cle = clEnqueueWriteBuffer(s->queue, s->fixed_pus, CL_TRUE, 0,
                                   s->nb_fixed_pus * sizeof(*fixed), fixed, 0, NULL, NULL);
        CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to upload the block list: %d\n", cle);
    }
    return 0;
fail:
    ocl_uninit(s);
    return err;
}

/** Make slot's pyramid from the luma plane in the staging buffer. */
static int run_pyramid(GpumeOpenCLContext *s, int slot)
{
    void *avctx = s->host->log_ctx;
    GpumePyramidArgs a;
    const int blocks = ff_gpume_pyramid_args(&s->p, s->level, 0, &a);
    const size_t local[2] = { GPUME_PYR_BW, GPUME_PYR_BH };
    const size_t global[2] = { (size_t)blocks * GPUME_PYR_BW, GPUME_PYR_BH };
    cl_int cle;
    int err = 0;

    CL_SET_KERNEL_ARG(s->k_pyramid, 0, cl_mem, &s->staging);
    CL_SET_KERNEL_ARG(s->k_pyramid, 1, cl_mem, &s->pic[slot]);
    CL_SET_KERNEL_ARG(s->k_pyramid, 2, GpumePyramidArgs, &a);
    cle = clEnqueueNDRangeKernel(s->queue, s->k_pyramid, 2, NULL, global, local, 0, NULL, NULL);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to enqueue the pyramid kernel: %d\n", cle);
fail:
    return err;
}

typedef struct CopyJob {
    uint8_t *dst;
    const uint8_t *src;
    ptrdiff_t src_linesize;
    int w, h;
} CopyJob;

/** Rows of job jobnr of nb_jobs of a plane's copy into its page-locked buffer. */
static int copy_rows(void *arg, int jobnr, int nb_jobs)
{
    const CopyJob *c = arg;
    const int y0 = (int)((int64_t)c->h * jobnr / nb_jobs), y1 = (int)((int64_t)c->h * (jobnr + 1) / nb_jobs);

    if (y1 > y0)
        av_image_copy_plane(c->dst + (size_t)y0 * c->w, c->w, c->src + y0 * c->src_linesize,
                            c->src_linesize, c->w, y1 - y0);
    return 0;
}

/**
 * Let go of the OpenCL frames whose copies are done (polled, without
 * waiting), and of slot's (-1: none) once its copy is done.
 */
static int release_copied(GpumeOpenCLContext *s, int slot)
{
    void *avctx = s->host->log_ctx;
    cl_int cle = CL_SUCCESS;
    int err = 0;

    for (int i = 0; i < GPUME_NB_SLOTS; i++) {
        cl_int status = CL_COMPLETE;
        if (!s->copied[i])
            continue;
        if (i == slot)
            cle = clWaitForEvents(1, &s->copied[i]);
        else if (clGetEventInfo(s->copied[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
                                &status, NULL) != CL_SUCCESS || status > CL_COMPLETE)
            continue;
        /* done, or failed (a negative status): the images are read no more */
        clReleaseEvent(s->copied[i]);
        s->copied[i] = NULL;
        av_frame_unref(s->copy_src[i]);
    }
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to copy the luma image: %d\n", cle);
fail:
    return err;
}

static int ocl_load(void *priv, int slot, const AVFrame *frame)
{
    GpumeOpenCLContext *s = priv;
    void *avctx = s->host->log_ctx;
    const int w = s->p.width, h = s->p.height;
    cl_int cle;
    int err = 0;

    if (frame->width != w || frame->height != h)
        return AVERROR(EINVAL);
    if (frame->format == AV_PIX_FMT_OPENCL) {
        const size_t origin[3] = { 0, 0, 0 }, region[3] = { w, h, 1 };
        /* the caller may let go of the frame once this returns: held
         * here, not waited for, so that the searches before go on */
        err = release_copied(s, slot);
        if (err < 0)
            return err;
        if (!s->copy_src[slot] && !(s->copy_src[slot] = av_frame_alloc()))
            return AVERROR(ENOMEM);
        err = av_frame_ref(s->copy_src[slot], frame);
        if (err < 0)
            return err;
        cle = clEnqueueCopyImageToBuffer(s->queue, (cl_mem)frame->data[0], s->staging,
                                         origin, region, 0, 0, NULL, &s->copied[slot]);
        if (cle != CL_SUCCESS) {
            s->copied[slot] = NULL;
            av_frame_unref(s->copy_src[slot]);
        }
        CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to copy the luma image: %d\n", cle);
    } else {
        /* staged, so that the write neither waits nor makes the caller wait;
         * the slot's previous write has long finished */
        CopyJob c = { s->host_plane[slot], frame->data[0], frame->linesize[0], w, h };
        const int nb_jobs = av_clip(s->host->nb_threads, 1, 8);
        if (s->uploaded[slot]) {
            cle = clWaitForEvents(1, &s->uploaded[slot]);
            clReleaseEvent(s->uploaded[slot]);
            s->uploaded[slot] = NULL;
            CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to upload the luma plane: %d\n", cle);
        }
        if (s->host->execute && nb_jobs > 1)
            s->host->execute(s->host->exec_opaque, copy_rows, &c, nb_jobs);
        else
            copy_rows(&c, 0, 1);
        cle = clEnqueueWriteBuffer(s->queue, s->staging, CL_FALSE, 0, (size_t)w * h, s->host_plane[slot],
                                   0, NULL, &s->uploaded[slot]);
        CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to upload the luma plane: %d\n", cle);
    }
    if (s->vme)
        return ff_gpume_vme_opencl_load(s->vme, slot, s->staging);
    err = run_pyramid(s, slot);
    if (err >= 0 && s->dis)
        err = run_dis_pyramid(s, slot);
fail:
    return err;
}

/**
 * Run a search kernel, one work-group of threads work-items per CTU. Its
 * arguments: a, the buffers shared by every search kernel, fa (the
 * gpume_full32 kernels only; else NULL), then its local arrays of the byte
 * sizes in local (zero-terminated; from the kernel's list in
 * gpume_opencl.h).
 */
static int run_search(GpumeOpenCLContext *s, cl_kernel k, const GpumeSearchArgs *a,
                      const GpumeOclFullArgs *fa, int cur, int ref, int e, size_t threads,
                      const size_t *local)
{
    void *avctx = s->host->log_ctx;
    const size_t global = (size_t)s->p.nb_ctus * threads;
    const cl_mem bufs[] = { s->pic[cur], s->pic[ref], s->pred[e], s->coarse, s->keys,
                            s->pu, s->fixed_pus, s->blocks[e], s->counts[e] };
    cl_int cle;
    int err = 0, arg = 0;

    CL_SET_KERNEL_ARG(k, arg++, GpumeSearchArgs, a);
    for (int i = 0; i < FF_ARRAY_ELEMS(bufs); i++) {
        CL_SET_KERNEL_ARG(k, arg++, cl_mem, &bufs[i]);
    }
    if (fa) {
        CL_SET_KERNEL_ARG(k, arg++, GpumeOclFullArgs, fa);
    }
    for (int i = 0; local[i]; i++) {
        cle = clSetKernelArg(k, arg++, local[i], NULL);
        CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to set local memory argument %d: %d\n", arg - 1, cle);
    }
    cle = clEnqueueNDRangeKernel(s->queue, k, 1, NULL, &global, &threads, 0, NULL, NULL);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to enqueue a search kernel: %d\n", cle);
fail:
    return err;
}

/** Predictors of result slot e from the blocks of the earlier estimate in slot from. */
static int run_predictor(GpumeOpenCLContext *s, int from, int e)
{
    void *avctx = s->host->log_ctx;
    const size_t local = PREDICTOR_GROUP, global = FFALIGN(s->p.nb_ctus, PREDICTOR_GROUP);
    cl_int cle;
    int err = 0, arg = 0;

    const GpumePredArgs a = { .nb_ctus = s->p.nb_ctus, .max_out = s->p.max_out };

    CL_SET_KERNEL_ARG(s->k_predictor, arg++, GpumePredArgs, &a);
    CL_SET_KERNEL_ARG(s->k_predictor, arg++, cl_mem, &s->blocks[from]);
    CL_SET_KERNEL_ARG(s->k_predictor, arg++, cl_mem, &s->counts[from]);
    CL_SET_KERNEL_ARG(s->k_predictor, arg++, cl_mem, &s->pred[e]);
    cle = clEnqueueNDRangeKernel(s->queue, s->k_predictor, 1, NULL, &global, &local, 0, NULL, NULL);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to enqueue the predictor kernel: %d\n", cle);
fail:
    return err;
}

static int ocl_estimate(void *priv, int cur, int ref, const int16_t *pred, int pred_from,
                        int e, GpumeResult *res)
{
    GpumeOpenCLContext *s = priv;
    void *avctx = s->host->log_ctx;
    const GpumeParams *p = &s->p;
    GpumeSearchArgs a = { .p = *p, .nb_fixed_pus = s->nb_fixed_pus };
    cl_event searched = NULL, done = NULL;
    cl_int cle;
    int err = 0;

    if (e < 0 || e >= NB_RESULTS || s->pending[e] || pred_from >= NB_RESULTS)
        return AVERROR_BUG;
    if (s->vme) {
        /* pred is unused: the VME path predicts from its own HME tiers */
        if ((err = ff_gpume_vme_opencl_estimate(s->vme, cur, ref, e, &s->done[e])) < 0)
            return err;
        s->pending[e]        = res->blocks;
        s->pending_counts[e] = res->counts;
        return 0;
    }
    if (!ff_gpume_is_search_algo(p->algo))
        return AVERROR(ENOSYS);
    memcpy(a.cur, s->level, sizeof(a.cur));
    memcpy(a.ref, s->level, sizeof(a.ref));
    if (pred_from >= 0) {
        /* the queue is in order: the earlier estimate has written its blocks */
        if ((err = run_predictor(s, pred_from, e)) < 0)
            return err;
    } else {
        memcpy(s->pred_host[e], pred, 2 * p->nb_ctus * sizeof(*pred));
        cle = clEnqueueWriteBuffer(s->queue, s->pred[e], CL_FALSE, 0, 2 * p->nb_ctus * sizeof(*pred),
                                   s->pred_host[e], 0, NULL, NULL);
        CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to upload the predictors: %d\n", cle);
    }
#define LOCAL_SIZE(type, name, count) (size_t)(count) * sizeof(type),
    if (p->algo == GPUME_ALGO_LFS) {
        const size_t lfs_local[] = { GPUME_OCL_LFS_LOCALS(LOCAL_SIZE, p->ctu) 0 };
        err = run_search(s, s->k_lfs, &a, NULL, cur, ref, e, GPUME_LFS_THREADS, lfs_local);
    } else {
        const size_t coarse_local[] = { GPUME_OCL_COARSE_LOCALS(LOCAL_SIZE, p->ctu) 0 };
        const size_t blocks_local[] = { GPUME_OCL_BLOCKS_LOCALS(LOCAL_SIZE, p->ctu) 0 };
        const size_t search_local[] = { GPUME_OCL_PU_SEARCH_LOCALS(LOCAL_SIZE, p->ctu) 0 };
        const size_t block8_local[] = { GPUME_OCL_BLOCK8_LOCALS(LOCAL_SIZE, p->range) 0 };
        const size_t full_local[]   = { GPUME_OCL_FULL32_LOCALS(LOCAL_SIZE, p->block) 0 };
        const size_t refine_local[] = { GPUME_OCL_REFINE_LOCALS(LOCAL_SIZE, p->ctu) 0 };
        const size_t nt = GPUME_KERNEL_THREADS;
        GpumeOclFullArgs fa = { 0 };
        /* full, CTU 32: the kernel of its own where a key packing fits, as in CUDA */
        const int full32 = s->k_full && ff_gpume_full_key_packing(p, pred_from < 0 ? pred : NULL,
                                                                   &fa.key_bits, &fa.numbered);
        fa.scale = 1 << fa.key_bits;
        if (p->algo == GPUME_ALGO_HME)
            err = run_search(s, s->k_hme_coarse, &a, NULL, cur, ref, e, nt, coarse_local);
        if (err >= 0 && p->algo == GPUME_ALGO_HME)
            err = run_search(s, s->k_hme_blocks, &a, NULL, cur, ref, e, nt, blocks_local);
        if (err >= 0 && full32)
            err = run_search(s, s->k_full, &a, &fa, cur, ref, e, nt, full_local);
        else if (err >= 0)
            err = run_search(s, s->k_pu_search, &a, NULL, cur, ref, e, nt,
                             ff_gpume_block8_search(p) ? block8_local : search_local);
        if (err >= 0)
            err = run_search(s, s->k_refine, &a, NULL, cur, ref, e, nt, refine_local);
    }
    /* dis: from hme's blocks, just written into the result, to its own */
    if (err >= 0 && s->dis)
        err = run_dis(s, cur, ref, e);
#undef LOCAL_SIZE
    if (err < 0)
        return err;
    cle = clEnqueueMarkerWithWaitList(s->queue, 0, NULL, &searched);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to enqueue a marker: %d\n", cle);
    cle = clEnqueueReadBuffer(s->download, s->counts[e], CL_FALSE, 0, p->nb_ctus * sizeof(uint16_t),
                              s->result_host[e], 1, &searched, NULL);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to read the block counts: %d\n", cle);
    cle = clEnqueueReadBuffer(s->download, s->blocks[e], CL_FALSE, 0,
                              (size_t)p->nb_ctus * p->max_out * sizeof(GpumeBlock),
                              s->result_host[e] + s->blocks_offset, 0, NULL, &done);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to read the blocks: %d\n", cle);
    /* the read waits for an event of the other queue: submit both */
    cle = clFlush(s->queue);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to flush the OpenCL queue: %d\n", cle);
    cle = clFlush(s->download);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to flush the OpenCL queue: %d\n", cle);
    s->done[e]           = done;
    s->pending[e]        = res->blocks;
    s->pending_counts[e] = res->counts;
    done = NULL;
fail:
    if (searched)
        clReleaseEvent(searched);
    if (done)
        clReleaseEvent(done);
    return err;
}

/**
 * Wait for estimate e and free its slot; point view at its read-back (kept
 * until e is issued again) or, without view (and for VME, whose macroblocks
 * are converted), write the arrays given to estimate().
 */
static int finish(GpumeOpenCLContext *s, int e, GpumeResult *view)
{
    void *avctx = s->host->log_ctx;
    cl_int cle = clWaitForEvents(1, &s->done[e]);
    int err = 0;

    clReleaseEvent(s->done[e]);
    s->done[e]    = NULL;
    CL_FAIL_ON_ERROR(AVERROR(EIO), "OpenCL estimate failed: %d\n", cle);
    if (s->vme) {
        err = ff_gpume_vme_opencl_result(s->vme, e, s->pending[e], s->pending_counts[e]);
        if (view)
            *view = (GpumeResult) { s->pending[e], s->pending_counts[e] };
    } else if (view) {
        err = ff_gpume_readback_view(&s->p, s->result_host[e], s->blocks_offset, view);
    } else {
        const GpumeResult res = { s->pending[e], s->pending_counts[e] };
        err = ff_gpume_readback_result(&s->p, s->result_host[e], s->blocks_offset, &res);
    }
fail:
    s->pending[e]        = NULL;
    s->pending_counts[e] = NULL;
    return err;
}

static int ocl_wait(void *priv, int e, GpumeResult *res)
{
    GpumeOpenCLContext *s = priv;
    if (e < 0 || e >= NB_RESULTS || !s->pending[e])
        return AVERROR_BUG;
    return finish(s, e, res);
}

static int ocl_sync(void *priv)
{
    GpumeOpenCLContext *s = priv;
    int err = 0;

    for (int e = 0; e < NB_RESULTS; e++) {
        if (s->pending[e]) {
            const int ret = finish(s, e, NULL);
            err = err < 0 ? err : ret;
        }
    }
    return err;
}

const GpumeBackend ff_gpume_backend_opencl = {
    .name      = "opencl",
    .priv_size = sizeof(GpumeOpenCLContext),
    .init      = ocl_init,
    .load      = ocl_load,
    .estimate  = ocl_estimate,
    .wait      = ocl_wait,
    .sync      = ocl_sync,
    .uninit    = ocl_uninit,
};
