/*
 * libFuzzer target of the mcfps filter on vectors of any producer: a real
 * filter graph (buffer -> mcfps -> buffersink) built through libavfilter's
 * public API from the fuzz input, fed frames whose size, pixel format,
 * contents, timestamps and side data the input chooses: motion vectors with
 * any field values, arrays of any size, lavfi.gpume.* keys of any text,
 * closed captions of any bytes. Decoders (-flags2 +export_mvs), mestimate
 * and user code hand mcfps such vectors; gpume's own are the case of
 * target_gpume_fuzzer.c. Every frame that comes out is checked against
 * what docs/mcfps.texi and docs/ALGORITHMS.md (M1, M2) promise; a
 * violation aborts.
 *
 * Input (a byte reader that gives zeros once the input is exhausted):
 *   byte 0    flags: bit 0 two threads, bit 1 AV_BUFFERSRC_FLAG_PUSH,
 *             bit 2 go on after an error (else close the input), bit 3
 *             drain the sink only at the end, bit 4 free the graph without
 *             closing the input, bits 5-7 the input time base (TIME_BASES)
 *   byte 1    bit 0 the buffer's frame rate given (1 / time base), bits 1-7
 *             fps: 0 leaves it out, else RATES[(n - 1) % NB_RATES]
 *   8 option selectors, one per option of OPTS below (opt_value()): 0
 *             leaves the option out, 1..0xdf picks a valid value,
 *             0xe0..0xef one that may go either way (nan) where the option
 *             has one, 0xf0.. an invalid one
 *   4 bytes   first frame: width, height (size())
 *   1 byte    first pixel format (FORMATS, supported ones first)
 *   then commands, one byte each, until EOF of the input or command 7:
 *     bits 0-2  0 send a frame, 1-3 send a frame with side data (side_data()),
 *               4 a command (command(), 2 bytes), 5 new size (4 bytes), 6
 *               new format (1 byte), each then sending a frame with side
 *               data, 7 close the input now with the end time of bits 3-5
 *     bits 3-5  timestamp (next_pts()): previous + 1, previous + 1..256
 *               (1 byte), previous, previous - 1, none, 8 raw bytes, one of
 *               SPECIAL_PTS (1 byte), previous + 1
 *     bits 6-7  contents: noise, the previous frame shifted (2 bytes),
 *               one value (1 byte), the next input bytes
 *   the bytes a command asks for follow it in this order: the command's,
 *   size or format, timestamp, contents, side data
 *
 * Timestamps whose output tick would make mcfps fill more ticks than the
 * budgets allow are sent as none (which mcfps drops): a gap is filled
 * frame by frame, and a huge one would only measure time.
 *
 * Checks:
 *  - the graph configures exactly when every option is valid (fps a rate
 *    mcfps takes, rel_lo < rel_hi) and the first format is one mcfps
 *    reads; the output time base is 1/fps where the rate is known here;
 *  - a command is refused exactly when it sets mode, an invalid value or
 *    rel_lo at or above rel_hi;
 *  - errors come only for what may be refused: AVERROR(ENOSYS) for a frame
 *    of a format mcfps does not read, AVERROR(EINVAL) in mode=mc for a
 *    frame without backward vectors (a pair without vectors before any pair
 *    had them); at most one per such frame;
 *  - output frames: consecutive ticks (after an error, one later skip),
 *    each one tick long, within the ticks of the input's timestamps and
 *    end times, of a size and format sent, without vectors, lavfi.gpume.*
 *    keys or a picture type;
 *  - after the input is closed the sink reaches its end.
 *
 * Built with -DGPUME_FUZZ_MAIN it is a plain program that runs the files
 * given on its command line (the regression suite of make check).
 *
 * This file is part of FFmpeg (LGPL 2.1 or later, as the filter).
 */

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavfilter/avfilter.h"
#include "libavfilter/buffersink.h"
#include "libavfilter/buffersrc.h"
#include "libavutil/avstring.h"
#include "libavutil/common.h"
#include "libavutil/dict.h"
#include "libavutil/display.h"
#include "libavutil/frame.h"
#include "libavutil/imgutils.h"
#include "libavutil/log.h"
#include "libavutil/mathematics.h"
#include "libavutil/mem.h"
#include "libavutil/motion_vector.h"
#include "libavutil/opt.h"
#include "libavutil/pixdesc.h"

#include "fuzz_input.h"

#define MAX_FRAMES   32
/* vectors of an array: 352x352 tiled by 4x4 blocks into both frames, or
 * a list of up to 1024 */
#define MV_SPACE     (16 * 1024)
/* what mcfps may make per input, the ticks between frames (motion-
 * compensated, the costly ones; their bytes) and the copies after the last
 * frame: keeps an input well under a second under the sanitizers */
#define TICK_BUDGET  256
#define BYTE_BUDGET  1e6
#define COPY_BUDGET  256
#define MAX_FINE     (INT64_C(1) << 52)  /* mcfps's time limit, in 1/256 tick */

#define FAIL(...) do {                                                  \
        fprintf(stderr, "mcfps fuzzer: check failed: " __VA_ARGS__);    \
        fprintf(stderr, "\n");                                          \
        __builtin_trap();                                               \
    } while (0)

static uint32_t rd32(Reader *r)
{
    uint32_t v = rd16(r) << 16;
    return v | rd16(r);
}

