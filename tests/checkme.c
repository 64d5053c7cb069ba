/*
 * gpume tests: the CPU backend against the naive implementation of
 * docs/ALGORITHMS.md (tests/naive_me.c), in the style of dav1d's checkasm:
 * random and worst-case frames, every case named by all its parameters,
 * guarded output buffers, a diff map on mismatch. Also: sub-pel samples,
 * PU geometry, partition decision, known synthetic motions, thread splits,
 * parameter validation.
 *
 * Usage: checkme [--seed=N] [--filter=SUBSTRING] [--quick] [--verbose]
 * The last line of the output is "N passed, N failed"; exit status 1 on any failure.
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
#include <stddef.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libavutil/cpu.h"
#include "libavutil/error.h"
#include "libavutil/frame.h"
#include "libavutil/macros.h"
#include "libavutil/mem.h"
#include "libavutil/pixfmt.h"
#include "libavfilter/gpume_backend.h"
#include "libavfilter/gpume_dsp.h"
#include "naive_me.h"

#define DEFAULT_SEED 0x67706d65u    /* "gpme" */
#define GUARD        16             /* extra output entries after the last CTU */
#define MARKER       0xa5           /* byte pattern of unwritten output */

static struct {
    uint64_t seed;
    const char *filter;
    int verbose, quick;
    int passed, failed, skipped;
    /* current case: its name is printed before its first failure detail */
    char name[512];
    int name_shown;
    /* current group */
    const char *group;
    int g_passed, g_failed;
    double g_start;
} st;

/* ------------------------------------------------------------ utilities */

typedef struct Rng {
    uint64_t s;
} Rng;

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static Rng rng_init(uint64_t seed)
{
    Rng r = { seed };
    return r;
}

/** Uniform in [0, n). */
static int rnd(Rng *r, int n)
{
    return (int)(splitmix64(&r->s) % (uint64_t)n);
}

/** Uniform in [lo, hi]. */
static int rnd_in(Rng *r, int lo, int hi)
{
    return lo + rnd(r, hi - lo + 1);
}

static double now(void)
{
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/** Seed of the n-th case of a group: depends on the global seed only. */
static uint32_t case_seed(const char *group, int n)
{
    uint64_t s = st.seed * 0x100000001b3ull;
    for (const char *c = group; *c; c++)
        s = (s ^ (uint8_t)*c) * 0x100000001b3ull;
    s ^= (uint64_t)n << 20;
    return (uint32_t)splitmix64(&s);
}

/** Is the case selected by --filter? If so, it becomes the current case. */
static int selected(const char *name)
{
    if (st.filter && !strstr(name, st.filter))
        return 0;
    snprintf(st.name, sizeof(st.name), "%s", name);
    st.name_shown = 0;
    return 1;
}

static void group_begin(const char *group)
{
    st.group    = group;
    st.g_passed = st.g_failed = 0;
    st.g_start  = now();
}

static void group_end(void)
{
    if (st.g_passed + st.g_failed)
        printf("%-14s %5d passed, %d failed (%.1f s)\n", st.group, st.g_passed, st.g_failed,
               now() - st.g_start);
    fflush(stdout);
}

/** Skip the cases of a SIMD function that this CPU lacks: C against C cannot fail. */
static int no_simd(const char *fn, int same)
{
    if (same) {
        st.skipped++;
        printf("skipped: dsp %s: no SIMD version on this CPU\n", fn);
    }
    return same;
}

/** Record the outcome of one case. */
static void report(const char *name, int ok)
{
    if (ok) {
        st.passed++;
        st.g_passed++;
        if (st.verbose)
            printf("  ok   %s\n", name);
    } else {
        st.failed++;
        st.g_failed++;
        if (!st.name_shown || strcmp(name, st.name))
            printf("  FAIL %s\n", name);
    }
    fflush(stdout);
}

/** A failure detail, printed for the first few failures only. */
static void detail(const char *fmt, ...)
{
    va_list ap;
    if (st.failed > 40 && !st.verbose)
        return;
    if (!st.name_shown) {
        printf("  FAIL %s\n", st.name);
        st.name_shown = 1;
    }
    va_start(ap, fmt);
    printf("       ");
    vprintf(fmt, ap);
    va_end(ap);
}

static const char *algo_name(int a)
{
    return a == GPUME_ALGO_FULL ? "full" : a == GPUME_ALGO_HME ? "hme" :
           a == GPUME_ALGO_LFS ? "lfs" : a == GPUME_ALGO_DIS ? "dis" : "?";
}

/* --------------------------------------------------------------- frames */

enum Content {
    CONTENT_RANDOM,     ///< two independent random frames
    CONTENT_SHIFT,      ///< cur = ref shifted by a random vector, plus noise
    CONTENT_LOWBITS,    ///< independent samples in 0..2: ties everywhere
    CONTENT_OBJECT,     ///< a bright object near the frame edges, moved
    CONTENT_WHITE_BLACK,///< cur all 255, ref all 0
    CONTENT_FLAT,       ///< both frames one constant
    CONTENT_NB,
};

static const char *const content_names[] = {
    "random", "shift", "lowbits", "object", "white-black", "flat",
};

/** Luma content of a pair of frames, w x h, tightly packed. */
static void make_content(Rng *r, int content, int w, int h, int range, uint8_t *cur, uint8_t *ref)
{
    const int n = w * h;
    switch (content) {
    case CONTENT_RANDOM:
        for (int i = 0; i < n; i++) {
            cur[i] = rnd(r, 256);
            ref[i] = rnd(r, 256);
        }
        break;
    case CONTENT_SHIFT: {
        /* smooth-ish reference: random values, box-blurred horizontally */
        const int sx = rnd_in(r, -range, range), sy = rnd_in(r, -range, range);
        const int noise = rnd_in(r, 0, 12);
        for (int i = 0; i < n; i++)
            ref[i] = rnd(r, 256);
        for (int y = 0; y < h; y++)
            for (int x = w - 1; x > 0; x--)
                ref[y * w + x] = (ref[y * w + x] + ref[y * w + x - 1] + 1) >> 1;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int xs = av_clip(x + sx, 0, w - 1), ys = av_clip(y + sy, 0, h - 1);
                cur[y * w + x] = av_clip_uint8(ref[ys * w + xs] + rnd_in(r, -noise, noise));
            }
        break;
    }
    case CONTENT_LOWBITS:
        for (int i = 0; i < n; i++) {
            cur[i] = rnd(r, 3);
            ref[i] = rnd(r, 3);
        }
        break;
    case CONTENT_OBJECT: {
        const int ow = rnd_in(r, 1, 12), oh = rnd_in(r, 1, 12);
        const int sx = rnd_in(r, -range, range), sy = rnd_in(r, -range, range);
        /* near a random corner or edge, possibly partly outside */
        const int ox = rnd(r, 2) ? rnd_in(r, -ow / 2, 2) : w - ow + rnd_in(r, -2, ow / 2);
        const int oy = rnd(r, 2) ? rnd_in(r, -oh / 2, 2) : h - oh + rnd_in(r, -2, oh / 2);
        memset(cur, 16, n);
        memset(ref, 16, n);
        for (int y = 0; y < oh; y++)
            for (int x = 0; x < ow; x++) {
                const int v = 235 + rnd(r, 21);
                if (ox + x >= 0 && ox + x < w && oy + y >= 0 && oy + y < h)
                    ref[(oy + y) * w + ox + x] = v;
                if (ox + x - sx >= 0 && ox + x - sx < w && oy + y - sy >= 0 && oy + y - sy < h)
                    cur[(oy + y - sy) * w + ox + x - sx] = v;
            }
        break;
    }
    case CONTENT_WHITE_BLACK:
        memset(cur, 255, n);
        memset(ref, 0, n);
        break;
    case CONTENT_FLAT: {
        const int v = rnd(r, 256);
        memset(cur, v, n);
        memset(ref, v, n);
        break;
    }
    }
}

/**
 * A frame of format fmt holding luma (w x h, packed), with random padding at
 * the end of each line and random bytes in the padding and chroma; flip
 * stores the picture bottom-up (negative linesize).
 */
static AVFrame *make_frame(Rng *r, enum AVPixelFormat fmt, int w, int h, int flip,
                           const uint8_t *luma)
{
    AVFrame *f = av_frame_alloc();
    if (!f)
        return NULL;
    f->format = fmt;
    f->width  = w + rnd_in(r, 0, 70);   /* the padding: linesize follows the allocated width */
    f->height = h;
    if (av_frame_get_buffer(f, 0) < 0) {
        av_frame_free(&f);
        return NULL;
    }
    f->width = w;
    for (int i = 0; i < AV_NUM_DATA_POINTERS && f->buf[i]; i++)
        for (size_t k = 0; k < f->buf[i]->size; k++)
            f->buf[i]->data[k] = rnd(r, 256);
    if (flip) {
        f->data[0]    += (ptrdiff_t)(h - 1) * f->linesize[0];
        f->linesize[0] = -f->linesize[0];
    }
    for (int y = 0; y < h; y++)
        memcpy(f->data[0] + (ptrdiff_t)y * f->linesize[0], luma + (size_t)y * w, w);
    return f;
}

static NaivePlane plane_of(const AVFrame *f)
{
    NaivePlane pl = { f->data[0], f->linesize[0], f->width, f->height };
    return pl;
}

/* -------------------------------------------------------------- outputs */

typedef struct Output {
    GpumeBlock *blocks;     ///< nb_ctus * max_out + GUARD entries
    uint16_t *counts;       ///< nb_ctus + GUARD entries
    int nb_ctus, max_out;
} Output;

static int output_alloc(Output *o, int nb_ctus, int max_out)
{
    o->nb_ctus = nb_ctus;
    o->max_out = max_out;
    o->blocks  = av_malloc(((size_t)nb_ctus * max_out + GUARD) * sizeof(*o->blocks));
    o->counts  = av_malloc(((size_t)nb_ctus + GUARD) * sizeof(*o->counts));
    if (!o->blocks || !o->counts)
        return AVERROR(ENOMEM);
    memset(o->blocks, MARKER, ((size_t)nb_ctus * max_out + GUARD) * sizeof(*o->blocks));
    memset(o->counts, MARKER, ((size_t)nb_ctus + GUARD) * sizeof(*o->counts));
    return 0;
}

static void output_free(Output *o)
{
    av_freep(&o->blocks);
    av_freep(&o->counts);
}

static int is_marker(const void *p, size_t size)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < size; i++)
        if (b[i] != MARKER)
            return 0;
    return 1;
}

/**
 * The backend wrote nothing outside [c * max_out, c * max_out + counts[c])
 * and no count past nb_ctus; every count is at most max_out. Returns 1 when clean.
 */
static int check_guards(const Output *o)
{
    int ok = 1;
    for (int c = 0; c < o->nb_ctus; c++) {
        if (o->counts[c] > o->max_out) {
            detail("ctu %d: count %d > max_out %d\n", c, o->counts[c], o->max_out);
            return 0;
        }
        for (int i = o->counts[c]; i < o->max_out; i++)
            if (!is_marker(&o->blocks[(size_t)c * o->max_out + i], sizeof(GpumeBlock))) {
                detail("ctu %d: block %d written beyond count %d\n", c, i, o->counts[c]);
                ok = 0;
                break;
            }
    }
    if (!is_marker(o->blocks + (size_t)o->nb_ctus * o->max_out, GUARD * sizeof(GpumeBlock))) {
        detail("blocks written past the last CTU\n");
        ok = 0;
    }
    if (!is_marker(o->counts + o->nb_ctus, GUARD * sizeof(uint16_t))) {
        detail("counts written past the last CTU\n");
        ok = 0;
    }
    return ok;
}

