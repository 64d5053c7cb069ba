/*
 * gpume-mv: dump and evaluate the motion vectors (AV_FRAME_DATA_MOTION_VECTORS)
 * that a filter graph (gpume, mestimate, ...) or a decoder attaches to frames.
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

/*
 * Usage:
 *   gpume-mv dump [-f csv|jsonl] [-vf GRAPH] [-frames N] [-export_mvs] [-v LEVEL] INPUT
 *   gpume-mv eval [-vf GRAPH] [-frames N] [-export_mvs] [-truth FILE] [-v LEVEL] INPUT
 *   gpume-mv selftest
 *
 * INPUT is a file read with libavformat (its first video stream is decoded;
 * -export_mvs sets the decoder's flags2 +export_mvs) or "lavfi:DESC", a source
 * filter graph with one open output (e.g. lavfi:testsrc2=s=320x240:r=25:d=1).
 * The frames go through buffer -> GRAPH -> buffersink (GRAPH defaults to
 * "null"); frame indices count the output frames of GRAPH from 0.
 *
 * dump, csv: a header line, then one line per vector; a frame without vectors
 * still gets one line, with count 0 and empty vector fields. Columns:
 *   frame,pts,pict_type,count,source,w,h,src_x,src_y,dst_x,dst_y,
 *   motion_x,motion_y,motion_scale,mean_sad,scene_score,gpume_meta
 * mean_sad and scene_score are lavfi.gpume.mean_sad / scene_score (empty when
 * absent); gpume_meta lists every lavfi.gpume.* entry as key=value (prefix
 * stripped), separated by ';'. pts is empty when unknown.
 * dump, jsonl: one object per frame:
 *   {"frame":1,"pts":1,"pict_type":"P","count":300,"gpume":{"mean_sad":0.63,...},
 *    "mvs":[{"source":-1,"w":16,"h":16,"src_x":..,...,"motion_scale":4},...]}
 * (a metadata value is a JSON number when it is written as one, else a string).
 * dump prints the side data as it is (mestimate's motion_* fields: see below).
 *
 * eval: per frame one line of a table, then one line "overall key=value ...".
 * Prediction of frame t's luma for the vectors of one direction (source -1:
 * reference t-1, source +1: reference t+1; the adjacent output frame, whatever
 * the decoder's reference was):
 *   - every pixel starts as the co-located reference pixel (uncovered pixels
 *     keep it);
 *   - each vector, in side-data order (later ones win where blocks overlap),
 *     covers the block with top-left (dst_x - w/2, dst_y - h/2) and size w x h,
 *     clipped to the frame, and predicts it from the reference at the vector
 *     rounded to quarter pel, with the bilinear quarter-pel interpolation and
 *     edge replication of docs/ALGORITHMS.md §2 (the same for every
 *     estimator);
 *   - the vector is motion_{x,y} / motion_scale pixels when motion_scale != 0
 *     (quarter pel: nearest, halves rounded up), else src - dst. FFmpeg 7.1's
 *     mestimate leaves motion_x, motion_y and motion_scale uninitialised (0 or
 *     garbage): a motion / motion_scale more than a pixel away from src - dst
 *     is not trusted, src - dst is used and a warning printed.
 * Columns (a '-' where a value does not exist for that frame):
 *   frame pts type    output frame index, pts, pict_type
 *   n_fwd n_bwd       number of vectors with source -1 / +1
 *   cover_*           share of the pixels covered by a block of that direction
 *   psnr0             luma PSNR of the previous frame as it is (zero motion)
 *   psnr_*            luma PSNR of the motion-compensated prediction;
 *                     psnr_bi: of (fwd + bwd + 1) >> 1, frames with both
 *   mae_*             mean absolute prediction error per pixel (equals
 *                     gpume's lavfi.gpume.mean_sad when its blocks tile the frame)
 *   mean_sad          lavfi.gpume.mean_sad of the frame
 *   smooth_*          mean Euclidean length, in pixels, of the vector
 *                     difference over all pairs of 4-neighbouring blocks
 *                     (blocks whose visible pixels share an edge)
 *   epe_mean epe_median  end-point error of the forward vectors, pixels (-truth)
 * PSNR = 10 log10(255^2 / MSE), "inf" when MSE = 0. The overall line pools:
 * PSNRs from the summed squared error of all frames that have them, mae and
 * coverage averaged over those frames, smoothness over all pairs, EPE over all
 * blocks.
 *
 * -truth FILE: true motion for the EPE, in a text file of lines
 *   FRAME DX DY [X Y W H]
 * FRAME is an output frame index or '*' (every frame); (DX, DY) in pixels
 * (decimals allowed) is where a pixel of frame FRAME is in frame FRAME-1,
 * relative to its position: the convention of source = -1 vectors. The
 * optional rectangle, in pixels of frame FRAME, limits the line to the pixels
 * inside; without it the line covers the whole frame. A later line overrides
 * earlier ones where both apply. '#' starts a comment. Each forward vector is
 * compared with the truth at its dst_x, dst_y; vectors with no truth there
 * are left out. Example, testsrc2=s=400x300,crop=320:240:x=2*n:y=n:
 *   * 2 1
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavcodec/avcodec.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/buffersink.h"
#include "libavfilter/buffersrc.h"
#include "libavformat/avformat.h"
#include "libavutil/avstring.h"
#include "libavutil/bprint.h"
#include "libavutil/common.h"
#include "libavutil/dict.h"
#include "libavutil/error.h"
#include "libavutil/file.h"
#include "libavutil/log.h"
#include "libavutil/mem.h"
#include "libavutil/motion_vector.h"
#include "libavutil/pixdesc.h"

#define META_PREFIX "lavfi.gpume."

/* ------------------------------------------------------------------------ */
/* Metrics on luma planes: no libavformat/libavfilter below this line up to
 * the pipeline section, so that selftest checks exactly the code eval runs. */

typedef struct Plane {
    const uint8_t *data;
    ptrdiff_t linesize;
    int w, h;
} Plane;

/** One vector of one direction, as eval uses it. */
typedef struct Block {
    int x, y, w, h;     ///< the block clipped to the frame, w, h > 0
    int dst_x, dst_y;   ///< as exported
    int qx, qy;         ///< quarter-pel vector used for prediction
    double mx, my;      ///< exact vector in pixels
} Block;

/**
 * The reference at quarter-pel position (qx, qy), docs/ALGORITHMS.md §2:
 * bilinear, edge samples replicated; in [0, 255], R itself at integer positions.
 */
static int sample_q(const Plane *r, int qx, int qy)
{
    const int x0 = qx >> 2, y0 = qy >> 2, fx = qx & 3, fy = qy & 3;
    const int xa = av_clip(x0, 0, r->w - 1), xb = av_clip(x0 + 1, 0, r->w - 1);
    const uint8_t *ra = r->data + av_clip(y0,     0, r->h - 1) * r->linesize;
    const uint8_t *rc = r->data + av_clip(y0 + 1, 0, r->h - 1) * r->linesize;

    return ((4 - fx) * (4 - fy) * ra[xa] + fx * (4 - fy) * ra[xb] +
            (4 - fx) * fy       * rc[xa] + fx * fy       * rc[xb] + 8) >> 4;
}

/** v / scale in quarter pels, nearest, halves rounded up; scale > 0. */
static int to_qpel(int v, int scale)
{
    const int64_t num = 8 * (int64_t)v + scale, den = 2 * (int64_t)scale;
    int64_t q = num / den;
    if ((num % den) && num < 0)
        q--;                            /* floor */
    return (int)av_clip64(q, INT_MIN / 8, INT_MAX / 8);
}

/**
 * Convert an exported vector of a w x h frame. Return 0 when the block has
 * no pixel inside the frame (b is then unusable), 1 otherwise.
 * motion / motion_scale is used only where it agrees with src - dst within a
 * pixel (exporters round src differently, none by more); else src - dst, and
 * *inconsistent is set: FFmpeg 7.1's mestimate leaves motion_x, motion_y and
 * motion_scale uninitialised, so they may hold anything.
 */
static int block_from_mv(const AVMotionVector *mv, int w, int h, Block *b, int *inconsistent)
{
    const int x = mv->dst_x - mv->w / 2, y = mv->dst_y - mv->h / 2;
    const int x1 = FFMIN(x + mv->w, w), y1 = FFMIN(y + mv->h, h);

    b->x     = FFMAX(x, 0);
    b->y     = FFMAX(y, 0);
    b->w     = x1 - b->x;
    b->h     = y1 - b->y;
    b->dst_x = mv->dst_x;
    b->dst_y = mv->dst_y;
    b->mx = mv->motion_scale ? (double)mv->motion_x / mv->motion_scale : 0;
    b->my = mv->motion_scale ? (double)mv->motion_y / mv->motion_scale : 0;
    if (mv->motion_scale && fabs(b->mx - (mv->src_x - mv->dst_x)) <= 1 &&
        fabs(b->my - (mv->src_y - mv->dst_y)) <= 1) {
        b->qx = to_qpel(mv->motion_x, mv->motion_scale);
        b->qy = to_qpel(mv->motion_y, mv->motion_scale);
    } else {
        *inconsistent |= !!mv->motion_scale;
        b->mx = mv->src_x - mv->dst_x;
        b->my = mv->src_y - mv->dst_y;
        b->qx = 4 * (mv->src_x - mv->dst_x);
        b->qy = 4 * (mv->src_y - mv->dst_y);
    }
    return b->w > 0 && b->h > 0;
}

