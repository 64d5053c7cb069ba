/*
 * mvcheck: unit tests of gpume-mv (tools/gpume-mv/): its metrics, vector
 * conversion, truth parser and eval on tiny hand-made frames, against values
 * computed by hand (the arithmetic is in the comments).
 *
 * usage: mvcheck; the last line of its output is "N passed, N failed", exit
 * status 1 on any failure.
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

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "libavutil/error.h"
#include "libavutil/frame.h"
#include "libavutil/log.h"
#include "libavutil/macros.h"

#include "tools/gpume-mv/gpume-mv.h"

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

    expect(t, "sample_q integer", mv_sample_q(&p, 8, 4), 200, 0);
    /* qx=1: x0=0 fx=1: (3*4*0 + 1*4*100 + 8) >> 4 = 408 >> 4 = 25 */
    expect(t, "sample_q quarter", mv_sample_q(&p, 1, 0), 25, 0);
    /* qx=2: (2*4*0 + 2*4*100 + 8) >> 4 = 808 >> 4 = 50 */
    expect(t, "sample_q half", mv_sample_q(&p, 2, 0), 50, 0);
    /* qx=3: (1*4*0 + 3*4*100 + 8) >> 4 = 1208 >> 4 = 75 */
    expect(t, "sample_q three quarters", mv_sample_q(&p, 3, 0), 75, 0);
    /* qx=6: x0=1 fx=2: (8*100 + 8*200 + 8) >> 4 = 2408 >> 4 = 150 */
    expect(t, "sample_q half at x=1", mv_sample_q(&p, 6, 0), 150, 0);
    /* qx=13: x0=3 fx=1, R(4) clamps to R(3)=250: (12*250 + 4*250 + 8) >> 4 = 250 */
    expect(t, "sample_q right edge", mv_sample_q(&p, 13, 0), 250, 0);
    /* qx=-3: x0=-1 fx=1, R(-1) and R(0) clamp to R(0)=0 */
    expect(t, "sample_q left edge", mv_sample_q(&p, -3, 0), 0, 0);
    /* (2,2): a=0 b=16 c=1 d=17, weights 4 4 4 4: (0 + 64 + 4 + 68 + 8) >> 4 = 144 >> 4 = 9 */
    expect(t, "sample_q 2-D half", mv_sample_q(&p2, 2, 2), 9, 0);
    /* (1,3): weights (3*1, 1*1, 3*3, 1*3) on a=0 b=16 c=1 d=17:
     * 0 + 16 + 9 + 51 + 8 = 84, >> 4 = 5 */
    expect(t, "sample_q 2-D quarter", mv_sample_q(&p2, 1, 3), 5, 0);
    /* (-2,-6) at the top-left corner: everything clamps to R(0,0)=0; (14,14): to R(3,3)=51 */
    expect(t, "sample_q corner low", mv_sample_q(&p2, -2, -6), 0, 0);
    expect(t, "sample_q corner high", mv_sample_q(&p2, 14, 14), 51, 0);
}

