/*
 * gpume: CUDA backend (host side). Kernels in cuda/gpume.cu.
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

#include "libavutil/cuda_check.h"
#include "libavutil/hwcontext.h"
#include "libavutil/hwcontext_cuda_internal.h"
#include "libavutil/macros.h"
#include "libavutil/mem.h"
#include "libavutil/pixfmt.h"

#include "cuda/load_helper.h"
#include "gpume_backend.h"
#include "gpume_cuda.h"
#include "gpume_cuda_staging.h"

extern const unsigned char ff_gpume_ptx_data[];
extern const unsigned int ff_gpume_ptx_len;

#define NB_RESULTS GPUME_NB_RESULTS

typedef struct GpumeCUDAContext {
    const GpumeHost *host;
    GpumeParams p;              ///< for dis, its hme search (algo=hme)
    int dis;                    ///< algo=dis
    int pad;

    AVBufferRef *device_ref;
    AVCUDADeviceContext *hwctx;
    CudaFunctions *cu;
    /* compute: the device's stream, or our own (pyramids, and the estimates
     * into even result slots, a frame's one direction); the estimates into
     * odd result slots run on stream2 beside it, each stream with its
     * scratch buffers, so that a frame's two searches fill the GPU together */
    CUstream stream;
    CUstream own_stream;
    CUstream stream2;
    CUstream upload;            ///< host-to-device copies, beside the compute stream
    CUstream download;          ///< results to the host, beside the compute stream
    CUevent loaded[GPUME_NB_SLOTS];
    CUevent ready[GPUME_NB_SLOTS];              ///< a slot's pyramid made, on stream
    CUevent pred_ready[NB_RESULTS], searched[NB_RESULTS], done[NB_RESULTS];
    CUmodule module;
    CUfunction f_pyramid, f_hme_coarse, f_hme_blocks, f_pu_search, f_refine, f_lfs, f_predictor;
    CUfunction f_full;          ///< full, CTU 32: the kernel of the block mode; NULL otherwise
    CUfunction f_dis_down, f_dis_patches, f_dis_patches_rows, f_dis_densify, f_dis_blocks;

    CUdeviceptr pic[GPUME_NB_SLOTS];              ///< padded pyramid of each slot
    GpumePlane level[GPUME_HME_LEVELS + 1];       ///< its planes, the same in every slot

    CUdeviceptr d_pu, d_fixed_pus, d_coarse[2], d_keys[2];
    CUdeviceptr d_pred[NB_RESULTS];
    /* each result as the host reads it back, in one copy: counts, then the
     * blocks at blocks_offset */
    CUdeviceptr d_result[NB_RESULTS];
    int nb_fixed_pus;

    /* dis: its pyramid's levels beyond hme's in a buffer of each slot, and
     * the patch vectors and fields of each compute stream's estimate */
    int dis_coarsest, dis_finest;
    GpumeDisLevel dis_level[GPUME_DIS_MAX_LEVELS]; ///< hme's levels in pic[], the others in d_dis_pic[]
    CUdeviceptr d_dis_pic[GPUME_NB_SLOTS], d_dis_patch[2], d_dis_field[2][2];

    /* page-locked: the luma of each slot's software frame on its way to the
     * device, and each result (counts, then blocks) on its way back */
    GpumeCudaStaging staging[GPUME_NB_SLOTS];
    GpumeCudaStaging result[NB_RESULTS];
    size_t blocks_offset;       ///< of the blocks in a result buffer

    /* where result slot i goes on the host; NULL blocks: not in flight */
    GpumeResult pending[NB_RESULTS];
} GpumeCUDAContext;

#define CHECK_CU(x) FF_CUDA_CHECK_DL(s->host->log_ctx, s->cu, x)

