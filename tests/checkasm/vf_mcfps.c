/*
 * This file is part of FFmpeg.
 *
 * FFmpeg is free software; you can redistribute it and/or modify
 * it under the terms of the GNU General Public License as published by
 * the Free Software Foundation; either version 2 of the License, or
 * (at your option) any later version.
 *
 * FFmpeg is distributed in the hope that it will be useful,
 * but WITHOUT ANY WARRANTY; without even the implied warranty of
 * MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
 * GNU General Public License for more details.
 *
 * You should have received a copy of the GNU General Public License along
 * with FFmpeg; if not, write to the Free Software Foundation, Inc.,
 * 51 Franklin Street, Fifth Floor, Boston, MA 02110-1301 USA.
 */

#include <string.h>

#include "checkasm.h"
#include "libavfilter/mcfps.h"
#include "libavfilter/mcfps_dsp.h"
#include "libavutil/mem_internal.h"

#define STRIDE 32       /* bytes of a picture row: the widest read is 17 */
#define ROWS   24       /* rows of a picture: the highest read is 17 */

/* random bytes, or only 0 and 255 to reach the largest sums */
static void fill(uint8_t *buf, int size, int extremes)
{
    for (int i = 0; i < size; i++)
        buf[i] = extremes ? (rnd() & 1) * 255 : rnd();
}

/* the weights of probe i's quarter-pel fractions of both ends, as a probe has them */
static void probe_weights(int8_t *w, int i)
{
    const int fax = i & 3, fay = i >> 2 & 3, fbx = i >> 4 & 3, fby = i >> 6;

    w[0] = (4 - fax) * (4 - fay);
    w[1] = fax * (4 - fay);
    w[2] = (4 - fax) * fay;
    w[3] = fax * fay;
    w[4] = (4 - fbx) * (4 - fby);
    w[5] = fbx * (4 - fby);
    w[6] = (4 - fbx) * fby;
    w[7] = fbx * fby;
}

/* call_ref() and call_new() with the arguments, which name limit: with
 * limit UINT32_MAX, then with a limit that the sum reaches, where any value
 * of at least the limit will do */
#define CHECK_LIMITED(...)                                                  \
    do {                                                                    \
        uint32_t limit = UINT32_MAX, r, n;                                  \
        r = call_ref(__VA_ARGS__);                                          \
        n = call_new(__VA_ARGS__);                                          \
        if (r != n)                                                         \
            fail();                                                         \
        limit = 1 + rnd() % (r + 1);                                        \
        r = call_ref(__VA_ARGS__);                                          \
        n = call_new(__VA_ARGS__);                                          \
        if (r < limit ? n != r : n < limit)                                 \
            fail();                                                         \
    } while (0)

/* CHECK_LIMITED() of probe i on random pictures; args: what follows the limit */
#define CHECK_BILATERAL(i, ...)                                             \
    do {                                                                    \
        const int h = 1 + (i) % 16;                                         \
        int8_t w[8];                                                        \
                                                                            \
        probe_weights(w, i);                                                \
        fill(a, ROWS * STRIDE, (i) % 5 == 0);                               \
        fill(b, ROWS * STRIDE, (i) % 5 == 0);                               \
        CHECK_LIMITED(a, STRIDE, b, STRIDE, w, h, limit __VA_ARGS__);       \
    } while (0)

