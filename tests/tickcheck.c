/*
 * mcfps's output ticks against the fps filter's, on random input through the
 * public API: output rates from 1/7 to 1000, input time bases that do and do
 * not hold the ticks exactly, offsets (negative too), variable frame rate,
 * gaps, frames on ticks, on half ticks and one time-base unit off them,
 * frames closer than 1/256 of an output frame, streams of 1 to 3 frames, and
 * ends on a tick, between ticks, just after the last frame, far after it or
 * not given at all, and frames changing size or pixel format mid-stream.
 * For each case:
 *  - gpume,mcfps (mode mc) and mcfps in modes blend and dup give the time
 *    base and the timestamps that fps gives;
 *  - modes mc and blend: an input frame that lies exactly on a tick, with no
 *    other frame within 1/256 of an output frame of it, comes out there byte
 *    for byte;
 *  - mode dup: each tick is the input frame that fps shows there (where a
 *    later frame rounds to a frame's tick, the later one);
 *  - closed captions (each input frame has its own, of a number that
 *    varies from frame to frame): at the rates where the caption FIFO
 *    spreads them at the output rate (CTA-708's), each tick of each mode
 *    carries the bytes that fps gives it; at other rates they stay on their
 *    frames, and each tick of mode dup carries fps's.
 * An input closed without a timestamp ends at its last frame's (libavfilter
 * gives the last timestamp), whatever that frame's duration.
 *
 * usage: tickcheck [CASES [SEED [CASE]]], CASE alone of them where given;
 * mcfps on the device TICKCHECK_DEVICE names (opencl, cuda) where it is set,
 * else on the CPU; its last line is "N passed, N failed"
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavfilter/avfilter.h"
#include "libavfilter/buffersink.h"
#include "libavfilter/buffersrc.h"
#include "libavutil/error.h"
#include "libavutil/frame.h"
#include "libavutil/log.h"
#include "libavutil/mathematics.h"
#include "libavutil/mem.h"

#define W      32
#define H      24
#define W2     24    ///< the size after a change of size mid-stream
#define H2     16
#define MAX_IN 40    ///< input frames of a case, near duplicates included
#define MAX_OUT 3000 ///< output frames the frames' span allows, gaps aside

static const AVRational rates[] = {
    { 1, 7 }, { 1, 1 }, { 10, 1 }, { 15, 1 }, { 24000, 1001 }, { 24, 1 }, { 25, 1 }, { 30000, 1001 },
    { 30, 1 }, { 50, 1 }, { 60000, 1001 }, { 60, 1 }, { 120, 1 }, { 1000, 1 },
};
/* 0: a multiple of 256 times the output rate's numerator, holding every
 * tick and every 1/256 of a tick exactly */
static const int time_bases[] = { 120000, 120000, 120000, 90000, 1000, 1000000, 0 };

enum Kind { CFR, VFR, GAP_MID, GAP_LAST, SMALL, ON_TICK, NEAR_DUP, HALF_TICK, MIXED, CHANGE, NB_KINDS };
static const char *const kind_names[] = {
    "cfr", "vfr", "gap-mid", "gap-last", "small", "on-tick", "near-dup", "half-tick", "mixed", "change",
};
enum End { END_FRAME, END_BETWEEN, END_ON_TICK, END_HALF_TICK, END_TINY, END_GAP, END_NONE, NB_ENDS };

typedef struct Case {
    AVRational rate, rate_in;
    int tbd;                    ///< the input time base is 1/tbd
    enum Kind kind;
    int n;
    int change_at;              ///< frames from this one on are W2 x H2, or gray where gray is set
    int gray;
    int64_t pts[MAX_IN];
    int64_t last_duration;      ///< the last frame's duration, 0 where unknown
    int64_t end;                ///< the input's end, AV_NOPTS_VALUE where none
} Case;

typedef struct Output {
    int err;
    AVRational tb;
    int nb, size;
    int64_t *pts;
    int *shown;                 ///< the input frame each output frame is, -1 for none
    uint32_t *cc;               ///< a hash of each output frame's captions, 0 for none
    int on_tick, on_tick_same;  ///< input frames on a tick, and those that came out there unchanged
} Output;