static int block_equal(const GpumeBlock *a, const GpumeBlock *b)
{
    return a->x == b->x && a->y == b->y && a->w == b->w && a->h == b->h &&
           a->mvx == b->mvx && a->mvy == b->mvy && a->sad == b->sad;
}

static void print_block(const char *label, const GpumeBlock *b)
{
    detail("  %-8s x=%d y=%d w=%d h=%d mv=(%d,%d) sad=%" PRIu32 "\n", label,
           b->x, b->y, b->w, b->h, b->mvx, b->mvy, b->sad);
}

/**
 * Compare got (the backend) with exp (the reference), CTU by CTU; on a
 * difference print the first differing blocks and a map of the CTUs:
 * '.' equal, 'n' count differs, 'g' position/size, 'v' vector, 's' SAD only.
 */
static int compare_outputs(const Output *got, const Output *exp, int cols, int rows)
{
    int ok = 1, shown = 0;
    char map[64 * 64];

    for (int c = 0; c < cols * rows; c++) {
        const GpumeBlock *g = got->blocks + (size_t)c * got->max_out;
        const GpumeBlock *e = exp->blocks + (size_t)c * exp->max_out;
        char m = '.';
        if (got->counts[c] != exp->counts[c]) {
            m = 'n';
            if (shown++ < 4)
                detail("ctu %d (%d,%d): %d blocks, expected %d\n", c, c % cols, c / cols,
                       got->counts[c], exp->counts[c]);
        }
        for (int i = 0; i < FFMIN(got->counts[c], exp->counts[c]); i++) {
            if (block_equal(&g[i], &e[i]))
                continue;
            if (m == '.')
                m = g[i].x != e[i].x || g[i].y != e[i].y || g[i].w != e[i].w || g[i].h != e[i].h ? 'g' :
                    g[i].mvx != e[i].mvx || g[i].mvy != e[i].mvy ? 'v' : 's';
            if (shown++ < 4) {
                detail("ctu %d (%d,%d) block %d:\n", c, c % cols, c / cols, i);
                print_block("got", &g[i]);
                print_block("expected", &e[i]);
            }
        }
        if (m != '.')
            ok = 0;
        if (c / cols < 64 && c % cols < 64)
            map[(c / cols) * 64 + c % cols] = m;
    }
    if (!ok) {
        detail("CTU map (%dx%d):\n", cols, rows);
        for (int y = 0; y < FFMIN(rows, 32); y++) {
            char line[65];
            for (int x = 0; x < FFMIN(cols, 64); x++)
                line[x] = map[y * 64 + x];
            line[FFMIN(cols, 64)] = 0;
            detail("  %s\n", line);
        }
    }
    return ok;
}

/** Side data of every exported block (§9): motion exact, src = dst + motion / scale for integer vectors. */
static int check_side_data(const Output *o, int subpel)
{
    const int step = 4 >> subpel;
    for (int c = 0; c < o->nb_ctus; c++)
        for (int i = 0; i < o->counts[c]; i++) {
            const GpumeBlock *b = &o->blocks[(size_t)c * o->max_out + i];
            AVMotionVector mv;
            naive_side_data(b, subpel, -1, &mv);
            if (mv.motion_x * step != b->mvx || mv.motion_y * step != b->mvy) {
                detail("ctu %d block %d: mv (%d,%d) is not a multiple of %d quarter pels\n",
                       c, i, b->mvx, b->mvy, step);
                return 0;
            }
            if (b->mvx % 4 == 0 && b->mvy % 4 == 0 &&
                (mv.src_x != mv.dst_x + mv.motion_x / mv.motion_scale ||
                 mv.src_y != mv.dst_y + mv.motion_y / mv.motion_scale)) {
                detail("ctu %d block %d: src != dst + motion / scale\n", c, i);
                return 0;
            }
        }
    return 1;
}

/* ------------------------------------------------------ backend harness */

typedef struct ExecStats {
    int calls, jobs;
} ExecStats;

static int exec_serial(void *opaque, int (*job)(void *arg, int jobnr, int nb_jobs),
                       void *arg, int nb_jobs)
{
    ExecStats *s = opaque;
    if (s) {
        s->calls++;
        s->jobs = FFMAX(s->jobs, nb_jobs);
    }
    /* in reverse, so that a job depending on an earlier one shows */
    for (int j = nb_jobs - 1; j >= 0; j--) {
        const int ret = job(arg, j, nb_jobs);
        if (ret < 0)
            return ret;
    }
    return 0;
}

typedef struct ThreadArg {
    int (*job)(void *arg, int jobnr, int nb_jobs);
    void *arg;
    int jobnr, nb_jobs, ret;
} ThreadArg;

static void *thread_main(void *opaque)
{
    ThreadArg *t = opaque;
    t->ret = t->job(t->arg, t->jobnr, t->nb_jobs);
    return NULL;
}

static int exec_pthread(void *opaque, int (*job)(void *arg, int jobnr, int nb_jobs),
                        void *arg, int nb_jobs)
{
    ExecStats *s = opaque;
    pthread_t th[64];
    ThreadArg ta[64];
    int ret = 0;

    if (s) {
        s->calls++;
        s->jobs = FFMAX(s->jobs, nb_jobs);
    }
    /* a thread per job, 64 at a time */
    for (int j0 = 0; j0 < nb_jobs; j0 += 64) {
        const int n = FFMIN(64, nb_jobs - j0);
        for (int j = 0; j < n; j++) {
            ta[j] = (ThreadArg) { job, arg, j0 + j, nb_jobs, 0 };
            if (pthread_create(&th[j], NULL, thread_main, &ta[j])) {
                for (int k = 0; k < j; k++)
                    pthread_join(th[k], NULL);
                return AVERROR(EAGAIN);
            }
        }
        for (int j = 0; j < n; j++) {
            pthread_join(th[j], NULL);
            if (ta[j].ret < 0)
                ret = ta[j].ret;
        }
    }
    return ret;
}

/** How the backend is driven in one run. */
typedef struct Drive {
    GpumeExecuteFn *execute;
    ExecStats *stats;
    int nb_threads;
    int slot_cur, slot_ref;     ///< distinct slots
    const AVFrame *junk;        ///< loaded into the third slot, or NULL
} Drive;

/** init, load, estimate, sync, uninit; writes into out (allocated by the caller). */
static int run_backend(const GpumeParams *p, const Drive *d, const AVFrame *cur,
                       const AVFrame *ref, const int16_t *pred, Output *out)
{
    const GpumeBackend *be = &ff_gpume_backend_cpu;
    const GpumeHost host = {
        .execute = d->execute, .exec_opaque = d->stats, .nb_threads = d->nb_threads,
    };
    GpumeResult res = { out->blocks, out->counts };
    void *priv = av_mallocz(be->priv_size);
    int err;

    if (!priv)
        return AVERROR(ENOMEM);
    err = be->init(priv, &host, p);
    if (err < 0) {
        av_free(priv);
        return err;
    }
    if ((err = be->load(priv, d->slot_ref, ref)) < 0 ||
        (err = be->load(priv, d->slot_cur, cur)) < 0)
        goto end;
    if (d->junk) {
        /* junk in every other slot: the estimate must not read it */
        for (int slot = 0; slot < GPUME_NB_SLOTS; slot++)
            if (slot != d->slot_cur && slot != d->slot_ref &&
                (err = be->load(priv, slot, d->junk)) < 0)
                goto end;
    }
    if ((err = be->estimate(priv, d->slot_cur, d->slot_ref, pred, -1, 0, &res)) < 0)
        goto end;
    err = be->sync(priv);
end:
    be->uninit(priv);
    av_free(priv);
    return err;
}

/* ------------------------------------------------------- random cases */

typedef struct Case {
    GpumeParams p;      ///< options only; derived by ff_gpume_params_derive
    enum AVPixelFormat fmt;
    int content, flip, threads;
    uint32_t seed;
} Case;

static void case_name(const Case *c, char *buf, size_t size)
{
    const GpumeParams *p = &c->p;
    char block[8];
    if (p->block)
        snprintf(block, sizeof(block), "%d", p->block);
    else
        snprintf(block, sizeof(block), "auto");
    snprintf(buf, size,
             "algo=%s size=%dx%d fmt=%s range=%d ctu=%d block=%s subpel=%d lambda=%d "
             "pu_penalty=%d pred=%s lfs_threshold=%d content=%s%s threads=%d seed=%" PRIu32,
             algo_name(p->algo), p->width, p->height, c->fmt == AV_PIX_FMT_GRAY8 ? "gray8" : "yuv420p",
             p->range, p->ctu, block, p->subpel, p->lambda, p->pu_penalty,
             p->pred == GPUME_PRED_TEMPORAL ? "temporal" : "zero", p->lfs_threshold,
             content_names[c->content], c->flip ? " flip" : "", c->threads, c->seed);
}

/** Run one case: backend and naive on the same frames, everything compared. */
static void run_case(const Case *c)
{
    char name[512];
    GpumeParams p = c->p;
    Rng r = rng_init(c->seed);
    uint8_t *lc = NULL, *lr = NULL, *lj = NULL;
    AVFrame *fc = NULL, *fr = NULL, *fj = NULL;
    int16_t *pred = NULL;
    Output got = { 0 }, exp = { 0 };
    int ok = 1, cols, rows, err;
    Drive d;

    case_name(c, name, sizeof(name));
    if (!selected(name))
        return;

    if ((err = ff_gpume_params_derive(&p)) < 0) {
        detail("ff_gpume_params_derive rejected valid options: %s\n", av_err2str(err));
        report(name, 0);
        return;
    }
    naive_ctu_grid(&p, &cols, &rows);
    if (p.ctu_cols != cols || p.ctu_rows != rows || p.nb_ctus != cols * rows ||
        p.max_out != naive_max_out(&p)) {
        detail("derived layout %dx%d CTUs, max_out %d; expected %dx%d, %d\n",
               p.ctu_cols, p.ctu_rows, p.max_out, cols, rows, naive_max_out(&p));
        report(name, 0);
        return;
    }

    lc = malloc((size_t)p.width * p.height);
    lr = malloc((size_t)p.width * p.height);
    lj = malloc((size_t)p.width * p.height);
    pred = calloc(2 * (size_t)p.nb_ctus, sizeof(*pred));
    if (!lc || !lr || !lj || !pred)
        goto oom;
    make_content(&r, c->content, p.width, p.height, p.range, lc, lr);
    for (int i = 0; i < p.width * p.height; i++)
        lj[i] = rnd(&r, 256);
    if (p.pred == GPUME_PRED_TEMPORAL)
        for (int i = 0; i < 2 * p.nb_ctus; i++)
            pred[i] = rnd_in(&r, -4 * p.range, 4 * p.range);
    fc = make_frame(&r, c->fmt, p.width, p.height, c->flip, lc);
    fr = make_frame(&r, c->fmt, p.width, p.height, rnd(&r, 8) == 0, lr);
    fj = make_frame(&r, c->fmt, p.width, p.height, 0, lj);
    if (!fc || !fr || !fj || output_alloc(&got, p.nb_ctus, p.max_out) < 0 ||
        output_alloc(&exp, p.nb_ctus, p.max_out) < 0)
        goto oom;

    d = (Drive) { exec_serial, NULL, c->threads, 0, 0, fj };
    d.slot_cur = rnd(&r, GPUME_NB_SLOTS);
    d.slot_ref = (d.slot_cur + 1 + rnd(&r, GPUME_NB_SLOTS - 1)) % GPUME_NB_SLOTS;
    err = run_backend(&p, &d, fc, fr, pred, &got);
    if (err < 0) {
        detail("backend failed: %s\n", av_err2str(err));
        ok = 0;
    } else {
        const NaivePlane pc = plane_of(fc), pr = plane_of(fr);
        if (naive_me_estimate(&p, &pc, &pr, pred, exp.blocks, exp.counts) < 0) {
            detail("the naive reference rejected the options or ran out of memory\n");
            ok = 0;
        } else {
            ok = check_guards(&got) && compare_outputs(&got, &exp, cols, rows) &&
                 check_side_data(&got, p.subpel);
        }
    }
    report(name, ok);
    goto end;
oom:
    detail("out of memory\n");
    report(name, 0);
end:
    output_free(&got);
    output_free(&exp);
    av_frame_free(&fc);
    av_frame_free(&fr);
    av_frame_free(&fj);
    free(lc);
    free(lr);
    free(lj);
    free(pred);
}