static uint64_t rd64(Reader *r)
{
    uint64_t v = (uint64_t)rd32(r) << 32;
    return v | rd32(r);
}

/* read by mcfps first (NB_SUPPORTED), then formats it refuses */
static const enum AVPixelFormat FORMATS[] = {
    AV_PIX_FMT_GRAY8, AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV440P,
    AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVJ420P, AV_PIX_FMT_YUVJ422P, AV_PIX_FMT_YUVJ440P,
    AV_PIX_FMT_YUVJ444P, AV_PIX_FMT_YUVA420P, AV_PIX_FMT_YUVA422P, AV_PIX_FMT_YUVA444P,
    AV_PIX_FMT_NV12, AV_PIX_FMT_NV21,
    AV_PIX_FMT_YUV410P, AV_PIX_FMT_YUV411P, AV_PIX_FMT_NV16, AV_PIX_FMT_NV24,
    AV_PIX_FMT_RGB24, AV_PIX_FMT_GRAY16LE, AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_MONOBLACK,
    AV_PIX_FMT_PAL8, AV_PIX_FMT_RGBA,
};
#define NB_SUPPORTED 14
#define NB_FORMATS   (sizeof(FORMATS) / sizeof(FORMATS[0]))

static int supported(enum AVPixelFormat f)
{
    for (int i = 0; i < NB_SUPPORTED; i++)
        if (FORMATS[i] == f)
            return 1;
    return 0;
}

static const AVRational TIME_BASES[8] = {
    { 1, 25 }, { 1, 90000 }, { 1001, 30000 }, { 1, 1 },
    { 1, 1000 }, { 7, 3 }, { 1, 48000 }, { 1, INT32_MAX },
};

enum { VALID, EITHER, BAD, SOURCE };

/* fps values: a rate, known here where rate.num is set; SOURCE: an
 * expression of source_fps, refused without the input's frame rate */
typedef struct Rate {
    const char *str;
    int kind;
    AVRational rate;
} Rate;

static const Rate RATES[] = {
    { "60",             VALID,  { 60, 1 } },
    { "1/7",            VALID,  { 1, 7 } },
    { "1000",           VALID,  { 1000, 1 } },
    { "24000/1001",     VALID,  { 24000, 1001 } },
    { "30000/1001",     VALID,  { 30000, 1001 } },
    { "25",             VALID,  { 25, 1 } },
    { "30",             VALID,  { 30, 1 } },
    { "50",             VALID,  { 50, 1 } },
    { "1",              VALID,  { 1, 1 } },
    { "120",            VALID,  { 120, 1 } },
    { "0.5",            VALID,  { 1, 2 } },
    { "1/40",           VALID,  { 1, 40 } },
    { "ntsc",           VALID,  { 30000, 1001 } },
    { "ntsc-film",      VALID,  { 24000, 1001 } },
    { "film",           VALID,  { 24, 1 } },
    { "pal",            VALID,  { 25, 1 } },
    { "2*ntsc",         VALID },
    { "24.000001",      VALID },
    { "8388607",        VALID,  { 8388607, 1 } },
    { "source_fps",     SOURCE },
    { "source_fps*2",   SOURCE },
    { "source_fps/3",   SOURCE },
    { "0",              BAD },
    { "-1",             BAD },
    { "inf",            BAD },
    { "nan",            BAD },
    { "bogus",          BAD },
    { "1/0",            BAD },
    { "9000000",        BAD },
    { "1e-10",          BAD },
    { "",               BAD },
    { "60/",            BAD },
};
#define NB_RATES (sizeof(RATES) / sizeof(RATES[0]))

/* the options after fps, their valid values (or range), some that may go
 * either way and some invalid ones */
typedef struct Opt {
    const char *name;
    int min, max;               ///< valid integer range when vals[0] is NULL
    const char *vals[8];
    const char *either[2];
    const char *bad[4];
} Opt;

enum { O_MODE, O_SCENE, O_SCENE_SAD, O_LAMBDA, O_REL_LO, O_REL_HI, O_CHECK, O_BEND, NB_OPTS };

static const Opt OPTS[NB_OPTS] = {
    [O_MODE]      = { "mode", 0, 0, { "mc", "blend", "dup", "0", "1", "2" }, { NULL },
                      { "3", "bogus", "-1" } },
    [O_SCENE]     = { "scene", 0, 0, { "0.6", "0", "1", "0.5", "1e-9", "0.999", "0.3" }, { "nan" },
                      { "1.5", "-0.1", "inf" } },
    [O_SCENE_SAD] = { "scene_sad", 0, 0, { "10", "0", "255", "0.5", "1e-300", "100" }, { "nan" },
                      { "256", "-1", "inf" } },
    [O_LAMBDA]    = { "lambda", 0, 64, { NULL }, { NULL }, { "65", "-1" } },
    [O_REL_LO]    = { "rel_lo", 0, 255 * 16 - 1, { NULL }, { NULL }, { "4080", "-1" } },
    [O_REL_HI]    = { "rel_hi", 1, 255 * 16, { NULL }, { NULL }, { "0", "4081" } },
    [O_CHECK]     = { "check", 0, 0, { "1", "0", "true", "false" }, { NULL }, { "2", "maybe" } },
    [O_BEND]      = { "bend", 0, 0, { "1", "0", "true", "false" }, { NULL }, { "2", "maybe" } },
};

static int nb_strs(const char *const *v, int max)
{
    int n = 0;
    while (n < max && v[n])
        n++;
    return n;
}