static void check_bilateral_sad16(const McfpsDSPContext *c)
{
    LOCAL_ALIGNED_16(uint8_t, a, [ROWS * STRIDE]);
    LOCAL_ALIGNED_16(uint8_t, b, [ROWS * STRIDE]);
    /* the weights of fractions (2, 2) in a and (1, 1) in b */
    static const int8_t bench_w[8] = { 4, 4, 4, 4, 9, 3, 3, 1 };

    {
        declare_func(uint32_t, const uint8_t *a, ptrdiff_t a_stride,
                     const uint8_t *b, ptrdiff_t b_stride,
                     const int8_t *w, int h, uint32_t limit);

        if (check_func(c->bilateral_sad16, "mcfps_bilateral_sad16")) {
            for (int i = 0; i < 256; i++)
                CHECK_BILATERAL(i, );
            bench_new(a, STRIDE, b, STRIDE, bench_w, 16, UINT32_MAX);
        }
    }
    {
        declare_func(uint32_t, const uint8_t *a, ptrdiff_t a_stride,
                     const uint8_t *b, ptrdiff_t b_stride,
                     const int8_t *w, int h, uint32_t limit, int width);

        if (check_func(c->bilateral_sad_part, "mcfps_bilateral_sad_part")) {
            for (int i = 0; i < 256; i++)
                CHECK_BILATERAL(i, , 1 + i * 7 % 16);
            bench_new(a, STRIDE, b, STRIDE, bench_w, 16, UINT32_MAX, 12);
        }
    }
    report("bilateral_sad16");
}

/* bilinear_plane() at every fraction, and sad16() of the samples it makes */
static void check_phases(const McfpsDSPContext *c)
{
    LOCAL_ALIGNED_16(uint8_t, a, [ROWS * STRIDE]);
    LOCAL_ALIGNED_16(uint8_t, b, [ROWS * STRIDE]);
    LOCAL_ALIGNED_16(uint8_t, dst_ref, [ROWS * STRIDE]);
    LOCAL_ALIGNED_16(uint8_t, dst_new, [ROWS * STRIDE]);

    {
        declare_func(void, uint8_t *dst, ptrdiff_t dst_stride, const uint8_t *src, ptrdiff_t src_stride,
                     const int8_t *w, int width, int h);

        if (check_func(c->bilinear_plane, "mcfps_bilinear_plane")) {
            for (int i = 0; i < 64; i++) {
                /* widths of at most STRIDE - 1: a row's last read is sample FFALIGN(width, 16) */
                const int fx = i & 3, fy = i >> 2 & 3, width = 1 + rnd() % (STRIDE - 1), h = 1 + rnd() % (ROWS - 2);
                const int8_t w[4] = { (4 - fx) * (4 - fy), fx * (4 - fy), (4 - fx) * fy, fx * fy };
                fill(a, ROWS * STRIDE, i % 5 == 0);
                memset(dst_ref, 0, ROWS * STRIDE);
                memset(dst_new, 0, ROWS * STRIDE);
                call_ref(dst_ref, STRIDE, a, STRIDE, w, width, h);
                call_new(dst_new, STRIDE, a, STRIDE, w, width, h);
                for (int y = 0; y < h; y++)
                    if (memcmp(dst_ref + y * STRIDE, dst_new + y * STRIDE, width))
                        fail();
            }
            bench_new(dst_new, STRIDE, a, STRIDE, (const int8_t[4]){ 9, 3, 3, 1 }, STRIDE - 1, ROWS - 2);
        }
    }
    report("bilinear_plane");
    {
        declare_func(uint32_t, const uint8_t *a, ptrdiff_t a_stride, const uint8_t *b, ptrdiff_t b_stride,
                     int h, uint32_t limit);

        if (check_func(c->sad16, "mcfps_sad16")) {
            for (int i = 0; i < 64; i++) {
                fill(a, ROWS * STRIDE, i % 5 == 0);
                fill(b, ROWS * STRIDE, i % 5 == 0);
                CHECK_LIMITED(a, STRIDE, b, STRIDE, 1 + i % 16, limit);
            }
            bench_new(a, STRIDE, b, STRIDE, 16, UINT32_MAX);
        }
    }
    {
        declare_func(uint32_t, const uint8_t *a, ptrdiff_t a_stride, const uint8_t *b, ptrdiff_t b_stride,
                     int h, uint32_t limit, int width);

        if (check_func(c->sad_part, "mcfps_sad_part")) {
            for (int i = 0; i < 64; i++) {
                fill(a, ROWS * STRIDE, i % 5 == 0);
                fill(b, ROWS * STRIDE, i % 5 == 0);
                CHECK_LIMITED(a, STRIDE, b, STRIDE, 1 + i % 16, limit, 1 + i * 7 % 16);
            }
            bench_new(a, STRIDE, b, STRIDE, 16, UINT32_MAX, 12);
        }
    }
    report("sad16");
}

