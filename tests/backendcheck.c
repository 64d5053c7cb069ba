/*
 * gpume tests: every GPU backend against the CPU reference, bit for bit,
 * on random, synthetic, worst-case and real frames, for every algorithm,
 * range, block mode, sub-pel level and predictor, odd sizes and a size
 * change. A backend whose device cannot be opened is reported as
 * "skipped: no <name> device" and never counts as passed; one that fails to
 * start on a device that opened fails the case.
 *
 * Usage: backendcheck [--backend=cuda|opencl] [--real=FILE.gray:WxH:N] [--quick]
 *                     [--seed=N] [--filter=SUBSTRING] [--verbose]
 * The last line of the output is "N passed, N failed, N skipped".
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
#include "libavutil/pixfmt.h"
#define BACKEND_TEST_OPENCL GPUME_TEST_OPENCL
#include "backend_device.h"
#include "libavfilter/gpume_backend.h"

#define GUARD  16
#define MARKER 0xa5

static struct {
    uint64_t rng;
    const char *filter;
    int verbose, quick;
    int passed, failed;
    const char *real_path;
    int real_w, real_h, real_n;
} st = { .rng = 0x67706d65u };

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

/* ------------------------------------------------------------------ frames */

enum Content { CONTENT_RANDOM, CONTENT_SMOOTH, CONTENT_WORST, CONTENT_REAL, CONTENT_REAL_PAN };
static const char *const content_names[] = { "random", "smooth", "worst", "real", "real-pan" };

static AVFrame *alloc_gray(int w, int h)
{
    AVFrame *f = av_frame_alloc();
    if (!f)
        return NULL;
    f->format = AV_PIX_FMT_GRAY8;
    f->width  = w;
    f->height = h;
    if (av_frame_get_buffer(f, 1 + rnd() % 64) < 0)
        av_frame_free(&f);
    return f;
}

/* f1 = f0 moved by (sx, sy) plus noise; smooth: a textured field with
 * objects; real-pan: a real frame and the same moved by 70 to 100 pixels,
 * its edges repeated */
static void make_pair(AVFrame *f0, AVFrame *f1, enum Content c, int real_index,
                      const uint8_t *real)
{
    const int w = f0->width, h = f0->height;
    const int sx = (int)(rnd() % 9) - 4, sy = (int)(rnd() % 9) - 4;
    int px = 0, py = 0;

    if (c == CONTENT_REAL_PAN) {
        px = (rnd() % 2 ? 1 : -1) * (70 + (int)(rnd() % 31));
        py = (int)(rnd() % 61) - 30;
    }

    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int v0, v1;
            switch (c) {
            case CONTENT_WORST:
                v0 = 255;
                v1 = 0;
                break;
            case CONTENT_REAL:
                v0 = real[((size_t)real_index * h + y) * w + x];
                v1 = real[((size_t)(real_index + 1) * h + y) * w + x];
                break;
            case CONTENT_REAL_PAN:
                v0 = real[((size_t)real_index * h + y) * w + x];
                v1 = real[((size_t)real_index * h + av_clip(y + py, 0, h - 1)) * w + av_clip(x + px, 0, w - 1)];
                break;
            case CONTENT_SMOOTH: {
                const int x1 = x + sx, y1 = y + sy;
                v0 = 128 + ((x * 7 + y * 3) % 61) - ((x * y) % 37) + (int)(rnd() % 9);
                v1 = 128 + ((x1 * 7 + y1 * 3) % 61) - ((x1 * y1) % 37) + (int)(rnd() % 9);
                if (x > w / 3 && x < w / 2 && y > h / 3 && y < h / 2)
                    v1 = (v1 + 100) & 255;  /* an object only in f1 */
                break;
            }
            default:
                v0 = rnd() & 255;
                v1 = (x + sx >= 0 && x + sx < w && y + sy >= 0 && y + sy < h && (rnd() & 7)) ?
                     -1 : (int)(rnd() & 255);
                break;
            }
            f0->data[0][y * f0->linesize[0] + x] = v0;
            if (v1 >= 0)
                f1->data[0][y * f1->linesize[0] + x] = v1;
        }
    }
    if (c == CONTENT_RANDOM) /* f1 = f0 shifted, where the copy is marked -1 above */
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                if (x + sx >= 0 && x + sx < w && y + sy >= 0 && y + sy < h && (rnd() & 7))
                    f1->data[0][y * f1->linesize[0] + x] =
                        f0->data[0][(y + sy) * f0->linesize[0] + x + sx];
}

