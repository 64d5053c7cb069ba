/*
 * mcfps unit tests: the steps of libavfilter/mcfps.h and the CPU reference
 * (libavfilter/mcfps_cpu.c) against what docs/ALGORITHMS.md "mcfps" says.
 *  - the 4-tap and 8-tap samplers against a direct evaluation of their formulas, and the
 *    trajectory rounding;
 *  - side data -> cell fields (which block each cell takes, negation,
 *    motion_scale conversion, producers without motion_scale);
 *  - the vector median;
 *  - the pair's dominant vector against counting every distinct vector
 *    (the most frequent non-zero one, ties to the smallest (vy, vx));
 *  - known translations: two frames of a texture shifted by an exact vector
 *    with exact vectors attached give, at phases where the trajectory ends
 *    are whole pixels, exactly the texture shifted by the fraction of the
 *    vector, away from the frame edges;
 *  - slice splits give the same bytes as one slice;
 *  - the CPU's row functions (block fast paths) against the per-cell and
 *    per-pixel steps of mcfps.h, on random frames and fields that reach
 *    past the frame edges, every side, luma and subsampled planes;
 *  - where the planes of a format lie in its frames (ff_mcfps_format()),
 *    and which formats it refuses;
 *  - nv12 and nv21 against yuv420p through the CPU backend: the same
 *    pictures give the same samples, interleaved, and the bytes of the
 *    output rows past the picture are left alone; both modes, odd sizes,
 *    one and three slices;
 *  - the CPU backend's slice jobs against one job, formats of every
 *    subsampling, odd and small sizes.
 * Last line "N passed, N failed"; exit status 1 on a failure.
 */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/cpu.h"
#include "libavutil/pixdesc.h"

#include "libavfilter/gpume_pad.h"
#include "libavfilter/mcfps_backend.h"
#include "libavfilter/mcfps_cpu.h"
#include "libavfilter/mcfps_dsp.h"
#include "mcfps_frames.h"

static int passed, failed, skipped;
static McfpsDSPContext dsp;     ///< the SIMD functions of this CPU, or those in C

#define CHECK(cond, ...) do {                         \
        if (cond) {                                   \
            passed++;                                 \
        } else {                                      \
            failed++;                                 \
            printf("FAIL %s:%d: ", __FILE__, __LINE__); \
            printf(__VA_ARGS__);                      \
            printf("\n");                             \
        }                                             \
    } while (0)

/* a SIMD function against the C one; skipped where this CPU has none, since
 * C against itself cannot fail */
#define CHECK_SIMD(simd_fn, c_fn, name, cond, ...) do {                     \
        if ((simd_fn) == (c_fn)) {                                          \
            skipped++;                                                      \
            printf("skipped: %s: no SIMD version on this CPU\n", name);     \
        } else {                                                            \
            CHECK(cond, __VA_ARGS__);                                       \
        }                                                                   \
    } while (0)

static uint32_t rng = 12345;
static int rnd(void)
{
    rng = rng * 1664525u + 1013904223u;
    return rng >> 8;
}

/* a smooth random texture: sum of a few random gradients and noise, 8 bit */
static uint8_t *texture(int w, int h)
{
    uint8_t *t = malloc((size_t)w * h);
    const int a = rnd() % 7 + 1, b = rnd() % 5 + 1;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            t[y * w + x] = (uint8_t)((x * a + y * b + ((x * y) >> 3) + (rnd() & 31)) & 255);
    return t;
}

static void check_sampler(void)
{
    /* VVC's chroma (1/32 pel) and luma (1/16 pel) interpolation filters */
    static const int taps[32][4] = {
        {  0, 64,  0,  0 }, { -1, 63,  2,  0 }, { -2, 62,  4,  0 }, { -2, 60,  7, -1 },
        { -2, 58, 10, -2 }, { -3, 57, 12, -2 }, { -4, 56, 14, -2 }, { -4, 55, 15, -2 },
        { -4, 54, 16, -2 }, { -5, 53, 18, -2 }, { -6, 52, 20, -2 }, { -6, 49, 24, -3 },
        { -6, 46, 28, -4 }, { -5, 44, 29, -4 }, { -4, 42, 30, -4 }, { -4, 39, 33, -4 },
        { -4, 36, 36, -4 }, { -4, 33, 39, -4 }, { -4, 30, 42, -4 }, { -4, 29, 44, -5 },
        { -4, 28, 46, -6 }, { -3, 24, 49, -6 }, { -2, 20, 52, -6 }, { -2, 18, 53, -5 },
        { -2, 16, 54, -4 }, { -2, 15, 55, -4 }, { -2, 14, 56, -4 }, { -2, 12, 57, -3 },
        { -2, 10, 58, -2 }, { -1,  7, 60, -2 }, {  0,  4, 62, -2 }, {  0,  2, 63, -1 },
    };
    static const int taps8[16][8] = {
        {  0, 0,   0, 64,  0,   0,  0,  0 }, {  0, 1,  -3, 63,  4,  -2,  1,  0 },
        { -1, 2,  -5, 62,  8,  -3,  1,  0 }, { -1, 3,  -8, 60, 13,  -4,  1,  0 },
        { -1, 4, -10, 58, 17,  -5,  1,  0 }, { -1, 4, -11, 52, 26,  -8,  3, -1 },
        { -1, 3,  -9, 47, 31, -10,  4, -1 }, { -1, 4, -11, 45, 34, -10,  4, -1 },
        { -1, 4, -11, 40, 40, -11,  4, -1 }, { -1, 4, -10, 34, 45, -11,  4, -1 },
        { -1, 4, -10, 31, 47,  -9,  3, -1 }, { -1, 3,  -8, 26, 52, -11,  4, -1 },
        {  0, 1,  -5, 17, 58, -10,  4, -1 }, {  0, 1,  -4, 13, 60,  -8,  3, -1 },
        {  0, 1,  -3,  8, 62,  -5,  2, -1 }, {  0, 1,  -2,  4, 63,  -3,  1,  0 },
    };
    /* HEVC's filters, which VVC's extend: at f/8 and f/4 pel */
    static const int hevc4[8][4] = {
        {  0, 64,  0,  0 }, { -2, 58, 10, -2 }, { -4, 54, 16, -2 }, { -6, 46, 28, -4 },
        { -4, 36, 36, -4 }, { -4, 28, 46, -6 }, { -2, 16, 54, -4 }, { -2, 10, 58, -2 },
    };
    static const int hevc8[4][8] = {
        { 0, 0, 0, 64, 0, 0, 0, 0 }, { -1, 4, -10, 58, 17, -5, 1, 0 },
        { -1, 4, -11, 40, 40, -11, 4, -1 }, { 0, 1, -5, 17, 58, -10, 4, -1 },
    };
    const int w = 13, h = 9;
    uint8_t *p = texture(w, h);
    int bad = 0;

    for (int f = 0; f < 32; f++) {
        int sum = 0;
        for (int t = 0; t < 4; t++) {
            sum += mcfps_tap(f, t);
            bad += mcfps_tap(f, t) != taps[f][t] || (!(f & 3) && taps[f][t] != hevc4[f >> 2][t]);
        }
        bad += sum != 64;
    }
    for (int f = 0; f < 16; f++) {
        int sum = 0;
        for (int t = 0; t < 8; t++) {
            sum += mcfps_tap8(f, t);
            bad += mcfps_tap8(f, t) != taps8[f][t] || (!(f & 3) && taps8[f][t] != hevc8[f >> 2][t]);
        }
        bad += sum != 64;
    }
    CHECK(!bad, "filter tables: %d taps differ from VVC's or HEVC's, or rows from 64", bad);
    bad = 0;
    for (int fb = 2; fb <= 5; fb++) {
        for (int py = -20; py < (h << fb) + 20; py++) {
            for (int px = -20; px < (w << fb) + 20; px++) {
                const int x0 = px >> fb, y0 = py >> fb;
                const int fx = (px - x0 * (1 << fb)) << (5 - fb), fy = (py - y0 * (1 << fb)) << (5 - fb);
                int v = 0, want;
                for (int j = 0; j < 4; j++)
                    for (int i = 0; i < 4; i++)
                        v += taps[fx][i] * taps[fy][j] *
                             p[mcfps_clip(y0 - 1 + j, 0, h - 1) * w + mcfps_clip(x0 - 1 + i, 0, w - 1)];
                want = mcfps_clip((v + 2048) >> 12, 0, 255);
                bad += mcfps_sample4(p, w, 1, w, h, px, py, fb, fb) != want;
            }
        }
    }
    CHECK(!bad, "mcfps_sample4: %d positions differ from the formula", bad);
    bad = 0;
    for (int py = -80; py < (h << 4) + 80; py++) {
        for (int px = -80; px < (w << 4) + 80; px++) {
            const int x0 = px >> 4, y0 = py >> 4, fx = px & 15, fy = py & 15;
            int v = 0;
            for (int j = 0; j < 8; j++)
                for (int i = 0; i < 8; i++)
                    v += taps8[fx][i] * taps8[fy][j] *
                         p[mcfps_clip(y0 - 3 + j, 0, h - 1) * w + mcfps_clip(x0 - 3 + i, 0, w - 1)];
            bad += mcfps_sample8(p, w, w, h, px, py) != mcfps_clip((v + 2048) >> 12, 0, 255);
        }
    }
    CHECK(!bad, "mcfps_sample8: %d positions differ from the formula", bad);
    /* oa = -round(phi d / 256), halves up; in 1/16 pel, -round(phi 4 d / 256) */
    CHECK(mcfps_off_a(8, 128) == -4 && mcfps_off_a(-8, 128) == 4 && mcfps_off_a(1, 128) == -1 &&
          mcfps_off_a(-1, 128) == 0 && mcfps_off_a(3, 64) == -1 && mcfps_off_a(0, 200) == 0,
          "mcfps_off_a rounding");
    CHECK(mcfps_off_a16(1, 128) == -2 && mcfps_off_a16(-1, 128) == 2 && mcfps_off_a16(3, 128) == -6 &&
          mcfps_off_a16(1, 64) == -1 && mcfps_off_a16(1, 32) == -1 && mcfps_off_a16(-1, 32) == 0 &&
          mcfps_off_a16(5, 77) == -6 && mcfps_off_a16(0, 200) == 0,
          "mcfps_off_a16 rounding");
    free(p);
}

