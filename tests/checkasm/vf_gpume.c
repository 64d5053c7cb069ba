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
#include "libavfilter/gpume.h"
#include "libavfilter/gpume_dsp.h"
#include "libavutil/macros.h"
#include "libavutil/mem_internal.h"

#define STRIDE   96     /* bytes of a picture row */
#define SAD_MAXW 65     /* the level-1 block search's widest row: 2 * 32 + 1 */
#define SAD_STRIDE FFALIGN(SAD_MAXW, 8)

/* random bytes, or only 0 and 255 to reach the largest sums */
static void fill(uint8_t *buf, int size, int extremes)
{
    for (int i = 0; i < size; i++)
        buf[i] = extremes ? (rnd() & 1) * 255 : rnd();
}

static void check_sad4x4_rows(const GpumeDSPContext *c)
{
    LOCAL_ALIGNED_16(uint8_t, cur, [4 * STRIDE]);
    LOCAL_ALIGNED_16(uint8_t, ref, [(8 + 3) * STRIDE]);
    LOCAL_ALIGNED_16(uint16_t, sad_ref, [8 * SAD_STRIDE]);
    LOCAL_ALIGNED_16(uint16_t, sad_new, [8 * SAD_STRIDE]);
    LOCAL_ALIGNED_16(uint16_t, add, [8 * SAD_STRIDE]);

    declare_func(void, uint16_t *sad, ptrdiff_t sad_stride, const uint16_t *add,
                 const uint8_t *cur, ptrdiff_t cur_stride,
                 const uint8_t *ref, ptrdiff_t ref_stride, int w, int h);

    if (check_func(c->sad4x4_rows, "gpume_sad4x4_rows")) {
        for (int w = 1; w <= SAD_MAXW; w++) {
            const int h = 1 + w % 8;
            fill(cur, 4 * STRIDE, w & 1);
            fill(ref, (h + 3) * STRIDE, w & 1);
            /* any sums below 2^16; every other width in place */
            for (int i = 0; i < 8 * SAD_STRIDE; i++)
                add[i] = sad_ref[i] = sad_new[i] = rnd() % (65536 - 16 * 255);
            call_ref(sad_ref, SAD_STRIDE, w & 1 ? sad_ref : add, cur, STRIDE, ref, STRIDE, w, h);
            call_new(sad_new, SAD_STRIDE, w & 1 ? sad_new : add, cur, STRIDE, ref, STRIDE, w, h);
            /* the SADs of the positions up to FFALIGN(w, 8) */
            for (int y = 0; y < h; y++)
                if (memcmp(sad_ref + y * SAD_STRIDE, sad_new + y * SAD_STRIDE, FFALIGN(w, 8) * sizeof(*sad_ref)))
                    fail();
        }
        bench_new(sad_new, SAD_STRIDE, add, cur, STRIDE, ref, STRIDE, SAD_MAXW, 8);
    }
    report("sad4x4_rows");
}

static void check_sad_qpel(const GpumeDSPContext *c)
{
    LOCAL_ALIGNED_16(uint8_t, cur, [32 * STRIDE]);
    LOCAL_ALIGNED_16(uint8_t, ref, [33 * STRIDE]);

    declare_func(uint32_t, const uint8_t *cur, ptrdiff_t cur_stride,
                 const uint8_t *ref, ptrdiff_t ref_stride, int fx, int fy, int w, int h);

    if (check_func(c->sad_qpel, "gpume_sad_qpel")) {
        /* the block sizes, and the widths of blocks cut by the edge */
        static const int widths[] = { 8, 16, 32, 1, 3, 6, 7, 13, 22, 31 };
        for (int i = 0; i < FF_ARRAY_ELEMS(widths); i++) {
            const int w = widths[i];
            for (int f = 1; f < 16; f++) {
                /* even and odd heights, 1 to 32 */
                const int fx = f & 3, fy = f >> 2, h = 1 + (3 * w + 5 * f) % 32;
                uint32_t r, n;
                fill(cur, h * STRIDE, f == 15);
                fill(ref, (h + 1) * STRIDE, f == 15);
                r = call_ref(cur, STRIDE, ref, STRIDE, fx, fy, w, h);
                n = call_new(cur, STRIDE, ref, STRIDE, fx, fy, w, h);
                if (r != n)
                    fail();
            }
        }
        bench_new(cur, STRIDE, ref, STRIDE, 2, 2, 16, 16);
    }
    report("sad_qpel");
}

