/*
 * mcfps: motion-compensated frame-rate conversion from the motion vectors
 * that gpume (or any producer of AV_FRAME_DATA_MOTION_VECTORS) attached.
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

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/dict.h"
#include "libavutil/eval.h"
#include "libavutil/hwcontext.h"
#include "libavutil/internal.h"
#include "libavutil/mathematics.h"
#include "libavutil/mem.h"
#include "libavutil/motion_vector.h"
#include "libavutil/opt.h"
#include "libavutil/parseutils.h"
#include "libavutil/pixdesc.h"
#include "libavutil/timestamp.h"

#include "avfilter.h"
#include "ccfifo.h"
#include "filters.h"
#include "video.h"
#include "gpume_compat.h"
#include "gpume_device.h"
#include "mcfps_backend.h"
#include "mcfps_cpu.h"

/** Output frames held back behind one that the device still writes. */
#define MCFPS_QUEUE 8
#define MCFPS_KEY_TICKS 8

#define MCFPS_PHI_LOG2 8                    ///< log2(MCFPS_PHI_ONE)
/** Times (in the output time base / MCFPS_PHI_ONE) whose differences times MCFPS_PHI_ONE fit in int64_t. */
#define MCFPS_MAX_T (INT64_C(1) << 52)

#if (1 << MCFPS_PHI_LOG2) != MCFPS_PHI_ONE
#error "MCFPS_PHI_LOG2 is not log2(MCFPS_PHI_ONE)"
#endif

typedef struct McfpsContext {
    const AVClass *class;

    /* options */
    char *fps_str;              ///< the output rate as given: a rate, or an expression of source_fps
    int mode;
    double scene;
    double scene_sad;
    int lambda, rel_lo, rel_hi;
    int check;
    int bend;
    int device, gpu_index;

    /* the device and backend */
    int active_device;          ///< device type in use (gpume_device.h)
    AVBufferRef *device_ref;    ///< the device in use, NULL for the CPU (owned)
    const McfpsBackend *backend;
    void *backend_priv;
    int backend_ready;
    McfpsHost host;
    GpumeBackendLog backend_log; ///< the backend's log context (host.log_ctx)
    GpumeSlices slices;         ///< the slice threads of the CPU backend (host.exec_opaque)
    McfpsFormat fmt;
    int slot_a;                 ///< the backend's picture slot holding s->a; B's and P's follow it

    AVRational tb_fine;         ///< output time base / MCFPS_PHI_ONE: phases are exact in it
    int started;
    int64_t next;               ///< next output tick, in output time base
    AVFrame *a;                 ///< the earlier frame of the current pair
    AVRational fps;             ///< the output rate, from fps_str at configuration
    int64_t pa;                 ///< its time in tb_fine
    int64_t pp;                 ///< the time of the frame before it (P)
    int a_on_tick;              ///< a shows on tick s->next - 1 (on it, or within half a tick after it) and has not been sent yet

    /* output frames are made one at a time (activate()), so that a gap of
     * any length never holds more than a few: what is left to make */
    AVFrame *b;                 ///< the later frame of the pair whose ticks are sent, else NULL
    int64_t pb;                 ///< its time in tb_fine
    /* whether the fps filter makes a tick at or after B's rounded tick
     * depends on what follows B: that tick waits here for the next frame or
     * the end (at most one: the ticks of a pair lie before B's time) */
    AVFrame *pending;
    int pending_rendered;       ///< the backend may still be writing it
    int repeating;              ///< ticks before repeat_end repeat s->a, then held starts or the output ends
    int64_t repeat_end;         ///< in ticks: the end's, or held's, rounded to nearest
    int end_known;              ///< repeat_end holds (else: no tick at or after the last frame's)
    AVFrame *held;              ///< the first frame of the run after the repeats, NULL at the end
    int in_status;              ///< the input's status once taken (0: none), set on the output after the repeats
    int64_t in_status_pts;

    /* the pair (a, next frame): fields built once per pair */
    int pair_cut;
    int pair_blend;             ///< no vectors between the pair's frames: the average
    int seen_vectors;           ///< a pair of the stream had vectors
    int64_t nb_blended;         ///< pairs without vectors, blended
    double pair_mean_sad;       ///< lavfi.gpume.mean_sad of the run's last pair, < 0: none
    int repeat_noted;           ///< a pair of the same picture was reported
    int outside_noted;          ///< vectors of blocks beyond the frame were reported
    int64_t nb_dropped;         ///< input frames dropped for their timestamps
    McfpsParams p;
    int format;                 ///< of the frames (a hardware format for hardware frames)
    int sw_format;              ///< of their pixels
    int16_t *ra, *rb;
    int16_t *rb_prev;           ///< the pair (P, A)'s rb: P -> A at A's cells
    int16_t *check_d;           ///< P -> B through A, for the motion check
    /* ra's and rb's cells as runs of vectors on several threads write them
     * (ff_mcfps_raster_run()), allocated at the first pair that has runs */
    atomic_uint_least64_t *cells[2];
    int pair_runs;              ///< the runs of the last pair, for the debug log
    int prev_valid;             ///< P is in its slot, rb_prev holds its pair's
    int pair_phi_a;             ///< A's phase between P and B where the pair's trajectories bend, else 0
    McfpsDominant dominant;

    /* output frames in order: with a backend that has finish(), a rendered
     * frame waits here until the next render, and the frames after it too */
    AVFrame *queue[MCFPS_QUEUE];
    int nb_queued;
    int queue_rendering;        ///< a frame of queue[] waits for finish()

    /* the ticks of the input key frames taken (their times rounded to
     * nearest), ascending: the first output frame at or after each is a key
     * frame, for -force_key_frames source */
    int64_t key_ticks[MCFPS_KEY_TICKS];
    int nb_key_ticks;

    CCFifo cc_fifo;             ///< closed captions of the input, spread over the output frames
} McfpsContext;

#define OFFSET(x) offsetof(McfpsContext, x)
#define FLAGS (AV_OPT_FLAG_VIDEO_PARAM | AV_OPT_FLAG_FILTERING_PARAM)
#define RFLAGS (FLAGS | AV_OPT_FLAG_RUNTIME_PARAM)

static const AVOption mcfps_options[] = {
    { "fps", "output frame rate: a rate (60, 60000/1001, ntsc) or an expression of source_fps, as the fps filter takes it",
      OFFSET(fps_str), AV_OPT_TYPE_STRING, { .str = "60" }, 0, 0, FLAGS },
    { "mode", "how frames between two inputs are made", OFFSET(mode), AV_OPT_TYPE_INT,
      { .i64 = MCFPS_MODE_MC }, 0, MCFPS_MODE_NB - 1, FLAGS, .unit = "mode" },
        { "mc",    "motion-compensated interpolation", 0, AV_OPT_TYPE_CONST, { .i64 = MCFPS_MODE_MC },    0, 0, FLAGS, .unit = "mode" },
        { "blend", "weighted average of the two frames", 0, AV_OPT_TYPE_CONST, { .i64 = MCFPS_MODE_BLEND }, 0, 0, FLAGS, .unit = "mode" },
        { "dup",   "repetition: the frames of the fps filter", 0, AV_OPT_TYPE_CONST, { .i64 = MCFPS_MODE_DUP },   0, 0, FLAGS, .unit = "mode" },
    { "scene", "lavfi.gpume.scene_score above which two frames are a cut (no interpolation: the nearer frame)",
      OFFSET(scene), AV_OPT_TYPE_DOUBLE, { .dbl = 0.6 }, 0, 1, RFLAGS },
    { "scene_sad", "rise of lavfi.gpume.mean_sad over the previous pair's above which two frames are "
      "a cut as well (0: none)", OFFSET(scene_sad), AV_OPT_TYPE_DOUBLE, { .dbl = 10 }, 0, 255, RFLAGS },
    { "lambda", "cost of a vector's distance from the smoothed field, per quarter pel per 32 pixels",
      OFFSET(lambda), AV_OPT_TYPE_INT, { .i64 = 0 }, 0, 64, RFLAGS },
    { "rel_lo", "mean bilateral error (1/16 level) at or below which a cell is fully compensated",
      OFFSET(rel_lo), AV_OPT_TYPE_INT, { .i64 = MCFPS_REL_LO }, 0, 255 * 16 - 1, RFLAGS },
    { "rel_hi", "mean bilateral error (1/16 level) at or above which a cell is the plain average",
      OFFSET(rel_hi), AV_OPT_TYPE_INT, { .i64 = MCFPS_REL_HI }, 1, 255 * 16, RFLAGS },
    { "check", "trust motion as far as the earlier frame's vectors rebuild it from its neighbours",
      OFFSET(check), AV_OPT_TYPE_BOOL, { .i64 = 1 }, 0, 1, RFLAGS },
    { "bend", "bend trajectories by the change of motion since the previous pair",
      OFFSET(bend), AV_OPT_TYPE_BOOL, { .i64 = 1 }, 0, 1, RFLAGS },
    { "device", "where the frames are made", OFFSET(device), AV_OPT_TYPE_INT,
      { .i64 = GPUME_DEVICE_AUTO }, GPUME_DEVICE_AUTO, GPUME_DEVICE_OPENCL, FLAGS, .unit = "device" },
        { "auto",   "the input frames' or graph's device, else the first that works of cuda, an OpenCL GPU, cpu",
          0, AV_OPT_TYPE_CONST, { .i64 = GPUME_DEVICE_AUTO },   0, 0, FLAGS, .unit = "device" },
        { "cpu",    "CPU reference, slice threaded", 0, AV_OPT_TYPE_CONST, { .i64 = GPUME_DEVICE_CPU }, 0, 0, FLAGS, .unit = "device" },
        { "cuda",   "CUDA",   0, AV_OPT_TYPE_CONST, { .i64 = GPUME_DEVICE_CUDA },   0, 0, FLAGS, .unit = "device" },
        { "opencl", "OpenCL", 0, AV_OPT_TYPE_CONST, { .i64 = GPUME_DEVICE_OPENCL }, 0, 0, FLAGS, .unit = "device" },
    { "gpu", "index of the GPU when the filter creates its own device", OFFSET(gpu_index), AV_OPT_TYPE_INT,
      { .i64 = 0 }, 0, 64, FLAGS },
    { NULL }
};