/** PU coverage of a pixel of a CTU, summed over the PUs the naive search visits. */
static int pu_layers(const GpumeParams *p)
{
    int layers = 0;
    if (p->block)
        return 1;
    for (int s = 8; s <= p->ctu; s *= 2)
        layers += s == 8 ? 4 : 7;
    return layers;
}

/** Rough number of pixel operations of the naive code for a case. */
static double naive_work(const GpumeParams *p)
{
    const double pix = (double)p->width * p->height;
    const int seeds = p->block ? (p->ctu / p->block) * (p->ctu / p->block) : GPUME_HME_SEEDS(p->ctu);
    const double cand = p->algo == GPUME_ALGO_FULL ? (2.0 * p->range + 1) * (2.0 * p->range + 1) :
                        p->algo == GPUME_ALGO_HME ? GPUME_HME_CANDIDATES + 9 * GPUME_HME_ROUNDS * seeds +
                                                    gpume_hme_nb_block_vectors(p->ctu, p->block) :
                        3 * 64;
    return cand * pu_layers(p) * pix;
}

static const int sizes[][2] = {
    { 1, 1 }, { 2, 2 }, { 3, 1 }, { 17, 9 }, { 9, 17 }, { 33, 47 }, { 50, 30 }, { 64, 16 },
    { 48, 64 }, { 65, 33 }, { 127, 65 }, { 96, 80 }, { 200, 120 }, { 257, 143 },
};

/**
 * Pick a frame size for c: random, then smaller ones until the naive work
 * fits the budget (1x1 always fits).
 */
static void pick_size(Rng *r, Case *c, double budget)
{
    int i = rnd(r, FF_ARRAY_ELEMS(sizes));
    for (;;) {
        c->p.width  = sizes[i][0];
        c->p.height = sizes[i][1];
        if (naive_work(&c->p) <= budget || i == 0)
            break;
        i = rnd(r, i);
    }
}

static void test_random(void)
{
    static const int ranges[] = { 1, 4, 16 }, lambdas[] = { 0, 2, 7 };
    static const int penalties[] = { 0, 3, 40, 1000 }, thresholds[] = { 0, 24, 300, 5000 };
    const int reps = st.quick ? 3 : 16;
    const double budget = st.quick ? 1.5e7 : 1.5e8;
    int n = 0;

    group_begin("random");
    for (int algo = 0; algo < 3; algo++)
        for (int ctu = 16; ctu <= 64; ctu *= 2)
            for (int block = algo == GPUME_ALGO_LFS ? 8 : 4; block <= ctu; block *= 2)
                for (int subpel = 0; subpel <= 2; subpel++)
                    for (int k = 0; k < reps; k++, n++) {
                        Case c = { 0 };
                        Rng r;
                        c.seed = case_seed("random", n);
                        r = rng_init(c.seed);
                        c.p.algo          = algo;
                        c.p.ctu           = ctu;
                        c.p.block         = block == 4 ? 0 : block;
                        c.p.subpel        = subpel;
                        c.p.range         = ranges[(n + k) % 3];
                        if (rnd(&r, 10) == 0)
                            c.p.range = GPUME_MAX_RANGE;
                        else if (rnd(&r, 8) == 0)   /* not a multiple of 4: hme's level-2 radius rounds up */
                            c.p.range = (int[]) { 2, 3, 5, 7, 9 }[rnd(&r, 5)];
                        c.p.lambda        = lambdas[(n / 3 + k) % 3];
                        c.p.pu_penalty    = penalties[rnd(&r, 4)];
                        c.p.lfs_threshold = algo == GPUME_ALGO_LFS ? thresholds[rnd(&r, 4)] : 0;
                        c.p.pred          = rnd(&r, 2) ? GPUME_PRED_TEMPORAL : GPUME_PRED_ZERO;
                        c.fmt             = rnd(&r, 3) ? AV_PIX_FMT_GRAY8 : AV_PIX_FMT_YUV420P;
                        c.flip            = rnd(&r, 8) == 0;
                        c.threads         = rnd_in(&r, 1, 4);
                        {
                            const int x = rnd(&r, 100);
                            c.content = x < 40 ? CONTENT_SHIFT : x < 65 ? CONTENT_RANDOM :
                                        x < 80 ? CONTENT_LOWBITS : x < 92 ? CONTENT_OBJECT :
                                        x < 96 ? CONTENT_WHITE_BLACK : CONTENT_FLAT;
                        }
                        pick_size(&r, &c, budget);
                        run_case(&c);
                    }
    group_end();
}

/** Worst cases: all-255 against all-0, maximum range, bright objects at the edges. */
static void test_worst(void)
{
    static const int contents[] = { CONTENT_WHITE_BLACK, CONTENT_OBJECT, CONTENT_FLAT, CONTENT_LOWBITS };
    int n = 0;

    group_begin("worst");
    for (int algo = 0; algo < 3; algo++)
        for (int ctu = 16; ctu <= 64; ctu *= 2)
            for (int ci = 0; ci < FF_ARRAY_ELEMS(contents); ci++, n++) {
                Case c = { 0 };
                Rng r;
                if (st.quick && ci >= 2)
                    continue;
                c.seed = case_seed("worst", n);
                r = rng_init(c.seed);
                c.p.algo          = algo;
                c.p.ctu           = ctu;
                c.p.block         = algo == GPUME_ALGO_LFS || rnd(&r, 2) ? ctu >> rnd(&r, 2) : 0;
                c.p.subpel        = rnd(&r, 3);
                c.p.range         = GPUME_MAX_RANGE;
                c.p.lambda        = rnd(&r, 2) ? 0 : 256;
                c.p.pu_penalty    = rnd(&r, 2) ? 0 : GPUME_MAX_PU_PENALTY;
                c.p.lfs_threshold = rnd(&r, 2) ? 0 : 64 * 255;
                c.p.pred          = GPUME_PRED_TEMPORAL;
                c.fmt             = AV_PIX_FMT_GRAY8;
                c.threads         = 2;
                c.content         = contents[ci];
                pick_size(&r, &c, st.quick ? 4e6 : 2e8);
                run_case(&c);
            }
    group_end();
}

/* ------------------------------------------------------------ units */

static void test_qpel(void)
{
    const int n_planes = st.quick ? 8 : 40, n_pos = 2000;
    int n = 0;

    group_begin("qpel");
    for (int i = 0; i < n_planes; i++) {
        char name[128];
        const uint32_t seed = case_seed("qpel", i);
        Rng r = rng_init(seed);
        const int w = rnd_in(&r, 1, 40), h = rnd_in(&r, 1, 40), stride = w + rnd(&r, 9);
        uint8_t *buf = malloc((size_t)stride * h);
        NaivePlane pl = { buf, stride, w, h };
        int ok = 1;

        snprintf(name, sizeof(name), "qpel size=%dx%d stride=%d seed=%" PRIu32, w, h, stride, seed);
        if (!selected(name) || !buf) {
            free(buf);
            continue;
        }
        for (int k = 0; k < stride * h; k++)
            buf[k] = rnd(&r, 2) ? rnd(&r, 256) : 255 * rnd(&r, 2);
        for (int k = 0; k < n_pos && ok; k++, n++) {
            int qx, qy;
            switch (k % 4) {
            case 0: /* inside and around the frame */
                qx = rnd_in(&r, -4 * w - 12, 8 * w + 12);
                qy = rnd_in(&r, -4 * h - 12, 8 * h + 12);
                break;
            case 1: /* far outside, negative too */
                qx = rnd_in(&r, -100000, 100000);
                qy = rnd_in(&r, -100000, 100000);
                break;
            case 2: /* the last quarter-pel positions before and after the edges */
                qx = rnd(&r, 2) ? rnd_in(&r, -5, 3) : 4 * (w - 1) + rnd_in(&r, -3, 5);
                qy = rnd(&r, 2) ? rnd_in(&r, -5, 3) : 4 * (h - 1) + rnd_in(&r, -3, 5);
                break;
            default: /* integer positions equal the sample */
                qx = 4 * rnd_in(&r, -3, w + 2);
                qy = 4 * rnd_in(&r, -3, h + 2);
                break;
            }
            {
                const int got = gpume_sample_qpel(buf, stride, w, h, qx, qy);
                const int exp = naive_sample_qpel(&pl, qx, qy);
                if (got != exp || got < 0 || got > 255 ||
                    (qx % 4 == 0 && qy % 4 == 0 && got != naive_pixel(&pl, qx / 4, qy / 4))) {
                    detail("gpume_sample_qpel(%d, %d) = %d, expected %d\n", qx, qy, got, exp);
                    ok = 0;
                }
            }
        }
        report(name, ok);
        free(buf);
    }
    group_end();
}

/** Every pixel of the CU covered by exactly one part of mode m, and every part inside the CU. */
static int tiles_cu(const NaivePU *cu_pus, int n, int cu_x, int cu_y, int s)
{
    uint8_t cover[64 * 64] = { 0 };
    for (int i = 0; i < n; i++) {
        const NaivePU *q = &cu_pus[i];
        if (q->w <= 0 || q->h <= 0 || q->x < cu_x || q->y < cu_y ||
            q->x + q->w > cu_x + s || q->y + q->h > cu_y + s)
            return 0;
        for (int y = q->y; y < q->y + q->h; y++)
            for (int x = q->x; x < q->x + q->w; x++)
                cover[(y - cu_y) * 64 + x - cu_x]++;
    }
    for (int y = 0; y < s; y++)
        for (int x = 0; x < s; x++)
            if (cover[y * 64 + x] != 1)
                return 0;
    return 1;
}