/*
 * The text of option o for selector b (1..0xff; 0 reads as 1): a valid value
 * (*kind VALID; *num the value where o has a range), one that may go either
 * way (EITHER) or an invalid one (BAD).
 */
static const char *opt_value(const Opt *o, unsigned b, int *kind, int *num, char *buf, size_t size)
{
    b = FFMAX(b, 1);
    *kind = VALID;
    if (b >= 0xf0) {
        *kind = BAD;
        return o->bad[(b - 0xf0) % nb_strs(o->bad, 4)];
    }
    if (b >= 0xe0 && o->either[0]) {
        *kind = EITHER;
        return o->either[(b - 0xe0) % nb_strs(o->either, 2)];
    }
    if (o->vals[0])
        return o->vals[(b - 1) % nb_strs(o->vals, 8)];
    /* both ends of the range and values spread between */
    *num = o->min + (int)((int64_t)((b - 1) % 0xdf) * (o->max - o->min) / 0xde);
    snprintf(buf, size, "%d", *num);
    return buf;
}

/* the options a command may change (bits 0-2 of its first byte; mode is
 * none of them: refused) */
static const int COMMANDS[8] = {
    O_SCENE, O_SCENE_SAD, O_LAMBDA, O_REL_LO, O_REL_HI, O_CHECK, O_BEND, O_MODE,
};

static const int64_t SPECIAL_PTS[16] = {
    0, -1, INT64_MIN + 1, INT64_MAX, INT64_MAX - 1, MAX_FINE, -MAX_FINE, MAX_FINE + 1,
    INT64_C(1) << 40, -(INT64_C(1) << 40), INT64_C(1) << 62, INT32_MAX,
    INT32_MIN, INT64_C(1) << 31, 1000000, -1000000,
};

static const int64_t DURATIONS[8] = { 0, 1, 2, 25, -1, 1000, INT64_MAX, INT64_MIN };

static const int32_t SPECIAL_MOTION[15] = {
    INT32_MIN, INT32_MAX, -INT32_MAX, 4 * 4096, -4 * 4097, 16383, -16384, 65536,
    -65536, 1 << 30, 1 << 24, 4097, -4097, 8192, 32767,
};

static const int SCALES[15] = { 4, 2, 1, 0, 3, 65535, 8, 16, 5, 7, 32768, 6, 12, 1000, 4 };

static const int32_t SOURCES[7] = { 0, 2, -2, INT32_MIN, INT32_MAX, 1, -1 };

/* texts of lavfi.gpume.scene_score and lavfi.gpume.mean_sad; two long ones
 * are made at run time (STR_LONG) */
static const char *const STRINGS[] = {
    "nan", "inf", "-inf", "-1", "1e308", "-1e308", "", "0", "1", "0.5", "0.61", "garbage",
    "1e-320", "0x1p3", "  7", "255", "256", "10", "NAN(0x1)", "infinity", "1,5", "+0.7",
    "-0", "1e999", "0.6000000000000000001", "3.4e38", "20", "0.0",
};
#define NB_STRINGS (sizeof(STRINGS) / sizeof(STRINGS[0]))
#define STR_LONG   4000

/* pixel formats and sizes of the frames sent, to check what comes out */
typedef struct Sent {
    int w, h;
    enum AVPixelFormat fmt;
} Sent;

typedef struct Fuzz {
    AVRational tb_in, tb_out;
    int mc;                     ///< mode=mc: a pair without vectors may fail
    Sent sent[MAX_FRAMES + 1];
    int nb_sent, nb_out;
    int64_t last_out;           ///< the last output tick
    int after_error;            ///< an error since the last skip: a later output frame may skip ticks
    int credits;                ///< errors still allowed (one per frame that may be refused)
    int rel_lo, rel_hi;         ///< the values in effect
    int nb_errors;
    int verbose;                ///< GPUME_FUZZ_VERBOSE: each frame in and out, each error
    /* the ticks of the timestamps and end times sent: output ticks lie in
     * [lo, top]; hi is the last frame's, for the budgets */
    int have_ticks;
    int64_t lo, hi, top;
    int64_t ticks;              ///< ticks spent of TICK_BUDGET
    double bytes;               ///< bytes spent of BYTE_BUDGET
    char long_digits[STR_LONG + 1], long_fraction[STR_LONG + 1];
} Fuzz;

static void size_of(Reader *r, int *w, int *h)
{
    static const int special[16] = { 1, 2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 33, 64, 65, 255, 352 };
    unsigned v[2] = { rd16(r), rd16(r) };
    int *d[2] = { w, h };
    for (int i = 0; i < 2; i++)
        *d[i] = v[i] >= 0xf000 ? special[v[i] & 15] : 1 + (int)(v[i] % 128);
}

static int64_t tick_of(const Fuzz *f, int64_t pts)
{
    return av_rescale_q_rnd(pts, f->tb_in, f->tb_out, AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX);
}

/* whether mcfps gives pts a time: 1/256 ticks within +-2^52 (M1) */
static int has_time(const Fuzz *f, int64_t pts)
{
    const AVRational fine = { f->tb_out.num, f->tb_out.den * 256 };
    int64_t t;

    if (pts == AV_NOPTS_VALUE)
        return 0;
    t = av_rescale_q_rnd(pts, f->tb_in, fine, AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX);
    return t >= -MAX_FINE && t <= MAX_FINE;
}