AVFILTER_DEFINE_CLASS(mcfps);

static const enum AVPixelFormat pix_fmts[] = {
    /* chroma subsampled by at most 2: chroma positions in 1/32 pel (mcfps_sample4) */
    AV_PIX_FMT_GRAY8,
    AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV440P, AV_PIX_FMT_YUV444P,
    AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P,
    AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ444P,
    AV_PIX_FMT_YUVA420P, AV_PIX_FMT_YUVA422P, AV_PIX_FMT_YUVA444P,
    /* 4:2:0 with interleaved chroma (NVDEC's output) */
    AV_PIX_FMT_NV12, AV_PIX_FMT_NV21,
    /* hardware frames of one of the formats above */
#if GPUME_HAVE_CUDA
    AV_PIX_FMT_CUDA,
#endif
#if CONFIG_OPENCL
    AV_PIX_FMT_OPENCL,
#endif
    AV_PIX_FMT_NONE
};

/** What pix_fmts holds, for error messages. */
#define MCFPS_FORMATS "8-bit YUV with chroma subsampled by at most 2, planar or nv12/nv21, " \
                      "or gray (yuv420p, yuv444p, nv12, gray, ...)"

static int is_supported_sw_format(enum AVPixelFormat fmt)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(fmt);
    for (int i = 0; pix_fmts[i] != AV_PIX_FMT_NONE; i++)
        if (pix_fmts[i] == fmt)
            return desc && !(desc->flags & AV_PIX_FMT_FLAG_HWACCEL);
    return 0;
}

static const McfpsBackend *backend_for(int device)
{
    switch (device) {
    case GPUME_DEVICE_CPU:
        return &ff_mcfps_backend_cpu;
#if GPUME_HAVE_CUDA
    case GPUME_DEVICE_CUDA:
        return &ff_mcfps_backend_cuda;
#endif
#if CONFIG_OPENCL
    case GPUME_DEVICE_OPENCL:
        return &ff_mcfps_backend_opencl;
#endif
    default:
        return NULL;
    }
}

static av_cold int init(AVFilterContext *ctx)
{
    McfpsContext *s = ctx->priv;

    ff_gpume_backend_log_init(&s->backend_log, ctx);
    if (s->rel_lo >= s->rel_hi) {
        av_log(ctx, AV_LOG_ERROR, "rel_lo=%d must be below rel_hi=%d\n", s->rel_lo, s->rel_hi);
        return AVERROR(EINVAL);
    }
    if (s->device != GPUME_DEVICE_AUTO && !backend_for(s->device)) {
        av_log(ctx, AV_LOG_ERROR, "device=%s: this build has no %s backend\n",
               ff_gpume_device_name(s->device), ff_gpume_device_name(s->device));
        return AVERROR(ENOSYS);
    }
    return 0;
}

static void drop_queue(McfpsContext *s)
{
    for (int i = 0; i < s->nb_queued; i++)
        av_frame_free(&s->queue[i]);
    s->nb_queued       = 0;
    s->queue_rendering = 0;
}

/** Stop the backend; it drops a frame it was still writing, which the caller frees after. */
static void release_backend(McfpsContext *s)
{
    if (s->backend_ready)
        s->backend->uninit(s->backend_priv);
    s->backend_ready = 0;
    av_freep(&s->backend_priv);
}

/** Start the backend of s->active_device on s->device_ref for w x h frames of sw_format. */
static int start_backend(AVFilterContext *ctx, int w, int h, int sw_format)
{
    McfpsContext *s = ctx->priv;
    int err;

    release_backend(s);
    err = ff_mcfps_format(&s->fmt, w, h, sw_format);
    if (err < 0)
        return err;
    ff_gpume_slices_init(&s->slices, ctx);
    s->host = (McfpsHost) {
        .log_ctx     = &s->backend_log,
        .note_ctx    = ctx,
        .execute     = ff_gpume_execute_slices,
        .exec_opaque = &s->slices,
        .nb_threads  = s->slices.nb_runners,
        .hw_device   = s->device_ref,
    };
    s->backend = backend_for(s->active_device);
    if (!s->backend)
        return AVERROR_BUG;
    s->backend_priv = av_mallocz(s->backend->priv_size);
    if (!s->backend_priv)
        return AVERROR(ENOMEM);
    err = s->backend->init(s->backend_priv, &s->host, &s->fmt);
    if (err < 0) {
        av_freep(&s->backend_priv);
        return err;
    }
    s->backend_ready = 1;
    return 0;
}

/** ff_gpume_device_start()'s start: the backend of type on s->device_ref. */
static int start_on_device(AVFilterContext *ctx, int type)
{
    McfpsContext *s = ctx->priv;
    int err;

    s->active_device = type;
    err = start_backend(ctx, ctx->inputs[0]->w, ctx->inputs[0]->h, s->sw_format);
    if (err < 0)
        release_backend(s);
    return err;
}

static int config_input(AVFilterLink *inlink)
{
    AVFilterContext *ctx = inlink->dst;
    McfpsContext *s = ctx->priv;
    FilterLink *l = ff_filter_link(inlink);
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(inlink->format);
    const unsigned supported = 1 << GPUME_DEVICE_CPU |
                               (backend_for(GPUME_DEVICE_CUDA)   ? 1 << GPUME_DEVICE_CUDA   : 0) |
                               (backend_for(GPUME_DEVICE_OPENCL) ? 1 << GPUME_DEVICE_OPENCL : 0);
    int sw_format = inlink->format;
    GpumeDevicePlan plan;
    int err;

    if (desc->flags & AV_PIX_FMT_FLAG_HWACCEL) {
        const AVHWFramesContext *frames = l->hw_frames_ctx ?
            (const AVHWFramesContext *)l->hw_frames_ctx->data : NULL;
        if (!frames || !is_supported_sw_format(frames->sw_format)) {
            av_log(ctx, AV_LOG_ERROR, "unsupported hardware frames: %s; mcfps reads " MCFPS_FORMATS "\n",
                   frames ? av_get_pix_fmt_name(frames->sw_format) : "no frames context");
            return AVERROR(ENOSYS);
        }
        sw_format = frames->sw_format;
    }
    err = ff_gpume_device_plan(ctx, inlink, s->device, s->gpu_index, supported, 0, &plan);
    if (err < 0)
        return err;

    s->sw_format = sw_format;
    return ff_gpume_device_start(ctx, &plan, &s->device_ref, &s->backend_log, start_on_device);
}

static void free_fields(McfpsContext *s)
{
    av_freep(&s->ra);
    av_freep(&s->rb);
    av_freep(&s->rb_prev);
    av_freep(&s->check_d);
    av_freep(&s->cells[0]);
    av_freep(&s->cells[1]);
    ff_mcfps_dominant_uninit(&s->dominant);
    s->prev_valid = 0;
}