/** gpume.h geometry helpers against the naive PU table, and the table's own properties. */
static void test_geometry(void)
{
    static NaivePU pus[NAIVE_MAX_PUS];
    static const int documented[3] = { 49, 209, 849 };

    group_begin("geometry");
    for (int ci = 0; ci < 3; ci++) {
        const int ctu = 16 << ci;
        const int nb = naive_pu_table(ctu, pus);
        char name[64];
        int ok = 1, level = 0;

        snprintf(name, sizeof(name), "geometry ctu=%d", ctu);
        if (!selected(name))
            continue;
        if (nb != documented[ci] || gpume_nb_pus(ctu) != nb) {
            detail("PU count: naive %d, gpume_nb_pus %d, ALGORITHMS.md %d\n",
                   nb, gpume_nb_pus(ctu), documented[ci]);
            ok = 0;
        }
        for (int i = 0; i < nb && ok; i++) {
            const GpumePU g = gpume_pu_rect(ctu, i);
            const NaivePU *q = &pus[i];
            if (g.l * 4 != q->x || g.t * 4 != q->y || (g.r - g.l) * 4 != q->w || (g.b - g.t) * 4 != q->h) {
                detail("gpume_pu_rect(%d, %d) = [%d,%d)x[%d,%d) units, expected pixels %d,%d %dx%d\n",
                       ctu, i, g.l, g.r, g.t, g.b, q->x, q->y, q->w, q->h);
                ok = 0;
            }
            if (i == 0 || q->cu != pus[i - 1].cu) {
                if (i && q->cu != 2 * pus[i - 1].cu) {
                    detail("PU %d: CU size %d after %d\n", i, q->cu, pus[i - 1].cu);
                    ok = 0;
                }
                if (gpume_level_base(ctu, level) != i) {
                    detail("gpume_level_base(%d, %d) = %d, expected %d\n",
                           ctu, level, gpume_level_base(ctu, level), i);
                    ok = 0;
                }
                level++;
            }
            if (q->mode == 0 && q->part == 0) {
                int cx = q->cu_x / q->cu, cy = q->cu_y / q->cu, z = 0;
                for (int b = 0; b < 4; b++)
                    z |= ((cx >> b) & 1) << (2 * b) | ((cy >> b) & 1) << (2 * b + 1);
                if (gpume_square_pu(ctu, q->cu, z) != i) {
                    detail("gpume_square_pu(%d, %d, %d) = %d, expected %d\n",
                           ctu, q->cu, z, gpume_square_pu(ctu, q->cu, z), i);
                    ok = 0;
                }
            }
        }
        /* the naive table: each mode's parts tile their CU; CUs of a level in Z order tile the CTU */
        for (int i = 0; i < nb && ok; ) {
            int j = i;
            while (j < nb && pus[j].mode == pus[i].mode && pus[j].cu_x == pus[i].cu_x &&
                   pus[j].cu_y == pus[i].cu_y && pus[j].cu == pus[i].cu)
                j++;
            if (j - i != (pus[i].mode == 0 ? 1 : pus[i].mode == 3 && pus[i].cu == 8 ? 4 : 2) ||
                !tiles_cu(&pus[i], j - i, pus[i].cu_x, pus[i].cu_y, pus[i].cu)) {
                detail("mode %d of CU %d at (%d,%d) does not tile it\n",
                       pus[i].mode, pus[i].cu, pus[i].cu_x, pus[i].cu_y);
                ok = 0;
            }
            i = j;
        }
        for (int s = 8; s <= ctu && ok; s *= 2) {
            NaivePU sq[64];
            int k = 0, prev_z = -1;
            for (int i = 0; i < nb; i++)
                if (pus[i].cu == s && pus[i].mode == 0) {
                    /* Z order: each CU follows its predecessor in Morton order */
                    const int cx = pus[i].cu_x / s, cy = pus[i].cu_y / s;
                    int z = 0;
                    for (int b = 0; b < 4; b++)
                        z |= ((cx >> b) & 1) << (2 * b) | ((cy >> b) & 1) << (2 * b + 1);
                    if (z != prev_z + 1)
                        ok = 0;
                    prev_z = z;
                    sq[k++] = pus[i];
                }
            if (!ok || !tiles_cu(sq, k, 0, 0, ctu)) {
                detail("CUs of size %d are not the Z-ordered tiling of the CTU\n", s);
                ok = 0;
            }
        }
        report(name, ok);
    }
    group_end();
}

/** gpume_choose_partition() against the recursive naive decision. */
static void test_partition(void)
{
    static NaivePU pus[NAIVE_MAX_PUS];
    const int cases = st.quick ? 300 : 3000;

    group_begin("partition");
    for (int n = 0; n < cases; n++) {
        const uint32_t seed = case_seed("partition", n);
        Rng r = rng_init(seed);
        const int ctu = 16 << rnd(&r, 3), spread = (int[]) { 3, 50, 5000, 1 << 20 }[rnd(&r, 4)];
        const int pen = (int[]) { 0, 1, 7, 300, 1 << 16 }[rnd(&r, 5)];
        const int nb = naive_pu_table(ctu, pus);
        uint32_t cost[GPUME_MAX_PUS], tmp_cost[2 * 64];
        uint64_t cost64[NAIVE_MAX_PUS];
        uint8_t tmp_mode[2 * 64];
        uint16_t got[GPUME_MAX_OUT_PER_CTU + 1];
        int exp[NAIVE_MAX_PUS], n_got, n_exp, ok = 1;
        char name[128];

        snprintf(name, sizeof(name), "partition ctu=%d spread=%d pu_penalty=%d seed=%" PRIu32,
                 ctu, spread, pen, seed);
        if (!selected(name))
            continue;
        for (int i = 0; i < nb; i++) {
            /* costs that grow with the PU area, like SADs, or not at all */
            const int area = pus[i].w * pus[i].h;
            cost[i] = rnd(&r, 2) ? rnd(&r, spread) : (uint32_t)((int64_t)rnd(&r, spread) * area / 64);
            cost64[i] = cost[i];
        }
        memset(got, MARKER, sizeof(got));
        n_got = gpume_choose_partition(cost, ctu, pen, tmp_cost, tmp_mode, got);
        n_exp = naive_choose_partition(ctu, pus, nb, cost64, pen, exp);
        if (n_got != n_exp) {
            detail("%d PUs chosen, expected %d\n", n_got, n_exp);
            ok = 0;
        }
        for (int i = 0; i < FFMIN(n_got, n_exp) && ok; i++)
            if (got[i] != exp[i]) {
                detail("PU %d: got %d, expected %d\n", i, got[i], exp[i]);
                ok = 0;
            }
        if (!is_marker(&got[n_got], sizeof(got) - n_got * sizeof(*got))) {
            detail("written past the %d chosen PUs\n", n_got);
            ok = 0;
        }
        report(name, ok);
    }
    group_end();
}

/* ------------------------------------------------------------ params */

static void test_params(void)
{
    /* changes to a valid base: up to two fields set, by offset (1 + offsetof; 0: none) */
    static const struct {
        const char *what;
        struct { size_t field; int value; } set[2];
        int valid;
    } t[] = {
#define F(x) (1 + offsetof(GpumeParams, x))
        { "defaults",          { { 0 }, { 0 } }, 1 },
        { "ctu=16 block=8",    { { F(ctu), 16 }, { F(block), 8 } }, 1 },
        { "ctu=64 block=64",   { { F(ctu), 64 }, { F(block), 64 } }, 1 },
        { "block=auto",        { { F(block), 0 }, { 0 } }, 1 },
        { "range=1",           { { F(range), 1 }, { 0 } }, 1 },
        { "range=64",          { { F(range), 64 }, { 0 } }, 1 },
        { "size 1x1",          { { F(width), 1 }, { F(height), 1 } }, 1 },
        { "size 16383x2",      { { F(width), 16383 }, { F(height), 2 } }, 1 },
        { "algo=hme",          { { F(algo), GPUME_ALGO_HME }, { 0 } }, 1 },
        { "algo=lfs",          { { F(algo), GPUME_ALGO_LFS }, { 0 } }, 1 },
        { "subpel=0",          { { F(subpel), 0 }, { 0 } }, 1 },
        { "pred=temporal",     { { F(pred), GPUME_PRED_TEMPORAL }, { 0 } }, 1 },
        { "lambda=256",        { { F(lambda), 256 }, { 0 } }, 1 },
        { "ctu=24",            { { F(ctu), 24 }, { 0 } }, 0 },
        { "ctu=8",             { { F(ctu), 8 }, { F(block), 8 } }, 0 },
        { "ctu=128",           { { F(ctu), 128 }, { 0 } }, 0 },
        { "ctu=0",             { { F(ctu), 0 }, { 0 } }, 0 },
        { "block=128",         { { F(block), 128 }, { 0 } }, 0 },
        { "block>ctu",         { { F(ctu), 16 }, { F(block), 32 } }, 0 },
        { "block=4",           { { F(block), 4 }, { 0 } }, 0 },
        { "block=24",          { { F(block), 24 }, { 0 } }, 0 },
        { "block=-8",          { { F(block), -8 }, { 0 } }, 0 },
        { "range=0",           { { F(range), 0 }, { 0 } }, 0 },
        { "range=65",          { { F(range), 65 }, { 0 } }, 0 },
        { "range=-1",          { { F(range), -1 }, { 0 } }, 0 },
        { "width=0",           { { F(width), 0 }, { 0 } }, 0 },
        { "height=0",          { { F(height), 0 }, { 0 } }, 0 },
        { "width=-5",          { { F(width), -5 }, { 0 } }, 0 },
        { "width=16384",       { { F(width), 16384 }, { 0 } }, 0 },
        { "height=40000",      { { F(height), 40000 }, { 0 } }, 0 },
        { "subpel=3",          { { F(subpel), 3 }, { 0 } }, 0 },
        { "subpel=-1",         { { F(subpel), -1 }, { 0 } }, 0 },
        { "lambda=-1",         { { F(lambda), -1 }, { 0 } }, 0 },
        { "pu_penalty=-1",     { { F(pu_penalty), -1 }, { 0 } }, 0 },
        { "lfs_threshold=-1",  { { F(lfs_threshold), -1 }, { 0 } }, 0 },
        { "algo=-1",           { { F(algo), -1 }, { 0 } }, 0 },
        { "algo=NB",           { { F(algo), GPUME_ALGO_NB }, { 0 } }, 0 },
        { "pred=NB",           { { F(pred), GPUME_PRED_NB }, { 0 } }, 0 },
        { "pred=-1",           { { F(pred), -1 }, { 0 } }, 0 },
        { "lambda=257",        { { F(lambda), 257 }, { 0 } }, 0 },
        { "pu_penalty=65535",  { { F(pu_penalty), 65535 }, { 0 } }, 1 },
        { "pu_penalty=65536",  { { F(pu_penalty), 65536 }, { 0 } }, 0 },
        { "lfs_threshold=16320", { { F(lfs_threshold), 16320 }, { 0 } }, 1 },
        { "lfs_threshold=16321", { { F(lfs_threshold), 16321 }, { 0 } }, 0 },
        { "lfs block=auto",    { { F(algo), GPUME_ALGO_LFS }, { F(block), 0 } }, 0 },
#undef F
    };
    static const GpumeParams base = {
        .width = 64, .height = 48, .algo = GPUME_ALGO_FULL, .range = 16, .ctu = 32, .block = 16,
        .subpel = 2, .lambda = 2, .pu_penalty = 0, .pred = GPUME_PRED_ZERO, .lfs_threshold = 0,
    };

    group_begin("params");
    for (int i = 0; i < FF_ARRAY_ELEMS(t); i++) {
        GpumeParams p = base;
        char name[96];
        int ret, ok;
        snprintf(name, sizeof(name), "params %s (%s)", t[i].what, t[i].valid ? "valid" : "invalid");
        if (!selected(name))
            continue;
        for (int k = 0; k < 2; k++)
            if (t[i].set[k].field)
                *(int *)((char *)&p + t[i].set[k].field - 1) = t[i].set[k].value;
        ret = ff_gpume_params_derive(&p);
        ok  = t[i].valid ? ret == 0 : ret == AVERROR(EINVAL);
        if (!ok)
            detail("ff_gpume_params_derive returned %d\n", ret);
        if (ok && t[i].valid) {
            int cols, rows, lw = p.width, lh = p.height;
            naive_ctu_grid(&p, &cols, &rows);
            if (p.units != p.ctu / 4 || p.ctu_cols != cols || p.ctu_rows != rows ||
                p.nb_ctus != cols * rows || p.max_out != naive_max_out(&p) ||
                p.nb_pus != naive_pu_table(p.ctu, (NaivePU[NAIVE_MAX_PUS]) { 0 })) {
                detail("derived fields wrong: units %d ctus %dx%d max_out %d nb_pus %d\n",
                       p.units, p.ctu_cols, p.ctu_rows, p.max_out, p.nb_pus);
                ok = 0;
            }
            for (int k = 0; k <= GPUME_HME_LEVELS; k++) {
                if (p.lw[k] != lw || p.lh[k] != lh) {
                    detail("level %d: %dx%d, expected %dx%d\n", k, p.lw[k], p.lh[k], lw, lh);
                    ok = 0;
                }
                lw = (lw + 1) / 2;
                lh = (lh + 1) / 2;
            }
        }
        report(name, ok);
    }
    group_end();
}

