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

#include <stdlib.h>
#include <string.h>

#include "libavutil/dict.h"
#include "libavutil/mathematics.h"
#include "libavutil/mem.h"
#include "libavutil/motion_vector.h"
#include "libavutil/opt.h"
#include "libavutil/pixdesc.h"
#include "libavutil/timestamp.h"

#include "avfilter.h"
#include "filters.h"
#include "video.h"
#include "gpume_compat.h"
#include "mcfps_cpu.h"

typedef struct McfpsContext {
    const AVClass *class;

    /* options */
    AVRational fps;
    int mode;
    double scene;
    int lambda, rel_lo, rel_hi;

    AVRational tb_fine;         ///< output time base / MCFPS_PHI_ONE: phases are exact in it
    int started;
    int64_t next;               ///< next output tick, in output time base
    AVFrame *a;                 ///< the earlier frame of the current pair
    int64_t pa;                 ///< its time in tb_fine
    int a_on_tick;              ///< a lies on tick s->next - 1 and has not been sent yet

    /* the pair (a, next frame): fields built once per pair */
    int pair_cut;
    McfpsParams p;
    int format, nb_planes;
    int16_t *ra, *rb, *fa, *fb, *vec;
    uint16_t *info;
} McfpsContext;

#define OFFSET(x) offsetof(McfpsContext, x)
#define FLAGS (AV_OPT_FLAG_VIDEO_PARAM | AV_OPT_FLAG_FILTERING_PARAM)

static const AVOption mcfps_options[] = {
    { "fps", "output frame rate", OFFSET(fps), AV_OPT_TYPE_VIDEO_RATE, { .str = "60" }, 0, INT_MAX, FLAGS },
    { "mode", "how frames between two inputs are made", OFFSET(mode), AV_OPT_TYPE_INT,
      { .i64 = MCFPS_MODE_MC }, 0, MCFPS_MODE_NB - 1, FLAGS, .unit = "mode" },
        { "mc",    "motion-compensated interpolation", 0, AV_OPT_TYPE_CONST, { .i64 = MCFPS_MODE_MC },    0, 0, FLAGS, .unit = "mode" },
        { "blend", "weighted average of the two frames", 0, AV_OPT_TYPE_CONST, { .i64 = MCFPS_MODE_BLEND }, 0, 0, FLAGS, .unit = "mode" },
        { "dup",   "the nearest frame", 0, AV_OPT_TYPE_CONST, { .i64 = MCFPS_MODE_DUP },   0, 0, FLAGS, .unit = "mode" },
    { "scene", "lavfi.gpume.scene_score above which two frames are a cut (nearest frame, no interpolation)",
      OFFSET(scene), AV_OPT_TYPE_DOUBLE, { .dbl = 0.6 }, 0, 1, FLAGS },
    { "lambda", "cost of a vector's distance from the smoothed field, per quarter pel per 32 pixels",
      OFFSET(lambda), AV_OPT_TYPE_INT, { .i64 = 0 }, 0, 64, FLAGS },
    { "rel_lo", "mean bilateral error (1/16 level) at or below which a cell is fully compensated",
      OFFSET(rel_lo), AV_OPT_TYPE_INT, { .i64 = MCFPS_REL_LO }, 0, 255 * 16 - 1, FLAGS },
    { "rel_hi", "mean bilateral error (1/16 level) at or above which a cell is the plain average",
      OFFSET(rel_hi), AV_OPT_TYPE_INT, { .i64 = MCFPS_REL_HI }, 1, 255 * 16, FLAGS },
    { NULL }
};

AVFILTER_DEFINE_CLASS(mcfps);

static const enum AVPixelFormat pix_fmts[] = {
    /* chroma subsampled by at most 2: chroma positions in 1/8 pel (mcfps_sample4) */
    AV_PIX_FMT_GRAY8,
    AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV440P, AV_PIX_FMT_YUV444P,
    AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P,
    AV_PIX_FMT_YUVJ440P, AV_PIX_FMT_YUVJ444P,
    AV_PIX_FMT_YUVA420P, AV_PIX_FMT_YUVA422P, AV_PIX_FMT_YUVA444P,
    AV_PIX_FMT_NONE
};