static void test_conversion(Tests *t)
{
    AVMotionVector mv;
    Block b;
    int ok, bad = 0;

    /* quarter pel: q = motion */
    mv = mk_mv(-1, 16, 16, 8, 8, 3, -3, 4);
    ok = mv_block_from_mv(&mv, 32, 32, &b, &bad);
    expect(t, "qpel valid", ok, 1, 0);
    expect(t, "qpel qx", b.qx, 3, 0);
    expect(t, "qpel qy", b.qy, -3, 0);
    expect(t, "qpel mx", b.mx, 0.75, 1e-12);
    expect(t, "qpel rect x", b.x, 0, 0);
    expect(t, "qpel rect w", b.w, 16, 0);
    /* half pel: q = 2 * motion; integer: 4 * motion */
    mv = mk_mv(-1, 8, 8, 4, 4, 3, -1, 2);
    mv_block_from_mv(&mv, 32, 32, &b, &bad);
    expect(t, "hpel qx", b.qx, 6, 0);
    expect(t, "hpel qy", b.qy, -2, 0);
    mv = mk_mv(1, 8, 8, 4, 4, 2, -5, 1);
    mv_block_from_mv(&mv, 32, 32, &b, &bad);
    expect(t, "ipel qx", b.qx, 8, 0);
    expect(t, "ipel qy", b.qy, -20, 0);
    /* motion_scale 0 (mestimate): src - dst = (10 - 8, 7 - 8) = (2, -1) */
    mv = mk_mv(-1, 16, 16, 8, 8, 2, -1, 0);
    mv_block_from_mv(&mv, 32, 32, &b, &bad);
    expect(t, "scale0 qx", b.qx, 8, 0);
    expect(t, "scale0 qy", b.qy, -4, 0);
    expect(t, "scale0 my", b.my, -1, 0);
    /* scale 8: 4 * 3 / 8 = 1.5 -> 2 (halves up); 4 * -3 / 8 = -1.5 -> -1 */
    mv = mk_mv(-1, 16, 16, 8, 8, 3, -3, 8);
    mv_block_from_mv(&mv, 32, 32, &b, &bad);
    expect(t, "scale8 qx", b.qx, 2, 0);
    expect(t, "scale8 qy", b.qy, -1, 0);
    expect(t, "scale8 mx", b.mx, 0.375, 1e-12);
    expect(t, "consistent vectors", bad, 0, 0);
    /* garbage in motion_x / motion_scale (mestimate leaves them unset):
     * 12345 / 4 is far from src - dst = (2, -1): src - dst is used, q = (8, -4) */
    mv = mk_mv(-1, 16, 16, 8, 8, 2, -1, 0);
    mv.motion_x     = 12345;
    mv.motion_scale = 4;
    mv_block_from_mv(&mv, 32, 32, &b, &bad);
    expect(t, "garbage motion flagged", bad, 1, 0);
    expect(t, "garbage motion qx", b.qx, 8, 0);
    expect(t, "garbage motion qy", b.qy, -4, 0);
    expect(t, "garbage motion mx", b.mx, 2, 0);
    expect(t, "to_qpel 5/4", mv_to_qpel(5, 4), 5, 0);
    expect(t, "to_qpel -1/2", mv_to_qpel(-1, 2), -2, 0);
    /* clipping: 20x10 frame, 16x4 block centred at (18, 9): top-left (10, 7),
     * x in [10, 26) & [0, 20) -> w = 10, y in [7, 11) & [0, 10) -> h = 3 */
    mv = mk_mv(-1, 16, 4, 18, 9, 0, 0, 4);
    ok = mv_block_from_mv(&mv, 20, 10, &b, &bad);
    expect(t, "clip valid", ok, 1, 0);
    expect(t, "clip x", b.x, 10, 0);
    expect(t, "clip y", b.y, 7, 0);
    expect(t, "clip w", b.w, 10, 0);
    expect(t, "clip h", b.h, 3, 0);
    /* a block entirely outside the frame */
    mv = mk_mv(-1, 4, 4, 30, 2, 0, 0, 4);
    expect(t, "outside", mv_block_from_mv(&mv, 20, 10, &b, &bad), 0, 0);
}