/* --------------------------------------------------------------- backends */

typedef struct Run {
    const GpumeBackend *be;
    void *priv;
    GpumeHost host;
    GpumeResult res, res2;      ///< slot 1 into slot 0, and slot 0 into slot 1
    GpumeBlock *blocks, *blocks2;
    uint16_t *counts, *counts2;
    size_t nb_blocks, nb_counts;
} Run;

static void run_free(Run *r)
{
    if (r->priv)
        r->be->uninit(r->priv);
    av_freep(&r->priv);
    av_freep(&r->blocks);
    av_freep(&r->counts);
    av_freep(&r->blocks2);
    av_freep(&r->counts2);
}

static int run_init(Run *r, const GpumeBackend *be, const GpumeParams *p, AVBufferRef *dev)
{
    int err;
    memset(r, 0, sizeof(*r));
    r->be   = be;
    r->host = (GpumeHost) { .log_ctx = NULL, .execute = serial_execute, .nb_threads = 3,
                            .hw_device = dev };
    r->priv = av_mallocz(be->priv_size);
    r->nb_blocks = (size_t)p->nb_ctus * p->max_out + GUARD;
    r->nb_counts = p->nb_ctus + GUARD;
    r->blocks  = av_malloc(r->nb_blocks * sizeof(*r->blocks));
    r->counts  = av_malloc(r->nb_counts * sizeof(*r->counts));
    r->blocks2 = av_malloc(r->nb_blocks * sizeof(*r->blocks));
    r->counts2 = av_malloc(r->nb_counts * sizeof(*r->counts));
    if (!r->priv || !r->blocks || !r->counts || !r->blocks2 || !r->counts2) {
        run_free(r);
        return AVERROR(ENOMEM);
    }
    memset(r->blocks, MARKER, r->nb_blocks * sizeof(*r->blocks));
    memset(r->counts, MARKER, r->nb_counts * sizeof(*r->counts));
    memset(r->blocks2, MARKER, r->nb_blocks * sizeof(*r->blocks));
    memset(r->counts2, MARKER, r->nb_counts * sizeof(*r->counts));
    r->res  = (GpumeResult) { r->blocks, r->counts };
    r->res2 = (GpumeResult) { r->blocks2, r->counts2 };
    err = be->init(r->priv, &r->host, p);
    if (err < 0)
        av_freep(&r->priv);
    return err;
}

static int guards_intact(const Run *r, const GpumeParams *p)
{
    const uint8_t *b = (const uint8_t *)(r->blocks + (size_t)p->nb_ctus * p->max_out);
    const uint8_t *c = (const uint8_t *)(r->counts + p->nb_ctus);
    for (size_t i = 0; i < GUARD * sizeof(*r->blocks); i++)
        if (b[i] != MARKER)
            return 0;
    for (size_t i = 0; i < GUARD * sizeof(*r->counts); i++)
        if (c[i] != MARKER)
            return 0;
    return 1;
}

/** Compare the two results; print the first mismatches and a CTU map. */
/** Wait for result slot out of run's backend, as the filter does, and copy it into res. */
static int wait_result(Run *run, const GpumeParams *p, int out, const GpumeResult *res)
{
    GpumeResult view;
    int err = run->be->wait(run->priv, out, &view);

    if (err >= 0 && view.blocks != res->blocks)
        ff_gpume_result_copy(p, &view, res);
    return err;
}