static void check_raster(void)
{
    McfpsParams p = { .width = 37, .height = 20, .cw = 5, .ch = 3 };
    int16_t f[2 * 15];
    AVMotionVector mv[3] = {
        /* 16x16 block at (0, 0), quarter pel (-6, 10) into the next frame */
        { .source = 1, .w = 16, .h = 16, .dst_x = 8, .dst_y = 8, .motion_x = -6, .motion_y = 10, .motion_scale = 4 },
        /* clipped 5x4 block at (32, 16), half pel (3, -1) */
        { .source = 1, .w = 5, .h = 4, .dst_x = 34, .dst_y = 18, .motion_x = 3, .motion_y = -1, .motion_scale = 2 },
        /* another direction: ignored */
        { .source = -1, .w = 37, .h = 20, .dst_x = 18, .dst_y = 10, .motion_x = 100, .motion_y = 100, .motion_scale = 4 },
    };
    McfpsRasterStats st = { -1, -1, -1, -1 }, only = { -1, -1, -1, -1 };
    int n = ff_mcfps_raster(mv, 3, 1, 0, &p, f, &st);
    CHECK(n == 5, "raster: %d cells set, want 5", n);
    CHECK(st.nb == 2 && st.outside == 0 && st.right == 37 && st.bottom == 20,
          "raster: %d vectors of source 1 ending at (%d, %d), %d outside; want 2 at (37, 20), 0",
          st.nb, st.right, st.bottom, st.outside);
    /* without a field: the same description, nothing written */
    n = ff_mcfps_raster(mv, 3, 1, 0, &p, NULL, &only);
    CHECK(n == 0 && !memcmp(&st, &only, sizeof(st)), "raster: counting alone differs (%d cells)", n);
    CHECK(f[0] == -6 && f[1] == 10 && f[2] == -6 && f[2 * 5 + 1] == 10 && f[2 * 6] == -6,
          "raster: cells of the first block");
    CHECK(f[2 * 14] == 6 && f[2 * 14 + 1] == -2, "raster: half pel (3, -1) -> qpel (%d, %d)", f[28], f[29]);
    CHECK(f[2 * 2] == 0 && f[2 * 13] == 0, "raster: uncovered cells are (0, 0)");
    n = ff_mcfps_raster(mv, 3, -1, 1, &p, f, NULL);
    CHECK(n == 15 && f[0] == -100 && f[29] == -100, "raster: negated whole-frame block (%d cells)", n);
    /* no motion_scale (mestimate): src - dst in pixels */
    mv[0] = (AVMotionVector){ .source = 1, .w = 8, .h = 8, .dst_x = 4, .dst_y = 4, .src_x = 7, .src_y = 2 };
    n = ff_mcfps_raster(mv, 1, 1, 0, &p, f, NULL);
    CHECK(n == 1 && f[0] == 12 && f[1] == -8, "raster: src - dst without motion_scale");
    /* blocks that start beyond the frame (of a larger picture) */
    mv[1] = (AVMotionVector){ .source = 1, .w = 8, .h = 8, .dst_x = 4, .dst_y = 24, .motion_scale = 4 };
    mv[2] = (AVMotionVector){ .source = 1, .w = 8, .h = 8, .dst_x = 44, .dst_y = 4, .motion_scale = 4 };
    n = ff_mcfps_raster(mv, 3, 1, 0, &p, f, &st);
    CHECK(n == 1 && st.nb == 3 && st.outside == 2 && st.right == 48 && st.bottom == 28,
          "raster: %d cells, %d vectors ending at (%d, %d), %d outside; want 1, 3 at (48, 28), 2",
          n, st.nb, st.right, st.bottom, st.outside);
}

/**
 * ff_mcfps_raster_run() in runs taken in any order, then
 * ff_mcfps_raster_resolve(): the field and description of
 * ff_mcfps_raster(), on random blocks that overlap, stick out of the frame,
 * are of either source and of every motion_scale kind.
 */
