/*
 * mcfps: CUDA backend (host side). Kernels in cuda/mcfps.cu.
 *
 * Everything runs on the device's stream (FFmpeg's convention: the stream
 * of AVCUDADeviceContext, the legacy default stream when it has none), so
 * hardware frames are read and written in place, ordered after whoever
 * produced them and before whoever reads the result, with no host
 * synchronisation. Software frames are copied into device planes of the
 * backend's own and the result copied back, one synchronisation per output
 * frame (the host reads it next).
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

#include "libavutil/cuda_check.h"
#include "libavutil/hwcontext.h"
#include "libavutil/hwcontext_cuda_internal.h"
#include "libavutil/macros.h"
#include "libavutil/mem.h"
#include "libavutil/pixfmt.h"

#include "cuda/load_helper.h"
#include "gpume_cuda_staging.h"
#include "mcfps_backend.h"
#include "mcfps_cuda.h"

extern const unsigned char ff_mcfps_ptx_data[];
extern const unsigned int ff_mcfps_ptx_len;

#define CUDA_MAX_GRID_Y 65535   ///< blocks of a grid along y
#define RENDER_ROWS     MCFPS_CUDA_RENDER_H ///< rows of a plane a block of mcfps_render and mcfps_blend take

/** A frame plane on the device. */
typedef struct McfpsCudaPlane {
    CUdeviceptr data;
    int pitch;
} McfpsCudaPlane;

typedef struct McfpsCUDAContext {
    McfpsHost host;
    McfpsFormat f;
    size_t cells;

    AVBufferRef *device_ref;
    AVCUDADeviceContext *hwctx;
    CudaFunctions *cu;
    CUstream stream;            ///< ours: the device's stream may be the legacy one, which waits for everything
    CUevent order;              ///< orders our stream and the device's around hardware frames
    CUmodule module;
    CUfunction f_smooth, f_select, f_render, f_blend, f_check, f_trust;

    /* frame planes (McfpsFormat.nb_frame_planes) */
    CUdeviceptr own[MCFPS_SLOTS + 1][MCFPS_MAX_PLANES]; ///< planes of the slots and of the result, for software frames
    int own_pitch[MCFPS_MAX_PLANES];
    McfpsCudaPlane pic[MCFPS_SLOTS][MCFPS_MAX_PLANES];  ///< what slot i reads: own planes or a frame's
    AVFrame *held[MCFPS_SLOTS];                 ///< the hardware frame of slot i, or blank
    McfpsCudaFields fields;
    int parts_w, parts_h;                       ///< mcfps_check's grid

    /* page-locked staging (frame planes packed at pitch fw[k]): software frames
     * of the slots on their way up, the raw fields, the motion check's field,
     * and the result on its way down (the frames' buffers at their first
     * use); each event marks the end of the last copy of its buffer */
    GpumeCudaStaging up[MCFPS_SLOTS], fields_up, check_up, down;
    CUevent up_done[MCFPS_SLOTS], fields_done, check_done, rendered;
    size_t plane_offset[MCFPS_MAX_PLANES], frame_size;
    AVFrame *rendering;         ///< the software frame the result goes to at finish() (not owned)
} McfpsCUDAContext;

#define CHECK_CU(x) FF_CUDA_CHECK_DL(s->host.log_ctx, s->cu, x)

static av_cold void cuda_uninit(void *priv)
{
    McfpsCUDAContext *s = priv;
    CUcontext dummy;

    /* nothing is freed in another context than its own */
    if (s->hwctx && CHECK_CU(s->cu->cuCtxPushCurrent(s->hwctx->cuda_ctx)) >= 0) {
        CudaFunctions *cu = s->cu;
        const uint64_t bufs[] = { s->fields.ra, s->fields.rb, s->fields.fa, s->fields.fb,
                                  s->fields.fp, s->fields.vec, s->fields.info, s->fields.d, s->fields.part,
                                  s->fields.trust };
        CUevent *events[] = { &s->order, &s->up_done[0], &s->up_done[1], &s->up_done[2],
                              &s->fields_done, &s->check_done, &s->rendered };
        if (s->stream) {
            CHECK_CU(cu->cuStreamSynchronize(s->stream));
            CHECK_CU(cu->cuStreamDestroy(s->stream));
        }
        for (int i = 0; i < FF_ARRAY_ELEMS(events); i++)
            if (*events[i])
                CHECK_CU(cu->cuEventDestroy(*events[i]));
        for (int k = 0; k < MCFPS_SLOTS; k++)
            ff_gpume_cuda_staging_free(cu, &s->up[k]);
        ff_gpume_cuda_staging_free(cu, &s->fields_up);
        ff_gpume_cuda_staging_free(cu, &s->check_up);
        ff_gpume_cuda_staging_free(cu, &s->down);
        for (int k = 0; k < MCFPS_SLOTS + 1; k++)
            for (int i = 0; i < MCFPS_MAX_PLANES; i++)
                if (s->own[k][i])
                    CHECK_CU(cu->cuMemFree(s->own[k][i]));
        for (int i = 0; i < FF_ARRAY_ELEMS(bufs); i++)
            if (bufs[i])
                CHECK_CU(cu->cuMemFree((CUdeviceptr)bufs[i]));
        if (s->module)
            CHECK_CU(cu->cuModuleUnload(s->module));
        CHECK_CU(cu->cuCtxPopCurrent(&dummy));
    }
    for (int k = 0; k < MCFPS_SLOTS; k++)
        av_frame_free(&s->held[k]);
    av_buffer_unref(&s->device_ref);
    memset(s, 0, sizeof(*s));
}

