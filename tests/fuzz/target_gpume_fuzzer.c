/*
 * libFuzzer target of the gpume filter: a real filter graph
 * (buffer -> gpume [-> mcfps] -> buffersink) built through libavfilter's
 * public API from the fuzz input, fed frames whose size, pixel format,
 * contents and timestamps the input chooses, closed at any point. Every
 * frame that comes out is checked against what docs/gpume.texi and
 * docs/ALGORITHMS.md promise; a violation aborts.
 *
 * Input (a byte reader that gives zeros once the input is exhausted):
 *   byte 0    flags: bit 0 two threads, bit 1 append mcfps when the build has
 *             it, bits 2-7 the device (63 opencl, 62 auto, 61 OpenCL frames
 *             uploaded here, with a new frames context at each size or
 *             format change and at command 4; else cpu software frames)
 *   13 option selectors, one per option of OPTS below: 0 leaves the option
 *             out, 1..0xef picks a valid value, 0xf0.. an invalid one
 *   4 bytes   first frame: width, height (size())
 *   1 byte    first pixel format (FORMATS, supported ones first)
 *   then commands, one byte each, until EOF of the input or command 7:
 *     bits 0-2  0..4 send a frame (4: in new OpenCL frames), 5 new size
 *               (4 bytes) and send, 6 new
 *               format (1 byte) and send, 7 close the input now
 *     bits 3-4  timestamp: previous + 1, 8 raw bytes, none, previous - 1
 *     bits 5-6  contents: noise, the previous frame shifted (2 bytes),
 *               one value (1 byte), the next input bytes
 *
 * Checks (the model of the stream is the list of frames sent):
 *  - the graph fails to configure only for what it may refuse (options,
 *    formats, sizes, an unavailable device): not checked further;
 *  - sending a frame fails exactly when its format is unsupported or its
 *    size is over 16383 (refusal), never for a supported change (restart);
 *    the input is closed after a refusal (or another error of mcfps);
 *  - frames come out in order, one per frame sent (but a refused one),
 *    with their size, data and timestamp; at the end of the input all of
 *    them, also those the filter held when it refused a frame;
 *  - the vectors of each frame: directions exactly those due (forward when
 *    the frame has a predecessor since the last restart, backward when it
 *    has a successor), each block inside the frame, blocks of each
 *    direction covering it exactly once, |vector| within range (plus the
 *    sub-pel steps), motion_scale = 2^subpel, src = dst + motion/scale
 *    rounded to nearest, pict_type I/P/B by the vectors, lavfi.gpume.* keys
 *    only where the metadata's direction has vectors, and no other key;
 *  - with mcfps, its frames instead: consecutive ticks (but after an error
 *    of mcfps), each one tick long, of a size and format sent, without
 *    vectors, lavfi.gpume.* keys or a picture type.
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
#include "libavutil/frame.h"
#include "libavutil/hwcontext.h"
#include "libavutil/log.h"
#include "libavutil/mem.h"
#include "libavutil/motion_vector.h"
#include "libavutil/pixdesc.h"

#include "fuzz_input.h"

#define MAX_FRAMES   24
#define MAX_DIM      16383            /* the filter's documented limit */
/* candidate evaluations (pixels x candidates) allowed per frame: keeps an
 * input to well under a second under the sanitizers */
#define FRAME_BUDGET 1e7
#define INPUT_BUDGET 8e7        /* and per input, after 3 frames */

#define FAIL(...) do {                                                  \
        fprintf(stderr, "gpume fuzzer: check failed: " __VA_ARGS__);    \
        fprintf(stderr, "\n");                                          \
        __builtin_trap();                                               \
    } while (0)