/* ----------------------------------------------------------- pyramid */

/*
 * The GPU backends' pyramid kernels on the CPU: ff_gpume_pyramid_args()'s
 * rectangles walked block by block and thread by thread as gpume_pyramid
 * walks them, each sample from gpume_pyramid_px(); against the pyramid
 * made level by level (gpume_downscale_px() of the level above, then the
 * edges replicated). With level 0 loaded in place (CUDA), no sample of it
 * may be written again.
 */
static void test_pyramid(void)
{
    static const int sizes[][2] = { { 1, 1 }, { 2, 3 }, { 33, 17 }, { 64, 48 }, { 203, 117 }, { 321, 240 } };

    group_begin("pyramid");
    for (int i = 0; i < FF_ARRAY_ELEMS(sizes); i++) {
        for (int c = 0; c < 4; c++) {
            const int hme = c & 1, loaded = c >> 1;
            GpumeParams p = {
                .width = sizes[i][0], .height = sizes[i][1], .algo = hme ? GPUME_ALGO_HME : GPUME_ALGO_FULL,
                .range = 16, .ctu = 32, .block = 16, .subpel = 2, .lambda = 2, .pred = GPUME_PRED_ZERO,
            };
            GpumePlane lv[GPUME_HME_LEVELS + 1];
            GpumePyramidArgs a;
            uint8_t *src = NULL, *want = NULL, *got = NULL, *hits = NULL;
            char name[96];
            size_t size;
            int ok = 1, blocks, w, h;
            Rng r = rng_init(case_seed("pyramid", 4 * i + c));

            snprintf(name, sizeof(name), "pyramid %dx%d %s, level 0 %s", sizes[i][0], sizes[i][1],
                     hme ? "hme" : "full", loaded ? "loaded" : "copied");
            if (!selected(name))
                continue;
            if (ff_gpume_params_derive(&p) < 0 || !(size = ff_gpume_pyramid_layout(&p, 64, lv))) {
                report(name, 0);
                continue;
            }
            w = lv[0].w;
            h = lv[0].h;
            src  = av_malloc(w * h);
            want = av_mallocz(size);
            got  = av_malloc(size);
            hits = av_mallocz(size);
            if (!src || !want || !got || !hits) {
                report(name, 0);
                goto next;
            }
            for (int k = 0; k < w * h; k++)
                src[k] = rnd(&r, 256);
            /* level by level */
            for (int k = 0; k <= (hme ? GPUME_HME_LEVELS : 0); k++) {
                const GpumePlane d = lv[k], up = lv[k ? k - 1 : 0];
                for (int y = 0; y < d.h; y++)
                    for (int x = 0; x < d.w; x++)
                        want[d.offset + y * d.pitch + x] =
                            k ? gpume_downscale_px(want + up.offset, up.pitch, up.w, up.h, x, y) :
                                src[y * w + x];
                for (int y = -p.pad; y < d.h + p.pad; y++)
                    for (int x = -p.pad; x < d.w + p.pad; x++)
                        want[d.offset + y * d.pitch + x] =
                            want[d.offset + gpume_clip(y, 0, d.h - 1) * d.pitch + gpume_clip(x, 0, d.w - 1)];
            }
            /* as the kernels do it */
            memset(got, 0, size);
            if (loaded)
                for (int y = 0; y < h; y++)
                    memcpy(got + lv[0].offset + y * lv[0].pitch, src + y * w, w);
            blocks = ff_gpume_pyramid_args(&p, lv, loaded, &a);
            for (int b = 0; b < blocks; b++) {
                int rr = 0;
                while (rr + 1 < a.nb_rects && b >= a.rect[rr + 1].first_block)
                    rr++;
                for (int ty = 0; ty < GPUME_PYR_BH; ty++) {
                    for (int tx = 0; tx < GPUME_PYR_BW; tx++) {
                        const GpumePyramidRect rc = a.rect[rr];
                        const GpumePlane d = a.level[rc.level];
                        const int bb = b - rc.first_block, cols = (rc.w + GPUME_PYR_BW - 1) / GPUME_PYR_BW;
                        const int x = rc.x + bb % cols * GPUME_PYR_BW + tx;
                        const int y = rc.y + bb / cols * GPUME_PYR_BH + ty;
                        const uint8_t *l0 = loaded ? got + lv[0].offset : src;
                        const int pitch = loaded ? lv[0].pitch : w;
                        if (x >= rc.x + rc.w || y >= rc.y + rc.h)
                            continue;
                        got[d.offset + y * d.pitch + x] =
                            gpume_pyramid_px(l0, pitch, w, h, a.level[1].w, a.level[1].h, rc.level,
                                             gpume_clip(x, 0, d.w - 1), gpume_clip(y, 0, d.h - 1));
                        hits[d.offset + y * d.pitch + x]++;
                    }
                }
            }
            for (int k = 0; k <= (hme ? GPUME_HME_LEVELS : 0) && ok; k++) {
                const GpumePlane d = lv[k];
                for (int y = -p.pad; y < d.h + p.pad && ok; y++) {
                    for (int x = -p.pad; x < d.w + p.pad && ok; x++) {
                        const size_t o = d.offset + y * d.pitch + x;
                        const int inside = !k && loaded && x >= 0 && x < d.w && y >= 0 && y < d.h;
                        if (got[o] != want[o] || hits[o] != !inside) {
                            detail("level %d (%d, %d): %d written %d times, expected %d\n",
                                   k, x, y, got[o], hits[o], want[o]);
                            ok = 0;
                        }
                    }
                }
            }
            report(name, ok);
        next:
            av_free(src);
            av_free(want);
            av_free(got);
            av_free(hits);
        }
    }
    group_end();
}

/* ----------------------------------------------------------- threads */

static void test_threads(void)
{
    static const int sizes_t[][2] = { { 100, 150 }, { 33, 130 }, { 257, 47 } };
    static const int algos[] = { GPUME_ALGO_FULL, GPUME_ALGO_HME, GPUME_ALGO_LFS, GPUME_ALGO_DIS };
    int n = 0;

    group_begin("threads");
    for (int si = 0; si < FF_ARRAY_ELEMS(sizes_t); si++)
        for (int ai = 0; ai < FF_ARRAY_ELEMS(algos); ai++, n++) {
            const uint32_t seed = case_seed("threads", n);
            Rng r = rng_init(seed);
            GpumeParams p = {
                .width = sizes_t[si][0], .height = sizes_t[si][1], .algo = algos[ai],
                .range = 4 + rnd(&r, 5), .ctu = 16, .block = ai >= 2 ? 8 : rnd(&r, 2) ? 0 : 8,
                .subpel = rnd(&r, 3), .lambda = rnd(&r, 4), .pu_penalty = rnd(&r, 20),
                .pred = GPUME_PRED_TEMPORAL, .lfs_threshold = rnd(&r, 100),
            };
            uint8_t *lc = malloc(p.width * p.height), *lr = malloc(p.width * p.height);
            AVFrame *fc = NULL, *fr = NULL;
            int16_t *pred = NULL;
            Output base = { 0 };
            char name[256];
            int ok = 1;

            snprintf(name, sizeof(name), "threads algo=%s size=%dx%d range=%d ctu=%d block=%d "
                     "subpel=%d lambda=%d pu_penalty=%d lfs_threshold=%d seed=%" PRIu32,
                     algo_name(p.algo), p.width, p.height, p.range, p.ctu, p.block, p.subpel,
                     p.lambda, p.pu_penalty, p.lfs_threshold, seed);
            if (!selected(name) || !lc || !lr || ff_gpume_params_derive(&p) < 0) {
                free(lc);
                free(lr);
                if (selected(name))
                    report(name, 0);
                continue;
            }
            make_content(&r, CONTENT_SHIFT, p.width, p.height, p.range, lc, lr);
            fc = make_frame(&r, AV_PIX_FMT_GRAY8, p.width, p.height, 0, lc);
            fr = make_frame(&r, AV_PIX_FMT_GRAY8, p.width, p.height, 0, lr);
            pred = calloc(2 * p.nb_ctus, sizeof(*pred));
            if (!fc || !fr || !pred || output_alloc(&base, p.nb_ctus, p.max_out) < 0)
                ok = 0;
            for (int i = 0; i < 2 * p.nb_ctus && ok; i++)
                pred[i] = rnd_in(&r, -4 * p.range, 4 * p.range);
            {
                Drive d = { exec_serial, NULL, 1, 1, 0, NULL };
                ok = ok && run_backend(&p, &d, fc, fr, pred, &base) == 0 && check_guards(&base);
            }
            /* with 2, 3 and 7 threads, runs of CTUs as jobs (a CTU each in
             * small frames, 32 jobs per thread in large ones), run in
             * reverse order and on real threads: identical results */
            for (int t = 0; t < 6 && ok; t++) {
                static const int nt[] = { 2, 3, 7, 2, 3, 7 };
                ExecStats stats = { 0 };
                Drive d = { t < 3 ? exec_serial : exec_pthread, &stats, nt[t], 1, 0, NULL };
                Output o = { 0 };
                if (output_alloc(&o, p.nb_ctus, p.max_out) < 0 ||
                    run_backend(&p, &d, fc, fr, pred, &o) < 0) {
                    detail("nb_threads=%d: backend failed\n", nt[t]);
                    ok = 0;
                } else if (p.algo != GPUME_ALGO_DIS && stats.jobs != FFMIN(p.nb_ctus, 32 * nt[t])) {
                    /* (dis's levels run rows of patches and pixels as jobs) */
                    detail("nb_threads=%d, %d CTUs: the backend used %d jobs\n",
                           nt[t], p.nb_ctus, stats.jobs);
                    ok = 0;
                } else if (!check_guards(&o) || !compare_outputs(&o, &base, p.ctu_cols, p.ctu_rows)) {
                    detail("nb_threads=%d (%s) differs from nb_threads=1\n",
                           nt[t], t < 3 ? "serial" : "pthread");
                    ok = 0;
                }
                output_free(&o);
            }
            /* the backend reused after uninit, at another size, then at this one again */
            if (ok) {
                const GpumeBackend *be = &ff_gpume_backend_cpu;
                const GpumeHost host = { .execute = exec_pthread, .nb_threads = 3 };
                GpumeParams small = p;
                Output o = { 0 };
                void *priv = av_mallocz(be->priv_size);
                GpumeResult res;
                small.width  = 20;
                small.height = 11;
                ok = priv && ff_gpume_params_derive(&small) == 0 &&
                     output_alloc(&o, p.nb_ctus, p.max_out) == 0 &&
                     be->init(priv, &host, &small) == 0;
                if (ok)
                    be->uninit(priv);
                res = (GpumeResult) { o.blocks, o.counts };
                ok = ok && be->init(priv, &host, &p) == 0;
                if (ok) {
                    /* estimate twice from the same slots: no state carried over */
                    ok = be->load(priv, 2, fr) == 0 && be->load(priv, 0, fc) == 0 &&
                         be->estimate(priv, 0, 2, pred, -1, 0, &res) == 0 && be->sync(priv) == 0 &&
                         be->estimate(priv, 0, 2, pred, -1, 1, &res) == 0 && be->sync(priv) == 0;
                    be->uninit(priv);
                }
                if (!ok)
                    detail("reinitialisation failed\n");
                else if (!check_guards(&o) || !compare_outputs(&o, &base, p.ctu_cols, p.ctu_rows)) {
                    detail("reinitialised backend differs\n");
                    ok = 0;
                }
                av_free(priv);
                output_free(&o);
            }
            report(name, ok);
            output_free(&base);
            av_frame_free(&fc);
            av_frame_free(&fr);
            free(pred);
            free(lc);
            free(lr);
        }
    group_end();
}