typedef void (*predict_fn)(int16_t *out, const uint8_t *src, ptrdiff_t stride,
                           const int8_t *taps, int h);

/* the taps of fractions fx, fy, nb a direction, as the renderer gives them */
static void predict_taps(int8_t *taps, int nb, int fx, int fy)
{
    for (int t = 0; t < nb; t++) {
        taps[t]      = nb == 8 ? mcfps_tap8(fx, t) : mcfps_tap(fx, t);
        taps[nb + t] = nb == 8 ? mcfps_tap8(fy, t) : mcfps_tap(fy, t);
    }
}

/* call_ref() into out_ref and call_new() into out_new with the arguments
 * after them; the first width values of each of the h rows must agree */
#define CHECK_PREDICT(width, h, ...)                                        \
    do {                                                                    \
        memset(out_ref, 0, 8 * 8 * sizeof(*out_ref));                       \
        memset(out_new, 0, 8 * 8 * sizeof(*out_new));                       \
        call_ref(out_ref, __VA_ARGS__);                                     \
        call_new(out_new, __VA_ARGS__);                                     \
        for (int y = 0; y < (h); y++)                                       \
            if (memcmp(out_ref + 8 * y, out_new + 8 * y, (width) * sizeof(*out_ref))) \
                fail();                                                     \
    } while (0)

/* taps: nb per direction, of fractions 0 .. nb_f - 1; margin: the
 * samples read before the block's first, in x and in y; width: the
 * samples of a row that the function gives */
static void check_predict(predict_fn fn, const char *name, int nb, int nb_f, int margin, int width)
{
    LOCAL_ALIGNED_16(uint8_t, src, [ROWS * STRIDE]);
    LOCAL_ALIGNED_16(int16_t, out_ref, [8 * 8]);
    LOCAL_ALIGNED_16(int16_t, out_new, [8 * 8]);
    const uint8_t *block = src + margin * STRIDE + margin;
    int8_t taps[16];

    declare_func(void, int16_t *out, const uint8_t *src, ptrdiff_t stride,
                 const int8_t *taps, int h);

    if (check_func(fn, "mcfps_%s", name)) {
        for (int fy = 0; fy < nb_f; fy++) {
            for (int fx = 0; fx < nb_f; fx++) {
                const int h = 1 + (fx + fy) % 8;
                predict_taps(taps, nb, fx, fy);
                fill(src, ROWS * STRIDE, (fx ^ fy) & 1);
                CHECK_PREDICT(width, h, block, STRIDE, taps, h);
            }
        }
        bench_new(out_new, block, STRIDE, taps, 8);
    }
    report("%s", name);
}

/* predict4x2_4tap(): the same block of two planes of one stride, side by side in out */
static void check_predict_pair(void (*pair)(int16_t *out, const uint8_t *src0, const uint8_t *src1,
                                            ptrdiff_t stride, const int8_t *taps, int h))
{
    LOCAL_ALIGNED_16(uint8_t, src, [ROWS * STRIDE]);
    LOCAL_ALIGNED_16(int16_t, out_ref, [8 * 8]);
    LOCAL_ALIGNED_16(int16_t, out_new, [8 * 8]);
    const uint8_t *block0 = src + STRIDE + 1, *block1 = src + STRIDE + 1 + 24;
    int8_t taps[8];

    declare_func(void, int16_t *out, const uint8_t *src0, const uint8_t *src1, ptrdiff_t stride,
                 const int8_t *taps, int h);

    if (check_func(pair, "mcfps_predict4x2_4tap")) {
        for (int fy = 0; fy < 32; fy++) {
            for (int fx = 0; fx < 32; fx++) {
                const int h = 1 + (fx + fy) % 8;
                predict_taps(taps, 4, fx, fy);
                fill(src, ROWS * STRIDE, (fx ^ fy) & 1);
                CHECK_PREDICT(8, h, block0, block1, STRIDE, taps, h);
            }
        }
        bench_new(out_new, block0, block1, STRIDE, taps, 4);
    }
    report("predict4x2_4tap");
}

