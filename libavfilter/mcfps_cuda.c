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
#include "mcfps_backend.h"
#include "mcfps_cuda.h"

extern const unsigned char ff_mcfps_ptx_data[];
extern const unsigned int ff_mcfps_ptx_len;

/** A plane on the device. */
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
    CUstream stream;
    CUmodule module;
    CUfunction f_smooth, f_select, f_render, f_blend;

    CUdeviceptr own[3][MCFPS_MAX_PLANES];       ///< planes of slots 0, 1 and of the result, for software frames
    int own_pitch[MCFPS_MAX_PLANES];
    McfpsCudaPlane pic[2][MCFPS_MAX_PLANES];    ///< what slot i reads: own planes or a frame's
    AVFrame *held[2];                           ///< the hardware frame of slot i, or blank
    McfpsCudaFields fields;
} McfpsCUDAContext;

#define CHECK_CU(x) FF_CUDA_CHECK_DL(s->host.log_ctx, s->cu, x)

static void cuda_uninit(void *priv)
{
    McfpsCUDAContext *s = priv;
    CUcontext dummy;

    if (s->hwctx) {
        CudaFunctions *cu = s->cu;
        const uint64_t bufs[] = { s->fields.ra, s->fields.rb, s->fields.fa, s->fields.fb,
                                  s->fields.vec, s->fields.info };
        CHECK_CU(cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
        CHECK_CU(cu->cuStreamSynchronize(s->stream));
        for (int k = 0; k < 3; k++)
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
    av_frame_free(&s->held[0]);
    av_frame_free(&s->held[1]);
    av_buffer_unref(&s->device_ref);
    memset(s, 0, sizeof(*s));
}

static int cuda_init(void *priv, const McfpsHost *host, const McfpsFormat *f)
{
    McfpsCUDAContext *s = priv;
    CUcontext dummy;
    CudaFunctions *cu;
    int err;

    s->host  = *host;
    s->f     = *f;
    s->cells = (size_t)((f->width + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2) *
               ((f->height + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2);

    /* the device layer (gpume_device.c) opened the device */
    if (!host->hw_device ||
        ((AVHWDeviceContext *)host->hw_device->data)->type != AV_HWDEVICE_TYPE_CUDA)
        return AVERROR(EINVAL);
    s->held[0] = av_frame_alloc();
    s->held[1] = av_frame_alloc();
    s->device_ref = av_buffer_ref(host->hw_device);
    if (!s->held[0] || !s->held[1] || !s->device_ref) {
        cuda_uninit(s);
        return AVERROR(ENOMEM);
    }
    s->hwctx  = ((AVHWDeviceContext *)s->device_ref->data)->hwctx;
    s->cu     = cu = s->hwctx->internal->cuda_dl;
    s->stream = s->hwctx->stream;

    err = CHECK_CU(cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
    if (err < 0) {
        s->hwctx = NULL;
        cuda_uninit(s);
        return err;
    }
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
#undef GET_FUNC

    for (int i = 0; i < f->nb_planes; i++) {
        s->own_pitch[i] = FFALIGN(f->w[i], 256);
        for (int k = 0; k < 3; k++) {
            err = CHECK_CU(cu->cuMemAlloc(&s->own[k][i], (size_t)s->own_pitch[i] * f->h[i]));
            if (err < 0)
                goto fail;
        }
    }
    {
        uint64_t *bufs[] = { &s->fields.ra, &s->fields.rb, &s->fields.fa, &s->fields.fb,
                             &s->fields.vec, &s->fields.info };
        for (int i = 0; i < FF_ARRAY_ELEMS(bufs); i++) {
            CUdeviceptr m = 0;
            err = CHECK_CU(cu->cuMemAlloc(&m, s->cells * 2 * sizeof(int16_t)));
            *bufs[i] = m;
            if (err < 0)
                goto fail;
        }
    }
    CHECK_CU(cu->cuCtxPopCurrent(&dummy));
    return 0;
fail:
    CHECK_CU(cu->cuCtxPopCurrent(&dummy));
    cuda_uninit(s);
    return err;
}

/** 2D copy of plane i between host or device memory and device memory, on the stream. */
static int copy_plane(McfpsCUDAContext *s, int i, CUmemorytype src_type, const void *src_host,
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
        .WidthInBytes  = s->f.w[i],
        .Height        = s->f.h[i],
    };
    /* from pageable memory the call returns once the source is staged, so
     * the frame may go as soon as it returns */
    return CHECK_CU(s->cu->cuMemcpy2DAsync(&cpy, s->stream));
}

static int cuda_load(void *priv, int slot, const AVFrame *frame)
{
    McfpsCUDAContext *s = priv;
    CUcontext dummy;
    int err;

    if (slot < 0 || slot > 1 || frame->width != s->f.width || frame->height != s->f.height)
        return AVERROR(EINVAL);
    av_frame_unref(s->held[slot]);
    if (frame->format == AV_PIX_FMT_CUDA) {
        /* read in place: the frame stays referenced while the slot holds it */
        err = av_frame_ref(s->held[slot], frame);
        if (err < 0)
            return err;
        for (int i = 0; i < s->f.nb_planes; i++)
            s->pic[slot][i] = (McfpsCudaPlane) { (CUdeviceptr)frame->data[i], frame->linesize[i] };
        return 0;
    }
    if (frame->hw_frames_ctx)
        return AVERROR(EINVAL);
    err = CHECK_CU(s->cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
    if (err < 0)
        return err;
    for (int i = 0; i < s->f.nb_planes && err >= 0; i++) {
        const int ls = frame->linesize[i];
        const uint8_t *src = frame->data[i];
        s->pic[slot][i] = (McfpsCudaPlane) { s->own[slot][i], s->own_pitch[i] };
        if (ls < 0) {
            /* bottom-up rows: copy them one by one */
            for (int y = 0; y < s->f.h[i] && err >= 0; y++)
                err = CHECK_CU(s->cu->cuMemcpyHtoDAsync(s->own[slot][i] + (size_t)y * s->own_pitch[i],
                                                        src + (ptrdiff_t)y * ls, s->f.w[i], s->stream));
        } else {
            err = copy_plane(s, i, CU_MEMORYTYPE_HOST, src, 0, ls,
                             CU_MEMORYTYPE_DEVICE, NULL, s->own[slot][i], s->own_pitch[i]);
        }
    }
    CHECK_CU(s->cu->cuCtxPopCurrent(&dummy));
    return err;
}

static int launch(McfpsCUDAContext *s, CUfunction f, int gx, int gy, int bx, int by, void *arg)
{
    void *args[] = { arg };
    return CHECK_CU(s->cu->cuLaunchKernel(f, gx, gy, 1, bx, by, 1, 0, s->stream, args, NULL));
}

static int cuda_fields(void *priv, const McfpsParams *p, const int16_t *ra, const int16_t *rb)
{
    McfpsCUDAContext *s = priv;
    const size_t size = (size_t)p->cw * p->ch * 2 * sizeof(*ra);
    McfpsCudaCellArgs a = { .p = *p, .f = s->fields };
    CUcontext dummy;
    int err;

    if ((size_t)p->cw * p->ch > s->cells)
        return AVERROR(EINVAL);
    err = CHECK_CU(s->cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
    if (err < 0)
        return err;
    /* pageable sources: staged before the calls return */
    err = CHECK_CU(s->cu->cuMemcpyHtoDAsync(s->fields.ra, ra, size, s->stream));
    if (err >= 0)
        err = CHECK_CU(s->cu->cuMemcpyHtoDAsync(s->fields.rb, rb, size, s->stream));
    if (err >= 0)
        err = launch(s, s->f_smooth, FFALIGN(p->cw, 16) / 16, FFALIGN(p->ch, 8) / 8, 16, 8, &a);
    CHECK_CU(s->cu->cuCtxPopCurrent(&dummy));
    return err;
}

static int cuda_render(void *priv, const McfpsParams *p, int mode, int a, int b, AVFrame *out)
{
    McfpsCUDAContext *s = priv;
    const int hw = out->format == AV_PIX_FMT_CUDA;
    CUcontext dummy;
    int err;

    if (a < 0 || a > 1 || b < 0 || b > 1 || p->width != s->f.width || p->height != s->f.height ||
        (!hw && out->hw_frames_ctx))
        return AVERROR(EINVAL);
    err = CHECK_CU(s->cu->cuCtxPushCurrent(s->hwctx->cuda_ctx));
    if (err < 0)
        return err;
    if (mode == MCFPS_MODE_MC) {
        McfpsCudaCellArgs ca = {
            .p = *p, .f = s->fields,
            .a = s->pic[a][0].data, .sa = s->pic[a][0].pitch,
            .b = s->pic[b][0].data, .sb = s->pic[b][0].pitch,
        };
        err = launch(s, s->f_select, (p->cw * p->ch + MCFPS_CUDA_SELECT_CELLS - 1) / MCFPS_CUDA_SELECT_CELLS,
                     1, MCFPS_CUDA_SELECT_THREADS, 1, &ca);
    }
    for (int i = 0; i < s->f.nb_planes && err >= 0; i++) {
        McfpsCudaPlaneArgs pa = {
            .p = *p, .f = s->fields,
            .a = s->pic[a][i].data, .sa = s->pic[a][i].pitch,
            .b = s->pic[b][i].data, .sb = s->pic[b][i].pitch,
            .dst = hw ? (CUdeviceptr)out->data[i] : s->own[2][i],
            .sd  = hw ? out->linesize[i] : s->own_pitch[i],
            .pw = s->f.w[i], .ph = s->f.h[i], .lx = s->f.lx[i], .ly = s->f.ly[i],
        };
        err = launch(s, mode == MCFPS_MODE_MC ? s->f_render : s->f_blend,
                     FFALIGN(pa.pw, 32) / 32, FFALIGN(pa.ph, 8) / 8, 32, 8, &pa);
        if (err >= 0 && !hw) {
            const int ls = out->linesize[i];
            if (ls < 0) {
                for (int y = 0; y < pa.ph && err >= 0; y++)
                    err = CHECK_CU(s->cu->cuMemcpyDtoHAsync(out->data[i] + (ptrdiff_t)y * ls,
                                                            pa.dst + (size_t)y * pa.sd, pa.pw, s->stream));
            } else {
                err = copy_plane(s, i, CU_MEMORYTYPE_DEVICE, NULL, pa.dst, pa.sd,
                                 CU_MEMORYTYPE_HOST, out->data[i], 0, ls);
            }
        }
    }
    /* a software frame is read by the host next */
    if (err >= 0 && !hw)
        err = CHECK_CU(s->cu->cuStreamSynchronize(s->stream));
    CHECK_CU(s->cu->cuCtxPopCurrent(&dummy));
    return err;
}

const McfpsBackend ff_mcfps_backend_cuda = {
    .name      = "cuda",
    .priv_size = sizeof(McfpsCUDAContext),
    .init      = cuda_init,
    .load      = cuda_load,
    .fields    = cuda_fields,
    .render    = cuda_render,
    .uninit    = cuda_uninit,
};
