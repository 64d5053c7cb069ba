/*
 * gpume: block motion estimation on the GPU (or CPU), exported as
 * AV_FRAME_DATA_MOTION_VECTORS side data.
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

#include "config.h"

#include "libavutil/dict.h"
#include "libavutil/hwcontext.h"
#include "libavutil/mem.h"
#include "libavutil/motion_vector.h"
#include "libavutil/opt.h"
#include "libavutil/pixdesc.h"

#include "avfilter.h"
#include "filters.h"
#include "video.h"
#include "gpume_backend.h"
#include "gpume_device.h"
#include "gpume_compat.h"

#define HAVE_GPUME_CUDA GPUME_HAVE_CUDA

/**
 * Largest frame width and height: AVMotionVector stores positions as int16_t,
 * and src_x = dst_x + motion_x / motion_scale must fit with any vector.
 */
#define GPUME_MAX_DIM (INT16_MAX / 2)

enum GpumeDevice {
    DEVICE_AUTO   = GPUME_DEVICE_AUTO,
    DEVICE_CPU    = GPUME_DEVICE_CPU,
    DEVICE_CUDA   = GPUME_DEVICE_CUDA,
    DEVICE_OPENCL = GPUME_DEVICE_OPENCL,
};

/** A frame whose estimates have been issued. */
typedef struct GpumeInflight {
    AVFrame *frame;
    int fwd, bwd;               ///< which estimates were issued
    int restarted;              ///< the first frame after a restart (no vectors into the one before)
    int id;                     ///< result slot of direction d: 2 * id + d
    GpumeResult res[2];         ///< [0] forward, [1] backward
} GpumeInflight;

typedef struct GpumeContext {
    const AVClass *class;

    /* options */
    int algo, range, ctu, block, subpel, lambda, pu_penalty, pred, lfs_threshold;
    int vme_qp, vme_window;
    int dir, device, gpu_index;

    int active_device;          ///< device type in use (gpume_device.h)
    AVBufferRef *device_ref;    ///< the device in use, NULL for the CPU (owned)
    enum AVPixelFormat in_format; ///< format of the frames being estimated
    AVBufferRef *in_frames;     ///< their hardware frames context, if any

    GpumeParams params;
    int run_dir;                ///< the dir of the frames estimated since the last (re)start
    GpumeHost host;
    GpumeBackendLog backend_log; ///< the backend's log context (host.log_ctx)
    int cost_noted;             ///< warn_cost() spoke for the running backend
    GpumeSlices slices;         ///< the slice threads of the CPU backend (host.exec_opaque)
    const GpumeBackend *backend;
    void *backend_priv;
    int backend_ready;

    /*
     * Frame n lives in backend slot n % GPUME_NB_SLOTS. Estimates are
     * issued for one frame while those of the max_inflight() frames before
     * it may still be running (GPUME_MAX_INFLIGHT; none on the CPU), so a
     * frame leaves the filter when the work of as many frames after it has
     * been issued.
     */
    int64_t nb_loaded;          ///< frames loaded since the last (re)start
    AVFrame *pending;           ///< loaded, waiting for its next frame (dir has bwd)
    GpumeInflight inflight[GPUME_MAX_INFLIGHT + 1]; ///< estimates issued, oldest first, results not yet collected
    int nb_inflight;

    int last_out[2];            ///< result slot of the last estimate of each direction, -1: none
    int16_t *zero_pred;
    AVBufferPool *mv_pool;      ///< side data of both directions at most: no page faults per frame

    /* timeline and runtime commands (process_command) */
    int restart;                ///< RESTART_* flags: start estimation afresh before the next frame
    int restarted;              ///< a restart followed estimates: the sequences' first frames are marked
    int *saved_opts;            ///< option values before the pending commands
} GpumeContext;

/** What a restart before the next frame redoes. */
enum {
    RESTART_SEQUENCE = 1,       ///< the next frame is a first one (the timeline); the backend stays
    RESTART_BACKEND  = 2,       ///< also set the backend up again (other frames or options)
};

/** Value of the block option when it is not set: 8 (16 for algo=vme, whose macroblocks are 16x16). */
#define BLOCK_DEFAULT -1

/** Value of the range option when it is not set (range=auto). */
#define RANGE_AUTO 0
/** The largest range range=auto takes. */
#define RANGE_AUTO_MAX 32

/**
 * The search range the options ask for on w x h frames. range=auto: for
 * hme and dis, the motion of a pan across the picture's longer side in 20
 * frames (two thirds of a second at 30 fps), at least 16 and at most 32:
 * hme's coarse searches cost the square of the range, and on the CPU 64
 * takes about 1.8 times as long as 16 (the GPUs hide it). full, lfs and vme
 * cost the square of the range per pixel: 16.
 */
static int search_range(const GpumeContext *s, int w, int h)
{
    if (s->range != RANGE_AUTO)
        return s->range;
    if (s->algo != GPUME_ALGO_HME && s->algo != GPUME_ALGO_DIS)
        return 16;
    return av_clip(FFMAX(w, h) / 20, 16, RANGE_AUTO_MAX);
}

/** The exported block size the options ask for (0: block=auto). */
static int block_size(const GpumeContext *s)
{
    return s->block != BLOCK_DEFAULT ? s->block : s->algo == GPUME_ALGO_VME ? 16 : 8;
}

#define OFFSET(x) offsetof(GpumeContext, x)
#define FLAGS (AV_OPT_FLAG_VIDEO_PARAM | AV_OPT_FLAG_FILTERING_PARAM)
/* options a command (sendcmd, zmq) may change between frames */
#define RFLAGS (FLAGS | AV_OPT_FLAG_RUNTIME_PARAM)
#define CONST(name, help, val, u) \
    { name, help, 0, AV_OPT_TYPE_CONST, { .i64 = val }, 0, 0, FLAGS, .unit = u }