static int compare(const Run *ref, const Run *run, const GpumeParams *p, const char *name)
{
    int bad = 0, shown = 0;

    if (!guards_intact(run, p)) {
        printf("FAIL %s: %s wrote past the end of its output\n", name, run->be->name);
        return 0;
    }
    for (int c = 0; c < p->nb_ctus; c++) {
        int ctu_bad = ref->counts[c] != run->counts[c];
        for (int i = 0; !ctu_bad && i < ref->counts[c]; i++) {
            const GpumeBlock *a = &ref->blocks[(size_t)c * p->max_out + i];
            const GpumeBlock *b = &run->blocks[(size_t)c * p->max_out + i];
            if (a->x != b->x || a->y != b->y || a->w != b->w || a->h != b->h ||
                a->mvx != b->mvx || a->mvy != b->mvy || a->sad != b->sad) {
                ctu_bad = 1;
                if (shown++ < 4)
                    printf("  ctu %d block %d (%d,%d %dx%d): cpu mv (%d,%d) sad %u, "
                           "%s mv (%d,%d) sad %u\n", c, i, a->x, a->y, a->w, a->h,
                           a->mvx, a->mvy, a->sad, run->be->name, b->mvx, b->mvy, b->sad);
            }
        }
        if (ctu_bad && ref->counts[c] != run->counts[c] && shown++ < 4)
            printf("  ctu %d: cpu %d blocks, %s %d\n", c, ref->counts[c],
                   run->be->name, run->counts[c]);
        bad += ctu_bad;
    }
    if (bad) {
        printf("FAIL %s: %d of %d CTUs differ; map (x = differs):\n", name, bad, p->nb_ctus);
        for (int y = 0; y < FFMIN(p->ctu_rows, 24); y++) {
            printf("  ");
            for (int x = 0; x < FFMIN(p->ctu_cols, 64); x++) {
                const int c = y * p->ctu_cols + x;
                int d = ref->counts[c] != run->counts[c];
                for (int i = 0; !d && i < ref->counts[c]; i++)
                    d = memcmp(&ref->blocks[(size_t)c * p->max_out + i],
                               &run->blocks[(size_t)c * p->max_out + i], sizeof(GpumeBlock)) != 0;
                putchar(d ? 'x' : '.');
            }
            putchar('\n');
        }
    }
    return !bad;
}

/** Upload f to a hardware frame of dev (the in-place path of hardware input). */
static AVFrame *to_hw(AVBufferRef *dev, const AVFrame *f)
{
    /* OpenCL frames of odd size with subsampled chroma fail to allocate (PoCL): gray there */
    const int opencl = ((AVHWDeviceContext *)dev->data)->type == AV_HWDEVICE_TYPE_OPENCL;
    const enum AVPixelFormat sw_format = opencl && (f->width & 1 || f->height & 1) ?
                                         AV_PIX_FMT_GRAY8 : AV_PIX_FMT_YUV420P;
    AVBufferRef *frames = av_hwframe_ctx_alloc(dev);
    AVHWFramesContext *fc;
    AVFrame *hw = av_frame_alloc(), *sw = av_frame_alloc();
    int err = 0;

    if (!frames || !hw || !sw)
        goto fail;
    fc = (AVHWFramesContext *)frames->data;
    fc->format    = opencl ? AV_PIX_FMT_OPENCL : AV_PIX_FMT_CUDA;
    fc->sw_format = sw_format;
    fc->width     = f->width;
    fc->height    = f->height;
    if ((err = av_hwframe_ctx_init(frames)) < 0 || (err = av_hwframe_get_buffer(frames, hw, 0)) < 0)
        goto fail;
    sw->format = sw_format;
    sw->width  = f->width;
    sw->height = f->height;
    if ((err = av_frame_get_buffer(sw, 0)) < 0)
        goto fail;
    for (int y = 0; y < f->height; y++)
        memcpy(sw->data[0] + y * sw->linesize[0], f->data[0] + y * f->linesize[0], f->width);
    for (int pl = 1; pl < 3 && sw->data[pl]; pl++)
        for (int y = 0; y < (f->height + 1) / 2; y++)
            memset(sw->data[pl] + y * sw->linesize[pl], 128, (f->width + 1) / 2);
    if ((err = av_hwframe_transfer_data(hw, sw, 0)) < 0)
        goto fail;
    av_frame_free(&sw);
    av_buffer_unref(&frames);
    return hw;
fail:
    av_frame_free(&hw);
    av_frame_free(&sw);
    av_buffer_unref(&frames);
    return NULL;
}