/*
 * The timestamp sent for a frame of size bytes: pts, or none where its tick
 * lies so far after the last that filling the ticks between would exceed
 * the budgets. Ticks before need no budget: mcfps never goes back.
 */
static int64_t bound_pts(Fuzz *f, int64_t pts, int size)
{
    int64_t t, gap;

    if (!has_time(f, pts))
        return pts;
    t = tick_of(f, pts);
    if (!f->have_ticks) {
        f->lo = f->hi = f->top = t;
        f->have_ticks = 1;
        return pts;
    }
    gap = t - f->hi;
    if (gap > 0) {
        if (gap > TICK_BUDGET - f->ticks || f->bytes + (double)gap * size > BYTE_BUDGET)
            return AV_NOPTS_VALUE;
        f->ticks += gap;
        f->bytes += (double)gap * size;
        f->hi     = t;
    }
    f->lo  = FFMIN(f->lo, t);
    f->top = FFMAX(f->top, t);
    return pts;
}

/* whether end, an end time (the status's, or a frame's pts + duration),
 * stays within COPY_BUDGET ticks of the last frame; noted as a tick mcfps
 * may reach */
static int bound_end(Fuzz *f, int64_t end)
{
    int64_t t;

    if (!has_time(f, end))
        return 1;
    t = tick_of(f, end);
    if (!f->have_ticks || t > f->hi + COPY_BUDGET)
        return 0;
    f->top = FFMAX(f->top, t);
    return 1;
}

/* an error of the graph: allowed while frames that may be refused were sent */
static void refused(Fuzz *f, int ret, const char *what)
{
    digest_error(ret);
    if (ret != AVERROR(EINVAL) && ret != AVERROR(ENOSYS))
        FAIL("%s: %s, not a refusal", what, av_err2str(ret));
    if (f->credits <= 0)
        FAIL("%s: %s, and no frame sent that may be refused", what, av_err2str(ret));
    if (f->verbose)
        fprintf(stderr, "mcfps fuzzer: %s: %s\n", what, av_err2str(ret));
    f->credits--;
    f->nb_errors++;
    f->after_error = 1;
}

/*
 * An output frame: the next tick (after an error, one skip), lasting
 * one tick, within the input's ticks, of the size and format of a frame
 * sent, and nothing that belongs to an input frame (docs/mcfps.texi): no
 * vectors, no lavfi.gpume.* keys, no picture type.
 */
static void check_frame(Fuzz *f, const AVFrame *out)
{
    const int k = f->nb_out++;
    const AVDictionaryEntry *e = NULL;
    int sent = 0;

    if (f->verbose)
        fprintf(stderr, "mcfps fuzzer: out tick %" PRId64 ", %dx%d %s\n", out->pts, out->width,
                out->height, av_get_pix_fmt_name(out->format));
    /* a run that ends in an error leaves the ticks up to the next run's
     * first frame unmade (the waiting tick of the old run may go out
     * first) */
    if (k > 0 && out->pts != f->last_out + 1) {
        if (!f->after_error || out->pts <= f->last_out)
            FAIL("frame %d: tick %" PRId64 " after %" PRId64 "%s", k, out->pts, f->last_out,
                 f->after_error ? " (after an error)" : "");
        f->after_error = 0;
    }
    if (!f->have_ticks || out->pts < f->lo || out->pts > f->top)
        FAIL("frame %d: tick %" PRId64 " outside the input's ticks %" PRId64 "..%" PRId64,
             k, out->pts, f->lo, f->top);
    f->last_out = out->pts;
    if (out->duration != 1)
        FAIL("frame %d: duration %" PRId64, k, out->duration);
    for (int i = 0; i < f->nb_sent && !sent; i++)
        sent = out->width == f->sent[i].w && out->height == f->sent[i].h && out->format == f->sent[i].fmt;
    if (!sent)
        FAIL("frame %d: %dx%d %s, no frame of it sent", k, out->width, out->height,
             av_get_pix_fmt_name(out->format));
    if (av_frame_get_side_data(out, AV_FRAME_DATA_MOTION_VECTORS))
        FAIL("frame %d: motion vectors of an input frame", k);
    if (out->pict_type != AV_PICTURE_TYPE_NONE)
        FAIL("frame %d: picture type %c of an input frame", k, av_get_picture_type_char(out->pict_type));
    while ((e = av_dict_iterate(out->metadata, e)))
        if (av_strstart(e->key, "lavfi.gpume.", NULL))
            FAIL("frame %d: key %s of an input frame", k, e->key);
}

/* take every frame the sink has; returns EAGAIN or EOF, errors counted */
static int drain(Fuzz *f, AVFilterContext *sink, AVFrame *out)
{
    int ret;

    for (;;) {
        ret = av_buffersink_get_frame(sink, out);
        if (ret >= 0) {
            check_frame(f, out);
            digest_frame(out);
            av_frame_unref(out);
        } else if (ret == AVERROR(EAGAIN) || ret == AVERROR_EOF) {
            return ret;
        } else {
            refused(f, ret, "buffersink");
        }
    }
}

static void fill(AVFrame *frame, const AVFrame *prev, Reader *r, unsigned mode, uint32_t *seed)
{
    int dx, dy;

    fill_buffers(frame, r, mode, seed);
    if (mode != 1)
        return;
    /* luma of the previous frame moved by (dx, dy): motion to follow (read
     * whatever the previous frame: a command's bytes depend on it alone) */
    dx = (int8_t)rd8(r) % 40;
    dy = (int8_t)rd8(r) % 40;
    if (can_shift_luma(frame, prev))
        shift_luma(frame, prev, dx, dy);
}