/* --------------------------------------------------- synthetic motion */

/** A textured image: two sinusoid products plus uniform noise. */
static void make_texture(Rng *r, uint8_t *t, int w, int h, int noise)
{
    const double a = rnd_in(r, 0, 628) / 100.0, b = rnd_in(r, 0, 628) / 100.0;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const double v = 128 + 50 * sin(0.31 * x + a) * cos(0.23 * y + b) +
                             30 * sin(0.13 * x - 0.17 * y) + 20 * cos(0.05 * x + 0.07 * y + a);
            t[y * w + x] = av_clip_uint8((int)lrint(v) + rnd_in(r, -noise, noise));
        }
}

/**
 * A texture without periods: random values on grids of 64 down to 2 pixels,
 * each interpolated bilinearly, the coarser ones stronger, as in natural
 * pictures; a flow's coarse levels see its large shapes.
 */
static void make_multiscale_texture(Rng *r, uint8_t *t, int w, int h)
{
    int *acc = calloc((size_t)w * h, sizeof(*acc));

    if (!acc)
        return;
    for (int s = 64, amp = 48; s >= 2; s /= 2, amp = amp * 2 / 3) {
        const int gw = w / s + 2, gh = h / s + 2;
        int *g = malloc((size_t)gw * gh * sizeof(*g));
        if (!g)
            break;
        for (int i = 0; i < gw * gh; i++)
            g[i] = rnd_in(r, -amp, amp);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int gx = x / s, gy = y / s, fx = x % s, fy = y % s;
                acc[y * w + x] += ((s - fx) * (s - fy) * g[gy * gw + gx] + fx * (s - fy) * g[gy * gw + gx + 1] +
                                   (s - fx) * fy * g[(gy + 1) * gw + gx] + fx * fy * g[(gy + 1) * gw + gx + 1]) /
                                  (s * s);
            }
        free(g);
    }
    for (int i = 0; i < w * h; i++)
        t[i] = av_clip_uint8(128 + acc[i]);
    free(acc);
}

/** Backend run on two packed planes with a zero predictor. */
static int estimate_planes(GpumeParams *p, const uint8_t *cur, const uint8_t *ref, Output *o)
{
    Rng r = rng_init(1);
    AVFrame *fc = make_frame(&r, AV_PIX_FMT_GRAY8, p->width, p->height, 0, cur);
    AVFrame *fr = make_frame(&r, AV_PIX_FMT_GRAY8, p->width, p->height, 0, ref);
    int16_t *pred = NULL;
    int err = AVERROR(ENOMEM);
    if (fc && fr && ff_gpume_params_derive(p) == 0 &&
        (pred = calloc(2 * p->nb_ctus, sizeof(*pred))) &&
        output_alloc(o, p->nb_ctus, p->max_out) == 0) {
        Drive d = { exec_pthread, NULL, 2, 1, 0, NULL };
        err = run_backend(p, &d, fc, fr, pred, o);
        if (err == 0 && !check_guards(o))
            err = AVERROR_BUG;
    }
    av_frame_free(&fc);
    av_frame_free(&fr);
    free(pred);
    return err;
}

/** Is the block's reference footprint, displaced by (vx, vy) pixels plus margin, inside the frame? */
static int interior(GpumeBlock b, int w, int h, int vx, int vy, int margin)
{
    return b.x + vx - margin >= 0 && b.y + vy - margin >= 0 &&
           b.x + b.w + vx + margin <= w && b.y + b.h + vy + margin <= h;
}

/**
 * The CTU holding b, clipped: hme searches its coarse levels per CTU, so a
 * block is interior for hme when its CTU is.
 */
static GpumeBlock ctu_rect(const GpumeParams *p, const GpumeBlock *b)
{
    GpumeBlock c = *b;
    c.x = b->x / p->ctu * p->ctu;
    c.y = b->y / p->ctu * p->ctu;
    c.w = FFMIN(p->ctu, p->width - c.x);
    c.h = FFMIN(p->ctu, p->height - c.y);
    return c;
}

/**
 * A W x H pair cut from a texture tex of (W + 2 M) x (H + 2 M) and the same
 * moved: cur(x, y) = ref(x + dx, y + dy), so that the vector is (dx, dy);
 * |dx|, |dy| <= M.
 */
static void cut_translated(const uint8_t *tex, int M, int W, int H, int dx, int dy,
                           uint8_t *cur, uint8_t *ref)
{
    const int TW = W + 2 * M;

    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            ref[y * W + x] = tex[(y + M) * TW + x + M];
            cur[y * W + x] = tex[(y + M + dy) * TW + x + M + dx];
        }
}

/** cut_translated() from a texture of make_texture(), made here in tex. */
static void make_translated(Rng *r, uint8_t *tex, int M, int W, int H, int dx, int dy,
                            uint8_t *cur, uint8_t *ref)
{
    make_texture(r, tex, W + 2 * M, H + 2 * M, 25);
    cut_translated(tex, M, W, H, dx, dy, cur, ref);
}