static av_cold void cuda_uninit(void *priv)
{
    GpumeCUDAContext *s = priv;
    CUcontext dummy;

    /* nothing is freed in another context than its own */
    if (s->hwctx && CHECK_CU(s->cu->cuCtxPushCurrent(s->hwctx->cuda_ctx)) >= 0) {
        CudaFunctions *cu = s->cu;
        /* nothing queued (an estimate, a copy) still reads or writes what is freed */
        if (s->stream)
            CHECK_CU(cu->cuStreamSynchronize(s->stream));
        if (s->stream2)
            CHECK_CU(cu->cuStreamSynchronize(s->stream2));
        if (s->upload)
            CHECK_CU(cu->cuStreamSynchronize(s->upload));
        if (s->download)
            CHECK_CU(cu->cuStreamSynchronize(s->download));
        for (int i = 0; i < GPUME_NB_SLOTS; i++)
            if (s->pic[i])
                CHECK_CU(cu->cuMemFree(s->pic[i]));
        if (s->d_pu)        CHECK_CU(cu->cuMemFree(s->d_pu));
        if (s->d_fixed_pus) CHECK_CU(cu->cuMemFree(s->d_fixed_pus));
        for (int i = 0; i < 2; i++) {
            if (s->d_coarse[i])       CHECK_CU(cu->cuMemFree(s->d_coarse[i]));
            if (s->d_keys[i])         CHECK_CU(cu->cuMemFree(s->d_keys[i]));
            if (s->d_dis_patch[i])    CHECK_CU(cu->cuMemFree(s->d_dis_patch[i]));
            if (s->d_dis_field[i][0]) CHECK_CU(cu->cuMemFree(s->d_dis_field[i][0]));
            if (s->d_dis_field[i][1]) CHECK_CU(cu->cuMemFree(s->d_dis_field[i][1]));
        }
        for (int i = 0; i < GPUME_NB_SLOTS; i++)
            if (s->d_dis_pic[i])
                CHECK_CU(cu->cuMemFree(s->d_dis_pic[i]));
        for (int i = 0; i < NB_RESULTS; i++) {
            if (s->d_pred[i])   CHECK_CU(cu->cuMemFree(s->d_pred[i]));
            if (s->d_result[i]) CHECK_CU(cu->cuMemFree(s->d_result[i]));
        }
        for (int i = 0; i < GPUME_NB_SLOTS; i++) {
            if (s->loaded[i]) CHECK_CU(cu->cuEventDestroy(s->loaded[i]));
            if (s->ready[i])  CHECK_CU(cu->cuEventDestroy(s->ready[i]));
        }
        for (int i = 0; i < NB_RESULTS; i++) {
            if (s->pred_ready[i]) CHECK_CU(cu->cuEventDestroy(s->pred_ready[i]));
            if (s->searched[i])   CHECK_CU(cu->cuEventDestroy(s->searched[i]));
            if (s->done[i])       CHECK_CU(cu->cuEventDestroy(s->done[i]));
        }
        for (int i = 0; i < GPUME_NB_SLOTS; i++)
            ff_gpume_cuda_staging_free(cu, &s->staging[i]);
        for (int i = 0; i < NB_RESULTS; i++)
            ff_gpume_cuda_staging_free(cu, &s->result[i]);
        if (s->upload)
            CHECK_CU(cu->cuStreamDestroy(s->upload));
        if (s->download)
            CHECK_CU(cu->cuStreamDestroy(s->download));
        if (s->own_stream)
            CHECK_CU(cu->cuStreamDestroy(s->own_stream));
        if (s->stream2)
            CHECK_CU(cu->cuStreamDestroy(s->stream2));
        if (s->module)
            CHECK_CU(cu->cuModuleUnload(s->module));
        CHECK_CU(cu->cuCtxPopCurrent(&dummy));
    }
    memset(s->loaded, 0, sizeof(s->loaded));
    memset(s->ready, 0, sizeof(s->ready));
    memset(s->pred_ready, 0, sizeof(s->pred_ready));
    memset(s->searched, 0, sizeof(s->searched));
    memset(s->done, 0, sizeof(s->done));
    memset(s->pending, 0, sizeof(s->pending));
    s->upload = s->download = s->own_stream = s->stream = s->stream2 = NULL;
    memset(s->pic, 0, sizeof(s->pic));
    s->d_pu = s->d_fixed_pus = 0;
    memset(s->d_coarse, 0, sizeof(s->d_coarse));
    memset(s->d_keys, 0, sizeof(s->d_keys));
    memset(s->d_dis_pic, 0, sizeof(s->d_dis_pic));
    memset(s->d_dis_patch, 0, sizeof(s->d_dis_patch));
    memset(s->d_dis_field, 0, sizeof(s->d_dis_field));
    memset(s->d_pred, 0, sizeof(s->d_pred));
    memset(s->d_result, 0, sizeof(s->d_result));
    s->module = NULL;
    s->hwctx  = NULL;
    av_buffer_unref(&s->device_ref);
}

