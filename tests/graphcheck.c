/*
 * The filters in a graph driven through the public API, for what the
 * suites' ffmpeg commands cannot do:
 *  - mcfps on frames that carry closed captions (AV_FRAME_DATA_A53_CC).
 *    Converting 30 to 60 fps, every caption byte of the input must reach
 *    the output once, in order, each output frame carrying the share of a
 *    60 fps frame (CTA-708: 10 triplets, one of CEA-608), as the fps filter
 *    sends them.
 *  - mcfps in a graph that the caller pushes frames into and drains
 *    without requests (AV_BUFFERSRC_FLAG_PUSH, AV_BUFFERSINK_FLAG_NO_REQUEST),
 *    then, once the input is closed, drains with requests, as ffmpeg does:
 *    every output frame comes out, in order. Closing the input made no
 *    frame by itself (mcfps makes the last frames as they are asked for,
 *    so that a long end holds no more than a few in memory).
 *  - gpume going on after an error, as an API user may: a frame of a size
 *    it refuses mid-stream, then another of that size, then frames of the
 *    first size. Each refused frame gets its error, and the last ones
 *    their vectors. Where the frames and the end were queued before the
 *    error, all of them come out after it.
 *  - mcfps going on after a size it could not set up for (out of memory):
 *    the next frame of that size sets up again.
 *  - mcfps=mode=dup's captions at a rate whose captions stay on their
 *    frames (25 fps): each tick carries those of the frame it shows, as
 *    with fps, also where frames round to one tick.
 *  - mcfps's end from the last frame's duration at negative timestamps.
 *  - mcfps on hardware frames that move to another device (two OpenCL
 *    devices, where there is one), and on the CPU backend given OpenCL
 *    frames mid-stream: refused with an error, none read as pixels.
 *  - gpume on OpenCL frames of a second frames context of the same
 *    device, format and size, and mcfps on OpenCL frames followed by
 *    software frames of their software format: a restart, and a warning
 *    that tells the two sides apart.
 *  - with "graphcheck opencl-wait", "opencl-wait-timeline",
 *    "opencl-wait-upload" and "opencl-wait-restart" (run with
 *    tests/clshim.c's CLSHIM_FAIL failing one clWaitForEvents): gpume on
 *    OpenCL after a failed wait, also one in the flush that its timeline
 *    makes, one for a frame's slot before its upload and one in the flush
 *    of a restart, loses no frame, and estimates again.
 *  - with "graphcheck opencl-load" (CLSHIM_FAIL failing frame 0's first
 *    clEnqueueWriteBufferRect): mcfps on OpenCL after a frame it could not
 *    load gives what it gives without that frame.
 *  - with "graphcheck opencl-upload" (CLSHIM_FAIL failing the upload of
 *    one of gpume's first frames, a clEnqueueWriteBuffer): mcfps after it
 *    blends the pairs that frame leaves without vectors and makes every
 *    tick.
 *
 * usage: graphcheck [opencl-wait|opencl-wait-timeline|opencl-wait-upload|opencl-wait-restart|
 * opencl-load|opencl-upload]; its last line is "N passed, N failed"
 */

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "libavfilter/avfilter.h"
#include "libavfilter/buffersink.h"
#include "libavfilter/buffersrc.h"
#include "libavutil/display.h"
#include "libavutil/error.h"
#include "libavutil/frame.h"
#include "libavutil/hwcontext.h"
#include "libavutil/log.h"
#include "libavutil/mem.h"
#include "libavutil/opt.h"
#include "libavutil/version.h"

#define W      64
#define H      48



#define NB_IN  12   ///< input frames at 30 fps
#define CC_IN  20   ///< caption triplets per input frame (30 fps): 2 of 608, 18 of 708
#define CC_OUT 10   ///< per output frame (60 fps): 1 of 608, 9 of 708

static int pass, fail, skip;

static void check(int ok, const char *what)
{
    if (ok) {
        pass++;
    } else {
        fail++;
        printf("FAIL %s\n", what);
    }
}

static void skipped(const char *what)
{
    skip++;
    printf("skipped: %s\n", what);
}

/* the first byte of a triplet: marker bits, cc_valid, cc_type */
static int cc_type(const uint8_t *t)  { return t[0] & 3; }
static int cc_valid(const uint8_t *t) { return t[0] >> 2 & 1; }

/* frame n of w x h: a texture moved (2, 1) pixels a frame */
static AVFrame *texture_frame(int n, int w, int h)
{
    AVFrame *f = av_frame_alloc();

    if (!f)
        return NULL;
    f->format = AV_PIX_FMT_GRAY8;
    f->width  = w;
    f->height = h;
    f->pts    = n;
    if (!w || !h) {
        /* a frame of no pixels, which buffersrc passes on: a row of memory */
        f->buf[0]      = av_buffer_allocz(64);
        f->data[0]     = f->buf[0] ? f->buf[0]->data : NULL;
        f->linesize[0] = 64;
    }
    if (!w || !h ? !f->data[0] : av_frame_get_buffer(f, 0) < 0) {
        av_frame_free(&f);
        return NULL;
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int u = x + 2 * n, v = y + n;
            f->data[0][y * f->linesize[0] + x] = (u * 7 ^ v * 13) * 5 + (u * v & 31);
        }
    return f;
}

/* f with the captions of input frame n: CC_IN triplets numbered (n, i) in
 * their two data bytes; f, or NULL (f freed) */
static AVFrame *add_captions(AVFrame *f, int n)
{
    AVFrameSideData *sd = f ? av_frame_new_side_data(f, AV_FRAME_DATA_A53_CC, 3 * CC_IN) : NULL;

    if (!sd) {
        av_frame_free(&f);
        return NULL;
    }
    for (int i = 0; i < CC_IN; i++) {
        sd->data[3 * i]     = 0xf8 | 4 | (i < 2 ? i : 2);
        sd->data[3 * i + 1] = n;
        sd->data[3 * i + 2] = i;
    }
    return f;
}

/* input frame n of the conversions: the texture and its captions */
static AVFrame *input_frame(int n)
{
    return add_captions(texture_frame(n, W, H), n);
}

/* buffer (W x H gray, 30 fps) -> gpume=GPUME [-> mcfps=MCFPS] -> buffersink */
static int build(AVFilterGraph *g, AVFilterContext **src, AVFilterContext **sink,
                 const char *gpume, const char *mcfps)
{
    AVFilterContext *me, *last, *fc;
    char args[128];
    int err;

    snprintf(args, sizeof(args), "video_size=%dx%d:pix_fmt=gray:time_base=1/30:frame_rate=30:pixel_aspect=1/1",
             W, H);
    if ((err = avfilter_graph_create_filter(src, avfilter_get_by_name("buffer"), "in", args, NULL, g)) < 0 ||
        (err = avfilter_graph_create_filter(&me, avfilter_get_by_name("gpume"), "me", gpume, NULL, g)) < 0 ||
        (err = avfilter_graph_create_filter(sink, avfilter_get_by_name("buffersink"), "out", NULL, NULL, g)) < 0 ||
        (err = avfilter_link(*src, 0, me, 0)) < 0)
        return err;
    last = me;
    if (mcfps) {
        if ((err = avfilter_graph_create_filter(&fc, avfilter_get_by_name("mcfps"), "fc", mcfps, NULL, g)) < 0 ||
            (err = avfilter_link(me, 0, fc, 0)) < 0)
            return err;
        last = fc;
    }
    if ((err = avfilter_link(last, 0, *sink, 0)) < 0)
        return err;
    return avfilter_graph_config(g, NULL);
}