static void test_translation(void)
{
    static const int shifts[][2] = { { 3, -2 }, { -7, 5 }, { 12, 0 }, { 0, -11 }, { 1, 1 } };
    const int W = 256, H = 192, M = 16, TW = W + 2 * M, TH = H + 2 * M;
    uint8_t *tex = malloc(TW * TH), *cur = malloc(W * H), *ref = malloc(W * H);
    int n = 0;

    group_begin("translation");
    for (int si = 0; si < FF_ARRAY_ELEMS(shifts) && tex && cur && ref; si++)
        for (int algo = 0; algo < 3; algo++)
            for (int bi = 0; bi < 3; bi++, n++) {
                const int dx = shifts[si][0], dy = shifts[si][1];
                const uint32_t seed = case_seed("translation", n);
                Rng r = rng_init(seed);
                GpumeParams p = {
                    .width = W, .height = H, .algo = algo, .range = 16, .ctu = 16 << rnd(&r, 3),
                    .subpel = 0, .lambda = rnd(&r, 2), .pu_penalty = rnd(&r, 10),
                };
                Output o = { 0 };
                char name[256];
                int ok = 1, checked = 0;

                p.block = bi == 2 ? (algo == GPUME_ALGO_LFS ? p.ctu : 0) : 8 << bi;
                if (algo == GPUME_ALGO_LFS && (dx < -4 || dx > 3 || dy < -4 || dy > 3))
                    continue;   /* lfs is exact only within its first template */
                snprintf(name, sizeof(name), "translation (%d,%d) algo=%s ctu=%d block=%d lambda=%d "
                         "pu_penalty=%d seed=%" PRIu32, dx, dy, algo_name(algo), p.ctu, p.block,
                         p.lambda, p.pu_penalty, seed);
                if (!selected(name))
                    continue;
                make_translated(&r, tex, M, W, H, dx, dy, cur, ref);
                if (estimate_planes(&p, cur, ref, &o) < 0) {
                    ok = 0;
                } else {
                    for (int c = 0; c < p.nb_ctus && ok; c++)
                        for (int i = 0; i < o.counts[c]; i++) {
                            const GpumeBlock *b = &o.blocks[(size_t)c * p.max_out + i];
                            if (!interior(algo == GPUME_ALGO_HME ? ctu_rect(&p, b) : *b, W, H, dx, dy, 0))
                                continue;
                            checked++;
                            if (b->mvx != 4 * dx || b->mvy != 4 * dy || b->sad != 0) {
                                detail("block %d,%d %dx%d: mv (%d,%d) sad %u, expected (%d,%d) sad 0\n",
                                       b->x, b->y, b->w, b->h, b->mvx, b->mvy, b->sad, 4 * dx, 4 * dy);
                                ok = 0;
                                break;
                            }
                        }
                    if (ok && checked < 4) {
                        detail("only %d interior blocks\n", checked);
                        ok = 0;
                    }
                }
                report(name, ok);
                output_free(&o);
            }
    group_end();

    /* dis on a translated texture, shifts up to 16 pixels: the flow of
     * nearly every interior block is the shift within a quarter pel, and
     * exact for most (a flow, not a search: a few blocks may miss). Without
     * hme's start of its finest level, dis missed the diagonal shifts
     * (16, -9) and (-16, 9) of this texture everywhere; where the coarse
     * levels follow an alias of its sines, a patch that starts from them
     * alone keeps a false match, in more than a third of the textures: those
     * shifts are run on eight */
    group_begin("dis translation");
    {
        static const int dshifts[][3] = { { 3, -2, 1 }, { -7, 5, 1 }, { 12, 0, 1 }, { 0, -11, 1 }, { 16, 0, 1 },
                                          { 16, -9, 8 }, { -16, 9, 8 } };
        n = 0;
        for (int si = 0; si < FF_ARRAY_ELEMS(dshifts) && tex && cur && ref; si++)
            for (int bi = 0; bi < 2 * dshifts[si][2]; bi++, n++) {
                const int dx = dshifts[si][0], dy = dshifts[si][1];
                const uint32_t seed = case_seed("dis translation", n);
                Rng r = rng_init(seed);
                GpumeParams p = {
                    .width = W, .height = H, .algo = GPUME_ALGO_DIS, .range = 16, .ctu = 32,
                    .block = 8 << (bi & 1), .subpel = 2,
                };
                Output o = { 0 };
                char name[256];
                int ok = 1, checked = 0, exact = 0, near = 0;

                snprintf(name, sizeof(name), "dis translation (%d,%d) block=%d seed=%" PRIu32,
                         dx, dy, p.block, seed);
                if (!selected(name))
                    continue;
                make_translated(&r, tex, M, W, H, dx, dy, cur, ref);
                if (estimate_planes(&p, cur, ref, &o) < 0) {
                    ok = 0;
                } else {
                    for (int c = 0; c < p.nb_ctus && ok; c++)
                        for (int i = 0; i < o.counts[c]; i++) {
                            const GpumeBlock *b = &o.blocks[(size_t)c * p.max_out + i];
                            /* a margin of 16 pixels: patches at the edges see the texture's border */
                            if (b->x < 16 + FFMAX(0, -dx) || b->y < 16 + FFMAX(0, -dy) ||
                                b->x + b->w > W - 16 - FFMAX(0, dx) || b->y + b->h > H - 16 - FFMAX(0, dy))
                                continue;
                            checked++;
                            exact += b->mvx == 4 * dx && b->mvy == 4 * dy;
                            near  += FFABS(b->mvx - 4 * dx) <= 1 && FFABS(b->mvy - 4 * dy) <= 1;
                        }
                    if (checked < 16 || near * 20 < checked * 19 || exact * 4 < checked * 3) {
                        detail("%d exact and %d within a quarter pel of %d interior blocks; "
                               "95%% within and 75%% exact expected\n", exact, near, checked);
                        ok = 0;
                    }
                }
                report(name, ok);
                output_free(&o);
            }
    }
    group_end();

    /* dis's flow reaches past the pads of GPUME_MAX_RANGE: shifts of 70 to
     * 100 pixels, which a clip of the vectors at 64 pixels would miss
     * everywhere, found within a quarter pel by a fifth to nineteen
     * twentieths of the interior blocks over many seeds (a tenth asked
     * for), and every exported SAD that of the clamped samples (§2), in
     * the pads or beyond them */
    group_begin("dis far translation");
    {
        static const int fshifts[][2] = { { 90, -20 }, { -100, 30 }, { 70, 70 } };
        /* 1024x576: five levels above the finest, whose coarsest sees the
         * shifts within a patch's reach */
        const int FW = 1024, FH = 576, FM = 112;
        uint8_t *ftex = malloc((size_t)(FW + 2 * FM) * (FH + 2 * FM));
        uint8_t *fcur = malloc((size_t)FW * FH), *fref = malloc((size_t)FW * FH);
        NaivePlane pc = { fcur, FW, FW, FH }, pr = { fref, FW, FW, FH };

        n = 0;
        for (int si = 0; si < FF_ARRAY_ELEMS(fshifts) && ftex && fcur && fref; si++, n++) {
            const int dx = fshifts[si][0], dy = fshifts[si][1];
            const uint32_t seed = case_seed("dis far translation", n);
            Rng r = rng_init(seed);
            GpumeParams p = {
                .width = FW, .height = FH, .algo = GPUME_ALGO_DIS, .range = 16, .ctu = 32,
                .block = 16, .subpel = 2,
            };
            Output o = { 0 };
            char name[256];
            int ok = 1, checked = 0, near = 0, far = 0;

            snprintf(name, sizeof(name), "dis far translation (%d,%d) seed=%" PRIu32, dx, dy, seed);
            if (!selected(name))
                continue;
            make_multiscale_texture(&r, ftex, FW + 2 * FM, FH + 2 * FM);
            cut_translated(ftex, FM, FW, FH, dx, dy, fcur, fref);
            if (estimate_planes(&p, fcur, fref, &o) < 0) {
                ok = 0;
            } else {
                for (int c = 0; c < p.nb_ctus && ok; c++)
                    for (int i = 0; i < o.counts[c]; i++) {
                        const GpumeBlock *b = &o.blocks[(size_t)c * p.max_out + i];
                        const uint32_t sad = naive_sad_q(&pc, &pr, b->x, b->y, b->w, b->h, b->mvx, b->mvy);
                        far += FFMAX(FFABS(b->mvx), FFABS(b->mvy)) > 4 * GPUME_MAX_RANGE;
                        if (b->sad != sad) {
                            print_block("exported", b);
                            detail("SAD of the clamped samples %" PRIu32 "\n", sad);
                            ok = 0;
                            break;
                        }
                        if (!interior(*b, FW, FH, dx, dy, 16))
                            continue;
                        checked++;
                        near += FFABS(b->mvx - 4 * dx) <= 1 && FFABS(b->mvy - 4 * dy) <= 1;
                    }
                if (ok && (checked < 16 || near * 10 < checked || !far)) {
                    detail("%d within a quarter pel of %d interior blocks (a tenth expected), "
                           "%d beyond %d pixels\n", near, checked, far, GPUME_MAX_RANGE);
                    ok = 0;
                }
            }
            report(name, ok);
            output_free(&o);
        }
        free(ftex);
        free(fcur);
        free(fref);
    }
    group_end();

    /* fractional shifts made with the §2 filter itself: cur(x, y) = Rq(4x + qx, 4y + qy) */
    group_begin("fractional");
    {
        static const int qshifts[][2] = { { 1, 0 }, { 2, 2 }, { -3, 1 }, { 13, -6 }, { -21, 10 }, { 6, -30 } };
        n = 0;
        for (int si = 0; si < FF_ARRAY_ELEMS(qshifts) && tex && cur && ref; si++)
            for (int algo = 0; algo < 3; algo++, n++) {
                const int qx = qshifts[si][0], qy = qshifts[si][1];
                const uint32_t seed = case_seed("fractional", n);
                Rng r = rng_init(seed);
                GpumeParams p = {
                    .width = W, .height = H, .algo = algo, .range = 16, .ctu = 32,
                    .block = 16, .subpel = 2, .lambda = rnd(&r, 2),
                };
                NaivePlane pr = { ref, W, W, H };
                Output o = { 0 };
                char name[256];
                int ok = 1, checked = 0, good = 0;
                double *err = malloc(sizeof(double) * 4096);

                if (algo == GPUME_ALGO_LFS && (qx < -16 || qx > 12 || qy < -16 || qy > 12)) {
                    free(err);
                    continue;   /* lfs: within its first template */
                }
                snprintf(name, sizeof(name), "fractional (%+.2f,%+.2f) algo=%s ctu=%d block=%d "
                         "subpel=2 lambda=%d seed=%" PRIu32, qx / 4.0, qy / 4.0, algo_name(algo),
                         p.ctu, p.block, p.lambda, seed);
                if (!selected(name) || !err) {
                    free(err);
                    continue;
                }
                make_texture(&r, ref, W, H, 6);
                for (int y = 0; y < H; y++)
                    for (int x = 0; x < W; x++)
                        cur[y * W + x] = naive_sample_qpel(&pr, 4 * x + qx, 4 * y + qy);
                if (estimate_planes(&p, cur, ref, &o) < 0) {
                    ok = 0;
                } else {
                    for (int c = 0; c < p.nb_ctus; c++)
                        for (int i = 0; i < o.counts[c]; i++) {
                            const GpumeBlock *b = &o.blocks[(size_t)c * p.max_out + i];
                            double ex, ey;
                            if (!interior(algo == GPUME_ALGO_HME ? ctu_rect(&p, b) : *b,
                                          W, H, qx >> 2, qy >> 2, 1))
                                continue;
                            ex = abs(b->mvx - qx) / 4.0;
                            ey = abs(b->mvy - qy) / 4.0;
                            err[checked++] = FFMAX(ex, ey);
                            good += FFMAX(ex, ey) <= 0.25;
                        }
                    /* median by selection sort: few entries */
                    for (int i = 0; i < checked; i++)
                        for (int j = i + 1; j < checked; j++)
                            if (err[j] < err[i]) {
                                const double t = err[i];
                                err[i] = err[j];
                                err[j] = t;
                            }
                    if (checked < 8 || good * 100 < 95 * checked || err[checked / 2] > 0.2) {
                        detail("%d interior blocks, %d within 0.25 px, median error %.2f px\n",
                               checked, good, checked ? err[checked / 2] : -1.0);
                        ok = 0;
                    }
                }
                report(name, ok);
                output_free(&o);
                free(err);
            }
    }
    group_end();

    /* several objects: a static background and a textured square moving by (5, 3) */
    group_begin("objects");
    n = 0;
    for (int algo = 0; algo < 2; algo++)
        for (int k = 0; k < 6; k++, n++) {
            const uint32_t seed = case_seed("objects", n);
            Rng r = rng_init(seed);
            const int OW = 192, OH = 160, S = 64, vx = 5, vy = 3;
            GpumeParams p = {
                .width = OW, .height = OH, .algo = algo, .range = 8, .ctu = 16 << (k % 3),
                .block = k < 3 ? 8 : 16, .subpel = rnd(&r, 3), .lambda = rnd(&r, 3),
            };
            /* full: anywhere; hme searches per CTU, so the square is CTU-aligned for it */
            const int sx = algo == GPUME_ALGO_FULL ? rnd_in(&r, 8, OW - S - 16) : 64;
            const int sy = algo == GPUME_ALGO_FULL ? rnd_in(&r, 8, OH - S - 16) : 64;
            uint8_t *bg = malloc(OW * OH), *fg = malloc(S * S);
            uint8_t *c8 = malloc(OW * OH), *r8 = malloc(OW * OH);
            Output o = { 0 };
            char name[256];
            int ok = 1, n_fg = 0, n_bg = 0;

            p.block = FFMIN(p.block, p.ctu);
            snprintf(name, sizeof(name), "objects square=%d,%d mv=(%d,%d) algo=%s ctu=%d block=%d "
                     "subpel=%d lambda=%d seed=%" PRIu32, sx, sy, vx, vy, algo_name(algo), p.ctu,
                     p.block, p.subpel, p.lambda, seed);
            if (!selected(name) || !bg || !fg || !c8 || !r8) {
                free(bg); free(fg); free(c8); free(r8);
                continue;
            }
            make_texture(&r, bg, OW, OH, 25);
            make_texture(&r, fg, S, S, 25);
            for (int i = 0; i < S * S; i++)
                fg[i] = 255 - fg[i];
            memcpy(c8, bg, OW * OH);
            memcpy(r8, bg, OW * OH);
            /* the square at (sx, sy) in cur, at (sx + vx, sy + vy) in ref */
            for (int y = 0; y < S; y++)
                for (int x = 0; x < S; x++) {
                    c8[(sy + y) * OW + sx + x] = fg[y * S + x];
                    r8[(sy + vy + y) * OW + sx + vx + x] = fg[y * S + x];
                }
            if (estimate_planes(&p, c8, r8, &o) < 0) {
                ok = 0;
            } else {
                for (int c = 0; c < p.nb_ctus && ok; c++)
                    for (int i = 0; i < o.counts[c]; i++) {
                        const GpumeBlock *b = &o.blocks[(size_t)c * p.max_out + i];
                        const int in_fg = b->x >= sx && b->y >= sy && b->x + b->w <= sx + S &&
                                          b->y + b->h <= sy + S;
                        /* background: touches neither square */
                        const int in_bg = (b->x + b->w <= sx || b->x >= sx + vx + S ||
                                           b->y + b->h <= sy || b->y >= sy + vy + S);
                        int ex, ey;
                        if (in_fg) {
                            ex = 4 * vx;
                            ey = 4 * vy;
                            n_fg++;
                        } else if (in_bg) {
                            ex = ey = 0;
                            n_bg++;
                        } else {
                            continue;
                        }
                        if (b->mvx != ex || b->mvy != ey || b->sad != 0) {
                            detail("%s block %d,%d %dx%d: mv (%d,%d) sad %u, expected (%d,%d) sad 0\n",
                                   in_fg ? "square" : "background", b->x, b->y, b->w, b->h,
                                   b->mvx, b->mvy, b->sad, ex, ey);
                            ok = 0;
                            break;
                        }
                    }
                if (ok && (n_fg < 4 || n_bg < 4)) {
                    detail("only %d square and %d background blocks checked\n", n_fg, n_bg);
                    ok = 0;
                }
            }
            report(name, ok);
            output_free(&o);
            free(bg); free(fg); free(c8); free(r8);
        }
    group_end();
    free(tex);
    free(cur);
    free(ref);
}

/* ---------------------------------------------------------------- dsp */

/* n samples of cur and of ref, interleaved draws: random, or 0 and 255 */
static void dsp_content(Rng *r, uint8_t *cur, uint8_t *ref, int n, int extreme)
{
    for (int i = 0; i < n; i++) {
        cur[i] = extreme ? 255 * rnd(r, 2) : rnd(r, 256);
        ref[i] = extreme ? 255 * rnd(r, 2) : rnd(r, 256);
    }
}

/*
 * The CPU backend's SIMD functions against their C versions (those of a
 * context initialised with no CPU flags): random content and block
 * positions, every width of a row of candidates, the values from 0 to 255
 * at both ends.
 */