static void check_raster_runs(void)
{
    for (int t = 0; t < 200; t++) {
        McfpsParams p = { .width = 1 + rnd() % 90, .height = 1 + rnd() % 50 };
        const int nb = rnd() % 120, runs = 1 + rnd() % 9;
        AVMotionVector mv[120];
        int16_t want[2 * 12 * 7], got[2 * 12 * 7];
        atomic_uint_least64_t cells[12 * 7];
        McfpsRasterStats st, sum = { 0 }, run;
        int order[9], covered = 0, bands;

        p.cw = (p.width + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2;
        p.ch = (p.height + MCFPS_CELL - 1) >> MCFPS_CELL_LOG2;
        for (int k = 0; k < p.cw * p.ch; k++)
            atomic_init(&cells[k], 0);
        for (int n = 0; n < nb; n++) {
            const int w = rnd() % 3 ? 8 << (rnd() % 3) : rnd() % 40;
            const int h = rnd() % 3 ? w : rnd() % 40;
            mv[n] = (AVMotionVector){
                .source = rnd() % 3 ? 1 : -1, .w = w, .h = h,
                .dst_x = (rnd() % 3 ? (int)(rnd() % 12) * 8 : (int)(rnd() % 110) - 10) + w / 2,
                .dst_y = (rnd() % 3 ? (int)(rnd() % 7) * 8 : (int)(rnd() % 70) - 10) + h / 2,
                .motion_x = rnd() % 401 - 200, .motion_y = rnd() % 401 - 200,
                .motion_scale = rnd() % 4 ? 4 : rnd() % 3,
                .src_x = rnd() % 100, .src_y = rnd() % 60,
            };
        }
        ff_mcfps_raster(mv, nb, 1, t & 1, &p, want, &st);
        for (int r = 0; r < runs; r++)
            order[r] = r;
        for (int r = runs - 1; r > 0; r--) {
            const int k = rnd() % (r + 1), x = order[r];
            order[r] = order[k];
            order[k] = x;
        }
        for (int i = 0; i < runs; i++) {
            const int r = order[i];
            ff_mcfps_raster_run(mv, nb * r / runs, nb * (r + 1) / runs, 1, t & 1, &p, cells, &run);
            ff_mcfps_raster_stats_add(&sum, &run);
        }
        bands = 1 + rnd() % 3;
        for (int r = 0; r < bands; r++)
            covered += ff_mcfps_raster_resolve(&p, cells, got, p.ch * r / bands, p.ch * (r + 1) / bands);
        CHECK(!memcmp(want, got, sizeof(*want) * 2 * p.cw * p.ch),
              "raster runs: %d runs of %d vectors at %dx%d, a field other than ff_mcfps_raster()'s",
              runs, nb, p.width, p.height);
        CHECK(!memcmp(&st, &sum, sizeof(st)), "raster runs: %d runs describe the vectors otherwise", runs);
        for (int k = 0; k < p.cw * p.ch; k++)
            covered -= !!(want[2 * k] | want[2 * k + 1]);
        CHECK(covered >= 0 && covered <= p.cw * p.ch, "raster runs: %d cells covered by (0, 0) alone", covered);
        for (int k = 0; k < p.cw * p.ch; k++)
            CHECK(!atomic_load(&cells[k]), "raster runs: cell %d not zero after the resolution", k);
    }
}

typedef struct RasterThread {
    const AVMotionVector *mv;
    int start, end;
    const McfpsParams *p;
    atomic_uint_least64_t *cells;
    atomic_int *ready;          ///< threads at the start line
    int nb_threads;
    McfpsRasterStats st;
} RasterThread;

static void *raster_thread(void *arg)
{
    RasterThread *t = arg;

    /* all at once, so that their writes to the few cells meet */
    atomic_fetch_add(t->ready, 1);
    while (atomic_load(t->ready) < t->nb_threads)
        ;
    ff_mcfps_raster_run(t->mv, t->start, t->end, 1, 0, t->p, t->cells, &t->st);
    return NULL;
}

/**
 * Runs on threads of their own, started together, every block over the
 * same six cells: the field of ff_mcfps_raster(), the last block of each
 * cell kept whichever thread writes last (check_raster_runs() covers the
 * orders one thread can give; this, where the machine runs the threads at
 * once, the atomic maximum under contention).
 */
static void check_raster_threads(void)
{
    enum { NB = 3000, THREADS = 4 };
    const McfpsParams p = { .width = 24, .height = 16, .cw = 3, .ch = 2 };
    AVMotionVector *mv = av_malloc_array(NB, sizeof(*mv));
    int16_t want[2 * 6], got[2 * 6];
    atomic_uint_least64_t cells[6];

    if (!mv) {
        CHECK(0, "raster threads: out of memory");
        return;
    }
    for (int k = 0; k < 6; k++)
        atomic_init(&cells[k], 0);
    for (int t = 0; t < 50; t++) {
        RasterThread th[THREADS];
        pthread_t id[THREADS];
        atomic_int ready;
        int started = 0;

        for (int n = 0; n < NB; n++) {
            const int w = 8 * (1 + rnd() % 3), h = 8 * (1 + rnd() % 2);
            mv[n] = (AVMotionVector){ .source = 1, .w = w, .h = h,
                                      .dst_x = (int)(rnd() % 3) * 8 + w / 2, .dst_y = (int)(rnd() % 2) * 8 + h / 2,
                                      .motion_x = rnd() % 201 - 100, .motion_y = rnd() % 201 - 100,
                                      .motion_scale = 4 };
        }
        ff_mcfps_raster(mv, NB, 1, 0, &p, want, NULL);
        atomic_init(&ready, 0);
        for (int i = 0; i < THREADS; i++) {
            th[i] = (RasterThread){ .mv = mv, .start = NB * i / THREADS, .end = NB * (i + 1) / THREADS, .p = &p,
                                    .cells = cells, .ready = &ready, .nb_threads = THREADS };
            if (pthread_create(&id[i], NULL, raster_thread, &th[i]))
                break;
            started++;
        }
        /* those that did not start are run here, after the others */
        atomic_store(&ready, THREADS);
        for (int i = 0; i < started; i++)
            pthread_join(id[i], NULL);
        for (int i = started; i < THREADS; i++)
            raster_thread(&th[i]);
        ff_mcfps_raster_resolve(&p, cells, got, 0, p.ch);
        CHECK(!memcmp(want, got, sizeof(want)), "raster threads: round %d, a field other than ff_mcfps_raster()'s", t);
    }
    av_free(mv);
}

static void check_median(void)
{
    McfpsParams p = { .width = 24, .height = 16, .cw = 3, .ch = 2 };
    int16_t raw[12] = { 1, 9, 2, 8, 3, 7,  4, 6, 100, -100, 6, 4 }, out[12];
    ff_mcfps_smooth_rows(&p, raw, out, 0, 2);
    /* cell (1, 0): all six cells; x: 1 2 3 4 6 100 -> lower middle 3 */
    CHECK(out[2] == 3 && out[3] == 6, "median of cell (1,0): (%d, %d)", out[2], out[3]);
    /* cell (0, 0): cells (0,0) (1,0) (0,1) (1,1): x 1 2 4 100 -> 2; y -100 6 8 9 -> 6 */
    CHECK(out[0] == 2 && out[1] == 6, "median of cell (0,0): (%d, %d)", out[0], out[1]);
    /* the rows' faster paths against mcfps_smooth_cell(): grids of every
     * small size, wide fields, few values (ties) and extremes, in slices */
    for (int t = 0; t < 400; t++) {
        McfpsParams q = { .cw = 1 + rnd() % 40, .ch = 1 + rnd() % 12 };
        const int cells = q.cw * q.ch, kind = rnd() % 3, slices = 1 + rnd() % 4;
        int16_t *r = malloc(cells * 4), *o = malloc(cells * 4), *o1 = malloc(cells * 4);
        int bad = 0;

        for (int k = 0; k < 2 * cells; k++)
            r[k] = kind == 0 ? rnd() % 2001 - 1000 : kind == 1 ? rnd() % 3 - 1 :
                   (rnd() & 1 ? INT16_MAX : INT16_MIN);
        for (int s = 0; s < slices; s++)
            ff_mcfps_smooth_rows(&q, r, o, q.ch * s / slices, q.ch * (s + 1) / slices);
        for (int j = 0; j < q.ch; j++)
            for (int i = 0; i < q.cw; i++)
                mcfps_smooth_cell(r, o1, q.cw, q.ch, i, j);
        for (int k = 0; k < 2 * cells; k++)
            bad += o[k] != o1[k];
        CHECK(!bad, "smooth rows, %dx%d cells: %d components differ from mcfps_smooth_cell", q.cw, q.ch, bad);
        free(r); free(o); free(o1);
    }
}

/*
 * render the frame between a and b (w x h, luma only) with vector field d
 * everywhere; the previous pair's motion (d0x, d0y) everywhere bends the
 * trajectories where pp->bend is not 0
 */
static void interpolate(const McfpsParams *pp, const uint8_t *a, const uint8_t *b, uint8_t *dst,
                        int dx, int dy, int d0x, int d0y, int nb_slices)
{
    McfpsParams p = *pp;
    const size_t cells = (size_t)p.cw * p.ch;
    int16_t *ra = malloc(cells * 4), *rb = malloc(cells * 4), *fa = malloc(cells * 4),
            *fb = malloc(cells * 4), *fp = malloc(cells * 4), *vec = malloc(cells * 2 * MCFPS_VEC_N);
    uint16_t *info = malloc(cells * 2);
    McfpsPlane pl = { .a = a, .b = b, .dst = dst, .sa = p.width, .sb = p.width, .sd = p.width,
                      .step = 1, .w = p.width, .h = p.height };

    for (size_t k = 0; k < cells; k++) {
        ra[2 * k] = rb[2 * k] = dx;
        ra[2 * k + 1] = rb[2 * k + 1] = dy;
        fp[2 * k]     = d0x;
        fp[2 * k + 1] = d0y;
    }
    for (int s = 0; s < nb_slices; s++) {
        ff_mcfps_smooth_rows(&p, ra, fa, p.ch * s / nb_slices, p.ch * (s + 1) / nb_slices);
        ff_mcfps_smooth_rows(&p, rb, fb, p.ch * s / nb_slices, p.ch * (s + 1) / nb_slices);
    }
    for (int s = 0; s < nb_slices; s++)
        ff_mcfps_select_rows(&p, &dsp, a, p.width, b, p.width, 0, NULL, NULL, ra, rb, fa, fb, fp, NULL,
                             MCFPS_PHI_ONE, vec, info, p.ch * s / nb_slices, p.ch * (s + 1) / nb_slices);
    for (int s = 0; s < nb_slices; s++)
        ff_mcfps_render_rows(&p, &dsp, &pl, 1, vec, info, p.height * s / nb_slices, p.height * (s + 1) / nb_slices);
    free(ra); free(rb); free(fa); free(fb); free(fp); free(vec); free(info);
}

static void check_translation(int w, int h, int vx, int vy, int phi)
{
    /* picture at phase t is the texture's window at offset -t v (content moves by v) */
    const int pad = 64, tw = w + 2 * pad, th = h + 2 * pad;
    uint8_t *t = texture(tw, th);
    uint8_t *a = malloc((size_t)w * h), *b = malloc((size_t)w * h), *o = malloc((size_t)w * h),
            *o3 = malloc((size_t)w * h);
    McfpsParams p = { .width = w, .height = h, .cw = (w + 7) / 8, .ch = (h + 7) / 8, .phi = phi,
                      .lambda = 1, .rel_lo = MCFPS_REL_LO, .rel_hi = MCFPS_REL_HI };
    const int sx = vx * phi / 256, sy = vy * phi / 256;   /* exact by the choice of cases */
    const int m = 8 + (abs(vx) + abs(vy)) / 2 + 4;         /* edge margin */
    int bad = 0, diff = 0;

    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            a[y * w + x] = t[(y + pad) * tw + x + pad];
            b[y * w + x] = t[(y + pad - vy) * tw + x + pad - vx];
        }
    /* A -> B displacement v, quarter pel */
    interpolate(&p, a, b, o, 4 * vx, 4 * vy, 0, 0, 1);
    interpolate(&p, a, b, o3, 4 * vx, 4 * vy, 0, 0, 3);
    for (int y = m; y < h - m; y++)
        for (int x = m; x < w - m; x++)
            bad += o[y * w + x] != t[(y + pad - sy) * tw + x + pad - sx];
    for (int i = 0; i < w * h; i++)
        diff += o[i] != o3[i];
    CHECK(!bad, "translation (%d, %d) px at phi %d, %dx%d: %d interior pixels differ", vx, vy, phi, w, h, bad);
    CHECK(!diff, "translation (%d, %d) at phi %d: 3 slices differ from 1 in %d pixels", vx, vy, phi, diff);
    free(t); free(a); free(b); free(o); free(o3);
}

/*
 * The bend (M3): half the change of motion of the parabola through P, A and
 * B, 1/16 pel; none for a constant velocity whatever the intervals; its
 * clip and gate; and a translation whose trajectories bend by one pixel
 * gives the texture one pixel further on.
 */