/* whether the graph of the case what, on device=opencl, was built (err
 * >= 0): for want of an OpenCL device (ENODEV) or of OpenCL in this build
 * (ENOSYS) the case is skipped; any other error, such as a failure injected
 * into the set-up, fails it */
static int opencl_graph_built(int err, const char *what)
{
    char msg[160];

    if (err == AVERROR(ENODEV) || err == AVERROR(ENOSYS)) {
        snprintf(msg, sizeof(msg), "%s (no OpenCL device)", what);
        skipped(msg);
    } else if (err < 0) {
        snprintf(msg, sizeof(msg), "%s: its graph (%s)", what, av_err2str(err));
        check(0, msg);
    }
    return err >= 0;
}

/* caption triplets of the output, by kind, as the input numbered them */
typedef struct Captions {
    int n608, n708;
    uint8_t c608[2 * NB_IN * CC_IN], c708[2 * NB_IN * CC_IN]; ///< (n, i) of each
} Captions;

static void take(Captions *c, const AVFrame *f, int *frames_sized)
{
    const AVFrameSideData *sd = av_frame_get_side_data(f, AV_FRAME_DATA_A53_CC);

    if (!sd)
        return;
    *frames_sized += sd->size == 3 * CC_OUT;
    for (size_t k = 0; k + 3 <= sd->size; k += 3) {
        const uint8_t *t = sd->data + k;
        if (cc_type(t) < 2 && c->n608 < NB_IN * CC_IN) {
            c->c608[2 * c->n608]     = t[1];
            c->c608[2 * c->n608 + 1] = t[2];
            c->n608++;
        } else if (cc_valid(t) && c->n708 < NB_IN * CC_IN) {
            c->c708[2 * c->n708]     = t[1];
            c->c708[2 * c->n708 + 1] = t[2];
            c->n708++;
        }
    }
}

/* whether the triplets came out in the order input_frame() numbered them:
 * of each frame, its 2 of CEA-608, then its 18 of CEA-708 */
static int captions_in_order(const Captions *c)
{
    int in_order = 1;

    for (int k = 0; k < c->n608; k++)
        in_order &= c->c608[2 * k] == k / 2 && c->c608[2 * k + 1] == k % 2;
    for (int k = 0; k < c->n708; k++)
        in_order &= c->c708[2 * k] == k / 18 && c->c708[2 * k + 1] == 2 + k % 18;
    return in_order;
}

/* What a conversion of the NB_IN input frames from 30 to 60 fps gave. */
typedef struct Conversion {
    int err;                    ///< of the graph's run
    int nb_out;                 ///< output frames
    int pts_in_order;           ///< their pts are 0, 1, ...
    int sized;                  ///< output frames with CC_OUT caption triplets
    Captions c;
} Conversion;

/* The conversion, with requests (av_buffersink_get_frame()), or pushing the
 * frames and draining the sink without requests (push) until the input is
 * closed, with requests after it. */
static void convert(Conversion *r, int push, const char *what)
{
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL;
    AVFrame *out = av_frame_alloc();
    const int src_flags = push ? AV_BUFFERSRC_FLAG_PUSH : 0;
    int sink_flags = push ? AV_BUFFERSINK_FLAG_NO_REQUEST : 0;

    memset(r, 0, sizeof(*r));
    r->pts_in_order = 1;
    r->err = g && out && build(g, &src, &sink, "device=cpu:dir=bi", "fps=60:device=cpu") >= 0 ? 0 : -1;
    check(!r->err, what);
    for (int n = 0; n <= NB_IN && r->err >= 0; n++) {
        if (n < NB_IN) {
            AVFrame *f = input_frame(n);
            r->err = f ? av_buffersrc_add_frame_flags(src, f, src_flags) : AVERROR(ENOMEM);
            av_frame_free(&f);
        } else {
            r->err = av_buffersrc_close(src, NB_IN, src_flags);
            sink_flags = 0;
        }
        while (r->err >= 0 && av_buffersink_get_frame_flags(sink, out, sink_flags) >= 0) {
            r->pts_in_order &= out->pts == r->nb_out++;
            take(&r->c, out, &r->sized);
            av_frame_unref(out);
        }
    }
    av_frame_free(&out);
    avfilter_graph_free(&g);
}

/* frame n of w x h through src, then the sink drained: the number of
 * frames with vectors that came out, or an error */
static int push_pull(AVFilterContext *src, AVFilterContext *sink, int n, int w, int h, AVFrame *out)
{
    AVFrame *f = texture_frame(n, w, h);
    int err = f ? av_buffersrc_add_frame(src, f) : AVERROR(ENOMEM);

    av_frame_free(&f);
    for (int nb = 0; err >= 0; ) {
        err = av_buffersink_get_frame(sink, out);
        if (err == AVERROR(EAGAIN))
            return nb;
        if (err >= 0)
            nb += !!av_frame_get_side_data(out, AV_FRAME_DATA_MOTION_VECTORS);
        av_frame_unref(out);
    }
    return err;
}

/* gpume after refused frame sizes (16384 wide, then two of no pixels, which
 * a failed set-up must not take for its own size): no crash, an error per
 * refused frame, estimation again at the first size */
static void gpume_after_error(void)
{
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL;
    AVFrame *out = av_frame_alloc();
    int errors = 0, vectors = 0;
    char msg[160];

    check(g && out && build(g, &src, &sink, "device=cpu", NULL) >= 0, "graph buffer -> gpume -> buffersink");
    if (g && out && src) {
        for (int n = 0; n < 12; n++) {
            const int r = push_pull(src, sink, n, n == 3 ? 16384 : n == 4 || n == 5 ? 0 : W,
                                    n == 4 || n == 5 ? 0 : H, out);
            errors  += r < 0;
            vectors += n >= 6 && r > 0 ? r : 0;
        }
        snprintf(msg, sizeof(msg), "%d errors for a frame of 16384x%d and two of 0x0, want 3", errors, H);
        check(errors == 3, msg);
        snprintf(msg, sizeof(msg), "%d frames with vectors after them, want some", vectors);
        check(vectors > 0, msg);
    }
    av_frame_free(&out);
    avfilter_graph_free(&g);
}

/* gpume=OPTS on 6 frames queued before any is taken (without
 * AV_BUFFERSRC_FLAG_PUSH), the 4th of a size it refuses (or, rgb, an
 * rgb24 frame), and the end: one error, then the 5 others and the end (a
 * filter that does not mark itself ready after an error keeps them in its
 * input for ever) */
static void gpume_error_queued(const char *opts, int rgb)
{
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL;
    AVFrame *out = av_frame_alloc();
    int errors = 0, nb = 0, eof = 0, err = g && out ? 0 : AVERROR(ENOMEM);
    char msg[160];

    if (err >= 0)
        err = build(g, &src, &sink, opts, NULL);
    for (int n = 0; n < 6 && err >= 0; n++) {
        AVFrame *f = texture_frame(n, n == 3 && !rgb ? 16384 : W, H);
        if (f && n == 3 && rgb) {
            av_frame_unref(f);
            f->format = AV_PIX_FMT_RGB24;
            f->width  = W;
            f->height = H;
            f->pts    = n;
            if (av_frame_get_buffer(f, 0) < 0)
                av_frame_free(&f);
            else
                memset(f->data[0], 128, f->linesize[0] * H);
        }
        err = f ? av_buffersrc_add_frame_flags(src, f, 0) : AVERROR(ENOMEM);
        av_frame_free(&f);
    }
    if (err >= 0)
        err = av_buffersrc_close(src, 6, 0);
    /* an answer per frame, error and the end; EAGAIN: nothing can come */
    for (int k = 0; err >= 0 && k < 12 && !eof; k++) {
        const int r = av_buffersink_get_frame(sink, out);
        if (r == AVERROR(EAGAIN))
            break;
        nb     += r >= 0;
        eof    += r == AVERROR_EOF;
        errors += r < 0 && r != AVERROR_EOF;
        av_frame_unref(out);
    }
    snprintf(msg, sizeof(msg), "gpume=%s, frames queued, the 4th refused (%s): %d errors (want 1), "
             "%d frames out (want 5), %s", opts, rgb ? "rgb24" : "16384 wide", errors, nb,
             eof ? "the end" : "no end");
    check(err >= 0 && errors == 1 && nb == 5 && eof, msg);
    av_frame_free(&out);
    avfilter_graph_free(&g);
}

