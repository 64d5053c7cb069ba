/*
 * mcfps: SIMD functions of the CPU backend.
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

#ifndef AVFILTER_MCFPS_DSP_H
#define AVFILTER_MCFPS_DSP_H

#include <stddef.h>
#include <stdint.h>

typedef struct McfpsDSPContext {
    /**
     * Bilateral error of a window 16 samples wide and h high: the sum over
     * its samples of |va - vb|, va the bilinear interpolation of a,
     * (w[0] a(x, y) + w[1] a(x + 1, y) + w[2] a(x, y + 1) +
     * w[3] a(x + 1, y + 1) + 8) >> 4, and vb that of b with w[4..7]; the
     * weights of each side sum to 16. Reads 17 x (h + 1) samples of each
     * plane. The exact sum where it is below limit, else some value of at
     * least limit (the rows may stop once the sum reaches it).
     */
    uint32_t (*bilateral_sad16)(const uint8_t *a, ptrdiff_t a_stride,
                                const uint8_t *b, ptrdiff_t b_stride,
                                const int8_t *w, int h, uint32_t limit);

    /**
     * bilateral_sad16() of the first width samples of each row (1 <= width
     * <= 16), for windows cut by the picture's edges. Still reads 17 x
     * (h + 1) samples of each plane.
     */
    uint32_t (*bilateral_sad_part)(const uint8_t *a, ptrdiff_t a_stride,
                                   const uint8_t *b, ptrdiff_t b_stride,
                                   const int8_t *w, int h, uint32_t limit, int width);

    /**
     * The bilinear samples of a plane at one pair of fractions, as
     * bilateral_sad16() weighs them with w[0..3]: dst(x, y) for x < width
     * and y < h. Writes FFALIGN(width, 16) samples of each row (dst_stride
     * at least that), reads FFALIGN(width, 16) + 1 samples of h + 1 rows.
     */
    void (*bilinear_plane)(uint8_t *dst, ptrdiff_t dst_stride,
                           const uint8_t *src, ptrdiff_t src_stride,
                           const int8_t *w, int width, int h);

    /**
     * bilateral_sad16() of windows whose samples bilinear_plane() made:
     * the sum of |a(x, y) - b(x, y)| over 16 x h samples. The exact sum
     * where it is below limit, else some value of at least limit.
     */
    uint32_t (*sad16)(const uint8_t *a, ptrdiff_t a_stride,
                      const uint8_t *b, ptrdiff_t b_stride, int h, uint32_t limit);

    /** sad16() of the first width samples of each row (1 <= width <= 16); still reads 16 a row. */
    uint32_t (*sad_part)(const uint8_t *a, ptrdiff_t a_stride,
                         const uint8_t *b, ptrdiff_t b_stride, int h, uint32_t limit, int width);

    /**
     * 8-tap prediction of a block 8 samples wide and h high (h <= 8):
     * out[8 y + x] = clip((sum over j of taps[8 + j] * sum over i of
     * taps[i] src(x - 3 + i, y - 3 + j) + 2048) >> 12) into [0, 255].
     * Reads the 15 x (h + 7) samples from src - 3 stride - 3 on.
     */
    void (*predict8_8tap)(int16_t *out, const uint8_t *src, ptrdiff_t stride,
                          const int8_t *taps, int h);

    /**
     * predict8_8tap() with 4 taps: taps[0..3] in x, taps[4..7] in y,
     * samples from x - 1 and y - 1 on. Reads the 11 x (h + 3) samples from
     * src - stride - 1 on.
     */
    void (*predict8_4tap)(int16_t *out, const uint8_t *src, ptrdiff_t stride,
                          const int8_t *taps, int h);

    /**
     * predict8_4tap() of a block 4 samples wide (x < 4; out's rows still 8
     * samples apart). Reads the 8 x (h + 3) samples from src - stride - 1 on.
     */
    void (*predict4_4tap)(int16_t *out, const uint8_t *src, ptrdiff_t stride,
                          const int8_t *taps, int h);

    /**
     * predict4_4tap() of the same block of two planes of one stride: that
     * of src0 in columns 0 .. 3 of out, that of src1 in columns 4 .. 7.
     */
    void (*predict4x2_4tap)(int16_t *out, const uint8_t *src0, const uint8_t *src1, ptrdiff_t stride,
                            const int8_t *taps, int h);

    /**
     * The samples of a tile 8 wide and h high (h <= 8) from the terms of its
     * four cells c = 0..3 (the overlapped-block sum of mcfps_render_pixel()):
     * dst(x, y) = (sum wt P + W / 2) / W over the cells, W = sum wt, with
     * wt = wx[8 (c & 1) + x] wyr[4 y + c],
     * P = (m mc + (256 - m) avg + 128) >> 8, m = coef[4 + c],
     * mc = ((256 - cb) va + cb vb + 128) >> 8, cb = coef[c],
     * va = ends[2 c](x, y), vb = ends[2 c + 1](x, y), avg(x, y): rows of 8
     * samples in [0, 255]. cb and m lie in [0, 256], wt >= 1 and W < 2^15.
     * wx is 16-byte aligned.
     */
    void (*mix8)(uint8_t *dst, ptrdiff_t dst_stride, const int16_t *const *ends, const int16_t *avg,
                 const int16_t *coef, const int16_t *wx, const int16_t *wyr, int h);

    /**
     * mix8() of a tile 4 samples wide (the chroma of 4:2:0 and 4:2:2):
     * the same arguments, rows still 8 samples apart, x < 4.
     */
    void (*mix4)(uint8_t *dst, ptrdiff_t dst_stride, const int16_t *const *ends, const int16_t *avg,
                 const int16_t *coef, const int16_t *wx, const int16_t *wyr, int h);
} McfpsDSPContext;

void ff_mcfps_dsp_init(McfpsDSPContext *c);
void ff_mcfps_dsp_init_x86(McfpsDSPContext *c);

#endif /* AVFILTER_MCFPS_DSP_H */
