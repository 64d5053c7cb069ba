/*
 * gpume: SIMD functions of the CPU backend.
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

#ifndef AVFILTER_GPUME_DSP_H
#define AVFILTER_GPUME_DSP_H

#include <stddef.h>
#include <stdint.h>

typedef struct GpumeDSPContext {
    /**
     * SADs of the 4x4 block at cur against the 4x4 blocks at ref + y rs + x,
     * for x = 0 .. w - 1 and y = 0 .. h - 1, each added to
     * add[y sad_stride + x], the sums below 2^16: sad[y sad_stride + x],
     * sad_stride in elements, at least FFALIGN(w, 8); likewise the sums
     * of x = w .. FFALIGN(w, 8) - 1. sad may be add. Reads FFALIGN(w, 8) + 8
     * bytes of each of the h + 3 rows of ref from ref + y rs on.
     */
    void (*sad4x4_rows)(uint16_t *sad, ptrdiff_t sad_stride, const uint16_t *add,
                        const uint8_t *cur, ptrdiff_t cur_stride,
                        const uint8_t *ref, ptrdiff_t ref_stride, int w, int h);

    /**
     * SAD of the w x h block at cur against the reference at ref displaced
     * by the quarter-pel fractions (fx, fy), not both 0: bilinear samples
     * ((4 - fx) (4 - fy) r(x, y) + fx (4 - fy) r(x + 1, y) +
     * (4 - fx) fy r(x, y + 1) + fx fy r(x + 1, y + 1) + 8) >> 4, w >= 1.
     * Reads FFALIGN(w, 8) samples of each row of cur and FFALIGN(w, 8) + 1
     * of h + 1 rows of ref.
     */
    uint32_t (*sad_qpel)(const uint8_t *cur, ptrdiff_t cur_stride,
                         const uint8_t *ref, ptrdiff_t ref_stride, int fx, int fy, int w, int h);

    /**
     * sad_qpel() of the w x h block at cur at the eight half-pel points
     * around the integer position ref, into sad[i - 1] for the point
     * gpume_subpel_offset(i, 2), i = 1 .. 8; w is a positive multiple of
     * 8. Reads rows -1 .. h of ref, samples -1 .. w of each.
     */
    void (*sad_hpel)(uint32_t *sad, const uint8_t *cur, ptrdiff_t cur_stride,
                     const uint8_t *ref, ptrdiff_t ref_stride, int w, int h);

    /**
     * SADs of the cols x rows 8x8 blocks of cur against those of ref, in
     * raster order; cols is even.
     */
    void (*sad8x8_grid)(uint32_t *sad, const uint8_t *cur, ptrdiff_t cur_stride,
                        const uint8_t *ref, ptrdiff_t ref_stride, int cols, int rows);

    /**
     * SAD of the w x h block at cur against the one at ref (1 <= w <= 64),
     * stopped after the row where it reaches limit: the exact sum where that
     * is below limit, else some value of at least limit. Reads
     * FFALIGN(w, 16) samples of each row of both.
     */
    uint32_t (*sad_rect)(const uint8_t *cur, ptrdiff_t cur_stride,
                         const uint8_t *ref, ptrdiff_t ref_stride, int w, int h, uint32_t limit);

    /**
     * Index of the least of v[0] .. v[n - 1], the first where several are;
     * n is a positive multiple of 8.
     */
    int (*first_least)(const uint16_t *v, int n);

    /**
     * keys[i] = FFMIN(keys[i], gpume_key(cost[i] + add, idx)) for
     * i = 0 .. n - 1, the sums below 2^32; n is a positive multiple of 4.
     */
    void (*min_keys)(uint64_t *keys, const uint32_t *cost, uint32_t add, uint32_t idx, int n);

    /**
     * The sums of a step of dis's descent over an 8x8 patch whose reference
     * samples lie inside (gpume_dis_residual_sums()): with the sample
     * s = (16 - fy) ((16 - fx) r(x, y) + fx r(x + 1, y)) +
     *     fy ((16 - fx) r(x, y + 1) + fx r(x + 1, y + 1))
     * of ref and e = s - t[8 y + x], sums[0] = sum gx[8 y + x] e,
     * sums[1] = sum gy[8 y + x] e, sums[2] = sum e, sums[3] = sum e^2;
     * fx, fy in [0, 15], t[] in [0, 65280], gx[] and gy[] in [-255, 255].
     * Reads 9 samples of each of 9 rows of ref.
     */
    void (*dis_sums)(int64_t *sums, const uint8_t *ref, ptrdiff_t stride, const int32_t *t,
                     const int32_t *gx, const int32_t *gy, int fx, int fy);

    /**
     * The template of dis's 8x8 patch at c whose gradients' samples lie
     * inside the level: t[8 y + x] = 256 c(x, y),
     * gx[8 y + x] = c(x + 1, y) - c(x - 1, y),
     * gy[8 y + x] = c(x, y + 1) - c(x, y - 1), and sums[] the sums of
     * gx^2, gx gy, gy^2, gx and gy over the patch. Reads 10 samples of each
     * of 10 rows from c - stride - 1.
     */
    void (*dis_template)(int32_t *t, int32_t *gx, int32_t *gy, int32_t *sums,
                         const uint8_t *c, ptrdiff_t stride);

    /**
     * A row of 8 pixels of dis's densification (gpume_dis_densify_px()) by
     * a patch of vector (vx, vy) = (v[0], v[1]) whose reference samples lie
     * inside: with
     * s the sample of ref as in dis_sums() and e = |s - 256 cur[x]|, the
     * weight wt = 2^24 / max(e, 256) is added as acc[x] += wt vx,
     * acc[plane + x] += wt vy and acc[2 plane + x] += wt, x = 0 .. 7.
     * Reads 9 samples of 2 rows of ref.
     */
    void (*dis_weights)(int64_t *acc, ptrdiff_t plane, const uint8_t *ref, ptrdiff_t stride,
                        const uint8_t *cur, int fx, int fy, const int32_t *v);
} GpumeDSPContext;

void ff_gpume_dsp_init(GpumeDSPContext *c);
void ff_gpume_dsp_init_x86(GpumeDSPContext *c);

#endif /* AVFILTER_GPUME_DSP_H */