/* the next timestamp after prev by mode (bits 3-5 of a command) */
static int64_t next_pts(Reader *r, int64_t prev, unsigned mode)
{
    /* unsigned steps: the stream may wrap past INT64_MAX */
    switch (mode) {
    case 1:  return (int64_t)((uint64_t)prev + 1 + rd8(r));
    case 2:  return prev;
    case 3:  return (int64_t)((uint64_t)prev - 1);
    case 4:  return AV_NOPTS_VALUE;
    case 5:  return (int64_t)rd64(r);
    case 6:  return SPECIAL_PTS[rd8(r) & 15];
    default: return (int64_t)((uint64_t)prev + 1);
    }
}

/* one field of a vector read from the input: common values by a byte,
 * extremes from the tables, raw bits past them */
static int32_t rd_motion(Reader *r)
{
    const unsigned b = rd8(r);
    if (b < 0xf0)
        return (int)b - 0x78;
    return (b & 15) < 15 ? SPECIAL_MOTION[b & 15] : (int32_t)rd32(r);
}

static int rd_scale(Reader *r)
{
    const unsigned b = rd8(r) & 15;
    return b < 15 ? SCALES[b] : (int)rd16(r);
}

static void rd_vector(Reader *r, AVMotionVector *mv)
{
    const unsigned s = rd8(r);

    /* zeros (an input run dry) read as an empty block into the next frame */
    if (s < 0xc0)
        mv->source = s & 1 ? -1 : 1;
    else
        mv->source = (s & 7) < 7 ? SOURCES[s & 7] : (int32_t)rd32(r);
    mv->w            = rd8(r);
    mv->h            = rd8(r);
    mv->dst_x        = (int16_t)rd16(r);
    mv->dst_y        = (int16_t)rd16(r);
    mv->src_x        = (int16_t)rd16(r);
    mv->src_y        = (int16_t)rd16(r);
    mv->motion_x     = rd_motion(r);
    mv->motion_y     = rd_motion(r);
    mv->motion_scale = rd_scale(r);
    mv->flags        = rd8(r);
}

/*
 * Blocks of bs x bs (the last of a row or column clipped) tiling w x h as
 * gpume's do, of the given source, each moved by (qx, qy) quarter pels plus
 * a jitter, in units of 1/scale pel (scale 0: in src - dst alone, as
 * mestimate leaves them); returns the number written.
 */
static int tile(AVMotionVector *mv, int max, int w, int h, int bs, int source,
                int qx, int qy, int scale, uint32_t *seed)
{
    int n = 0;

    for (int y = 0; y < h && n < max; y += bs) {
        for (int x = 0; x < w && n < max; x += bs) {
            const int bw = FFMIN(bs, w - x), bh = FFMIN(bs, h - y);
            int dx = qx, dy = qy;
            *seed = *seed * 1664525u + 1013904223u;
            if (*seed >> 30 == 0) {
                dx += (int)(*seed >> 20 & 31) - 16;
                dy += (int)(*seed >> 12 & 31) - 16;
            }
            mv[n] = (AVMotionVector) {
                .source = source, .w = bw, .h = bh,
                .dst_x = x + bw / 2, .dst_y = y + bh / 2,
                .motion_x = scale ? dx * scale / 4 : 0, .motion_y = scale ? dy * scale / 4 : 0,
                .motion_scale = scale,
            };
            mv[n].src_x = mv[n].dst_x + dx / 4;
            mv[n].src_y = mv[n].dst_y + dy / 4;
            n++;
        }
    }
    return n;
}

static void add_side_data(AVFrame *frame, enum AVFrameSideDataType type, const void *data, size_t size)
{
    AVFrameSideData *sd = av_frame_new_side_data(frame, type, size);
    if (!sd)
        FAIL("out of memory");
    if (size)
        memcpy(sd->data, data, size);
}

/* a text for a lavfi.gpume.* key: STRINGS, the long ones, or raw bytes */
static const char *rd_string(Fuzz *f, Reader *r, char *buf, size_t size)
{
    const unsigned b = rd8(r);
    size_t n;

    if (b < NB_STRINGS)
        return STRINGS[b];
    if (b == NB_STRINGS)
        return f->long_digits;
    if (b == NB_STRINGS + 1)
        return f->long_fraction;
    n = FFMIN(rd8(r), size - 1);
    for (size_t i = 0; i < n; i++)
        buf[i] = rd8(r);
    buf[n] = 0;
    return buf;
}

/*
 * The side data of a frame (commands 1-6): one byte
 *   bits 0-2  motion vectors: none, gpume's tiling into both frames (a
 *             byte: bits 0-1 block size 8, 16, 4, 32, bits 2-7 the jitter's
 *             seed; then the motion, 2 bytes, quarter pel), the tiling into
 *             the next frame only, into the previous one only, a list read
 *             from the input (a count byte, past 0xef a vector repeated
 *             along the frame; rd_vector()), an empty array, a list whose
 *             size is no multiple of sizeof(AVMotionVector) (a count byte,
 *             a byte of extra bytes), the tiling of another size (4 bytes)
 *             with another scale (rd_scale())
 *   bit 3     lavfi.gpume.scene_score (rd_string())
 *   bit 4     lavfi.gpume.mean_sad (rd_string())
 *   bit 5     AV_FRAME_DATA_A53_CC: a length byte, the bytes
 *   bit 6     the key-frame flag
 *   bit 7     a byte: bit 0 lavfi.gpume.disabled, bit 1 lavfi.gpume.restart,
 *             bit 2 another lavfi.gpume.* key, bit 3 a second vector array
 *             (the first one again), bit 4 a display matrix (side data of
 *             the stream), bits 5-7 the duration (DURATIONS)
 * Returns the duration; *bwd: the frame has vectors into the previous one.
 */