/* a 4:2:0 frame of w x h at pts, lasting one unit: a level per pts */
static AVFrame *yuv_frame(int w, int h, int64_t pts)
{
    AVFrame *f = av_frame_alloc();

    if (!f)
        return NULL;
    f->format   = AV_PIX_FMT_YUV420P;
    f->width    = w;
    f->height   = h;
    f->pts      = pts;
    f->duration = 1;
    if (av_frame_get_buffer(f, 0) < 0) {
        av_frame_free(&f);
        return NULL;
    }
    for (int p = 0; p < 3; p++)
        memset(f->data[p], 16 + (pts & 127), f->linesize[p] * (p ? (h + 1) / 2 : h));
    return f;
}

/* the sink drained: has_mv[pts] (pts < nb) set to whether the frame of
 * that pts came with vectors; the error that ended it (EAGAIN, EOF or another) */
static int drain_mv(AVFilterContext *sink, AVFrame *out, int *has_mv, int nb)
{
    int err;

    while ((err = av_buffersink_get_frame(sink, out)) >= 0) {
        if (out->pts >= 0 && out->pts < nb)
            has_mv[out->pts] = !!av_frame_get_side_data(out, AV_FRAME_DATA_MOTION_VECTORS);
        av_frame_unref(out);
    }
    return err;
}

/* log lines at the error level, and the warnings of a command's options
 * replaced, while counting */
static int nb_error_lines, nb_fallback_warnings;

static void count_log(void *avcl, int level, const char *fmt, va_list vl)
{
    if (level <= AV_LOG_ERROR)
        nb_error_lines++;
    else if (level == AV_LOG_WARNING && strstr(fmt, "cannot be used ("))
        nb_fallback_warnings++;
}

/* a command (range=64, with frame 3) whose options cannot be set up where
 * the previous ones can. The largest allocation of the CPU backend at 64x48
 * is a picture plane with its padding: 9232 bytes at range=8, 47120 at
 * range=64. Frame 3 fails: big=0, under a limit of 5000 bytes, where the
 * vectors of the frames before cannot be exported; big=1, 16384 pixels
 * wide, a size gpume refuses. Either way the command stays pending, and
 * frame 4, under 20000, fits range=8 only: the frames go on with range=8,
 * which the option shows again. With frame 4 that is one warning, and the
 * failure of the command's options no error line. */
static void gpume_command_fallback(int big)
{
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL, *me;
    AVFrame *out = av_frame_alloc();
    int errors = 0, vectors = 0, has_mv[8] = { 0 };
    int64_t range = 0;
    char msg[224];

    check(g && out && build(g, &src, &sink, "device=cpu:range=8", NULL) >= 0,
          "graph buffer -> gpume=range=8 -> buffersink");
    me = g ? avfilter_graph_get_filter(g, "me") : NULL;
    for (int n = 0; n < 8 && me && out && src; n++) {
        AVFrame *f = texture_frame(n, big && n == 3 ? 16384 : W, H);
        int err = f ? av_buffersrc_add_frame(src, f) : AVERROR(ENOMEM);

        av_frame_free(&f);
        if (n == 3 && err >= 0)
            err = avfilter_graph_send_command(g, "me", "range", "64", NULL, 0, 0);
        if ((n == 3 && !big) || n == 4)
            av_max_alloc(n == 3 ? 5000 : 20000);
        if (n == 4)
            av_log_set_callback(count_log);
        if (err >= 0)
            err = drain_mv(sink, out, has_mv, 8);
        av_log_set_callback(av_log_default_callback);
        av_max_alloc(INT_MAX);
        errors += err != AVERROR(EAGAIN);
    }
    if (me && out && src && av_buffersrc_close(src, 8, 0) >= 0)
        errors += drain_mv(sink, out, has_mv, 8) != AVERROR_EOF;
    for (int n = 5; n < 8; n++)
        vectors += has_mv[n];
    if (me)
        av_opt_get_int(me, "range", AV_OPT_SEARCH_CHILDREN, &range);
    snprintf(msg, sizeof(msg), "frame 3 %s: %d errors (want 1), %d frames with vectors from frame 5 "
             "on (want 3: 4 starts a sequence), range=%"PRId64" after (want 8); with frame 4 %d error "
             "lines (want 0), %d warnings of the fallback (want 1)",
             big ? "too wide" : "out of memory", errors, vectors, range, nb_error_lines,
             nb_fallback_warnings);
    check(errors == 1 && vectors == 3 && range == 8 && !nb_error_lines && nb_fallback_warnings == 1,
          msg);
    nb_error_lines = nb_fallback_warnings = 0;
    av_frame_free(&out);
    avfilter_graph_free(&g);
}

/* a pixel-format change whose restart fails (the frames before it cannot
 * go out: frame 3 carries a lavfi.gpume.* key of 4000 bytes, whose removal
 * a limit of 2000 bytes refuses) stays pending: frame 5, of the new format,
 * starts a sequence (no vectors), and frame 6 has vectors */
static void gpume_format_restart_kept(void)
{
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL;
    AVFrame *out = av_frame_alloc();
    char key[4001], msg[160];
    int errors = 0, has_mv[7] = { -1, -1, -1, -1, -1, -1, -1 };

    memset(key, 'x', sizeof(key) - 1);
    memcpy(key, "lavfi.gpume.", 12);
    key[sizeof(key) - 1] = 0;
    check(g && out && build(g, &src, &sink, "device=cpu", NULL) >= 0, "graph buffer -> gpume -> buffersink");
    for (int n = 0; n < 7 && out && src; n++) {
        AVFrame *f = n < 4 ? texture_frame(n, W, H) : yuv_frame(W, H, n);
        int err = f ? 0 : AVERROR(ENOMEM);

        if (n == 3 && f)
            err = av_dict_set(&f->metadata, key, "1", 0);
        if (err >= 0)
            err = av_buffersrc_add_frame(src, f);
        av_frame_free(&f);
        if (n == 4)
            av_max_alloc(2000);
        if (err >= 0)
            err = drain_mv(sink, out, has_mv, 7);
        av_max_alloc(INT_MAX);
        errors += err != AVERROR(EAGAIN);
    }
    if (out && src && av_buffersrc_close(src, 7, 0) >= 0)
        drain_mv(sink, out, has_mv, 7);
    snprintf(msg, sizeof(msg), "a format change whose restart failed: %d errors (want 1), frame 5 "
             "vectors %d (want 0: a new sequence), frame 6 vectors %d (want 1)",
             errors, has_mv[5], has_mv[6]);
    check(errors == 1 && has_mv[5] == 0 && has_mv[6] == 1, msg);
    av_frame_free(&out);
    avfilter_graph_free(&g);
}