static av_cold void uninit(AVFilterContext *ctx)
{
    McfpsContext *s = ctx->priv;
    if (s->nb_dropped > 1)
        av_log(ctx, AV_LOG_WARNING, "%"PRId64" input frames dropped for their timestamps\n",
               s->nb_dropped);
    if (s->nb_blended > 1)
        av_log(ctx, AV_LOG_WARNING, "%"PRId64" pairs without motion vectors blended\n",
               s->nb_blended);
    /* first: it drops the frames it may still be writing, freed after */
    release_backend(s);
    av_frame_free(&s->a);
    av_frame_free(&s->b);
    av_frame_free(&s->pending);
    av_frame_free(&s->held);
    free_fields(s);
    drop_queue(s);
    av_buffer_unref(&s->device_ref);
    ff_ccfifo_uninit(&s->cc_fifo);
}

static const char *const rate_var_names[] = { "source_fps", "ntsc", "pal", "film", "ntsc_film", NULL };

/** Whether str is a rate name of FFmpeg's rate syntax ("ntsc", "ntsc-film"), by its letters. */
static int is_rate_name(const char *str)
{
    return str[0] && strspn(str, "abcdefghijklmnopqrstuvwxyz-") == strlen(str);
}

/** The largest rate numerator: mcfps times its phases in 1/MCFPS_PHI_ONE of an output frame. */
#define MAX_RATE_NUM (INT_MAX / MCFPS_PHI_ONE)

/**
 * The output rate: a rate name as FFmpeg's rate syntax reads it (ntsc,
 * ntsc-film), anything else as the fps filter reads it: an expression of
 * its constants, rounded to a fraction with av_d2q(), so that the two filters
 * give the same rate for the same string. Where that fraction's numerator
 * is above MAX_RATE_NUM but the rate is at most 1001000, the rate is rounded
 * as -r rounds it, to terms of at most 1001000 (24.000001 is 24, where fps
 * keeps 24000001/1000000).
 */
static int output_rate(AVFilterContext *ctx, AVRational source, AVRational *rate)
{
    McfpsContext *s = ctx->priv;
    const double values[] = { av_q2d(source), 30000.0 / 1001, 25, 24, 24000.0 / 1001 };
    const int unknown_source = strstr(s->fps_str, "source_fps") && (source.num <= 0 || source.den <= 0);
    double res;
    int err;

    if (is_rate_name(s->fps_str) && av_parse_video_rate(rate, s->fps_str) >= 0)
        return 0;
    err = av_expr_parse_and_eval(&res, s->fps_str, rate_var_names, values,
                                 NULL, NULL, NULL, NULL, NULL, 0, ctx);
    if (err < 0) {
        av_log(ctx, AV_LOG_ERROR, "fps=%s: not a rate or an expression of source_fps\n", s->fps_str);
        return err;
    }
    if (!(res > 0) || isinf(res)) {
        av_log(ctx, AV_LOG_ERROR, "fps=%s: must be a positive, finite rate%s\n", s->fps_str,
               unknown_source ? " (the input's frame rate is unknown)" : "");
        return AVERROR(EINVAL);
    }
    *rate = av_d2q(res, INT_MAX);
    if (rate->den > 0 && rate->num > MAX_RATE_NUM && res <= 1001000)
        *rate = av_d2q(res, 1001000);
    if (rate->den <= 0 || rate->num > MAX_RATE_NUM) {
        av_log(ctx, AV_LOG_ERROR, "fps=%s: %.17g, a fraction whose numerator is above %d\n",
               s->fps_str, res, MAX_RATE_NUM);
        return AVERROR(EINVAL);
    }
    if (rate->num <= 0) {
        av_log(ctx, AV_LOG_ERROR, "fps=%s: %g, below the least rate, 1/%d\n", s->fps_str, res, INT_MAX);
        return AVERROR(EINVAL);
    }
    return 0;
}

static int config_output(AVFilterLink *outlink)
{
    AVFilterContext *ctx = outlink->src;
    McfpsContext *s = ctx->priv;
    FilterLink *il = ff_filter_link(ctx->inputs[0]);
    FilterLink *ol = ff_filter_link(outlink);
    AVRational tb;
    int err;

    if ((err = output_rate(ctx, il->frame_rate, &s->fps)) < 0)
        return err;
    av_log(ctx, AV_LOG_VERBOSE, "fps=%d/%d\n", s->fps.num, s->fps.den);
    tb = av_inv_q(s->fps);
    outlink->time_base = tb;
    ol->frame_rate     = s->fps;
    /* captions go out at the rate of the output, as fps sends them (at
     * rates that CTA-708 defines; at others they stay on their frames) */
    ff_ccfifo_uninit(&s->cc_fifo);
    err = ff_ccfifo_init(&s->cc_fifo, s->fps, ctx);
    if (err < 0)
        return err;
    s->tb_fine         = (AVRational){ tb.num, tb.den * MCFPS_PHI_ONE };
    /* hardware frames in, hardware frames of the same frames context out */
    return av_buffer_replace(&ol->hw_frames_ctx, il->hw_frames_ctx);
}

/**
 * Send every queued frame, once the backend has completed them (and the
 * pending tick, which stays pending).
 */
static int flush_queue(AVFilterContext *ctx)
{
    McfpsContext *s = ctx->priv;
    int err = 0;

    if (s->queue_rendering || s->pending_rendered) {
        const int pending_rendered = s->pending_rendered;
        s->queue_rendering  = 0;
        s->pending_rendered = 0;
        err = s->backend->finish(s->backend_priv);
        /* the waiting tick was not completed either: it never goes out */
        if (err < 0 && pending_rendered)
            av_frame_free(&s->pending);
    }
    for (int i = 0; i < s->nb_queued; i++) {
        if (err >= 0)
            err = ff_filter_frame(ctx->outputs[0], s->queue[i]);
        else
            av_frame_free(&s->queue[i]);
        s->queue[i] = NULL;
    }
    s->nb_queued = 0;
    return err;
}

/** The output tick of pts (input time base) rounded to nearest, as the fps filter places a frame. */
static int64_t tick_of(AVFilterContext *ctx, int64_t pts)
{
    return av_rescale_q_rnd(pts, ctx->inputs[0]->time_base, ctx->outputs[0]->time_base,
                            AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX);
}

/** Note the tick of frame, an input frame taken (A or B), where it is a key frame. */
static void note_key(AVFilterContext *ctx, const AVFrame *frame)
{
    McfpsContext *s = ctx->priv;
    const int64_t tick = tick_of(ctx, frame->pts);

    if (!(frame->flags & AV_FRAME_FLAG_KEY) ||
        (s->nb_key_ticks && s->key_ticks[s->nb_key_ticks - 1] >= tick))
        return;
    /* A, B, a held frame and the waiting tick: never as many as this */
    if (s->nb_key_ticks == MCFPS_KEY_TICKS)
        s->nb_key_ticks--;
    s->key_ticks[s->nb_key_ticks++] = tick;
}

/**
 * The time of pts (input time base) in tb_fine, or AV_NOPTS_VALUE where it
 * has none or lies beyond 2^52 fine ticks from zero.
 */
static int64_t fine_time(AVFilterContext *ctx, int64_t pts)
{
    McfpsContext *s = ctx->priv;
    int64_t t;

    if (pts == AV_NOPTS_VALUE)
        return AV_NOPTS_VALUE;
    t = av_rescale_q_rnd(pts, ctx->inputs[0]->time_base, s->tb_fine,
                         AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX);
    return t < -MCFPS_MAX_T || t > MCFPS_MAX_T ? AV_NOPTS_VALUE : t;
}

/** Free out after a failure; rendered: not while the backend may still write it. */
static void discard_frame(AVFilterContext *ctx, AVFrame **out, int rendered)
{
    McfpsContext *s = ctx->priv;

    /* the caller returns its own error: finish()'s would add nothing */
    if (rendered && s->backend->finish)
        s->backend->finish(s->backend_priv);
    av_frame_free(out);
}

/**
 * Set or clear frame's key-frame flag; before FFmpeg 8 also the deprecated
 * AVFrame.key_frame, which av_frame_copy_props() copies and encoders there
 * read back into the flag.
 */
static void set_key_frame(AVFrame *frame, int key)
{
    if (key)
        frame->flags |= AV_FRAME_FLAG_KEY;
    else
        frame->flags &= ~AV_FRAME_FLAG_KEY;
#if GPUME_FRAME_KEY_FIELD
FF_DISABLE_DEPRECATION_WARNINGS
    frame->key_frame = key;
FF_ENABLE_DEPRECATION_WARNINGS
#endif
}