static int64_t side_data(Fuzz *f, Reader *r, AVFrame *frame, AVMotionVector *mv, uint32_t *seed, int *bwd)
{
    const unsigned s = rd8(r);
    const unsigned kind = s & 7;
    unsigned extra = 0;
    size_t size = 0;
    int nb = 0;
    char buf[256];

    *bwd = 0;
    if (kind >= 1 && kind <= 3) {
        static const int block[4] = { 8, 16, 4, 32 };
        const unsigned t = rd8(r);
        const int bs = block[t & 3];
        const int qx = (int8_t)rd8(r), qy = (int8_t)rd8(r);
        *seed ^= t >> 2;
        if (kind != 3)
            nb += tile(mv + nb, MV_SPACE - nb, frame->width, frame->height, bs, 1, qx, qy, 4, seed);
        if (kind != 2)
            nb += tile(mv + nb, MV_SPACE - nb, frame->width, frame->height, bs, -1, -qx, -qy, 4, seed);
        size = nb * sizeof(*mv);
    } else if (kind == 4 || kind == 6) {
        const unsigned c = rd8(r);
        if (c < 0xf0) {
            nb = c;
            for (int i = 0; i < nb; i++)
                rd_vector(r, &mv[i]);
        } else {
            /* one vector along the frame: large arrays from a few bytes */
            nb = (c - 0xef) * 64;
            rd_vector(r, &mv[0]);
            for (int i = 1; i < nb; i++) {
                mv[i] = mv[i - 1];
                mv[i].dst_x += FFMAX(mv[i].w, 1);
                if (mv[i].dst_x >= frame->width) {
                    mv[i].dst_x  = mv[0].dst_x;
                    mv[i].dst_y += FFMAX(mv[i].h, 1);
                }
            }
        }
        size = nb * sizeof(*mv);
        if (kind == 6) {
            /* a partial vector after the whole ones, which mcfps ignores */
            size += 1 + rd8(r) % (sizeof(*mv) - 1);
            memset((uint8_t *)mv + nb * sizeof(*mv), 0x55, sizeof(*mv));
        }
    } else if (kind == 7) {
        int w, h, scale;
        const int qx = (int8_t)rd8(r), qy = (int8_t)rd8(r);
        size_of(r, &w, &h);
        scale = rd_scale(r);
        nb    = tile(mv, MV_SPACE, w, h, 8, 1, qx, qy, scale, seed);
        nb   += tile(mv + nb, MV_SPACE - nb, w, h, 8, -1, -qx, -qy, scale, seed);
        size  = nb * sizeof(*mv);
    }
    if (kind)
        add_side_data(frame, AV_FRAME_DATA_MOTION_VECTORS, mv, size);
    for (int i = 0; i < nb; i++)
        *bwd |= mv[i].source == -1;
    if (s & 8)
        av_dict_set(&frame->metadata, "lavfi.gpume.scene_score", rd_string(f, r, buf, sizeof(buf)), 0);
    if (s & 16)
        av_dict_set(&frame->metadata, "lavfi.gpume.mean_sad", rd_string(f, r, buf, sizeof(buf)), 0);
    if (s & 32) {
        const size_t n = rd8(r);
        for (size_t i = 0; i < n; i++)
            buf[i] = rd8(r);
        add_side_data(frame, AV_FRAME_DATA_A53_CC, buf, n);
    }
    if (s & 64)
        frame->flags |= AV_FRAME_FLAG_KEY;
    if (s & 128)
        extra = rd8(r);
    if (extra & 1)
        av_dict_set(&frame->metadata, "lavfi.gpume.disabled", "1", 0);
    if (extra & 2)
        av_dict_set(&frame->metadata, "lavfi.gpume.restart", "1", 0);
    if (extra & 4)
        av_dict_set(&frame->metadata, "lavfi.gpume.other", "x", 0);
    if ((extra & 8) && kind)
        add_side_data(frame, AV_FRAME_DATA_MOTION_VECTORS, mv, size);
    if (extra & 16) {
        int32_t matrix[9];
        av_display_rotation_set(matrix, 90);
        add_side_data(frame, AV_FRAME_DATA_DISPLAYMATRIX, matrix, sizeof(matrix));
    }
    return DURATIONS[extra >> 5];
}

/*
 * A command (2 bytes: the option, COMMANDS[b & 7], and its value's
 * selector): refused exactly for mode, an invalid value or one that
 * breaks rel_lo < rel_hi.
 */