static void test_misc(Tests *t)
{
    double v3[3] = { 3, 1, 2 }, v4[4] = { 4, 1, 3, 2 };

    expect(t, "median odd", mv_median(v3, 3), 2, 0);
    expect(t, "median even", mv_median(v4, 4), 2.5, 0);  /* (2 + 3) / 2 */
    expect(t, "median empty", mv_median(NULL, 0), NAN, 0);
    /* 10 log10(255^2 * 16 / 1200) = 10 log10(867) = 29.380191 */
    expect(t, "psnr", mv_psnr(1200, 16), 29.380191, 1e-6);
    expect(t, "psnr zero error", mv_psnr(0, 16), INFINITY, 0);
    expect(t, "json 0.6310", mv_is_json_number("0.6310"), 1, 0);
    expect(t, "json -1e5", mv_is_json_number("-1e5"), 1, 0);
    expect(t, "json .5", mv_is_json_number(".5"), 0, 0);
    expect(t, "json +1", mv_is_json_number("+1"), 0, 0);
    expect(t, "json 0x10", mv_is_json_number("0x10"), 0, 0);
    expect(t, "json 01", mv_is_json_number("01"), 0, 0);
    expect(t, "json 1.", mv_is_json_number("1."), 0, 0);
    expect(t, "json nan", mv_is_json_number("nan"), 0, 0);
    expect(t, "luma gray8", mv_luma_usable(AV_PIX_FMT_GRAY8), 1, 0);
    expect(t, "luma yuv420p", mv_luma_usable(AV_PIX_FMT_YUV420P), 1, 0);
    expect(t, "luma nv12", mv_luma_usable(AV_PIX_FMT_NV12), 1, 0);
    expect(t, "luma rgb24", mv_luma_usable(AV_PIX_FMT_RGB24), 0, 0);
    expect(t, "luma yuyv422", mv_luma_usable(AV_PIX_FMT_YUYV422), 0, 0);
    expect(t, "luma yuv420p10", mv_luma_usable(AV_PIX_FMT_YUV420P10LE), 0, 0);
    expect(t, "luma cuda", mv_luma_usable(AV_PIX_FMT_CUDA), 0, 0);
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
        err = mv_truth_parse(&tr, bad[i], "mvcheck");
        expect(t, name, err < 0, 1, 0);
        mv_truth_free(&tr);
    }
    av_log_set_level(av_level);
    err = mv_truth_parse(&tr, "  \n* 1.5 -0.25 \r\n5 1 1 2 2 2 2 # comment\n", "mvcheck");
    expect(t, "truth parses", err, 0, 0);
    expect(t, "truth lines", tr.nb, 2, 0);
    mv_truth_at(&tr, 7, 0, 0, &dx, &dy);
    expect(t, "truth * dx", dx, 1.5, 0);
    expect(t, "truth * dy", dy, -0.25, 0);
    /* frame 5, (3, 3) is inside the rectangle x, y in [2, 4) */
    mv_truth_at(&tr, 5, 3, 3, &dx, &dy);
    expect(t, "truth rect dx", dx, 1, 0);
    mv_truth_at(&tr, 5, 4, 3, &dx, &dy);
    expect(t, "truth outside rect dx", dx, 1.5, 0);
    mv_truth_free(&tr);
    mv_truth_parse(&tr, "5 1 1\n", "mvcheck");
    expect(t, "truth none", mv_truth_at(&tr, 4, 0, 0, &dx, &dy), 0, 0);
    mv_truth_free(&tr);
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
        if ((err = mv_eval_frame(&e, prev, cur, next, index, &st)) < 0) {                \
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
        expect(t, "shift psnr_fwd", mv_psnr(st.sse[FWD], st.pixels), INFINITY, 0);
        expect(t, "shift mae", st.mae[FWD], 0, 0);
        expect(t, "shift cover", st.cover[FWD], 1, 0);
        /* zero motion: |cur - R| = 10 on 12 pixels, 0 on column 3:
         * SSE = 12 * 100 = 1200, MSE = 75, 10 log10(65025 / 75) = 29.380191 */
        expect(t, "shift psnr0", mv_psnr(st.sse0, st.pixels), 29.380191, 1e-6);
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
        expect(t, "overlap psnr_fwd", mv_psnr(st.sse[FWD], st.pixels), 44.857214, 1e-6);
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
        expect(t, "bi psnr_fwd", mv_psnr(st.sse[FWD], st.pixels), 28.130804, 1e-6);
        expect(t, "bi psnr_bwd", mv_psnr(st.sse[BWD], st.pixels), 27.302950, 1e-6);
        expect(t, "bi psnr_bi", mv_psnr(st.sse_bi, st.pixels), 48.130804, 1e-6);
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
        expect(t, "grid psnr (flat frames)", mv_psnr(st.sse[FWD], st.pixels), INFINITY, 0);
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
        mv_eval_uninit(&e);
        e = (EvalContext) { 0 };
        if (mv_truth_parse(&e.truth, "* 2 1\n3 0 0 0 0 4 4\n", "mvcheck") < 0)
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
        expect(t, "epe overall median", mv_median(e.epe_all, e.nb_epe_all), 0, 1e-12);
        expect(t, "overall frames", e.frames, 2, 0);
    }
    goto end;
oom:
    printf("FAIL mvcheck: out of memory\n");
    t->fail++;
end:
    av_frame_free(&prev);
    av_frame_free(&cur);
    av_frame_free(&next);
    mv_eval_uninit(&e);
#undef FRAMES
#undef MVS
#undef EVAL
}

int main(void)
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

