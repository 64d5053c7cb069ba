/*
 * gpume-mv eval: one frame's prediction errors, coverage, smoothness and
 * end-point error against its neighbours, and the totals of a run.
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
#include <math.h>

#include "libavutil/common.h"
#include "libavutil/dict.h"
#include "libavutil/error.h"
#include "libavutil/log.h"
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"

#include "gpume-mv.h"

void mv_eval_uninit(EvalContext *e)
{
    mv_truth_free(&e->truth);
    av_freep(&e->blocks);
    av_freep(&e->pred[0]);
    av_freep(&e->pred[1]);
    av_freep(&e->label);
    av_freep(&e->pairs.pairs);
    av_freep(&e->epe);
    av_freep(&e->epe_all);
}

static int push_double(double **v, size_t *nb, size_t *size, double x)
{
    if (*nb == *size) {
        const size_t n = FFMAX(2 * *size, 256);
        double *p = av_realloc_array(*v, n, sizeof(*p));
        if (!p)
            return AVERROR(ENOMEM);
        *v    = p;
        *size = n;
    }
    (*v)[(*nb)++] = x;
    return 0;
}

int mv_luma_usable(enum AVPixelFormat fmt)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(fmt);
    return d && !(d->flags & (AV_PIX_FMT_FLAG_HWACCEL | AV_PIX_FMT_FLAG_RGB |
                              AV_PIX_FMT_FLAG_PAL | AV_PIX_FMT_FLAG_BITSTREAM)) &&
           d->comp[0].plane == 0 && d->comp[0].depth == 8 && d->comp[0].step == 1 &&
           d->comp[0].shift == 0 && d->comp[0].offset == 0;
}

static Plane plane_of(const AVFrame *f)
{
    return (Plane) { f->data[0], f->linesize[0], f->width, f->height };
}

/** The vectors of cur with the given source, clipped, into e->blocks. */
static int collect_blocks(EvalContext *e, const AVFrame *cur, int source, int *nb, int *nb_all,
                          int *nb_inconsistent)
{
    const AVFrameSideData *sd = av_frame_get_side_data(cur, AV_FRAME_DATA_MOTION_VECTORS);
    const AVMotionVector *mvs = sd ? (const AVMotionVector *)sd->data : NULL;
    const size_t n = sd ? sd->size / sizeof(*mvs) : 0;
    Block *b;

    *nb = *nb_all = *nb_inconsistent = 0;
    if (n > INT32_MAX / sizeof(*b))
        return AVERROR(ERANGE);
    b = av_fast_realloc(e->blocks, &e->blocks_size, FFMAX(n, 1) * sizeof(*b));
    if (!b)
        return AVERROR(ENOMEM);
    e->blocks = b;
    for (size_t i = 0; i < n; i++) {
        if (mvs[i].source != source)
            continue;
        int bad = 0;
        (*nb_all)++;
        *nb += mv_block_from_mv(&mvs[i], cur->width, cur->height, &b[*nb], &bad);
        *nb_inconsistent += bad;
    }
    return 0;
}

static double dict_double(const AVDictionary *m, const char *key)
{
    const AVDictionaryEntry *t = av_dict_get(m, key, NULL, 0);
    double v;
    return t && mv_parse_double(t->value, &v) ? v : NAN;
}