static int alloc_dev(GpumeCUDAContext *s, CUdeviceptr *ptr, size_t size)
{
    return CHECK_CU(s->cu->cuMemAlloc(ptr, FFMAX(size, 1)));
}

/**
 * A buffer cleared once, for buffers whose every byte is read but not every
 * byte written: the pictures' rows past the pad up to the pitch, which the
 * searches' word loads read under a mask where a row's samples end inside a
 * word; the tails of the coarse results, copied whole into shared memory;
 * the result slots past each CTU's count, read back whole.
 */
static int alloc_cleared(GpumeCUDAContext *s, CUdeviceptr *ptr, size_t size)
{
    int err = alloc_dev(s, ptr, size);
    if (err >= 0)
        err = CHECK_CU(s->cu->cuMemsetD8Async(*ptr, 0, FFMAX(size, 1), s->stream));
    return err;
}

static av_cold int cuda_init(void *priv, const GpumeHost *host, const GpumeParams *p)
{
    GpumeCUDAContext *s = priv;
    GpumePU pu[GPUME_MAX_PUS];
    uint16_t fixed[GPUME_MAX_OUT_PER_CTU];
    size_t pic_size;
    CUcontext dummy;
    CudaFunctions *cu;
    int err;

    s->host = host;
    s->p    = *p;
    s->pad  = p->pad;
    /* dis starts from hme's search: s->p is that search */
    s->dis  = p->algo == GPUME_ALGO_DIS;
    if (s->dis)
        s->p.algo = GPUME_ALGO_HME;
    p = &s->p;
    pic_size = ff_gpume_pyramid_layout(p, 128, s->level);

    /* the device layer (gpume_device.c) opened the device */
    if (!host->hw_device ||
        ((AVHWDeviceContext *)host->hw_device->data)->type != AV_HWDEVICE_TYPE_CUDA || !pic_size)
        return AVERROR(EINVAL);
    s->device_ref = av_buffer_ref(host->hw_device);
    if (!s->device_ref)
        return AVERROR(ENOMEM);
    s->hwctx  = ((AVHWDeviceContext *)s->device_ref->data)->hwctx;
    s->cu     = cu = s->hwctx->internal->cuda_dl;

    err = CHECK_CU(cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
    if (err < 0) {
        s->hwctx = NULL;
        av_buffer_unref(&s->device_ref);
        return err;
    }

    /* the device's stream if it has one (FFmpeg's convention), else our own;
     * uploads and read-backs get streams of their own so they overlap the
     * searches, and so does every second search */
    err = CHECK_CU(cu->cuStreamCreate(&s->upload, CU_STREAM_NON_BLOCKING));
    if (err >= 0)
        err = CHECK_CU(cu->cuStreamCreate(&s->download, CU_STREAM_NON_BLOCKING));
    if (err >= 0)
        err = CHECK_CU(cu->cuStreamCreate(&s->stream2, CU_STREAM_NON_BLOCKING));
    if (err >= 0 && !s->hwctx->stream)
        err = CHECK_CU(cu->cuStreamCreate(&s->own_stream, CU_STREAM_NON_BLOCKING));
    if (err < 0)
        goto fail;
    s->stream = s->hwctx->stream ? s->hwctx->stream : s->own_stream;
    for (int i = 0; i < GPUME_NB_SLOTS && err >= 0; i++) {
        err = CHECK_CU(cu->cuEventCreate(&s->loaded[i], CU_EVENT_DISABLE_TIMING));
        if (err >= 0)
            err = CHECK_CU(cu->cuEventCreate(&s->ready[i], CU_EVENT_DISABLE_TIMING));
    }
    for (int i = 0; i < NB_RESULTS && err >= 0; i++) {
        err = CHECK_CU(cu->cuEventCreate(&s->pred_ready[i], CU_EVENT_DISABLE_TIMING));
        if (err >= 0)
            err = CHECK_CU(cu->cuEventCreate(&s->searched[i], CU_EVENT_DISABLE_TIMING));
        if (err >= 0)
            err = CHECK_CU(cu->cuEventCreate(&s->done[i], CU_EVENT_DISABLE_TIMING));
    }
    if (err < 0)
        goto fail;

    err = ff_cuda_load_module(host->log_ctx, s->hwctx, &s->module,
                              ff_gpume_ptx_data, ff_gpume_ptx_len);
    if (err < 0)
        goto fail;
#define GET_FUNC(f, name)                                                     \
    do {                                                                      \
        err = CHECK_CU(cu->cuModuleGetFunction(&s->f, s->module, name));      \
        if (err < 0)                                                          \
            goto fail;                                                        \
    } while (0)
    GET_FUNC(f_pyramid,    "gpume_pyramid");
    GET_FUNC(f_hme_coarse, "gpume_hme_coarse");
    GET_FUNC(f_hme_blocks, "gpume_hme_blocks");
    GET_FUNC(f_pu_search,  ff_gpume_block8_search(p) ? "gpume_pu_blocks32" :
                           p->ctu == 16 ? "gpume_pu_search16" :
                           p->ctu == 32 ? "gpume_pu_search32" : "gpume_pu_search64");
    GET_FUNC(f_refine,     "gpume_refine");
    GET_FUNC(f_lfs,        "gpume_lfs");
    GET_FUNC(f_predictor,  "gpume_predictor");
    GET_FUNC(f_dis_down,     "gpume_dis_down");
    GET_FUNC(f_dis_patches,  "gpume_dis_patches");
    GET_FUNC(f_dis_patches_rows, "gpume_dis_patches_rows");
    GET_FUNC(f_dis_densify,  "gpume_dis_densify");
    GET_FUNC(f_dis_blocks,   "gpume_dis_blocks");
    if (p->algo == GPUME_ALGO_FULL && p->ctu == 32)
        GET_FUNC(f_full, p->block == 8  ? "gpume_full32_b8"  : p->block == 16 ? "gpume_full32_b16" :
                         p->block == 32 ? "gpume_full32_b32" : "gpume_full32");
#undef GET_FUNC

    for (int i = 0; i < GPUME_NB_SLOTS; i++)
        if ((err = alloc_cleared(s, &s->pic[i], pic_size)) < 0)
            goto fail;
    for (int i = 0; i < NB_RESULTS; i++)
        if ((err = ff_gpume_cuda_staging_alloc(host->note_ctx, cu, &s->result[i],
                                               ff_gpume_readback_layout(p, &s->blocks_offset))) < 0)
            goto fail;

    ff_gpume_pu_tables(p, pu, fixed);
    s->nb_fixed_pus = p->nb_fixed_pus;

    if ((err = alloc_dev(s, &s->d_pu, p->nb_pus * sizeof(*pu))) < 0 ||
        (err = alloc_dev(s, &s->d_fixed_pus, s->nb_fixed_pus * sizeof(*fixed))) < 0)
        goto fail;
    for (int i = 0; i < 2; i++) {
        if ((err = alloc_cleared(s, &s->d_coarse[i], p->nb_ctus * sizeof(GpumeHmeCoarse))) < 0 ||
            (err = alloc_dev(s, &s->d_keys[i], (size_t)p->nb_ctus * p->nb_pus * sizeof(uint64_t))) < 0)
            goto fail;
    }
    for (int i = 0; i < NB_RESULTS; i++) {
        if ((err = alloc_dev(s, &s->d_pred[i], 2 * p->nb_ctus * sizeof(int16_t))) < 0 ||
            (err = alloc_cleared(s, &s->d_result[i], s->result[i].size)) < 0)
            goto fail;
    }
    if (s->dis) {
        size_t dis_size;
        int lf;
        for (int k = 0; k <= GPUME_HME_LEVELS; k++)
            s->dis_level[k] = (GpumeDisLevel) { s->level[k].w, s->level[k].h,
                                                s->level[k].pitch, s->level[k].offset };
        if (!(dis_size = ff_gpume_dis_layout(p, 128, s->dis_level))) {
            err = AVERROR(EINVAL);
            goto fail;
        }
        s->dis_coarsest = gpume_dis_coarsest(p->width, p->height);
        s->dis_finest   = lf = gpume_dis_finest(s->dis_coarsest);
        for (int i = 0; i < GPUME_NB_SLOTS && err >= 0; i++)
            err = alloc_dev(s, &s->d_dis_pic[i], dis_size);
        for (int i = 0; i < 2 && err >= 0; i++) {
            err = alloc_dev(s, &s->d_dis_patch[i], 2 * sizeof(int32_t) *
                            gpume_dis_nb_patches(s->dis_level[lf].w) *
                            gpume_dis_nb_patches(s->dis_level[lf].h));
            for (int k = 0; k < 2 && err >= 0; k++)
                err = alloc_dev(s, &s->d_dis_field[i][k],
                                2 * sizeof(int32_t) * s->dis_level[lf].w * s->dis_level[lf].h);
        }
        if (err < 0)
            goto fail;
    }
    err = CHECK_CU(cu->cuMemcpyHtoD(s->d_pu, pu, p->nb_pus * sizeof(*pu)));
    if (err >= 0 && s->nb_fixed_pus)
        err = CHECK_CU(cu->cuMemcpyHtoD(s->d_fixed_pus, fixed, s->nb_fixed_pus * sizeof(*fixed)));
    /* the buffers cleared before any upload (on its own stream) */
    if (err >= 0)
        err = CHECK_CU(cu->cuStreamSynchronize(s->stream));
    if (err < 0)
        goto fail;

    CHECK_CU(cu->cuCtxPopCurrent(&dummy));
    return 0;
fail:
    CHECK_CU(cu->cuCtxPopCurrent(&dummy));
    cuda_uninit(s);
    return err;
}

/** Launch f on stream st; args: the addresses of its arguments. */
static int launch(GpumeCUDAContext *s, CUstream st, CUfunction f, int gx, int gy, int bx, int by,
                  void **args)
{
    return CHECK_CU(s->cu->cuLaunchKernel(f, gx, gy, 1, bx, by, 1, 0, st, args, NULL));
}

/** Pad level 0 of slot's pyramid, loaded, and for hme make the coarse levels from it. */
static int run_pyramid(GpumeCUDAContext *s, int slot)
{
    GpumePyramidArgs a;
    void *args[] = { &a, &s->pic[slot] };
    const int blocks = ff_gpume_pyramid_args(&s->p, s->level, 1, &a);

    return launch(s, s->stream, s->f_pyramid, blocks, 1, GPUME_PYR_BW, GPUME_PYR_BH, args);
}

/** The dis kernels' grid over w x h threads, on stream st. */
static int launch_dis(GpumeCUDAContext *s, CUstream st, CUfunction f, int w, int h, void **args)
{
    return launch(s, st, f, (w + GPUME_DIS_BW - 1) / GPUME_DIS_BW, (h + GPUME_DIS_BH - 1) / GPUME_DIS_BH,
                  GPUME_DIS_BW, GPUME_DIS_BH, args);
}

/** dis: the buffer of level k of slot's pyramid (hme's levels are in its pyramid). */
static CUdeviceptr *dis_buffer(GpumeCUDAContext *s, int slot, int k)
{
    return k <= GPUME_HME_LEVELS ? &s->pic[slot] : &s->d_dis_pic[slot];
}

/** dis: the levels of slot's pyramid beyond hme's, from hme's last. */
static int run_dis_pyramid(GpumeCUDAContext *s, int slot)
{
    for (int k = GPUME_HME_LEVELS + 1; k <= s->dis_coarsest; k++) {
        void *args[] = { &s->dis_level[k - 1], dis_buffer(s, slot, k - 1), &s->dis_level[k],
                         dis_buffer(s, slot, k) };
        int err = launch_dis(s, s->stream, s->f_dis_down, s->dis_level[k].w, s->dis_level[k].h, args);
        if (err < 0)
            return err;
    }
    return 0;
}

/**
 * dis: the fields from the coarsest level to the finest searched, then the
 * exported blocks of e; on stream st with the scratch buffers of lane.
 */
static int run_dis(GpumeCUDAContext *s, CUstream st, int lane, int cur, int ref, int e)
{
    const GpumeParams *p = &s->p;
    const int lf = s->dis_finest;
    CUdeviceptr field = 0;
    int coarse_w = 0, err;

    for (int l = s->dis_coarsest; l >= lf; l--) {
        const GpumeDisLevel *lv = &s->dis_level[l];
        CUdeviceptr c = *dis_buffer(s, cur, l), r = *dis_buffer(s, ref, l);
        CUdeviceptr out = s->d_dis_field[lane][l & 1];
        CUdeviceptr hme = s->d_result[e] + s->blocks_offset;
        GpumeDisHmeArgs ha = {
            .on = l == lf, .nb_fixed = s->nb_fixed_pus, .ctu = p->ctu, .ctu_cols = p->ctu_cols,
            .max_out = p->max_out, .width = p->width, .height = p->height, .lf = lf,
        };
        void *pargs[] = { (void *)lv, &c, &r, &field, &coarse_w, &s->d_dis_patch[lane], &ha, &hme,
                          &s->d_pu, &s->d_fixed_pus };
        void *dargs[] = { (void *)lv, &c, &r, &s->d_dis_patch[lane], &out };
        const int nx = gpume_dis_nb_patches(lv->w), ny = gpume_dis_nb_patches(lv->h);
        /* few patches: a group of threads a patch, whose descent is the level's time */
        if (nx * ny < GPUME_DIS_FEW_PATCHES)
            err = launch(s, st, s->f_dis_patches_rows,
                         (nx * ny * GPUME_DIS_PATCH + GPUME_DIS_PATCH_THREADS - 1) / GPUME_DIS_PATCH_THREADS,
                         1, GPUME_DIS_PATCH_THREADS, 1, pargs);
        else
            /* a thread a patch, and a warp more for those that start from both */
            err = launch(s, st, s->f_dis_patches, (nx + GPUME_DIS_BW - 1) / GPUME_DIS_BW,
                         (ny + GPUME_DIS_BH - 1) / GPUME_DIS_BH, GPUME_DIS_GROUP, 1, pargs);
        if (err >= 0)
            err = launch_dis(s, st, s->f_dis_densify, lv->w, lv->h, dargs);
        if (err < 0)
            return err;
        field    = out;
        coarse_w = lv->w;
    }
    {
        GpumeDisBlockArgs a = {
            .width = p->width, .height = p->height,
            .pitch = s->level[0].pitch, .offset = s->level[0].offset,
            .ctu = p->ctu, .ctu_cols = p->ctu_cols, .nb_ctus = p->nb_ctus, .block = p->block,
            .max_out = p->max_out, .subpel = p->subpel, .range = GPUME_MAX_RANGE,
            .fw = s->dis_level[lf].w, .lu = lf,
        };
        CUdeviceptr blocks = s->d_result[e] + s->blocks_offset;
        void *args[] = { &a, &s->pic[cur], &s->pic[ref], &field, &s->d_pu, &s->d_fixed_pus,
                         &blocks, &s->d_result[e] };
        return launch(s, st, s->f_dis_blocks, p->nb_ctus, 1, FFALIGN(p->max_out, 32), 1, args);
    }
}

static int cuda_load(void *priv, int slot, const AVFrame *frame)
{
    GpumeCUDAContext *s = priv;
    CudaFunctions *cu = s->cu;
    const GpumePlane *lv = s->level;
    CUDA_MEMCPY2D cpy = {
        .dstMemoryType = CU_MEMORYTYPE_DEVICE,
        .dstDevice     = s->pic[slot] + lv[0].offset,
        .dstPitch      = lv[0].pitch,
        .WidthInBytes  = lv[0].w,
        .Height        = lv[0].h,
    };
    /* CUDA frames are ordered after their producer on the device's stream */
    CUstream copy_stream = frame->format == AV_PIX_FMT_CUDA ? s->hwctx->stream : s->upload;
    CUcontext dummy;
    int err;

    if (frame->width != s->p.width || frame->height != s->p.height)
        return AVERROR(EINVAL);

    err = CHECK_CU(cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
    if (err < 0)
        return err;
    if (frame->format == AV_PIX_FMT_CUDA) {
        cpy.srcMemoryType = CU_MEMORYTYPE_DEVICE;
        cpy.srcDevice     = (CUdeviceptr)frame->data[0];
        cpy.srcPitch      = frame->linesize[0];
    } else {
        /* staged, so that the copy neither waits nor makes the caller wait;
         * the slot's previous copy has long finished */
        GpumeCudaStaging *st = &s->staging[slot];
        GpumeCopyPlane luma;
        err = CHECK_CU(cu->cuEventSynchronize(s->loaded[slot]));
        if (err >= 0)
            err = ff_gpume_cuda_staging_get(s->host->note_ctx, cu, st, (size_t)lv[0].w * lv[0].h);
        if (err < 0)
            goto end;
        luma = (GpumeCopyPlane) {
            .dst = st->data, .dst_linesize = lv[0].w,
            .src = frame->data[0], .src_linesize = frame->linesize[0],
            .width = lv[0].w, .height = lv[0].h,
        };
        err = ff_gpume_copy_planes(s->host->execute, s->host->exec_opaque, s->host->nb_threads,
                                   &luma, 1);
        if (err < 0)
            goto end;
        cpy.srcMemoryType = CU_MEMORYTYPE_HOST;
        cpy.srcHost       = st->data;
        cpy.srcPitch      = lv[0].w;
    }
    err = CHECK_CU(cu->cuMemcpy2DAsync(&cpy, copy_stream));
    if (err >= 0)
        err = CHECK_CU(cu->cuEventRecord(s->loaded[slot], copy_stream));
    if (err >= 0)
        err = CHECK_CU(cu->cuStreamWaitEvent(s->stream, s->loaded[slot], 0));
    if (err >= 0)
        err = run_pyramid(s, slot);
    if (err >= 0 && s->dis)
        err = run_dis_pyramid(s, slot);
    if (err >= 0)
        err = CHECK_CU(cu->cuEventRecord(s->ready[slot], s->stream));
end:
    CHECK_CU(cu->cuCtxPopCurrent(&dummy));
    return err;
}

static int cuda_estimate(void *priv, int cur, int ref, const int16_t *pred, int pred_from,
                         int e, GpumeResult *res)
{
    GpumeCUDAContext *s = priv;
    CudaFunctions *cu = s->cu;
    const GpumeParams *p = &s->p;
    const int lane = e & 1;
    CUstream st = lane ? s->stream2 : s->stream;
    GpumeSearchArgs a = { .p = *p, .nb_fixed_pus = s->nb_fixed_pus };
    GpumeCudaBuffers b;
    void *args[] = { &a, &b };
    CUcontext dummy;
    int err;

    if (e < 0 || e >= NB_RESULTS || s->pending[e].blocks || pred_from >= NB_RESULTS)
        return AVERROR_BUG;
    if (!ff_gpume_is_search_algo(p->algo))
        return AVERROR(ENOSYS);
    b = (GpumeCudaBuffers) {
        .cur       = s->pic[cur],
        .ref       = s->pic[ref],
        .pred      = s->d_pred[e],
        .coarse    = s->d_coarse[lane],
        .pu_keys   = s->d_keys[lane],
        .pu        = s->d_pu,
        .fixed_pus = s->d_fixed_pus,
        .blocks    = s->d_result[e] + s->blocks_offset,
        .counts    = s->d_result[e],
    };
    memcpy(a.cur, s->level, sizeof(a.cur));
    memcpy(a.ref, s->level, sizeof(a.ref));

    err = CHECK_CU(cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
    if (err < 0)
        return err;
    /* the pyramids were made on the first stream */
    if (lane) {
        err = CHECK_CU(cu->cuStreamWaitEvent(st, s->ready[cur], 0));
        if (err >= 0)
            err = CHECK_CU(cu->cuStreamWaitEvent(st, s->ready[ref], 0));
        if (err < 0)
            goto end;
    }
    if (pred_from >= 0) {
        /* from an estimate issued earlier, on this stream or the other */
        GpumePredArgs pa = { .nb_ctus = p->nb_ctus, .max_out = p->max_out };
        CUdeviceptr blocks = s->d_result[pred_from] + s->blocks_offset;
        void *pred_args[] = { &pa, &blocks, &s->d_result[pred_from], &s->d_pred[e] };
        if ((pred_from & 1) != lane)
            err = CHECK_CU(cu->cuStreamWaitEvent(st, s->searched[pred_from], 0));
        if (err >= 0)
            err = launch(s, st, s->f_predictor, FFALIGN(p->nb_ctus, 256) / 256, 1, 256, 1, pred_args);
    } else {
        /* a pageable copy waits for its stream: keep it off the compute stream */
        err = CHECK_CU(cu->cuMemcpyHtoDAsync(s->d_pred[e], pred, 2 * p->nb_ctus * sizeof(*pred),
                                             s->upload));
        if (err >= 0)
            err = CHECK_CU(cu->cuEventRecord(s->pred_ready[e], s->upload));
        if (err >= 0)
            err = CHECK_CU(cu->cuStreamWaitEvent(st, s->pred_ready[e], 0));
    }
    if (err < 0)
        goto end;
    if (p->algo == GPUME_ALGO_LFS) {
        err = launch(s, st, s->f_lfs, p->nb_ctus, 1, GPUME_LFS_THREADS, 1, args);
    } else {
        if (p->algo == GPUME_ALGO_HME)
            err = launch(s, st, s->f_hme_coarse, p->nb_ctus, 1, GPUME_KERNEL_THREADS, 1, args);
        if (err >= 0 && p->algo == GPUME_ALGO_HME)
            err = launch(s, st, s->f_hme_blocks, p->nb_ctus, 1, GPUME_KERNEL_THREADS, 1, args);
        if (err >= 0) {
            GpumeFullArgs fa;
            void *full_args[] = { &a, &b, &fa };
            if (s->f_full && ff_gpume_full_key_packing(p, pred_from < 0 ? pred : NULL,
                                                       &fa.key_bits, &fa.local))
                err = launch(s, st, s->f_full, p->nb_ctus, 1, GPUME_KERNEL_THREADS, 1, full_args);
            else
                err = launch(s, st, s->f_pu_search, p->nb_ctus, 1, GPUME_KERNEL_THREADS, 1, args);
        }
        if (err >= 0)
            err = launch(s, st, s->f_refine, p->nb_ctus, 1, GPUME_KERNEL_THREADS, 1, args);
    }
    /* dis: from hme's blocks, just written into the result, to its own */
    if (err >= 0 && s->dis)
        err = run_dis(s, st, lane, cur, ref, e);
    /* read back on a stream of its own, overlapping the next searches */
    if (err >= 0)
        err = CHECK_CU(cu->cuEventRecord(s->searched[e], st));
    if (err >= 0)
        err = CHECK_CU(cu->cuStreamWaitEvent(s->download, s->searched[e], 0));
    if (err >= 0)
        err = CHECK_CU(cu->cuMemcpyDtoHAsync(s->result[e].data, s->d_result[e], s->result[e].size,
                                             s->download));
    if (err >= 0)
        err = CHECK_CU(cu->cuEventRecord(s->done[e], s->download));
    if (err >= 0)
        s->pending[e] = *res;
end:
    CHECK_CU(cu->cuCtxPopCurrent(&dummy));
    return err;
}

/**
 * Wait for estimate e; point view at its read-back (page-locked, kept until
 * e is issued again) or, without view, copy the exported blocks into the
 * arrays given to estimate().
 */
static int fetch(GpumeCUDAContext *s, int e, GpumeResult *view)
{
    const GpumeResult res = s->pending[e];
    int err;

    s->pending[e].blocks = NULL;
    err = CHECK_CU(s->cu->cuEventSynchronize(s->done[e]));
    if (err < 0)
        return err;
    if (view)
        return ff_gpume_readback_view(&s->p, s->result[e].data, s->blocks_offset, view);
    return ff_gpume_readback_result(&s->p, s->result[e].data, s->blocks_offset, &res);
}

static int cuda_wait(void *priv, int e, GpumeResult *res)
{
    GpumeCUDAContext *s = priv;
    CUcontext dummy;
    int err;

    if (e < 0 || e >= NB_RESULTS || !s->pending[e].blocks)
        return AVERROR_BUG;
    err = CHECK_CU(s->cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
    if (err < 0)
        return err;
    err = fetch(s, e, res);
    CHECK_CU(s->cu->cuCtxPopCurrent(&dummy));
    return err;
}

static int cuda_sync(void *priv)
{
    GpumeCUDAContext *s = priv;
    CUcontext dummy;
    int err;

    err = CHECK_CU(s->cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
    if (err < 0)
        return err;
    for (int e = 0; e < NB_RESULTS; e++) {
        if (s->pending[e].blocks) {
            const int ret = fetch(s, e, NULL);
            err = err < 0 ? err : ret;
        }
    }
    CHECK_CU(s->cu->cuCtxPopCurrent(&dummy));
    return err;
}

const GpumeBackend ff_gpume_backend_cuda = {
    .name      = "cuda",
    .priv_size = sizeof(GpumeCUDAContext),
    .init      = cuda_init,
    .load      = cuda_load,
    .estimate  = cuda_estimate,
    .wait      = cuda_wait,
    .sync      = cuda_sync,
    .uninit    = cuda_uninit,
};