static void check_sad_hpel(const GpumeDSPContext *c)
{
    LOCAL_ALIGNED_16(uint8_t, cur, [64 * STRIDE]);
    LOCAL_ALIGNED_16(uint8_t, ref, [66 * STRIDE]);
    uint32_t sad_ref[8], sad_new[8];

    declare_func(void, uint32_t *sad, const uint8_t *cur, ptrdiff_t cur_stride,
                 const uint8_t *ref, ptrdiff_t ref_stride, int w, int h);

    if (check_func(c->sad_hpel, "gpume_sad_hpel")) {
        for (int w = 8; w <= 64; w += 8) {
            for (int t = 0; t < 4; t++) {
                /* even and odd heights, 1 to 64; ref points at row 1, sample 1 */
                const int h = t ? 1 + (5 * w + 7 * t) % 64 : 64;
                fill(cur, h * STRIDE, t == 3);
                fill(ref, (h + 2) * STRIDE, t == 3);
                call_ref(sad_ref, cur, STRIDE, ref + STRIDE + 1, STRIDE, w, h);
                call_new(sad_new, cur, STRIDE, ref + STRIDE + 1, STRIDE, w, h);
                if (memcmp(sad_ref, sad_new, sizeof(sad_ref)))
                    fail();
            }
        }
        bench_new(sad_new, cur, STRIDE, ref + STRIDE + 1, STRIDE, 8, 8);
    }
    report("sad_hpel");
}

static void check_sad8x8_grid(const GpumeDSPContext *c)
{
    LOCAL_ALIGNED_16(uint8_t, cur, [32 * STRIDE]);
    LOCAL_ALIGNED_16(uint8_t, ref, [32 * STRIDE]);
    uint32_t sad_ref[4 * 8], sad_new[4 * 8];

    declare_func(void, uint32_t *sad, const uint8_t *cur, ptrdiff_t cur_stride,
                 const uint8_t *ref, ptrdiff_t ref_stride, int cols, int rows);

    if (check_func(c->sad8x8_grid, "gpume_sad8x8_grid")) {
        for (int cols = 2; cols <= 8; cols += 2) {
            for (int rows = 1; rows <= 4; rows++) {
                fill(cur, 8 * rows * STRIDE, rows == 4);
                fill(ref, 8 * rows * STRIDE, rows == 4);
                call_ref(sad_ref, cur, STRIDE, ref, STRIDE, cols, rows);
                call_new(sad_new, cur, STRIDE, ref, STRIDE, cols, rows);
                if (memcmp(sad_ref, sad_new, cols * rows * sizeof(*sad_ref)))
                    fail();
            }
        }
        bench_new(sad_new, cur, STRIDE, ref, STRIDE, 4, 4);
    }
    report("sad8x8_grid");
}

static void check_first_least(const GpumeDSPContext *c)
{
    LOCAL_ALIGNED_16(uint16_t, v, [SAD_MAXW * SAD_STRIDE]);

    declare_func(int, const uint16_t *v, int n);

    if (check_func(c->first_least, "gpume_first_least")) {
        for (int t = 0; t < 48; t++) {
            /* the largest n used, then any */
            const int n = t ? 8 * (1 + rnd() % (SAD_MAXW * SAD_STRIDE / 8)) : SAD_MAXW * SAD_STRIDE;
            int r, i;
            /* any 16 bits; or the least, above 0x8000, at two places among
             * larger values; or all equal */
            for (i = 0; i < n; i++)
                v[i] = t % 3 == 0 ? rnd() : t % 3 == 1 ? 0xfffe + (rnd() & 1) : 0x8000;
            if (t % 3 == 1) {
                v[rnd() % n] = 0x8001;
                v[rnd() % n] = 0x8001;
            }
            r = call_ref(v, n);
            i = call_new(v, n);
            if (r != i)
                fail();
        }
        bench_new(v, 17 * FFALIGN(17, 8));
    }
    report("first_least");
}