static av_cold int init(AVFilterContext *ctx)
{
    McfpsContext *s = ctx->priv;

    if (s->fps.num <= 0 || s->fps.den <= 0) {
        av_log(ctx, AV_LOG_ERROR, "fps=%d/%d: must be a positive rate\n", s->fps.num, s->fps.den);
        return AVERROR(EINVAL);
    }
    if (s->rel_lo >= s->rel_hi) {
        av_log(ctx, AV_LOG_ERROR, "rel_lo=%d must be below rel_hi=%d\n", s->rel_lo, s->rel_hi);
        return AVERROR(EINVAL);
    }
    return 0;
}

static void free_fields(McfpsContext *s)
{
    av_freep(&s->ra);
    av_freep(&s->rb);
    av_freep(&s->fa);
    av_freep(&s->fb);
    av_freep(&s->vec);
    av_freep(&s->info);
}

static av_cold void uninit(AVFilterContext *ctx)
{
    McfpsContext *s = ctx->priv;
    av_frame_free(&s->a);
    free_fields(s);
}

static int config_output(AVFilterLink *outlink)
{
    AVFilterContext *ctx = outlink->src;
    McfpsContext *s = ctx->priv;
    FilterLink *ol = ff_filter_link(outlink);
    AVRational tb = av_inv_q(s->fps);

    if ((int64_t)tb.den * MCFPS_PHI_ONE > INT_MAX) {
        av_log(ctx, AV_LOG_ERROR, "fps=%d/%d: denominator too large\n", s->fps.num, s->fps.den);
        return AVERROR(EINVAL);
    }
    outlink->time_base = tb;
    ol->frame_rate     = s->fps;
    s->tb_fine         = (AVRational){ tb.num, tb.den * MCFPS_PHI_ONE };
    return 0;
}

