/*
 * mcfps tests: every GPU backend against the CPU reference, bit for bit:
 * random, smooth and real frames, several phases, modes mc and blend,
 * odd sizes, every format mcfps takes (planar, and nv12/nv21 with
 * interleaved chroma, on real frames too), fields from forward vectors
 * only and from vectors of both directions, the slots taken in turn as
 * the filter takes them, the motion check (none for the first pair, then
 * of frame 1 between frames 0 and 2 at a random phase), software and
 * hardware frames in and out. A backend whose
 * device cannot be opened is reported as "skipped: no <name> device" and
 * never counts as passed.
 *
 * Usage: mcfps-backendcheck [--backend=cuda|opencl] [--real=FILE.yuv:WxH:N]
 *                           [--quick] [--seed=N] [--filter=SUBSTRING] [--verbose]
 * --real: N >= 3 frames of yuv420p (also converted to nv12). The last line of the output is
 * "N passed, N failed, N skipped".
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/error.h"
#include "libavutil/frame.h"
#include "libavutil/hwcontext.h"
#include "libavutil/log.h"
#include "libavutil/mem.h"
#include "libavutil/motion_vector.h"
#include "libavutil/pixdesc.h"
#include "libavutil/pixfmt.h"
#define BACKEND_TEST_OPENCL MCFPS_TEST_OPENCL
#include "backend_device.h"
#include "libavfilter/mcfps_backend.h"
#include "libavfilter/mcfps_cpu.h"
#include "mcfps_frames.h"

static struct {
    uint64_t rng;
    const char *filter;
    int verbose, quick;
    int passed, failed, skipped;
    const char *real_path;
    int real_w, real_h, real_n;
    uint8_t *real;
} st = { .rng = 0x6d636670u };

static uint32_t rnd(void)
{
    st.rng = st.rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return st.rng >> 33;
}

static int serial_execute(void *opaque, int (*job)(void *, int, int), void *arg, int nb_jobs)
{
    for (int i = 0; i < nb_jobs; i++) {
        int ret = job(arg, i, nb_jobs);
        if (ret < 0)
            return ret;
    }
    return 0;
}

enum Content { CONTENT_RANDOM, CONTENT_SMOOTH, CONTENT_REAL };
static const char *const content_names[] = { "random", "smooth", "real" };

typedef struct Case {
    int w, h;
    enum AVPixelFormat fmt;
    int mode;                   ///< MCFPS_MODE_MC or MCFPS_MODE_BLEND
    int bi;                     ///< vectors of both directions, else forward only
    int lambda, rel_lo, rel_hi;
    int range;                  ///< largest vector component, pixels
    enum Content content;
    int hw_in, hw_out;          ///< hardware frames of the device in, out
    int pad;                    ///< the frames context's frames are pad larger each way (NVDEC's are)
} Case;

/* ------------------------------------------------------------------ frames */

/** Frame n of the case's content: a moving picture, so the vectors mean something. */
static AVFrame *make_frame(const Case *c, int n)
{
    McfpsFormat fm;
    AVFrame *f;

    if (ff_mcfps_format(&fm, c->w, c->h, c->fmt) < 0 || !(f = mcfps_test_frame(c->w, c->h, c->fmt)))
        return NULL;
    for (int i = 0; i < fm.nb_planes; i++) {
        for (int y = 0; y < fm.h[i]; y++) {
            for (int x = 0; x < fm.w[i]; x++) {
                uint8_t *v = mcfps_test_sample(&fm, f, i, x, y);
                switch (c->content) {
                case CONTENT_RANDOM:
                    *v = rnd();
                    break;
                case CONTENT_SMOOTH: {
                    const int X = (x << fm.lx[i]) + 3 * n, Y = (y << fm.ly[i]) + n;
                    *v = (uint8_t)(128 + 60 * ((X * 7 + Y * 3) % 37 - 18) / 18 +
                                   ((X / 5 + Y / 7) & 1) * 40 - 20 + i * 9);
                    break;
                }
                case CONTENT_REAL: {
                    /* yuv420p frames of the file, other planes from luma */
                    const int fn = n % st.real_n;
                    const size_t fsize = (size_t)st.real_w * st.real_h * 3 / 2;
                    const uint8_t *fr = st.real + fn * fsize;
                    const int X = FFMIN((x << fm.lx[i]), st.real_w - 1);
                    const int Y = FFMIN((y << fm.ly[i]), st.real_h - 1);
                    if (i == 1 || i == 2) {
                        const uint8_t *pl = fr + (size_t)st.real_w * st.real_h +
                                            (i - 1) * (size_t)(st.real_w / 2) * (st.real_h / 2);
                        *v = pl[(size_t)FFMIN(Y / 2, st.real_h / 2 - 1) * (st.real_w / 2) +
                                FFMIN(X / 2, st.real_w / 2 - 1)];
                    } else {
                        *v = fr[(size_t)Y * st.real_w + X];
                    }
                    break;
                }
                }
            }
        }
    }
    return f;
}