typedef void (*mix_fn)(uint8_t *dst, ptrdiff_t dst_stride, const int16_t *const *ends,
                       const int16_t *avg, const int16_t *coef, const int16_t *wx,
                       const int16_t *wyr, int h);

/* a tile of width 8 or 4 */
static void check_mix(mix_fn fn, const char *name, int width)
{
    LOCAL_ALIGNED_16(int16_t, ends, [9 * 8 * 8]);  /* eight ends and the average */
    LOCAL_ALIGNED_16(int16_t, wx, [2 * 8]);
    LOCAL_ALIGNED_16(uint8_t, dst_ref, [8 * STRIDE]);
    LOCAL_ALIGNED_16(uint8_t, dst_new, [8 * STRIDE]);
    const int16_t *ep[8];
    int16_t coef[8], wyr[8][4];

    declare_func(void, uint8_t *dst, ptrdiff_t dst_stride, const int16_t *const *ends,
                 const int16_t *avg, const int16_t *coef, const int16_t *wx, const int16_t *wyr, int h);

    if (check_func(fn, "mcfps_%s", name)) {
        for (int i = 0; i < 512; i++) {
            const int h = 1 + i % 8, extremes = i % 3 == 0;
            /* the window weights of mcfps_render_pixel(): wx + wx' = 16,
             * wy + wy' = 16, times an OBMC weight r in 1 .. MCFPS_OBMC_RMAX */
            for (int x = 0; x < 8; x++) {
                /* past the tile's width: weights the function must not read */
                wx[8 + x] = x < width ? 1 + rnd() % 15 : 0;
                wx[x]     = x < width ? 16 - wx[8 + x] : 0;
            }
            for (int y = 0; y < 8; y++) {
                const int wy = 1 + rnd() % 15;
                for (int k = 0; k < 4; k++)
                    wyr[y][k] = (k < 2 ? 16 - wy : wy) *
                                (extremes ? MCFPS_OBMC_RMAX : 1 + rnd() % MCFPS_OBMC_RMAX);
            }
            for (int k = 0; k < 8; k++) {
                const int v = rnd() % 5;
                coef[k] = v == 0 ? 0 : v == 1 ? MCFPS_PHI_ONE : rnd() % (MCFPS_PHI_ONE + 1);
                ep[k]   = ends + 64 * (rnd() % 9);  /* ends may repeat, or be the average */
            }
            for (int k = 0; k < 9 * 8 * 8; k++)
                ends[k] = extremes ? (rnd() & 1) * 255 : rnd() & 255;
            memset(dst_ref, 0, 8 * STRIDE);
            memset(dst_new, 0, 8 * STRIDE);
            call_ref(dst_ref, STRIDE, ep, ends + 8 * 64, coef, wx, wyr[0], h);
            call_new(dst_new, STRIDE, ep, ends + 8 * 64, coef, wx, wyr[0], h);
            if (memcmp(dst_ref, dst_new, 8 * STRIDE))
                fail();
        }
        bench_new(dst_new, STRIDE, ep, ends + 8 * 64, coef, wx, wyr[0], 8);
    }
    report("%s", name);
}

void checkasm_check_vf_mcfps(void)
{
    McfpsDSPContext c;

    ff_mcfps_dsp_init(&c);
    check_bilateral_sad16(&c);
    check_phases(&c);
    check_predict(c.predict8_8tap, "predict8_8tap", 8, 16, 3, 8);
    check_predict(c.predict8_4tap, "predict8_4tap", 4, 32, 1, 8);
    check_predict(c.predict4_4tap, "predict4_4tap", 4, 32, 1, 4);
    check_predict_pair(c.predict4x2_4tap);
    check_mix(c.mix8, "mix8", 8);
    check_mix(c.mix4, "mix4", 4);
}