typedef struct Case {
    int algo, w, h, range, ctu, block, subpel, lambda, pu_penalty, pred, lfs_threshold;
    enum Content content;
    int hw_input;
} Case;

static void case_name(const Case *c, char *buf, size_t size)
{
    static const char *const algos[] = { "full", "hme", "lfs", "vme", "dis" };
    snprintf(buf, size, "%s %dx%d range=%d ctu=%d block=%d subpel=%d lambda=%d pu_penalty=%d "
             "pred=%s lfs_threshold=%d %s%s", algos[c->algo], c->w, c->h, c->range, c->ctu,
             c->block, c->subpel, c->lambda, c->pu_penalty, c->pred ? "temporal" : "zero",
             c->lfs_threshold, content_names[c->content], c->hw_input ? " hw-input" : "");
}

/** 1: pass, 0: fail. */
static int run_case(const GpumeBackend *be, AVBufferRef *dev, const Case *c, const uint8_t *real)
{
    GpumeParams p = {
        .width = c->w, .height = c->h, .algo = c->algo, .range = c->range, .ctu = c->ctu,
        .block = c->block, .subpel = c->subpel, .lambda = c->lambda,
        .pu_penalty = c->pu_penalty, .pred = c->pred, .lfs_threshold = c->lfs_threshold,
    };
    char name[256];
    Run cpu = { 0 }, gpu = { 0 };
    AVFrame *f[2] = { alloc_gray(c->w, c->h), alloc_gray(c->w, c->h) };
    AVFrame *hw[2] = { NULL, NULL };
    int16_t *pred = NULL;
    int ok = 0, err;

    case_name(c, name, sizeof(name));
    if (st.filter && !strstr(name, st.filter))
        goto skip_silently;
    if (ff_gpume_params_derive(&p) < 0 || !f[0] || !f[1]) {
        printf("FAIL %s: setup\n", name);
        goto end;
    }
    make_pair(f[0], f[1], c->content, (int)(rnd() % FFMAX(1, st.real_n - 1)), real);
    pred = av_malloc(2 * p.nb_ctus * sizeof(*pred));
    if (!pred)
        goto end;
    for (int i = 0; i < 2 * p.nb_ctus; i++)
        pred[i] = c->pred ? (int)(rnd() % (8 * c->range + 1)) - 4 * c->range : 0;

    if ((err = run_init(&cpu, &ff_gpume_backend_cpu, &p, NULL)) < 0) {
        printf("FAIL %s: cpu init: %s\n", name, av_err2str(err));
        goto end;
    }
    if ((err = run_init(&gpu, be, &p, dev)) < 0) {
        printf("FAIL %s: %s init: %s\n", name, be->name, av_err2str(err));
        goto end;
    }
    if (c->hw_input) {
        hw[0] = to_hw(dev, f[0]);
        hw[1] = to_hw(dev, f[1]);
        if (!hw[0] || !hw[1]) {
            printf("FAIL %s: hardware upload\n", name);
            goto end;
        }
    }
    /* slot 1 = current, slot 0 = reference, as the filter does */
    err = cpu.be->load(cpu.priv, 0, f[0]);
    if (err >= 0) err = cpu.be->load(cpu.priv, 1, f[1]);
    if (err >= 0) err = cpu.be->estimate(cpu.priv, 1, 0, pred, -1, 0, &cpu.res);
    if (err >= 0) err = cpu.be->estimate(cpu.priv, 0, 1, pred, -1, 1, &cpu.res2);
    if (err >= 0) err = cpu.be->sync(cpu.priv);
    /* both directions in flight at once, collected in reverse order as the filter may */
    if (err >= 0) err = gpu.be->load(gpu.priv, 0, hw[0] ? hw[0] : f[0]);
    if (err >= 0) err = gpu.be->load(gpu.priv, 1, hw[1] ? hw[1] : f[1]);
    if (err >= 0) err = gpu.be->estimate(gpu.priv, 1, 0, pred, -1, 0, &gpu.res);
    if (err >= 0) err = gpu.be->estimate(gpu.priv, 0, 1, pred, -1, 1, &gpu.res2);
    if (gpu.be->wait) {
        if (err >= 0) err = wait_result(&gpu, &p, 1, &gpu.res2);
        if (err >= 0) err = wait_result(&gpu, &p, 0, &gpu.res);
    } else if (err >= 0) {
        err = gpu.be->sync(gpu.priv);
    }
    if (err < 0) {
        printf("FAIL %s: %s\n", name, av_err2str(err));
        goto end;
    }
    ok = compare(&cpu, &gpu, &p, name);
    if (ok) {
        /* the reverse direction, through the same comparison */
        FFSWAP(GpumeBlock *, cpu.blocks, cpu.blocks2);
        FFSWAP(uint16_t *, cpu.counts, cpu.counts2);
        FFSWAP(GpumeBlock *, gpu.blocks, gpu.blocks2);
        FFSWAP(uint16_t *, gpu.counts, gpu.counts2);
        ok = compare(&cpu, &gpu, &p, name);
        FFSWAP(GpumeBlock *, cpu.blocks, cpu.blocks2);
        FFSWAP(uint16_t *, cpu.counts, cpu.counts2);
        FFSWAP(GpumeBlock *, gpu.blocks, gpu.blocks2);
        FFSWAP(uint16_t *, gpu.counts, gpu.counts2);
    }
    if (ok && c->pred) {
        /* pred=temporal as the filter runs it: the predictors come from result
         * slot 1 (the reverse estimate) where the backend keeps it */
        err = cpu.be->estimate(cpu.priv, 1, 0, NULL, 1, 2, &cpu.res);
        if (err >= 0) err = cpu.be->sync(cpu.priv);
        if (err >= 0) err = gpu.be->estimate(gpu.priv, 1, 0, NULL, 1, 2, &gpu.res);
        if (err >= 0) err = gpu.be->wait ? wait_result(&gpu, &p, 2, &gpu.res) : gpu.be->sync(gpu.priv);
        if (err < 0) {
            printf("FAIL %s: predictors from a result slot: %s\n", name, av_err2str(err));
            ok = 0;
        } else {
            ok = compare(&cpu, &gpu, &p, name);
        }
    }
    if (ok && c->content == CONTENT_REAL_PAN) {
        /* dis's vectors past the pads, where the CPU's SADs read clamped
         * samples (ctu_dis()): from 1024 pixels wide on, the flow's levels
         * follow the pan, so that some blocks must reach there */
        int far = 0;
        for (int i = 0; i < p.nb_ctus; i++)
            for (int k = 0; k < cpu.counts[i]; k++) {
                const GpumeBlock *b = &cpu.blocks[(size_t)i * p.max_out + k];
                far += FFMAX(FFABS(b->mvx), FFABS(b->mvy)) > 4 * GPUME_MAX_RANGE;
            }
        if (!far && c->w >= 1024) {
            printf("FAIL %s: no block beyond %d pixels\n", name, GPUME_MAX_RANGE);
            ok = 0;
        } else if (st.verbose) {
            printf("info %s: %d blocks beyond %d pixels\n", name, far, GPUME_MAX_RANGE);
        }
    }
    if (ok && st.verbose)
        printf("ok   %s\n", name);
end:
    run_free(&cpu);
    run_free(&gpu);
    av_frame_free(&hw[0]);
    av_frame_free(&hw[1]);
    av_frame_free(&f[0]);
    av_frame_free(&f[1]);
    av_free(pred);
    if (ok)
        st.passed++;
    else
        st.failed++;
    return ok;
skip_silently:
    av_frame_free(&f[0]);
    av_frame_free(&f[1]);
    return 1;
}