static void check_bend(void)
{
    McfpsParams p = { .width = 64, .height = 48, .cw = 8, .ch = 6, .phi = 128, .phi_a = 128 };
    const int pad = 64, w = 96, h = 64, tw = w + 2 * pad, th = h + 2 * pad, vx = 8, vy = -4;
    uint8_t *t = texture(tw, th);
    uint8_t *a = malloc((size_t)w * h), *b = malloc((size_t)w * h), *o = malloc((size_t)w * h);
    int16_t fa[2 * 8 * 6], fp[2 * 8 * 6];
    int bx, by, bad = 0;

    p.bend = mcfps_bend_weight(p.phi, p.phi_a);
    /* equal intervals, the middle: 8 pixels more motion bend it by half a pixel */
    CHECK(mcfps_bend16(&p, 40, 8) == 8 && mcfps_bend16(&p, 8, 40) == -8,
          "bend of a change of 32 quarter pels: %d, %d, want 8, -8", mcfps_bend16(&p, 40, 8), mcfps_bend16(&p, 8, 40));
    CHECK(mcfps_bend16(&p, 4000, -4000) == MCFPS_BEND_MAX && mcfps_bend16(&p, -4000, 4000) == -MCFPS_BEND_MAX,
          "bend of a large change not clipped to %d", MCFPS_BEND_MAX);
    /* P -> A over twice A -> B's interval (A at 171/256 between P and B) at the same speed */
    p.phi_a = 171;
    p.bend  = mcfps_bend_weight(64, p.phi_a);
    p.phi   = 64;
    CHECK(mcfps_bend16(&p, 12, 24) == 0 && mcfps_bend16(&p, -400, -800) == 0,
          "constant velocity over unequal intervals bends: %d, %d", mcfps_bend16(&p, 12, 24),
          mcfps_bend16(&p, -400, -800));
    CHECK(mcfps_bend16(&p, 400, 0) > 0 && mcfps_bend16(&p, -400, 0) < 0, "an acceleration does not bend");
    /* the gate: far from the smoothed A vector, or no previous pair */
    for (int k = 0; k < 2 * 8 * 6; k++) {
        fa[k] = 40;
        fp[k] = -400;
    }
    mcfps_bend(&p, fa, fp, NULL, 3, 2, 40 + MCFPS_BEND_GATE, 40, &bx, &by);
    CHECK(bx && by, "a vector within the gate is not bent");
    mcfps_bend(&p, fa, fp, NULL, 3, 2, 40 + MCFPS_BEND_GATE + 1, 40, &bx, &by);
    CHECK(!bx && !by, "a vector outside the gate is bent: (%d, %d)", bx, by);
    /* previous motion that differs beside the cell the trajectory leaves A
     * from: (28, 20) - 3 pixels lies in cell (3, 2) itself; (2, 2) is beside it */
    fp[2 * (2 * 8 + 2)] += MCFPS_BEND_SPREAD + 1;
    mcfps_bend(&p, fa, fp, NULL, 3, 2, 40, 40, &bx, &by);
    CHECK(!bx && !by, "bent from previous motion that is not smooth: (%d, %d)", bx, by);
    fp[2 * (2 * 8 + 2)] -= 1;
    mcfps_bend(&p, fa, fp, NULL, 3, 2, 40, 40, &bx, &by);
    CHECK(bx && by, "not bent from previous motion smooth within %d", MCFPS_BEND_SPREAD);
    p.bend = 0;
    mcfps_bend(&p, fa, fp, NULL, 3, 2, 40, 40, &bx, &by);
    CHECK(!bx && !by, "bent without a previous pair: (%d, %d)", bx, by);

    /* v = (8, -4) pixels, the previous pair's motion v - (16, 16) pixels:
     * at the middle both ends move by (16 / 16, 16 / 16) pixels */
    p = (McfpsParams){ .width = w, .height = h, .cw = (w + 7) / 8, .ch = (h + 7) / 8, .phi = 128,
                       .lambda = 1, .rel_lo = MCFPS_REL_LO, .rel_hi = MCFPS_REL_HI, .phi_a = 128 };
    p.bend = mcfps_bend_weight(p.phi, p.phi_a);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            a[y * w + x] = t[(y + pad) * tw + x + pad];
            b[y * w + x] = t[(y + pad - vy) * tw + x + pad - vx];
        }
    interpolate(&p, a, b, o, 4 * vx, 4 * vy, 4 * vx - 64, 4 * vy - 64, 1);
    for (int y = 16; y < h - 16; y++)
        for (int x = 16; x < w - 16; x++)
            bad += o[y * w + x] != t[(y + pad - vy / 2 + 1) * tw + x + pad - vx / 2 + 1];
    CHECK(!bad, "translation (%d, %d) bent by a pixel: %d interior pixels differ", vx, vy, bad);
    free(t); free(a); free(b); free(o);
}

/* random field of quarter-pel vectors up to +-range, with a share of zeros */
static void random_field(int16_t *f, int cells, int range)
{
    for (int k = 0; k < 2 * cells; k++)
        f[k] = rnd() % 4 ? rnd() % (2 * range + 1) - range : 0;
}

/* cells whose vector or info word differ between two selections */
static int cells_differ(const int16_t *vec, const uint16_t *info, const int16_t *vec1, const uint16_t *info1,
                        int cells)
{
    int bad = 0;
    for (int k = 0; k < cells; k++)
        bad += info1[k] != info[k] ||
               memcmp(vec1 + MCFPS_VEC_N * k, vec + MCFPS_VEC_N * k, MCFPS_VEC_N * sizeof(*vec));
    return bad;
}