/* buffer (64x48 4:2:0 at 25 fps, on hw_frames where given) -> NAME=ARGS -> buffersink */
static int build_filter_tb(AVFilterGraph *g, AVFilterContext **src, AVFilterContext **sink,
                           AVBufferRef *hw_frames, const char *name, const char *args, AVRational tb)
{
    AVBufferSrcParameters *par = av_buffersrc_parameters_alloc();
    AVFilterContext *fc;
    int err = -1;

    if (!g || !par)
        goto end;
    *par = (AVBufferSrcParameters) { .format = hw_frames ? AV_PIX_FMT_OPENCL : AV_PIX_FMT_YUV420P,
                                     .width = 64, .height = 48, .time_base = tb,
                                     .frame_rate = { 25, 1 }, .hw_frames_ctx = hw_frames };
    *src = avfilter_graph_alloc_filter(g, avfilter_get_by_name("buffer"), "in");
    if (!*src || av_buffersrc_parameters_set(*src, par) < 0 || avfilter_init_str(*src, NULL) < 0 ||
        avfilter_graph_create_filter(&fc, avfilter_get_by_name(name), "fc", args, NULL, g) < 0 ||
        avfilter_graph_create_filter(sink, avfilter_get_by_name("buffersink"), "out", NULL, NULL, g) < 0 ||
        avfilter_link(*src, 0, fc, 0) < 0 || avfilter_link(fc, 0, *sink, 0) < 0)
        goto end;
    err = avfilter_graph_config(g, NULL);
end:
    av_free(par);
    return err;
}

/* buffer (64x48 4:2:0 at 25 fps, on hw_frames where given) -> mcfps=MCFPS -> buffersink */
static int build_mcfps_tb(AVFilterGraph *g, AVFilterContext **src, AVFilterContext **sink,
                          AVBufferRef *hw_frames, const char *mcfps, AVRational tb)
{
    return build_filter_tb(g, src, sink, hw_frames, "mcfps", mcfps, tb);
}

/* buffer (64x48 yuv420p, or hw_frames, at 25 fps) -> mcfps=MCFPS -> buffersink */
static int build_mcfps(AVFilterGraph *g, AVFilterContext **src, AVFilterContext **sink,
                       AVBufferRef *hw_frames, const char *mcfps)
{
    return build_mcfps_tb(g, src, sink, hw_frames, mcfps, (AVRational){ 1, 25 });
}

/* the sink drained: frames out (those of w x h in *sized), or the error that ended it */
static int drain(AVFilterContext *sink, int w, int h, int *sized)
{
    AVFrame *out = av_frame_alloc();
    int err = out ? 0 : AVERROR(ENOMEM), nb = 0;

    while (err >= 0 && (err = av_buffersink_get_frame(sink, out)) >= 0) {
        nb++;
        *sized += out->width == w && out->height == h;
        av_frame_unref(out);
    }
    av_frame_free(&out);
    return err == AVERROR(EAGAIN) || err == AVERROR_EOF ? nb : err;
}

/* mcfps after a size it could not set up for (out of memory), going on as
 * an API user may: the next frame of that size sets up again, no crash */
static void mcfps_after_failed_restart(void)
{
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL;
    int r = build_mcfps(g, &src, &sink, NULL, "fps=50:mode=blend:device=cpu");
    int limited = 0, sized = 0, ok = 0;
    char msg[160];

    check(r >= 0, "graph buffer -> mcfps=mode=blend -> buffersink");
    for (int n = 0; n < 7 && r >= 0; n++) {
        const int big = n >= 3;
        AVFrame *f = yuv_frame(big ? 2048 : 64, big ? 2048 : 48, n);
        int err = f ? av_buffersrc_add_frame(src, f) : AVERROR(ENOMEM);

        av_frame_free(&f);
        if (err < 0)
            break;
        /* the first large frame's fields fit, its backend does not */
        if (n == 3)
            av_max_alloc(400000);
        err = drain(sink, 2048, 2048, &sized);
        if (n == 3)
            av_max_alloc(INT_MAX);
        limited += n == 3 && err == AVERROR(ENOMEM);
        ok      += n >  3 && err >= 0;
    }
    if (r >= 0 && av_buffersrc_close(src, 7, 0) >= 0 && drain(sink, 2048, 2048, &sized) >= 0)
        ok++;
    snprintf(msg, sizeof(msg), "the set-up out of memory refused the frame (%d)", limited);
    check(limited == 1, msg);
    snprintf(msg, sizeof(msg), "%d of 4 pushes and the end went on after it, %d frames of 2048x2048",
             ok, sized);
    check(ok == 4 && sized >= 4, msg);
    avfilter_graph_free(&g);
}

/* a frame on the instant of an earlier one that takes its place (as in
 * fps) and that mcfps refuses (rgb24), then the end: its error, and an end
 * without a crash. waiting = 0: the first frame, 5 ms in, at fps=1/3 with
 * the end at 10 s: the tick it was to take, and those to the end, go to no
 * one. waiting = 1: the second frame at 1 s, whose tick waits for what
 * follows, at fps=1 with the end at 3 s: that tick stays a copy of the
 * second frame, and no frame of the refused format goes out. */
static void mcfps_same_instant_refused(int waiting)
{
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL;
    AVFrame *f[2] = { yuv_frame(64, 48, 0), yuv_frame(64, 48, 1000) };
    AVFrame *rgb = av_frame_alloc(), *out = av_frame_alloc();
    int r = build_mcfps_tb(g, &src, &sink, NULL, waiting ? "fps=1:mode=blend:device=cpu" :
                           "fps=1/3:mode=blend:device=cpu", (AVRational){ 1, 1000 });
    int err = AVERROR(ENOMEM), err_end = AVERROR(ENOMEM), nb = -1, yuv = 0;
    char msg[192];

    if (r >= 0 && f[0] && f[1] && rgb && out) {
        rgb->format = AV_PIX_FMT_RGB24;
        rgb->width  = 64;
        rgb->height = 48;
        rgb->pts    = waiting ? 1001 : 5;
        err = av_frame_get_buffer(rgb, 0);
        for (int i = 0; i <= waiting && err >= 0; i++)
            err = av_buffersrc_add_frame_flags(src, f[i], AV_BUFFERSRC_FLAG_PUSH);
        if (err >= 0) {
            err     = av_buffersrc_add_frame_flags(src, rgb, AV_BUFFERSRC_FLAG_PUSH);
            err_end = av_buffersrc_close(src, waiting ? 3000 : 10000, AV_BUFFERSRC_FLAG_PUSH);
            for (nb = 0; av_buffersink_get_frame(sink, out) >= 0; nb++) {
                yuv += out->format == AV_PIX_FMT_YUV420P && out->pts == nb;
                av_frame_unref(out);
            }
        }
    }
    snprintf(msg, sizeof(msg), "an rgb24 frame on the instant of frame %d: %s (want an error), then "
             "the end: %s, %d frames out (want %d), %d of them yuv420p on their ticks", waiting,
             av_err2str(err), av_err2str(err_end), nb, 2 * waiting, yuv);
    check(r >= 0 && err < 0 && err_end >= 0 && nb == 2 * waiting && yuv == nb, msg);
    av_frame_free(&f[0]);
    av_frame_free(&f[1]);
    av_frame_free(&rgb);
    av_frame_free(&out);
    avfilter_graph_free(&g);
}

/* 30 to 60 fps with captions, mcfps=mode=blend alone, frames 6 on of
 * another size, frame 6 1/300 s after frame 5: it takes frame 5's tick,
 * which waited, and goes out with that tick's captions. Every caption byte
 * out once, in order, as without the change. */