static uint8_t *load_real(void)
{
    FILE *fp;
    size_t size = (size_t)st.real_w * st.real_h * st.real_n;
    uint8_t *buf;

    if (!st.real_path)
        return NULL;
    buf = av_malloc(size);
    fp  = fopen(st.real_path, "rb");
    if (!buf || !fp || fread(buf, 1, size, fp) != size) {
        fprintf(stderr, "cannot read %zu bytes of %s\n", size, st.real_path);
        exit(1);
    }
    fclose(fp);
    return buf;
}

int main(int argc, char **argv)
{
    const char *backend = "cuda";
    const GpumeBackend *be = NULL;
    AVBufferRef *dev = NULL;
    uint8_t *real;
    static const int sizes[][2] = { { 1, 1 }, { 2, 2 }, { 17, 9 }, { 33, 47 }, { 64, 64 },
                                    { 127, 65 }, { 176, 144 }, { 320, 240 } };

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
                       &st.real_n) != 4 || st.real_n < 2) {
                fprintf(stderr, "--real=FILE:WxH:N (N >= 2 frames of gray8)\n");
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
#if GPUME_TEST_CUDA
        be = &ff_gpume_backend_cuda;
#endif
    } else if (!strcmp(backend, "opencl")) {
#if GPUME_TEST_OPENCL
        be = &ff_gpume_backend_opencl;
#endif
    }
    dev = backend_device(backend, !!be, &st.quick);
    if (!dev)
        return 0;
    real = load_real();

    /* every algorithm and option on random, smooth and worst-case frames */
    for (int algo = GPUME_ALGO_FULL; algo <= GPUME_ALGO_LFS; algo++)
    for (int si = 0; si < FF_ARRAY_ELEMS(sizes); si++)
    for (int ctu = 16; ctu <= 64; ctu *= 2)
    for (int block = 0; block <= ctu; block = block ? block * 2 : 8) {
        Case c = { .algo = algo, .w = sizes[si][0], .h = sizes[si][1], .ctu = ctu, .block = block,
                   .pu_penalty = 64 + rnd() % 512, .lfs_threshold = 32 };
        if (algo == GPUME_ALGO_LFS && !block)
            continue;
        if (st.quick && rnd() % 4)
            continue;
        c.range   = (int[]){ 1, 4, 7, 16 }[rnd() % 4];
        c.subpel  = rnd() % 3;
        c.lambda  = (int[]){ 0, 2, 7 }[rnd() % 3];
        c.pred    = rnd() % 2;
        c.content = (enum Content)(rnd() % 3);
        c.hw_input = rnd() % 4 == 0;
        run_case(be, dev, &c, NULL);
    }
    /* dis: every size, CTU and block, its range (the clip of the vectors)
     * and sub-pel rounding; pred and lambda are unused */
    for (int si = 0; si < FF_ARRAY_ELEMS(sizes); si++)
    for (int ctu = 16; ctu <= 64; ctu *= 2)
    for (int block = 8; block <= ctu; block *= 2) {
        Case c = { .algo = GPUME_ALGO_DIS, .w = sizes[si][0], .h = sizes[si][1], .ctu = ctu,
                   .block = block, .lambda = 2, .pu_penalty = 256, .lfs_threshold = 32 };
        if (st.quick && rnd() % 4)
            continue;
        c.range    = (int[]){ 1, 4, 7, 16, 64 }[rnd() % 5];
        c.subpel   = rnd() % 3;
        c.content  = (enum Content)(rnd() % 3);
        c.hw_input = rnd() % 4 == 0;
        run_case(be, dev, &c, NULL);
    }
    /* large ranges and every sub-pel level at a moderate size */
    for (int algo = GPUME_ALGO_FULL; algo <= GPUME_ALGO_LFS; algo++)
    for (int range = 32; range <= 64; range *= 2)
    for (int subpel = 0; subpel <= 2; subpel++) {
        Case c = { .algo = algo, .w = 200, .h = 120, .range = range, .ctu = 32, .block = 16,
                   .subpel = subpel, .lambda = 2, .pu_penalty = 256, .lfs_threshold = 16,
                   .content = CONTENT_SMOOTH };
        run_case(be, dev, &c, NULL);
    }
    /* the search of 8x8 blocks at CTU 32 (ff_gpume_block8_search()): its
     * search area at the largest ranges, at a size whose edge CTUs cut blocks */
    for (int algo = GPUME_ALGO_FULL; algo <= GPUME_ALGO_HME; algo++)
    for (int range = 32; range <= 64; range *= 2) {
        Case c = { .algo = algo, .w = 203, .h = 117, .range = range, .ctu = 32, .block = 8,
                   .subpel = 2, .lambda = 2, .pu_penalty = 256, .pred = range == 64,
                   .lfs_threshold = 32, .content = CONTENT_SMOOTH };
        run_case(be, dev, &c, NULL);
    }
    /* full's kernels of CTU 32 (gpume_cuda.h): every block mode at large
     * ranges, where keys carry the index (32) or the local numbering (64),
     * the largest lambda, the temporal predictor, worst-case frames */
    for (int range = 32; range <= 64; range *= 2)
    for (int block = 0; block <= 32; block = block ? block * 2 : 8) {
        Case c = { .algo = GPUME_ALGO_FULL, .w = 200, .h = 120, .range = range, .ctu = 32,
                   .block = block, .subpel = 2, .lambda = block == 8 ? GPUME_MAX_LAMBDA : 2,
                   .pu_penalty = 256, .pred = block == 16, .lfs_threshold = 32,
                   .content = block == 32 ? CONTENT_WORST : CONTENT_SMOOTH };
        run_case(be, dev, &c, NULL);
    }
    /* 4K-class odd size, once per algorithm */
    if (!st.quick)
        for (int algo = GPUME_ALGO_FULL; algo <= GPUME_ALGO_DIS; algo++) {
            Case c = { .algo = algo, .w = 4095, .h = 2161, .range = 8, .ctu = 32,
                       .block = algo == GPUME_ALGO_LFS || algo == GPUME_ALGO_DIS ? 16 : 0,
                       .subpel = 2, .lambda = 2,
                       .pu_penalty = 256, .lfs_threshold = 32, .content = CONTENT_SMOOTH };
            if (algo == GPUME_ALGO_VME)
                continue;
            run_case(be, dev, &c, NULL);
        }
    /* real frames */
    if (real)
        for (int algo = GPUME_ALGO_FULL; algo <= GPUME_ALGO_DIS; algo++)
        for (int block = 0; block <= 32; block = block ? block * 2 : 8) {
            Case c = { .algo = algo, .w = st.real_w, .h = st.real_h, .range = 16, .ctu = 32,
                       .block = block, .subpel = 2, .lambda = 2, .pu_penalty = 256,
                       .lfs_threshold = 32, .content = CONTENT_REAL, .pred = block == 16 };
            if (algo == GPUME_ALGO_VME || ((algo == GPUME_ALGO_LFS || algo == GPUME_ALGO_DIS) && !block))
                continue;
            if (algo == GPUME_ALGO_DIS)
                c.range = 64;
            run_case(be, dev, &c, real);
        }
    /* dis on a real frame and the same panned past the pads of range 64 */
    if (real)
        for (int block = 8; block <= 32; block *= 2) {
            Case c = { .algo = GPUME_ALGO_DIS, .w = st.real_w, .h = st.real_h, .range = 64, .ctu = 32,
                       .block = block, .subpel = block == 16 ? 1 : 2, .lambda = 2, .pu_penalty = 256,
                       .lfs_threshold = 32, .content = CONTENT_REAL_PAN, .hw_input = block == 32 };
            run_case(be, dev, &c, real);
        }
    if (real) {
        /* full at range 32 with all PU shapes */
        Case c = { .algo = GPUME_ALGO_FULL, .w = st.real_w, .h = st.real_h, .range = 32, .ctu = 32,
                   .block = 0, .subpel = 2, .lambda = 2, .pu_penalty = 256, .lfs_threshold = 32,
                   .content = CONTENT_REAL };
        run_case(be, dev, &c, real);
    }
    av_free(real);
    av_buffer_unref(&dev);
    printf("%d passed, %d failed, 0 skipped\n", st.passed, st.failed);
    return st.failed > 0;
}