/**
 * Send out, after the frames queued before it. rendered: render() wrote
 * it and the backend may still be writing it; then it waits in the queue.
 * Frames come here in the order of their ticks.
 */
static int queue_frame(AVFilterContext *ctx, AVFrame *out, int rendered)
{
    McfpsContext *s = ctx->priv;
    int err, n = 0;

    /* captions spread at the output rate join the tick as it is queued to
     * go out, when the frames after it that the fps filter would have read
     * are in the FIFO (a tick waits in s->pending for the next frame) */
    err = ff_ccfifo_inject(&s->cc_fifo, out);
    if (err < 0) {
        discard_frame(ctx, &out, rendered);
        return err;
    }
    while (n < s->nb_key_ticks && s->key_ticks[n] <= out->pts)
        n++;
    if (n) {
        set_key_frame(out, 1);
        s->nb_key_ticks -= n;
        memmove(s->key_ticks, s->key_ticks + n, s->nb_key_ticks * sizeof(*s->key_ticks));
    }

    if (!rendered && !s->nb_queued)
        return ff_filter_frame(ctx->outputs[0], out);
    if (s->nb_queued == MCFPS_QUEUE)
        err = flush_queue(ctx);
    if (err < 0) {
        discard_frame(ctx, &out, rendered);
        return err;
    }
    s->queue[s->nb_queued++] = out;
    s->queue_rendering |= rendered;
    return 0;
}

/**
 * Send the tick that waited for what follows its pair (send), or drop it
 * (the fps filter makes no tick at or after the end rounded to nearest);
 * it was the last tick made, and the next one takes its place.
 */
static int release_pending(AVFilterContext *ctx, int send)
{
    McfpsContext *s = ctx->priv;
    AVFrame *out = s->pending;
    const int rendered = s->pending_rendered;
    int err = 0;

    if (!out)
        return 0;
    s->pending          = NULL;
    s->pending_rendered = 0;
    if (send)
        return queue_frame(ctx, out, rendered);
    /* not freed while the backend may still write it */
    if (rendered && s->backend->finish)
        err = s->backend->finish(s->backend_priv);
    s->next = out->pts;
    av_frame_free(&out);
    return err;
}

/** Let out wait in s->pending, after the tick that waited there goes out. */
static int hold_frame(AVFilterContext *ctx, AVFrame *out, int rendered)
{
    McfpsContext *s = ctx->priv;
    const int err = release_pending(ctx, 1);

    if (err < 0) {
        discard_frame(ctx, &out, rendered);
        return err;
    }
    s->pending          = out;
    s->pending_rendered = rendered;
    return 0;
}

/**
 * Send out output tick out->pts (see queue_frame()). A tick of the pair
 * (s->a, s->b) at or after B's rounded tick waits in s->pending instead;
 * while s->b is set only the pair's ticks are sent.
 */
static int send_frame(AVFilterContext *ctx, AVFrame *out, int rendered)
{
    McfpsContext *s = ctx->priv;

    if (s->b && out->pts >= tick_of(ctx, s->b->pts))
        return hold_frame(ctx, out, rendered);
    return queue_frame(ctx, out, rendered);
}

/** The pixel format of frame's pixels: its frames context's for hardware frames. */
static int frame_sw_format(const AVFrame *frame)
{
    return frame->hw_frames_ctx ? ((const AVHWFramesContext *)frame->hw_frames_ctx->data)->sw_format :
                                  frame->format;
}

/**
 * Whether frame's pixels are where mcfps runs: in memory, or hardware
 * frames of its device (the CPU backend reads none).
 */
static int same_device(const McfpsContext *s, const AVFrame *frame)
{
    const AVHWFramesContext *hwfc = frame->hw_frames_ctx ?
                                    (const AVHWFramesContext *)frame->hw_frames_ctx->data : NULL;
    return !hwfc || (s->device_ref && hwfc->device_ref->data == s->device_ref->data);
}

/** 0 for a frame where mcfps runs, else an error for it (as gpume refuses such frames). */
static int check_device(AVFilterContext *ctx, const AVFrame *frame)
{
    const McfpsContext *s = ctx->priv;

    if (same_device(s, frame))
        return 0;
    if (!s->device_ref)
        av_log(ctx, AV_LOG_ERROR, "%s frames on the cpu backend, which reads frames in memory: "
               "a change to hardware frames needs a new filter graph (or hwdownload before mcfps)\n",
               av_get_pix_fmt_name(frame->format));
    else
        av_log(ctx, AV_LOG_ERROR, "hardware frames of another device than the one mcfps runs on: "
               "a change of device needs a new filter graph\n");
    return AVERROR(EINVAL);
}