/* supported by the filter first (NB_SUPPORTED), then formats it refuses */
static const enum AVPixelFormat FORMATS[] = {
    AV_PIX_FMT_GRAY8, AV_PIX_FMT_YUV420P, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV444P,
    AV_PIX_FMT_YUV410P, AV_PIX_FMT_YUV411P, AV_PIX_FMT_YUV440P, AV_PIX_FMT_YUVJ420P,
    AV_PIX_FMT_YUVA420P, AV_PIX_FMT_NV12, AV_PIX_FMT_NV21, AV_PIX_FMT_NV16,
    AV_PIX_FMT_NV24, AV_PIX_FMT_NV42,
    AV_PIX_FMT_MONOBLACK, AV_PIX_FMT_RGB24, AV_PIX_FMT_GRAY16LE, AV_PIX_FMT_YUV420P10LE,
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

/* the options, their valid values (or range) and some invalid ones */
typedef struct Opt {
    const char *name;
    int min, max;           ///< valid range when nb_vals is 0
    int nb_vals;
    int vals[6];
    int nb_bad;
    const char *bad[4];
    int def;
} Opt;

enum { O_ALGO, O_RANGE, O_CTU, O_BLOCK, O_SUBPEL, O_LAMBDA, O_PU_PENALTY, O_PRED,
       O_LFS_THRESHOLD, O_VME_QP, O_VME_WINDOW, O_DIR, O_GPU, NB_OPTS };

static const Opt OPTS[NB_OPTS] = {
    [O_ALGO]          = { "algo", 0, 4, 0, { 0 }, 2, { "5", "bogus" }, 1 },
    [O_RANGE]         = { "range", 1, 64, 0, { 0 }, 2, { "65", "-1" }, 0 },
    [O_CTU]           = { "ctu", 0, 0, 3, { 16, 32, 64 }, 3, { "24", "128", "8" }, 32 },
    [O_BLOCK]         = { "block", 0, 0, 5, { 0, 8, 16, 32, 64 }, 3, { "4", "12", "65" }, 16 },
    [O_SUBPEL]        = { "subpel", 0, 2, 0, { 0 }, 2, { "3", "-1" }, 2 },
    [O_LAMBDA]        = { "lambda", 0, 256, 0, { 0 }, 2, { "257", "-1" }, 2 },
    [O_PU_PENALTY]    = { "pu_penalty", 0, 65535, 0, { 0 }, 2, { "65536", "-1" }, 256 },
    [O_PRED]          = { "pred", 0, 1, 0, { 0 }, 2, { "2", "median" }, 0 },
    [O_LFS_THRESHOLD] = { "lfs_threshold", 0, 64 * 255, 0, { 0 }, 1, { "16321" }, 32 },
    [O_VME_QP]        = { "vme_qp", 0, 51, 0, { 0 }, 1, { "52" }, 26 },
    [O_VME_WINDOW]    = { "vme_window", 0, 6, 0, { 0 }, 1, { "7" }, 0 },
    [O_DIR]           = { "dir", 1, 3, 0, { 0 }, 2, { "0", "up" }, 1 },
    [O_GPU]           = { "gpu", 0, 2, 0, { 0 }, 1, { "65" }, 0 },
};

/* pixel formats and sizes of the frames sent, to check what comes out */
typedef struct Sent {
    int w, h, seg;
    enum AVPixelFormat fmt;
    int64_t pts;
    const uint8_t *data0;
} Sent;

typedef struct Fuzz {
    int opt[NB_OPTS];           ///< option values in effect (valid run only)
    int mcfps;
    int64_t mcfps_pts;          ///< the last output tick of mcfps
    int after_error;            ///< mcfps refused a frame: its ticks may skip one
    Sent sent[MAX_FRAMES + 1];
    int nb_sent, nb_out;
    uint8_t *cover;             ///< per-pixel coverage count of one direction
    size_t cover_size;
} Fuzz;

static void size_of(Reader *r, int *w, int *h)
{
    static const int special[16] = { 16383, 16384, 4096, 2161, 4095, 8192, 1, 2,
                                     17, 33, 65, 64, 128, 1920, 1080, 720 };
    unsigned v[2] = { rd16(r), rd16(r) };
    int *d[2] = { w, h };
    for (int i = 0; i < 2; i++)
        *d[i] = v[i] >= 0xf000 ? special[v[i] & 15] : 1 + (int)(v[i] % 200);
}

/* the range a search takes on w x h frames: range=auto (0) is a twentieth of
 * the longer side, from 16 to 32, for hme and dis, else 16 (vf_gpume.c) */
static int search_range(const int *opt, int w, int h)
{
    if (opt[O_RANGE])
        return opt[O_RANGE];
    return opt[O_ALGO] == 1 || opt[O_ALGO] == 4 ? av_clip(FFMAX(w, h) / 20, 16, 32) : 16;
}

/* candidate evaluations per pixel and direction, roughly (as the filter's
 * own estimate in warn_cost), at the largest range the options allow */
static double cost_per_pixel(const int *opt)
{
    const double r = search_range(opt, INT_MAX, 0);
    if (opt[O_ALGO] == 1)
        return (r / 2 + 1) * (r / 2 + 1) / 16 + 200;
    if (opt[O_ALGO] == 4)   /* dis: hme's search, then about 50 steps of a patch's pixel per pixel */
        return (r / 2 + 1) * (r / 2 + 1) / 16 + 300;
    return (2 * r + 1) * (2 * r + 1) * (opt[O_BLOCK] ? 1 : 2);
}

/* keep the search of one frame within the budget: narrower, then lower
 * frames (sizes over the limit only need to reach the filter, not to be
 * searched); the search covers whole CTUs, so a 4000x1 frame costs as much
 * as 4000x32 */
static void bound_size(const Fuzz *f, int *w, int *h)
{
    const int ctu = f->opt[O_CTU];
    const double per_ctu = (double)ctu * ctu * cost_per_pixel(f->opt) * ((f->opt[O_DIR] == 3) + 1);
    const int max_ctus = FFMAX(1, (int)(FRAME_BUDGET / per_ctu));
    int cols = (*w + ctu - 1) / ctu;

    if (*w > MAX_DIM) {
        *w = MAX_DIM + 1;
        *h = FFMIN(*h, 16);
        return;
    }
    if (*h > MAX_DIM) {
        *h = MAX_DIM + 1;
        *w = FFMIN(*w, 16);
        return;
    }
    if (cols > max_ctus) {
        *w   = max_ctus * ctu;
        cols = max_ctus;
    }
    if (cols * ((*h + ctu - 1) / ctu) > max_ctus)
        *h = max_ctus / cols * ctu;
}

static double frame_cost(const Fuzz *f, int w, int h)
{
    const int ctu = f->opt[O_CTU];
    return (double)((w + ctu - 1) / ctu) * ((h + ctu - 1) / ctu) * ctu * ctu *
           cost_per_pixel(f->opt) * ((f->opt[O_DIR] == 3) + 1);
}

/*
 * An output frame of mcfps: the next tick, of the size and format of a
 * frame sent, lasting one tick, and nothing that belongs to another frame
 * (docs/mcfps.texi): no vectors, no lavfi.gpume.* keys, no picture type.
 */
static void check_mcfps_frame(Fuzz *f, const AVFrame *out, int k)
{
    const AVDictionaryEntry *e = NULL;
    int sent = 0;

    if (k > 0 && out->pts != f->mcfps_pts + 1 && !f->after_error)
        FAIL("mcfps frame %d: tick %" PRId64 " after %" PRId64, k, out->pts, f->mcfps_pts);
    f->mcfps_pts = out->pts;
    if (out->duration != 1)
        FAIL("mcfps frame %d: duration %" PRId64, k, out->duration);
    for (int i = 0; i < f->nb_sent && !sent; i++)
        sent = out->width == f->sent[i].w && out->height == f->sent[i].h && out->format == f->sent[i].fmt;
    if (!sent)
        FAIL("mcfps frame %d: %dx%d %s, no frame of it sent", k, out->width, out->height,
             av_get_pix_fmt_name(out->format));
    if (av_frame_get_side_data(out, AV_FRAME_DATA_MOTION_VECTORS) || out->pict_type != AV_PICTURE_TYPE_NONE)
        FAIL("mcfps frame %d: vectors or picture type %d of another frame", k, out->pict_type);
    while ((e = av_dict_iterate(out->metadata, e)))
        if (av_strstart(e->key, "lavfi.gpume.", NULL))
            FAIL("mcfps frame %d: key %s of another frame", k, e->key);
}

static void check_frame(Fuzz *f, const AVFrame *out)
{
    const int k = f->nb_out++;
    const Sent *s, *next;
    const AVFrameSideData *sd;
    const AVMotionVector *mv;
    const AVDictionaryEntry *e = NULL;
    const int dir = f->opt[O_DIR], subpel = f->opt[O_SUBPEL];
    const int range = search_range(f->opt, out->width, out->height);
    /* dis's vectors reach 1024 pixels (GPUME_DIS_MAX_MV) whatever the
     * range of its hme start */
    const int bound = f->opt[O_ALGO] == 4 ? 1024 : range;
    /* quarter pels the sub-pel steps may add to an integer vector within
     * range (docs/ALGORITHMS.md): 2 + 1 for full and hme's half- and
     * quarter-pel stages; lfs's step 4 moves its 8x8 template {-4..3} at
     * stride 2 (subpel=1) or 1 (subpel=2); dis clips its vectors to 1024 */
    const int slack = !subpel || f->opt[O_ALGO] == 4 ? 0 :
                      f->opt[O_ALGO] == 2 ? 4 * (subpel == 1 ? 2 : 1) : subpel == 1 ? 2 : 3;
    int first, want[2], have[2] = { 0, 0 }, nb, meta_dir;
    size_t area;

    if (f->mcfps) {
        check_mcfps_frame(f, out, k);
        return;
    }
    if (k >= f->nb_sent)
        FAIL("frame %d out, %d sent", k + 1, f->nb_sent);
    s    = &f->sent[k];
    next = k + 1 < f->nb_sent && f->sent[k + 1].seg == s->seg ? &f->sent[k + 1] : NULL;
    if (out->width != s->w || out->height != s->h || out->format != s->fmt)
        FAIL("frame %d: %dx%d %s out, %dx%d %s sent", k, out->width, out->height,
             av_get_pix_fmt_name(out->format), s->w, s->h, av_get_pix_fmt_name(s->fmt));
    if (out->pts != s->pts || out->data[0] != s->data0)
        FAIL("frame %d: pts %" PRId64 " (sent %" PRId64 ") or pixels not passed through",
             k, out->pts, s->pts);

    first   = k == 0 || f->sent[k - 1].seg != s->seg;
    want[0] = (dir & 1) && !first;
    want[1] = (dir & 2) && next;
    sd = av_frame_get_side_data(out, AV_FRAME_DATA_MOTION_VECTORS);
    nb = sd ? sd->size / sizeof(*mv) : 0;
    mv = sd ? (const AVMotionVector *)sd->data : NULL;
    if (sd && sd->size % sizeof(*mv))
        FAIL("frame %d: side data of %zu bytes", k, (size_t)sd->size);

    area = (size_t)s->w * s->h;
    if (area > f->cover_size) {
        av_free(f->cover);
        f->cover_size = 0;
        if (!(f->cover = av_malloc(area)))
            FAIL("out of memory");
        f->cover_size = area;
    }
    for (int d = 0; d < 2; d++) {
        const int source = d ? 1 : -1;
        size_t covered = 0;
        memset(f->cover, 0, area);
        for (int i = 0; i < nb; i++) {
            const AVMotionVector *m = &mv[i];
            int x0, y0, qx, qy;
            if (m->source != -1 && m->source != 1)
                FAIL("frame %d: source %d", k, m->source);
            if (m->source != source)
                continue;
            have[d]++;
            x0 = m->dst_x - m->w / 2;
            y0 = m->dst_y - m->h / 2;
            if (!m->w || !m->h || x0 < 0 || y0 < 0 || x0 + m->w > s->w || y0 + m->h > s->h)
                FAIL("frame %d: block %dx%d at (%d,%d) outside %dx%d", k, m->w, m->h, x0, y0, s->w, s->h);
            if (m->motion_scale != 1 << subpel)
                FAIL("frame %d: motion_scale %d with subpel=%d", k, m->motion_scale, subpel);
            qx = m->motion_x * (4 >> subpel);
            qy = m->motion_y * (4 >> subpel);
            if (FFABS(qx) > 4 * bound + slack || FFABS(qy) > 4 * bound + slack)
                FAIL("frame %d: vector (%d,%d)/%d beyond range %d", k, m->motion_x, m->motion_y,
                     m->motion_scale, range);
            if (m->src_x != m->dst_x + ((qx + 2) >> 2) || m->src_y != m->dst_y + ((qy + 2) >> 2))
                FAIL("frame %d: src (%d,%d) != dst (%d,%d) + (%d,%d)/%d rounded", k, m->src_x,
                     m->src_y, m->dst_x, m->dst_y, m->motion_x, m->motion_y, m->motion_scale);
            if (m->flags)
                FAIL("frame %d: flags %" PRIx64, k, m->flags);
            for (int y = y0; y < y0 + m->h; y++)
                for (int x = x0; x < x0 + m->w; x++) {
                    if (f->cover[(size_t)y * s->w + x]++)
                        FAIL("frame %d: pixel (%d,%d) in two blocks of source %d", k, x, y, source);
                    covered++;
                }
        }
        if (!have[d] != !want[d])
            FAIL("frame %d of %d (restart segment %d, dir=%d): %d vectors of source %d, %s expected",
                 k, f->nb_sent, s->seg, dir, have[d], source, want[d] ? "some" : "none");
        if (have[d] && covered != area)
            FAIL("frame %d: blocks of source %d cover %zu of %zu pixels", k, source, covered, area);
    }
    if (out->pict_type != (have[1] ? AV_PICTURE_TYPE_B : have[0] ? AV_PICTURE_TYPE_P : AV_PICTURE_TYPE_I))
        FAIL("frame %d: pict_type %c with %d/%d vectors", k,
             av_get_picture_type_char(out->pict_type), have[0], have[1]);
    meta_dir = dir == 2;
    /* a restart after frames marks the first frame of the new segment */
    e = av_dict_get(out->metadata, "lavfi.gpume.restart", NULL, 0);
    if (!e != !(first && k > 0) || (e && strcmp(e->value, "1")))
        FAIL("frame %d (restart segment %d, %s): lavfi.gpume.restart %s", k, s->seg,
             first ? "its first" : "not its first", e ? e->value : "missing");
    e = NULL;
    while ((e = av_dict_get(out->metadata, "lavfi.gpume.", e, AV_DICT_IGNORE_SUFFIX))) {
        double v = strtod(e->value, NULL);
        if (!strcmp(e->key, "lavfi.gpume.restart"))
            continue;
        if (!have[meta_dir])
            FAIL("frame %d: %s without vectors of its direction", k, e->key);
        if (!strcmp(e->key, "lavfi.gpume.mean_sad") ? !(v >= 0 && v <= 255) :
            !strcmp(e->key, "lavfi.gpume.scene_score") ? !(v >= 0 && v <= 1) : 1)
            FAIL("frame %d: %s=%s", k, e->key, e->value);
    }
    if (have[meta_dir] && (!av_dict_get(out->metadata, "lavfi.gpume.mean_sad", NULL, 0) ||
                           !av_dict_get(out->metadata, "lavfi.gpume.scene_score", NULL, 0)))
        FAIL("frame %d: vectors but no lavfi.gpume.mean_sad/scene_score", k);
}

/* take every frame the sink has; returns its error other than EAGAIN/EOF */
static int drain(Fuzz *f, AVFilterContext *sink, AVFrame *out)
{
    int ret;
    while ((ret = av_buffersink_get_frame(sink, out)) >= 0) {
        check_frame(f, out);
        digest_frame(out);
        av_frame_unref(out);
    }
    return ret == AVERROR(EAGAIN) || ret == AVERROR_EOF ? 0 : ret;
}

static void fill(AVFrame *frame, const AVFrame *prev, Reader *r, unsigned mode, uint32_t *seed)
{
    fill_buffers(frame, r, mode, seed);
    /* luma of the previous frame moved by (dx, dy): motion to find */
    if (mode == 1 && can_shift_luma(frame, prev)) {
        const int dx = (int8_t)rd8(r) % 70;
        const int dy = (int8_t)rd8(r) % 70;
        shift_luma(frame, prev, dx, dy);
    }
}

/* one OpenCL device for the whole process (PoCL here): NULL without one */
static AVBufferRef *opencl_device(void)
{
    static AVBufferRef *dev;
    static int tried;
    if (!tried && !getenv("GPUME_FUZZ_NO_OPENCL"))
        av_hwdevice_ctx_create(&dev, AV_HWDEVICE_TYPE_OPENCL, NULL, NULL, 0);
    tried = 1;
    return dev;
}

/* a frames context of w x h OpenCL frames of software format sw, or NULL
 * where the device cannot make one */
static AVBufferRef *opencl_frames(int w, int h, enum AVPixelFormat sw)
{
    AVBufferRef *ref = av_hwframe_ctx_alloc(opencl_device());
    AVHWFramesContext *fc;
    if (!ref)
        return NULL;
    fc = (AVHWFramesContext *)ref->data;
    fc->format    = AV_PIX_FMT_OPENCL;
    fc->sw_format = sw;
    fc->width     = w;
    fc->height    = h;
    if (av_hwframe_ctx_init(ref) < 0)
        av_buffer_unref(&ref);
    return ref;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Reader r = { data, data + size };
    Fuzz *f = av_mallocz(sizeof(*f));
    AVFilterGraph *graph = avfilter_graph_alloc();
    AVFilterContext *src = NULL, *sink = NULL, *last;
    AVFrame *frame = NULL, *prev = NULL, *out = av_frame_alloc();
    char args[512], opts[512] = "";
    unsigned flags, devsel;
    AVBufferRef *frames = NULL;     /* hw: OpenCL frames of the current segment */
    int hw;
    int w, h, ret, seg = 0, valid = 1;
    enum AVPixelFormat fmt;
    int64_t pts = 0;
    uint32_t seed = 1;
    double spent = 0;

    if (!f || !graph || !out)
        FAIL("out of memory");
    av_log_set_level(getenv("GPUME_FUZZ_VERBOSE") ? AV_LOG_VERBOSE : AV_LOG_PANIC);

    flags  = rd8(&r);
    devsel = flags >> 2;
    graph->nb_threads = 1 + (flags & 1);
    /* no scale filter between buffer and gpume: its formats reach it */
    avfilter_graph_set_auto_convert(graph, AVFILTER_AUTO_CONVERT_NONE);
    f->mcfps = (flags & 2) && avfilter_get_by_name("mcfps");
    /* 61: OpenCL frames, uploaded by the target, each segment (and command
     * 4) in a frames context of its own; the filter follows them on auto */
    hw = devsel == 61 && opencl_device();
    av_strlcatf(opts, sizeof(opts), "device=%s",
                devsel == 63 && !getenv("GPUME_FUZZ_NO_OPENCL") ? "opencl" :
                (devsel == 62 && !getenv("GPUME_FUZZ_NO_OPENCL")) || hw ? "auto" : fuzz_cpu_device());
    for (int i = 0; i < NB_OPTS; i++) {
        const Opt *o = &OPTS[i];
        unsigned b = rd8(&r);
        f->opt[i] = o->def;
        /* a GPU of the replay's choice (GPUME_FUZZ_DEVICE): its first */
        if (!b || (i == O_GPU && getenv("GPUME_FUZZ_DEVICE")))
            continue;
        if (b >= 0xf0) {
            av_strlcatf(opts, sizeof(opts), ":%s=%s", o->name, o->bad[(b - 0xf0) % o->nb_bad]);
            valid = 0;
            continue;
        }
        f->opt[i] = o->nb_vals ? o->vals[(b - 1) % o->nb_vals] : o->min + (int)((b - 1) % (o->max - o->min + 1));
        /* algo=vme needs Intel's engine: on the replay's GPU, the default */
        if (i == O_ALGO && f->opt[i] == 3 && getenv("GPUME_FUZZ_DEVICE")) {
            f->opt[i] = o->def;
            continue;
        }
        av_strlcatf(opts, sizeof(opts), ":%s=%d", o->name, f->opt[i]);
    }
    size_of(&r, &w, &h);
    fmt = FORMATS[rd8(&r) % NB_FORMATS];
    if (valid)
        bound_size(f, &w, &h);

    if (hw && !(frames = opencl_frames(w, h, fmt)))
        goto end;   /* not a format or size the device has */
    snprintf(args, sizeof(args), "video_size=%dx%d:pix_fmt=%d:time_base=1/25:pixel_aspect=1/1",
             w, h, hw ? AV_PIX_FMT_OPENCL : fmt);
    if (avfilter_graph_create_filter(&src, avfilter_get_by_name("buffer"), "in", args, NULL, graph) < 0 ||
        avfilter_graph_create_filter(&sink, avfilter_get_by_name("buffersink"), "out", NULL, NULL, graph) < 0)
        FAIL("cannot create buffer/buffersink");
    if (hw) {
        AVBufferSrcParameters *par = av_buffersrc_parameters_alloc();
        if (!par)
            FAIL("out of memory");
        par->hw_frames_ctx = frames;
        ret = av_buffersrc_parameters_set(src, par);
        av_free(par);
        if (ret < 0)
            FAIL("buffer: hw_frames_ctx: %s", av_err2str(ret));
    }
    /* options the filter refuses end the run here; that is their check */
    if (avfilter_graph_create_filter(&last, avfilter_get_by_name("gpume"), "gpume", opts, NULL, graph) < 0 ||
        avfilter_link(src, 0, last, 0) < 0)
        goto end;
    if (f->mcfps) {
        AVFilterContext *m;
        snprintf(args, sizeof(args), "device=%s", getenv("GPUME_FUZZ_DEVICE") ? fuzz_cpu_device() : "auto");
        if (avfilter_graph_create_filter(&m, avfilter_get_by_name("mcfps"), "mcfps", args, NULL, graph) < 0 ||
            avfilter_link(last, 0, m, 0) < 0)
            goto end;
        last = m;
    }
    if (avfilter_link(last, 0, sink, 0) < 0)
        FAIL("cannot link the sink");
    ret = avfilter_graph_config(graph, NULL);
    if (ret < 0) {
        digest_error(ret);
        /* only what the filter may refuse at configuration */
        if (!f->mcfps && valid && supported(fmt) && w <= MAX_DIM && h <= MAX_DIM && strstr(opts, "device=cpu") &&
            f->opt[O_ALGO] != 3 && f->opt[O_BLOCK] <= f->opt[O_CTU] &&
            !((f->opt[O_ALGO] == 2 || f->opt[O_ALGO] == 4) && !f->opt[O_BLOCK]))
            FAIL("valid options %s on %dx%d %s refused: %s", opts, w, h,
                 av_get_pix_fmt_name(fmt), av_err2str(ret));
        goto end;
    }
    if (!valid || !supported(fmt) || w > MAX_DIM || h > MAX_DIM)
        FAIL("%s on %dx%d %s accepted", opts, w, h, av_get_pix_fmt_name(fmt));

    while (f->nb_sent < MAX_FRAMES) {
        const unsigned c = r.p < r.end ? rd8(&r) : 7;
        const unsigned op = c & 7, tsmode = (c >> 3) & 3, content = (c >> 5) & 3;
        const int pw = w, ph = h;
        const enum AVPixelFormat pfmt = fmt;
        int refuse;
        Sent *s;

        if (op == 7 || (f->nb_sent >= 3 && spent > INPUT_BUDGET))
            break;
        if (op == 5) {
            size_of(&r, &w, &h);
            bound_size(f, &w, &h);
        } else if (op == 6) {
            fmt = FORMATS[rd8(&r) % NB_FORMATS];
        }
        /* the first frame too: OpenCL frames take their size and format
         * from their frames context */
        if (w != pw || h != ph || fmt != pfmt || (hw && op == 4)) {
            seg++;
            if (hw) {
                av_buffer_unref(&frames);
                if (!(frames = opencl_frames(w, h, fmt)))
                    break;
            }
        }
        refuse = !supported(fmt) || w > MAX_DIM || h > MAX_DIM;
        if (!refuse)
            spent += frame_cost(f, w, h);

        /* mcfps fills timestamp gaps with frames: keep its output finite
         * (it drops frames without timestamp or going back); unsigned
         * steps, as the stream may wrap past INT64_MAX */
        if (tsmode == 0 || (tsmode == 1 && f->mcfps))
            pts = (int64_t)((uint64_t)pts + 1);
        else if (tsmode == 1)
            for (int i = 0; i < 8; i++)
                pts = (int64_t)((uint64_t)pts << 8 | rd8(&r));
        else if (tsmode == 2)
            pts = AV_NOPTS_VALUE;
        else
            pts = pts == AV_NOPTS_VALUE ? 0 : (int64_t)((uint64_t)pts - 1);

        frame = av_frame_alloc();
        if (!frame)
            FAIL("out of memory");
        frame->width  = w;
        frame->height = h;
        frame->format = fmt;
        frame->pts    = pts;
        if (av_frame_get_buffer(frame, 0) < 0)
            FAIL("cannot allocate a %dx%d %s frame", w, h, av_get_pix_fmt_name(fmt));
        fill(frame, prev, &r, content, &seed);
        av_frame_free(&prev);
        if (!(prev = av_frame_clone(frame)))
            FAIL("out of memory");

        if (hw) {
            AVFrame *up = av_frame_alloc();
            if (!up || av_hwframe_get_buffer(frames, up, 0) < 0 ||
                av_hwframe_transfer_data(up, frame, 0) < 0) {
                av_frame_free(&up);
                av_frame_free(&frame);
                break;      /* the device's trouble, not the filter's */
            }
            up->pts = pts;
            av_frame_free(&frame);
            frame = up;
        }
        s = &f->sent[f->nb_sent++];
        *s = (Sent){ w, h, seg, frame->format, pts, frame->data[0] };
        ret = av_buffersrc_add_frame_flags(src, frame, AV_BUFFERSRC_FLAG_PUSH);
        av_frame_free(&frame);
        /* mcfps may refuse what gpume accepts (no vectors between two frames) */
        if (ret < 0 && !refuse && !f->mcfps)
            FAIL("frame %d (%dx%d %s after %dx%d %s) refused: %s", f->nb_sent - 1, w, h,
                 av_get_pix_fmt_name(fmt), pw, ph, av_get_pix_fmt_name(pfmt), av_err2str(ret));
        if (ret >= 0 && refuse && !f->mcfps)
            FAIL("frame %d (%dx%d %s after %dx%d %s) accepted", f->nb_sent - 1, w, h,
                 av_get_pix_fmt_name(fmt), pw, ph, av_get_pix_fmt_name(pfmt));
        /* after an error the input is closed: what came before it all
         * comes out (a refused frame is not part of the stream) */
        if (ret < 0) {
            digest_error(ret);
            if (refuse)
                f->nb_sent--;
            else
                f->after_error = 1;
            break;
        }
        if ((ret = drain(f, sink, out)) < 0) {
            digest_error(ret);
            if (!f->mcfps)
                FAIL("buffersink: %s", av_err2str(ret));
            f->after_error = 1;
            break;
        }
    }
    ret = av_buffersrc_close(src, pts == AV_NOPTS_VALUE ? 0 : pts, AV_BUFFERSRC_FLAG_PUSH);
    if (ret < 0)
        digest_error(ret);
    if (ret < 0 && !f->mcfps)
        FAIL("closing the input: %s", av_err2str(ret));
    if ((ret = drain(f, sink, out)) < 0)
        digest_error(ret);
    if (ret < 0 && !f->mcfps)
        FAIL("buffersink at the end: %s", av_err2str(ret));
    if (!f->mcfps && f->nb_out != f->nb_sent)
        FAIL("%d frames sent, %d out", f->nb_sent, f->nb_out);

end:
    av_buffer_unref(&frames);
    av_frame_free(&prev);
    av_frame_free(&out);
    avfilter_graph_free(&graph);
    av_free(f->cover);
    av_free(f);
    return 0;
}
