/*
 * mcfps: OpenCL backend (host side). Kernels in opencl/mcfps.cl, built from
 * two source strings: libavfilter/mcfps.h (embedded as opencl/mcfps_h.cl by
 * tools/overlay.sh) and opencl/mcfps.cl.
 *
 * Every frame plane of the three pictures (P, A, B) and of the result is a
 * buffer of its own, rows packed (pitch = McfpsFormat.fw, the two chroma
 * planes of nv12 interleaved in one). Software frames are written into them and the
 * result read back; AV_PIX_FMT_OPENCL frames (one image2d_t per frame plane,
 * CL_RG for nv12's chroma) are copied image to buffer and back on the
 * device, so hardware frames never pass through the host.
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

#include "opencl.h"     /* first: it enables the OpenCL 1.2 API */

#include "libavutil/hwcontext.h"
#include "libavutil/hwcontext_opencl.h"
#include "libavutil/macros.h"
#include "libavutil/mem.h"

#include "gpume_opencl_program.h"
#include "mcfps_backend.h"

extern const char *ff_source_mcfps_h_cl;
extern const char *ff_source_mcfps_cl;

#define WIN_PX (MCFPS_WIN * MCFPS_WIN)

typedef struct McfpsOpenCLContext {
    McfpsHost host;
    McfpsFormat f;
    int cells;

    AVBufferRef *device_ref;
    AVOpenCLDeviceContext *hwctx;
    cl_command_queue queue;
    cl_program program;
    cl_kernel k_smooth, k_select, k_render, k_blend, k_check, k_trust;

    cl_mem pic[MCFPS_SLOTS][MCFPS_MAX_PLANES];  ///< the slots' frame planes, packed rows
    cl_mem out[MCFPS_MAX_PLANES];       ///< the result's
    cl_mem ra, rb, fa, fb, vec, info;
    cl_mem fp;                          ///< the previous pair's fb (P -> A), for the bend
    cl_mem d, part, trust;              ///< the motion check's field, sums per group, and trust
    int parts_w, parts_h;               ///< mcfps_check's groups
} McfpsOpenCLContext;

static av_cold void ocl_uninit(void *priv)
{
    McfpsOpenCLContext *s = priv;
    void *avctx = s->host.log_ctx;
    cl_int cle;

    if (s->queue)
        clFinish(s->queue);
    CL_RELEASE_KERNEL(s->k_smooth);
    CL_RELEASE_KERNEL(s->k_select);
    CL_RELEASE_KERNEL(s->k_render);
    CL_RELEASE_KERNEL(s->k_blend);
    CL_RELEASE_KERNEL(s->k_check);
    CL_RELEASE_KERNEL(s->k_trust);
    if (s->program)
        clReleaseProgram(s->program);
    for (int i = 0; i < MCFPS_MAX_PLANES; i++) {
        for (int k = 0; k < MCFPS_SLOTS; k++)
            CL_RELEASE_MEMORY(s->pic[k][i]);
        CL_RELEASE_MEMORY(s->out[i]);
    }
    CL_RELEASE_MEMORY(s->ra);
    CL_RELEASE_MEMORY(s->rb);
    CL_RELEASE_MEMORY(s->fa);
    CL_RELEASE_MEMORY(s->fb);
    CL_RELEASE_MEMORY(s->fp);
    CL_RELEASE_MEMORY(s->vec);
    CL_RELEASE_MEMORY(s->info);
    CL_RELEASE_MEMORY(s->d);
    CL_RELEASE_MEMORY(s->part);
    CL_RELEASE_MEMORY(s->trust);
    CL_RELEASE_QUEUE(s->queue);
    av_buffer_unref(&s->device_ref);
    memset(s, 0, sizeof(*s));
}

/* work-groups of mcfps_smooth (cells) and of mcfps_render and mcfps_blend (samples) */
#define SMOOTH_W 16
#define SMOOTH_H 8
#define PLANE_W  32
#define PLANE_H  8