/** Set up the fields for frames of the size and format of frame. */
static int setup(AVFilterContext *ctx, const AVFrame *frame)
{
    McfpsContext *s = ctx->priv;
    const int w = frame->width, h = frame->height;
    const int sw_format = frame_sw_format(frame);
    size_t cells;
    int err;

    /* what the running backend made goes out first */
    err = flush_queue(ctx);
    if (err < 0)
        return err;
    /* config_input checked the first frames' format; a change is checked here */
    if (!is_supported_sw_format(sw_format)) {
        av_log(ctx, AV_LOG_ERROR, "frames of %s: mcfps reads " MCFPS_FORMATS "\n",
               av_get_pix_fmt_name(sw_format));
        return AVERROR(ENOSYS);
    }
    err = check_device(ctx, frame);
    if (err < 0)
        return err;
    free_fields(s);
    s->p = (McfpsParams) {
        .width  = w, .height = h,
        .cw     = (w + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2,
        .ch     = (h + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2,
        .lambda = s->lambda, .rel_lo = s->rel_lo, .rel_hi = s->rel_hi,
    };
    s->format    = frame->format;
    cells        = (size_t)s->p.cw * s->p.ch;
    s->ra      = av_malloc_array(cells, 2 * sizeof(*s->ra));
    s->rb      = av_malloc_array(cells, 2 * sizeof(*s->rb));
    s->rb_prev = av_malloc_array(cells, 2 * sizeof(*s->rb_prev));
    s->check_d = av_malloc_array(cells, 2 * sizeof(*s->check_d));
    if (!s->ra || !s->rb || !s->rb_prev || !s->check_d) {
        err = AVERROR(ENOMEM);
        goto fail;
    }
    /* the backend started in config_input for the link's size: restart it
     * on the same device for another size or format */
    if (!s->backend_ready || w != s->fmt.width || h != s->fmt.height || sw_format != s->sw_format) {
        err = start_backend(ctx, w, h, sw_format);
        if (err < 0) {
            av_log(ctx, AV_LOG_ERROR, "the %s backend cannot restart for %dx%d %s: %s\n",
                   ff_gpume_device_name(s->active_device), w, h,
                   av_get_pix_fmt_name(sw_format), av_err2str(err));
            goto fail;
        }
    }
    s->sw_format = sw_format;
    return 0;
fail:
    /* no run: the next frame sets up again, whatever its size */
    free_fields(s);
    s->p.width = 0;
    return err;
}

/** Give the backend frame as the picture of slot (not needed for mode=dup). */
static int load_frame(AVFilterContext *ctx, int slot, const AVFrame *frame)
{
    McfpsContext *s = ctx->priv;
    if (s->mode == MCFPS_MODE_DUP)
        return 0;
    return s->backend->load(s->backend_priv, slot, frame);
}

/**
 * Remove what describes a frame of the input stream rather than of the
 * output: its vectors and keys, its picture type and key-frame flag (a
 * copy on several ticks is not several key frames).
 */
static int strip_input_properties(AVFrame *frame)
{
    frame->pict_type = AV_PICTURE_TYPE_NONE;
    set_key_frame(frame, 0);
    return ff_gpume_remove_properties(frame);
}

/**
 * The waiting tick, a copy of an input frame, becomes a copy of frame.
 * Captions spread at the output rate join the tick as it goes out; at other
 * rates the FIFO leaves them on their frames, and frame's come with it.
 */
static int replace_pending(McfpsContext *s, const AVFrame *frame)
{
    AVFrame *out = av_frame_clone(frame);
    int err;

    if (!out)
        return AVERROR(ENOMEM);
    err = strip_input_properties(out);
    if (err < 0) {
        av_frame_free(&out);
        return err;
    }
    out->pts      = s->pending->pts;
    out->duration = 1;
    av_frame_free(&s->pending);
    s->pending = out;
    return 0;
}

/** A copy of src's pixels as output tick s->next, in *out. */
static int make_copy(AVFilterContext *ctx, const AVFrame *src, AVFrame **out)
{
    McfpsContext *s = ctx->priv;
    int err;

    *out = av_frame_clone(src);
    if (!*out)
        return AVERROR(ENOMEM);
    err = strip_input_properties(*out);
    if (err < 0) {
        av_frame_free(out);
        return err;
    }
    (*out)->pts      = s->next++;
    (*out)->duration = 1;
    return 0;
}

/** Send a copy of src's pixels as output tick s->next. */
static int emit_copy(AVFilterContext *ctx, const AVFrame *src)
{
    AVFrame *out;
    const int err = make_copy(ctx, src, &out);
    return err < 0 ? err : send_frame(ctx, out, 0);
}

/** Runs of a frame's vectors taken on as many slice threads, at most. */
#define PAIR_RUNS_MAX 8

/** The vectors of one frame of the pair with the given source; with a field, rasterised into it. */
typedef struct PairVectors {
    const AVFrame *frame;
    int source, negate;
    const McfpsParams *p;
    int16_t *field;             ///< NULL: count only
    atomic_uint_least64_t *cells; ///< with runs, where they write the field (ff_mcfps_raster_run())
    McfpsRasterStats st;        ///< out (outside: prepare_pair() adds gpume's blocks that do not tile the frame)
    McfpsRasterStats run[PAIR_RUNS_MAX]; ///< with runs, each one's
} PairVectors;

/**
 * Vectors of a pair's two frames below which its fields are made on this
 * thread: a slice thread takes longer to wake than this thread to read them;
 * and per run of a frame's vectors on a thread of its own.
 */
#define PAIR_JOB_VECTORS 4096

/** The number of motion vectors that frame carries; the vectors into *mvs where mvs is not NULL. */
static int side_vectors(const AVFrame *frame, const AVMotionVector **mvs)
{
    const AVFrameSideData *sd = av_frame_get_side_data(frame, AV_FRAME_DATA_MOTION_VECTORS);
    if (mvs)
        *mvs = sd ? (const AVMotionVector *)sd->data : NULL;
    return sd ? sd->size / sizeof(AVMotionVector) : 0;
}

/** Job: run jobnr % (nb_jobs / 2) of the vectors of v[jobnr / (nb_jobs / 2)]. */
static int pair_vectors(AVFilterContext *ctx, void *arg, int jobnr, int nb_jobs)
{
    const int runs = nb_jobs / 2, r = jobnr % runs;
    PairVectors *v = (PairVectors *)arg + jobnr / runs;
    const AVMotionVector *mvs;
    const int nb = side_vectors(v->frame, &mvs);

    /* one pass over the side data, which is large (40 bytes a block) and
     * was written on other threads: in runs on several threads where the
     * graph has them, whose cells resolve_fields() makes the field */
    if (runs == 1)
        ff_mcfps_raster(mvs, nb, v->source, v->negate, v->p, v->field, &v->st);
    else
        ff_mcfps_raster_run(mvs, (int64_t)nb * r / runs, (int64_t)nb * (r + 1) / runs, v->source, v->negate,
                            v->p, v->field ? v->cells : NULL, &v->run[r]);
    return 0;
}

/** Job: band jobnr % (nb_jobs / 2) of the rows of v[jobnr / (nb_jobs / 2)]'s field, from its runs' cells. */
static int resolve_fields(AVFilterContext *ctx, void *arg, int jobnr, int nb_jobs)
{
    const int bands = nb_jobs / 2, r = jobnr % bands;
    PairVectors *v = (PairVectors *)arg + jobnr / bands;

    ff_mcfps_raster_resolve(v->p, v->cells, v->field, v->p->ch * r / bands, v->p->ch * (r + 1) / bands);
    return 0;
}

/**
 * The number of runs for the vectors of each frame of the pair v[0], v[1],
 * which carry total vectors (1: one pass each).
 */
static int pair_runs(AVFilterContext *ctx, PairVectors *v, int total)
{
    McfpsContext *s = ctx->priv;
    const int runs = av_clip(FFMIN(ff_filter_get_nb_threads(ctx) / 2, total / (2 * PAIR_JOB_VECTORS)),
                             1, PAIR_RUNS_MAX);
    const size_t cells = (size_t)s->p.cw * s->p.ch;

    /* the tags need 64 bits (FFmpeg's compat atomics for 32-bit Windows
     * have fewer); without memory for the cells, one pass each */
    if (runs == 1 || sizeof(*s->cells[0]) < sizeof(uint64_t))
        return 1;
    if (v[0].field && !s->cells[0]) {
        /* zero, as ff_mcfps_raster_run() takes them and leaves them */
        s->cells[0] = av_calloc(cells, sizeof(*s->cells[0]));
        s->cells[1] = av_calloc(cells, sizeof(*s->cells[1]));
        if (!s->cells[0] || !s->cells[1]) {
            av_freep(&s->cells[0]);
            av_freep(&s->cells[1]);
            return 1;
        }
    }
    v[0].cells = s->cells[0];
    v[1].cells = s->cells[1];
    return runs;
}

/** The fields and descriptions of both frames of the pair, v[0] and v[1]. */
static void rasterise_pair(AVFilterContext *ctx, PairVectors *v)
{
    McfpsContext *s = ctx->priv;
    const int total = side_vectors(v[0].frame, NULL) + side_vectors(v[1].frame, NULL);
    const int runs  = pair_runs(ctx, v, total);

    if (runs != s->pair_runs)
        av_log(ctx, AV_LOG_DEBUG, "the pair's vectors in %d run%s a frame\n", runs, runs > 1 ? "s" : "");
    s->pair_runs = runs;
    if (total < PAIR_JOB_VECTORS) {
        pair_vectors(ctx, v, 0, 2);
        pair_vectors(ctx, v, 1, 2);
        return;
    }
    ff_filter_execute(ctx, pair_vectors, v, NULL, 2 * runs);
    if (runs == 1)
        return;
    for (int i = 0; i < 2; i++) {
        v[i].st = v[i].run[0];
        for (int r = 1; r < runs; r++)
            ff_mcfps_raster_stats_add(&v[i].st, &v[i].run[r]);
    }
    if (v[0].field)
        ff_filter_execute(ctx, resolve_fields, v, NULL, 2 * runs);
}

/** The picture slot n after slot: B's is 1 after A's, P's 2 (the slots are taken in turn). */
static int slot_after(int slot, int n)
{
    return (slot + n) % MCFPS_SLOTS;
}

/** Phase (1..255) of fine time t between fine times t0 < t1, rounded to nearest (M1). */
static int phase(int64_t t, int64_t t0, int64_t t1)
{
    const int64_t phi = ((t - t0) * MCFPS_PHI_ONE + (t1 - t0) / 2) / (t1 - t0);
    return (int)av_clip64(phi, 1, MCFPS_PHI_ONE - 1);
}

/**
 * The motion check of the pair (s->a, B at fine time pb): how well the
 * vectors through A, P -> A (the last pair's rb) and A -> B (ra), rebuild
 * A from P and B.
 */
static int check_pair(AVFilterContext *ctx, int64_t pb)
{
    McfpsContext *s = ctx->priv;
    const int slot_b = slot_after(s->slot_a, 1), slot_p = slot_after(s->slot_a, 2);
    const int n = 2 * s->p.cw * s->p.ch;

    if (!s->check || !s->prev_valid)
        return s->backend->check(s->backend_priv, &s->p, NULL, 0, slot_p, s->slot_a, slot_b);
    for (int i = 0; i < n; i++)
        s->check_d[i] = s->rb_prev[i] + s->ra[i];
    return s->backend->check(s->backend_priv, &s->p, s->check_d, phase(s->pa, s->pp, pb),
                             slot_p, s->slot_a, slot_b);
}

/**
 * Build the vector fields of the pair (a, b), b at fine time pb. Fails when
 * neither frame carries vectors between them.
 */
static int prepare_pair(AVFilterContext *ctx, const AVFrame *b, int64_t pb)
{
    McfpsContext *s = ctx->priv;
    const AVFrame *a = s->a;
    const AVDictionary *meta;
    const AVDictionaryEntry *e;
    const int mc = s->mode == MCFPS_MODE_MC;
    double mean_sad;
    /* A's vectors into B are A -> B as they are; B's into A negated. In
     * mode=mc each field is rasterised on the way, both at once: the side
     * data of a frame is read once */
    PairVectors v[2] = {
        { .frame = a, .source =  1, .negate = 0, .p = &s->p, .field = mc ? s->ra : NULL },
        { .frame = b, .source = -1, .negate = 1, .p = &s->p, .field = mc ? s->rb : NULL },
    };
    int na, nb, err;
    int16_t *swap;

    s->pair_cut   = 0;
    s->pair_blend = 0;
    s->pair_phi_a = 0;
    rasterise_pair(ctx, v);
    na = v[0].st.nb;
    nb = v[1].st.nb;
    if (!na && !nb) {
        /* no mean SAD either: the next pair has none to compare with */
        s->pair_mean_sad = -1;
        if (s->mode != MCFPS_MODE_MC)
            return 0;
        /* once vectors came, a pair without (gpume's timeline, a decoder's
         * key frame) is one the producer left out: its average; so is one
         * that gpume marks as such from the start on (a frame its timeline
         * left out, or B first after a restart) */
        if (s->seen_vectors || av_dict_get(a->metadata, "lavfi.gpume.disabled", NULL, 0) ||
            av_dict_get(b->metadata, "lavfi.gpume.disabled", NULL, 0) ||
            av_dict_get(b->metadata, "lavfi.gpume.restart", NULL, 0)) {
            av_log(ctx, s->nb_blended ? AV_LOG_VERBOSE : AV_LOG_WARNING,
                   "no motion vectors between the frames at %s and %s: their average\n",
                   av_ts2timestr(a->pts, &ctx->inputs[0]->time_base),
                   av_ts2timestr(b->pts, &ctx->inputs[0]->time_base));
            if (!s->nb_blended++)
                av_log(ctx, AV_LOG_WARNING, "further pairs without vectors are logged at verbose level\n");
            s->pair_blend = 1;
            s->prev_valid = 0;
            return 0;
        }
        av_log(ctx, AV_LOG_ERROR, "no motion vectors between the frames at %s and %s: mode=mc needs "
               "AV_FRAME_DATA_MOTION_VECTORS into the next frame (source +1) on the earlier frame "
               "or into the previous frame (source -1) on the later one; put gpume=dir=bi (or "
               "dir=fwd) before mcfps, or use mode=blend or mode=dup\n",
               av_ts2timestr(a->pts, &ctx->inputs[0]->time_base),
               av_ts2timestr(b->pts, &ctx->inputs[0]->time_base));
        return AVERROR(EINVAL);
    }
    s->seen_vectors = 1;
    /* gpume's blocks tile the frame (its keys tell them from a decoder's,
     * which leave intra blocks out) */
    for (int i = 0; i < 2; i++)
        if (v[i].st.nb && av_dict_get(v[i].frame->metadata, "lavfi.gpume.mean_sad", NULL, 0))
            v[i].st.outside |= v[i].st.right != s->p.width || v[i].st.bottom != s->p.height;
    if (mc && (v[0].st.outside || v[1].st.outside) && !s->outside_noted) {
        av_log(ctx, AV_LOG_WARNING, "motion vectors of blocks that do not fit the %dx%d frame at "
               "%s: they describe frames of another size (scaled, cropped or turned after "
               "gpume); put gpume right before mcfps\n", s->p.width, s->p.height,
               av_ts2timestr((v[0].st.outside ? a : b)->pts, &ctx->inputs[0]->time_base));
        s->outside_noted = 1;
    }

    /* gpume describes the pair in the later frame's forward metadata, or
     * with dir=bwd in the earlier frame's backward metadata */
    meta = nb ? b->metadata : a->metadata;
    e = av_dict_get(meta, "lavfi.gpume.scene_score", NULL, 0);
    if (e && strtod(e->value, NULL) > s->scene) {
        av_log(ctx, AV_LOG_VERBOSE, "scene cut before %s (score %s): no interpolation\n",
               av_ts2timestr(b->pts, &ctx->inputs[0]->time_base), e->value);
        s->pair_cut = 1;
    }
    /* a cut between scenes whose blocks differ little (dark, smooth or low
     * in contrast) stays under the score, but the matching error still
     * jumps from the pair before, where motion changes it gradually */
    e = av_dict_get(meta, "lavfi.gpume.mean_sad", NULL, 0);
    mean_sad = e ? strtod(e->value, NULL) : -1;
    if (!s->pair_cut && s->scene_sad > 0 && mean_sad >= 0 && s->pair_mean_sad >= 0 &&
        mean_sad - s->pair_mean_sad > s->scene_sad) {
        av_log(ctx, AV_LOG_VERBOSE, "scene cut before %s (mean SAD %.4f after %.4f): no interpolation\n",
               av_ts2timestr(b->pts, &ctx->inputs[0]->time_base), mean_sad, s->pair_mean_sad);
        s->pair_cut = 1;
    }
    s->pair_mean_sad = mean_sad;
    if (s->mode != MCFPS_MODE_MC || s->pair_cut) {
        s->prev_valid = 0;
        return 0;
    }

    /* a missing direction is the other one (same positions, negated) */
    if (!na)
        memcpy(s->ra, s->rb, sizeof(*s->ra) * 2 * s->p.cw * s->p.ch);
    if (!nb)
        memcpy(s->rb, s->ra, sizeof(*s->rb) * 2 * s->p.cw * s->p.ch);
    /* the previous pair's B field (P -> A), smoothed by the backend, bends
     * this pair's trajectories */
    s->pair_phi_a = s->bend && s->prev_valid ? phase(s->pa, s->pp, pb) : 0;
    err = s->backend->fields(s->backend_priv, &s->p, s->ra, s->rb);
    if (err >= 0)
        err = check_pair(ctx, pb);
    if (err >= 0)
        err = ff_mcfps_dominant(&s->dominant, &s->p, s->ra, s->rb, &s->p.gx, &s->p.gy);
    s->prev_valid = 0;
    if (err < 0)
        return err;
    /* this pair's rb is the next one's P -> A */
    swap          = s->rb_prev;
    s->rb_prev    = s->rb;
    s->rb         = swap;
    s->prev_valid = 1;

    /* no vector moves and nothing differs: a source that repeats frames,
     * whose repeats mcfps would hold where they could be interpolated */
    e = av_dict_get(meta, "lavfi.gpume.mean_sad", NULL, 0);
    if (!s->repeat_noted && !s->p.gx && !s->p.gy && e && strtod(e->value, NULL) == 0.0) {
        av_log(ctx, AV_LOG_INFO, "the frames at %s and %s are the same picture; if the source "
               "repeats frames, mpdecimate before gpume (max=2 for up to three copies of a "
               "picture) lets mcfps interpolate across the repeats instead of holding them\n",
               av_ts2timestr(a->pts, &ctx->inputs[0]->time_base),
               av_ts2timestr(b->pts, &ctx->inputs[0]->time_base));
        s->repeat_noted = 1;
    }
    return 0;
}

/**
 * A frame for an output of the pictures of a: from the output link where a
 * is of its format and frames context, else (after a change mid-stream)
 * like a, so that every plane the backend writes is there.
 */
static AVFrame *output_buffer(AVFilterContext *ctx, const AVFrame *a)
{
    McfpsContext *s = ctx->priv;
    AVFilterLink *outlink = ctx->outputs[0];
    const FilterLink *ol = ff_filter_link(outlink);
    AVFrame *out;
    int err;

    if (a->hw_frames_ctx ? ol->hw_frames_ctx && a->hw_frames_ctx->data == ol->hw_frames_ctx->data :
                           !ol->hw_frames_ctx && a->format == outlink->format)
        return ff_get_video_buffer(outlink, s->p.width, s->p.height);
    out = av_frame_alloc();
    if (!out)
        return NULL;
    if (a->hw_frames_ctx) {
        err = av_hwframe_get_buffer(a->hw_frames_ctx, out, 0);
    } else {
        out->format = a->format;
        out->width  = s->p.width;
        out->height = s->p.height;
        err = av_frame_get_buffer(out, 0);
    }
    if (err < 0)
        av_frame_free(&out);
    return out;
}

/**
 * The properties of a frame made from a and the frame after it: a's, less
 * what describes a alone (its metadata, its per-frame side data such as
 * vectors and captions, its picture type and timestamps, its key-frame and
 * other flags but the field order, which is one for the stream). What describes the
 * stream (mastering display, display matrix, ICC profile, ...) holds for
 * the made frames too.
 */
static int made_frame_properties(AVFrame *out, const AVFrame *a)
{
    const int err = av_frame_copy_props(out, a);

    if (err < 0)
        return err;
    av_dict_free(&out->metadata);
    for (int i = 0; i < out->nb_side_data; ) {
        const AVSideDataDescriptor *desc = av_frame_side_data_desc(out->side_data[i]->type);
        if (desc && (desc->props & AV_SIDE_DATA_PROP_GLOBAL))
            i++;
        else
            av_frame_remove_side_data(out, out->side_data[i]->type);
    }
    out->pict_type             = AV_PICTURE_TYPE_NONE;
    out->flags                &= AV_FRAME_FLAG_INTERLACED | AV_FRAME_FLAG_TOP_FIELD_FIRST;
    set_key_frame(out, 0);
    out->repeat_pict           = 0;
    out->decode_error_flags    = 0;
    out->pkt_dts               = AV_NOPTS_VALUE;
    out->best_effort_timestamp = AV_NOPTS_VALUE;
    return 0;
}

/**
 * Make and send output tick s->next between s->a and b at phase phi
 * (1..255); nearer_b: the tick lies nearer b than s->a.
 */
static int interpolate(AVFilterContext *ctx, const AVFrame *b, int phi, int nearer_b)
{
    McfpsContext *s = ctx->priv;
    const AVFrame *a = s->a;
    AVFrame *out;
    int err;

    /* repeating: B from its own tick (its time rounded to nearest, as the
     * fps filter places frames) */
    if (s->mode == MCFPS_MODE_DUP)
        return emit_copy(ctx, tick_of(ctx, b->pts) <= s->next ? b : a);
    /* a cut: the nearer frame, the earlier one at the middle, as
     * minterpolate and framerate copy at a scene change */
    if (s->pair_cut)
        return emit_copy(ctx, nearer_b ? b : a);

    out = output_buffer(ctx, a);
    if (!out)
        return AVERROR(ENOMEM);
    /* a hardware frames context may hold larger frames (NVDEC's are of the
     * coded size, 1920x1088 for 1080p): the picture is their top left part,
     * as in the input frames */
    out->width  = s->p.width;
    out->height = s->p.height;
    err = made_frame_properties(out, a);
    if (err < 0) {
        av_frame_free(&out);
        return err;
    }

    /* the frame rendered before goes out now; this one renders while the
     * graph goes on, and waits in the queue */
    s->p.phi   = phi;
    s->p.phi_a = s->pair_phi_a ? s->pair_phi_a : MCFPS_PHI_ONE / 2;
    s->p.bend  = s->pair_phi_a ? mcfps_bend_weight(phi, s->pair_phi_a) : 0;
    err = flush_queue(ctx);
    if (err < 0) {
        av_frame_free(&out);
        return err;
    }
    err = s->backend->render(s->backend_priv, &s->p, s->pair_blend ? MCFPS_MODE_BLEND : s->mode,
                             s->slot_a, slot_after(s->slot_a, 1), out);
    if (err < 0) {
        av_log(ctx, AV_LOG_ERROR, "the %s backend failed: %s\n",
               ff_gpume_device_name(s->active_device), av_err2str(err));
        av_frame_free(&out);
        return err;
    }
    out->pts      = s->next++;
    out->duration = 1;
    return send_frame(ctx, out, !!s->backend->finish);
}

/**
 * Send s->a if it shows on a tick and waited for the check of its pair; with
 * hold, let it wait in s->pending for what follows, as a pair's last tick.
 */
static int send_a(AVFilterContext *ctx, int hold)
{
    McfpsContext *s = ctx->priv;
    AVFrame *out;
    int err;

    if (!s->a_on_tick)
        return 0;
    s->next--;
    err = make_copy(ctx, s->a, &out);
    if (err < 0) {
        s->next++;      /* the tick stays A's */
        return err;
    }
    s->a_on_tick = 0;
    return hold ? hold_frame(ctx, out, 0) : send_frame(ctx, out, 0);
}

/** A will not show on the tick it waits for: the tick is free for what follows. */
static void forget_a_tick(McfpsContext *s)
{
    if (s->a_on_tick) {
        s->a_on_tick = 0;
        s->next--;
    }
}

/** Whether frame continues the run: of its size and formats, and on its device. */
static int same_run(const McfpsContext *s, const AVFrame *frame)
{
    return frame->width == s->p.width && frame->height == s->p.height &&
           frame->format == s->format && frame_sw_format(frame) == s->sw_format &&
           same_device(s, frame);
}

/**
 * Take frame, at t, as the first of a new run: it shows on its tick rounded
 * to nearest when that lies at or before t, once the next frame has shown
 * that the pair can be converted (so that a stream without vectors fails
 * before any frame goes out).
 */
static int start_run(AVFilterContext *ctx, AVFrame *frame, int64_t t)
{
    McfpsContext *s = ctx->priv;
    const int64_t first = tick_of(ctx, frame->pts);
    int err;

    av_frame_free(&s->a);
    if (!s->p.width || !same_run(s, frame)) {
        err = setup(ctx, frame);
        if (err < 0) {
            forget_a_tick(s);
            av_frame_free(&frame);
            return err;
        }
    }
    s->a          = frame;
    s->pa         = t;
    s->slot_a     = 0;
    s->prev_valid = 0;
    s->pair_mean_sad = -1;
    err = load_frame(ctx, s->slot_a, frame);
    if (err < 0) {
        /* no run: the next frame starts one */
        forget_a_tick(s);
        av_frame_free(&s->a);
        return err;
    }
    /* ticks in a gap before a new run have nothing to show */
    s->next    = s->started ? FFMAX(s->next, first) : first;
    s->started = 1;
    if (s->next * MCFPS_PHI_ONE <= t) {
        s->a_on_tick = 1;
        s->next++;
    }
    note_key(ctx, frame);
    return 0;
}

/**
 * Drop an input frame that has no place in time, saying why: as a warning
 * the first time, at verbose level after it (a stream of such timestamps
 * would fill the log), and the count at the end.
 */
static av_printf_format(3, 4) void drop_input(AVFilterContext *ctx, AVFrame **frame,
                                              const char *fmt, ...)
{
    McfpsContext *s = ctx->priv;
    va_list vl;

    va_start(vl, fmt);
    av_vlog(ctx, s->nb_dropped ? AV_LOG_VERBOSE : AV_LOG_WARNING, fmt, vl);
    va_end(vl);
    if (!s->nb_dropped++)
        av_log(ctx, AV_LOG_WARNING, "further frames dropped for their timestamps are logged "
               "at verbose level\n");
    av_frame_free(frame);
}

/** Take the next input frame: the first of a run, or B of the pair (s->a, B) whose ticks follow. */
static int filter_frame(AVFilterContext *ctx, AVFrame *b)
{
    McfpsContext *s = ctx->priv;
    AVFilterLink *inlink = ctx->inputs[0];
    int64_t pb;
    int err;

    /* its captions go out with the output frames, whichever those are */
    ff_ccfifo_extract(&s->cc_fifo, b);
    /* frames have their place by their timestamps alone: as the fps filter
     * discards frames without one before the first timestamp, so does
     * mcfps, wherever they come (fps shows a later one on the ticks of the
     * frame before it) */
    if (b->pts == AV_NOPTS_VALUE) {
        drop_input(ctx, &b, "a frame without timestamp dropped (setpts can number frames)\n");
        return 0;
    }
    pb = fine_time(ctx, b->pts);
    if (pb == AV_NOPTS_VALUE) {
        drop_input(ctx, &b, "timestamp %s out of range; frame dropped\n",
                   av_ts2timestr(b->pts, &inlink->time_base));
        return 0;
    }
    if (!s->a)
        return start_run(ctx, b, pb);
    err = check_device(ctx, b);
    if (err < 0) {
        av_frame_free(&b);
        return err;
    }
    if (pb < s->pa || b->pts < s->a->pts) {
        drop_input(ctx, &b, "timestamp %s does not follow %s; frame dropped\n",
                   av_ts2timestr(b->pts, &inlink->time_base),
                   av_ts2timestr(s->a->pts, &inlink->time_base));
        return 0;
    }
    /* a frame placed after it: the last pair's tick that waited goes out */
    if (s->pending && tick_of(ctx, b->pts) > s->pending->pts) {
        err = release_pending(ctx, 1);
        if (err < 0) {
            av_frame_free(&b);
            return err;
        }
    }
    /* a later frame within 1/256 of an output frame of A and on A's tick
     * rounded to nearest: as the fps filter keeps the last frame of an
     * instant, it takes A's place, also on A's tick where that waits (on
     * the next tick, it follows A, as a pair without ticks between them) */
    if (pb == s->pa && tick_of(ctx, b->pts) == tick_of(ctx, s->a->pts)) {
        /* the tick waiting on that instant becomes a copy of the frame
         * once the frame is taken: one refused leaves the tick as it was */
        const int replace = s->pending && (s->pending->pts * MCFPS_PHI_ONE == pb ||
                                           s->mode == MCFPS_MODE_DUP);

        av_log(ctx, AV_LOG_DEBUG, "the frame at %s takes the place of the one at %s\n",
               av_ts2timestr(b->pts, &inlink->time_base),
               av_ts2timestr(s->a->pts, &inlink->time_base));
        err = start_run(ctx, b, pb);
        if (err >= 0 && replace)
            err = replace_pending(s, s->a);
        return err;
    }
    if (!same_run(s, b)) {
        char oname[64], nname[64];

        av_log(ctx, AV_LOG_WARNING, "frame size or format changed from %dx%d %s to %dx%d %s; "
               "restarting (the ticks before the new frame repeat the last old one)\n",
               s->p.width, s->p.height, ff_gpume_format_name(oname, sizeof(oname), s->format, s->sw_format),
               b->width, b->height,
               ff_gpume_format_name(nname, sizeof(nname), b->format, frame_sw_format(b)));
        s->held       = b;
        s->repeat_end = tick_of(ctx, b->pts);
        s->end_known  = 1;
        s->repeating  = 1;
        return 0;
    }

    /* commands take effect from the next pair */
    s->p.lambda = s->lambda;
    s->p.rel_lo = s->rel_lo;
    s->p.rel_hi = s->rel_hi;
    err = load_frame(ctx, slot_after(s->slot_a, 1), b);
    if (err >= 0)
        err = prepare_pair(ctx, b, pb);
    /* the first frame's tick goes out once a frame placed after it shows
     * that the fps filter makes it; else it waits as a pair's last does */
    if (err >= 0)
        err = send_a(ctx, tick_of(ctx, b->pts) < s->next);
    /* repeating, the waiting tick shows the last frame placed on or before
     * it, as the fps filter does (elsewhere a frame on the instant stays) */
    if (err >= 0 && s->mode == MCFPS_MODE_DUP &&
        s->pending && tick_of(ctx, b->pts) <= s->pending->pts)
        err = replace_pending(s, b);
    if (err < 0) {
        /* the pair is not made: the next one has no pair before it */
        s->prev_valid = 0;
        av_frame_free(&b);
        return err;
    }
    s->b  = b;
    s->pb = pb;
    note_key(ctx, b);
    return 0;
}

/** Send the next tick of the pair (s->a, s->b); after its last, B becomes A. */
static int pair_step(AVFilterContext *ctx)
{
    McfpsContext *s = ctx->priv;
    const int64_t t = s->next * MCFPS_PHI_ONE; /* after A's tick: t > s->pa */
    int err = 0;

    if (t < s->pb)
        return interpolate(ctx, s->b, phase(t, s->pa, s->pb), t - s->pa > s->pb - t);
    if (t == s->pb)
        err = emit_copy(ctx, s->b);
    av_frame_free(&s->a);
    s->a      = s->b;
    s->b      = NULL;
    s->pp     = s->pa;
    s->pa     = s->pb;
    s->slot_a = slot_after(s->slot_a, 1);
    return err;
}

/**
 * Send the next copy of s->a for the ticks before s->repeat_end (no later
 * frame to interpolate towards); after the last, start the held run, or
 * end the output.
 */
static int repeat_step(AVFilterContext *ctx)
{
    McfpsContext *s = ctx->priv;
    AVFrame *frame;
    int err;

    /* the tick of the last pair that waited for what follows; without an
     * end time, as the fps filter, none at or after the last frame's */
    if (s->pending)
        return release_pending(ctx, s->end_known && s->pending->pts < s->repeat_end);
    if (s->a_on_tick) {
        if (s->end_known && s->next - 1 < s->repeat_end)
            return send_a(ctx, 0);
        forget_a_tick(s);
    }
    if (s->a && s->end_known && s->next < s->repeat_end)
        return emit_copy(ctx, s->a);
    s->repeating = 0;
    if (s->held) {
        frame   = s->held;
        s->held = NULL;
        return start_run(ctx, frame, fine_time(ctx, frame->pts));
    }
    av_frame_free(&s->a);
    err = flush_queue(ctx);
    ff_outlink_set_status(ctx->outputs[0], s->in_status, s->next);
    return err;
}

/* one output frame per activation and request: a gap of any length holds
 * no more than a few frames */
static int activate(AVFilterContext *ctx)
{
    McfpsContext *s = ctx->priv;
    AVFilterLink *inlink = ctx->inputs[0], *outlink = ctx->outputs[0];
    AVFrame *frame;
    int64_t end;
    int ret;

    FF_FILTER_FORWARD_STATUS_BACK(outlink, inlink);

    if (s->b || s->repeating) {
        /* made frames are new pictures: one at a time as the output asks
         * for them, or a graph that runs until nothing is ready (a source
         * closed with AV_BUFFERSRC_FLAG_PUSH, as ffmpeg closes its inputs)
         * would hold them all; without a request (a caller that drains the
         * sink without asking) also while input waits behind them */
        if (!ff_outlink_frame_wanted(outlink) && !ff_inlink_queued_frames(inlink))
            return FFERROR_NOT_READY;
        ret = s->b ? pair_step(ctx) : repeat_step(ctx);
        /* after an error too: a caller that goes on gets the rest (a frame
         * refused at the restart of a run has taken the end's wake-up) */
        if (!ff_outlink_get_status(outlink))
            ff_filter_set_ready(ctx, 10);
        return ret;
    }

    if (!s->in_status) {
        ret = ff_inlink_consume_frame(inlink, &frame);
        if (ret < 0)
            return ret;
        if (ret > 0) {
            ret = filter_frame(ctx, frame);
            ff_filter_set_ready(ctx, 10);
            return ret;
        }
    }

    if (s->in_status || ff_inlink_acknowledge_status(inlink, &s->in_status, &s->in_status_pts)) {
        /* the last frame lasts until the end of the stream: the status's
         * time, else the end of the last frame where its duration is known */
        end = s->in_status_pts;
        if (fine_time(ctx, end) == AV_NOPTS_VALUE)
            end = s->a && s->a->duration > 0 && s->a->pts <= INT64_MAX - s->a->duration ?
                  s->a->pts + s->a->duration : AV_NOPTS_VALUE;
        s->end_known  = fine_time(ctx, end) != AV_NOPTS_VALUE;
        s->repeat_end = s->end_known ? tick_of(ctx, end) : 0;
        s->repeating = 1;
        ff_filter_set_ready(ctx, 10);
        return 0;
    }

    FF_FILTER_FORWARD_WANTED(outlink, inlink);
    return FFERROR_NOT_READY;
}

static const AVFilterPad mcfps_inputs[] = {
    {
        .name         = "default",
        .type         = AVMEDIA_TYPE_VIDEO,
        .config_props = config_input,
    },
};

static const AVFilterPad mcfps_outputs[] = {
    {
        .name         = "default",
        .type         = AVMEDIA_TYPE_VIDEO,
        .config_props = config_output,
    },
};

/**
 * A command changes options flagged AV_OPT_FLAG_RUNTIME_PARAM (scene, scene_sad,
 * lambda, rel_lo, rel_hi, check, bend); they take effect from the next pair.
 */
static int process_command(AVFilterContext *ctx, const char *cmd, const char *args,
                           char *res, int res_len, int flags)
{
    McfpsContext *s = ctx->priv;
    const int rel_lo = s->rel_lo, rel_hi = s->rel_hi;
    int err = ff_filter_process_command(ctx, cmd, args, res, res_len, flags);

    if (err < 0)
        return err;
    if (s->rel_lo >= s->rel_hi) {
        av_log(ctx, AV_LOG_ERROR, "rel_lo=%d must be below rel_hi=%d; command ignored\n",
               s->rel_lo, s->rel_hi);
        s->rel_lo = rel_lo;
        s->rel_hi = rel_hi;
        return AVERROR(EINVAL);
    }
    return 0;
}

const GPUME_FILTER ff_vf_mcfps = {
    GPUME_FILTER_P(name)        = "mcfps",
    GPUME_FILTER_P(description) = NULL_IF_CONFIG_SMALL("Convert the frame rate by motion compensation with the frames' motion vectors."),
    GPUME_FILTER_P(priv_class)  = &mcfps_class,
    GPUME_FILTER_P(flags)       = AVFILTER_FLAG_SLICE_THREADS | AVFILTER_FLAG_HWDEVICE,
    .priv_size     = sizeof(McfpsContext),
    .init          = init,
    .uninit        = uninit,
    .activate      = activate,
    .process_command = process_command,
    FILTER_INPUTS(mcfps_inputs),
    FILTER_OUTPUTS(mcfps_outputs),
    FILTER_PIXFMTS_ARRAY(pix_fmts),
    .flags_internal = FF_FILTER_FLAG_HWFRAME_AWARE,
};