static void mcfps_captions_at_size_change(void)
{
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL;
    AVFrame *out = av_frame_alloc();
    int r = out ? build_mcfps_tb(g, &src, &sink, NULL, "fps=60:mode=blend:device=cpu",
                                 (AVRational){ 1, 300 }) : -1;
    int nb = 0, sized = 0, in_order;
    Captions c = { 0 };
    char msg[192];

    for (int n = 0; n <= NB_IN && r >= 0; n++) {
        if (n < NB_IN) {
            AVFrame *f = add_captions(yuv_frame(n < 6 ? 64 : 48, 48, 10 * n + (n == 6 ? -9 : 0)), n);
            r = f ? av_buffersrc_add_frame(src, f) : AVERROR(ENOMEM);
            av_frame_free(&f);
        } else {
            r = av_buffersrc_close(src, 10 * NB_IN, 0);
        }
        while (r >= 0 && av_buffersink_get_frame(sink, out) >= 0) {
            nb++;
            take(&c, out, &sized);
            av_frame_unref(out);
        }
    }
    in_order = captions_in_order(&c);
    snprintf(msg, sizeof(msg), "captions across a change of size onto a waiting tick: %d frames out "
             "(want %d), %d and %d triplets (want %d and %d), in order %d", nb, 2 * NB_IN,
             c.n608, c.n708, 2 * NB_IN, 18 * NB_IN, in_order);
    check(r >= 0 && nb == 2 * NB_IN && c.n608 == 2 * NB_IN && c.n708 == 18 * NB_IN && in_order, msg);
    av_frame_free(&out);
    avfilter_graph_free(&g);
}

/* 25 fps, a rate at which the caption FIFO leaves captions on their frames:
 * frames at 0, 10, 80, 80 and 120 ms, each with captions of its own, through
 * fps=25 and mcfps=fps=25:mode=dup. The later frame of 0 and 10 ms and of
 * the two at 80 ms take the ticks; each tick carries the captions of the
 * frame it shows, as with fps. */
static void mcfps_dup_captions(void)
{
    static const int64_t pts[] = { 0, 10, 80, 80, 120 };
    static const char *const names[] = { "fps", "mcfps" };
    static const char *const args[]  = { "fps=25", "fps=25:mode=dup:device=cpu" };
    int shown[2][8], cc[2][8], nb[2] = { 0 }, same;
    char msg[192];

    for (int v = 0; v < 2; v++) {
        AVFilterGraph *g = avfilter_graph_alloc();
        AVFilterContext *src = NULL, *sink = NULL;
        AVFrame *out = av_frame_alloc();
        int r = out ? build_filter_tb(g, &src, &sink, NULL, names[v], args[v], (AVRational){ 1, 1000 }) : -1;

        for (int n = 0; n <= FF_ARRAY_ELEMS(pts) && r >= 0; n++) {
            if (n < FF_ARRAY_ELEMS(pts)) {
                AVFrame *f = add_captions(yuv_frame(64, 48, pts[n]), n);
                if (f)
                    f->data[0][0] = n;
                r = f ? av_buffersrc_add_frame(src, f) : AVERROR(ENOMEM);
                av_frame_free(&f);
            } else {
                r = av_buffersrc_close(src, 200, 0);
            }
            while (r >= 0 && av_buffersink_get_frame(sink, out) >= 0) {
                const AVFrameSideData *sd = av_frame_get_side_data(out, AV_FRAME_DATA_A53_CC);
                if (nb[v] < 8) {
                    shown[v][nb[v]] = out->data[0][0];
                    cc[v][nb[v]]    = sd && sd->size >= 3 ? sd->data[1] : -1;
                }
                nb[v]++;
                av_frame_unref(out);
            }
        }
        if (r < 0)
            nb[v] = -1;
        av_frame_free(&out);
        avfilter_graph_free(&g);
    }
    same = nb[0] == 5 && nb[1] == nb[0];
    for (int i = 0; same && i < nb[0]; i++)
        same = shown[1][i] == shown[0][i] && cc[1][i] == cc[0][i] && cc[1][i] == shown[1][i];
    snprintf(msg, sizeof(msg), "mode=dup at 25 fps with captions on frames that round to one tick: "
             "%d and %d frames (want 5); tick 0 frame %d captions %d, tick 2 frame %d captions %d "
             "(fps: 1 1, 3 3)", nb[0], nb[1], nb[1] > 0 ? shown[1][0] : -1, nb[1] > 0 ? cc[1][0] : -1,
             nb[1] > 2 ? shown[1][2] : -1, nb[1] > 2 ? cc[1][2] : -1);
    check(same, msg);
}

/* the last frame's end from its duration where the end time given is out
 * of range, also at negative timestamps: ticks -200 ... -191 at 50 fps */
static void mcfps_end_before_zero(void)
{
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL;
    AVFrame *out = av_frame_alloc();
    int r = out ? build_mcfps(g, &src, &sink, NULL, "fps=50:mode=blend:device=cpu") : -1;
    int nb = 0, in_order = 1;
    char msg[160];

    for (int n = 0; n < 5 && r >= 0; n++) {
        AVFrame *f = yuv_frame(64, 48, n - 100);
        r = f ? av_buffersrc_add_frame(src, f) : AVERROR(ENOMEM);
        av_frame_free(&f);
    }
    if (r >= 0)
        r = av_buffersrc_close(src, 1000000000000000LL, 0);
    while (r >= 0 && av_buffersink_get_frame(sink, out) >= 0) {
        in_order &= out->pts == nb++ - 200;
        av_frame_unref(out);
    }
    snprintf(msg, sizeof(msg), "frames at -100 ... -96 (1/25), an end out of range: %d ticks in order %d, "
             "want 10 from -200 (1/50)", nb, in_order);
    check(r >= 0 && nb == 10 && in_order, msg);
    av_frame_free(&out);
    avfilter_graph_free(&g);
}

/* frame n of the texture as a decoder gives a key frame: a display matrix
 * (side data of the stream), an SEI payload (of the frame), a key of its
 * own, picture type I, the key-frame flag, a crop; f or NULL */
static AVFrame *decoded_frame(int n)
{
    AVFrame *f = texture_frame(n, W, H);
    AVFrameSideData *sd;

    if (!f)
        return NULL;
    sd = av_frame_new_side_data(f, AV_FRAME_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t));
    if (sd)
        av_display_rotation_set((int32_t *)sd->data, 90);
    if (!sd || !av_frame_new_side_data(f, AV_FRAME_DATA_SEI_UNREGISTERED, 20) ||
        av_dict_set_int(&f->metadata, "test.frame", n, 0) < 0) {
        av_frame_free(&f);
        return NULL;
    }
    f->pict_type   = AV_PICTURE_TYPE_I;
    f->flags      |= AV_FRAME_FLAG_KEY;
    f->crop_bottom = 2;
    return f;
}

/* the deprecated key-frame field where the FFmpeg has it, else 0 */
static int old_key_frame(const AVFrame *f)
{
#if LIBAVUTIL_VERSION_MAJOR < 60
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    return f->key_frame;
#pragma GCC diagnostic pop
#else
    return 0;
#endif
}

/* the frames mcfps makes carry what describes the stream (the display
 * matrix, the crop, the aspect ratio) and nothing of the frame they were
 * made from (its SEI, its keys, its picture type, its key-frame flag);
 * the copies keep their frame's own */