static void test_dsp(void)
{
    enum { W = 160, H = 96, STRIDE = 72 };
    GpumeDSPContext c, simd;
    uint8_t *cur = av_malloc(W * H), *ref = av_malloc(W * H);
    int has_rows, has_qpel, has_grid, has_rect, has_keys, has_least;

    group_begin("dsp");
    av_force_cpu_flags(0);
    ff_gpume_dsp_init(&c);
    av_force_cpu_flags(-1);
    ff_gpume_dsp_init(&simd);
    /* sad_hpel() is also compared with sad_qpel() in C: it runs without SIMD */
    has_rows  = !no_simd("sad4x4_rows", simd.sad4x4_rows == c.sad4x4_rows);
    has_qpel  = !no_simd("sad_qpel", simd.sad_qpel == c.sad_qpel);
    has_grid  = !no_simd("sad8x8_grid", simd.sad8x8_grid == c.sad8x8_grid);
    has_rect  = !no_simd("sad_rect", simd.sad_rect == c.sad_rect);
    has_keys  = !no_simd("min_keys", simd.min_keys == c.min_keys);
    has_least = !no_simd("first_least", simd.first_least == c.first_least);
    for (int t = 0; t < 64 && cur && ref && has_rows; t++) {
        Rng r = rng_init(case_seed("dsp", t));
        const int w = 1 + t % 65, h = 1 + rnd(&r, 65), extreme = t % 4 == 3;
        const int cx = rnd(&r, W - 4), cy = rnd(&r, H - 4);
        const int rx = rnd(&r, W - FFALIGN(w, 8) - 8 + 1), ry = rnd(&r, H - h - 3 + 1);
        uint16_t want[65 * STRIDE], got[65 * STRIDE], add[65 * STRIDE];
        char name[96];
        int ok = 1;

        snprintf(name, sizeof(name), "dsp sad4x4_rows w=%d h=%d%s%s", w, h, extreme ? " 0/255" : "",
                 t & 1 ? " in place" : "");
        if (!selected(name))
            continue;
        dsp_content(&r, cur, ref, W * H, extreme);
        /* any sums below 2^16 */
        for (int i = 0; i < 65 * STRIDE; i++)
            add[i] = want[i] = got[i] = rnd(&r, 65536 - 16 * 255);
        c.sad4x4_rows(want, STRIDE, t & 1 ? want : add, cur + cy * W + cx, W, ref + ry * W + rx, W, w, h);
        simd.sad4x4_rows(got, STRIDE, t & 1 ? got : add, cur + cy * W + cx, W, ref + ry * W + rx, W, w, h);
        for (int y = 0; y < h && ok; y++)
            for (int x = 0; x < w && ok; x++)
                if (want[y * STRIDE + x] != got[y * STRIDE + x]) {
                    detail("row %d, candidate %d: SIMD %d, C %d\n", y, x,
                           got[y * STRIDE + x], want[y * STRIDE + x]);
                    ok = 0;
                }
        report(name, ok);
    }
    for (int t = 0; t < 96 && cur && ref && has_qpel; t++) {
        Rng r = rng_init(case_seed("dsp qpel", t));
        /* the block widths, then any width (blocks cut by the edge): the
         * SIMD reads FFALIGN(w, 8) samples of a row */
        const int w = t < 64 ? 8 * (1 + t % 8) : 1 + rnd(&r, 64), h = 1 + rnd(&r, 64), extreme = t % 4 == 3;
        const int fx = t % 4, fy = fx ? t / 4 % 4 : 1 + t / 4 % 3;
        const int cx = rnd(&r, W - FFALIGN(w, 8) + 1), cy = rnd(&r, H - h + 1);
        const int rx = rnd(&r, W - FFALIGN(w, 8) - 1 + 1), ry = rnd(&r, H - h - 1 + 1);
        char name[96];
        uint32_t want, got;

        snprintf(name, sizeof(name), "dsp sad_qpel %dx%d (%d, %d)%s", w, h, fx, fy, extreme ? " 0/255" : "");
        if (!selected(name))
            continue;
        dsp_content(&r, cur, ref, W * H, extreme);
        want = c.sad_qpel(cur + cy * W + cx, W, ref + ry * W + rx, W, fx, fy, w, h);
        got  = simd.sad_qpel(cur + cy * W + cx, W, ref + ry * W + rx, W, fx, fy, w, h);
        if (want != got)
            detail("SIMD %" PRIu32 ", C %" PRIu32 "\n", got, want);
        report(name, want == got);
    }
    for (int t = 0; t < 48 && cur && ref; t++) {
        Rng r = rng_init(case_seed("dsp hpel", t));
        /* every width up to 64, against the C sad_qpel() of each point:
         * the C and the SIMD sad_hpel() */
        const int w = 8 * (1 + t % 8), h = 1 + rnd(&r, 64), extreme = t % 4 == 3;
        const int cx = rnd(&r, W - w + 1), cy = rnd(&r, H - h + 1);
        const int rx = 1 + rnd(&r, W - w - 1), ry = 1 + rnd(&r, H - h - 1);
        const uint8_t *cb = cur + cy * W + cx, *rb = ref + ry * W + rx;
        uint32_t want[8], got_c[8], got[8];
        char name[96];
        int ok;

        snprintf(name, sizeof(name), "dsp sad_hpel %dx%d%s", w, h, extreme ? " 0/255" : "");
        if (!selected(name))
            continue;
        dsp_content(&r, cur, ref, W * H, extreme);
        for (int i = 1; i < 9; i++) {
            int ox, oy;
            gpume_subpel_offset(i, 2, &ox, &oy);
            want[i - 1] = c.sad_qpel(cb, W, rb + (oy >> 2) * W + (ox >> 2), W, ox & 3, oy & 3, w, h);
        }
        c.sad_hpel(got_c, cb, W, rb, W, w, h);
        simd.sad_hpel(got, cb, W, rb, W, w, h);
        ok = !memcmp(want, got_c, sizeof(want)) && !memcmp(want, got, sizeof(want));
        for (int i = 0; i < 8 && !ok; i++)
            detail("point %d: sad_qpel %" PRIu32 ", C %" PRIu32 ", SIMD %" PRIu32 "\n",
                   i + 1, want[i], got_c[i], got[i]);
        report(name, ok);
    }
    for (int t = 0; t < 24 && cur && ref && has_grid; t++) {
        Rng r = rng_init(case_seed("dsp grid", t));
        const int cols = 2 << t % 3, rows = 1 + rnd(&r, 8), extreme = t % 4 == 3;
        const int cx = rnd(&r, W - 8 * cols + 1), cy = rnd(&r, H - 8 * rows + 1);
        const int rx = rnd(&r, W - 8 * cols + 1), ry = rnd(&r, H - 8 * rows + 1);
        uint32_t want[64], got[64];
        char name[96];

        snprintf(name, sizeof(name), "dsp sad8x8_grid %dx%d%s", cols, rows, extreme ? " 0/255" : "");
        if (!selected(name))
            continue;
        dsp_content(&r, cur, ref, W * H, extreme);
        c.sad8x8_grid(want, cur + cy * W + cx, W, ref + ry * W + rx, W, cols, rows);
        simd.sad8x8_grid(got, cur + cy * W + cx, W, ref + ry * W + rx, W, cols, rows);
        report(name, !memcmp(want, got, cols * rows * sizeof(*want)));
    }
    for (int t = 0; t < 64 && cur && ref && has_rect; t++) {
        Rng r = rng_init(case_seed("dsp rect", t));
        /* any width and height; the SIMD reads FFALIGN(w, 16) samples of
         * a row */
        const int w = 1 + t % 64, h = 1 + rnd(&r, 64), extreme = t % 4 == 3;
        const int cx = rnd(&r, W - FFALIGN(w, 16) + 1), cy = rnd(&r, H - h + 1);
        const int rx = rnd(&r, W - FFALIGN(w, 16) + 1), ry = rnd(&r, H - h + 1);
        uint32_t limit = UINT32_MAX, want, got;
        char name[96];
        int ok;

        snprintf(name, sizeof(name), "dsp sad_rect %dx%d%s", w, h, extreme ? " 0/255" : "");
        if (!selected(name))
            continue;
        dsp_content(&r, cur, ref, W * H, extreme);
        want = c.sad_rect(cur + cy * W + cx, W, ref + ry * W + rx, W, w, h, limit);
        got  = simd.sad_rect(cur + cy * W + cx, W, ref + ry * W + rx, W, w, h, limit);
        ok   = want == got;
        /* a limit the sum reaches: the exact sum below it, else at least it */
        limit = 1 + rnd(&r, want + 1);
        want = c.sad_rect(cur + cy * W + cx, W, ref + ry * W + rx, W, w, h, limit);
        got  = simd.sad_rect(cur + cy * W + cx, W, ref + ry * W + rx, W, w, h, limit);
        ok  &= want < limit ? got == want : got >= limit;
        if (!ok)
            detail("SIMD %" PRIu32 ", C %" PRIu32 ", limit %" PRIu32 "\n", got, want, limit);
        report(name, ok);
    }
    for (int t = 0; t < 24 && has_keys; t++) {
        Rng r = rng_init(case_seed("dsp keys", t));
        /* a CTU's blocks at block=8, and any multiple of 4; keys unset,
         * of equal cost and a near index, or any, below and above 2^63 */
        const int n = t < 3 ? 4 << 2 * t : 4 * (1 + rnd(&r, GPUME_MAX_OUT_PER_CTU / 4));
        const uint32_t base = t % 2 ? 0 : 0x80000000u, add = rnd(&r, 4096), idx = rnd(&r, 9000);
        uint64_t want[GPUME_MAX_OUT_PER_CTU], got[GPUME_MAX_OUT_PER_CTU];
        uint32_t cost[GPUME_MAX_OUT_PER_CTU];
        char name[96];

        snprintf(name, sizeof(name), "dsp min_keys n=%d%s", n, base ? " high" : "");
        if (!selected(name))
            continue;
        for (int i = 0; i < n; i++) {
            const int kind = rnd(&r, 4);
            cost[i] = base + rnd(&r, 4096);
            want[i] = kind == 0 ? GPUME_INVALID_KEY :
                      kind == 1 ? gpume_key(cost[i] + add, idx + rnd(&r, 3) - 1) :
                                  gpume_key(base + rnd(&r, 8192), rnd(&r, 9000));
            got[i]  = want[i];
        }
        c.min_keys(want, cost, add, idx, n);
        simd.min_keys(got, cost, add, idx, n);
        report(name, !memcmp(want, got, n * sizeof(*want)));
    }
    for (int t = 0; t < 24 && has_least; t++) {
        Rng r = rng_init(case_seed("dsp least", t));
        const int n = t ? 8 * (1 + rnd(&r, 65 * STRIDE / 8)) : 65 * STRIDE, kind = t % 3;
        uint16_t v[65 * STRIDE];
        char name[96];
        int want, got;

        /* any 16 bits; the least, above 0x8000, at two places among larger
         * values; all equal */
        snprintf(name, sizeof(name), "dsp first_least n=%d %s", n,
                 kind == 0 ? "random" : kind == 1 ? "twice" : "equal");
        if (!selected(name))
            continue;
        for (int i = 0; i < n; i++)
            v[i] = kind == 0 ? rnd(&r, 65536) : kind == 1 ? 0xfffe + rnd(&r, 2) : 0x8000;
        if (kind == 1) {
            v[rnd(&r, n)] = 0x8001;
            v[rnd(&r, n)] = 0x8001;
        }
        want = c.first_least(v, n);
        got  = simd.first_least(v, n);
        if (want != got)
            detail("SIMD %d, C %d\n", got, want);
        report(name, want == got);
    }
    group_end();
    av_free(cur);
    av_free(ref);
}

/* --------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    const double start = now();

    st.seed = DEFAULT_SEED;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--seed=", 7)) {
            st.seed = strtoull(argv[i] + 7, NULL, 0);
        } else if (!strncmp(argv[i], "--filter=", 9)) {
            st.filter = argv[i] + 9;
        } else if (!strcmp(argv[i], "--verbose") || !strcmp(argv[i], "-v")) {
            st.verbose = 1;
        } else if (!strcmp(argv[i], "--quick")) {
            st.quick = 1;
        } else {
            fprintf(stderr, "usage: %s [--seed=N] [--filter=SUBSTRING] [--quick] [--verbose]\n", argv[0]);
            return 2;
        }
    }
    printf("checkme: seed=%" PRIu64 "%s%s%s\n", st.seed, st.quick ? " quick" : "",
           st.filter ? " filter=" : "", st.filter ? st.filter : "");

    test_params();
    test_dsp();
    test_pyramid();
    test_geometry();
    test_partition();
    test_qpel();
    test_translation();
    test_threads();
    test_worst();
    test_random();

    if (st.verbose)
        printf("total %.1f s\n", now() - start);
    printf("%d passed, %d failed, %d skipped\n", st.passed, st.failed, st.skipped);
    return st.failed ? 1 : 0;
}