static const AVOption gpume_options[] = {
    { "algo", "search algorithm", OFFSET(algo), AV_OPT_TYPE_INT,
      { .i64 = GPUME_ALGO_HME }, 0, GPUME_ALGO_NB - 1, RFLAGS, .unit = "algo" },
        CONST("full", "exhaustive search with the PU-level SAD integral table", GPUME_ALGO_FULL, "algo"),
        CONST("hme",  "hierarchical: pyramid, coarse full search, PU-table refinement", GPUME_ALGO_HME, "algo"),
        CONST("lfs",  "local full search with early termination", GPUME_ALGO_LFS, "algo"),
        CONST("vme",  "Intel device-side VME (OpenCL, Intel Gen9-Gen11 GPUs)", GPUME_ALGO_VME, "algo"),
        CONST("dis",  "dense inverse search: coarse-to-fine flow of 8x8 patches, the mean over each block", GPUME_ALGO_DIS, "algo"),
    { "range", "integer search range in pixels, or auto: for hme and dis a twentieth of the "
      "picture's longer side, from 16 to 32; 16 for the other algorithms",
      OFFSET(range), AV_OPT_TYPE_INT, { .i64 = RANGE_AUTO }, RANGE_AUTO, GPUME_MAX_RANGE, RFLAGS, .unit = "range" },
        CONST("auto", "a twentieth of the picture's longer side (hme, dis), from 16 to 32; else 16", RANGE_AUTO, "range"),
    { "ctu", "coding tree unit size (16, 32 or 64)", OFFSET(ctu), AV_OPT_TYPE_INT,
      { .i64 = 32 }, 16, GPUME_MAX_CTU, RFLAGS },
    { "block", "exported block size (8, 16, 32 or 64, at most ctu), or auto: cost-optimal partition of each CTU; "
      "default 8 (16 for algo=vme)",
      OFFSET(block), AV_OPT_TYPE_INT, { .i64 = BLOCK_DEFAULT }, BLOCK_DEFAULT, GPUME_MAX_CTU, RFLAGS, .unit = "block" },
        CONST("auto", "cost-optimal partition from all PU shapes", 0, "block"),
        CONST("default", "8, or 16 for algo=vme", BLOCK_DEFAULT, "block"),
    { "subpel", "sub-pixel refinement: 0 integer, 1 half, 2 quarter pel", OFFSET(subpel), AV_OPT_TYPE_INT,
      { .i64 = 2 }, 0, 2, RFLAGS },
    { "lambda", "MV cost weight per quarter pel of vector difference", OFFSET(lambda), AV_OPT_TYPE_INT,
      { .i64 = 2 }, 0, GPUME_MAX_LAMBDA, RFLAGS },
    { "pu_penalty", "cost of each additional PU in block=auto mode", OFFSET(pu_penalty), AV_OPT_TYPE_INT,
      { .i64 = 256 }, 0, GPUME_MAX_PU_PENALTY, RFLAGS },
    { "pred", "MV predictor", OFFSET(pred), AV_OPT_TYPE_INT,
      { .i64 = GPUME_PRED_ZERO }, 0, GPUME_PRED_NB - 1, RFLAGS, .unit = "pred" },
        CONST("zero",     "predict (0,0)", GPUME_PRED_ZERO, "pred"),
        CONST("temporal", "the co-located CTU's vector of the previous frame", GPUME_PRED_TEMPORAL, "pred"),
    { "lfs_threshold", "lfs early-termination SAD per 64 pixels", OFFSET(lfs_threshold), AV_OPT_TYPE_INT,
      { .i64 = 32 }, 0, 64 * 255, RFLAGS },
    { "vme_qp", "vme: QP of the default MV cost table and shape penalties", OFFSET(vme_qp), AV_OPT_TYPE_INT,
      { .i64 = 26 }, 0, 51, RFLAGS },
    { "vme_window", "vme: search window", OFFSET(vme_window), AV_OPT_TYPE_INT,
      { .i64 = GPUME_VME_WINDOW_AUTO }, 0, GPUME_VME_WINDOW_NB - 1, RFLAGS, .unit = "vme_window" },
        CONST("auto",          "the smallest of the four windows below that covers range", GPUME_VME_WINDOW_AUTO, "vme_window"),
        CONST("exhaustive",    "48x40 (+-16 x +-12)", GPUME_VME_WINDOW_EXHAUSTIVE, "vme_window"),
        CONST("small",         "28x28 (+-6)", GPUME_VME_WINDOW_SMALL, "vme_window"),
        CONST("tiny",          "24x24 (+-4)", GPUME_VME_WINDOW_TINY, "vme_window"),
        CONST("extra_tiny",    "20x20 (+-2)", GPUME_VME_WINDOW_EXTRA_TINY, "vme_window"),
        CONST("diamond",       "48x40, diamond search path", GPUME_VME_WINDOW_DIAMOND, "vme_window"),
        CONST("large_diamond", "48x40, large diamond search path", GPUME_VME_WINDOW_LARGE_DIAMOND, "vme_window"),
    { "dir", "direction of the vectors", OFFSET(dir), AV_OPT_TYPE_INT,
      { .i64 = GPUME_DIR_FWD }, GPUME_DIR_FWD, GPUME_DIR_BI, RFLAGS, .unit = "dir" },
        CONST("fwd", "into the previous frame (source -1)", GPUME_DIR_FWD, "dir"),
        CONST("bwd", "into the next frame (source +1), one frame of delay", GPUME_DIR_BWD, "dir"),
        CONST("bi",  "both, one frame of delay", GPUME_DIR_BI, "dir"),
    { "device", "where the vectors are computed", OFFSET(device), AV_OPT_TYPE_INT,
      { .i64 = DEVICE_AUTO }, DEVICE_AUTO, DEVICE_OPENCL, FLAGS, .unit = "device" },
        CONST("auto",   "the input frames' or graph's device, else the first that works of cuda, an OpenCL GPU, cpu", DEVICE_AUTO, "device"),
        CONST("cpu",    "CPU reference, slice threaded", DEVICE_CPU, "device"),
        CONST("cuda",   "CUDA", DEVICE_CUDA, "device"),
        CONST("opencl", "OpenCL", DEVICE_OPENCL, "device"),
    { "gpu", "index of the GPU when the filter creates its own device", OFFSET(gpu_index), AV_OPT_TYPE_INT,
      { .i64 = 0 }, 0, 64, FLAGS },
    { NULL }
};

AVFILTER_DEFINE_CLASS(gpume);

#define device_name ff_gpume_device_name

static const GpumeBackend *backend_for(int device)
{
    switch (device) {
    case DEVICE_CPU:
        return &ff_gpume_backend_cpu;
#if HAVE_GPUME_CUDA
    case DEVICE_CUDA:
        return &ff_gpume_backend_cuda;
#endif
#if CONFIG_OPENCL
    case DEVICE_OPENCL:
        return &ff_gpume_backend_opencl;
#endif
    default:
        return NULL;
    }
}