static void command(Fuzz *f, Reader *r, AVFilterGraph *graph)
{
    const int i = COMMANDS[rd8(r) & 7];
    const Opt *o = &OPTS[i];
    char num[16], res[256];
    int kind, v = 0, lo = f->rel_lo, hi = f->rel_hi, ret;
    const char *val = opt_value(o, rd8(r), &kind, &v, num, sizeof(num));

    if (i == O_REL_LO)
        lo = v;
    if (i == O_REL_HI)
        hi = v;
    ret = avfilter_graph_send_command(graph, "mcfps", o->name, val, res, sizeof(res), 0);
    if (kind == EITHER)
        return;
    if (i == O_MODE || kind == BAD || lo >= hi) {
        if (ret >= 0)
            FAIL("command %s=%s (rel_lo=%d, rel_hi=%d) taken", o->name, val, f->rel_lo, f->rel_hi);
        return;
    }
    if (ret < 0)
        FAIL("command %s=%s (rel_lo=%d, rel_hi=%d) refused: %s", o->name, val, f->rel_lo, f->rel_hi,
             av_err2str(ret));
    f->rel_lo = lo;
    f->rel_hi = hi;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Reader r = { data, data + size };
    Fuzz *f = av_mallocz(sizeof(*f));
    /* one more: the partial vector after a list */
    AVMotionVector *mv = av_malloc_array(MV_SPACE + 1, sizeof(*mv));
    AVFilterGraph *graph = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL, *m;
    AVFrame *frame = NULL, *prev = NULL, *out = av_frame_alloc();
    const Rate *rate = NULL;
    char args[512];
    unsigned flags, rsel;
    int w, h, ret, valid = 1, either = 0, closed = 0, src_flags;
    enum AVPixelFormat fmt;
    int64_t prev_pts = 0;
    uint32_t seed = 1;

    if (!f || !mv || !graph || !out)
        FAIL("out of memory");
    f->verbose = !!getenv("GPUME_FUZZ_VERBOSE");
    av_log_set_level(f->verbose ? AV_LOG_VERBOSE : AV_LOG_PANIC);
    memset(f->long_digits, '9', STR_LONG);
    memcpy(f->long_fraction, "0.", 2);
    memset(f->long_fraction + 2, '0', STR_LONG - 3);
    f->long_fraction[STR_LONG - 1] = '7';

    f->rel_lo = 160;    /* the defaults, MCFPS_REL_LO and MCFPS_REL_HI */
    f->rel_hi = 640;
    flags = rd8(&r);
    /* a GPU backend holds the frame it renders until its next step: the
     * replay on a GPU closes every input, so that all frames come out */
    if (getenv("GPUME_FUZZ_DEVICE"))
        flags &= ~16;
    graph->nb_threads = 1 + (flags & 1);
    src_flags = flags & 2 ? AV_BUFFERSRC_FLAG_PUSH : 0;
    f->tb_in  = TIME_BASES[flags >> 5];
    /* no scale filter between buffer and mcfps: its formats reach it */
    avfilter_graph_set_auto_convert(graph, AVFILTER_AUTO_CONVERT_NONE);

    rsel = rd8(&r);
    if (rsel >> 1) {
        rate = &RATES[((rsel >> 1) - 1) % NB_RATES];
        if (rate->kind == BAD || (rate->kind == SOURCE && !(rsel & 1)))
            valid = 0;
        either |= rate->kind == SOURCE && (rsel & 1);
    }
    m = avfilter_graph_alloc_filter(graph, avfilter_get_by_name("mcfps"), "mcfps");
    if (!m)
        FAIL("cannot create mcfps");
    /* options the filter refuses end the run here or at configuration;
     * that is their check */
    ret = av_opt_set(m, "device", fuzz_cpu_device(), AV_OPT_SEARCH_CHILDREN);
    if (ret >= 0 && rate)
        ret = av_opt_set(m, "fps", rate->str, AV_OPT_SEARCH_CHILDREN);
    f->mc = 1;
    for (int i = 0; i < NB_OPTS; i++) {
        const unsigned b = rd8(&r);
        const char *val;
        char num[16];
        int kind, v = 0;

        if (!b)
            continue;
        val    = opt_value(&OPTS[i], b, &kind, &v, num, sizeof(num));
        valid &= kind != BAD;
        either |= kind == EITHER;
        if (i == O_REL_LO && kind == VALID)
            f->rel_lo = v;
        if (i == O_REL_HI && kind == VALID)
            f->rel_hi = v;
        if (i == O_MODE && kind == VALID)
            f->mc = !strcmp(val, "mc") || !strcmp(val, "0");
        if (ret >= 0)
            ret = av_opt_set(m, OPTS[i].name, val, AV_OPT_SEARCH_CHILDREN);
    }
    if (f->rel_lo >= f->rel_hi)
        valid = 0;
    size_of(&r, &w, &h);
    fmt = FORMATS[rd8(&r) % NB_FORMATS];

    snprintf(args, sizeof(args), "video_size=%dx%d:pix_fmt=%d:time_base=%d/%d:pixel_aspect=1/1",
             w, h, fmt, f->tb_in.num, f->tb_in.den);
    if (rsel & 1)
        av_strlcatf(args, sizeof(args), ":frame_rate=%d/%d", f->tb_in.den, f->tb_in.num);
    if (avfilter_graph_create_filter(&src, avfilter_get_by_name("buffer"), "in", args, NULL, graph) < 0 ||
        avfilter_graph_create_filter(&sink, avfilter_get_by_name("buffersink"), "out", NULL, NULL, graph) < 0)
        FAIL("cannot create buffer/buffersink");
    if (ret >= 0)
        ret = avfilter_init_str(m, NULL);
    if (ret >= 0 && (avfilter_link(src, 0, m, 0) < 0 || avfilter_link(m, 0, sink, 0) < 0))
        FAIL("cannot link the graph");
    if (ret >= 0)
        ret = avfilter_graph_config(graph, NULL);
    if (ret < 0) {
        digest_error(ret);
        /* only what the filter may refuse at configuration */
        if (valid && !either && supported(fmt))
            FAIL("valid options on %dx%d %s refused: %s", w, h, av_get_pix_fmt_name(fmt), av_err2str(ret));
        goto end;
    }
    if (!either && (!valid || !supported(fmt)))
        FAIL("invalid options or %s accepted", av_get_pix_fmt_name(fmt));
    f->tb_out = av_buffersink_get_time_base(sink);
    if (!rate || rate->rate.num) {
        const AVRational want = rate ? rate->rate : (AVRational){ 60, 1 };
        if (av_cmp_q(f->tb_out, av_inv_q(want)) || av_cmp_q(av_buffersink_get_frame_rate(sink), want))
            FAIL("fps=%s: time base %d/%d, frame rate %d/%d", rate ? rate->str : "(default)",
                 f->tb_out.num, f->tb_out.den, av_buffersink_get_frame_rate(sink).num,
                 av_buffersink_get_frame_rate(sink).den);
    }

    while (f->nb_sent < MAX_FRAMES) {
        const unsigned c = r.p < r.end ? rd8(&r) : 7;
        const unsigned op = c & 7, tsmode = (c >> 3) & 7, content = c >> 6;
        int64_t pts, duration = 0;
        int bwd = 0;

        if (op == 7) {
            /* the end time: the status's, else the last frame's end */
            int64_t end = next_pts(&r, prev_pts, tsmode);
            if (!bound_end(f, end))
                end = AV_NOPTS_VALUE;
            if (!(flags & 16)) {
                ret = av_buffersrc_close(src, end, src_flags);
                if (ret < 0)
                    refused(f, ret, "closing the input");
                closed = 1;
            }
            break;
        }
        if (op == 4)
            command(f, &r, graph);
        else if (op == 5)
            size_of(&r, &w, &h);
        else if (op == 6)
            fmt = FORMATS[rd8(&r) % NB_FORMATS];
        pts = next_pts(&r, prev_pts, tsmode);

        frame = av_frame_alloc();
        if (!frame)
            FAIL("out of memory");
        frame->width  = w;
        frame->height = h;
        frame->format = fmt;
        if (av_frame_get_buffer(frame, 0) < 0)
            FAIL("cannot allocate a %dx%d %s frame", w, h, av_get_pix_fmt_name(fmt));
        fill(frame, prev, &r, content, &seed);
        if (op)
            duration = side_data(f, &r, frame, mv, &seed, &bwd);
        av_frame_free(&prev);
        if (!(prev = av_frame_clone(frame)))
            FAIL("out of memory");

        frame->pts = bound_pts(f, pts, FFMAX(av_image_get_buffer_size(fmt, w, h, 1), w * h));
        if (frame->pts != AV_NOPTS_VALUE)
            prev_pts = frame->pts;
        /* buffersrc adds pts and duration: no overflow there */
        if ((duration > 0 && frame->pts > INT64_MAX - duration) ||
            (duration < 0 && frame->pts < INT64_MIN - duration) ||
            (frame->pts != AV_NOPTS_VALUE && duration > 0 && !bound_end(f, frame->pts + duration)))
            duration = 0;
        frame->duration = duration;

        f->sent[f->nb_sent++] = (Sent){ w, h, fmt };
        /* a frame mcfps may refuse: one of a format it does not read, and in
         * mode=mc one without vectors into the previous frame (the pair may
         * have none) */
        f->credits += !supported(fmt) || (f->mc && !bwd);
        if (f->verbose)
            fprintf(stderr, "mcfps fuzzer: in pts %" PRId64 " (tick %" PRId64 "), %dx%d %s, duration %"
                    PRId64 "%s\n", frame->pts, has_time(f, frame->pts) ? tick_of(f, frame->pts) : INT64_MIN,
                    w, h, av_get_pix_fmt_name(fmt), duration, bwd ? ", backward vectors" : "");
        ret = av_buffersrc_add_frame_flags(src, frame, src_flags);
        av_frame_free(&frame);
        if (ret < 0) {
            refused(f, ret, "sending a frame");
            if (!(flags & 4))
                break;
        }
        if (!(flags & 8) && drain(f, sink, out) != AVERROR(EAGAIN))
            FAIL("the sink ended before the input");
        if (f->after_error && !(flags & 4))
            break;
    }
    if (!closed && !(flags & 16)) {
        ret = av_buffersrc_close(src, AV_NOPTS_VALUE, src_flags);
        if (ret < 0)
            refused(f, ret, "closing the input");
        closed = 1;
    }
    if (closed && drain(f, sink, out) != AVERROR_EOF)
        FAIL("no end after the input's end");
    else if (!closed)
        drain(f, sink, out);
    if (f->verbose)
        fprintf(stderr, "mcfps fuzzer: %d frames sent, %d out (ticks %" PRId64 "..%" PRId64 "), %d errors\n",
                f->nb_sent, f->nb_out, f->lo, f->top, f->nb_errors);

end:
    av_frame_free(&prev);
    av_frame_free(&out);
    avfilter_graph_free(&graph);
    av_free(mv);
    av_free(f);
    return 0;
}