/** A frames context of dev for the case, or NULL (the device does not take the format). */
static AVBufferRef *frames_for(AVBufferRef *dev, const Case *c)
{
    const int opencl = ((AVHWDeviceContext *)dev->data)->type == AV_HWDEVICE_TYPE_OPENCL;
    AVBufferRef *frames = av_hwframe_ctx_alloc(dev);
    AVHWFramesContext *fc;
    if (!frames)
        return NULL;
    fc = (AVHWFramesContext *)frames->data;
    fc->format    = opencl ? AV_PIX_FMT_OPENCL : AV_PIX_FMT_CUDA;
    fc->sw_format = c->fmt;
    fc->width     = c->w + c->pad;
    fc->height    = c->h + c->pad;
    if (av_hwframe_ctx_init(frames) < 0)
        av_buffer_unref(&frames);
    return frames;
}

/** A hardware frame of the case's size (the top left of a larger one with pad), holding f's pictures if f. */
static AVFrame *to_hw(AVBufferRef *frames, const Case *c, const AVFrame *f)
{
    AVFrame *hw = av_frame_alloc();
    if (!hw || av_hwframe_get_buffer(frames, hw, 0) < 0) {
        av_frame_free(&hw);
        return NULL;
    }
    hw->width  = c->w;
    hw->height = c->h;
    if (f && av_hwframe_transfer_data(hw, f, 0) < 0)
        av_frame_free(&hw);
    return hw;
}

/* -------------------------------------------------------------- the fields */

/**
 * Vectors of frame A into B (source +1) and, with bi, of B into A
 * (source -1) as AVMotionVector arrays of 16x16 blocks with a common motion
 * plus noise and some outliers, turned into raw fields as the filter does.
 */
static int make_fields(const Case *c, McfpsParams *p, int16_t *ra, int16_t *rb)
{
    const int bw = 16, nbx = (c->w + bw - 1) / bw, nby = (c->h + bw - 1) / bw;
    AVMotionVector *mv = av_calloc((size_t)nbx * nby, sizeof(*mv));
    const int gx = (int)(rnd() % (8 * c->range + 1)) - 4 * c->range;
    const int gy = (int)(rnd() % (4 * c->range + 1)) - 2 * c->range;

    if (!mv)
        return AVERROR(ENOMEM);
    for (int dir = 0; dir < (c->bi ? 2 : 1); dir++) {
        for (int j = 0; j < nby; j++) {
            for (int i = 0; i < nbx; i++) {
                AVMotionVector *m = &mv[j * nbx + i];
                int vx = gx + (int)(rnd() % 9) - 4, vy = gy + (int)(rnd() % 9) - 4;
                if (rnd() % 8 == 0) {
                    vx = (int)(rnd() % (16 * c->range + 1)) - 8 * c->range;
                    vy = (int)(rnd() % (16 * c->range + 1)) - 8 * c->range;
                }
                if (rnd() % 16 == 0)
                    vx = vy = 0;
                *m = (AVMotionVector) {
                    .source = dir ? -1 : 1, .w = bw, .h = bw,
                    .dst_x = i * bw + bw / 2, .dst_y = j * bw + bw / 2,
                    /* quarter pel; B's vectors into A point back */
                    .motion_x = dir ? -vx : vx, .motion_y = dir ? -vy : vy, .motion_scale = 4,
                };
                m->src_x = m->dst_x + m->motion_x / 4;
                m->src_y = m->dst_y + m->motion_y / 4;
            }
        }
        if (dir == 0)
            ff_mcfps_raster(mv, nbx * nby, 1, 0, p, ra, NULL);
        else
            ff_mcfps_raster(mv, nbx * nby, -1, 1, p, rb, NULL);
    }
    if (!c->bi)
        memcpy(rb, ra, sizeof(*rb) * 2 * p->cw * p->ch);
    av_free(mv);
    {
        McfpsDominant d = { 0 };
        int err = ff_mcfps_dominant(&d, p, ra, rb, &p->gx, &p->gy);
        ff_mcfps_dominant_uninit(&d);
        return err;
    }
}