static void mcfps_made_frame_properties(void)
{
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL;
    AVFrame *out = av_frame_alloc();
    int r = g && out ? build(g, &src, &sink, "device=cpu:dir=bi", "fps=60:device=cpu") : -1;
    int made = 0, made_ok = 0, copies = 0, copies_ok = 0;
    int32_t rotation[9];
    char msg[200];

    av_display_rotation_set(rotation, 90);

    for (int n = 0; n <= 6 && r >= 0; n++) {
        AVFrame *f = n < 6 ? decoded_frame(n) : NULL;
        if (n < 6)
            r = f ? av_buffersrc_add_frame(src, f) : AVERROR(ENOMEM);
        else
            r = av_buffersrc_close(src, 6, 0);
        av_frame_free(&f);
        while (r >= 0 && av_buffersink_get_frame(sink, out) >= 0) {
            const AVFrameSideData *dm = av_frame_get_side_data(out, AV_FRAME_DATA_DISPLAYMATRIX);
            const int stream = dm && dm->size == sizeof(rotation) &&
                               !memcmp(dm->data, rotation, sizeof(rotation)) &&
                               out->crop_bottom == 2 && out->sample_aspect_ratio.num == 1 &&
                               out->sample_aspect_ratio.den == 1;
            const int own = av_frame_get_side_data(out, AV_FRAME_DATA_SEI_UNREGISTERED) &&
                            av_dict_get(out->metadata, "test.frame", NULL, 0);
            const int none = !av_frame_get_side_data(out, AV_FRAME_DATA_SEI_UNREGISTERED) &&
                             !av_frame_get_side_data(out, AV_FRAME_DATA_MOTION_VECTORS) &&
                             !av_dict_count(out->metadata) &&
                             out->pict_type == AV_PICTURE_TYPE_NONE &&
                             !(out->flags & AV_FRAME_FLAG_KEY) && !old_key_frame(out);
            if (out->pts & 1 && out->pts < 10) {
                made++;
                made_ok += stream && none;
            } else if (!(out->pts & 1)) {
                copies++;
                copies_ok += stream && own &&
                             !av_frame_get_side_data(out, AV_FRAME_DATA_MOTION_VECTORS);
            }
            av_frame_unref(out);
        }
    }
    snprintf(msg, sizeof(msg), "made frames with the stream's properties and none of their "
             "frame's: %d of %d (want 5 of 5); copies with their frame's: %d of %d (want 6 of 6)",
             made_ok, made, copies_ok, copies);
    check(r >= 0 && made == 5 && made_ok == 5 && copies == 6 && copies_ok == 6, msg);
    av_frame_free(&out);
    avfilter_graph_free(&g);
}

/* OpenCL frames of 64x48 4:2:0 on *dev, or on a device of their own where
 * *dev is NULL; NULL where there is none */
static AVBufferRef *opencl_frames(AVBufferRef **dev)
{
    AVBufferRef *fr;
    AVHWFramesContext *fc;

    if ((!*dev && av_hwdevice_ctx_create(dev, AV_HWDEVICE_TYPE_OPENCL, NULL, NULL, 0) < 0) ||
        !(fr = av_hwframe_ctx_alloc(*dev)))
        return NULL;
    fc = (AVHWFramesContext *)fr->data;
    fc->format    = AV_PIX_FMT_OPENCL;
    fc->sw_format = AV_PIX_FMT_YUV420P;
    fc->width     = 64;
    fc->height    = 48;
    if (av_hwframe_ctx_init(fr) < 0)
        av_buffer_unref(&fr);
    return fr;
}

/* yuv_frame(64, 48, n) into src, uploaded to the OpenCL frames fr where fr
 * is not NULL: the error of the upload or of av_buffersrc_add_frame() */
static int add_yuv_frame(AVFilterContext *src, AVBufferRef *fr, int n)
{
    AVFrame *sw = yuv_frame(64, 48, n), *hw = fr ? av_frame_alloc() : NULL;
    int err = sw && (!fr || hw) ? 0 : AVERROR(ENOMEM);

    if (hw && err >= 0)
        err = av_hwframe_get_buffer(fr, hw, 0);
    if (hw && err >= 0)
        err = av_hwframe_transfer_data(hw, sw, 0);
    if (hw && err >= 0) {
        hw->pts      = sw->pts;
        hw->duration = sw->duration;
    }
    if (err >= 0)
        err = av_buffersrc_add_frame(src, hw ? hw : sw);
    av_frame_free(&sw);
    av_frame_free(&hw);
    return err;
}

/* warnings whose text holds warning_wanted, while counting */
static const char *warning_wanted;
static int nb_warnings_wanted;

static void count_warning(void *avcl, int level, const char *fmt, va_list vl)
{
    char line[512];
    va_list copy;

    if (level != AV_LOG_WARNING)
        return;
    va_copy(copy, vl);
    vsnprintf(line, sizeof(line), fmt, copy);
    va_end(copy);
    nb_warnings_wanted += !!strstr(line, warning_wanted);
}

/* hardware frames that move to another device mid-stream: refused with
 * an error, never handed to the backend of the first */
static void mcfps_device_change(void)
{
    AVBufferRef *dev[2] = { NULL }, *fr[2] = { NULL };
    AVFilterGraph *g = NULL;
    AVFilterContext *src = NULL, *sink = NULL;
    int r = -1, refused = 0, nb = 0, sized = 0;
    char msg[160];

    fr[0] = opencl_frames(&dev[0]);
    fr[1] = opencl_frames(&dev[1]);
    if (!fr[0] || !fr[1]) {
        skipped("mcfps on frames of a second device (no OpenCL device)");
        goto end;
    }
    g = avfilter_graph_alloc();
    r = build_mcfps(g, &src, &sink, fr[0], "fps=50:mode=blend");
    check(r >= 0, "graph buffer (OpenCL frames) -> mcfps=mode=blend -> buffersink");
    for (int n = 0; n < 8 && r >= 0; n++) {
        int err = add_yuv_frame(src, fr[n >= 4], n);

        if (err >= 0)
            err = drain(sink, 64, 48, &sized);
        refused += err == AVERROR(EINVAL);
        nb      += err > 0 ? err : 0;
    }
    snprintf(msg, sizeof(msg), "frames of a second device: %d refused, %d frames out before", refused, nb);
    check(refused >= 1 && nb >= 6, msg);
end:
    avfilter_graph_free(&g);
    for (int i = 0; i < 2; i++) {
        av_buffer_unref(&fr[i]);
        av_buffer_unref(&dev[i]);
    }
}

/* OpenCL frames from a second frames context of the same device, format and
 * size from frame 4 on (as a decoder that starts again gives them): gpume
 * restarts with one warning that says so, every frame goes out, frame 4
 * starts a sequence (no vectors) and the frames after it have vectors */