static int pass, fail, on_tick; ///< on_tick: input frames compared where they lie on a tick
static uint64_t rng = 1;

static uint32_t rnd(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (rng * 0x2545f4914f6cdd1dULL) >> 32;
}

static int64_t uniform(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }
static int percent(int p) { return (int)(rnd() % 100) < p; }

/* q seconds times num / den in units of the time base, rounded to nearest */
static int64_t in_tb(const Case *c, AVRational q, int64_t num, int64_t den)
{
    return av_rescale_rnd(num * q.num, c->tbd, den * q.den, AV_ROUND_NEAR_INF);
}

static int cmp_i64(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void make_case(Case *c)
{
    const int tbd = time_bases[uniform(0, FF_ARRAY_ELEMS(time_bases) - 1)];
    AVRational tick, step;
    int64_t t, max_n, off_us;
    int gap_at = -1;
    enum End end;

    memset(c, 0, sizeof(*c));
    c->rate    = rates[uniform(0, FF_ARRAY_ELEMS(rates) - 1)];
    c->rate_in = rates[uniform(0, FF_ARRAY_ELEMS(rates) - 1)];
    c->tbd     = tbd ? tbd : 256 * c->rate.num * (int)uniform(1, 3);
    c->kind    = uniform(0, NB_KINDS - 1);
    c->change_at = MAX_IN;
    tick = av_inv_q(c->rate);
    step = av_inv_q(c->rate_in);
    c->n = c->kind == SMALL ? uniform(1, 3) : uniform(4, 30);
    /* the frames' span within MAX_OUT output frames */
    max_n = av_rescale(MAX_OUT, (int64_t)c->rate.den * c->rate_in.num, (int64_t)c->rate.num * c->rate_in.den);
    if (c->n > max_n)
        c->n = FFMAX(2, FFMIN(max_n, 30));

    switch (uniform(0, 4)) {
    case 0:  off_us = 0;                                  break;
    case 1:
    case 2:  off_us = uniform(1000, 50999);               break; 
    case 3:  off_us = 1000 * uniform(100, 5000);          break;
    default: off_us = -1000 * uniform(1, 3000);           break;
    }
    if ((c->kind == GAP_MID && c->n >= 3))
        gap_at = uniform(1, c->n - 2);
    if ((c->kind == GAP_LAST && c->n >= 2) || (c->kind == SMALL && c->n >= 2 && percent(40)))
        gap_at = c->n - 1;

    t = av_rescale_rnd(off_us, c->tbd, 1000000, AV_ROUND_NEAR_INF);
    for (int i = 0; i < c->n; i++) {
        if (i > 0) {
            int64_t d = c->kind == VFR || c->kind == MIXED ? in_tb(c, step, uniform(200, 1800), 1000)
                                                          : in_tb(c, step, i, 1) - in_tb(c, step, i - 1, 1);
            if (gap_at == i)
                d += in_tb(c, (AVRational){ 1, 1 }, uniform(1000, 4000), 1000);
            if (c->kind == MIXED && percent(10))
                d += in_tb(c, (AVRational){ 1, 1 }, uniform(300, 3000), 1000);
            t += d;
        }
        c->pts[i] = t;
    }
    /* frames moved onto ticks, half ticks, one unit off a tick */
    if (c->kind == ON_TICK || c->kind == MIXED || c->kind == NEAR_DUP || c->kind == HALF_TICK) {
        for (int i = 0; i < c->n; i++) {
            if (!percent(c->kind == ON_TICK ? 60 : 25))
                continue;
            const int64_t m = av_rescale_rnd(c->pts[i], c->rate.num, (int64_t)c->rate.den * c->tbd,
                                             AV_ROUND_NEAR_INF);
            c->pts[i] = in_tb(c, tick, m, 1);
            if (c->kind == HALF_TICK || (c->kind == MIXED && percent(20)))
                c->pts[i] += in_tb(c, tick, 1, 2);
            if (c->kind == MIXED && percent(20))
                c->pts[i] += percent(50) ? 1 : -1;
        }
    }
    /* frames on the timestamp of another, within, at or just beyond 1/256
     * of an output frame of it */
    if (c->kind == NEAR_DUP && c->n >= 2) {
        static const int frac[][2] = { { 0, 1 }, { 1, 3 }, { 1, 2 }, { 9, 10 }, { 1, 1 }, { 3, 2 }, { 2, 1 } };
        for (int k = uniform(1, 3); k > 0; k--) {
            const int j = uniform(0, c->n - 1), *f = frac[uniform(0, FF_ARRAY_ELEMS(frac) - 1)];
            c->pts[c->n++] = c->pts[j] + (f[0] ? FFMAX(1, in_tb(c, tick, f[0], 256LL * f[1])) : 0);
        }
    }
    qsort(c->pts, c->n, sizeof(*c->pts), cmp_i64);
    for (int i = 1; i < c->n; i++)
        c->pts[i] = FFMAX(c->pts[i], c->pts[i - 1] + (c->kind != NEAR_DUP));

    if (c->kind == CHANGE && c->n >= 2) {
        c->change_at = uniform(1, c->n - 1);
        c->gray      = percent(50);
    }

    t = c->pts[c->n - 1];
    end = uniform(0, NB_ENDS); ///< END_FRAME twice as often
    switch (end) {
    case NB_ENDS:
    case END_FRAME:     c->end = t + (c->n >= 2 ? t - c->pts[c->n - 2] : in_tb(c, step, 1, 1)); break;
    case END_BETWEEN:   c->end = t + in_tb(c, tick, uniform(1, 1999), 1000);                     break;
    case END_ON_TICK:
    case END_HALF_TICK: {
        const int64_t m = av_rescale_rnd(t, c->rate.num, (int64_t)c->rate.den * c->tbd, AV_ROUND_DOWN);
        c->end = in_tb(c, tick, 2 * (m + uniform(1, 3)) + (end == END_HALF_TICK), 2);
        break;
    }
    case END_TINY:      c->end = t + 1;                                                          break;
    case END_GAP:       c->end = t + in_tb(c, (AVRational){ 1, 1 }, uniform(1000, 4000), 1000);  break;
    case END_NONE:      c->end = AV_NOPTS_VALUE;                                                 break;
    }
    if (c->end != AV_NOPTS_VALUE) {
        c->end = FFMAX(c->end, t + 1);
        c->last_duration = c->end - t;
    } else if (percent(50)) {
        c->last_duration = c->n >= 2 ? t - c->pts[c->n - 2] : in_tb(c, step, 1, 1);
    }
}

/* the frame rates at which libavfilter's caption FIFO sends captions at the
 * output rate (CTA-708's); at others they stay on their frames */
static int captions_spread(AVRational rate)
{
    static const AVRational spread[] = {
        { 15, 1 }, { 24, 1 }, { 24000, 1001 }, { 30, 1 }, { 30000, 1001 }, { 60, 1 }, { 60000, 1001 },
    };

    for (int i = 0; i < FF_ARRAY_ELEMS(spread); i++)
        if (!av_cmp_q(rate, spread[i]))
            return 1;
    return 0;
}

/* input frame i's captions: i % 3 triplets of CEA-608 (fields 1 and 2 in
 * turn) and (7 i + 3) % 23 of CEA-708, numbered (i, k) in their two data
 * bytes; 0 or an error */
static int add_captions(AVFrame *f, int i)
{
    const int n608 = i % 3, n = n608 + (7 * i + 3) % 23;
    AVFrameSideData *sd = n ? av_frame_new_side_data(f, AV_FRAME_DATA_A53_CC, 3 * n) : NULL;

    if (n && !sd)
        return AVERROR(ENOMEM);
    for (int k = 0; k < n; k++) {
        /* marker bits, cc_valid, cc_type: 0 and 1 (608, fields 1 and 2), 2 (708) */
        sd->data[3 * k]     = 0xf8 | 4 | (k < n608 ? k & 1 : 2);
        sd->data[3 * k + 1] = i;
        sd->data[3 * k + 2] = k;
    }
    return 0;
}

/* an FNV-1a hash of f's captions, never 0; 0 where it has none */
static uint32_t captions_hash(const AVFrame *f)
{
    const AVFrameSideData *sd = av_frame_get_side_data(f, AV_FRAME_DATA_A53_CC);
    uint32_t h = 2166136261u;

    if (!sd)
        return 0;
    for (size_t k = 0; k < sd->size; k++)
        h = (h ^ sd->data[k]) * 16777619u;
    return h | 1;
}

/* input frame i: a texture of its own in each plane */
static AVFrame *input_frame(const Case *c, int i)
{
    AVFrame *f = av_frame_alloc();
    const int changed = i >= c->change_at;
    const int w = changed && !c->gray ? W2 : W, h = changed && !c->gray ? H2 : H;

    if (!f)
        return NULL;
    f->format = changed && c->gray ? AV_PIX_FMT_GRAY8 : AV_PIX_FMT_YUV420P;
    f->width  = w;
    f->height = h;
    if (av_frame_get_buffer(f, 0) < 0) {
        av_frame_free(&f);
        return NULL;
    }
    f->pts      = c->pts[i];
    f->duration = i + 1 < c->n ? c->pts[i + 1] - c->pts[i] : c->last_duration;
    for (int p = 0; p < (f->format == AV_PIX_FMT_GRAY8 ? 1 : 3); p++)
        for (int y = 0; y < (p ? h / 2 : h); y++)
            for (int x = 0; x < (p ? w / 2 : w); x++) {
                const int u = x + 2 * i + p, v = y + i;
                f->data[p][y * f->linesize[p] + x] = (u * 7 ^ v * 13) * 5 + (u * v & 31) + 17 * i;
            }
    if (add_captions(f, i) < 0)
        av_frame_free(&f);
    return f;
}

static int same_picture(const AVFrame *a, const AVFrame *b)
{
    if (a->width != b->width || a->height != b->height || a->format != b->format)
        return 0;
    for (int p = 0; p < (a->format == AV_PIX_FMT_GRAY8 ? 1 : 3); p++)
        for (int y = 0; y < (p ? a->height / 2 : a->height); y++)
            if (memcmp(a->data[p] + y * a->linesize[p], b->data[p] + y * b->linesize[p], p ? a->width / 2 : a->width))
                return 0;
    return 1;
}

/* the input frame that lies exactly on output tick k with no other frame
 * within 1/256 of an output frame of it, or -1; nor where the first frame
 * of another size or format rounds to tick k or before, which ends its run
 * there (docs/ALGORITHMS.md M1) */
static int frame_on_tick(const Case *c, int64_t k)
{
    const int64_t den = (int64_t)c->rate.den * c->tbd;

    for (int i = 0; i < c->n; i++) {
        if (c->pts[i] * c->rate.num != k * den)
            continue;
        if (i < c->change_at && c->change_at < c->n &&
            av_rescale_rnd(c->pts[c->change_at], c->rate.num, den, AV_ROUND_NEAR_INF) <= k)
            return -1;
        for (int j = 0; j < c->n; j++)
            /* |pts[j] - pts[i]| <= tbd / (256 R) */
            if (j != i && llabs(c->pts[j] - c->pts[i]) * 256 * c->rate.num <= den)
                return -1;
        return i;
    }
    return -1;
}

static void take(Output *o, const Case *c, AVFrame *const *in, const AVFrame *f)
{
    uint32_t *h;
    int i;

    if (o->nb == o->size) {
        int64_t *p = av_realloc_array(o->pts, 2 * o->size + 64, sizeof(*p));
        int *q;

        if (p)
            o->pts = p;
        q = p ? av_realloc_array(o->shown, 2 * o->size + 64, sizeof(*q)) : NULL;
        if (q)
            o->shown = q;
        h = q ? av_realloc_array(o->cc, 2 * o->size + 64, sizeof(*h)) : NULL;
        if (!h) {
            o->err = AVERROR(ENOMEM);
            return;
        }
        o->cc   = h;
        o->size = 2 * o->size + 64;
    }
    o->cc[o->nb] = captions_hash(f);
    o->shown[o->nb] = -1;
    for (i = 0; i < c->n && o->shown[o->nb] < 0; i++)
        if (same_picture(f, in[i]))
            o->shown[o->nb] = i;
    o->pts[o->nb++] = f->pts;
    /* the sink's time base is 1/rate where it is fps's */
    if (av_cmp_q(o->tb, av_inv_q(c->rate)) || (i = frame_on_tick(c, f->pts)) < 0)
        return;
    o->on_tick++;
    o->on_tick_same += same_picture(f, in[i]);
}

/* the case's frames through buffer -> FILTERS -> buffersink, the input closed at END */
static void run(Output *o, const Case *c, AVFrame *const *in, const char *filters, int64_t end)
{
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL;
    AVFilterInOut *ins = avfilter_inout_alloc(), *outs = avfilter_inout_alloc();
    AVFrame *f = av_frame_alloc();
    char args[160];
    int err;

    memset(o, 0, sizeof(*o));
    snprintf(args, sizeof(args), "video_size=%dx%d:pix_fmt=yuv420p:time_base=1/%d:frame_rate=%d/%d:pixel_aspect=1/1",
             W, H, c->tbd, c->rate_in.num, c->rate_in.den);
    err = !g || !ins || !outs || !f ? AVERROR(ENOMEM) : 0;
    if (!err)
        err = avfilter_graph_create_filter(&src, avfilter_get_by_name("buffer"), "in", args, NULL, g);
    if (err >= 0)
        err = avfilter_graph_create_filter(&sink, avfilter_get_by_name("buffersink"), "out", NULL, NULL, g);
    if (err >= 0) {
        outs->name = av_strdup("in");
        outs->filter_ctx = src;
        ins->name  = av_strdup("out");
        ins->filter_ctx  = sink;
        err = avfilter_graph_parse_ptr(g, filters, &ins, &outs, NULL);
    }
    if (err >= 0)
        err = avfilter_graph_config(g, NULL);
    if (err >= 0)
        o->tb = av_buffersink_get_time_base(sink);
    for (int i = 0; i <= c->n && err >= 0; i++) {
        err = i < c->n ? av_buffersrc_add_frame_flags(src, in[i], AV_BUFFERSRC_FLAG_KEEP_REF)
                       : av_buffersrc_close(src, end, 0);
        while (err >= 0 && o->err >= 0 && (err = av_buffersink_get_frame(sink, f)) >= 0) {
            take(o, c, in, f);
            av_frame_unref(f);
        }
        if (err == AVERROR(EAGAIN) || (err == AVERROR_EOF && i == c->n))
            err = 0;
    }
    o->err = o->err < 0 ? o->err : err;
    av_frame_free(&f);
    avfilter_inout_free(&ins);
    avfilter_inout_free(&outs);
    avfilter_graph_free(&g);
}

static void describe(const Case *c, int index)
{
    if (c->change_at < c->n)
        printf("  case %d: frames from %d on are %s\n", index, c->change_at, c->gray ? "gray" : "24x16");
    printf("  case %d: %s, %d/%d fps in, fps=%d/%d, time base 1/%d, end %"PRId64", last duration %"PRId64
           ", pts", index, kind_names[c->kind], c->rate_in.num, c->rate_in.den, c->rate.num, c->rate.den,
           c->tbd, c->end, c->last_duration);
    for (int i = 0; i < c->n; i++)
        printf(" %"PRId64, c->pts[i]);
    printf("\n");
}

static void check_case(const Case *c, int index)
{
    static const char *const variants[] = {
        "gpume=device=cpu:dir=bi,mcfps=device=%s:fps=%d/%d",
        "mcfps=mode=blend:device=%s:fps=%d/%d",
        "mcfps=mode=dup:device=%s:fps=%d/%d",
    };
    /* mcfps's backend: TICKCHECK_DEVICE (opencl, cuda), else the CPU's */
    const char *device = getenv("TICKCHECK_DEVICE") ? getenv("TICKCHECK_DEVICE") : "cpu";
    AVFrame *in[MAX_IN] = { NULL };
    Output ref, got;
    char filters[128];
    int ok = 1;

    for (int i = 0; i < c->n; i++)
        if (!(in[i] = input_frame(c, i)))
            ok = 0;
    snprintf(filters, sizeof(filters), "fps=%d/%d", c->rate.num, c->rate.den);
    run(&ref, c, in, filters, c->end);
    if (!ok || ref.err < 0) {
        printf("FAIL case %d: fps failed (%s)\n", index, ok ? av_err2str(ref.err) : "no memory");
        fail++;
        describe(c, index);
    }
    for (int v = 0; v < FF_ARRAY_ELEMS(variants) && ok && ref.err >= 0; v++) {
        int dup;

        snprintf(filters, sizeof(filters), variants[v], device, c->rate.num, c->rate.den);
        dup = !!strstr(filters, "mode=dup");
        run(&got, c, in, filters, c->end);
        if (got.err < 0) {
            printf("FAIL case %d, %s: %s\n", index, filters, av_err2str(got.err));
        } else if (av_cmp_q(got.tb, ref.tb)) {
            printf("FAIL case %d, %s: time base %d/%d, fps gives %d/%d\n", index, filters,
                   got.tb.num, got.tb.den, ref.tb.num, ref.tb.den);
        } else if (got.nb != ref.nb || memcmp(got.pts, ref.pts, got.nb * sizeof(*got.pts))) {
            int k = 0;
            while (k < FFMIN(got.nb, ref.nb) && got.pts[k] == ref.pts[k])
                k++;
            printf("FAIL case %d, %s: %d frames, fps gives %d; first difference at output frame %d: %"PRId64
                   ", fps %"PRId64"\n", index, filters, got.nb, ref.nb, k,
                   k < got.nb ? got.pts[k] : -1, k < ref.nb ? ref.pts[k] : -1);
        } else if (!dup && got.on_tick_same != got.on_tick) {
            printf("FAIL case %d, %s: %d of %d input frames on a tick changed\n", index, filters,
                   got.on_tick - got.on_tick_same, got.on_tick);
        } else if (dup && memcmp(got.shown, ref.shown, got.nb * sizeof(*got.shown))) {
            int k = 0;
            while (got.shown[k] == ref.shown[k])
                k++;
            printf("FAIL case %d, %s: output frame %d (pts %"PRId64") is input frame %d, fps shows %d\n",
                   index, filters, k, got.pts[k], got.shown[k], ref.shown[k]);
        } else if ((dup || captions_spread(c->rate)) && memcmp(got.cc, ref.cc, got.nb * sizeof(*got.cc))) {
            int k = 0;
            while (got.cc[k] == ref.cc[k])
                k++;
            printf("FAIL case %d, %s: output frame %d (pts %"PRId64") has captions %08"PRIx32
                   ", fps's %08"PRIx32" (0: none)\n", index, filters, k, got.pts[k], got.cc[k], ref.cc[k]);
        } else {
            pass++;
            on_tick += dup ? 0 : got.on_tick;
            av_freep(&got.pts);
            av_freep(&got.shown);
            av_freep(&got.cc);
            continue;
        }
        fail++;
        describe(c, index);
        av_freep(&got.pts);
        av_freep(&got.shown);
        av_freep(&got.cc);
    }
    av_freep(&ref.pts);
    av_freep(&ref.shown);
    av_freep(&ref.cc);
    for (int i = 0; i < c->n; i++)
        av_frame_free(&in[i]);
}

int main(int argc, char **argv)
{
    const int cases = argc > 1 ? atoi(argv[1]) : 300, only = argc > 3 ? atoi(argv[3]) : -1;
    Case c;

    rng = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
    rng = rng ? rng : 1;
    av_log_set_level(AV_LOG_ERROR);
    for (int i = 0; i < cases; i++) {
        make_case(&c);
        if (only < 0 || i == only)
            check_case(&c, i);
    }
    printf("%d input frames on a tick came out there unchanged\n", on_tick);
    if (only < 0 && !on_tick) {
        printf("FAIL: no case put an input frame on a tick\n");
        fail++;
    }
    printf("%d passed, %d failed\n", pass, fail);
    return fail != 0;
}