static void check_sad_rect(const GpumeDSPContext *c)
{
    /* rows of 64 samples and the 15 that the last step may read past them */
    const int rows = 64;
    LOCAL_ALIGNED_16(uint8_t, cur, [64 * STRIDE]);
    LOCAL_ALIGNED_16(uint8_t, ref, [64 * STRIDE]);

    declare_func(uint32_t, const uint8_t *cur, ptrdiff_t cur_stride,
                 const uint8_t *ref, ptrdiff_t ref_stride, int w, int h, uint32_t limit);

    if (check_func(c->sad_rect, "gpume_sad_rect")) {
        for (int t = 0; t < 256; t++) {
            /* every width, heights 1 to 64 */
            const int w = 1 + t % 64, h = 1 + rnd() % rows;
            uint32_t limit = UINT32_MAX, r, n;

            fill(cur, rows * STRIDE, t % 5 == 0);
            fill(ref, rows * STRIDE, t % 5 == 0);
            r = call_ref(cur, STRIDE, ref, STRIDE, w, h, limit);
            n = call_new(cur, STRIDE, ref, STRIDE, w, h, limit);
            if (r != n)
                fail();
            /* a limit the sum reaches: any value of at least it will do */
            limit = 1 + rnd() % (r + 1);
            r = call_ref(cur, STRIDE, ref, STRIDE, w, h, limit);
            n = call_new(cur, STRIDE, ref, STRIDE, w, h, limit);
            if (r < limit ? n != r : n < limit)
                fail();
        }
        bench_new(cur, STRIDE, ref, STRIDE, 22, 16, UINT32_MAX);
    }
    report("sad_rect");
}

#define MAX_KEYS (GPUME_MAX_OUT_PER_CTU)

static void check_min_keys(const GpumeDSPContext *c)
{
    LOCAL_ALIGNED_32(uint64_t, keys, [MAX_KEYS]);
    LOCAL_ALIGNED_32(uint64_t, keys_ref, [MAX_KEYS]);
    LOCAL_ALIGNED_32(uint64_t, keys_new, [MAX_KEYS]);
    LOCAL_ALIGNED_32(uint32_t, cost, [MAX_KEYS]);

    declare_func(void, uint64_t *keys, const uint32_t *cost, uint32_t add, uint32_t idx, int n);

    if (check_func(c->min_keys, "gpume_min_keys")) {
        for (int t = 0; t < 64; t++) {
            const int n = t ? 4 * (1 + rnd() % (MAX_KEYS / 4)) : MAX_KEYS;
            /* small costs as a CTU has them; or costs from 2^31 on, whose
             * keys have the top bit set; the sums stay below 2^32 */
            const uint32_t base = t % 2 ? 0 : 0x80000000u, add = rnd() % 4096, idx = rnd() % 9000;

            for (int i = 0; i < n; i++) {
                const uint32_t old = base + rnd() % 8192, v = rnd() % 4;
                cost[i] = base + rnd() % 4096;
                /* no key yet; an equal cost with a lower, equal or higher
                 * index; or any */
                keys[i] = v == 0 ? GPUME_INVALID_KEY :
                          v == 1 ? gpume_key(cost[i] + add, idx + rnd() % 3 - 1) :
                                   gpume_key(old, rnd() % 9000);
            }
            memcpy(keys_ref, keys, n * sizeof(*keys));
            memcpy(keys_new, keys, n * sizeof(*keys));
            call_ref(keys_ref, cost, add, idx, n);
            call_new(keys_new, cost, add, idx, n);
            if (memcmp(keys_ref, keys_new, n * sizeof(*keys)))
                fail();
        }
        /* the 16 blocks of a CTU of 32 */
        bench_new(keys_new, cost, 5, 7, 16);
    }
    report("min_keys");
}

static void check_dis_sums(const GpumeDSPContext *c)
{
    LOCAL_ALIGNED_16(uint8_t, ref, [9 * STRIDE]);
    int32_t tpl[64], tgx[64], tgy[64];
    int64_t sums[4];

    declare_func(void, int64_t *sums, const uint8_t *ref, ptrdiff_t stride, const int32_t *t,
                 const int32_t *gx, const int32_t *gy, int fx, int fy);

    if (check_func(c->dis_sums, "gpume_dis_sums")) {
        for (int f = 0; f < 256; f++) {
            /* every fraction; random samples and gradients, or only their
             * extremes, which reach the largest sums */
            const int extremes = f % 4 == 3;
            int64_t r[4], n[4];
            fill(ref, 9 * STRIDE, extremes);
            for (int i = 0; i < 64; i++) {
                tpl[i] = extremes ? (rnd() & 1) * 65280 : f % 2 ? (rnd() & 255) << 8 : rnd() % 65281;
                tgx[i] = extremes ? (rnd() & 1 ? 255 : -255) : (int)(rnd() % 511) - 255;
                tgy[i] = extremes ? (rnd() & 1 ? 255 : -255) : (int)(rnd() % 511) - 255;
            }
            call_ref(r, ref, STRIDE, tpl, tgx, tgy, f & 15, f >> 4);
            call_new(n, ref, STRIDE, tpl, tgx, tgy, f & 15, f >> 4);
            if (memcmp(r, n, sizeof(r)))
                fail();
        }
        bench_new(sums, ref, STRIDE, tpl, tgx, tgy, 5, 11);
    }
    report("dis_sums");
}