/**
 * Predict a ref->w x ref->h plane into pred (stride ref->w) from the blocks;
 * label[i] gets the index of the block predicting pixel i, -1 where none.
 */
static void predict(const Plane *ref, const Block *blocks, int nb,
                    uint8_t *pred, int32_t *label)
{
    const int w = ref->w, h = ref->h;

    for (int y = 0; y < h; y++) {
        memcpy(pred + (size_t)y * w, ref->data + y * ref->linesize, w);
        for (int x = 0; x < w; x++)
            label[(size_t)y * w + x] = -1;
    }
    for (int i = 0; i < nb; i++) {
        const Block *b = &blocks[i];
        for (int y = b->y; y < b->y + b->h; y++)
            for (int x = b->x; x < b->x + b->w; x++) {
                pred[(size_t)y * w + x]  = sample_q(ref, 4 * x + b->qx, 4 * y + b->qy);
                label[(size_t)y * w + x] = i;
            }
    }
}

/** Sums of squared and absolute differences between a plane and a w x h prediction. */
static void plane_diff(const Plane *c, const uint8_t *pred, ptrdiff_t pred_stride,
                       uint64_t *sse, uint64_t *sad)
{
    uint64_t s2 = 0, s1 = 0;
    for (int y = 0; y < c->h; y++)
        for (int x = 0; x < c->w; x++) {
            const int d = c->data[y * c->linesize + x] - pred[y * pred_stride + x];
            s2 += d * d;
            s1 += FFABS(d);
        }
    *sse = s2;
    *sad = s1;
}

static double psnr_of(uint64_t sse, uint64_t pixels)
{
    if (!pixels)
        return NAN;
    if (!sse)
        return INFINITY;
    return 10.0 * log10(255.0 * 255.0 * pixels / sse);
}