static int build_program(McfpsOpenCLContext *s)
{
    void *avctx = s->host.log_ctx;
    const cl_device_id dev = s->hwctx->device_id;
    const char *src[] = { ff_source_mcfps_h_cl, ff_source_mcfps_cl };
    int err;

    if ((err = ff_gpume_opencl_build(avctx, s->hwctx->context, dev, src, FF_ARRAY_ELEMS(src),
                                     "-cl-std=CL1.2", &s->program)) < 0 ||
        (err = ff_gpume_opencl_kernel(avctx, s->program, dev, "mcfps_smooth", SMOOTH_W * SMOOTH_H,
                                      &s->k_smooth)) < 0 ||
        (err = ff_gpume_opencl_kernel(avctx, s->program, dev, "mcfps_select", WIN_PX, &s->k_select)) < 0 ||
        (err = ff_gpume_opencl_kernel(avctx, s->program, dev, "mcfps_render", PLANE_W * PLANE_H,
                                      &s->k_render)) < 0 ||
        (err = ff_gpume_opencl_kernel(avctx, s->program, dev, "mcfps_check",
                                      MCFPS_CHECK_GROUP_W * MCFPS_CHECK_GROUP_H, &s->k_check)) < 0 ||
        (err = ff_gpume_opencl_kernel(avctx, s->program, dev, "mcfps_trust_sum", MCFPS_TRUST_GROUP,
                                      &s->k_trust)) < 0)
        return err;
    return ff_gpume_opencl_kernel(avctx, s->program, dev, "mcfps_blend", PLANE_W * PLANE_H, &s->k_blend);
}

static cl_mem alloc_buffer(McfpsOpenCLContext *s, size_t size, int *err)
{
    cl_int cle;
    cl_mem m = clCreateBuffer(s->hwctx->context, CL_MEM_READ_WRITE, FFMAX(size, 1), NULL, &cle);
    if (!m) {
        av_log(s->host.log_ctx, AV_LOG_ERROR, "failed to allocate %zu bytes of OpenCL memory: %d\n",
               size, cle);
        *err = ff_gpume_opencl_error(cle);
    }
    return m;
}

/** Full trust for the pairs without a check (and until the first). */
static int full_trust(McfpsOpenCLContext *s)
{
    void *avctx = s->host.log_ctx;
    const cl_int full = MCFPS_PHI_ONE;
    cl_int cle;
    int err = 0;

    cle = clEnqueueWriteBuffer(s->queue, s->trust, CL_TRUE, 0, sizeof(full), &full, 0, NULL, NULL);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to set the trust: %d\n", cle);
fail:
    return err;
}