static void gpume_new_frames_context(void)
{
    AVBufferRef *dev = NULL, *fr[2] = { NULL };
    AVFilterGraph *g = NULL;
    AVFilterContext *src = NULL, *sink = NULL;
    AVFrame *out = av_frame_alloc();
    int errors = 0, vectors = 0, has_mv[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };
    char msg[192];

    fr[0] = opencl_frames(&dev);
    fr[1] = fr[0] ? opencl_frames(&dev) : NULL;
    if (!fr[0] || !fr[1]) {
        skipped("gpume on OpenCL frames of a new frames context (no OpenCL device)");
        goto end;
    }
    g = avfilter_graph_alloc();
    if (!opencl_graph_built(build_filter_tb(g, &src, &sink, fr[0], "gpume", "device=opencl:dir=fwd",
                                            (AVRational){ 1, 25 }), "gpume on a new frames context"))
        goto end;
    warning_wanted = "64x48 opencl(yuv420p) frames of a new hardware frames context";
    av_log_set_callback(count_warning);
    for (int n = 0; n <= 8 && out; n++) {
        int err = n < 8 ? add_yuv_frame(src, fr[n >= 4], n) : av_buffersrc_close(src, 8, 0);

        if (err >= 0)
            err = drain_mv(sink, out, has_mv, 8);
        errors += err != AVERROR(EAGAIN) && err != AVERROR_EOF;
    }
    for (int n = 0; n < 8; n++)
        vectors |= (has_mv[n] > 0) << n;
    /* dir=fwd: frame 0 and frame 4, each the first of a sequence, have none */
    snprintf(msg, sizeof(msg), "a new frames context at frame 4: %d errors (want 0), vectors on "
             "frames 0x%02x (want 0xee), %d warnings of a new context (want 1)",
             errors, vectors, nb_warnings_wanted);
    check(!errors && vectors == 0xee && nb_warnings_wanted == 1, msg);
end:
    av_log_set_callback(av_log_default_callback);
    nb_warnings_wanted = 0;
    av_frame_free(&out);
    avfilter_graph_free(&g);
    av_buffer_unref(&fr[0]);
    av_buffer_unref(&fr[1]);
    av_buffer_unref(&dev);
}

/* mcfps on OpenCL given OpenCL frames, then software frames of the same
 * software format and size from frame 4 on: a restart whose warning tells
 * the two apart, and every tick of the eight frames at 50 fps made */
static void mcfps_hw_to_sw(void)
{
    AVBufferRef *dev = NULL, *fr = opencl_frames(&dev);
    AVFilterGraph *g = NULL;
    AVFilterContext *src = NULL, *sink = NULL;
    int errors = 0, nb = 0, sized = 0;
    char msg[192];

    if (!fr) {
        skipped("mcfps on OpenCL frames, then software ones (no OpenCL device)");
        goto end;
    }
    g = avfilter_graph_alloc();
    if (!opencl_graph_built(build_mcfps(g, &src, &sink, fr, "fps=50:mode=blend:device=opencl"),
                            "mcfps on OpenCL frames, then software ones"))
        goto end;
    warning_wanted = "from 64x48 opencl(yuv420p) to 64x48 yuv420p;";
    av_log_set_callback(count_warning);
    for (int n = 0; n <= 8; n++) {
        int err = n < 8 ? add_yuv_frame(src, n < 4 ? fr : NULL, n) : av_buffersrc_close(src, 8, 0);

        if (err >= 0)
            err = drain(sink, 64, 48, &sized);
        nb     += err > 0 ? err : 0;
        errors += err < 0 && err != AVERROR(EAGAIN) && err != AVERROR_EOF;
    }
    snprintf(msg, sizeof(msg), "OpenCL frames, then software ones: %d errors (want 0), %d frames "
             "out (want 16), %d warnings naming opencl(yuv420p) and yuv420p (want 1)",
             errors, nb, nb_warnings_wanted);
    check(!errors && nb == 16 && nb_warnings_wanted == 1, msg);
end:
    av_log_set_callback(av_log_default_callback);
    nb_warnings_wanted = 0;
    avfilter_graph_free(&g);
    av_buffer_unref(&fr);
    av_buffer_unref(&dev);
}

/* OpenCL frames of 64x48 pushed into mcfps on the CPU backend after four
 * software frames, then the end: refused with an error, and no hardware
 * frame comes out of the software link (the ticks to the end repeat the
 * last software frame) */
static void mcfps_hw_on_cpu(void)
{
    AVBufferRef *dev = NULL, *fr = opencl_frames(&dev);
    AVFilterGraph *g = NULL;
    AVFilterContext *src = NULL, *sink = NULL;
    AVFrame *out = av_frame_alloc();
    int r = -1, refused = 0, nb = 0, hw = 0, err = 0;
    char msg[160];

    if (!fr) {
        skipped("mcfps on the CPU given OpenCL frames (no OpenCL device)");
        goto end;
    }
    g = avfilter_graph_alloc();
    r = build_mcfps(g, &src, &sink, NULL, "fps=50:mode=blend:device=cpu");
    check(r >= 0 && out, "graph buffer -> mcfps=mode=blend:device=cpu -> buffersink");
    for (int n = 0; n <= 8 && r >= 0 && out; n++) {
        err = n < 8 ? add_yuv_frame(src, n >= 4 ? fr : NULL, n) : av_buffersrc_close(src, 8, 0);
        while (err >= 0 && (err = av_buffersink_get_frame(sink, out)) >= 0) {
            nb++;
            hw += out->format != AV_PIX_FMT_YUV420P;
            av_frame_unref(out);
        }
        refused += err == AVERROR(EINVAL);
    }
    snprintf(msg, sizeof(msg), "OpenCL frames on the cpu backend: %d refused, %d frames out "
             "(want 16: frame 3 to the end at 8/25 s), %d of them not yuv420p", refused, nb, hw);
    check(refused >= 1 && nb == 16 && !hw, msg);
end:
    av_frame_free(&out);
    avfilter_graph_free(&g);
    av_buffer_unref(&fr);
    av_buffer_unref(&dev);
}

/* texture frames 0 to 15 pushed into src, those from resize_at on 16
 * pixels narrower, then the end, the sink drained after each step: the
 * number of steps that failed; *nb_out counts the frames out, and
 * has_mv[pts] (pts < 16; has_mv may be NULL) says whether each came with
 * vectors */
static int push_texture_frames(AVFilterContext *src, AVFilterContext *sink, AVFrame *out,
                               int resize_at, int *nb_out, int *has_mv)
{
    int errors = 0;

    for (int n = 0; n <= 16; n++) {
        AVFrame *f = n < 16 ? texture_frame(n, n < resize_at ? W : W - 16, H) : NULL;
        int err = n == 16 ? av_buffersrc_close(src, 16, 0) :
                  f       ? av_buffersrc_add_frame(src, f) : AVERROR(ENOMEM);
        av_frame_free(&f);
        while (err >= 0 && (err = av_buffersink_get_frame(sink, out)) >= 0) {
            (*nb_out)++;
            if (has_mv && out->pts >= 0 && out->pts < 16)
                has_mv[out->pts] = !!av_frame_get_side_data(out, AV_FRAME_DATA_MOTION_VECTORS);
            av_frame_unref(out);
        }
        errors += err != AVERROR(EAGAIN) && err != AVERROR_EOF;
    }
    return errors;
}

/* gpume=device=opencl:OPTS on 16 frames, those from resize_at on 16
 * pixels narrower, one wait of which fails: one error, all 16 frames out,
 * and the last ones (from the second sequence on) with vectors. With the
 * timeline off for frames 4 and 5, the first waits fail in the flush that
 * frame 4 makes, which must still go out; so must a frame whose upload
 * waits in vain for its slot, and one whose restart's flush fails. */
static void gpume_wait_failure(const char *opts, int resize_at)
{
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL;
    AVFrame *out = av_frame_alloc();
    int errors = 0, nb_out = 0, has_mv[16] = { 0 }, vectors = 0;
    char msg[160];
    int err = g && out ? build(g, &src, &sink, opts, NULL) : AVERROR(ENOMEM);

    if (!opencl_graph_built(err, "gpume after a failed OpenCL wait"))
        goto end;
    errors = push_texture_frames(src, sink, out, resize_at, &nb_out, has_mv);
    for (int n = 12; n < 16; n++)
        vectors += has_mv[n];
    snprintf(msg, sizeof(msg), "a failed OpenCL wait, gpume=%s: %d errors (want 1), %d frames out "
             "(want 16), %d of the last 4 with vectors (want 4)", opts, errors, nb_out, vectors);
    check(errors == 1 && nb_out == 16 && vectors == 4, msg);
end:
    av_frame_free(&out);
    avfilter_graph_free(&g);
}