/** Check the options' values and combinations: at initialisation, and on each command. */
static int check_options(AVFilterContext *ctx)
{
    GpumeContext *s = ctx->priv;
    const int block = block_size(s);

    if (s->ctu != 16 && s->ctu != 32 && s->ctu != 64) {
        av_log(ctx, AV_LOG_ERROR, "ctu=%d: must be 16, 32 or 64\n", s->ctu);
        return AVERROR(EINVAL);
    }
    if (block && (block < GPUME_MIN_CU || (block & (block - 1)))) {
        av_log(ctx, AV_LOG_ERROR, "block=%d: must be auto, 8, 16, 32 or 64\n", block);
        return AVERROR(EINVAL);
    }
    if (block > s->ctu && s->algo != GPUME_ALGO_VME) {
        av_log(ctx, AV_LOG_ERROR, "block=%d is larger than ctu=%d\n", block, s->ctu);
        return AVERROR(EINVAL);
    }
    if ((s->algo == GPUME_ALGO_LFS || s->algo == GPUME_ALGO_DIS) && !block) {
        av_log(ctx, AV_LOG_ERROR, "block=auto needs algo=full or algo=hme; %s uses fixed blocks\n",
               s->algo == GPUME_ALGO_LFS ? "lfs" : "dis");
        return AVERROR(EINVAL);
    }
    /* VME estimates 16x16 macroblocks (ctu is 16 whatever it says), each
     * with all its partitions (block=auto) or 16x16 only; the device check
     * (cl_intel_device_side_avc_motion_estimation) comes with the device */
    if (s->algo == GPUME_ALGO_VME) {
        if (s->device != DEVICE_AUTO && s->device != DEVICE_OPENCL) {
            av_log(ctx, AV_LOG_ERROR, "algo=vme runs on OpenCL only: use device=auto or device=opencl\n");
            return AVERROR(EINVAL);
        }
        /* a command, once a device runs */
        if (s->backend && s->active_device != DEVICE_OPENCL) {
            av_log(ctx, AV_LOG_ERROR, "algo=vme runs on OpenCL only; gpume runs on %s\n",
                   device_name(s->active_device));
            return AVERROR(EINVAL);
        }
        if (block && block != 16) {
            av_log(ctx, AV_LOG_ERROR, "block=%d: algo=vme exports 16x16 macroblocks (block=16) "
                   "or their VME partitions (block=auto)\n", block);
            return AVERROR(EINVAL);
        }
        if (!CONFIG_OPENCL) {
            av_log(ctx, AV_LOG_ERROR, "algo=vme needs an OpenCL device with "
                   "cl_intel_device_side_avc_motion_estimation (Intel Gen9-Gen11 GPU); "
                   "this build has no OpenCL\n");
            return AVERROR(ENOSYS);
        }
    }
    if (s->device != DEVICE_AUTO && s->device != DEVICE_CPU && !backend_for(s->device)) {
        av_log(ctx, AV_LOG_ERROR, "device=%s: this build has no %s backend\n",
               device_name(s->device), device_name(s->device));
        return AVERROR(ENOSYS);
    }
    return 0;
}

static av_cold int init(AVFilterContext *ctx)
{
    GpumeContext *s = ctx->priv;

    ff_gpume_backend_log_init(&s->backend_log, ctx);
    return check_options(ctx);
}

/** The next frame is the first of a sequence: no vectors into the one before, no temporal predictor. */
static void start_sequence(GpumeContext *s)
{
    s->last_out[0] = s->last_out[1] = -1;
    s->nb_loaded   = 0;
}

static void release_backend(GpumeContext *s)
{
    if (s->backend_ready)
        s->backend->uninit(s->backend_priv);
    s->backend_ready = 0;
    av_freep(&s->backend_priv);
    for (int i = 0; i < FF_ARRAY_ELEMS(s->inflight); i++) {
        for (int d = 0; d < 2; d++) {
            av_freep(&s->inflight[i].res[d].blocks);
            av_freep(&s->inflight[i].res[d].counts);
        }
        av_frame_free(&s->inflight[i].frame);
    }
    av_freep(&s->zero_pred);
    av_buffer_pool_uninit(&s->mv_pool);
    s->nb_inflight = 0;
    start_sequence(s);
}

static av_cold void uninit(AVFilterContext *ctx)
{
    GpumeContext *s = ctx->priv;
    release_backend(s);
    av_frame_free(&s->pending);
    av_buffer_unref(&s->in_frames);
    av_buffer_unref(&s->device_ref);
    av_freep(&s->saved_opts);
}

static const enum AVPixelFormat pix_fmts[] = {
    AV_PIX_FMT_GRAY8,
    AV_PIX_FMT_YUV410P, AV_PIX_FMT_YUV411P, AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P,
    AV_PIX_FMT_YUV440P, AV_PIX_FMT_YUV444P,
    AV_PIX_FMT_YUVJ411P, AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P,
    AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ444P,
    AV_PIX_FMT_YUVA420P, AV_PIX_FMT_YUVA422P, AV_PIX_FMT_YUVA444P,
    AV_PIX_FMT_NV12, AV_PIX_FMT_NV21, AV_PIX_FMT_NV16, AV_PIX_FMT_NV24, AV_PIX_FMT_NV42,
#if HAVE_GPUME_CUDA
    AV_PIX_FMT_CUDA,
#endif
#if CONFIG_OPENCL
    AV_PIX_FMT_OPENCL,
#endif
    AV_PIX_FMT_NONE
};

static int is_supported_sw_format(enum AVPixelFormat fmt)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(fmt);
    for (int i = 0; pix_fmts[i] != AV_PIX_FMT_NONE; i++)
        if (pix_fmts[i] == fmt)
            return !(desc->flags & AV_PIX_FMT_FLAG_HWACCEL);
    return 0;
}

/** w x h frames can carry AVMotionVectors (their positions are 16-bit), whatever the options. */
static int size_fits(int w, int h)
{
    return w <= GPUME_MAX_DIM && h <= GPUME_MAX_DIM;
}

/** Release the running backend and derive the parameters for w x h frames. */
static int set_params(AVFilterContext *ctx, int w, int h)
{
    GpumeContext *s = ctx->priv;
    GpumeParams *p = &s->params;
    /* restart()'s trial of the commands' options says why it failed at the
     * verbose level, as the backend does then */
    const int level = s->backend_log.level_offset ? AV_LOG_VERBOSE : AV_LOG_ERROR;
    int err;

    release_backend(s);
    s->run_dir = s->dir;
    *p = (GpumeParams) {
        .width = w, .height = h, .algo = s->algo, .range = search_range(s, w, h),
        .ctu = s->algo == GPUME_ALGO_VME ? 16 : s->ctu,
        .block = block_size(s), .subpel = s->subpel, .lambda = s->lambda,
        .pu_penalty = s->pu_penalty, .pred = s->pred, .lfs_threshold = s->lfs_threshold,
        .vme_qp = s->vme_qp, .vme_window = s->vme_window,
    };
    if (!size_fits(w, h)) {
        av_log(ctx, level, "frame size %dx%d: width and height must be at most %d; "
               "AVMotionVector stores positions as 16-bit integers and a block's source "
               "position (its centre plus the vector) must fit them. Scale or crop the "
               "input first\n", w, h, GPUME_MAX_DIM);
        return AVERROR(EINVAL);
    }
    err = ff_gpume_params_derive(p);
    if (err < 0) {
        av_log(ctx, level, "unsupported size %dx%d or option combination\n", w, h);
        return err;
    }
    if (s->range == RANGE_AUTO)
        av_log(ctx, AV_LOG_VERBOSE, "range=auto: %d pixels at %dx%d\n", p->range, w, h);
    return 0;
}