/* ---------------------------------------------------------------- the runs */

typedef struct Run {
    const McfpsBackend *be;
    void *priv;
    int ready;
} Run;

static int run_start(Run *r, const McfpsBackend *be, AVBufferRef *dev, const McfpsFormat *f)
{
    const McfpsHost host = { .log_ctx = NULL, .execute = serial_execute, .nb_threads = 3,
                             .hw_device = dev };
    int err;
    r->be   = be;
    r->priv = av_mallocz(be->priv_size);
    if (!r->priv)
        return AVERROR(ENOMEM);
    err = be->init(r->priv, &host, f);
    if (err < 0)
        av_freep(&r->priv);
    r->ready = err >= 0;
    return err;
}

static void run_free(Run *r)
{
    if (r->ready)
        r->be->uninit(r->priv);
    r->ready = 0;
    av_freep(&r->priv);
}

/**
 * Compare the pictures of software frames a and b, every byte of each frame
 * plane's rows; report the first difference (the plane, at its position).
 */
static int same_picture(const McfpsFormat *f, const AVFrame *ref, const AVFrame *out, const char *name)
{
    for (int k = 0; k < f->nb_frame_planes; k++)
        for (int y = 0; y < f->fh[k]; y++) {
            const uint8_t *r = ref->data[k] + (ptrdiff_t)y * ref->linesize[k];
            const uint8_t *o = out->data[k] + (ptrdiff_t)y * out->linesize[k];
            if (memcmp(r, o, f->fw[k])) {
                int x = 0, i = 0;
                while (r[x] == o[x])
                    x++;
                while (i < f->nb_planes - 1 &&
                       (f->plane[i] != k || (x - f->offset[i]) % f->step[i]))
                    i++;
                printf("FAIL %s: plane %d (%d, %d): cpu %d, gpu %d\n", name, i,
                       (x - f->offset[i]) / f->step[i], y, r[x], o[x]);
                return 0;
            }
        }
    return 1;
}