/* gpume=device=opencl:dir=bi, then mcfps=fps=60 on the CPU, on 16 frames
 * the upload of one of which fails (at the start: CLSHIM_FAIL names it):
 * one error, gpume's; mcfps takes the pairs without vectors around that
 * frame for a gap gpume left (their average), not for a stream without
 * vectors, and makes every tick of fps=60 */
static void mcfps_after_failed_upload(void)
{
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL;
    AVFrame *out = av_frame_alloc();
    int errors = 0, nb_out = 0;
    char msg[160];
    int err = g && out ? build(g, &src, &sink, "device=opencl:dir=bi", "fps=60:device=cpu") :
                         AVERROR(ENOMEM);

    if (!opencl_graph_built(err, "mcfps after a failed upload in gpume"))
        goto end;
    errors = push_texture_frames(src, sink, out, 16, &nb_out, NULL);
    snprintf(msg, sizeof(msg), "mcfps after a failed upload in gpume: %d errors (want 1), %d frames "
             "out (want 32)", errors, nb_out);
    check(errors == 1 && nb_out == 32, msg);
end:
    av_frame_free(&out);
    avfilter_graph_free(&g);
}

/* mcfps=device=DEVICE:mode=blend at 50 fps on yuv_frame()s first .. 7 and
 * the end: the output frames' pts and bytes into sum[pts] (pts < 16), one
 * error counted per step that fails */
static int blend_run(const char *device, int first, uint32_t *sum, int *errors)
{
    AVFilterGraph *g = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL;
    AVFrame *out = av_frame_alloc();
    char opts[64];
    int nb = 0, err;

    snprintf(opts, sizeof(opts), "fps=50:mode=blend:device=%s", device);
    err = g && out ? build_mcfps(g, &src, &sink, NULL, opts) : AVERROR(ENOMEM);
    for (int n = first; n <= 8 && err >= 0; n++) {
        AVFrame *f = n < 8 ? yuv_frame(64, 48, n) : NULL;
        int e = n == 8 ? av_buffersrc_close(src, 8, 0) :
                f      ? av_buffersrc_add_frame(src, f) : AVERROR(ENOMEM);
        av_frame_free(&f);
        while (e >= 0 && (e = av_buffersink_get_frame(sink, out)) >= 0) {
            uint32_t s = 0;
            for (int p = 0; p < 3; p++)
                for (int y = 0; y < (p ? 24 : 48); y++)
                    for (int x = 0; x < (p ? 32 : 64); x++)
                        s = s * 31 + out->data[p][y * out->linesize[p] + x];
            if (out->pts >= 0 && out->pts < 16)
                sum[out->pts] = s;
            nb++;
            av_frame_unref(out);
        }
        *errors += e != AVERROR(EAGAIN) && e != AVERROR_EOF;
    }
    av_frame_free(&out);
    avfilter_graph_free(&g);
    return err < 0 ? err : nb;
}

/* mcfps on OpenCL whose load of frame 0 fails: one error, then the frames
 * of a CPU run on frames 1 to 7, none made from the frame never loaded */
static void mcfps_load_failure(void)
{
    uint32_t got[16] = { 0 }, want[16] = { 0 };
    int errors = 0, cpu_errors = 0, nb, nb_cpu;
    char msg[160];

    nb = blend_run("opencl", 0, got, &errors);
    if (!opencl_graph_built(nb, "mcfps after a failed OpenCL load"))
        return;
    nb_cpu = blend_run("cpu", 1, want, &cpu_errors);
    snprintf(msg, sizeof(msg), "a failed OpenCL load of frame 0: %d errors (want 1), %d frames out "
             "(want %d, those of a CPU run from frame 1)", errors, nb, nb_cpu);
    check(errors == 1 && !cpu_errors && nb == nb_cpu && !memcmp(got, want, sizeof(got)), msg);
}

int main(int argc, char **argv)
{
    static Conversion r;
    char msg[160];

    if (argc > 1) {
        if (!strcmp(argv[1], "opencl-wait"))
            gpume_wait_failure("device=opencl:dir=bi", 16);
        else if (!strcmp(argv[1], "opencl-wait-timeline"))
            gpume_wait_failure("device=opencl:dir=fwd:enable='not(between(n,4,5))'", 16);
        else if (!strcmp(argv[1], "opencl-wait-upload"))
            gpume_wait_failure("device=opencl:dir=fwd", 16);
        else if (!strcmp(argv[1], "opencl-wait-restart"))
            gpume_wait_failure("device=opencl:dir=bi", 8);
        else if (!strcmp(argv[1], "opencl-load"))
            mcfps_load_failure();
        else if (!strcmp(argv[1], "opencl-upload"))
            mcfps_after_failed_upload();
        else
            check(0, "a case: opencl-wait, opencl-wait-timeline, opencl-wait-upload, "
                     "opencl-wait-restart, opencl-load or opencl-upload");
        printf("%d passed, %d failed, %d skipped\n", pass, fail, skip);
        return fail != 0;
    }

    convert(&r, 0, "graph buffer -> gpume -> mcfps=fps=60 -> buffersink");
    snprintf(msg, sizeof(msg), "the graph ran (%s)", av_err2str(r.err));
    check(r.err >= 0, msg);
    snprintf(msg, sizeof(msg), "%d output frames, want %d", r.nb_out, 2 * NB_IN);
    check(r.nb_out == 2 * NB_IN, msg);
    snprintf(msg, sizeof(msg), "%d of %d output frames carry %d caption triplets", r.sized, r.nb_out, CC_OUT);
    check(r.sized == r.nb_out, msg);
    /* 2 608 and 18 708 triplets in, 1 and 9 out per output frame: all of them */
    snprintf(msg, sizeof(msg), "%d CEA-608 triplets out, want %d", r.c.n608, 2 * NB_IN);
    check(r.c.n608 == 2 * NB_IN, msg);
    snprintf(msg, sizeof(msg), "%d CEA-708 triplets out, want %d", r.c.n708, 18 * NB_IN);
    check(r.c.n708 == 18 * NB_IN, msg);
    check(captions_in_order(&r.c), "caption triplets out in the order they came in");

    convert(&r, 1, "graph for pushed frames");
    snprintf(msg, sizeof(msg), "pushed, drained without requests: %d frames in order %d, want %d (%s)",
             r.nb_out, r.pts_in_order, 2 * NB_IN, av_err2str(r.err));
    check(r.err >= 0 && r.nb_out == 2 * NB_IN && r.pts_in_order, msg);

    gpume_after_error();
    gpume_error_queued("device=cpu:dir=fwd", 0);
    gpume_error_queued("device=cpu:dir=bwd", 0);
    gpume_error_queued("device=cpu:dir=fwd", 1);
    gpume_error_queued("device=cpu:dir=bwd", 1);
    gpume_command_fallback(0);
    gpume_command_fallback(1);
    gpume_format_restart_kept();
    mcfps_after_failed_restart();
    mcfps_same_instant_refused(0);
    mcfps_same_instant_refused(1);
    mcfps_captions_at_size_change();
    mcfps_dup_captions();
    mcfps_end_before_zero();
    mcfps_made_frame_properties();
    mcfps_device_change();
    mcfps_hw_on_cpu();
    gpume_new_frames_context();
    mcfps_hw_to_sw();
    printf("%d passed, %d failed, %d skipped\n", pass, fail, skip);
    return fail != 0;
}