int mv_eval_frame(EvalContext *e, const AVFrame *prev, const AVFrame *cur,
                  const AVFrame *next, int64_t index, FrameStats *st)
{
    const Plane c = plane_of(cur);
    const int w = c.w, h = c.h;
    const uint64_t pixels = (uint64_t)w * h;
    int err;

    *st = (FrameStats) {
        .index = index, .pts = cur->pts, .type = av_get_picture_type_char(cur->pict_type),
        .pixels = pixels, .mean_sad = dict_double(cur->metadata, META_PREFIX "mean_sad"),
        .cover = { NAN, NAN }, .mae = { NAN, NAN }, .smooth = { NAN, NAN },
        .epe_mean = NAN, .epe_median = NAN,
    };
    if (w != e->plane_w || h != e->plane_h) {
        av_freep(&e->pred[0]);
        av_freep(&e->pred[1]);
        av_freep(&e->label);
        e->pred[0] = av_malloc(pixels);
        e->pred[1] = av_malloc(pixels);
        e->label   = av_malloc_array(pixels, sizeof(*e->label));
        if (!e->pred[0] || !e->pred[1] || !e->label) {
            e->plane_w = e->plane_h = 0;
            return AVERROR(ENOMEM);
        }
        e->plane_w = w;
        e->plane_h = h;
    }
    e->nb_epe = 0;

    for (int d = FWD; d <= BWD; d++) {
        const AVFrame *ref = d == FWD ? prev : next;
        Plane r;
        uint64_t sad;
        int nb, nb_bad;
        int64_t pairs;

        if ((err = collect_blocks(e, cur, d == FWD ? -1 : 1, &nb, &st->n[d], &nb_bad)) < 0)
            return err;
        if (nb_bad && !e->warned_motion++)
            av_log(NULL, AV_LOG_WARNING, "frame %"PRId64": %d vectors whose motion_x,y / "
                   "motion_scale disagree with src - dst by more than a pixel (fields left "
                   "unset by the estimator?): src - dst used (reported once)\n", index, nb_bad);
        if (!st->n[d])
            continue;
        if (!ref || ref->width != w || ref->height != h) {
            if (!e->warned_ref++)
                av_log(NULL, AV_LOG_WARNING, "frame %"PRId64": %s vectors without a %s frame "
                       "of the same size are not evaluated (reported once)\n", index,
                       d == FWD ? "forward" : "backward", d == FWD ? "previous" : "next");
            continue;
        }
        r = plane_of(ref);
        mv_predict(&r, e->blocks, nb, e->pred[d], e->label);
        mv_plane_diff(&c, e->pred[d], w, &st->sse[d], &sad);
        st->has[d] = 1;
        st->mae[d] = (double)sad / pixels;
        st->cover[d] = 0;
        for (uint64_t i = 0; i < pixels; i++)
            st->cover[d] += e->label[i] >= 0;
        st->cover[d] /= pixels;
        if ((err = mv_smoothness(e->label, w, h, e->blocks, &e->pairs, &st->smooth[d], &pairs)) < 0)
            return err;
        e->smooth_sum[d]   += st->smooth[d];
        e->smooth_pairs[d] += pairs;
        st->smooth[d] = pairs ? st->smooth[d] / pairs : NAN;

        if (d == FWD && e->have_truth) {
            for (int i = 0; i < nb; i++) {
                const Block *b = &e->blocks[i];
                double tx, ty, v;
                if (!mv_truth_at(&e->truth, index, b->dst_x, b->dst_y, &tx, &ty))
                    continue;
                v = hypot(b->mx - tx, b->my - ty);
                if ((err = push_double(&e->epe, &e->nb_epe, &e->epe_size, v)) < 0 ||
                    (err = push_double(&e->epe_all, &e->nb_epe_all, &e->epe_all_size, v)) < 0)
                    return err;
                e->epe_sum += v;
            }
        }
    }

    if (st->has[FWD] && st->has[BWD]) {
        uint64_t sse = 0;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const size_t i = (size_t)y * w + x;
                const int d = c.data[y * c.linesize + x] - ((e->pred[FWD][i] + e->pred[BWD][i] + 1) >> 1);
                sse += d * d;
            }
        st->has_bi = 1;
        st->sse_bi = sse;
    }
    if (prev && prev->width == w && prev->height == h) {
        const Plane p = plane_of(prev);
        uint64_t sad;
        /* mv_plane_diff() wants a contiguous prediction: compare row by row */
        st->sse0 = 0;
        for (int y = 0; y < h; y++) {
            const Plane row = { c.data + y * c.linesize, c.linesize, w, 1 };
            uint64_t sse;
            mv_plane_diff(&row, p.data + y * p.linesize, w, &sse, &sad);
            st->sse0 += sse;
        }
        st->has0 = 1;
    }
    st->nb_epe = e->nb_epe;
    if (e->nb_epe) {
        double sum = 0;
        for (size_t i = 0; i < e->nb_epe; i++)
            sum += e->epe[i];
        st->epe_mean   = sum / e->nb_epe;
        st->epe_median = mv_median(e->epe, e->nb_epe);
    }

    e->frames++;
    for (int d = FWD; d <= BWD; d++) {
        e->vectors[d] += st->n[d];
        if (!st->has[d])
            continue;
        e->frames_dir[d]++;
        e->sse[d]       += st->sse[d];
        e->pixels[d]    += pixels;
        e->cover_sum[d] += st->cover[d];
        e->mae_sum[d]   += st->mae[d];
    }
    if (st->has_bi) {
        e->frames_bi++;
        e->sse_bi    += st->sse_bi;
        e->pixels_bi += pixels;
    }
    if (st->has0) {
        e->frames0++;
        e->sse0    += st->sse0;
        e->pixels0 += pixels;
    }
    return 0;
}

/* --- a run: frames arrive one by one; each is evaluated once its next one is there */

/** Evaluate and print the frame held back, with next (NULL at the end) as its successor. */
static int eval_pending(EvalRun *r, const AVFrame *next)
{
    FrameStats st;
    int err;

    if (!r->cur)
        return 0;
    if (!mv_luma_usable(r->cur->format)) {
        av_log(NULL, AV_LOG_ERROR, "eval needs 8-bit YUV or gray frames, the graph outputs %s; "
               "add format=yuv420p (or hwdownload,format=...) to -vf\n",
               av_get_pix_fmt_name(r->cur->format) ? av_get_pix_fmt_name(r->cur->format) : "?");
        return AVERROR(EINVAL);
    }
    if ((err = mv_eval_frame(&r->e, r->prev, r->cur, next, r->cur_index, &st)) < 0)
        return err;
    if (!r->header_printed++)
        mv_print_eval_header();
    mv_print_eval_row(&st);
    return 0;
}

int mv_eval_start(void *opaque)
{
    EvalRun *r = opaque;

    /* the header waits for a frame eval can read: a graph whose output it
     * cannot read leaves nothing on stdout */
    r->started = 1;
    return 0;
}

int mv_eval_take(void *opaque, AVFrame *f, int64_t index)
{
    EvalRun *r = opaque;
    int err;

    /* the frame after the last one (-frames) serves only as a reference */
    if ((err = eval_pending(r, f)) < 0)
        return err;
    if (r->max_frames && index >= r->max_frames) {
        av_frame_free(&r->cur);
        return 1;
    }
    av_frame_free(&r->prev);
    r->prev = r->cur;
    r->cur  = av_frame_alloc();
    if (!r->cur)
        return AVERROR(ENOMEM);
    av_frame_move_ref(r->cur, f);
    r->cur_index = index;
    return 0;
}

int mv_eval_finish(EvalRun *r)
{
    int err = eval_pending(r, NULL);

    if (err < 0)
        return err;
    if (r->started && !r->header_printed++)
        mv_print_eval_header();
    return mv_print_eval_summary(&r->e);
}

void mv_eval_run_free(EvalRun *r)
{
    av_frame_free(&r->prev);
    av_frame_free(&r->cur);
    mv_eval_uninit(&r->e);
}