/** Start the backend of s->active_device on s->device_ref for s->params. */
static int start_backend(AVFilterContext *ctx)
{
    GpumeContext *s = ctx->priv;
    const GpumeParams *p = &s->params;
    int err, nb_slots;

    ff_gpume_slices_init(&s->slices, ctx);
    s->cost_noted = 0;
    s->host = (GpumeHost) {
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
    err = s->backend->init(s->backend_priv, &s->host, p);
    if (err < 0) {
        av_freep(&s->backend_priv);
        return err;
    }
    s->backend_ready = 1;

    nb_slots = p->nb_ctus * p->max_out;
    for (int d = 0; d < 2; d++) {
        for (int i = 0; i < FF_ARRAY_ELEMS(s->inflight); i++) {
            GpumeResult *r = &s->inflight[i].res[d];
            r->blocks = av_calloc(nb_slots, sizeof(*r->blocks));
            r->counts = av_calloc(p->nb_ctus, sizeof(*r->counts));
            if (!r->blocks || !r->counts)
                return AVERROR(ENOMEM);
            s->inflight[i].id = i;
        }
    }
    s->zero_pred = av_calloc(2 * p->nb_ctus, sizeof(*s->zero_pred));
    /* zeroed once: the vectors' fields are written one by one, their padding never */
    s->mv_pool   = av_buffer_pool_init(2 * (size_t)nb_slots * sizeof(AVMotionVector), av_buffer_allocz);
    if (!s->zero_pred || !s->mv_pool)
        return AVERROR(ENOMEM);
    av_log(ctx, AV_LOG_VERBOSE, "estimating %dx%d frames on the %s backend\n",
           p->width, p->height, s->backend->name);
    return 0;
}

/**
 * Restart estimation for w x h frames on the device in use. On failure
 * nothing runs, and the next frame, of any size, tries again.
 */
static int setup_backend(AVFilterContext *ctx, int w, int h)
{
    GpumeContext *s = ctx->priv;
    int err = set_params(ctx, w, h);
    if (err >= 0)
        err = start_backend(ctx);
    if (err < 0) {
        release_backend(s);
        s->params.width = s->params.height = 0;
    }
    return err;
}

/** ff_gpume_device_start()'s start: the backend of type on s->device_ref. */
static int start_on_device(AVFilterContext *ctx, int type)
{
    GpumeContext *s = ctx->priv;
    int err;

    s->active_device = type;
    err = start_backend(ctx);
    if (err < 0)
        release_backend(s);
    return err;
}

static int config_input(AVFilterLink *inlink)
{
    AVFilterContext *ctx = inlink->dst;
    GpumeContext *s = ctx->priv;
    FilterLink *l = ff_filter_link(inlink);
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(inlink->format);
    const unsigned supported = 1 << DEVICE_CPU |
                               (backend_for(DEVICE_CUDA)   ? 1 << DEVICE_CUDA   : 0) |
                               (backend_for(DEVICE_OPENCL) ? 1 << DEVICE_OPENCL : 0);
    GpumeDevicePlan plan;
    int err;

    if (desc->flags & AV_PIX_FMT_FLAG_HWACCEL) {
        const AVHWFramesContext *frames = l->hw_frames_ctx ?
            (const AVHWFramesContext *)l->hw_frames_ctx->data : NULL;
        if (!frames || !is_supported_sw_format(frames->sw_format)) {
            av_log(ctx, AV_LOG_ERROR, "unsupported hardware frames: %s; "
                   "an 8-bit YUV or gray software format is needed\n",
                   frames ? av_get_pix_fmt_name(frames->sw_format) : "no frames context");
            return AVERROR(ENOSYS);
        }
        if (inlink->format != AV_PIX_FMT_CUDA && inlink->format != AV_PIX_FMT_OPENCL) {
            av_log(ctx, AV_LOG_ERROR, "%s frames: gpume reads CUDA or OpenCL frames; use "
                   "hwdownload for the %s backend\n", desc->name, device_name(s->device));
            return AVERROR(ENOSYS);
        }
    }
    err = ff_gpume_device_plan(ctx, inlink, s->device, s->gpu_index, supported,
                               s->algo == GPUME_ALGO_VME, &plan);
    if (err < 0)
        return err;
    s->in_format = inlink->format;
    if (av_buffer_replace(&s->in_frames, l->hw_frames_ctx) < 0)
        return AVERROR(ENOMEM);
    err = set_params(ctx, inlink->w, inlink->h);
    if (err < 0)
        return err;

    return ff_gpume_device_start(ctx, &plan, &s->device_ref, &s->backend_log, start_on_device);
}

static int config_output(AVFilterLink *outlink)
{
    AVFilterContext *ctx = outlink->src;
    FilterLink *il = ff_filter_link(ctx->inputs[0]);
    FilterLink *ol = ff_filter_link(outlink);

    return av_buffer_replace(&ol->hw_frames_ctx, il->hw_frames_ctx);
}

/** Jobs that turn a frame's results into side data; CTU rows split between them. */
#define EXPORT_JOBS 8
/**
 * Blocks of a job at least: a slice thread takes longer to wake than this
 * thread to write a few thousand vectors.
 */
#define EXPORT_JOB_BLOCKS 2048

typedef struct ExportJobs {
    const GpumeContext *s;
    const GpumeResult *res;     ///< of the direction being exported
    int d;                      ///< 0: forward (source -1), 1: backward (source +1)
    AVMotionVector *mv;         ///< its vectors, in CTU order
    uint64_t sad_sum[EXPORT_JOBS], bad_area[EXPORT_JOBS];
} ExportJobs;

/** Write the vectors of CTUs [c0, c1) and sum their SADs and badly predicted area. */
static int export_ctus(void *arg, int jobnr, int nb_jobs)
{
    ExportJobs *e = arg;
    const GpumeParams *p = &e->s->params;
    const GpumeResult *res = e->res;
    const int shift = 2 - p->subpel;
    const int c0 = (int)((int64_t)p->nb_ctus * jobnr / nb_jobs);
    const int c1 = (int)((int64_t)p->nb_ctus * (jobnr + 1) / nb_jobs);
    uint64_t sad_sum = 0, bad_area = 0;
    AVMotionVector *mv = e->mv;

    for (int c = 0; c < c0; c++)
        mv += res->counts[c];
    for (int c = c0; c < c1; c++) {
        const GpumeBlock *b = res->blocks + (size_t)c * p->max_out;
        for (int i = 0; i < res->counts[c]; i++, mv++) {
            sad_sum += b[i].sad;
            if (b[i].sad > (uint64_t)GPUME_SCENE_BAD_SAD * b[i].w * b[i].h)
                bad_area += b[i].w * b[i].h;
            mv->source        = e->d ? 1 : -1;
            mv->w             = b[i].w;
            mv->h             = b[i].h;
            mv->dst_x         = b[i].x + b[i].w / 2;
            mv->dst_y         = b[i].y + b[i].h / 2;
            mv->motion_scale  = 1 << p->subpel;
            mv->motion_x      = b[i].mvx >> shift;
            mv->motion_y      = b[i].mvy >> shift;
            /* nearest integer position, halves rounded up */
            mv->src_x         = mv->dst_x + ((b[i].mvx + 2) >> 2);
            mv->src_y         = mv->dst_y + ((b[i].mvy + 2) >> 2);
            mv->flags         = 0;
        }
    }
    e->sad_sum[jobnr]  = sad_sum;
    e->bad_area[jobnr] = bad_area;
    return 0;
}

/**
 * Write the nb vectors of res (direction d) into mv on the slice threads and
 * return the sum of their SADs and the area of the badly predicted blocks.
 */
static void export_vectors(AVFilterContext *ctx, const GpumeResult *res, int d, int nb,
                           AVMotionVector *mv, uint64_t *sad_sum, uint64_t *bad_area)
{
    GpumeContext *s = ctx->priv;
    ExportJobs e = { .s = s, .res = res, .d = d, .mv = mv };
    const int nb_jobs = FFMIN3(s->params.nb_ctus, s->host.nb_threads > 1 ? EXPORT_JOBS : 1,
                               1 + nb / EXPORT_JOB_BLOCKS);

    ff_gpume_execute_slices(&s->slices, export_ctus, &e, nb_jobs);
    *sad_sum = *bad_area = 0;
    for (int j = 0; j < nb_jobs; j++) {
        *sad_sum  += e.sad_sum[j];
        *bad_area += e.bad_area[j];
    }
}

static int count_blocks(const GpumeParams *p, const GpumeResult *res)
{
    int n = 0;
    for (int c = 0; c < p->nb_ctus; c++)
        n += res->counts[c];
    return n;
}

static int slot_of(int64_t n)
{
    return n % GPUME_NB_SLOTS;
}

/**
 * Issue estimate d (0: into frame n-1, 1: into frame n+1) of frame n into
 * its result slot. pred=temporal: the predictor is the previous estimate of
 * the same direction, read on the device from its result slot.
 */
static int issue_dir(GpumeContext *s, GpumeInflight *in, int64_t n, int d)
{
    const int temporal = s->params.pred == GPUME_PRED_TEMPORAL;
    const int out = 2 * in->id + d;
    int err = s->backend->estimate(s->backend_priv, slot_of(n), slot_of(d ? n + 1 : n - 1),
                                   s->zero_pred, temporal ? s->last_out[d] : -1, out, &in->res[d]);
    /* after a failure no result predicts: the slot last written may be reused */
    s->last_out[d] = err >= 0 ? out : -1;
    return err;
}

/**
 * Issue the estimates of frame number n (fwd: into n-1, bwd: into n+1);
 * the frame then waits in inflight for its results.
 */
static int issue(AVFilterContext *ctx, AVFrame *frame, int64_t n, int fwd, int bwd)
{
    GpumeContext *s = ctx->priv;
    GpumeInflight *in = &s->inflight[s->nb_inflight];
    int err = 0;

    in->frame     = frame;
    in->fwd       = 0;
    in->bwd       = 0;
    in->restarted = !n && s->restarted;
    s->nb_inflight++;
    /* an estimate issued is waited for, also when the other one failed
     * (its result slot must be freed); the frame goes out in any case */
    if (fwd) {
        err = issue_dir(s, in, n, 0);
        in->fwd = err >= 0;
    }
    if (err >= 0 && bwd) {
        err = issue_dir(s, in, n, 1);
        in->bwd = err >= 0;
    }
    return err;
}

/**
 * Remove what an earlier gpume (or the decoder) left that this instance's
 * vectors do not back: the vectors, every lavfi.gpume.* key; pict_type I,
 * that of a frame without vectors.
 */
static int remove_stale_properties(AVFrame *frame)
{
    frame->pict_type = AV_PICTURE_TYPE_I;
    return ff_gpume_remove_properties(frame);
}

/** Wait for the oldest issued frame's results, attach them and send it on. */
static int finish_oldest(AVFilterContext *ctx)
{
    GpumeContext *s = ctx->priv;
    const GpumeParams *p = &s->params;
    GpumeInflight in = s->inflight[0];
    GpumeResult res[2] = { in.res[0], in.res[1] }; /* or the backend's read-back */
    AVFrame *frame = in.frame;
    uint64_t sad_sum = 0, bad_area = 0, sad_bwd = 0, bad_bwd = 0;
    int err = 0, wait_err = 0, n[2] = { 0, 0 };

    /* keep the result buffers and slots, move the frame out */
    memmove(&s->inflight[0], &s->inflight[1], (FF_ARRAY_ELEMS(s->inflight) - 1) * sizeof(in));
    s->inflight[FF_ARRAY_ELEMS(s->inflight) - 1] = in;
    s->inflight[FF_ARRAY_ELEMS(s->inflight) - 1].frame = NULL;
    s->nb_inflight--;

    /* both directions are waited for, so that both result slots are free
     * again; after a failure the frame goes out without vectors, as after
     * a failed issue(), and the error is returned */
    if (!s->backend->wait) {
        wait_err = s->backend->sync(s->backend_priv);
    } else {
        if (in.fwd)
            wait_err = s->backend->wait(s->backend_priv, 2 * in.id, &res[0]);
        if (in.bwd) {
            err = s->backend->wait(s->backend_priv, 2 * in.id + 1, &res[1]);
            wait_err = wait_err < 0 ? wait_err : err;
        }
    }
    if (wait_err < 0)
        in.fwd = in.bwd = 0;

    /* nothing of an earlier gpume (or of the decoder) survives that the
     * vectors of this frame do not back */
    err = remove_stale_properties(frame);
    if (err >= 0 && in.restarted)
        err = av_dict_set(&frame->metadata, "lavfi.gpume.restart", "1", 0);
    if (err < 0)
        goto fail;
    if (in.fwd)
        n[0] = count_blocks(p, &res[0]);
    if (in.bwd)
        n[1] = count_blocks(p, &res[1]);
    frame->pict_type = n[1] ? AV_PICTURE_TYPE_B : n[0] ? AV_PICTURE_TYPE_P : AV_PICTURE_TYPE_I;
    if (n[0] + n[1]) {
        AVBufferRef *buf = av_buffer_pool_get(s->mv_pool);
        AVFrameSideData *sd;
        if (buf)
            buf->size = (n[0] + n[1]) * sizeof(AVMotionVector);
        sd = buf ? av_frame_new_side_data_from_buf(frame, AV_FRAME_DATA_MOTION_VECTORS, buf) : NULL;
        if (!sd) {
            av_buffer_unref(&buf);
            err = AVERROR(ENOMEM);
            goto fail;
        }
        if (n[0])
            export_vectors(ctx, &res[0], 0, n[0], (AVMotionVector *)sd->data, &sad_sum, &bad_area);
        if (n[1])
            export_vectors(ctx, &res[1], 1, n[1], (AVMotionVector *)sd->data + n[0], &sad_bwd, &bad_bwd);
    }
    /* the metadata describe one direction on every frame: the backward
     * vectors with dir=bwd, else the forward ones (none on the first frame) */
    if (s->run_dir == GPUME_DIR_BWD ? n[1] : n[0]) {
        const double area = (double)p->width * p->height;
        char buf[32];
        if (s->run_dir == GPUME_DIR_BWD) {
            sad_sum  = sad_bwd;
            bad_area = bad_bwd;
        }
        snprintf(buf, sizeof(buf), "%.4f", sad_sum / area);
        err = av_dict_set(&frame->metadata, "lavfi.gpume.mean_sad", buf, 0);
        snprintf(buf, sizeof(buf), "%.4f", bad_area / area);
        if (err >= 0)
            err = av_dict_set(&frame->metadata, "lavfi.gpume.scene_score", buf, 0);
        if (err < 0)
            goto fail;
    }
    err = ff_filter_frame(ctx->outputs[0], frame);
    return wait_err < 0 ? wait_err : err;
fail:
    av_frame_free(&frame);
    return err;
}

/** Frames whose estimates may still run when the next frame's are issued. */
static int max_inflight(const GpumeContext *s)
{
    return s->backend->synchronous ? 0 : GPUME_MAX_INFLIGHT;
}

/** Send every frame held by the filter: the pending one gets forward vectors only. */
static int flush(AVFilterContext *ctx)
{
    GpumeContext *s = ctx->priv;
    int err = 0;

    if (s->pending) {
        AVFrame *frame = s->pending;
        const int64_t n = s->nb_loaded - 1;
        int ret;
        s->pending = NULL;
        /* a slot is free after finish_oldest(), even one that failed */
        if (s->nb_inflight > max_inflight(s))
            err = finish_oldest(ctx);
        ret = issue(ctx, frame, n, (s->run_dir & GPUME_DIR_FWD) && n > 0, 0);
        err = err < 0 ? err : ret;
    }
    while (s->nb_inflight > 0) {
        int ret = finish_oldest(ctx);
        err = err < 0 ? err : ret;
    }
    return err;
}

/**
 * Compare a frame with the ones being estimated. Returns 0 when it continues
 * the stream, 1 when estimation must restart for it (a new size, another
 * supported software format, or new hardware frames of the same device and a
 * supported format; a warning says which), or an error for a frame the
 * running backend cannot read (any other change of format or device): that
 * needs a new filter graph, as the ffmpeg CLI builds unless -reinit_filter 0.
 */
static int check_frame(AVFilterContext *ctx, const AVFrame *frame)
{
    GpumeContext *s = ctx->priv;
    const AVHWFramesContext *ofc = s->in_frames ? (const AVHWFramesContext *)s->in_frames->data : NULL;
    const AVHWFramesContext *nfc = frame->hw_frames_ctx ?
                                   (const AVHWFramesContext *)frame->hw_frames_ctx->data : NULL;
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(frame->format);
    char oname[64], nname[64], sizes[48] = "";

    if (frame->width < 1 || frame->height < 1) {
        av_log(ctx, AV_LOG_ERROR, "a frame of %dx%d pixels has nothing to estimate\n",
               frame->width, frame->height);
        return AVERROR(EINVAL);
    }
    ff_gpume_format_name(oname, sizeof(oname), s->in_format, ofc ? ofc->sw_format : AV_PIX_FMT_NONE);
    ff_gpume_format_name(nname, sizeof(nname), frame->format, nfc ? nfc->sw_format : AV_PIX_FMT_NONE);
    /* no size after a failed set-up: its error said why */
    if (s->params.width)
        snprintf(sizes, sizeof(sizes), " (%dx%d to %dx%d)", s->params.width, s->params.height,
                 frame->width, frame->height);
    if (frame->format == s->in_format && nfc == ofc) {
        if (frame->width == s->params.width && frame->height == s->params.height)
            return 0;
        if (s->params.width)
            av_log(ctx, AV_LOG_WARNING, "frame size changed from %dx%d to %dx%d; "
                   "restarting estimation\n", s->params.width, s->params.height,
                   frame->width, frame->height);
        return 1;
    }
    if (desc && !(desc->flags & AV_PIX_FMT_FLAG_HWACCEL) && !ofc && !nfc &&
        is_supported_sw_format(frame->format)) {
        av_log(ctx, AV_LOG_WARNING, "pixel format changed from %s to %s%s; restarting "
               "estimation\n", oname, nname, sizes);
        s->in_format = frame->format;
        return 1;
    }
    if (frame->format == s->in_format && ofc && nfc &&
        nfc->device_ref->data == ofc->device_ref->data && is_supported_sw_format(nfc->sw_format)) {
        /* a decoder that starts again gives frames of a new context whose
         * format and size may be those of the old one */
        if (nfc->sw_format == ofc->sw_format && frame->width == s->params.width &&
            frame->height == s->params.height)
            av_log(ctx, AV_LOG_WARNING, "%dx%d %s frames of a new hardware frames context "
                   "on the same device; restarting estimation\n",
                   frame->width, frame->height, nname);
        else
            av_log(ctx, AV_LOG_WARNING, "hardware frames changed from %s to %s on the same "
                   "device%s; restarting estimation\n", oname, nname, sizes);
        if (av_buffer_replace(&s->in_frames, frame->hw_frames_ctx) < 0)
            return AVERROR(ENOMEM);
        return 1;
    }
    av_log(ctx, AV_LOG_ERROR, "a %s frame followed %s frames%s; "
           "gpume reads 8-bit luma of the software formats it lists, or hardware frames "
           "of the device it runs on, and cannot take this change without a new filter "
           "graph (the ffmpeg CLI builds one unless -reinit_filter 0 is given)\n", nname, oname,
           ofc && nfc && nfc->device_ref->data != ofc->device_ref->data ? " on another device" : "");
    return AVERROR(EINVAL);
}

/** Search operations (absolute differences) per second of one thread of the CPU backend, and of a GPU */
#define CPU_OPS_PER_S 1e10
#define GPU_OPS_PER_S 1e12

/**
 * A frame's search cannot be interrupted (FFmpeg gives a filter no means to
 * cancel one): say so before a frame whose search takes more than a few
 * seconds, and name the options that make it fast.
 */
static void warn_cost(AVFilterContext *ctx)
{
    GpumeContext *s = ctx->priv;
    const GpumeParams *p = &s->params;
    /* the search covers whole CTUs: a 16000x1 frame costs as much as 16000x32 */
    const double r = p->range, area = (double)p->ctu_cols * p->ctu * p->ctu_rows * p->ctu;
    const int cpu = s->backend == &ff_gpume_backend_cpu;
    const int nb_dir = (s->run_dir & GPUME_DIR_FWD ? 1 : 0) + (s->run_dir & GPUME_DIR_BWD ? 1 : 0);
    /* candidates per pixel: full search (lfs stops early, but may not), or
     * hme's coarse search at 1/4 resolution, its three 5x5 refinements and
     * the blocks' search at 1/2, the eight 5x5 windows, two block vectors and
     * two 3x3 rounds at full resolution, plus the sub-pel steps */
    const double r1 = 2 * ceil(r / 2) + 1, r2 = 2 * ceil(r / 4) + 1;
    const double hme_ops = r2 * r2 / 16 + 3 * 25 / 4.0 + r1 * r1 / 4 + GPUME_HME_CANDIDATES +
                           2 + GPUME_HME_ROUNDS * 9 + 16;
    double ops, secs;
    char remedy[80];

    /* dis costs the same at every range, a small multiple of hme; once for
     * a backend's set-up, not at each sequence it runs */
    if (p->algo == GPUME_ALGO_VME || p->algo == GPUME_ALGO_DIS || s->cost_noted)
        return;
    if (p->algo == GPUME_ALGO_HME)
        ops = hme_ops;
    else
        ops = (2 * r + 1) * (2 * r + 1);
    ops *= area * nb_dir;
    secs = ops / (cpu ? CPU_OPS_PER_S * FFMAX(s->host.nb_threads, 1) : GPU_OPS_PER_S);
    if (secs < 4)
        return;
    if (p->algo == GPUME_ALGO_HME)
        snprintf(remedy, sizeof(remedy), "smaller frames (scale) make it faster");
    else
        snprintf(remedy, sizeof(remedy), "algo=hme searches the same range about %.0f times faster",
                 (2 * r + 1) * (2 * r + 1) / hme_ops);
    av_log(ctx, AV_LOG_INFO, "%dx%d, algo=%s, range=%d: about %.0f s of search per frame on "
           "the %s backend, and a frame's search cannot be interrupted (on Ctrl-C the "
           "ffmpeg CLI still filters every frame it has queued); %s\n", p->width, p->height,
           p->algo == GPUME_ALGO_FULL ? "full" : p->algo == GPUME_ALGO_LFS ? "lfs" : "hme",
           p->range, secs, s->backend->name, remedy);
    s->cost_noted = 1;
}

/** The number of int options (copy_options()). */
static int nb_int_options(void)
{
    int nb = 0;
    for (const AVOption *o = gpume_options; o->name; o++)
        nb += o->type == AV_OPT_TYPE_INT;
    return nb;
}

/** Save (restore = 0) or restore the values of the filter's int options. */
static void copy_options(GpumeContext *s, int *saved, int restore)
{
    int i = 0;
    for (const AVOption *o = gpume_options; o->name; o++) {
        int *v = (int *)((uint8_t *)s + o->offset);
        if (o->type != AV_OPT_TYPE_INT)
            continue;
        if (restore)
            *v = saved[i++];
        else
            saved[i++] = *v;
    }
}

/**
 * Start estimation afresh for w x h frames (the next frame's size) with the
 * current options, after a change of frames (check_frame()), commands or the
 * timeline, once the frames held have gone out (flush()): the backend is set
 * up again where frames or options changed (a new range, block size or
 * algorithm may need other buffers and kernels), and the next frame is the
 * first of a new sequence. Options
 * changed by commands that cannot be set up for these frames are replaced
 * by the previous ones where those can. On failure the restart, or the
 * choice between the commands' options and those before, is the next
 * frame's to make again.
 */
static int restart(AVFilterContext *ctx, int w, int h)
{
    GpumeContext *s = ctx->priv;
    const int backend = s->restart & RESTART_BACKEND;
    int cmd_opts[FF_ARRAY_ELEMS(gpume_options)];
    int err, fallback;

    s->restart    = 0;
    s->restarted |= s->nb_loaded > 0;   /* the sequence that ends had frames */
    if (!backend && s->backend_ready) {
        /* the timeline only: the same frames and options, so the same
         * backend (an OpenCL or CUDA set-up costs far more than a frame) */
        start_sequence(s);
        return 0;
    }
    /* the commands' values, if they changed any, may be what fails: then
     * the previous ones are tried, and the errors with the commands' values
     * are verbose lines, the warning below says why */
    fallback = s->saved_opts && size_fits(w, h);
    if (fallback) {
        copy_options(s, cmd_opts, 0);
        fallback = !!memcmp(cmd_opts, s->saved_opts, nb_int_options() * sizeof(*cmd_opts));
    }
    if (fallback)
        s->backend_log.level_offset = AV_LOG_VERBOSE - AV_LOG_ERROR;
    err = setup_backend(ctx, w, h);
    s->backend_log.level_offset = 0;
    if (err < 0 && fallback) {
        copy_options(s, s->saved_opts, 1);
        if (setup_backend(ctx, w, h) >= 0) {
            av_log(ctx, AV_LOG_WARNING, "the options set by the last commands cannot be "
                   "used (%s); going on with the previous ones\n", av_err2str(err));
            err = 0;
        } else {
            copy_options(s, cmd_opts, 1); /* the frames' fault, not the commands' */
        }
    }
    /* after a failure the next frame sets up again, from the same choice */
    if (err >= 0)
        av_freep(&s->saved_opts);
    return err;
}

/**
 * Send frame on without vectors (also none of an earlier gpume), after the
 * frames held (the last of them without backward vectors, as at the end of
 * the stream); the next frame starts a new sequence. key: a lavfi.gpume.*
 * key that says why, or NULL. Returns the first error, the flush's
 * included: its frames went out in any case.
 */
static int send_unestimated(AVFilterContext *ctx, AVFrame *frame, const char *key)
{
    GpumeContext *s = ctx->priv;
    const int flushed = flush(ctx);
    int err;

    s->restart |= RESTART_SEQUENCE;
    err = remove_stale_properties(frame);
    if (err >= 0 && key)
        err = av_dict_set(&frame->metadata, key, "1", 0);
    if (err < 0) {
        av_frame_free(&frame);
        return err;
    }
    err = ff_filter_frame(ctx->outputs[0], frame);
    return flushed < 0 ? flushed : err;
}

/** Load frame and issue the estimates it makes possible. */
static int estimate_frame(AVFilterContext *ctx, AVFrame *frame)
{
    GpumeContext *s = ctx->priv;
    const int fwd = s->run_dir & GPUME_DIR_FWD, bwd = s->run_dir & GPUME_DIR_BWD;
    int64_t n = s->nb_loaded;
    AVFrame *cur;
    int err, drained = 0;

    if (!n)
        warn_cost(ctx);
    /* max_inflight() frames in flight when this one is loaded and the next
     * issued (the temporal predictor stays on the device); after a failed
     * issue() one more, which may read the slot this frame takes. A frame
     * waited for goes out also when its wait fails */
    while (s->nb_inflight > max_inflight(s)) {
        err = finish_oldest(ctx);
        drained = drained < 0 ? drained : err;
    }
    err = s->backend->load(s->backend_priv, slot_of(n), frame);
    if (err < 0) {
        /* its slot may hold part of it: no frame is estimated against it,
         * and it goes out as one outside the timeline does, marked as a
         * restart where frames went before it, as is the next frame, so
         * that a consumer tells the gap from a stream without vectors; the
         * load's error is the one that says what happened */
        const int after_frames = n > 0 || s->restarted;
        send_unestimated(ctx, frame, after_frames ? "lavfi.gpume.restart" : NULL);
        s->restarted = 1;
        return err;
    }
    s->nb_loaded++;

    /* the frame whose estimates can be issued now */
    if (bwd) {
        cur = s->pending;
        s->pending = frame;
        if (!cur)
            return drained;
        n--;
    } else {
        cur = frame;
    }

    err = issue(ctx, cur, n, fwd && n > 0, bwd);
    if (err >= 0 && s->nb_inflight > max_inflight(s))
        err = finish_oldest(ctx);
    return drained < 0 ? drained : err;
}

static int process_frame(AVFilterContext *ctx, AVFrame *frame)
{
    GpumeContext *s = ctx->priv;
    int err, flushed = 0;

    err = check_frame(ctx, frame);
    if (err > 0)
        s->restart |= RESTART_BACKEND;
    /* options that commands changed and the running backend does not use */
    if (s->saved_opts)
        s->restart |= RESTART_BACKEND;
    /* a restart that failed left no backend: this frame sets up again */
    if (err >= 0 && (s->restart || !s->backend_ready)) {
        /* the frames held go out with what they have; a failed wait leaves
         * none held, so the restart goes on, and this frame with it */
        flushed = flush(ctx);
        err = restart(ctx, frame->width, frame->height);
    }
    if (err < 0) {
        av_frame_free(&frame);
        return err;
    }
    err = estimate_frame(ctx, frame);
    return flushed < 0 ? flushed : err;
}

static int activate(AVFilterContext *ctx)
{
    AVFilterLink *inlink = ctx->inputs[0], *outlink = ctx->outputs[0];
    AVFrame *frame;
    int64_t pts;
    int ret, status;

    FF_FILTER_FORWARD_STATUS_BACK(outlink, inlink);

    /* commands queued for this frame run here, and the timeline is evaluated */
    ret = ff_inlink_consume_frame(inlink, &frame);
    if (ret < 0)
        return ret;
    if (ret > 0) {
        if (ctx->is_disabled) {
            /* outside the timeline: this frame's pixels untouched, marked
             * as left out, so that a consumer tells it from a stream that
             * never had vectors; estimation starts afresh at the next
             * enabled frame */
            ret = send_unestimated(ctx, frame, "lavfi.gpume.disabled");
        } else {
            ret = process_frame(ctx, frame);
        }
        /* after an error too: a caller that goes on gets the frames queued
         * behind it and the end (ffmpeg stops at the first error) */
        ff_filter_set_ready(ctx, 10);
        return ret;
    }

    if (ff_inlink_acknowledge_status(inlink, &status, &pts)) {
        ret = flush(ctx);
        ff_outlink_set_status(outlink, status, pts);
        return ret;
    }

    FF_FILTER_FORWARD_WANTED(outlink, inlink);
    return FFERROR_NOT_READY;
}

/**
 * A command changes options flagged AV_OPT_FLAG_RUNTIME_PARAM; they take
 * effect on the next frame, which starts a new sequence (restart()). A
 * command that leaves every value as it was changes nothing.
 */
static int process_command(AVFilterContext *ctx, const char *cmd, const char *args,
                           char *res, int res_len, int flags)
{
    GpumeContext *s = ctx->priv;
    int before[FF_ARRAY_ELEMS(gpume_options)] = { 0 }, after[FF_ARRAY_ELEMS(gpume_options)] = { 0 };
    int err;

    if (!s->saved_opts) {
        s->saved_opts = av_calloc(nb_int_options(), sizeof(*s->saved_opts));
        if (!s->saved_opts)
            return AVERROR(ENOMEM);
        copy_options(s, s->saved_opts, 0);
    }
    copy_options(s, before, 0);
    /* a value no backend can use is refused here, and the value before stays */
    err = ff_filter_process_command(ctx, cmd, args, res, res_len, flags);
    if (err >= 0)
        err = check_options(ctx);
    if (err < 0)
        copy_options(s, before, 1);
    /* commands that put back the values in use change nothing: saved_opts
     * is kept only while they differ, and then restarts (process_frame()) */
    copy_options(s, after, 0);
    if (!memcmp(after, s->saved_opts, nb_int_options() * sizeof(*after)))
        av_freep(&s->saved_opts);
    return err;
}

static const AVFilterPad gpume_inputs[] = {
    {
        .name         = "default",
        .type         = AVMEDIA_TYPE_VIDEO,
        .config_props = config_input,
    },
};

static const AVFilterPad gpume_outputs[] = {
    {
        .name         = "default",
        .type         = AVMEDIA_TYPE_VIDEO,
        .config_props = config_output,
    },
};

const GPUME_FILTER ff_vf_gpume = {
    GPUME_FILTER_P(name)        = "gpume",
    GPUME_FILTER_P(description) = NULL_IF_CONFIG_SMALL("Estimate block motion on the GPU and export motion vectors."),
    GPUME_FILTER_P(priv_class)  = &gpume_class,
    GPUME_FILTER_P(flags)       = AVFILTER_FLAG_SLICE_THREADS | AVFILTER_FLAG_HWDEVICE |
                                  AVFILTER_FLAG_SUPPORT_TIMELINE_INTERNAL,
    .priv_size       = sizeof(GpumeContext),
    .init            = init,
    .uninit          = uninit,
    .activate        = activate,
    .process_command = process_command,
    FILTER_INPUTS(gpume_inputs),
    FILTER_OUTPUTS(gpume_outputs),
    FILTER_PIXFMTS_ARRAY(pix_fmts),
    .flags_internal  = FF_FILTER_FLAG_HWFRAME_AWARE,
};