/** 1: pass, 0: fail, 2: skipped (the device has no such frames). */
static int run_case(const McfpsBackend *be, AVBufferRef *dev, const Case *c)
{
    static const int phases[] = { 1, 64, 128, 171, 255 };
    char name[256];
    McfpsFormat fm;
    McfpsParams p;
    Run cpu = { 0 }, gpu = { 0 };
    AVFrame *f[3] = { NULL }, *hwf[3] = { NULL };
    AVBufferRef *frames = NULL;
    int16_t *ra = NULL, *rb = NULL, *d = NULL;
    int ok = 1, err;

    snprintf(name, sizeof(name), "%dx%d %s %s %s lambda=%d rel=%d/%d range=%d %s%s%s%s",
             c->w, c->h, av_get_pix_fmt_name(c->fmt), c->mode == MCFPS_MODE_MC ? "mc" : "blend",
             c->bi ? "bi" : "fwd", c->lambda, c->rel_lo, c->rel_hi, c->range,
             content_names[c->content], c->hw_in ? " hw-in" : "", c->hw_out ? " hw-out" : "",
             c->pad ? " pad" : "");
    if (st.filter && !strstr(name, st.filter))
        return 1;
    if (ff_mcfps_format(&fm, c->w, c->h, c->fmt) < 0) {
        printf("FAIL %s: format\n", name);
        ok = 0;
        goto end;
    }
    p = (McfpsParams) {
        .width = c->w, .height = c->h,
        .cw = (c->w + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2, .ch = (c->h + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2,
        .lambda = c->lambda, .rel_lo = c->rel_lo, .rel_hi = c->rel_hi,
    };
    ra = av_malloc_array(p.cw * p.ch, 2 * sizeof(*ra));
    rb = av_malloc_array(p.cw * p.ch, 2 * sizeof(*rb));
    d  = av_malloc_array(p.cw * p.ch, 2 * sizeof(*d));
    for (int n = 0; n < 3; n++)
        f[n] = make_frame(c, n);
    if (!ra || !rb || !d || !f[0] || !f[1] || !f[2]) {
        printf("FAIL %s: out of memory\n", name);
        ok = 0;
        goto end;
    }
    if (c->hw_in || c->hw_out) {
        AVFrame *probe;
        frames = frames_for(dev, c);
        /* PoCL has no images of odd size with subsampled chroma */
        probe = frames ? to_hw(frames, c, NULL) : NULL;
        if (!probe)
            av_buffer_unref(&frames);
        av_frame_free(&probe);
        if (!frames) {
            /* the device's frames do not come in this format or size */
            printf("note: %s: the device has no hardware frames of this format and size\n", name);
            ok = 2;
            goto end;
        }
        if (((AVHWFramesContext *)frames->data)->device_ctx->type == AV_HWDEVICE_TYPE_CUDA &&
            (c->h & 1) && av_pix_fmt_desc_get(c->fmt)->log2_chroma_h) {
            /* FFmpeg's CUDA frames of an odd height cannot carry the last
             * chroma row (hwcontext_cuda.c): transfers copy height >> 1
             * rows, and yuv420p starts U height / 2 rows after V */
            printf("note: %s: FFmpeg's CUDA frames of an odd height lose the last chroma row\n", name);
            ok = 2;
            goto end;
        }
        for (int n = 0; n < 3 && c->hw_in; n++)
            if (!(hwf[n] = to_hw(frames, c, f[n]))) {
                printf("FAIL %s: cannot upload a frame\n", name);
                ok = 0;
                goto end;
            }
    }
    if ((err = run_start(&cpu, &ff_mcfps_backend_cpu, NULL, &fm)) < 0) {
        printf("FAIL %s: cpu init: %s\n", name, av_err2str(err));
        ok = 0;
        goto end;
    }
    if ((err = run_start(&gpu, be, dev, &fm)) < 0) {
        printf("FAIL %s: %s init: %s\n", name, be->name, av_err2str(err));
        ok = 0;
        goto end;
    }

    /* pairs (0, 1) in slots (0, 1), then (1, 2) in slots (1, 2), frame 0 in
     * slot 0 their P, as the filter takes the slots in turn */
    for (int pair = 0, phi_a; pair < 2 && ok; pair++) {
        const int sa = pair, sb = pair + 1;
        for (int n = pair ? 2 : 0; n < 2 + pair; n++) {
            const int slot = n;
            if ((err = cpu.be->load(cpu.priv, slot, f[n])) < 0 ||
                (err = gpu.be->load(gpu.priv, slot, c->hw_in ? hwf[n] : f[n])) < 0) {
                printf("FAIL %s: load: %s\n", name, av_err2str(err));
                ok = 0;
                break;
            }
        }
        if (!ok)
            break;
        /* A's phase between P and B: the check's, and the bend's from the second pair on */
        phi_a = 1 + (int)(rnd() % 255);
        if (c->mode == MCFPS_MODE_MC) {
            /* the check's field: the last pair's rb (P -> A) plus this ra */
            if (pair)
                memcpy(d, rb, sizeof(*d) * 2 * p.cw * p.ch);
            if ((err = make_fields(c, &p, ra, rb)) < 0 ||
                (err = cpu.be->fields(cpu.priv, &p, ra, rb)) < 0 ||
                (err = gpu.be->fields(gpu.priv, &p, ra, rb)) < 0) {
                printf("FAIL %s: fields: %s\n", name, av_err2str(err));
                ok = 0;
                break;
            }
            for (int k = 0; k < 2 * p.cw * p.ch && pair; k++)
                d[k] += ra[k];
            if ((err = cpu.be->check(cpu.priv, &p, pair ? d : NULL, phi_a, 0, sa, sb)) < 0 ||
                (err = gpu.be->check(gpu.priv, &p, pair ? d : NULL, phi_a, 0, sa, sb)) < 0) {
                printf("FAIL %s: check: %s\n", name, av_err2str(err));
                ok = 0;
                break;
            }
            memset(d, 0x7f, sizeof(*d) * 2 * p.cw * p.ch);
            /* the caller may reuse its arrays at once (rb, after the next
             * pair's check field takes it) */
            memset(ra, 0x7f, sizeof(*ra) * 2 * p.cw * p.ch);
        }
        for (int k = 0; k < FF_ARRAY_ELEMS(phases) + 1 && ok; k++) {
            AVFrame *ref = mcfps_test_frame(c->w, c->h, c->fmt), *hwo = NULL;
            AVFrame *out = mcfps_test_frame(c->w, c->h, c->fmt);
            char what[300];
            p.phi   = k < FF_ARRAY_ELEMS(phases) ? phases[k] : 1 + (int)(rnd() % 255);
            p.phi_a = phi_a;
            p.bend  = pair ? mcfps_bend_weight(p.phi, phi_a) : 0;
            snprintf(what, sizeof(what), "%s pair %d phi=%d", name, pair, p.phi);
            if (c->hw_out)
                hwo = to_hw(frames, c, NULL);
            if (!ref || !out || (c->hw_out && !hwo)) {
                printf("FAIL %s: out of memory\n", what);
                ok = 0;
            } else if ((err = cpu.be->render(cpu.priv, &p, c->mode, sa, sb, ref)) < 0 ||
                       (err = gpu.be->render(gpu.priv, &p, c->mode, sa, sb, c->hw_out ? hwo : out)) < 0 ||
                       (gpu.be->finish && (err = gpu.be->finish(gpu.priv)) < 0)) {
                printf("FAIL %s: render: %s\n", what, av_err2str(err));
                ok = 0;
            } else if (c->hw_out && (err = av_hwframe_transfer_data(out, hwo, 0)) < 0) {
                printf("FAIL %s: download: %s\n", what, av_err2str(err));
                ok = 0;
            } else {
                ok = same_picture(&fm, ref, out, what);
            }
            av_frame_free(&ref);
            av_frame_free(&out);
            av_frame_free(&hwo);
        }
    }
    if (ok && st.verbose)
        printf("ok   %s\n", name);
end:
    run_free(&gpu);
    run_free(&cpu);
    for (int n = 0; n < 3; n++) {
        av_frame_free(&f[n]);
        av_frame_free(&hwf[n]);
    }
    av_buffer_unref(&frames);
    av_free(ra);
    av_free(rb);
    av_free(d);
    if (ok == 2) {
        st.skipped++;
    } else if (ok) {
        st.passed++;
    } else {
        st.failed++;
    }
    return ok;
}

static void load_real(void)
{
    FILE *fp;
    size_t size = (size_t)st.real_w * st.real_h * 3 / 2 * st.real_n;

    if (!st.real_path)
        return;
    st.real = av_malloc(size);
    fp = fopen(st.real_path, "rb");
    if (!st.real || !fp || fread(st.real, 1, size, fp) != size) {
        fprintf(stderr, "cannot read %zu bytes of %s\n", size, st.real_path);
        exit(1);
    }
    fclose(fp);
}

int main(int argc, char **argv)
{
    const char *backend = "cuda";
    const McfpsBackend *be = NULL;
    AVBufferRef *dev = NULL;
    static const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 17, 9 }, { 33, 47 }, { 64, 64 },
                                    { 127, 65 }, { 176, 144 } };
    static const enum AVPixelFormat fmts[] = {
        AV_PIX_FMT_GRAY8, AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV440P,
        AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVA420P, AV_PIX_FMT_NV12, AV_PIX_FMT_NV21,
    };

    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--backend=", 10))
            backend = argv[i] + 10;
        else if (!strncmp(argv[i], "--seed=", 7))
            st.rng = strtoull(argv[i] + 7, NULL, 0);
        else if (!strncmp(argv[i], "--filter=", 9))
            st.filter = argv[i] + 9;
        else if (!strcmp(argv[i], "--quick"))
            st.quick = 1;
        else if (!strcmp(argv[i], "--verbose"))
            st.verbose = 1;
        else if (!strncmp(argv[i], "--real=", 7)) {
            static char path[4096];
            if (sscanf(argv[i] + 7, "%4095[^:]:%dx%d:%d", path, &st.real_w, &st.real_h,
                       &st.real_n) != 4 || st.real_n < 3 || st.real_w < 2 || st.real_h < 2) {
                fprintf(stderr, "--real=FILE:WxH:N (N >= 3 frames of yuv420p)\n");
                return 1;
            }
            st.real_path = path;
        } else {
            fprintf(stderr, "unknown option %s\n", argv[i]);
            return 1;
        }
    }
    av_log_set_level(st.verbose ? AV_LOG_INFO : AV_LOG_QUIET);
    if (!strcmp(backend, "cuda")) {
#if MCFPS_TEST_CUDA
        be = &ff_mcfps_backend_cuda;
#endif
    } else if (!strcmp(backend, "opencl")) {
#if MCFPS_TEST_OPENCL
        be = &ff_mcfps_backend_opencl;
#endif
    }
    dev = backend_device(backend, !!be, &st.quick);
    if (!dev)
        return 0;
    load_real();

    /* sizes x formats, both modes, random options */
    for (int si = 0; si < FF_ARRAY_ELEMS(sizes); si++)
    for (int fi = 0; fi < FF_ARRAY_ELEMS(fmts); fi++)
    for (int mode = MCFPS_MODE_MC; mode <= MCFPS_MODE_BLEND; mode++) {
        Case c = { .w = sizes[si][0], .h = sizes[si][1], .fmt = fmts[fi], .mode = mode };
        if (st.quick && mode == MCFPS_MODE_BLEND && rnd() % 3)
            continue;
        if (st.quick && sizes[si][0] >= 127 && fi != 1 && rnd() % 2)
            continue;
        c.bi      = rnd() % 2;
        c.lambda  = (int[]){ 0, 0, 4, 64 }[rnd() % 4];
        c.rel_lo  = (int[]){ MCFPS_REL_LO, 0, 200 }[rnd() % 3];
        c.rel_hi  = c.rel_lo + (int[]){ MCFPS_REL_HI - MCFPS_REL_LO, 1, 1000 }[rnd() % 3];
        c.range   = (int[]){ 1, 4, 16, 64 }[rnd() % 4];
        c.content = (enum Content)(rnd() % 2);
        c.hw_in   = rnd() % 4 == 0;
        c.hw_out  = rnd() % 4 == 0;
        run_case(be, dev, &c);
    }
    /* every combination of directions and hardware frames at one size,
     * planar and interleaved chroma (NVDEC's nv12); hardware frames in and
     * out of a larger frames context */
    for (int fi = 0; fi < 2; fi++)
    for (int bi = 0; bi <= 1; bi++)
    for (int hw = 0; hw < 4; hw++) {
        Case c = { .w = 96, .h = 64, .fmt = fi ? AV_PIX_FMT_NV12 : AV_PIX_FMT_YUV420P,
                   .mode = MCFPS_MODE_MC, .bi = bi, .rel_lo = MCFPS_REL_LO, .rel_hi = MCFPS_REL_HI,
                   .range = 8, .content = CONTENT_SMOOTH, .hw_in = hw & 1, .hw_out = hw >> 1,
                   .pad = hw == 3 ? 16 : 0 };
        run_case(be, dev, &c);
    }
    /* a large odd size */
    for (int fi = 0; fi < 2 && !st.quick; fi++) {
        Case c = { .w = 1921, .h = 1081, .fmt = fi ? AV_PIX_FMT_NV12 : AV_PIX_FMT_YUV420P,
                   .mode = MCFPS_MODE_MC, .bi = 1, .rel_lo = MCFPS_REL_LO, .rel_hi = MCFPS_REL_HI,
                   .range = 32, .content = CONTENT_SMOOTH };
        run_case(be, dev, &c);
    }
    /* real frames, both directions, both modes, planar and nv12 */
    for (int k = 0; k < 8 && st.real; k++) {
        Case c = { .w = st.real_w, .h = st.real_h, .fmt = k < 4 ? AV_PIX_FMT_YUV420P : AV_PIX_FMT_NV12,
                   .mode = k % 4 < 3 ? MCFPS_MODE_MC : MCFPS_MODE_BLEND, .bi = k & 1,
                   .lambda = k % 4 == 2 ? 4 : 0, .rel_lo = MCFPS_REL_LO, .rel_hi = MCFPS_REL_HI,
                   .range = 8, .content = CONTENT_REAL, .hw_in = k % 4 == 2, .hw_out = k % 4 == 2 };
        run_case(be, dev, &c);
    }
    /* NVDEC's path: nv12 hardware frames of a larger frames context (its
     * coded size) in, of the same context out, on real frames */
    for (int k = 0; k < 3 && st.real; k++) {
        Case c = { .w = st.real_w, .h = st.real_h, .fmt = AV_PIX_FMT_NV12,
                   .mode = k < 2 ? MCFPS_MODE_MC : MCFPS_MODE_BLEND, .bi = 1,
                   .rel_lo = MCFPS_REL_LO, .rel_hi = MCFPS_REL_HI, .range = 8,
                   .content = CONTENT_REAL, .hw_in = 1, .hw_out = k != 1, .pad = 16 };
        run_case(be, dev, &c);
    }
    av_free(st.real);
    av_buffer_unref(&dev);
    printf("%d passed, %d failed, %d skipped\n", st.passed, st.failed, st.skipped);
    return st.failed > 0;
}