static void check_rows(int w, int h, int phi, int range)
{
    McfpsParams p = { .width = w, .height = h, .cw = (w + 7) / 8, .ch = (h + 7) / 8, .phi = phi,
                      .lambda = rnd() % 3, .rel_lo = MCFPS_REL_LO, .rel_hi = MCFPS_REL_HI,
                      .gx = rnd() % 41 - 20, .gy = rnd() % 41 - 20, .phi_a = 1 + rnd() % 255 };
    const int cells = p.cw * p.ch;
    uint8_t *a = texture(w, h), *b = texture(w, h);
    uint8_t *o = malloc((size_t)w * h);
    int16_t *ra = malloc(cells * 4), *rb = malloc(cells * 4), *fa = malloc(cells * 4),
            *fb = malloc(cells * 4), *fp = malloc(cells * 4),
            *vec = malloc(cells * 2 * MCFPS_VEC_N), *vec1 = malloc(cells * 2 * MCFPS_VEC_N);
    uint8_t *smooth = malloc(cells);
    uint16_t *info = malloc(cells * 2), *info1 = malloc(cells * 2);
    const int trust = rnd() % 2 ? MCFPS_PHI_ONE : rnd() % (MCFPS_PHI_ONE + 1);
    static int calls;
    int bad_sel = 0, bad_px = 0, bent = 0, piecewise;

    /* in one case of two, fields of 4x4-cell blocks of one vector each and
     * a still picture: the winners agree with the smoothed vectors and the
     * previous motion is smooth inside the blocks, so trajectories bend */
    piecewise = calls++ & 1;
    if (piecewise)      /* intervals of similar lengths: a previous motion that counts */
        p.phi_a = 96 + rnd() % 65;
    random_field(ra, cells, piecewise ? 2 : range);
    random_field(rb, cells, range);
    random_field(fp, cells, range);
    if (piecewise)      /* still pictures: small vectors near the smoothed ones win */
        memcpy(b, a, (size_t)w * h);
    for (int k = 0; k < cells && piecewise; k++) {
        const int q = 2 * ((k / p.cw) / 4 * 4 * p.cw + (k % p.cw) / 4 * 4);
        for (int c = 0; c < 2; c++) {
            ra[2 * k + c] = ra[q + c];
            rb[2 * k + c] = ra[q + c];
            fp[2 * k + c] = fp[q + c];
        }
    }
    ff_mcfps_bend_smooth_rows(&p, fp, smooth, 0, p.ch);
    /* trajectories bent in the piecewise cases and one other of two */
    p.bend = piecewise || rnd() % 2 ? mcfps_bend_weight(phi, p.phi_a) : 0;
    ff_mcfps_smooth_rows(&p, ra, fa, 0, p.ch);
    ff_mcfps_smooth_rows(&p, rb, fb, 0, p.ch);
    ff_mcfps_select_rows(&p, &dsp, a, w, b, w, 0, NULL, NULL, ra, rb, fa, fb, fp, smooth, trust, vec, info,
                         0, p.ch);
    for (int j = 0; j < p.ch; j++)
        for (int i = 0; i < p.cw; i++)
            info1[j * p.cw + i] = mcfps_select_cell(&p, a, w, b, w, ra, rb, fa, fb, fp, i, j, trust, vec1);
    bad_sel = cells_differ(vec, info, vec1, info1, cells);
    CHECK(!bad_sel, "select rows, %dx%d phi %d range %d: %d cells differ from mcfps_select_cell",
          w, h, phi, range, bad_sel);
    /* the same from padded planes, whose windows near the edges read the
     * pads, then from their phases too */
    {
        const int pad = 1 + rnd() % 40, ps = FFALIGN(w + 2 * pad, 16) + 16 * (rnd() % 2);
        const size_t size = (size_t)ps * (h + 2 * pad);
        /* ff_mcfps_phase_rows() reads a sample beyond the last row */
        uint8_t *pa = malloc(size + 16), *pb = malloc(size + 16);
        uint8_t *a0 = pa + (size_t)pad * ps + pad, *b0 = pb + (size_t)pad * ps + pad;
        uint8_t *phase_buf = malloc(2 * (MCFPS_NB_PHASES - 1) * size);
        uint8_t *pha[MCFPS_NB_PHASES] = { a0 }, *phb[MCFPS_NB_PHASES] = { b0 };
        const int bands = 1 + rnd() % 4, rows = h + 2 * pad - 1;
        int bad_pad, bad_phase;

        ff_gpume_pad_plane(a0, ps, a, w, w, h, pad);
        ff_gpume_pad_plane(b0, ps, b, w, w, h, pad);
        ff_mcfps_select_rows(&p, &dsp, a0, ps, b0, ps, pad, NULL, NULL, ra, rb, fa, fb, fp, smooth, trust,
                             vec1, info1, 0, p.ch);
        bad_pad = cells_differ(vec, info, vec1, info1, cells);
        CHECK(!bad_pad, "select rows, %dx%d phi %d range %d, planes padded by %d: %d cells differ",
              w, h, phi, range, pad, bad_pad);

        for (int f = 1; f < MCFPS_NB_PHASES; f++) {
            pha[f] = phase_buf + (f - 1) * size + (a0 - pa);
            phb[f] = phase_buf + (MCFPS_NB_PHASES - 1 + f - 1) * size + (b0 - pb);
        }
        for (int n = 0; n < bands; n++) {
            ff_mcfps_phase_rows(&dsp, pha, a0, ps, w, pad, rows * n / bands - pad, rows * (n + 1) / bands - pad);
            ff_mcfps_phase_rows(&dsp, phb, b0, ps, w, pad, rows * n / bands - pad, rows * (n + 1) / bands - pad);
        }
        ff_mcfps_select_rows(&p, &dsp, a0, ps, b0, ps, pad, (const uint8_t *const *)pha,
                             (const uint8_t *const *)phb, ra, rb, fa, fb, fp, smooth, trust,
                             vec1, info1, 0, p.ch);
        bad_phase = cells_differ(vec, info, vec1, info1, cells);
        CHECK(!bad_phase, "select rows, %dx%d phi %d range %d, phases of planes padded by %d: %d cells differ",
              w, h, phi, range, pad, bad_phase);
        free(pa); free(pb); free(phase_buf);
    }
    for (int k = 0; k < cells; k++)
        bent += vec[MCFPS_VEC_N * k + 2] || vec[MCFPS_VEC_N * k + 3];
    CHECK(!piecewise || cells < 16 || !range || bent, "select rows, %dx%d phi %d: no trajectory bent", w, h, phi);
    /* every side and weight, vectors that leave the frame, every bend */
    for (int k = 0; k < cells; k++) {
        int16_t *v = vec + MCFPS_VEC_N * k;
        v[0] = rnd() % 3 ? v[0] : rnd() % (8 * range + 1) - 4 * range;
        v[1] = rnd() % 3 ? v[1] : rnd() % (8 * range + 1) - 4 * range;
        v[2] = rnd() % 3 ? v[2] : rnd() % (2 * MCFPS_BEND_MAX + 1) - MCFPS_BEND_MAX;
        v[3] = rnd() % 3 ? v[3] : rnd() % (2 * MCFPS_BEND_MAX + 1) - MCFPS_BEND_MAX;
        info[k] = MCFPS_INFO(rnd() % 3, rnd() % 3 ? rnd() % 257 : 256 * (rnd() & 1), 1 + rnd() % MCFPS_OBMC_RMAX);
    }
    /* luma, 4:2:2 and 4:2:0 chroma, and interleaved 4:2:0 chroma (nv12) */
    for (int l = 0; l < 4; l++) {
        const int lx = l > 0, ly = l & 1, step = 1 + (l == 3);
        McfpsPlane pl = { .a = a, .b = b, .dst = o, .sa = w, .sb = w, .sd = w, .step = step,
                          .w = (w + lx) >> lx, .h = (h + ly) >> ly, .lx = lx, .ly = ly };
        const int slices = 1 + l;
        for (int s = 0; s < slices; s++)
            ff_mcfps_render_rows(&p, &dsp, &pl, 1, vec, info, pl.h * s / slices, pl.h * (s + 1) / slices);
        for (int y = 0; y < pl.h; y++)
            for (int x = 0; x < pl.w; x++)
                bad_px += o[y * w + x * step] != mcfps_render_pixel(&p, a, w, b, w, step, pl.w, pl.h, lx, ly,
                                                                    vec, info, x, y);
        /* two planes together, as the chroma planes are rendered: each as
         * alone (the second of other content, A and B swapped) */
        if (l) {
            uint8_t *o1 = malloc((size_t)w * h), *o2 = malloc((size_t)w * h);
            McfpsPlane two[2] = { pl, pl };
            int bad_two = 0;

            two[0].dst = o1;
            two[1].a   = b;
            two[1].b   = a;
            two[1].dst = o2;
            for (int s = 0; s < slices; s++)
                ff_mcfps_render_rows(&p, &dsp, two, 2, vec, info, pl.h * s / slices, pl.h * (s + 1) / slices);
            for (int y = 0; y < pl.h; y++)
                for (int x = 0; x < pl.w; x++)
                    bad_two += o1[y * w + x * step] != o[y * w + x * step] ||
                               o2[y * w + x * step] != mcfps_render_pixel(&p, b, w, a, w, step, pl.w, pl.h,
                                                                          lx, ly, vec, info, x, y);
            CHECK(!bad_two, "render rows, %dx%d plane %d phi %d range %d, two planes at once: %d samples differ",
                  w, h, l, phi, range, bad_two);
            free(o1); free(o2);
        }
        /* the same from padded planes, whose predictions near the edges read the pads */
        if (step == 1) {
            const int pad = 1 + rnd() % 40, ps = pl.w + 2 * pad + rnd() % 8;
            uint8_t *pa = malloc((size_t)ps * (pl.h + 2 * pad)), *pb = malloc((size_t)ps * (pl.h + 2 * pad));
            uint8_t *a0 = pa + (size_t)pad * ps + pad, *b0 = pb + (size_t)pad * ps + pad;
            uint8_t *o2 = malloc((size_t)w * h);
            McfpsPlane pp = pl;
            int bad_pad = 0;

            ff_gpume_pad_plane(a0, ps, a, w, pl.w, pl.h, pad);
            ff_gpume_pad_plane(b0, ps, b, w, pl.w, pl.h, pad);
            pp.a   = a0;
            pp.b   = b0;
            pp.sa  = pp.sb = ps;
            pp.dst = o2;
            pp.pad = pad;
            ff_mcfps_render_rows(&p, &dsp, &pp, 1, vec, info, 0, pl.h);
            for (int y = 0; y < pl.h; y++)
                bad_pad += memcmp(o + y * w, o2 + y * w, pl.w) != 0;
            CHECK(!bad_pad, "render rows, %dx%d plane %d phi %d range %d, planes padded by %d: %d rows differ",
                  w, h, l, phi, range, pad, bad_pad);
            /* and two chroma planes at once from them, the second of other content */
            if (l) {
                uint8_t *o3 = malloc((size_t)w * h);
                McfpsPlane two[2] = { pp, pp };

                two[1].a   = b0;
                two[1].b   = a0;
                two[1].dst = o3;
                memset(o2, 0, (size_t)w * h);
                ff_mcfps_render_rows(&p, &dsp, two, 2, vec, info, 0, pl.h);
                bad_pad = 0;
                for (int y = 0; y < pl.h; y++)
                    for (int x = 0; x < pl.w; x++)
                        bad_pad += o2[y * w + x] != o[y * w + x] ||
                                   o3[y * w + x] != mcfps_render_pixel(&p, b, w, a, w, 1, pl.w, pl.h,
                                                                       lx, ly, vec, info, x, y);
                CHECK(!bad_pad, "render rows, %dx%d plane %d phi %d range %d, two planes padded by %d: "
                      "%d samples differ", w, h, l, phi, range, pad, bad_pad);
                free(o3);
            }
            free(pa); free(pb); free(o2);
        }
    }
    CHECK(!bad_px, "render rows, %dx%d phi %d range %d: %d samples differ from mcfps_render_pixel",
          w, h, phi, range, bad_px);
    free(a); free(b); free(o); free(ra); free(rb); free(fa); free(fb); free(fp); free(smooth);
    free(vec); free(vec1); free(info); free(info1);
}

typedef void (*PredictFn)(int16_t *out, const uint8_t *src, ptrdiff_t stride, const int8_t *taps, int h);
typedef void (*PredictPairFn)(int16_t *out, const uint8_t *src0, const uint8_t *src1, ptrdiff_t stride,
                              const int8_t *taps, int h);

/* of 2000 blocks width x h of random or 0/255 samples of a (w x h), those
 * whose predictions with ntaps (8: mcfps_tap8(), 4: mcfps_tap()) differ */
static int predict_mismatches(PredictFn c, PredictFn simd, int ntaps, int width, uint8_t *a, int w, int ht)
{
    const int half = ntaps / 2, fractions = ntaps == 8 ? 16 : 32;
    int bad = 0;

    for (int t = 0; t < 2000; t++) {
        const int extreme = t % 5 == 4, h = 1 + rnd() % 8;
        const int fx = rnd() % fractions, fy = rnd() % fractions;
        const int x = half - 1 + rnd() % (w - (8 + ntaps - 1) + 1);
        const int y = half - 1 + rnd() % (ht - h - (ntaps - 1) + 1);
        int16_t want[64], got[64];
        int8_t taps[16];

        for (int i = 0; i < ntaps; i++) {
            taps[i]         = ntaps == 8 ? mcfps_tap8(fx, i) : mcfps_tap(fx, i);
            taps[ntaps + i] = ntaps == 8 ? mcfps_tap8(fy, i) : mcfps_tap(fy, i);
        }
        for (int i = 0; i < w * ht; i++)
            a[i] = extreme ? 255 * (rnd() & 1) : rnd();
        c(want, a + y * w + x, w, taps, h);
        simd(got, a + y * w + x, w, taps, h);
        for (int r = 0; r < h; r++)
            if (memcmp(want + 8 * r, got + 8 * r, width * sizeof(*want))) {
                bad++;
                break;
            }
    }
    return bad;
}

/*
 * mismatches of a predict4x2_4tap() against predict4_4tap() of each plane:
 * two blocks at different places of planes a and b of one stride
 */
static int predict_pair_mismatches(PredictFn one, PredictPairFn pair, uint8_t *a, uint8_t *b, int w, int ht)
{
    int bad = 0;

    for (int t = 0; t < 2000; t++) {
        const int extreme = t % 5 == 4, h = 1 + rnd() % 8;
        const int fx = rnd() % 32, fy = rnd() % 32;
        const int x = 1 + rnd() % (w - 10 + 1), y = 1 + rnd() % (ht - h - 3 + 1);
        int16_t want[64], got[64];
        int8_t taps[8];

        for (int i = 0; i < 4; i++) {
            taps[i]     = mcfps_tap(fx, i);
            taps[4 + i] = mcfps_tap(fy, i);
        }
        for (int i = 0; i < w * ht; i++) {
            a[i] = extreme ? 255 * (rnd() & 1) : rnd();
            b[i] = extreme ? 255 * (rnd() & 1) : rnd();
        }
        one(want, a + y * w + x, w, taps, h);
        one(want + 4, b + y * w + x, w, taps, h);
        pair(got, a + y * w + x, b + y * w + x, w, taps, h);
        for (int r = 0; r < h; r++)
            if (memcmp(want + 8 * r, got + 8 * r, 8 * sizeof(*want))) {
                bad++;
                break;
            }
    }
    return bad;
}