/** Set up the fields for frames of the size and format of frame. */
static int setup(AVFilterContext *ctx, const AVFrame *frame)
{
    McfpsContext *s = ctx->priv;
    const int w = frame->width, h = frame->height;
    size_t cells;

    free_fields(s);
    s->p = (McfpsParams) {
        .width  = w, .height = h,
        .cw     = (w + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2,
        .ch     = (h + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2,
        .lambda = s->lambda, .rel_lo = s->rel_lo, .rel_hi = s->rel_hi,
    };
    s->format    = frame->format;
    s->nb_planes = av_pix_fmt_count_planes(frame->format);
    cells        = (size_t)s->p.cw * s->p.ch;
    s->ra   = av_malloc_array(cells, 2 * sizeof(*s->ra));
    s->rb   = av_malloc_array(cells, 2 * sizeof(*s->rb));
    s->fa   = av_malloc_array(cells, 2 * sizeof(*s->fa));
    s->fb   = av_malloc_array(cells, 2 * sizeof(*s->fb));
    s->vec  = av_malloc_array(cells, 2 * sizeof(*s->vec));
    s->info = av_malloc_array(cells, sizeof(*s->info));
    if (!s->ra || !s->rb || !s->fa || !s->fb || !s->vec || !s->info) {
        free_fields(s);
        return AVERROR(ENOMEM);
    }
    return 0;
}

/** Remove what describes a frame of the input stream rather than of the output. */
static void strip_input_properties(AVFrame *frame)
{
    const AVDictionaryEntry *e;
    av_frame_remove_side_data(frame, AV_FRAME_DATA_MOTION_VECTORS);
    while ((e = av_dict_get(frame->metadata, "lavfi.gpume.", NULL, AV_DICT_IGNORE_SUFFIX)))
        av_dict_set(&frame->metadata, e->key, NULL, 0);
    frame->pict_type = AV_PICTURE_TYPE_NONE;
}

/** Send a copy of src's pixels as output tick s->next. */
static int emit_copy(AVFilterContext *ctx, const AVFrame *src)
{
    McfpsContext *s = ctx->priv;
    AVFrame *out = av_frame_clone(src);
    if (!out)
        return AVERROR(ENOMEM);
    strip_input_properties(out);
    out->pts      = s->next++;
    out->duration = 1;
    return ff_filter_frame(ctx->outputs[0], out);
}

/** Count the vectors of frame with the given source. */
static int count_vectors(const AVFrame *frame, int source, const AVMotionVector **mvs, int *nb)
{
    const AVFrameSideData *sd = av_frame_get_side_data(frame, AV_FRAME_DATA_MOTION_VECTORS);
    int n = 0;
    *mvs = NULL;
    *nb  = 0;
    if (!sd)
        return 0;
    *mvs = (const AVMotionVector *)sd->data;
    *nb  = sd->size / sizeof(AVMotionVector);
    for (int i = 0; i < *nb; i++)
        n += (*mvs)[i].source == source;
    return n;
}

typedef struct ThreadData {
    const McfpsPlane *pl;
    const AVFrame *a, *b;
    int rows;
} ThreadData;

static int smooth_job(AVFilterContext *ctx, void *arg, int jobnr, int nb_jobs)
{
    McfpsContext *s = ctx->priv;
    const int j0 = s->p.ch * jobnr / nb_jobs, j1 = s->p.ch * (jobnr + 1) / nb_jobs;
    ff_mcfps_smooth_rows(&s->p, s->ra, s->fa, j0, j1);
    ff_mcfps_smooth_rows(&s->p, s->rb, s->fb, j0, j1);
    return 0;
}

static int select_job(AVFilterContext *ctx, void *arg, int jobnr, int nb_jobs)
{
    McfpsContext *s = ctx->priv;
    const ThreadData *td = arg;
    const int j0 = s->p.ch * jobnr / nb_jobs, j1 = s->p.ch * (jobnr + 1) / nb_jobs;
    ff_mcfps_select_rows(&s->p, td->a->data[0], td->a->linesize[0], td->b->data[0], td->b->linesize[0],
                         s->ra, s->rb, s->fa, s->fb, s->vec, s->info, j0, j1);
    return 0;
}

static int render_job(AVFilterContext *ctx, void *arg, int jobnr, int nb_jobs)
{
    McfpsContext *s = ctx->priv;
    const ThreadData *td = arg;
    const int y0 = td->rows * jobnr / nb_jobs, y1 = td->rows * (jobnr + 1) / nb_jobs;
    if (s->mode == MCFPS_MODE_BLEND)
        ff_mcfps_blend_rows(td->pl, s->p.phi, y0, y1);
    else
        ff_mcfps_render_rows(&s->p, td->pl, s->vec, s->info, y0, y1);
    return 0;
}

/**
 * Build the vector fields of the pair (a, b). Fails when
 * neither frame carries vectors between them.
 */
static int prepare_pair(AVFilterContext *ctx, const AVFrame *b)
{
    McfpsContext *s = ctx->priv;
    const AVFrame *a = s->a;
    const AVMotionVector *mva, *mvb;
    const AVDictionaryEntry *e;
    int nba, nbb, na, nb;

    s->pair_cut   = 0;
    na = count_vectors(a, 1, &mva, &nba);
    nb = count_vectors(b, -1, &mvb, &nbb);
    if (!na && !nb) {
        if (s->mode != MCFPS_MODE_MC)
            return 0;
        av_log(ctx, AV_LOG_ERROR, "no motion vectors between the frames at %s and %s: mode=mc needs "
               "AV_FRAME_DATA_MOTION_VECTORS into the next frame (source +1) on the earlier frame "
               "or into the previous frame (source -1) on the later one; put gpume=dir=bi (or "
               "dir=fwd) before mcfps, or use mode=blend or mode=dup\n",
               av_ts2timestr(a->pts, &ctx->inputs[0]->time_base),
               av_ts2timestr(b->pts, &ctx->inputs[0]->time_base));
        return AVERROR(EINVAL);
    }

    /* gpume describes the pair in the later frame's forward metadata, or
     * with dir=bwd in the earlier frame's backward metadata */
    e = av_dict_get(nb ? b->metadata : a->metadata, "lavfi.gpume.scene_score", NULL, 0);
    if (e && strtod(e->value, NULL) > s->scene) {
        av_log(ctx, AV_LOG_VERBOSE, "scene cut before %s (score %s): nearest frames\n",
               av_ts2timestr(b->pts, &ctx->inputs[0]->time_base), e->value);
        s->pair_cut = 1;
    }
    if (s->mode != MCFPS_MODE_MC || s->pair_cut)
        return 0;

    /* A's vectors into B are A -> B as they are; B's into A negated. A
     * missing direction is the other one (same positions, negated). */
    if (na)
        ff_mcfps_raster(mva, nba, 1, 0, &s->p, s->ra);
    if (nb)
        ff_mcfps_raster(mvb, nbb, -1, 1, &s->p, s->rb);
    if (!na)
        memcpy(s->ra, s->rb, sizeof(*s->ra) * 2 * s->p.cw * s->p.ch);
    if (!nb)
        memcpy(s->rb, s->ra, sizeof(*s->rb) * 2 * s->p.cw * s->p.ch);
    ff_filter_execute(ctx, smooth_job, NULL, NULL, FFMIN(s->p.ch, ff_filter_get_nb_threads(ctx)));
    return ff_mcfps_dominant(&s->p, s->ra, s->rb, &s->p.gx, &s->p.gy);
}

/** Make and send output tick s->next between s->a and b at phase phi (1..255). */
static int interpolate(AVFilterContext *ctx, const AVFrame *b, int phi)
{
    McfpsContext *s = ctx->priv;
    AVFilterLink *outlink = ctx->outputs[0];
    const AVFrame *a = s->a;
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(s->format);
    const int nb_threads = ff_filter_get_nb_threads(ctx);
    AVFrame *out;
    ThreadData td = { .a = a, .b = b };

    if (s->mode == MCFPS_MODE_DUP || s->pair_cut)
        return emit_copy(ctx, phi <= MCFPS_PHI_ONE / 2 ? a : b);

    out = ff_get_video_buffer(outlink, s->p.width, s->p.height);
    if (!out)
        return AVERROR(ENOMEM);
    out->sample_aspect_ratio = a->sample_aspect_ratio;
    out->color_range         = a->color_range;
    out->color_primaries     = a->color_primaries;
    out->color_trc           = a->color_trc;
    out->colorspace          = a->colorspace;
    out->chroma_location     = a->chroma_location;
    out->pict_type           = AV_PICTURE_TYPE_NONE;

    s->p.phi = phi;
    if (s->mode == MCFPS_MODE_MC)
        ff_filter_execute(ctx, select_job, &td, NULL, FFMIN(s->p.ch, nb_threads));
    for (int i = 0; i < s->nb_planes; i++) {
        const int chroma = i == 1 || i == 2;
        const int lx = chroma ? desc->log2_chroma_w : 0, ly = chroma ? desc->log2_chroma_h : 0;
        const McfpsPlane pl = {
            .a = a->data[i], .b = b->data[i], .dst = out->data[i],
            .sa = a->linesize[i], .sb = b->linesize[i], .sd = out->linesize[i],
            .w = AV_CEIL_RSHIFT(s->p.width, lx), .h = AV_CEIL_RSHIFT(s->p.height, ly),
            .lx = lx, .ly = ly,
        };
        td.pl   = &pl;
        td.rows = pl.h;
        ff_filter_execute(ctx, render_job, &td, NULL, FFMIN(pl.h, nb_threads));
    }
    out->pts      = s->next++;
    out->duration = 1;
    return ff_filter_frame(outlink, out);
}

/** Send s->a if it lies on a tick and waited for the check of its pair. */
static int send_a(AVFilterContext *ctx)
{
    McfpsContext *s = ctx->priv;
    if (!s->a_on_tick)
        return 0;
    s->a_on_tick = 0;
    s->next--;
    return emit_copy(ctx, s->a);
}

/** Send copies of s->a for the ticks before fine time t (no later frame to interpolate towards). */
static int repeat_until(AVFilterContext *ctx, int64_t t)
{
    McfpsContext *s = ctx->priv;
    int err = send_a(ctx);
    while (s->a && err >= 0 && s->next * MCFPS_PHI_ONE < t)
        err = emit_copy(ctx, s->a);
    return err;
}

/**
 * Take frame as the first of a new run. If it lies on a tick it passes, once
 * the next frame has shown that the pair can be converted (so that a stream
 * without vectors fails before any frame goes out).
 */
static int start_run(AVFilterContext *ctx, AVFrame *frame, int64_t t)
{
    McfpsContext *s = ctx->priv;
    int err;

    av_frame_free(&s->a);
    if (!s->p.width || frame->width != s->p.width || frame->height != s->p.height ||
        frame->format != s->format) {
        err = setup(ctx, frame);
        if (err < 0) {
            av_frame_free(&frame);
            return err;
        }
    }
    s->a  = frame;
    s->pa = t;
    if (!s->started) {
        s->next    = (t + MCFPS_PHI_ONE - 1) >> 8;  /* the first tick at or after it */
        s->started = 1;
    }
    while (s->next * MCFPS_PHI_ONE < t) /* ticks a gap skipped have nothing to show */
        s->next++;
    if (s->next * MCFPS_PHI_ONE == t) {
        s->a_on_tick = 1;
        s->next++;
    }
    return 0;
}

static int filter_frame(AVFilterContext *ctx, AVFrame *b)
{
    McfpsContext *s = ctx->priv;
    AVFilterLink *inlink = ctx->inputs[0];
    int64_t pb;
    int err = 0;

    if (b->pts == AV_NOPTS_VALUE) {
        av_log(ctx, AV_LOG_ERROR, "a frame without timestamp: mcfps places frames by their pts "
               "(setpts can number them)\n");
        av_frame_free(&b);
        return AVERROR(EINVAL);
    }
    pb = av_rescale_q_rnd(b->pts, inlink->time_base, s->tb_fine,
                          AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX);
    if (!s->a)
        return start_run(ctx, b, pb);
    if (pb <= s->pa) {
        av_log(ctx, AV_LOG_WARNING, "timestamp %s does not follow %s; frame dropped\n",
               av_ts2timestr(b->pts, &inlink->time_base),
               av_ts2timestr(s->a->pts, &inlink->time_base));
        av_frame_free(&b);
        return 0;
    }
    if (b->width != s->p.width || b->height != s->p.height || b->format != s->format) {
        av_log(ctx, AV_LOG_WARNING, "frame size or format changed from %dx%d %s to %dx%d %s; "
               "restarting (the ticks before the new frame repeat the last old one)\n",
               s->p.width, s->p.height, av_get_pix_fmt_name(s->format), b->width, b->height,
               av_get_pix_fmt_name(b->format));
        err = repeat_until(ctx, pb);
        if (err < 0) {
            av_frame_free(&b);
            return err;
        }
        return start_run(ctx, b, pb);
    }

    err = prepare_pair(ctx, b);
    if (err >= 0)
        err = send_a(ctx);
    while (err >= 0 && s->next * MCFPS_PHI_ONE < pb) {
        const int64_t t = s->next * MCFPS_PHI_ONE;
        int phi;
        if (t < s->pa) { /* cannot happen: ticks up to pa were sent */
            s->next++;
            continue;
        }
        phi = (int)(((t - s->pa) * MCFPS_PHI_ONE + (pb - s->pa) / 2) / (pb - s->pa));
        phi = av_clip(phi, 1, MCFPS_PHI_ONE - 1);
        err = interpolate(ctx, b, phi);
    }
    if (err >= 0 && s->next * MCFPS_PHI_ONE == pb)
        err = emit_copy(ctx, b);
    av_frame_free(&s->a);
    s->a  = b;
    s->pa = pb;
    return err;
}

static int activate(AVFilterContext *ctx)
{
    McfpsContext *s = ctx->priv;
    AVFilterLink *inlink = ctx->inputs[0], *outlink = ctx->outputs[0];
    AVFrame *frame;
    int64_t pts;
    int ret, status;

    FF_FILTER_FORWARD_STATUS_BACK(outlink, inlink);

    ret = ff_inlink_consume_frame(inlink, &frame);
    if (ret < 0)
        return ret;
    if (ret > 0) {
        ret = filter_frame(ctx, frame);
        if (ret >= 0)
            ff_filter_set_ready(ctx, 10);
        return ret;
    }

    if (ff_inlink_acknowledge_status(inlink, &status, &pts)) {
        /* the last frame lasts until the end of the stream */
        ret = send_a(ctx);
        if (ret >= 0 && s->a && pts != AV_NOPTS_VALUE)
            ret = repeat_until(ctx, av_rescale_q_rnd(pts, inlink->time_base, s->tb_fine,
                                                     AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX));
        av_frame_free(&s->a);
        ff_outlink_set_status(outlink, status, s->next);
        return ret;
    }

    FF_FILTER_FORWARD_WANTED(outlink, inlink);
    return FFERROR_NOT_READY;
}

static const AVFilterPad mcfps_outputs[] = {
    {
        .name         = "default",
        .type         = AVMEDIA_TYPE_VIDEO,
        .config_props = config_output,
    },
};

const GPUME_FILTER ff_vf_mcfps = {
    GPUME_FILTER_P(name)        = "mcfps",
    GPUME_FILTER_P(description) = NULL_IF_CONFIG_SMALL("Convert the frame rate by motion compensation with the frames' motion vectors."),
    GPUME_FILTER_P(priv_class)  = &mcfps_class,
    GPUME_FILTER_P(flags)       = AVFILTER_FLAG_SLICE_THREADS,
    .priv_size     = sizeof(McfpsContext),
    .init          = init,
    .uninit        = uninit,
    .activate      = activate,
    FILTER_INPUTS(ff_video_default_filterpad),
    FILTER_OUTPUTS(mcfps_outputs),
    FILTER_PIXFMTS_ARRAY(pix_fmts),
};