static int cmp_u64(const void *a, const void *b)
{
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/** Median of n values (sorted in place); the mean of the middle two for even n. */
static double median(double *v, size_t n)
{
    if (!n)
        return NAN;
    qsort(v, n, sizeof(*v), cmp_double);
    return n & 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct PairBuf {
    uint64_t *pairs;
    size_t nb, size;
} PairBuf;

static int push_pair(PairBuf *p, int32_t a, int32_t b)
{
    if (a > b)
        FFSWAP(int32_t, a, b);
    if (p->nb == p->size) {
        const size_t size = FFMAX(2 * p->size, 256);
        uint64_t *n = av_realloc_array(p->pairs, size, sizeof(*n));
        if (!n)
            return AVERROR(ENOMEM);
        p->pairs = n;
        p->size  = size;
    }
    p->pairs[p->nb++] = (uint64_t)a << 32 | (uint32_t)b;
    return 0;
}

/**
 * Smoothness of a w x h label map: the sum, over all distinct pairs of blocks
 * with 4-neighbouring pixels, of the length of their vector difference in
 * pixels, and the number of pairs.
 */
static int smoothness(const int32_t *label, int w, int h, const Block *blocks,
                      PairBuf *buf, double *sum, int64_t *nb_pairs)
{
    int err;

    buf->nb = 0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int32_t *l = label + (size_t)y * w + x;
            /* a pair seen on the pixel above (right) / to the left (below) is not repeated */
            if (x + 1 < w && l[0] >= 0 && l[1] >= 0 && l[0] != l[1] &&
                !(y && l[-w] == l[0] && l[1 - w] == l[1]) &&
                (err = push_pair(buf, l[0], l[1])) < 0)
                return err;
            if (y + 1 < h && l[0] >= 0 && l[w] >= 0 && l[0] != l[w] &&
                !(x && l[-1] == l[0] && l[w - 1] == l[w]) &&
                (err = push_pair(buf, l[0], l[w])) < 0)
                return err;
        }
    qsort(buf->pairs, buf->nb, sizeof(*buf->pairs), cmp_u64);
    *sum      = 0;
    *nb_pairs = 0;
    for (size_t i = 0; i < buf->nb; i++) {
        const Block *a = &blocks[buf->pairs[i] >> 32], *b = &blocks[(uint32_t)buf->pairs[i]];
        if (i && buf->pairs[i] == buf->pairs[i - 1])
            continue;
        *sum += hypot(a->mx - b->mx, a->my - b->my);
        (*nb_pairs)++;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Ground truth (-truth FILE) */

typedef struct TruthLine {
    int64_t frame;      ///< -1: every frame
    double dx, dy;
    int has_rect;
    int x, y, w, h;
} TruthLine;

typedef struct Truth {
    TruthLine *lines;
    int nb;
} Truth;

static void truth_free(Truth *t)
{
    av_freep(&t->lines);
    t->nb = 0;
}

static int parse_double(const char *s, double *v)
{
    char *end;
    if (!s)
        return 0;
    *v = strtod(s, &end);
    return end != s && !*end && isfinite(*v);
}

static int parse_int(const char *s, int64_t min, int64_t max, int64_t *v)
{
    char *end;
    long long r;
    if (!s)
        return 0;
    errno = 0;
    r = strtoll(s, &end, 10);
    if (end == s || *end || errno || r < min || r > max)
        return 0;
    *v = r;
    return 1;
}

/** Parse the text of a truth file; name is for messages. */
static int truth_parse(Truth *t, const char *text, const char *name)
{
    char *copy = av_strdup(text), *next;
    int lineno = 0, err = 0;

    if (!copy)
        return AVERROR(ENOMEM);
    for (char *line = copy; line; line = next) {
        const char *tok[8] = { NULL };
        char *save = NULL, *hash;
        int nb = 0;
        int64_t v[4];
        TruthLine tl = { 0 };

        lineno++;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if ((hash = strchr(line, '#')))
            *hash = '\0';
        for (char *s = av_strtok(line, " \t\r", &save); s && nb < 8; s = av_strtok(NULL, " \t\r", &save))
            tok[nb++] = s;
        if (!nb)
            continue;
        if (nb != 3 && nb != 7) {
            av_log(NULL, AV_LOG_ERROR, "%s:%d: expected 'FRAME DX DY [X Y W H]'\n", name, lineno);
            err = AVERROR_INVALIDDATA;
            break;
        }
        if (!strcmp(tok[0], "*")) {
            tl.frame = -1;
        } else if (!parse_int(tok[0], 0, INT64_MAX, &tl.frame)) {
            av_log(NULL, AV_LOG_ERROR, "%s:%d: frame '%s' is not '*' or an index >= 0\n",
                   name, lineno, tok[0]);
            err = AVERROR_INVALIDDATA;
            break;
        }
        if (!parse_double(tok[1], &tl.dx) || !parse_double(tok[2], &tl.dy)) {
            av_log(NULL, AV_LOG_ERROR, "%s:%d: DX DY must be numbers\n", name, lineno);
            err = AVERROR_INVALIDDATA;
            break;
        }
        if (nb == 7) {
            if (!parse_int(tok[3], INT_MIN, INT_MAX, &v[0]) || !parse_int(tok[4], INT_MIN, INT_MAX, &v[1]) ||
                !parse_int(tok[5], 1, INT_MAX, &v[2]) || !parse_int(tok[6], 1, INT_MAX, &v[3])) {
                av_log(NULL, AV_LOG_ERROR, "%s:%d: X Y W H must be integers, W and H > 0\n",
                       name, lineno);
                err = AVERROR_INVALIDDATA;
                break;
            }
            tl.has_rect = 1;
            tl.x = v[0];
            tl.y = v[1];
            tl.w = v[2];
            tl.h = v[3];
        }
        if (!av_dynarray2_add((void **)&t->lines, &t->nb, sizeof(tl), (const uint8_t *)&tl)) {
            err = AVERROR(ENOMEM);
            break;
        }
    }
    av_free(copy);
    if (!err && !t->nb) {
        av_log(NULL, AV_LOG_ERROR, "%s: no truth lines\n", name);
        err = AVERROR_INVALIDDATA;
    }
    return err;
}

/** True motion of pixel (x, y) of frame index; 0 when there is none. */
static int truth_at(const Truth *t, int64_t index, int x, int y, double *dx, double *dy)
{
    for (int i = t->nb - 1; i >= 0; i--) {
        const TruthLine *l = &t->lines[i];
        if (l->frame >= 0 && l->frame != index)
            continue;
        if (l->has_rect && (x < l->x || y < l->y || x - l->x >= l->w || y - l->y >= l->h))
            continue;
        *dx = l->dx;
        *dy = l->dy;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Evaluation of one frame */

enum { FWD, BWD };

typedef struct FrameStats {
    int64_t index, pts;
    char type;
    int n[2];               ///< vectors of each direction in the side data
    int has[2];             ///< the direction was evaluated
    double cover[2], mae[2], smooth[2];
    uint64_t sse[2], pixels;
    int has_bi, has0;
    uint64_t sse_bi, sse0;
    double mean_sad;        ///< NAN when absent
    double epe_mean, epe_median;
    size_t nb_epe;
} FrameStats;

typedef struct EvalContext {
    Truth truth;
    int have_truth;

    Block *blocks;
    unsigned blocks_size;
    uint8_t *pred[2];
    int32_t *label;
    int plane_w, plane_h;
    PairBuf pairs;
    double *epe;                ///< EPEs of the current frame
    size_t nb_epe, epe_size;
    double *epe_all;            ///< of every frame, for the overall median
    size_t nb_epe_all, epe_all_size;
    int warned_ref, warned_motion;

    /* totals */
    int64_t frames, frames_dir[2], frames_bi, frames0, vectors[2];
    uint64_t sse[2], pixels[2], sse_bi, pixels_bi, sse0, pixels0;
    double cover_sum[2], mae_sum[2], smooth_sum[2];
    int64_t smooth_pairs[2];
    double epe_sum;
} EvalContext;

static void eval_uninit(EvalContext *e)
{
    truth_free(&e->truth);
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

static int luma_usable(enum AVPixelFormat fmt)
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
        *nb += block_from_mv(&mvs[i], cur->width, cur->height, &b[*nb], &bad);
        *nb_inconsistent += bad;
    }
    return 0;
}

static double dict_double(const AVDictionary *m, const char *key)
{
    const AVDictionaryEntry *t = av_dict_get(m, key, NULL, 0);
    double v;
    return t && parse_double(t->value, &v) ? v : NAN;
}

/**
 * Evaluate cur (frame number index) against its neighbours prev and next
 * (either may be NULL) and add it to the totals.
 */
static int eval_frame(EvalContext *e, const AVFrame *prev, const AVFrame *cur,
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
        predict(&r, e->blocks, nb, e->pred[d], e->label);
        plane_diff(&c, e->pred[d], w, &st->sse[d], &sad);
        st->has[d] = 1;
        st->mae[d] = (double)sad / pixels;
        st->cover[d] = 0;
        for (uint64_t i = 0; i < pixels; i++)
            st->cover[d] += e->label[i] >= 0;
        st->cover[d] /= pixels;
        if ((err = smoothness(e->label, w, h, e->blocks, &e->pairs, &st->smooth[d], &pairs)) < 0)
            return err;
        e->smooth_sum[d]   += st->smooth[d];
        e->smooth_pairs[d] += pairs;
        st->smooth[d] = pairs ? st->smooth[d] / pairs : NAN;

        if (d == FWD && e->have_truth) {
            for (int i = 0; i < nb; i++) {
                const Block *b = &e->blocks[i];
                double tx, ty, v;
                if (!truth_at(&e->truth, index, b->dst_x, b->dst_y, &tx, &ty))
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
        /* plane_diff() wants a contiguous prediction: compare row by row */
        st->sse0 = 0;
        for (int y = 0; y < h; y++) {
            const Plane row = { c.data + y * c.linesize, c.linesize, w, 1 };
            uint64_t sse;
            plane_diff(&row, p.data + y * p.linesize, w, &sse, &sad);
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
        st->epe_median = median(e->epe, e->nb_epe);
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

/* ------------------------------------------------------------------------ */
/* Output */

static void put_num(AVBPrint *bp, int valid, double v, const char *fmt)
{
    if (!valid || isnan(v))
        av_bprintf(bp, " %s", "-");
    else if (isinf(v))
        av_bprintf(bp, " %s", "inf");
    else {
        av_bprint_chars(bp, ' ', 1);
        av_bprintf(bp, fmt, v);
    }
}

static void print_eval_header(void)
{
    printf("frame pts type n_fwd n_bwd cover_fwd cover_bwd psnr0 psnr_fwd psnr_bwd psnr_bi "
           "mae_fwd mae_bwd mean_sad smooth_fwd smooth_bwd epe_mean epe_median\n");
}

static void print_eval_row(const FrameStats *st)
{
    AVBPrint bp;

    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
    av_bprintf(&bp, "%"PRId64, st->index);
    if (st->pts == AV_NOPTS_VALUE)
        av_bprintf(&bp, " -");
    else
        av_bprintf(&bp, " %"PRId64, st->pts);
    av_bprintf(&bp, " %c %d %d", st->type, st->n[FWD], st->n[BWD]);
    put_num(&bp, st->has[FWD], st->cover[FWD], "%.4f");
    put_num(&bp, st->has[BWD], st->cover[BWD], "%.4f");
    put_num(&bp, st->has0, psnr_of(st->sse0, st->pixels), "%.4f");
    put_num(&bp, st->has[FWD], psnr_of(st->sse[FWD], st->pixels), "%.4f");
    put_num(&bp, st->has[BWD], psnr_of(st->sse[BWD], st->pixels), "%.4f");
    put_num(&bp, st->has_bi, psnr_of(st->sse_bi, st->pixels), "%.4f");
    put_num(&bp, st->has[FWD], st->mae[FWD], "%.4f");
    put_num(&bp, st->has[BWD], st->mae[BWD], "%.4f");
    put_num(&bp, 1, st->mean_sad, "%.4f");
    put_num(&bp, st->has[FWD], st->smooth[FWD], "%.4f");
    put_num(&bp, st->has[BWD], st->smooth[BWD], "%.4f");
    put_num(&bp, st->nb_epe, st->epe_mean, "%.4f");
    put_num(&bp, st->nb_epe, st->epe_median, "%.4f");
    printf("%s\n", bp.str);
    av_bprint_finalize(&bp, NULL);
}

static void kv(AVBPrint *bp, const char *key, double v)
{
    if (isnan(v))
        av_bprintf(bp, " %s=nan", key);
    else if (isinf(v))
        av_bprintf(bp, " %s=inf", key);
    else
        av_bprintf(bp, " %s=%.4f", key, v);
}

static double ratio(double sum, int64_t n)
{
    return n ? sum / n : NAN;
}

static int print_eval_summary(EvalContext *e)
{
    AVBPrint bp;

    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
    av_bprintf(&bp, "overall frames=%"PRId64" frames_fwd=%"PRId64" frames_bwd=%"PRId64
               " frames_bi=%"PRId64" vectors_fwd=%"PRId64" vectors_bwd=%"PRId64,
               e->frames, e->frames_dir[FWD], e->frames_dir[BWD], e->frames_bi,
               e->vectors[FWD], e->vectors[BWD]);
    kv(&bp, "psnr0",      psnr_of(e->sse0, e->pixels0));
    kv(&bp, "psnr_fwd",   psnr_of(e->sse[FWD], e->pixels[FWD]));
    kv(&bp, "psnr_bwd",   psnr_of(e->sse[BWD], e->pixels[BWD]));
    kv(&bp, "psnr_bi",    psnr_of(e->sse_bi, e->pixels_bi));
    kv(&bp, "mae_fwd",    ratio(e->mae_sum[FWD], e->frames_dir[FWD]));
    kv(&bp, "mae_bwd",    ratio(e->mae_sum[BWD], e->frames_dir[BWD]));
    kv(&bp, "cover_fwd",  ratio(e->cover_sum[FWD], e->frames_dir[FWD]));
    kv(&bp, "cover_bwd",  ratio(e->cover_sum[BWD], e->frames_dir[BWD]));
    kv(&bp, "smooth_fwd", ratio(e->smooth_sum[FWD], e->smooth_pairs[FWD]));
    kv(&bp, "smooth_bwd", ratio(e->smooth_sum[BWD], e->smooth_pairs[BWD]));
    kv(&bp, "epe_mean",   ratio(e->epe_sum, e->nb_epe_all));
    kv(&bp, "epe_median", median(e->epe_all, e->nb_epe_all));
    av_bprintf(&bp, " epe_blocks=%zu", e->nb_epe_all);
    printf("%s\n", bp.str);
    av_bprint_finalize(&bp, NULL);
    return 0;
}

/* ------------------------------------------------------------------------ */
/* dump */

typedef struct DumpContext {
    int jsonl;
    int64_t max_frames;     ///< 0: all
} DumpContext;

/** Print s as a CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        const unsigned char c = *s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/** Whether s is a number in JSON's grammar. */
static int is_json_number(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9')
            s++;
    else
        return 0;
    if (*s == '.') {
        if (!(*++s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!(*s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return !*s;
}

static const AVDictionaryEntry *next_gpume_meta(const AVDictionary *m, const AVDictionaryEntry *prev)
{
    return av_dict_get(m, META_PREFIX, prev, AV_DICT_IGNORE_SUFFIX);
}

static void dump_header(const DumpContext *d)
{
    if (!d->jsonl)
        printf("frame,pts,pict_type,count,source,w,h,src_x,src_y,dst_x,dst_y,"
               "motion_x,motion_y,motion_scale,mean_sad,scene_score,gpume_meta\n");
}

static int dump_frame(void *opaque, AVFrame *f, int64_t index)
{
    const DumpContext *d = opaque;
    const AVFrameSideData *sd = av_frame_get_side_data(f, AV_FRAME_DATA_MOTION_VECTORS);
    const AVMotionVector *mvs = sd ? (const AVMotionVector *)sd->data : NULL;
    const size_t n = sd ? sd->size / sizeof(*mvs) : 0;
    const char type = av_get_picture_type_char(f->pict_type);
    const AVDictionaryEntry *t;
    char pts[32] = "";

    if (f->pts != AV_NOPTS_VALUE)
        snprintf(pts, sizeof(pts), "%"PRId64, f->pts);

    if (d->jsonl) {
        printf("{\"frame\":%"PRId64",\"pts\":%s,\"pict_type\":\"%c\",\"count\":%zu,\"gpume\":{",
               index, *pts ? pts : "null", type, n);
        t = NULL;
        for (int i = 0; (t = next_gpume_meta(f->metadata, t)); i++) {
            printf(i ? "," : "");
            json_string(stdout, t->key + strlen(META_PREFIX));
            putchar(':');
            if (is_json_number(t->value))
                fputs(t->value, stdout);
            else
                json_string(stdout, t->value);
        }
        printf("},\"mvs\":[");
        for (size_t i = 0; i < n; i++) {
            const AVMotionVector *mv = &mvs[i];
            printf("%s{\"source\":%d,\"w\":%d,\"h\":%d,\"src_x\":%d,\"src_y\":%d,"
                   "\"dst_x\":%d,\"dst_y\":%d,\"motion_x\":%d,\"motion_y\":%d,"
                   "\"motion_scale\":%d}", i ? "," : "", mv->source, mv->w, mv->h,
                   mv->src_x, mv->src_y, mv->dst_x, mv->dst_y, mv->motion_x,
                   mv->motion_y, mv->motion_scale);
        }
        printf("]}\n");
    } else {
        const AVDictionaryEntry *sad   = av_dict_get(f->metadata, META_PREFIX "mean_sad", NULL, 0);
        const AVDictionaryEntry *scene = av_dict_get(f->metadata, META_PREFIX "scene_score", NULL, 0);
        AVBPrint meta;

        av_bprint_init(&meta, 0, AV_BPRINT_SIZE_UNLIMITED);
        t = NULL;
        for (int i = 0; (t = next_gpume_meta(f->metadata, t)); i++)
            av_bprintf(&meta, "%s%s=%s", i ? ";" : "", t->key + strlen(META_PREFIX), t->value);
        if (!av_bprint_is_complete(&meta)) {
            av_bprint_finalize(&meta, NULL);
            return AVERROR(ENOMEM);
        }
        for (size_t i = 0; i < FFMAX(n, 1); i++) {
            printf("%"PRId64",%s,%c,%zu,", index, pts, type, n);
            if (n) {
                const AVMotionVector *mv = &mvs[i];
                printf("%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,", mv->source, mv->w, mv->h,
                       mv->src_x, mv->src_y, mv->dst_x, mv->dst_y, mv->motion_x,
                       mv->motion_y, mv->motion_scale);
            } else {
                printf(",,,,,,,,,,");
            }
            csv_field(stdout, sad ? sad->value : "");
            putchar(',');
            csv_field(stdout, scene ? scene->value : "");
            putchar(',');
            csv_field(stdout, meta.str);
            putchar('\n');
        }
        av_bprint_finalize(&meta, NULL);
    }
    return d->max_frames && index + 1 >= d->max_frames;
}

/* ------------------------------------------------------------------------ */
/* eval: frames arrive one by one; each is evaluated once its next one is there */

typedef struct EvalRun {
    EvalContext e;
    AVFrame *prev, *cur;
    int64_t cur_index;
    int64_t max_frames;
} EvalRun;

static int eval_pending(EvalRun *r, const AVFrame *next)
{
    FrameStats st;
    int err;

    if (!r->cur)
        return 0;
    if (!luma_usable(r->cur->format)) {
        av_log(NULL, AV_LOG_ERROR, "eval needs 8-bit YUV or gray frames, the graph outputs %s; "
               "add format=yuv420p (or hwdownload,format=...) to -vf\n",
               av_get_pix_fmt_name(r->cur->format) ? av_get_pix_fmt_name(r->cur->format) : "?");
        return AVERROR(EINVAL);
    }
    if ((err = eval_frame(&r->e, r->prev, r->cur, next, r->cur_index, &st)) < 0)
        return err;
    print_eval_row(&st);
    return 0;
}

static int eval_take(void *opaque, AVFrame *f, int64_t index)
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

/* ------------------------------------------------------------------------ */
/* Input, filter graph */

typedef struct Options {
    const char *input, *graph, *truth;
    int jsonl, export_mvs;
    int64_t max_frames;
} Options;

typedef struct Pipeline {
    AVFormatContext *fmt;
    AVCodecContext *dec;
    AVPacket *pkt;
    int stream, flushed;

    AVFilterGraph *src_graph;       ///< lavfi: input
    AVFilterContext *src_sink;

    AVFilterGraph *graph;
    AVFilterContext *buffer, *sink;
    AVRational time_base, frame_rate;
} Pipeline;

static void pipeline_close(Pipeline *p)
{
    avfilter_graph_free(&p->graph);
    avfilter_graph_free(&p->src_graph);
    avcodec_free_context(&p->dec);
    avformat_close_input(&p->fmt);
    av_packet_free(&p->pkt);
}

/**
 * Parse desc into graph, its unlabelled (or [in]) input linked to in when
 * in is not NULL, its unlabelled (or [out]) output to out.
 */
static int parse_graph(AVFilterGraph *graph, const char *desc, AVFilterContext *in,
                       AVFilterContext *out)
{
    AVFilterInOut *outputs = NULL, *inputs = avfilter_inout_alloc();
    int err = AVERROR(ENOMEM);

    if (!inputs || !(inputs->name = av_strdup("out")))
        goto end;
    inputs->filter_ctx = out;
    if (in) {
        if (!(outputs = avfilter_inout_alloc()) || !(outputs->name = av_strdup("in")))
            goto end;
        outputs->filter_ctx = in;
    }
    err = avfilter_graph_parse_ptr(graph, desc, &inputs, &outputs, NULL);
    if (err < 0) {
        av_log(NULL, AV_LOG_ERROR, "cannot parse the filter graph '%s': %s\n", desc, av_err2str(err));
        goto end;
    }
    if (inputs || outputs) {
        av_log(NULL, AV_LOG_ERROR, "filter graph '%s': %s has unconnected pads%s\n", desc,
               in ? "it" : "a source graph (lavfi:)",
               in ? " (one input and one output are expected)" : " (sources and one output are expected)");
        err = AVERROR(EINVAL);
        goto end;
    }
    err = avfilter_graph_config(graph, NULL);
    if (err < 0) {
        av_log(NULL, AV_LOG_ERROR, "cannot configure the filter graph '%s': %s\n", desc, av_err2str(err));
        goto end;
    }
    if (av_buffersink_get_type(out) != AVMEDIA_TYPE_VIDEO) {
        av_log(NULL, AV_LOG_ERROR, "filter graph '%s' does not output video\n", desc);
        err = AVERROR(EINVAL);
    }
end:
    avfilter_inout_free(&inputs);
    avfilter_inout_free(&outputs);
    return err;
}

static int open_input(Pipeline *p, const Options *o)
{
    const AVCodec *codec;
    AVDictionary *opts = NULL;
    AVStream *st;
    int err;

    if (av_strstart(o->input, "lavfi:", NULL)) {
        const char *desc = o->input + 6;
        if (!(p->src_graph = avfilter_graph_alloc()))
            return AVERROR(ENOMEM);
        err = avfilter_graph_create_filter(&p->src_sink, avfilter_get_by_name("buffersink"),
                                           "src_out", NULL, NULL, p->src_graph);
        if (err < 0)
            return err;
        if ((err = parse_graph(p->src_graph, desc, NULL, p->src_sink)) < 0)
            return err;
        p->time_base  = av_buffersink_get_time_base(p->src_sink);
        p->frame_rate = av_buffersink_get_frame_rate(p->src_sink);
        if (o->export_mvs)
            av_log(NULL, AV_LOG_WARNING, "-export_mvs has no effect on a lavfi: input\n");
        return 0;
    }

    err = avformat_open_input(&p->fmt, o->input, NULL, NULL);
    if (err < 0) {
        av_log(NULL, AV_LOG_ERROR, "cannot open '%s': %s\n", o->input, av_err2str(err));
        return err;
    }
    err = avformat_find_stream_info(p->fmt, NULL);
    if (err < 0) {
        av_log(NULL, AV_LOG_ERROR, "'%s': cannot read stream information: %s\n",
               o->input, av_err2str(err));
        return err;
    }
    p->stream = -1;
    for (unsigned i = 0; i < p->fmt->nb_streams; i++) {
        if (p->stream < 0 && p->fmt->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO)
            p->stream = i;
        else
            p->fmt->streams[i]->discard = AVDISCARD_ALL;
    }
    if (p->stream < 0) {
        av_log(NULL, AV_LOG_ERROR, "'%s' has no video stream\n", o->input);
        return AVERROR_STREAM_NOT_FOUND;
    }
    st = p->fmt->streams[p->stream];
    codec = avcodec_find_decoder(st->codecpar->codec_id);
    if (!codec) {
        av_log(NULL, AV_LOG_ERROR, "'%s': no decoder for %s in this build\n", o->input,
               avcodec_get_name(st->codecpar->codec_id));
        return AVERROR_DECODER_NOT_FOUND;
    }
    if (!(p->dec = avcodec_alloc_context3(codec)) || !(p->pkt = av_packet_alloc()))
        return AVERROR(ENOMEM);
    if ((err = avcodec_parameters_to_context(p->dec, st->codecpar)) < 0)
        return err;
    p->dec->pkt_timebase = st->time_base;
    if (o->export_mvs && (err = av_dict_set(&opts, "flags2", "+export_mvs", 0)) < 0)
        return err;
    err = avcodec_open2(p->dec, codec, &opts);
    av_dict_free(&opts);
    if (err < 0) {
        av_log(NULL, AV_LOG_ERROR, "'%s': cannot open the %s decoder: %s\n", o->input,
               codec->name, av_err2str(err));
        return err;
    }
    p->time_base  = st->time_base;
    p->frame_rate = av_guess_frame_rate(p->fmt, st, NULL);
    return 0;
}

/** The next input frame; AVERROR_EOF at the end. */
static int read_frame(Pipeline *p, AVFrame *frame)
{
    int err;

    if (p->src_graph)
        return av_buffersink_get_frame(p->src_sink, frame);

    for (;;) {
        err = avcodec_receive_frame(p->dec, frame);
        if (err >= 0) {
            frame->pts = frame->best_effort_timestamp;
            return 0;
        }
        if (err != AVERROR(EAGAIN))
            return err;
        if (p->flushed)
            return AVERROR_EOF;
        err = av_read_frame(p->fmt, p->pkt);
        if (err < 0) {
            if (err != AVERROR_EOF)
                av_log(NULL, AV_LOG_ERROR, "error reading the input: %s; "
                       "treating it as the end\n", av_err2str(err));
            p->flushed = 1;
            if ((err = avcodec_send_packet(p->dec, NULL)) < 0)
                return err;
            continue;
        }
        if (p->pkt->stream_index == p->stream) {
            err = avcodec_send_packet(p->dec, p->pkt);
            if (err < 0 && err != AVERROR(EAGAIN))
                av_log(NULL, AV_LOG_WARNING, "decoding error (packet skipped): %s\n",
                       av_err2str(err));
        }
        av_packet_unref(p->pkt);
    }
}

static int make_graph(Pipeline *p, const Options *o, const AVFrame *frame)
{
    AVBufferSrcParameters *par;
    int err;

    if (!(p->graph = avfilter_graph_alloc()) ||
        !(p->buffer = avfilter_graph_alloc_filter(p->graph, avfilter_get_by_name("buffer"), "in")) ||
        !(par = av_buffersrc_parameters_alloc()))
        return AVERROR(ENOMEM);
    par->format              = frame->format;
    par->width               = frame->width;
    par->height              = frame->height;
    par->sample_aspect_ratio = frame->sample_aspect_ratio;
    par->time_base           = p->time_base;
    par->frame_rate          = p->frame_rate;
    par->hw_frames_ctx       = frame->hw_frames_ctx;
    par->color_space         = frame->colorspace;
    par->color_range         = frame->color_range;
    err = av_buffersrc_parameters_set(p->buffer, par);
    av_free(par);
    if (err < 0 || (err = avfilter_init_dict(p->buffer, NULL)) < 0)
        return err;
    err = avfilter_graph_create_filter(&p->sink, avfilter_get_by_name("buffersink"), "out",
                                       NULL, NULL, p->graph);
    if (err < 0)
        return err;
    return parse_graph(p->graph, o->graph, p->buffer, p->sink);
}

/**
 * Decode the input, run it through the graph and pass every output frame to
 * take() (which may keep its content); take() returns > 0 to stop.
 */
static int run_pipeline(const Options *o, int (*take)(void *opaque, AVFrame *f, int64_t index),
                        void *opaque)
{
    Pipeline p = { 0 };
    AVFrame *in = av_frame_alloc(), *out = av_frame_alloc();
    int64_t nb_out = 0;
    int err, done = 0, eof = 0;

    if (!in || !out) {
        err = AVERROR(ENOMEM);
        goto end;
    }
    if ((err = open_input(&p, o)) < 0)
        goto end;

    while (!done && !eof) {
        err = read_frame(&p, in);
        if (err == AVERROR_EOF) {
            eof = 1;
            if (!p.graph) {
                av_log(NULL, AV_LOG_ERROR, "'%s': no video frame could be decoded\n", o->input);
                err = AVERROR_INVALIDDATA;
                goto end;
            }
            err = av_buffersrc_add_frame_flags(p.buffer, NULL, 0);
        } else if (err < 0) {
            av_log(NULL, AV_LOG_ERROR, "'%s': %s\n", o->input, av_err2str(err));
            goto end;
        } else {
            if (!p.graph && (err = make_graph(&p, o, in)) < 0)
                goto end;
            err = av_buffersrc_add_frame_flags(p.buffer, in, 0);
            av_frame_unref(in);
        }
        if (err < 0) {
            av_log(NULL, AV_LOG_ERROR, "cannot feed the filter graph: %s\n", av_err2str(err));
            goto end;
        }
        while (!done) {
            err = av_buffersink_get_frame(p.sink, out);
            if (err == AVERROR(EAGAIN))
                break;
            if (err == AVERROR_EOF) {
                done = 1;
                break;
            }
            if (err < 0) {
                av_log(NULL, AV_LOG_ERROR, "filtering failed: %s\n", av_err2str(err));
                goto end;
            }
            err = take(opaque, out, nb_out++);
            av_frame_unref(out);
            if (err < 0)
                goto end;
            done = err > 0;
        }
    }
    err = 0;
    if (!nb_out)
        av_log(NULL, AV_LOG_WARNING, "the filter graph output no frame\n");
end:
    av_frame_free(&in);
    av_frame_free(&out);
    pipeline_close(&p);
    return err;
}

static int cmd_dump(const Options *o)
{
    DumpContext d = { .jsonl = o->jsonl, .max_frames = o->max_frames };

    dump_header(&d);
    return run_pipeline(o, dump_frame, &d);
}

static int cmd_eval(const Options *o)
{
    EvalRun r = { .max_frames = o->max_frames };
    int err = 0;

    if (o->truth) {
        uint8_t *buf;
        size_t size;
        char *text;
        err = av_file_map(o->truth, &buf, &size, 0, NULL);
        if (err < 0) {
            av_log(NULL, AV_LOG_ERROR, "cannot read the truth file '%s': %s\n", o->truth,
                   av_err2str(err));
            return err;
        }
        text = size ? av_strndup((const char *)buf, size) : av_strdup("");
        av_file_unmap(buf, size);
        if (!text)
            return AVERROR(ENOMEM);
        err = truth_parse(&r.e.truth, text, o->truth);
        av_free(text);
        if (err < 0)
            goto end;
        r.e.have_truth = 1;
    }
    print_eval_header();
    err = run_pipeline(o, eval_take, &r);
    if (err >= 0)
        err = eval_pending(&r, NULL);
    if (err >= 0)
        err = print_eval_summary(&r.e);
end:
    av_frame_free(&r.prev);
    av_frame_free(&r.cur);
    eval_uninit(&r.e);
    return err;
}

/* ------------------------------------------------------------------------ */
/* selftest: the metrics on tiny hand-made frames, against values computed by
 * hand (the arithmetic is in the comments) */

typedef struct Tests {
    int pass, fail;
} Tests;

static void expect(Tests *t, const char *name, double got, double want, double tol)
{
    const int ok = (isnan(got) && isnan(want)) ||
                   (isinf(got) && isinf(want) && (got > 0) == (want > 0)) ||
                   (isfinite(got) && isfinite(want) && fabs(got - want) <= tol);
    if (ok) {
        t->pass++;
    } else {
        t->fail++;
        printf("FAIL %s: got %.6f, expected %.6f\n", name, got, want);
    }
}

static AVFrame *gray_frame(int w, int h, const uint8_t *v)
{
    AVFrame *f = av_frame_alloc();

    if (!f)
        return NULL;
    f->format = AV_PIX_FMT_GRAY8;
    f->width  = w;
    f->height = h;
    if (av_frame_get_buffer(f, 0) < 0) {
        av_frame_free(&f);
        return NULL;
    }
    for (int y = 0; y < h; y++)
        if (v)
            memcpy(f->data[0] + y * f->linesize[0], v + y * w, w);
        else
            memset(f->data[0] + y * f->linesize[0], 0, w);
    return f;
}

/** A vector as an estimator exports it; with scale 0, (mx, my) is src - dst. */
static AVMotionVector mk_mv(int source, int w, int h, int dst_x, int dst_y, int mx, int my, int scale)
{
    return (AVMotionVector) {
        .source = source, .w = w, .h = h, .dst_x = dst_x, .dst_y = dst_y,
        .src_x = dst_x + (scale ? mx / scale : mx), .src_y = dst_y + (scale ? my / scale : my),
        .motion_x = scale ? mx : 0, .motion_y = scale ? my : 0, .motion_scale = scale,
    };
}

static int attach_mvs(AVFrame *f, const AVMotionVector *mv, int n)
{
    AVFrameSideData *sd = av_frame_new_side_data(f, AV_FRAME_DATA_MOTION_VECTORS, n * sizeof(*mv));
    if (!sd)
        return AVERROR(ENOMEM);
    memcpy(sd->data, mv, n * sizeof(*mv));
    return 0;
}

/* R: the 4x4 reference of the first tests */
static const uint8_t ref4[16] = {
     10,  20,  30,  40,
     50,  60,  70,  80,
     90, 100, 110, 120,
    130, 140, 150, 160,
};

static void test_sample_q(Tests *t)
{
    /* every row 0 100 200 250 */
    static const uint8_t row[16] = { 0, 100, 200, 250, 0, 100, 200, 250,
                                     0, 100, 200, 250, 0, 100, 200, 250 };
    /* R2(x, y) = 16x + y */
    static const uint8_t r2[16] = { 0, 16, 32, 48, 1, 17, 33, 49, 2, 18, 34, 50, 3, 19, 35, 51 };
    const Plane p = { row, 4, 4, 4 }, p2 = { r2, 4, 4, 4 };

    expect(t, "sample_q integer", sample_q(&p, 8, 4), 200, 0);
    /* qx=1: x0=0 fx=1: (3*4*0 + 1*4*100 + 8) >> 4 = 408 >> 4 = 25 */
    expect(t, "sample_q quarter", sample_q(&p, 1, 0), 25, 0);
    /* qx=2: (2*4*0 + 2*4*100 + 8) >> 4 = 808 >> 4 = 50 */
    expect(t, "sample_q half", sample_q(&p, 2, 0), 50, 0);
    /* qx=3: (1*4*0 + 3*4*100 + 8) >> 4 = 1208 >> 4 = 75 */
    expect(t, "sample_q three quarters", sample_q(&p, 3, 0), 75, 0);
    /* qx=6: x0=1 fx=2: (8*100 + 8*200 + 8) >> 4 = 2408 >> 4 = 150 */
    expect(t, "sample_q half at x=1", sample_q(&p, 6, 0), 150, 0);
    /* qx=13: x0=3 fx=1, R(4) clamps to R(3)=250: (12*250 + 4*250 + 8) >> 4 = 250 */
    expect(t, "sample_q right edge", sample_q(&p, 13, 0), 250, 0);
    /* qx=-3: x0=-1 fx=1, R(-1) and R(0) clamp to R(0)=0 */
    expect(t, "sample_q left edge", sample_q(&p, -3, 0), 0, 0);
    /* (2,2): a=0 b=16 c=1 d=17, weights 4 4 4 4: (0 + 64 + 4 + 68 + 8) >> 4 = 144 >> 4 = 9 */
    expect(t, "sample_q 2-D half", sample_q(&p2, 2, 2), 9, 0);
    /* (1,3): weights (3*1, 1*1, 3*3, 1*3) on a=0 b=16 c=1 d=17:
     * 0 + 16 + 9 + 51 + 8 = 84, >> 4 = 5 */
    expect(t, "sample_q 2-D quarter", sample_q(&p2, 1, 3), 5, 0);
    /* (-2,-6) at the top-left corner: everything clamps to R(0,0)=0; (14,14): to R(3,3)=51 */
    expect(t, "sample_q corner low", sample_q(&p2, -2, -6), 0, 0);
    expect(t, "sample_q corner high", sample_q(&p2, 14, 14), 51, 0);
}

static void test_conversion(Tests *t)
{
    AVMotionVector mv;
    Block b;
    int ok, bad = 0;

    /* quarter pel: q = motion */
    mv = mk_mv(-1, 16, 16, 8, 8, 3, -3, 4);
    ok = block_from_mv(&mv, 32, 32, &b, &bad);
    expect(t, "qpel valid", ok, 1, 0);
    expect(t, "qpel qx", b.qx, 3, 0);
    expect(t, "qpel qy", b.qy, -3, 0);
    expect(t, "qpel mx", b.mx, 0.75, 1e-12);
    expect(t, "qpel rect x", b.x, 0, 0);
    expect(t, "qpel rect w", b.w, 16, 0);
    /* half pel: q = 2 * motion; integer: 4 * motion */
    mv = mk_mv(-1, 8, 8, 4, 4, 3, -1, 2);
    block_from_mv(&mv, 32, 32, &b, &bad);
    expect(t, "hpel qx", b.qx, 6, 0);
    expect(t, "hpel qy", b.qy, -2, 0);
    mv = mk_mv(1, 8, 8, 4, 4, 2, -5, 1);
    block_from_mv(&mv, 32, 32, &b, &bad);
    expect(t, "ipel qx", b.qx, 8, 0);
    expect(t, "ipel qy", b.qy, -20, 0);
    /* motion_scale 0 (mestimate): src - dst = (10 - 8, 7 - 8) = (2, -1) */
    mv = mk_mv(-1, 16, 16, 8, 8, 2, -1, 0);
    block_from_mv(&mv, 32, 32, &b, &bad);
    expect(t, "scale0 qx", b.qx, 8, 0);
    expect(t, "scale0 qy", b.qy, -4, 0);
    expect(t, "scale0 my", b.my, -1, 0);
    /* scale 8: 4 * 3 / 8 = 1.5 -> 2 (halves up); 4 * -3 / 8 = -1.5 -> -1 */
    mv = mk_mv(-1, 16, 16, 8, 8, 3, -3, 8);
    block_from_mv(&mv, 32, 32, &b, &bad);
    expect(t, "scale8 qx", b.qx, 2, 0);
    expect(t, "scale8 qy", b.qy, -1, 0);
    expect(t, "scale8 mx", b.mx, 0.375, 1e-12);
    expect(t, "consistent vectors", bad, 0, 0);
    /* garbage in motion_x / motion_scale (mestimate leaves them unset):
     * 12345 / 4 is far from src - dst = (2, -1): src - dst is used, q = (8, -4) */
    mv = mk_mv(-1, 16, 16, 8, 8, 2, -1, 0);
    mv.motion_x     = 12345;
    mv.motion_scale = 4;
    block_from_mv(&mv, 32, 32, &b, &bad);
    expect(t, "garbage motion flagged", bad, 1, 0);
    expect(t, "garbage motion qx", b.qx, 8, 0);
    expect(t, "garbage motion qy", b.qy, -4, 0);
    expect(t, "garbage motion mx", b.mx, 2, 0);
    expect(t, "to_qpel 5/4", to_qpel(5, 4), 5, 0);
    expect(t, "to_qpel -1/2", to_qpel(-1, 2), -2, 0);
    /* clipping: 20x10 frame, 16x4 block centred at (18, 9): top-left (10, 7),
     * x in [10, 26) & [0, 20) -> w = 10, y in [7, 11) & [0, 10) -> h = 3 */
    mv = mk_mv(-1, 16, 4, 18, 9, 0, 0, 4);
    ok = block_from_mv(&mv, 20, 10, &b, &bad);
    expect(t, "clip valid", ok, 1, 0);
    expect(t, "clip x", b.x, 10, 0);
    expect(t, "clip y", b.y, 7, 0);
    expect(t, "clip w", b.w, 10, 0);
    expect(t, "clip h", b.h, 3, 0);
    /* a block entirely outside the frame */
    mv = mk_mv(-1, 4, 4, 30, 2, 0, 0, 4);
    expect(t, "outside", block_from_mv(&mv, 20, 10, &b, &bad), 0, 0);
}

static void test_misc(Tests *t)
{
    double v3[3] = { 3, 1, 2 }, v4[4] = { 4, 1, 3, 2 };

    expect(t, "median odd", median(v3, 3), 2, 0);
    expect(t, "median even", median(v4, 4), 2.5, 0);  /* (2 + 3) / 2 */
    expect(t, "median empty", median(NULL, 0), NAN, 0);
    /* 10 log10(255^2 * 16 / 1200) = 10 log10(867) = 29.380191 */
    expect(t, "psnr", psnr_of(1200, 16), 29.380191, 1e-6);
    expect(t, "psnr zero error", psnr_of(0, 16), INFINITY, 0);
    expect(t, "json 0.6310", is_json_number("0.6310"), 1, 0);
    expect(t, "json -1e5", is_json_number("-1e5"), 1, 0);
    expect(t, "json .5", is_json_number(".5"), 0, 0);
    expect(t, "json +1", is_json_number("+1"), 0, 0);
    expect(t, "json 0x10", is_json_number("0x10"), 0, 0);
    expect(t, "json 01", is_json_number("01"), 0, 0);
    expect(t, "json 1.", is_json_number("1."), 0, 0);
    expect(t, "json nan", is_json_number("nan"), 0, 0);
    expect(t, "luma gray8", luma_usable(AV_PIX_FMT_GRAY8), 1, 0);
    expect(t, "luma yuv420p", luma_usable(AV_PIX_FMT_YUV420P), 1, 0);
    expect(t, "luma nv12", luma_usable(AV_PIX_FMT_NV12), 1, 0);
    expect(t, "luma rgb24", luma_usable(AV_PIX_FMT_RGB24), 0, 0);
    expect(t, "luma yuyv422", luma_usable(AV_PIX_FMT_YUYV422), 0, 0);
    expect(t, "luma yuv420p10", luma_usable(AV_PIX_FMT_YUV420P10LE), 0, 0);
    expect(t, "luma cuda", luma_usable(AV_PIX_FMT_CUDA), 0, 0);
}

static void test_truth_parse(Tests *t)
{
    static const char *const bad[] = {
        "x 1 2\n", "1 2\n", "1 2 3 4 5\n", "1 2 3 0 0 -1 4\n", "1 2 3 0 0 4 0\n",
        "-1 2 3\n", "1 2 3q\n", "# nothing\n\n", "1 nan 0\n",
    };
    Truth tr = { 0 };
    double dx = 0, dy = 0;
    int err, av_level = av_log_get_level();

    av_log_set_level(AV_LOG_QUIET);
    for (int i = 0; i < FF_ARRAY_ELEMS(bad); i++) {
        char name[64];
        snprintf(name, sizeof(name), "truth rejects #%d", i);
        err = truth_parse(&tr, bad[i], "selftest");
        expect(t, name, err < 0, 1, 0);
        truth_free(&tr);
    }
    av_log_set_level(av_level);
    err = truth_parse(&tr, "  \n* 1.5 -0.25 \r\n5 1 1 2 2 2 2 # comment\n", "selftest");
    expect(t, "truth parses", err, 0, 0);
    expect(t, "truth lines", tr.nb, 2, 0);
    truth_at(&tr, 7, 0, 0, &dx, &dy);
    expect(t, "truth * dx", dx, 1.5, 0);
    expect(t, "truth * dy", dy, -0.25, 0);
    /* frame 5, (3, 3) is inside the rectangle x, y in [2, 4) */
    truth_at(&tr, 5, 3, 3, &dx, &dy);
    expect(t, "truth rect dx", dx, 1, 0);
    truth_at(&tr, 5, 4, 3, &dx, &dy);
    expect(t, "truth outside rect dx", dx, 1.5, 0);
    truth_free(&tr);
    truth_parse(&tr, "5 1 1\n", "selftest");
    expect(t, "truth none", truth_at(&tr, 4, 0, 0, &dx, &dy), 0, 0);
    truth_free(&tr);
}

/** Frames, vectors and the expected metrics of test_eval(). */
static void test_eval(Tests *t)
{
    EvalContext e = { 0 };
    FrameStats st;
    AVFrame *prev = NULL, *cur = NULL, *next = NULL;
    int err;

#define FRAMES(w, h, p, c, n)                                                         \
    do {                                                                              \
        av_frame_free(&prev); av_frame_free(&cur); av_frame_free(&next);              \
        prev = gray_frame(w, h, p); cur = gray_frame(w, h, c); next = gray_frame(w, h, n); \
        if (!prev || !cur || !next)                                                   \
            goto oom;                                                                 \
    } while (0)
#define MVS(...)                                                                      \
    do {                                                                              \
        const AVMotionVector mvs_[] = { __VA_ARGS__ };                                \
        if (attach_mvs(cur, mvs_, FF_ARRAY_ELEMS(mvs_)) < 0)                          \
            goto oom;                                                                 \
    } while (0)
#define EVAL(index)                                                                   \
    do {                                                                              \
        if ((err = eval_frame(&e, prev, cur, next, index, &st)) < 0) {                \
            printf("FAIL eval_frame: %s\n", av_err2str(err));                         \
            t->fail++;                                                                \
            goto end;                                                                 \
        }                                                                             \
    } while (0)

    /* 1. cur(x, y) = R(x + 1, y), edges replicated:
     *      20 30 40 40 / 60 70 80 80 / 100 110 120 120 / 140 150 160 160
     * one 4x4 block, dst (2, 2), vector (+1, 0): the prediction is exact. */
    {
        static const uint8_t c[16] = { 20, 30, 40, 40, 60, 70, 80, 80,
                                       100, 110, 120, 120, 140, 150, 160, 160 };
        FRAMES(4, 4, ref4, c, NULL);
        MVS(mk_mv(-1, 4, 4, 2, 2, 1, 0, 1));
        EVAL(1);
        expect(t, "shift n_fwd", st.n[FWD], 1, 0);
        expect(t, "shift psnr_fwd", psnr_of(st.sse[FWD], st.pixels), INFINITY, 0);
        expect(t, "shift mae", st.mae[FWD], 0, 0);
        expect(t, "shift cover", st.cover[FWD], 1, 0);
        /* zero motion: |cur - R| = 10 on 12 pixels, 0 on column 3:
         * SSE = 12 * 100 = 1200, MSE = 75, 10 log10(65025 / 75) = 29.380191 */
        expect(t, "shift psnr0", psnr_of(st.sse0, st.pixels), 29.380191, 1e-6);
        expect(t, "shift smooth (one block)", st.smooth[FWD], NAN, 0);
        expect(t, "shift no bwd", st.has[BWD], 0, 0);
    }

    /* 2. Two overlapping 2x2 blocks on R: A at (0,0) with (+2, 0), B at (1,1)
     * with (0, +1), B written last.
     *   A: (0,0)=R(2,0)=30 (1,0)=R(3,0)=40 (0,1)=R(2,1)=70 [(1,1)=80, overwritten]
     *   B: (1,1)=R(1,2)=100 (2,1)=R(2,2)=110 (1,2)=R(1,3)=140 (2,2)=R(2,3)=150
     *   others co-located: prediction
     *      30  40  30  40 /  70 100 110  80 /  90 140 150 120 / 130 140 150 160
     * cur = prediction with (0,0) +3 and (3,3) -5: SSE = 9 + 25 = 34,
     * MSE = 34 / 16 = 2.125, PSNR = 10 log10(65025 / 2.125) = 44.857214;
     * MAE = (3 + 5) / 16 = 0.5; covered: 4 + 4 - 1 = 7 of 16 = 0.4375;
     * one neighbouring pair {A, B}: |(2,0) - (0,1)| = sqrt(5) = 2.236068. */
    {
        static const uint8_t c[16] = { 33, 40, 30, 40, 70, 100, 110, 80,
                                       90, 140, 150, 120, 130, 140, 150, 155 };
        FRAMES(4, 4, ref4, c, NULL);
        MVS(mk_mv(-1, 2, 2, 1, 1, 2, 0, 1), mk_mv(-1, 2, 2, 2, 2, 0, 1, 1));
        EVAL(1);
        expect(t, "overlap pred (1,1) later wins", e.pred[FWD][1 * 4 + 1], 100, 0);
        expect(t, "overlap pred (3,0) co-located", e.pred[FWD][3], 40, 0);
        expect(t, "overlap psnr_fwd", psnr_of(st.sse[FWD], st.pixels), 44.857214, 1e-6);
        expect(t, "overlap mae", st.mae[FWD], 0.5, 0);
        expect(t, "overlap cover", st.cover[FWD], 0.4375, 0);
        expect(t, "overlap smooth", st.smooth[FWD], 2.236068, 1e-6);
    }

    /* 3. Both directions, zero vectors: prev = 10, cur = 20, next = 31 everywhere.
     *   fwd error 10: MSE 100, 10 log10(65025 / 100) = 28.130804
     *   bwd error 11: MSE 121, 10 log10(65025 / 121) = 27.302950
     *   bi: (10 + 31 + 1) >> 1 = 21, error 1: MSE 1, 10 log10(65025) = 48.130804 */
    {
        uint8_t p[16], c[16], n[16];
        memset(p, 10, 16);
        memset(c, 20, 16);
        memset(n, 31, 16);
        FRAMES(4, 4, p, c, n);
        MVS(mk_mv(-1, 4, 4, 2, 2, 0, 0, 4), mk_mv(1, 4, 4, 2, 2, 0, 0, 4));
        EVAL(2);
        expect(t, "bi psnr_fwd", psnr_of(st.sse[FWD], st.pixels), 28.130804, 1e-6);
        expect(t, "bi psnr_bwd", psnr_of(st.sse[BWD], st.pixels), 27.302950, 1e-6);
        expect(t, "bi psnr_bi", psnr_of(st.sse_bi, st.pixels), 48.130804, 1e-6);
        expect(t, "bi cover_bwd", st.cover[BWD], 1, 0);
        /* without a next frame the backward vectors are not evaluated */
        av_frame_free(&next);
        av_log_set_level(AV_LOG_QUIET);
        EVAL(3);
        av_log_set_level(AV_LOG_WARNING);
        expect(t, "bi last frame: no bwd", st.has[BWD] + st.has_bi, 0, 0);
        expect(t, "bi last frame: n_bwd counted", st.n[BWD], 1, 0);
    }

    /* 4. 8x8, four 4x4 blocks (quarter pel): TL (0,0) TR (3,4) BL (0,0) BR (3,4) px.
     * pairs: TL-TR |(3,4)| = 5, BL-BR 5, TL-BL 0, TR-BR 0: mean 10 / 4 = 2.5 */
    {
        FRAMES(8, 8, NULL, NULL, NULL);
        MVS(mk_mv(-1, 4, 4, 2, 2, 0, 0, 4), mk_mv(-1, 4, 4, 6, 2, 12, 16, 4),
            mk_mv(-1, 4, 4, 2, 6, 0, 0, 4), mk_mv(-1, 4, 4, 6, 6, 12, 16, 4));
        EVAL(1);
        expect(t, "grid smooth", st.smooth[FWD], 2.5, 1e-12);
        expect(t, "grid cover", st.cover[FWD], 1, 0);
        expect(t, "grid psnr (flat frames)", psnr_of(st.sse[FWD], st.pixels), INFINITY, 0);
    }

    /* 5. A clipped edge block: 5x3 frame, 4x4 block centred at (6, 2):
     * top-left (4, 0), clipped to 1x3: 3 of 15 pixels = 0.2 */
    {
        FRAMES(5, 3, NULL, NULL, NULL);
        MVS(mk_mv(-1, 4, 4, 6, 2, 0, 0, 4));
        EVAL(1);
        expect(t, "edge cover", st.cover[FWD], 0.2, 1e-12);
    }

    /* 6. EPE. truth: "* 2 1", and (0, 0) in the rectangle (0,0)-(4,4) of frame 3.
     * frame 1, vectors (2,1) (2,1) (5,5) (2,2): EPE 0, 0, |(3,4)| = 5, |(0,1)| = 1:
     *   mean 6 / 4 = 1.5, median (0 + 1) / 2 = 0.5
     * frame 3, TL centre (2,2) in the rectangle: |(3,4) - (0,0)| = 5; others 0:
     *   mean 5 / 4 = 1.25, median 0
     * overall 0 0 5 1 5 0 0 0: mean 11 / 8 = 1.375, median (0 + 0) / 2 = 0 */
    {
        eval_uninit(&e);
        e = (EvalContext) { 0 };
        if (truth_parse(&e.truth, "* 2 1\n3 0 0 0 0 4 4\n", "selftest") < 0)
            goto oom;
        e.have_truth = 1;
        FRAMES(8, 8, NULL, NULL, NULL);
        MVS(mk_mv(-1, 4, 4, 2, 2, 2, 1, 1), mk_mv(-1, 4, 4, 6, 2, 2, 1, 1),
            mk_mv(-1, 4, 4, 2, 6, 5, 5, 1), mk_mv(-1, 4, 4, 6, 6, 2, 2, 1));
        EVAL(1);
        expect(t, "epe mean", st.epe_mean, 1.5, 1e-12);
        expect(t, "epe median", st.epe_median, 0.5, 1e-12);
        FRAMES(8, 8, NULL, NULL, NULL);
        MVS(mk_mv(-1, 4, 4, 2, 2, 3, 4, 1), mk_mv(-1, 4, 4, 6, 2, 2, 1, 1),
            mk_mv(-1, 4, 4, 2, 6, 2, 1, 1), mk_mv(-1, 4, 4, 6, 6, 2, 1, 1));
        EVAL(3);
        expect(t, "epe rect mean", st.epe_mean, 1.25, 1e-12);
        expect(t, "epe rect median", st.epe_median, 0, 1e-12);
        expect(t, "epe overall mean", e.epe_sum / e.nb_epe_all, 1.375, 1e-12);
        expect(t, "epe overall median", median(e.epe_all, e.nb_epe_all), 0, 1e-12);
        expect(t, "overall frames", e.frames, 2, 0);
    }
    goto end;
oom:
    printf("FAIL selftest: out of memory\n");
    t->fail++;
end:
    av_frame_free(&prev);
    av_frame_free(&cur);
    av_frame_free(&next);
    eval_uninit(&e);
#undef FRAMES
#undef MVS
#undef EVAL
}

static int cmd_selftest(void)
{
    Tests t = { 0 };

    test_sample_q(&t);
    test_conversion(&t);
    test_misc(&t);
    test_truth_parse(&t);
    test_eval(&t);
    printf("%d passed, %d failed\n", t.pass, t.fail);
    return t.fail ? 1 : 0;
}

/* ------------------------------------------------------------------------ */

static void usage(FILE *out)
{
    fprintf(out,
        "usage: gpume-mv dump [-f csv|jsonl] [-vf GRAPH] [-frames N] [-export_mvs] [-v LEVEL] INPUT\n"
        "       gpume-mv eval [-vf GRAPH] [-frames N] [-export_mvs] [-truth FILE] [-v LEVEL] INPUT\n"
        "\n"
        "INPUT: a media file (first video stream), or lavfi:GRAPH for a source filter graph,\n"
        "       e.g. lavfi:testsrc2=s=320x240:r=25:d=1\n"
        "-vf GRAPH    filters between the input and the output (default: null),\n"
        "             e.g. gpume=device=cpu:dir=bi or mestimate\n"
        "-frames N    stop after N output frames\n"
        "-export_mvs  let the decoder export its own vectors (flags2 +export_mvs)\n"
        "-f           dump format: csv (a line per vector) or jsonl (an object per frame)\n"
        "-truth FILE  true motion for the end-point error: lines 'FRAME DX DY [X Y W H]',\n"
        "             FRAME an index or '*', (DX, DY) the pixel's position in the previous\n"
        "             frame relative to its own, in pixels; later lines override earlier ones\n"
        "-v LEVEL     log level: quiet, error, warning (default), info, verbose, debug\n"
        "\n"
        "dump prints, per frame, its vectors and lavfi.gpume.* metadata; eval prints\n"
        "motion-compensated prediction PSNR, coverage, smoothness and EPE per frame and\n"
        "a last line 'overall key=value ...'. See the head of tools/gpume-mv.c.\n");
}

static int parse_level(const char *s, int *level)
{
    static const struct { const char *name; int level; } levels[] = {
        { "quiet", AV_LOG_QUIET }, { "panic", AV_LOG_PANIC }, { "fatal", AV_LOG_FATAL },
        { "error", AV_LOG_ERROR }, { "warning", AV_LOG_WARNING }, { "info", AV_LOG_INFO },
        { "verbose", AV_LOG_VERBOSE }, { "debug", AV_LOG_DEBUG }, { "trace", AV_LOG_TRACE },
    };
    int64_t v;

    for (int i = 0; i < FF_ARRAY_ELEMS(levels); i++)
        if (!strcmp(s, levels[i].name)) {
            *level = levels[i].level;
            return 1;
        }
    if (!parse_int(s, AV_LOG_QUIET, AV_LOG_TRACE, &v))
        return 0;
    *level = v;
    return 1;
}

int main(int argc, char **argv)
{
    Options o = { .graph = "null" };
    const char *cmd = argc > 1 ? argv[1] : "";
    int dump = !strcmp(cmd, "dump"), eval = !strcmp(cmd, "eval"), level = AV_LOG_WARNING, err;

    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "selftest") && argc == 2)
        return cmd_selftest();
    if (!dump && !eval) {
        fprintf(stderr, "gpume-mv: %s%s%s\n\n", *cmd ? "unknown command '" : "no command given",
                cmd, *cmd ? "'" : "");
        usage(stderr);
        return 2;
    }

    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        const int takes_value = !strcmp(a, "-f") || !strcmp(a, "-vf") || !strcmp(a, "-frames") ||
                                !strcmp(a, "-truth") || !strcmp(a, "-v");

        if (takes_value && !val) {
            fprintf(stderr, "gpume-mv: option %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "-f") && dump) {
            if (strcmp(val, "csv") && strcmp(val, "jsonl")) {
                fprintf(stderr, "gpume-mv: -f %s: the format must be csv or jsonl\n", val);
                return 2;
            }
            o.jsonl = !strcmp(val, "jsonl");
        } else if (!strcmp(a, "-vf")) {
            o.graph = val;
        } else if (!strcmp(a, "-frames")) {
            if (!parse_int(val, 1, INT64_MAX, &o.max_frames)) {
                fprintf(stderr, "gpume-mv: -frames %s: a number of frames >= 1 is needed\n", val);
                return 2;
            }
        } else if (!strcmp(a, "-truth") && eval) {
            o.truth = val;
        } else if (!strcmp(a, "-v")) {
            if (!parse_level(val, &level)) {
                fprintf(stderr, "gpume-mv: -v %s: unknown log level\n", val);
                return 2;
            }
        } else if (!strcmp(a, "-export_mvs")) {
            o.export_mvs = 1;
            continue;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gpume-mv %s: unknown option %s\n", cmd, a);
            return 2;
        } else if (o.input) {
            fprintf(stderr, "gpume-mv: more than one input ('%s', '%s')\n", o.input, a);
            return 2;
        } else {
            o.input = a;
            continue;
        }
        i++;
    }
    if (!o.input) {
        fprintf(stderr, "gpume-mv %s: no input given\n", cmd);
        return 2;
    }
    if (!*o.graph) {
        fprintf(stderr, "gpume-mv: -vf: empty filter graph (use null)\n");
        return 2;
    }

    av_log_set_level(level);
    err = dump ? cmd_dump(&o) : cmd_eval(&o);
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "gpume-mv: error writing the output\n");
        return 1;
    }
    if (err < 0) {
        fprintf(stderr, "gpume-mv %s: failed: %s\n", cmd, av_err2str(err));
        return 1;
    }
    return 0;
}
