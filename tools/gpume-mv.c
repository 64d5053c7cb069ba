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
 *     (quarter pel: nearest, halves rounded up), else src - dst (mestimate
 *     leaves motion_scale at 0).
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
 */
static int block_from_mv(const AVMotionVector *mv, int w, int h, Block *b)
{
    const int x = mv->dst_x - mv->w / 2, y = mv->dst_y - mv->h / 2;
    const int x1 = FFMIN(x + mv->w, w), y1 = FFMIN(y + mv->h, h);

    b->x     = FFMAX(x, 0);
    b->y     = FFMAX(y, 0);
    b->w     = x1 - b->x;
    b->h     = y1 - b->y;
    b->dst_x = mv->dst_x;
    b->dst_y = mv->dst_y;
    if (mv->motion_scale) {
        b->qx = to_qpel(mv->motion_x, mv->motion_scale);
        b->qy = to_qpel(mv->motion_y, mv->motion_scale);
        b->mx = (double)mv->motion_x / mv->motion_scale;
        b->my = (double)mv->motion_y / mv->motion_scale;
    } else {
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
    int warned_ref;

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
static int collect_blocks(EvalContext *e, const AVFrame *cur, int source, int *nb, int *nb_all)
{
    const AVFrameSideData *sd = av_frame_get_side_data(cur, AV_FRAME_DATA_MOTION_VECTORS);
    const AVMotionVector *mvs = sd ? (const AVMotionVector *)sd->data : NULL;
    const size_t n = sd ? sd->size / sizeof(*mvs) : 0;
    Block *b;

    *nb = *nb_all = 0;
    if (n > INT32_MAX / sizeof(*b))
        return AVERROR(ERANGE);
    b = av_fast_realloc(e->blocks, &e->blocks_size, FFMAX(n, 1) * sizeof(*b));
    if (!b)
        return AVERROR(ENOMEM);
    e->blocks = b;
    for (size_t i = 0; i < n; i++) {
        if (mvs[i].source != source)
            continue;
        (*nb_all)++;
        *nb += block_from_mv(&mvs[i], cur->width, cur->height, &b[*nb]);
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
        int nb;
        int64_t pairs;

        if ((err = collect_blocks(e, cur, d == FWD ? -1 : 1, &nb, &st->n[d])) < 0)
            return err;
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