static void check_dis_template(const GpumeDSPContext *c)
{
    LOCAL_ALIGNED_16(uint8_t, pic, [10 * STRIDE]);
    int32_t tr[3][64], tn[3][64], sr[5], sn[5];

    declare_func(void, int32_t *t, int32_t *gx, int32_t *gy, int32_t *sums,
                 const uint8_t *c, ptrdiff_t stride);

    if (check_func(c->dis_template, "gpume_dis_template")) {
        for (int i = 0; i < 64; i++) {
            /* random samples, or only 0 and 255, which reach the largest
             * sums; the patch at every column of a 16-byte line */
            const int extremes = i % 4 == 3, x = 1 + i % 16;
            const uint8_t *c0 = pic + STRIDE + x;
            fill(pic, 10 * STRIDE, extremes);
            memset(tr, 0, sizeof(tr));
            memset(tn, 0, sizeof(tn));
            call_ref(tr[0], tr[1], tr[2], sr, c0, STRIDE);
            call_new(tn[0], tn[1], tn[2], sn, c0, STRIDE);
            if (memcmp(tr, tn, sizeof(tr)) || memcmp(sr, sn, sizeof(sr)))
                fail();
        }
        bench_new(tn[0], tn[1], tn[2], sn, pic + STRIDE + 1, STRIDE);
    }
    report("dis_template");
}

#define DIS_PLANE 24   /* elements between the accumulators' planes */

static void check_dis_weights(const GpumeDSPContext *c)
{
    LOCAL_ALIGNED_16(uint8_t, ref, [2 * STRIDE]);
    LOCAL_ALIGNED_16(uint8_t, cur, [16]);
    int64_t acc[3 * DIS_PLANE], acc_ref[3 * DIS_PLANE], acc_new[3 * DIS_PLANE];
    int32_t v[2];

    declare_func(void, int64_t *acc, ptrdiff_t plane, const uint8_t *ref, ptrdiff_t stride,
                 const uint8_t *cur, int fx, int fy, const int32_t *v);

    if (check_func(c->dis_weights, "gpume_dis_weights")) {
        for (int f = 0; f < 256; f++) {
            /* every fraction; random samples and vectors, or their extremes;
             * sums that earlier rows left in the accumulators */
            const int extremes = f % 4 == 3;
            fill(ref, 2 * STRIDE, extremes);
            fill(cur, 16, extremes);
            /* vectors of a few pixels, and of up to 2^26 pixels */
            for (int i = 0; i < 2; i++)
                v[i] = extremes ? (rnd() & 1 ? INT32_MAX : INT32_MIN) :
                       f % 2 ? (int)(rnd() % 2049) - 1024 : (int32_t)rnd();
            for (int i = 0; i < 3 * DIS_PLANE; i++)
                acc[i] = (int64_t)(rnd() % 2000001) - 1000000;
            memcpy(acc_ref, acc, sizeof(acc));
            memcpy(acc_new, acc, sizeof(acc));
            call_ref(acc_ref, DIS_PLANE, ref, STRIDE, cur, f & 15, f >> 4, v);
            call_new(acc_new, DIS_PLANE, ref, STRIDE, cur, f & 15, f >> 4, v);
            if (memcmp(acc_ref, acc_new, sizeof(acc)))
                fail();
        }
        bench_new(acc_new, DIS_PLANE, ref, STRIDE, cur, 5, 11, v);
    }
    report("dis_weights");
}

void checkasm_check_vf_gpume(void)
{
    GpumeDSPContext c;

    ff_gpume_dsp_init(&c);
    check_sad4x4_rows(&c);
    check_sad_qpel(&c);
    check_sad_hpel(&c);
    check_sad8x8_grid(&c);
    check_first_least(&c);
    check_sad_rect(&c);
    check_min_keys(&c);
    check_dis_sums(&c);
    check_dis_template(&c);
    check_dis_weights(&c);
}