/* the SIMD bilateral_sad16() against the C one: random and extreme samples,
 * every weight, limits that stop it early or not */
/*
 * ff_mcfps_check_rows() against mcfps_check_px() on random pictures and
 * fields of every quarter-pel fraction, ends inside and outside the
 * picture, at random phases, in slices
 */
static void check_motion_rows_random(int w, int h, int range)
{
    McfpsParams p = { .width = w, .height = h, .cw = (w + 7) / 8, .ch = (h + 7) / 8 };
    int16_t *d = malloc(p.cw * p.ch * 4);
    uint8_t *f[3];

    for (int n = 0; n < 3; n++) {
        f[n] = malloc((size_t)w * h);
        for (int k = 0; k < w * h; k++)
            f[n][k] = rnd() & 255;
    }
    for (int t = 0; t < 8; t++) {
        const int phi = 1 + rnd() % 255, slices = 1 + t % 4, rows = (h + 1) / 2;
        uint64_t em = 0, eb = 0, sm = 0, sb = 0;

        for (int k = 0; k < 2 * p.cw * p.ch; k++)
            d[k] = rnd() % 4 ? rnd() % (2 * range + 1) - range : rnd() % 9 - 4;
        for (int y = 0; y < h; y += MCFPS_CHECK_STEP)
            for (int x = 0; x < w; x += MCFPS_CHECK_STEP) {
                int e1, e0;
                mcfps_check_px(&p, d, phi, f[0], w, f[1], w, f[2], w, x, y, &e1, &e0);
                em += e1;
                eb += e0;
            }
        for (int s = 0; s < slices; s++) {
            uint64_t e1, e0;
            ff_mcfps_check_rows(&p, d, phi, f[0], w, f[1], w, f[2], w, rows * s / slices * 2,
                                FFMIN(rows * (s + 1) / slices * 2, h), &e1, &e0);
            sm += e1;
            sb += e0;
        }
        CHECK(sm == em && sb == eb, "motion check rows, %dx%d phi %d range %d: %llu %llu against %llu %llu",
              w, h, phi, range, (unsigned long long)sm, (unsigned long long)sb,
              (unsigned long long)em, (unsigned long long)eb);
    }
    for (int n = 0; n < 3; n++)
        free(f[n]);
    free(d);
}

/*
 * The motion check: P, A and B a texture moving by v per frame, d = 2v
 * through A at phase 128: A is rebuilt exactly away from the edges; the
 * sums of ff_mcfps_check_rows() over slices are those of mcfps_check_px()
 * over the pixels it reads; the trust formula at its ends and middle.
 */
static void check_motion_check(int w, int h, int vx, int vy)
{
    const int pad = 64, tw = w + 2 * pad, th = h + 2 * pad;
    uint8_t *t = texture(tw, th);
    uint8_t *f[3];
    McfpsParams p = { .width = w, .height = h, .cw = (w + 7) / 8, .ch = (h + 7) / 8 };
    int16_t *d = malloc(p.cw * p.ch * 4);
    const int m = abs(vx) + abs(vy) + 2;
    uint64_t em = 0, eb = 0, em_in = 0, sm = 0, sb = 0;

    for (int n = 0; n < 3; n++) {
        f[n] = malloc((size_t)w * h);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                f[n][y * w + x] = t[(y + pad - n * vy) * tw + x + pad - n * vx];
    }
    for (int k = 0; k < p.cw * p.ch; k++) {
        d[2 * k]     = 8 * vx;
        d[2 * k + 1] = 8 * vy;
    }
    for (int y = 0; y < h; y += MCFPS_CHECK_STEP)
        for (int x = 0; x < w; x += MCFPS_CHECK_STEP) {
            int e1, e0;
            mcfps_check_px(&p, d, 128, f[0], w, f[1], w, f[2], w, x, y, &e1, &e0);
            em += e1;
            eb += e0;
            if (x >= m && y >= m && x < w - m && y < h - m)
                em_in += e1;
        }
    CHECK(!em_in, "motion check, translation (%d, %d), %dx%d: interior error %llu",
          vx, vy, w, h, (unsigned long long)em_in);
    for (int s = 0; s < 3; s++) {
        const int rows = (h + 1) / 2;
        uint64_t e1, e0;
        ff_mcfps_check_rows(&p, d, 128, f[0], w, f[1], w, f[2], w,
                            rows * s / 3 * 2, FFMIN(rows * (s + 1) / 3 * 2, h), &e1, &e0);
        sm += e1;
        sb += e0;
    }
    CHECK(sm == em && sb == eb, "motion check rows, %dx%d: %llu %llu against %llu %llu",
          w, h, (unsigned long long)sm, (unsigned long long)sb,
          (unsigned long long)em, (unsigned long long)eb);
    CHECK(mcfps_trust(0, 0) == 256 && mcfps_trust(0, 5) == 256 && mcfps_trust(5, 0) == 0 &&
          mcfps_trust(4, 1) == 128 && mcfps_trust(12, 1) == 64,
          "trust: %d %d %d %d %d", mcfps_trust(0, 0), mcfps_trust(0, 5), mcfps_trust(5, 0),
          mcfps_trust(4, 1), mcfps_trust(12, 1));
    for (int n = 0; n < 3; n++)
        free(f[n]);
    free(t);
    free(d);
}

static void check_dsp(void)
{
    enum { W = 64, H = 40 };
    McfpsDSPContext c, simd;
    uint8_t a[W * H], b[W * H];
    int bad = 0;

    av_force_cpu_flags(0);
    ff_mcfps_dsp_init(&c);
    av_force_cpu_flags(-1);
    ff_mcfps_dsp_init(&simd);
    for (int t = 0; t < 2000; t++) {
        const int extreme = t % 5 == 4, h = 1 + rnd() % 16;
        const int fa = rnd() % 16, fb = rnd() % 16, fax = fa & 3, fay = fa >> 2, fbx = fb & 3, fby = fb >> 2;
        const int8_t wt[8] = {
            (4 - fax) * (4 - fay), fax * (4 - fay), (4 - fax) * fay, fax * fay,
            (4 - fbx) * (4 - fby), fbx * (4 - fby), (4 - fbx) * fby, fbx * fby,
        };
        const int ax = rnd() % (W - 17 + 1), ay = rnd() % (H - h - 1 + 1);
        const int bx = rnd() % (W - 17 + 1), by = rnd() % (H - h - 1 + 1);
        const uint32_t limit = rnd() % 2 ? UINT32_MAX : rnd() % (16 * 16 * 256);
        uint32_t want, got;

        for (int i = 0; i < W * H; i++) {
            a[i] = extreme ? 255 * (rnd() & 1) : rnd();
            b[i] = extreme ? 255 * (rnd() & 1) : rnd();
        }
        want = c.bilateral_sad16(a + ay * W + ax, W, b + by * W + bx, W, wt, h, limit);
        got  = simd.bilateral_sad16(a + ay * W + ax, W, b + by * W + bx, W, wt, h, limit);
        /* both exact below the limit, both at least the limit otherwise */
        bad += want < limit || got < limit ? want != got : 0;
    }
    CHECK_SIMD(simd.bilateral_sad16, c.bilateral_sad16, "bilateral_sad16",
               !bad, "bilateral_sad16: SIMD and C differ in %d of 2000 windows", bad);

    /* the planes of one fraction, and the errors between them */
    bad = 0;
    for (int t = 0; t < 500; t++) {
        const int f = rnd() % 16, fx = f & 3, fy = f >> 2, width = 1 + rnd() % (W - 16), rows = 1 + rnd() % (H - 1);
        const int8_t wt[4] = { (4 - fx) * (4 - fy), fx * (4 - fy), (4 - fx) * fy, fx * fy };
        uint8_t want[W * H], got[W * H];

        for (int i = 0; i < W * H; i++)
            a[i] = t % 5 == 4 ? 255 * (rnd() & 1) : rnd();
        c.bilinear_plane(want, W, a, W, wt, width, rows);
        simd.bilinear_plane(got, W, a, W, wt, width, rows);
        for (int y = 0; y < rows; y++)
            if (memcmp(want + y * W, got + y * W, width)) {
                bad++;
                break;
            }
    }
    CHECK_SIMD(simd.bilinear_plane, c.bilinear_plane, "bilinear_plane",
               !bad, "bilinear_plane: SIMD and C differ in %d of 500 planes", bad);
    bad = 0;
    for (int t = 0; t < 2000; t++) {
        const int h = 1 + rnd() % 16, width = t % 2 ? 16 : 1 + rnd() % 16;
        const int ax = rnd() % (W - 16 + 1), ay = rnd() % (H - h + 1);
        const int bx = rnd() % (W - 16 + 1), by = rnd() % (H - h + 1);
        const uint32_t limit = rnd() % 2 ? UINT32_MAX : rnd() % (16 * 16 * 256);
        uint32_t want, got;

        for (int i = 0; i < W * H; i++) {
            a[i] = t % 5 == 4 ? 255 * (rnd() & 1) : rnd();
            b[i] = t % 5 == 4 ? 255 * (rnd() & 1) : rnd();
        }
        if (width == 16) {
            want = c.sad16(a + ay * W + ax, W, b + by * W + bx, W, h, limit);
            got  = simd.sad16(a + ay * W + ax, W, b + by * W + bx, W, h, limit);
        } else {
            want = c.sad_part(a + ay * W + ax, W, b + by * W + bx, W, h, limit, width);
            got  = simd.sad_part(a + ay * W + ax, W, b + by * W + bx, W, h, limit, width);
        }
        bad += want < limit || got < limit ? want != got : 0;
    }
    CHECK_SIMD(simd.sad16, c.sad16, "sad16, sad_part",
               !bad, "sad16, sad_part: SIMD and C differ in %d of 2000 windows", bad);

    bad = predict_mismatches(c.predict8_8tap, simd.predict8_8tap, 8, 8, a, W, H);
    CHECK_SIMD(simd.predict8_8tap, c.predict8_8tap, "predict8_8tap",
               !bad, "predict8_8tap: SIMD and C differ in %d of 2000 blocks", bad);
    bad = predict_mismatches(c.predict8_4tap, simd.predict8_4tap, 4, 8, a, W, H);
    CHECK_SIMD(simd.predict8_4tap, c.predict8_4tap, "predict8_4tap",
               !bad, "predict8_4tap: SIMD and C differ in %d of 2000 blocks", bad);
    bad = predict_mismatches(c.predict4_4tap, simd.predict4_4tap, 4, 4, a, W, H);
    CHECK_SIMD(simd.predict4_4tap, c.predict4_4tap, "predict4_4tap",
               !bad, "predict4_4tap: SIMD and C differ in %d of 2000 blocks", bad);
    bad = predict_pair_mismatches(c.predict4_4tap, c.predict4x2_4tap, a, b, W, H);
    CHECK(!bad, "predict4x2_4tap: C and two predict4_4tap() differ in %d of 2000 blocks", bad);
    bad = predict_pair_mismatches(c.predict4_4tap, simd.predict4x2_4tap, a, b, W, H);
    CHECK_SIMD(simd.predict4x2_4tap, c.predict4x2_4tap, "predict4x2_4tap",
               !bad, "predict4x2_4tap: SIMD and two predict4_4tap() differ in %d of 2000 blocks", bad);
}