static int launch(McfpsCUDAContext *s, CUfunction f, int gx, int gy, int bx, int by, void *arg)
{
    void *args[] = { arg };
    return CHECK_CU(s->cu->cuLaunchKernel(f, gx, gy, 1, bx, by, 1, 0, s->stream, args, NULL));
}

static av_cold int cuda_init(void *priv, const McfpsHost *host, const McfpsFormat *f)
{
    McfpsCUDAContext *s = priv;
    CUcontext dummy;
    CudaFunctions *cu;
    int err;

    s->host  = *host;
    s->f     = *f;
    s->cells = (size_t)((f->width + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2) *
               ((f->height + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2);

    /* the plane kernels take RENDER_ROWS rows a block, mcfps_render from
     * MCFPS_CELL / 2 rows above the plane on, and a grid has at most
     * CUDA_MAX_GRID_Y blocks along y */
    if (f->height + MCFPS_CELL / 2 > (int64_t)CUDA_MAX_GRID_Y * RENDER_ROWS) {
        av_log(host->log_ctx, AV_LOG_ERROR, "frames of more than %d rows are beyond "
               "the CUDA backend\n", CUDA_MAX_GRID_Y * RENDER_ROWS - MCFPS_CELL / 2);
        return AVERROR(ENOSYS);
    }

    /* the device layer (gpume_device.c) opened the device */
    if (!host->hw_device ||
        ((AVHWDeviceContext *)host->hw_device->data)->type != AV_HWDEVICE_TYPE_CUDA)
        return AVERROR(EINVAL);
    s->device_ref = av_buffer_ref(host->hw_device);
    err = s->device_ref ? 0 : AVERROR(ENOMEM);
    for (int k = 0; k < MCFPS_SLOTS && err >= 0; k++)
        if (!(s->held[k] = av_frame_alloc()))
            err = AVERROR(ENOMEM);
    if (err < 0) {
        cuda_uninit(s);
        return err;
    }
    s->hwctx  = ((AVHWDeviceContext *)s->device_ref->data)->hwctx;
    s->cu     = cu = s->hwctx->internal->cuda_dl;

    err = CHECK_CU(cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
    if (err < 0) {
        s->hwctx = NULL;
        cuda_uninit(s);
        return err;
    }
    err = CHECK_CU(cu->cuStreamCreate(&s->stream, CU_STREAM_NON_BLOCKING));
    {
        CUevent *events[] = { &s->order, &s->up_done[0], &s->up_done[1], &s->up_done[2],
                              &s->fields_done, &s->check_done, &s->rendered };
        for (int i = 0; i < FF_ARRAY_ELEMS(events) && err >= 0; i++)
            err = CHECK_CU(cu->cuEventCreate(events[i], CU_EVENT_DISABLE_TIMING));
    }
    if (err < 0)
        goto fail;
    err = ff_cuda_load_module(host->log_ctx, s->hwctx, &s->module, ff_mcfps_ptx_data, ff_mcfps_ptx_len);
    if (err < 0)
        goto fail;
#define GET_FUNC(fn, name)                                                    \
    do {                                                                      \
        err = CHECK_CU(cu->cuModuleGetFunction(&s->fn, s->module, name));     \
        if (err < 0)                                                          \
            goto fail;                                                        \
    } while (0)
    GET_FUNC(f_smooth, "mcfps_smooth");
    GET_FUNC(f_select, "mcfps_select");
    GET_FUNC(f_render, "mcfps_render");
    GET_FUNC(f_blend,  "mcfps_blend");
    GET_FUNC(f_check,  "mcfps_check");
    GET_FUNC(f_trust,  "mcfps_trust_sum");
#undef GET_FUNC

    for (int k = 1; k < f->nb_frame_planes; k++)
        s->plane_offset[k] = s->plane_offset[k - 1] + (size_t)f->fw[k - 1] * f->fh[k - 1];
    {
        const int last = f->nb_frame_planes - 1;
        const size_t frame_size = s->plane_offset[last] + (size_t)f->fw[last] * f->fh[last];
        s->frame_size = frame_size;
        if ((err = ff_gpume_cuda_staging_alloc(host->note_ctx, cu, &s->check_up,
                                               s->cells * 2 * sizeof(int16_t))) < 0 ||
            (err = ff_gpume_cuda_staging_alloc(host->note_ctx, cu, &s->fields_up,
                                               s->cells * 4 * sizeof(int16_t))) < 0)
            goto fail;
    }
    for (int k = 0; k < f->nb_frame_planes; k++) {
        s->own_pitch[k] = FFALIGN(f->fw[k], 256);
        for (int n = 0; n < MCFPS_SLOTS + 1; n++) {
            err = CHECK_CU(cu->cuMemAlloc(&s->own[n][k], (size_t)s->own_pitch[k] * f->fh[k]));
            if (err < 0)
                goto fail;
        }
    }
    {
        uint64_t *bufs[] = { &s->fields.ra, &s->fields.rb, &s->fields.fa, &s->fields.fb,
                             &s->fields.fp, &s->fields.vec, &s->fields.info, &s->fields.d, &s->fields.part,
                             &s->fields.trust };
        s->parts_w = ff_mcfps_check_groups(f->width, MCFPS_CHECK_GROUP_W);
        s->parts_h = ff_mcfps_check_groups(f->height, MCFPS_CHECK_GROUP_H);
        for (int i = 0; i < FF_ARRAY_ELEMS(bufs); i++) {
            const size_t size = bufs[i] == &s->fields.part ? (size_t)s->parts_w * s->parts_h * 2 * sizeof(uint32_t) :
                                bufs[i] == &s->fields.trust ? sizeof(int32_t) :
                                bufs[i] == &s->fields.vec ? s->cells * MCFPS_VEC_N * sizeof(int16_t) :
                                s->cells * 2 * sizeof(int16_t);
            CUdeviceptr m = 0;
            err = CHECK_CU(cu->cuMemAlloc(&m, size));
            *bufs[i] = m;
            if (err < 0)
                goto fail;
        }
    }
    {
        /* no check yet: sums of no blocks give full trust */
        McfpsCudaCheckArgs ca = { .f = s->fields };
        err = launch(s, s->f_trust, 1, 1, MCFPS_TRUST_GROUP, 1, &ca);
        if (err < 0)
            goto fail;
    }
    CHECK_CU(cu->cuCtxPopCurrent(&dummy));
    return 0;
fail:
    CHECK_CU(cu->cuCtxPopCurrent(&dummy));
    cuda_uninit(s);
    return err;
}

/** 2D copy of frame plane k between host or device memory and device memory, on the stream. */
static int copy_plane(McfpsCUDAContext *s, int k, CUmemorytype src_type, const void *src_host,
                      CUdeviceptr src_dev, int src_pitch, CUmemorytype dst_type, void *dst_host,
                      CUdeviceptr dst_dev, int dst_pitch)
{
    CUDA_MEMCPY2D cpy = {
        .srcMemoryType = src_type,
        .srcHost       = src_host,
        .srcDevice     = src_dev,
        .srcPitch      = src_pitch,
        .dstMemoryType = dst_type,
        .dstHost       = dst_host,
        .dstDevice     = dst_dev,
        .dstPitch      = dst_pitch,
        .WidthInBytes  = s->f.fw[k],
        .Height        = s->f.fh[k],
    };
    return CHECK_CU(s->cu->cuMemcpy2DAsync(&cpy, s->stream));
}

/** Make stream to wait for the work queued on stream from so far. */
static int wait_for(McfpsCUDAContext *s, CUstream stream, CUstream from)
{
    int err = CHECK_CU(s->cu->cuEventRecord(s->order, from));
    if (err >= 0)
        err = CHECK_CU(s->cu->cuStreamWaitEvent(stream, s->order, 0));
    return err;
}

static int cuda_load(void *priv, int slot, const AVFrame *frame)
{
    McfpsCUDAContext *s = priv;
    CUcontext dummy;
    int err;

    if (!ff_mcfps_slot_valid(slot) || frame->width != s->f.width || frame->height != s->f.height ||
        (frame->format != AV_PIX_FMT_CUDA && frame->hw_frames_ctx))
        return AVERROR(EINVAL);
    err = CHECK_CU(s->cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
    if (err < 0)
        return err;
    if (s->held[slot]->buf[0]) {
        /* whoever reuses the frame's memory on the device's stream waits
         * for our reads of it */
        err = wait_for(s, s->hwctx->stream, s->stream);
        /* without that order our reads end before the frame goes back */
        if (err < 0)
            s->cu->cuStreamSynchronize(s->stream);
        av_frame_unref(s->held[slot]);
        if (err < 0)
            goto end;
    }
    if (frame->format == AV_PIX_FMT_CUDA) {
        /* read in place, after its producer: the frame stays referenced
         * while the slot holds it */
        err = av_frame_ref(s->held[slot], frame);
        if (err >= 0)
            err = wait_for(s, s->stream, s->hwctx->stream);
        for (int k = 0; k < s->f.nb_frame_planes && err >= 0; k++)
            s->pic[slot][k] = (McfpsCudaPlane) { (CUdeviceptr)frame->data[k], frame->linesize[k] };
        /* a slot that failed to load holds nothing (no read was queued) */
        if (err < 0) {
            av_frame_unref(s->held[slot]);
            memset(s->pic[slot], 0, sizeof(s->pic[slot]));
        }
        goto end;
    }
    /* staged, so that the copies neither wait for the stream nor make the
     * caller wait; the slot's previous copy has long finished */
    err = CHECK_CU(s->cu->cuEventSynchronize(s->up_done[slot]));
    if (err >= 0)
        err = ff_gpume_cuda_staging_get(s->host.note_ctx, s->cu, &s->up[slot], s->frame_size);
    if (err >= 0) {
        GpumeCopyPlane planes[MCFPS_MAX_PLANES];
        for (int k = 0; k < s->f.nb_frame_planes; k++)
            planes[k] = (GpumeCopyPlane) {
                .dst = s->up[slot].data + s->plane_offset[k], .dst_linesize = s->f.fw[k],
                .src = frame->data[k], .src_linesize = frame->linesize[k],
                .width = s->f.fw[k], .height = s->f.fh[k],
            };
        err = ff_gpume_copy_planes(s->host.execute, s->host.exec_opaque, s->host.nb_threads,
                                   planes, s->f.nb_frame_planes);
    }
    for (int k = 0; k < s->f.nb_frame_planes && err >= 0; k++) {
        s->pic[slot][k] = (McfpsCudaPlane) { s->own[slot][k], s->own_pitch[k] };
        err = copy_plane(s, k, CU_MEMORYTYPE_HOST, s->up[slot].data + s->plane_offset[k], 0,
                         s->f.fw[k], CU_MEMORYTYPE_DEVICE, NULL, s->own[slot][k], s->own_pitch[k]);
    }
    if (err >= 0)
        err = CHECK_CU(s->cu->cuEventRecord(s->up_done[slot], s->stream));
end:
    CHECK_CU(s->cu->cuCtxPopCurrent(&dummy));
    return err;
}

static int cuda_fields(void *priv, const McfpsParams *p, const int16_t *ra, const int16_t *rb)
{
    McfpsCUDAContext *s = priv;
    const size_t size = (size_t)p->cw * p->ch * 2 * sizeof(*ra);
    const uint64_t swap = s->fields.fp;
    McfpsCudaCellArgs a;
    CUcontext dummy;
    int err;

    if ((size_t)p->cw * p->ch > s->cells)
        return AVERROR(EINVAL);
    /* the last pair's smoothed B field is this one's P -> A */
    s->fields.fp = s->fields.fb;
    s->fields.fb = swap;
    a = (McfpsCudaCellArgs){ .p = *p, .f = s->fields };
    err = CHECK_CU(s->cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
    if (err < 0)
        return err;
    /* staged like the frames */
    err = CHECK_CU(s->cu->cuEventSynchronize(s->fields_done));
    if (err >= 0) {
        int ret;
        memcpy(s->fields_up.data, ra, size);
        memcpy(s->fields_up.data + size, rb, size);
        err = CHECK_CU(s->cu->cuMemcpyHtoDAsync(s->fields.ra, s->fields_up.data, size, s->stream));
        if (err >= 0)
            err = CHECK_CU(s->cu->cuMemcpyHtoDAsync(s->fields.rb, s->fields_up.data + size, size,
                                                    s->stream));
        /* also after a failed copy: the next call waits for any copy begun */
        ret = CHECK_CU(s->cu->cuEventRecord(s->fields_done, s->stream));
        err = err < 0 ? err : ret;
    }
    if (err >= 0)
        err = launch(s, s->f_smooth, FFALIGN(p->cw, 16) / 16, FFALIGN(p->ch, 8) / 8, 16, 8, &a);
    CHECK_CU(s->cu->cuCtxPopCurrent(&dummy));
    return err;
}

static int cuda_check(void *priv, const McfpsParams *p, const int16_t *d, int phi, int prev, int a, int b)
{
    McfpsCUDAContext *s = priv;
    const size_t size = (size_t)p->cw * p->ch * 2 * sizeof(*d);
    McfpsCudaCheckArgs ca = {
        .p = *p, .f = s->fields, .phi = phi,
        .parts_w = s->parts_w, .nb_parts = s->parts_w * s->parts_h,
    };
    CUcontext dummy;
    int err;

    if ((size_t)p->cw * p->ch > s->cells || !ff_mcfps_slot_valid(prev) ||
        !ff_mcfps_slot_valid(a) || !ff_mcfps_slot_valid(b))
        return AVERROR(EINVAL);
    err = CHECK_CU(s->cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
    if (err < 0)
        return err;
    if (!d) {
        /* sums of no blocks: full trust */
        ca.nb_parts = 0;
        err = launch(s, s->f_trust, 1, 1, MCFPS_TRUST_GROUP, 1, &ca);
        goto end;
    }
    ca.pp = s->pic[prev][0].data;
    ca.sp = s->pic[prev][0].pitch;
    ca.a  = s->pic[a][0].data;
    ca.sa = s->pic[a][0].pitch;
    ca.b  = s->pic[b][0].data;
    ca.sb = s->pic[b][0].pitch;
    err = CHECK_CU(s->cu->cuEventSynchronize(s->check_done));
    if (err >= 0) {
        int ret;
        memcpy(s->check_up.data, d, size);
        err = CHECK_CU(s->cu->cuMemcpyHtoDAsync(s->fields.d, s->check_up.data, size, s->stream));
        /* also after a failed copy, as in cuda_fields() */
        ret = CHECK_CU(s->cu->cuEventRecord(s->check_done, s->stream));
        err = err < 0 ? err : ret;
    }
    if (err >= 0)
        err = launch(s, s->f_check, s->parts_w, s->parts_h, MCFPS_CHECK_GROUP_W, MCFPS_CHECK_GROUP_H, &ca);
    if (err >= 0)
        err = launch(s, s->f_trust, 1, 1, MCFPS_TRUST_GROUP, 1, &ca);
end:
    CHECK_CU(s->cu->cuCtxPopCurrent(&dummy));
    return err;
}

/** Wait for the software frame render() last wrote and give it its pixels. */
static int finish_rendering(McfpsCUDAContext *s)
{
    AVFrame *out = s->rendering;
    int err;

    if (!out)
        return 0;
    s->rendering = NULL;
    err = CHECK_CU(s->cu->cuEventSynchronize(s->rendered));
    if (err >= 0) {
        GpumeCopyPlane planes[MCFPS_MAX_PLANES];
        for (int k = 0; k < s->f.nb_frame_planes; k++)
            planes[k] = (GpumeCopyPlane) {
                .dst = out->data[k], .dst_linesize = out->linesize[k],
                .src = s->down.data + s->plane_offset[k], .src_linesize = s->f.fw[k],
                .width = s->f.fw[k], .height = s->f.fh[k],
            };
        err = ff_gpume_copy_planes(s->host.execute, s->host.exec_opaque, s->host.nb_threads,
                                   planes, s->f.nb_frame_planes);
    }
    return err;
}

static int cuda_render(void *priv, const McfpsParams *p, int mode, int a, int b, AVFrame *out)
{
    McfpsCUDAContext *s = priv;
    const int hw = out->format == AV_PIX_FMT_CUDA;
    CUcontext dummy;
    int err;

    if (!ff_mcfps_slot_valid(a) || !ff_mcfps_slot_valid(b) || p->width != s->f.width || p->height != s->f.height ||
        (!hw && out->hw_frames_ctx))
        return AVERROR(EINVAL);
    err = CHECK_CU(s->cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
    if (err < 0)
        return err;
    err = finish_rendering(s);
    /* a frame of the pool: after its last reader on the device's stream */
    if (err >= 0 && hw)
        err = wait_for(s, s->stream, s->hwctx->stream);
    if (err >= 0 && mode == MCFPS_MODE_MC) {
        McfpsCudaCellArgs ca = {
            .p = *p, .f = s->fields,
            .a = s->pic[a][0].data, .sa = s->pic[a][0].pitch,
            .b = s->pic[b][0].data, .sb = s->pic[b][0].pitch,
        };
        err = launch(s, s->f_select, (p->cw * p->ch + MCFPS_CUDA_SELECT_CELLS - 1) / MCFPS_CUDA_SELECT_CELLS,
                     1, MCFPS_CUDA_SELECT_THREADS, 1, &ca);
    }
    for (int i = 0; i < s->f.nb_planes && err >= 0; i++) {
        const int k = s->f.plane[i], o = s->f.offset[i];
        McfpsCudaPlaneArgs pa = {
            .p = *p, .f = s->fields,
            .a = s->pic[a][k].data + o, .sa = s->pic[a][k].pitch,
            .b = s->pic[b][k].data + o, .sb = s->pic[b][k].pitch,
            .dst = (hw ? (CUdeviceptr)out->data[k] : s->own[MCFPS_SLOTS][k]) + o,
            .sd  = hw ? out->linesize[k] : s->own_pitch[k],
            .step = s->f.step[i],
            .pw = s->f.w[i], .ph = s->f.h[i], .lx = s->f.lx[i], .ly = s->f.ly[i],
        };
        if (mode == MCFPS_MODE_MC)
            err = launch(s, s->f_render,
                         (pa.pw + (MCFPS_CELL / 2 >> pa.lx) + MCFPS_CUDA_RENDER_W - 1) / MCFPS_CUDA_RENDER_W,
                         (pa.ph + (MCFPS_CELL / 2 >> pa.ly) + MCFPS_CUDA_RENDER_H - 1) / MCFPS_CUDA_RENDER_H,
                         MCFPS_CUDA_RENDER_W, MCFPS_CUDA_RENDER_H, &pa);
        else
            err = launch(s, s->f_blend, FFALIGN(pa.pw, 32) / 32, FFALIGN(pa.ph, RENDER_ROWS) / RENDER_ROWS,
                         32, RENDER_ROWS, &pa);
    }
    if (err >= 0 && !hw)
        err = ff_gpume_cuda_staging_get(s->host.note_ctx, s->cu, &s->down, s->frame_size);
    for (int k = 0; k < s->f.nb_frame_planes && err >= 0 && !hw; k++)
        err = copy_plane(s, k, CU_MEMORYTYPE_DEVICE, NULL, s->own[MCFPS_SLOTS][k], s->own_pitch[k],
                         CU_MEMORYTYPE_HOST, s->down.data + s->plane_offset[k], 0, s->f.fw[k]);
    /* a hardware frame is read on the device's stream next; a software one
     * by the host, after finish() */
    if (err >= 0 && hw)
        err = wait_for(s, s->hwctx->stream, s->stream);
    if (err >= 0 && !hw)
        err = CHECK_CU(s->cu->cuEventRecord(s->rendered, s->stream));
    if (err >= 0 && !hw)
        s->rendering = out;
    /* after a failure the caller frees out: the kernels that write it end first */
    if (err < 0 && hw)
        s->cu->cuStreamSynchronize(s->stream);
    CHECK_CU(s->cu->cuCtxPopCurrent(&dummy));
    return err;
}

static int cuda_finish(void *priv)
{
    McfpsCUDAContext *s = priv;
    CUcontext dummy;
    int err = CHECK_CU(s->cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
    if (err < 0)
        return err;
    err = finish_rendering(s);
    CHECK_CU(s->cu->cuCtxPopCurrent(&dummy));
    return err;
}

const McfpsBackend ff_mcfps_backend_cuda = {
    .name      = "cuda",
    .priv_size = sizeof(McfpsCUDAContext),
    .init      = cuda_init,
    .load      = cuda_load,
    .fields    = cuda_fields,
    .check     = cuda_check,
    .render    = cuda_render,
    .finish    = cuda_finish,
    .uninit    = cuda_uninit,
};