static av_cold int ocl_init(void *priv, const McfpsHost *host, const McfpsFormat *f)
{
    McfpsOpenCLContext *s = priv;
    void *avctx = host->log_ctx;
    const size_t cells = (size_t)((f->width + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2) *
                         ((f->height + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2);
    int err = 0;

    s->host  = *host;
    s->f     = *f;
    s->cells = cells;
    /* the device layer (gpume_device.c) opened the device */
    err = ff_gpume_opencl_open(avctx, host->hw_device, &s->device_ref, &s->hwctx, &s->queue);
    if (err < 0)
        goto fail;
    if ((err = build_program(s)) < 0)
        goto fail;
    for (int k = 0; k < f->nb_frame_planes; k++) {
        const size_t size = (size_t)f->fw[k] * f->fh[k];
        for (int n = 0; n < MCFPS_SLOTS; n++)
            if (!(s->pic[n][k] = alloc_buffer(s, size, &err)))
                goto fail;
        if (!(s->out[k] = alloc_buffer(s, size, &err)))
            goto fail;
    }
    s->parts_w = ff_mcfps_check_groups(f->width, MCFPS_CHECK_GROUP_W);
    s->parts_h = ff_mcfps_check_groups(f->height, MCFPS_CHECK_GROUP_H);
    if (!(s->ra   = alloc_buffer(s, cells * 2 * sizeof(int16_t), &err)) ||
        !(s->rb   = alloc_buffer(s, cells * 2 * sizeof(int16_t), &err)) ||
        !(s->fa   = alloc_buffer(s, cells * 2 * sizeof(int16_t), &err)) ||
        !(s->fb   = alloc_buffer(s, cells * 2 * sizeof(int16_t), &err)) ||
        !(s->fp   = alloc_buffer(s, cells * 2 * sizeof(int16_t), &err)) ||
        !(s->vec  = alloc_buffer(s, cells * MCFPS_VEC_N * sizeof(int16_t), &err)) ||
        !(s->info = alloc_buffer(s, cells * sizeof(uint16_t), &err)) ||
        !(s->d     = alloc_buffer(s, cells * 2 * sizeof(int16_t), &err)) ||
        !(s->part  = alloc_buffer(s, (size_t)s->parts_w * s->parts_h * 2 * sizeof(cl_uint), &err)) ||
        !(s->trust = alloc_buffer(s, sizeof(cl_int), &err)) ||
        (err = full_trust(s)) < 0)
        goto fail;
    return 0;
fail:
    ocl_uninit(s);
    return err;
}

/** Write or read (write set) frame plane i of a software frame to or from buffer m, packed rows. */
static int transfer_plane(McfpsOpenCLContext *s, cl_mem m, int i, const AVFrame *frame, int write)
{
    void *avctx = s->host.log_ctx;
    const int w = s->f.fw[i], h = s->f.fh[i];
    cl_int cle;
    int err = 0;

    if (frame->linesize[i] >= 0) {
        const size_t origin[3] = { 0, 0, 0 }, region[3] = { w, h, 1 };
        if (write)
            cle = clEnqueueWriteBufferRect(s->queue, m, CL_TRUE, origin, origin, region, w, 0,
                                           frame->linesize[i], 0, frame->data[i], 0, NULL, NULL);
        else
            cle = clEnqueueReadBufferRect(s->queue, m, CL_TRUE, origin, origin, region, w, 0,
                                          frame->linesize[i], 0, frame->data[i], 0, NULL, NULL);
        CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to transfer plane %d: %d\n", i, cle);
    } else {
        for (int y = 0; y < h; y++) {
            uint8_t *row = frame->data[i] + (ptrdiff_t)y * frame->linesize[i];
            if (write)
                cle = clEnqueueWriteBuffer(s->queue, m, CL_FALSE, (size_t)y * w, w, row, 0, NULL, NULL);
            else
                cle = clEnqueueReadBuffer(s->queue, m, CL_FALSE, (size_t)y * w, w, row, 0, NULL, NULL);
            if (cle != CL_SUCCESS)
                break;
        }
        /* the rows enqueued so far are done before the caller may free the frame */
        if (cle == CL_SUCCESS)
            cle = clFinish(s->queue);
        else
            clFinish(s->queue);
        CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to transfer plane %d: %d\n", i, cle);
    }
fail:
    return err;
}

/** Width in pixels of the image of frame plane i of an AV_PIX_FMT_OPENCL frame. */
static size_t image_width(const McfpsFormat *f, int i)
{
    return f->fw[i] / f->fstep[i];
}

static int ocl_load(void *priv, int slot, const AVFrame *frame)
{
    McfpsOpenCLContext *s = priv;
    void *avctx = s->host.log_ctx;
    cl_int cle;
    int err = 0;

    if (!ff_mcfps_slot_valid(slot) || frame->width != s->f.width || frame->height != s->f.height)
        return AVERROR(EINVAL);
    for (int i = 0; i < s->f.nb_frame_planes; i++) {
        if (frame->format == AV_PIX_FMT_OPENCL) {
            const size_t origin[3] = { 0, 0, 0 }, region[3] = { image_width(&s->f, i), s->f.fh[i], 1 };
            cle = clEnqueueCopyImageToBuffer(s->queue, (cl_mem)frame->data[i], s->pic[slot][i],
                                             origin, region, 0, 0, NULL, NULL);
            CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to copy image plane %d: %d\n", i, cle);
        } else if ((err = transfer_plane(s, s->pic[slot][i], i, frame, 1)) < 0) {
            return err;
        }
    }
    if (frame->format == AV_PIX_FMT_OPENCL) {
        /* the frame's images go back to their pool once the caller lets go */
        cle = clFinish(s->queue);
        CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to copy the frame: %d\n", cle);
    }
fail:
    /* after a failed copy too, none queued before it reads the images
     * once they are back in their pool */
    if (err < 0 && frame->format == AV_PIX_FMT_OPENCL)
        clFinish(s->queue);
    return err;
}

static int ocl_fields(void *priv, const McfpsParams *p, const int16_t *ra, const int16_t *rb)
{
    McfpsOpenCLContext *s = priv;
    void *avctx = s->host.log_ctx;
    const size_t size = (size_t)p->cw * p->ch * 2 * sizeof(*ra);
    const size_t local[2]  = { SMOOTH_W, SMOOTH_H };
    const size_t global[2] = { FFALIGN(p->cw, SMOOTH_W), FFALIGN(p->ch, SMOOTH_H) };
    cl_mem swap = s->fp;
    cl_int cle;
    int err = 0;

    if ((size_t)p->cw * p->ch > (size_t)s->cells)
        return AVERROR(EINVAL);
    /* the last pair's smoothed B field is this one's P -> A */
    s->fp = s->fb;
    s->fb = swap;
    /* blocking: the caller reuses its arrays */
    cle = clEnqueueWriteBuffer(s->queue, s->ra, CL_TRUE, 0, size, ra, 0, NULL, NULL);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to upload the vector fields: %d\n", cle);
    cle = clEnqueueWriteBuffer(s->queue, s->rb, CL_TRUE, 0, size, rb, 0, NULL, NULL);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to upload the vector fields: %d\n", cle);
    CL_SET_KERNEL_ARG(s->k_smooth, 0, cl_mem, &s->ra);
    CL_SET_KERNEL_ARG(s->k_smooth, 1, cl_mem, &s->rb);
    CL_SET_KERNEL_ARG(s->k_smooth, 2, cl_mem, &s->fa);
    CL_SET_KERNEL_ARG(s->k_smooth, 3, cl_mem, &s->fb);
    CL_SET_KERNEL_ARG(s->k_smooth, 4, cl_int, &p->cw);
    CL_SET_KERNEL_ARG(s->k_smooth, 5, cl_int, &p->ch);
    cle = clEnqueueNDRangeKernel(s->queue, s->k_smooth, 2, NULL, global, local, 0, NULL, NULL);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to enqueue mcfps_smooth: %d\n", cle);
fail:
    return err;
}

static int ocl_check(void *priv, const McfpsParams *p, const int16_t *d, int phi, int prev, int a, int b)
{
    McfpsOpenCLContext *s = priv;
    void *avctx = s->host.log_ctx;
    const size_t size = (size_t)p->cw * p->ch * 2 * sizeof(*d);
    const size_t local[2]  = { MCFPS_CHECK_GROUP_W, MCFPS_CHECK_GROUP_H };
    const size_t global[2] = { MCFPS_CHECK_GROUP_W * s->parts_w, MCFPS_CHECK_GROUP_H * s->parts_h };
    const size_t local1 = MCFPS_TRUST_GROUP;
    const cl_int nb_parts = s->parts_w * s->parts_h;
    cl_int cle;
    int err = 0;

    if ((size_t)p->cw * p->ch > (size_t)s->cells || !ff_mcfps_slot_valid(prev) ||
        !ff_mcfps_slot_valid(a) || !ff_mcfps_slot_valid(b))
        return AVERROR(EINVAL);
    if (!d)
        return full_trust(s);
    /* blocking: the caller reuses its array */
    cle = clEnqueueWriteBuffer(s->queue, s->d, CL_TRUE, 0, size, d, 0, NULL, NULL);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to upload the motion check's field: %d\n", cle);
    CL_SET_KERNEL_ARG(s->k_check, 0, McfpsParams, p);
    CL_SET_KERNEL_ARG(s->k_check, 1, cl_mem, &s->d);
    CL_SET_KERNEL_ARG(s->k_check, 2, cl_int, &phi);
    CL_SET_KERNEL_ARG(s->k_check, 3, cl_mem, &s->pic[prev][0]);
    CL_SET_KERNEL_ARG(s->k_check, 4, cl_mem, &s->pic[a][0]);
    CL_SET_KERNEL_ARG(s->k_check, 5, cl_mem, &s->pic[b][0]);
    CL_SET_KERNEL_ARG(s->k_check, 6, cl_mem, &s->part);
    cle = clEnqueueNDRangeKernel(s->queue, s->k_check, 2, NULL, global, local, 0, NULL, NULL);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to enqueue mcfps_check: %d\n", cle);
    CL_SET_KERNEL_ARG(s->k_trust, 0, cl_mem, &s->part);
    CL_SET_KERNEL_ARG(s->k_trust, 1, cl_int, &nb_parts);
    CL_SET_KERNEL_ARG(s->k_trust, 2, cl_mem, &s->trust);
    cle = clEnqueueNDRangeKernel(s->queue, s->k_trust, 1, NULL, &local1, &local1, 0, NULL, NULL);
    CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to enqueue mcfps_trust_sum: %d\n", cle);
fail:
    return err;
}

static int ocl_render(void *priv, const McfpsParams *p, int mode, int a, int b, AVFrame *out)
{
    McfpsOpenCLContext *s = priv;
    void *avctx = s->host.log_ctx;
    const int hw = out->format == AV_PIX_FMT_OPENCL;
    cl_int cle;
    int err = 0;

    if (!ff_mcfps_slot_valid(a) || !ff_mcfps_slot_valid(b) || p->width != s->f.width || p->height != s->f.height)
        return AVERROR(EINVAL);
    if (mode == MCFPS_MODE_MC) {
        const size_t local = WIN_PX, global = (size_t)p->cw * p->ch * WIN_PX;
        const cl_int sa = p->width;
        int arg = 0;
        CL_SET_KERNEL_ARG(s->k_select, arg++, McfpsParams, p);
        CL_SET_KERNEL_ARG(s->k_select, arg++, cl_mem, &s->pic[a][0]);
        CL_SET_KERNEL_ARG(s->k_select, arg++, cl_int, &sa);
        CL_SET_KERNEL_ARG(s->k_select, arg++, cl_mem, &s->pic[b][0]);
        CL_SET_KERNEL_ARG(s->k_select, arg++, cl_int, &sa);
        CL_SET_KERNEL_ARG(s->k_select, arg++, cl_mem, &s->ra);
        CL_SET_KERNEL_ARG(s->k_select, arg++, cl_mem, &s->rb);
        CL_SET_KERNEL_ARG(s->k_select, arg++, cl_mem, &s->fa);
        CL_SET_KERNEL_ARG(s->k_select, arg++, cl_mem, &s->fb);
        CL_SET_KERNEL_ARG(s->k_select, arg++, cl_mem, &s->fp);
        CL_SET_KERNEL_ARG(s->k_select, arg++, cl_mem, &s->vec);
        CL_SET_KERNEL_ARG(s->k_select, arg++, cl_mem, &s->info);
        CL_SET_KERNEL_ARG(s->k_select, arg++, cl_mem, &s->trust);
        cle = clSetKernelArg(s->k_select, arg, WIN_PX * sizeof(cl_uint), NULL);
        CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to set the local memory of mcfps_select: %d\n", cle);
        cle = clEnqueueNDRangeKernel(s->queue, s->k_select, 1, NULL, &global, &local, 0, NULL, NULL);
        CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to enqueue mcfps_select: %d\n", cle);
    }
    for (int i = 0; i < s->f.nb_planes; i++) {
        const size_t local[2]  = { PLANE_W, PLANE_H };
        const size_t global[2] = { FFALIGN(s->f.w[i], PLANE_W), FFALIGN(s->f.h[i], PLANE_H) };
        const int fp = s->f.plane[i];
        const cl_int pw = s->f.w[i], ph = s->f.h[i], lx = s->f.lx[i], ly = s->f.ly[i];
        const cl_int pitch = s->f.fw[fp], off = s->f.offset[i], step = s->f.step[i];
        const cl_kernel k = mode == MCFPS_MODE_MC ? s->k_render : s->k_blend;
        int arg = 0;
        /* mcfps_blend's arguments are mcfps_render's first ones */
        CL_SET_KERNEL_ARG(k, arg++, McfpsParams, p);
        CL_SET_KERNEL_ARG(k, arg++, cl_mem, &s->pic[a][fp]);
        CL_SET_KERNEL_ARG(k, arg++, cl_int, &pitch);
        CL_SET_KERNEL_ARG(k, arg++, cl_mem, &s->pic[b][fp]);
        CL_SET_KERNEL_ARG(k, arg++, cl_int, &pitch);
        CL_SET_KERNEL_ARG(k, arg++, cl_mem, &s->out[fp]);
        CL_SET_KERNEL_ARG(k, arg++, cl_int, &pitch);
        CL_SET_KERNEL_ARG(k, arg++, cl_int, &off);
        CL_SET_KERNEL_ARG(k, arg++, cl_int, &step);
        CL_SET_KERNEL_ARG(k, arg++, cl_int, &pw);
        CL_SET_KERNEL_ARG(k, arg++, cl_int, &ph);
        if (mode == MCFPS_MODE_MC) {
            CL_SET_KERNEL_ARG(k, arg++, cl_int, &lx);
            CL_SET_KERNEL_ARG(k, arg++, cl_int, &ly);
            CL_SET_KERNEL_ARG(k, arg++, cl_mem, &s->vec);
            CL_SET_KERNEL_ARG(k, arg++, cl_mem, &s->info);
        }
        cle = clEnqueueNDRangeKernel(s->queue, k, 2, NULL, global, local, 0, NULL, NULL);
        CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to enqueue the plane kernel: %d\n", cle);
    }
    for (int i = 0; i < s->f.nb_frame_planes; i++) {
        if (hw) {
            const size_t origin[3] = { 0, 0, 0 }, region[3] = { image_width(&s->f, i), s->f.fh[i], 1 };
            cle = clEnqueueCopyBufferToImage(s->queue, s->out[i], (cl_mem)out->data[i], 0,
                                             origin, region, 0, NULL, NULL);
            CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to copy plane %d to its image: %d\n", i, cle);
        } else if ((err = transfer_plane(s, s->out[i], i, out, 0)) < 0) {
            return err;
        }
    }
    if (hw) {
        /* other filters read the frame on queues of their own */
        cle = clFinish(s->queue);
        CL_FAIL_ON_ERROR(AVERROR(EIO), "failed to finish the frame: %d\n", cle);
    }
fail:
    /* after a failed step too, nothing queued writes out's images once
     * the caller has freed it */
    if (err < 0 && hw)
        clFinish(s->queue);
    return err;
}

const McfpsBackend ff_mcfps_backend_opencl = {
    .name      = "opencl",
    .priv_size = sizeof(McfpsOpenCLContext),
    .init      = ocl_init,
    .load      = ocl_load,
    .fields    = ocl_fields,
    .check     = ocl_check,
    .render    = ocl_render,
    .uninit    = ocl_uninit,
};