static void check_dominant(void)
{
    /* one for every call, as the filter keeps it: its table must be zero
     * again after each pair */
    McfpsDominant d = { 0 };

    /* ties between a vector counted in the table and one sorted beside it:
     * the least (vy, vx) wins, on either side */
    for (int t = 0; t < 2; t++) {
        McfpsParams p = { .cw = 3, .ch = 2 };
        const int oy = t ? 130 : -130;
        int16_t f[2][12] = { { 1, 5, 1, 5, 1, 5, 0, oy, 0, oy, 0, oy } }; /* rb: all (0, 0) */
        int gx, gy;
        ff_mcfps_dominant(&d, &p, f[0], f[1], &gx, &gy);
        CHECK(gx == (t ? 1 : 0) && gy == (t ? 5 : oy), "dominant of a tie (1, 5) / (0, %d): (%d, %d)",
              oy, gx, gy);
    }
    for (int t = 0; t < 80; t++) {
        const int cw = 1 + rnd() % 40, ch = 1 + rnd() % 30, cells = cw * ch;
        /* 150: vectors on both sides of the counting table's edge (127) */
        const int spread = (int[]){ 1, 3, t < 40 ? 50 : 150, 32767 }[t % 4];
        McfpsParams p = { .cw = cw, .ch = ch };
        int16_t *ra = malloc(4 * cells * sizeof(*ra)), *rb = ra + 2 * cells;
        int gx, gy, best_n = 0, bx = 0, by = 0;
        for (int i = 0; i < 4 * cells; i++)
            ra[i] = t % 5 == 4 ? 0 : (int16_t)(rnd() % (2 * spread + 1) - spread);
        /* from t = 40 on, fields of runs, as real ones are: each cell
         * repeats the one before it (or, at a row's start, the one above)
         * three times in four, (0, 0) or a vector of either field among them */
        for (int k = 1; t >= 40 && k < 2 * cells; k++) {
            const int from = k % cw || k < cw ? k - 1 : k - cw;
            if (rnd() % 4) {
                ra[2 * k]     = ra[2 * from];
                ra[2 * k + 1] = ra[2 * from + 1];
            }
        }
        if (t % 7 == 3)
            ra[0] = -32768, ra[1] = 32767;
        ff_mcfps_dominant(&d, &p, ra, rb, &gx, &gy);
        /* by counting: every non-zero vector of both fields */
        for (int i = 0; i < 2 * cells; i++) {
            const int vx = ra[2 * i], vy = ra[2 * i + 1];
            int n = 0;
            if (!vx && !vy)
                continue;
            for (int k = 0; k < 2 * cells; k++)
                n += ra[2 * k] == vx && ra[2 * k + 1] == vy;
            if (n > best_n || (n == best_n && (vy < by || (vy == by && vx < bx)))) {
                best_n = n;
                bx = vx;
                by = vy;
            }
        }
        CHECK(gx == bx && gy == by, "dominant of %dx%d cells (spread %d): (%d, %d), want (%d, %d)",
              cw, ch, spread, gx, gy, bx, by);
        free(ra);
    }
    ff_mcfps_dominant_uninit(&d);
}

static void check_format(void)
{
    static const enum AVPixelFormat refused[] = {
        AV_PIX_FMT_RGB24, AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_P010LE, AV_PIX_FMT_NV24,
        AV_PIX_FMT_YUYV422, AV_PIX_FMT_PAL8, AV_PIX_FMT_GRAY16LE, AV_PIX_FMT_CUDA,
        AV_PIX_FMT_YUV410P, AV_PIX_FMT_YUV411P,
    };
    McfpsFormat f;
    int err = ff_mcfps_format(&f, 67, 37, AV_PIX_FMT_NV21);

    CHECK(!err && f.nb_planes == 3 && f.nb_frame_planes == 2 &&
          f.plane[0] == 0 && f.offset[0] == 0 && f.step[0] == 1 &&
          f.plane[1] == 1 && f.offset[1] == 1 && f.step[1] == 2 &&
          f.plane[2] == 1 && f.offset[2] == 0 && f.step[2] == 2 &&
          f.w[1] == 34 && f.h[1] == 19 && f.lx[2] == 1 && f.ly[2] == 1 &&
          f.fw[0] == 67 && f.fh[0] == 37 && f.fstep[0] == 1 &&
          f.fw[1] == 68 && f.fh[1] == 19 && f.fstep[1] == 2,
          "ff_mcfps_format(nv21, 67x37): %d", err);
    err = ff_mcfps_format(&f, 67, 37, AV_PIX_FMT_YUVA420P);
    CHECK(!err && f.nb_planes == 4 && f.nb_frame_planes == 4 && f.plane[3] == 3 && f.step[3] == 1 &&
          f.w[3] == 67 && f.fw[2] == 34 && f.fh[2] == 19,
          "ff_mcfps_format(yuva420p, 67x37): %d", err);
    for (int i = 0; i < FF_ARRAY_ELEMS(refused); i++)
        CHECK(ff_mcfps_format(&f, 64, 48, refused[i]) == AVERROR(EINVAL),
              "ff_mcfps_format(%s) accepted", av_get_pix_fmt_name(refused[i]));
}

/**
 * The CPU backend in *ctx with the given number of slices, frames in[0]
 * and in[1] in slots 0 and 1 and, in mode mc, fields ra and rb; *ctx is
 * NULL after a failure.
 */
static int open_cpu_backend(void **ctx, int slices, const McfpsFormat *fm, AVFrame *const in[2],
                            const McfpsParams *p, const int16_t *ra, const int16_t *rb, int mode)
{
    const McfpsHost host = { .nb_threads = slices };
    const McfpsBackend *be = &ff_mcfps_backend_cpu;
    int err;

    *ctx = calloc(1, be->priv_size);
    err  = *ctx ? be->init(*ctx, &host, fm) : AVERROR(ENOMEM);
    if (err < 0) {
        free(*ctx);
        *ctx = NULL;
        return err;
    }
    for (int n = 0; n < 2 && err >= 0; n++)
        err = be->load(*ctx, n, in[n]);
    if (err >= 0 && mode == MCFPS_MODE_MC)
        err = be->fields(*ctx, p, ra, rb);
    if (err < 0) {
        be->uninit(*ctx);
        free(*ctx);
        *ctx = NULL;
    }
    return err;
}

/**
 * The CPU backend on frames of fmt (interleaved chroma) against the same
 * pictures as yuv420p, pairs (0, 1) in slots (0, 1) at several phases.
 */
static void check_interleaved(int w, int h, enum AVPixelFormat fmt, int mode, int threads)
{
    static const int phases[] = { 1, 64, 128, 171, 255 };
    const McfpsBackend *be = &ff_mcfps_backend_cpu;
    McfpsParams p = { .width = w, .height = h, .cw = (w + 7) / 8, .ch = (h + 7) / 8,
                      .lambda = rnd() % 3, .rel_lo = MCFPS_REL_LO, .rel_hi = MCFPS_REL_HI,
                      .gx = rnd() % 41 - 20, .gy = rnd() % 41 - 20 };
    const int cells = p.cw * p.ch;
    int16_t *ra = malloc(cells * 4), *rb = malloc(cells * 4);
    McfpsFormat fm[2];
    AVFrame *in[2][2] = { { NULL } };
    void *ctx[2] = { NULL };
    int bad = 0, guard = 0, err = 0;

    /* format 0: yuv420p, 1: fmt; the same random samples in both */
    if (ff_mcfps_format(&fm[0], w, h, AV_PIX_FMT_YUV420P) < 0 || ff_mcfps_format(&fm[1], w, h, fmt) < 0) {
        CHECK(0, "%s %dx%d: ff_mcfps_format", av_get_pix_fmt_name(fmt), w, h);
        goto end;
    }
    for (int n = 0; n < 2; n++) {
        in[0][n] = mcfps_test_frame(w, h, AV_PIX_FMT_YUV420P);
        in[1][n] = mcfps_test_frame(w, h, fmt);
        if (!in[0][n] || !in[1][n])
            goto end;
        for (int i = 0; i < 3; i++)
            for (int y = 0; y < fm[0].h[i]; y++)
                for (int x = 0; x < fm[0].w[i]; x++) {
                    const int v = rnd() & 255;
                    *mcfps_test_sample(&fm[0], in[0][n], i, x, y) = v;
                    *mcfps_test_sample(&fm[1], in[1][n], i, x, y) = v;
                }
    }
    random_field(ra, cells, 64);
    random_field(rb, cells, 64);
    for (int f = 0; f < 2 && err >= 0; f++)
        err = open_cpu_backend(&ctx[f], threads, &fm[f], in[f], &p, ra, rb, mode);
    for (int k = 0; k < FF_ARRAY_ELEMS(phases) && err >= 0; k++) {
        AVFrame *out[2] = { mcfps_test_frame(w, h, AV_PIX_FMT_YUV420P), mcfps_test_frame(w, h, fmt) };
        p.phi = phases[k];
        err = out[0] && out[1] ? 0 : AVERROR(ENOMEM);
        for (int f = 0; f < 2 && err >= 0; f++)
            err = be->render(ctx[f], &p, mode, 0, 1, out[f]);
        for (int i = 0; i < 3 && err >= 0; i++)
            for (int y = 0; y < fm[0].h[i]; y++)
                for (int x = 0; x < fm[0].w[i]; x++)
                    bad += *mcfps_test_sample(&fm[0], out[0], i, x, y) !=
                           *mcfps_test_sample(&fm[1], out[1], i, x, y);
        /* the rows' padding */
        for (int fp = 0; fp < fm[1].nb_frame_planes && err >= 0; fp++)
            for (int y = 0; y < fm[1].fh[fp]; y++)
                for (int x = fm[1].fw[fp]; x < out[1]->linesize[fp]; x++)
                    guard += out[1]->data[fp][(ptrdiff_t)y * out[1]->linesize[fp] + x] != 0x5a;
        av_frame_free(&out[0]);
        av_frame_free(&out[1]);
    }
end:
    CHECK(err >= 0 && !bad && !guard && in[1][1],
          "%s %dx%d %s, %d slices: %d samples differ from yuv420p's, %d padding bytes written (%d)",
          av_get_pix_fmt_name(fmt), w, h, mode == MCFPS_MODE_MC ? "mc" : "blend", threads, bad, guard, err);
    for (int f = 0; f < 2; f++) {
        if (ctx[f])
            be->uninit(ctx[f]);
        free(ctx[f]);
        av_frame_free(&in[f][0]);
        av_frame_free(&in[f][1]);
    }
    free(ra);
    free(rb);
}

/**
 * One picture through the CPU backend with the given number of slices:
 * frames in[0] and in[1] in slots 0 and 1, fields ra and rb, into out.
 */
static int render_slices(const McfpsFormat *fm, int slices, AVFrame *const in[2], const McfpsParams *p,
                         const int16_t *ra, const int16_t *rb, int mode, AVFrame *out)
{
    const McfpsBackend *be = &ff_mcfps_backend_cpu;
    void *ctx;
    int err = open_cpu_backend(&ctx, slices, fm, in, p, ra, rb, mode);

    if (err < 0)
        return err;
    err = be->render(ctx, p, mode, 0, 1, out);
    be->uninit(ctx);
    free(ctx);
    return err;
}

/**
 * The CPU backend's slice jobs (whole tile rows of every plane) against one
 * job: the same samples in every plane, at random phases.
 */
static void check_backend_slices(int w, int h, enum AVPixelFormat fmt, int mode)
{
    static const int slices[] = { 2, 3, 5 };
    McfpsParams p = { .width = w, .height = h, .cw = (w + 7) / 8, .ch = (h + 7) / 8,
                      .lambda = rnd() % 3, .rel_lo = MCFPS_REL_LO, .rel_hi = MCFPS_REL_HI };
    const int cells = p.cw * p.ch;
    int16_t *ra = malloc(cells * 4), *rb = malloc(cells * 4);
    AVFrame *in[2] = { mcfps_test_frame(w, h, fmt), mcfps_test_frame(w, h, fmt) };
    AVFrame *ref = mcfps_test_frame(w, h, fmt), *out = mcfps_test_frame(w, h, fmt);
    McfpsFormat fm;
    int err = ra && rb && in[0] && in[1] && ref && out ? ff_mcfps_format(&fm, w, h, fmt) : AVERROR(ENOMEM);
    int bad = 0, n = 0;

    for (int f = 0; f < 2 && err >= 0; f++)
        for (int i = 0; i < fm.nb_planes; i++)
            for (int y = 0; y < fm.h[i]; y++)
                for (int x = 0; x < fm.w[i]; x++)
                    *mcfps_test_sample(&fm, in[f], i, x, y) = rnd() & 255;
    if (err >= 0) {
        random_field(ra, cells, 24);
        random_field(rb, cells, 24);
        p.phi = 1 + rnd() % 255;
        err = render_slices(&fm, 1, in, &p, ra, rb, mode, ref);
    }
    for (int k = 0; k < FF_ARRAY_ELEMS(slices) && err >= 0 && !bad; k++) {
        n   = slices[k];
        err = render_slices(&fm, n, in, &p, ra, rb, mode, out);
        for (int i = 0; i < fm.nb_planes && err >= 0; i++)
            for (int y = 0; y < fm.h[i]; y++)
                for (int x = 0; x < fm.w[i]; x++)
                    bad += *mcfps_test_sample(&fm, out, i, x, y) != *mcfps_test_sample(&fm, ref, i, x, y);
    }
    CHECK(err >= 0 && !bad, "%s %dx%d %s at phi %d: %d samples of %d slices differ from one slice's (%d)",
          av_get_pix_fmt_name(fmt), w, h, mode == MCFPS_MODE_MC ? "mc" : "blend", p.phi, bad, n, err);
    av_frame_free(&in[0]);
    av_frame_free(&in[1]);
    av_frame_free(&ref);
    av_frame_free(&out);
    free(ra);
    free(rb);
}

int main(void)
{
    check_sampler();
    check_raster();
    check_raster_runs();
    check_raster_threads();
    check_median();
    check_motion_check(96, 64, 3, -2);
    check_motion_check(77, 45, -5, 4);
    check_motion_check(17, 9, 1, 1);
    check_motion_rows_random(96, 64, 24);
    check_motion_rows_random(77, 45, 64);
    check_motion_rows_random(130, 71, 300);
    check_motion_rows_random(17, 9, 16);
    check_motion_rows_random(1, 1, 8);
    check_motion_rows_random(2, 3, 8);
    check_dsp();
    /* the row functions with this CPU's SIMD functions, then with C only */
    for (int simd = 1; simd >= 0; simd--) {
        av_force_cpu_flags(simd ? -1 : 0);
        ff_mcfps_dsp_init(&dsp);
        check_translation(96, 64, 6, -4, 128);
        check_translation(96, 64, 8, 4, 64);
        check_translation(96, 64, -8, 12, 192);
        check_translation(77, 45, 2, 2, 128);
        check_translation(64, 48, 0, 0, 100);
        check_bend();
        check_rows(96, 64, 128, 24);
        check_rows(77, 45, 37, 64);
        check_rows(130, 71, 211, 300);
        check_rows(17, 9, 1, 16);
        check_rows(1, 1, 255, 8);
        check_rows(64, 48, 128, 0);
    }
    av_force_cpu_flags(-1);
    /* last: the textures above come from the same generator */
    check_dominant();
    check_format();
    check_interleaved(96, 64, AV_PIX_FMT_NV12, MCFPS_MODE_MC, 1);
    check_interleaved(96, 64, AV_PIX_FMT_NV12, MCFPS_MODE_MC, 3);
    check_interleaved(77, 45, AV_PIX_FMT_NV12, MCFPS_MODE_MC, 3);
    check_interleaved(77, 45, AV_PIX_FMT_NV21, MCFPS_MODE_MC, 2);
    check_interleaved(130, 71, AV_PIX_FMT_NV21, MCFPS_MODE_MC, 1);
    check_interleaved(17, 9, AV_PIX_FMT_NV12, MCFPS_MODE_MC, 1);
    check_interleaved(1, 1, AV_PIX_FMT_NV12, MCFPS_MODE_MC, 1);
    check_interleaved(77, 45, AV_PIX_FMT_NV12, MCFPS_MODE_BLEND, 3);
    {
        static const enum AVPixelFormat fmts[] = {
            AV_PIX_FMT_YUV420P, AV_PIX_FMT_NV12, AV_PIX_FMT_YUV422P, AV_PIX_FMT_YUV440P,
            AV_PIX_FMT_YUV444P, AV_PIX_FMT_YUVA420P, AV_PIX_FMT_GRAY8,
        };
        static const int sizes[][2] = { { 96, 64 }, { 77, 45 }, { 33, 130 }, { 17, 9 }, { 5, 3 } };
        for (int f = 0; f < FF_ARRAY_ELEMS(fmts); f++)
            for (int i = 0; i < FF_ARRAY_ELEMS(sizes); i++)
                check_backend_slices(sizes[i][0], sizes[i][1], fmts[f], MCFPS_MODE_MC);
        check_backend_slices(77, 45, AV_PIX_FMT_YUV420P, MCFPS_MODE_BLEND);
        check_backend_slices(33, 130, AV_PIX_FMT_YUV440P, MCFPS_MODE_BLEND);
    }
    printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
    return failed != 0;
}
