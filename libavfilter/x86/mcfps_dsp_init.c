/*
 * mcfps: SIMD functions of the CPU backend, x86.
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

#include "config.h"
#include "libavutil/attributes.h"
#include "libavutil/cpu.h"
#include "libavutil/x86/cpu.h"
#include "libavfilter/mcfps_dsp.h"

uint32_t ff_mcfps_bilateral_sad16_ssse3(const uint8_t *a, ptrdiff_t a_stride,
                                        const uint8_t *b, ptrdiff_t b_stride,
                                        const int8_t *w, int h, uint32_t limit);
uint32_t ff_mcfps_bilateral_sad_part_ssse3(const uint8_t *a, ptrdiff_t a_stride,
                                           const uint8_t *b, ptrdiff_t b_stride,
                                           const int8_t *w, int h, uint32_t limit, int width);
uint32_t ff_mcfps_bilateral_sad_part_avx2(const uint8_t *a, ptrdiff_t a_stride,
                                          const uint8_t *b, ptrdiff_t b_stride,
                                          const int8_t *w, int h, uint32_t limit, int width);
uint32_t ff_mcfps_bilateral_sad16_avx2(const uint8_t *a, ptrdiff_t a_stride,
                                       const uint8_t *b, ptrdiff_t b_stride,
                                       const int8_t *w, int h, uint32_t limit);
void ff_mcfps_bilinear_plane_ssse3(uint8_t *dst, ptrdiff_t dst_stride,
                                   const uint8_t *src, ptrdiff_t src_stride,
                                   const int8_t *w, int width, int h);
void ff_mcfps_bilinear_plane_avx2(uint8_t *dst, ptrdiff_t dst_stride,
                                  const uint8_t *src, ptrdiff_t src_stride,
                                  const int8_t *w, int width, int h);
uint32_t ff_mcfps_sad16_sse2(const uint8_t *a, ptrdiff_t a_stride,
                             const uint8_t *b, ptrdiff_t b_stride, int h, uint32_t limit);
uint32_t ff_mcfps_sad16_avx2(const uint8_t *a, ptrdiff_t a_stride,
                             const uint8_t *b, ptrdiff_t b_stride, int h, uint32_t limit);
uint32_t ff_mcfps_sad_part_sse2(const uint8_t *a, ptrdiff_t a_stride,
                                const uint8_t *b, ptrdiff_t b_stride, int h, uint32_t limit, int width);
uint32_t ff_mcfps_sad_part_avx2(const uint8_t *a, ptrdiff_t a_stride,
                                const uint8_t *b, ptrdiff_t b_stride, int h, uint32_t limit, int width);
void ff_mcfps_predict8_8tap_ssse3(int16_t *out, const uint8_t *src, ptrdiff_t stride,
                                  const int8_t *taps, int h);
void ff_mcfps_predict8_8tap_avx2(int16_t *out, const uint8_t *src, ptrdiff_t stride,
                                 const int8_t *taps, int h);
void ff_mcfps_predict8_4tap_ssse3(int16_t *out, const uint8_t *src, ptrdiff_t stride,
                                  const int8_t *taps, int h);
void ff_mcfps_predict4_4tap_ssse3(int16_t *out, const uint8_t *src, ptrdiff_t stride,
                                  const int8_t *taps, int h);
void ff_mcfps_predict4x2_4tap_ssse3(int16_t *out, const uint8_t *src0, const uint8_t *src1,
                                    ptrdiff_t stride, const int8_t *taps, int h);
void ff_mcfps_mix8_ssse3(uint8_t *dst, ptrdiff_t dst_stride, const int16_t *const *ends, const int16_t *avg,
                         const int16_t *coef, const int16_t *wx, const int16_t *wyr, int h);
void ff_mcfps_mix4_ssse3(uint8_t *dst, ptrdiff_t dst_stride, const int16_t *const *ends, const int16_t *avg,
                         const int16_t *coef, const int16_t *wx, const int16_t *wyr, int h);

av_cold void ff_mcfps_dsp_init_x86(McfpsDSPContext *c)
{
#if ARCH_X86_64 && HAVE_X86ASM
    const int cpu_flags = av_get_cpu_flags();

    if (EXTERNAL_SSE2(cpu_flags)) {
        c->sad16              = ff_mcfps_sad16_sse2;
        c->sad_part           = ff_mcfps_sad_part_sse2;
    }
    if (EXTERNAL_SSSE3(cpu_flags)) {
        c->bilinear_plane     = ff_mcfps_bilinear_plane_ssse3;
        c->bilateral_sad16    = ff_mcfps_bilateral_sad16_ssse3;
        c->bilateral_sad_part = ff_mcfps_bilateral_sad_part_ssse3;
        c->predict8_8tap   = ff_mcfps_predict8_8tap_ssse3;
        c->predict8_4tap   = ff_mcfps_predict8_4tap_ssse3;
        c->predict4_4tap   = ff_mcfps_predict4_4tap_ssse3;
        c->predict4x2_4tap = ff_mcfps_predict4x2_4tap_ssse3;
        c->mix8            = ff_mcfps_mix8_ssse3;
        c->mix4            = ff_mcfps_mix4_ssse3;
    }
    if (EXTERNAL_AVX2_FAST(cpu_flags)) {
        c->bilateral_sad16    = ff_mcfps_bilateral_sad16_avx2;
        c->bilateral_sad_part = ff_mcfps_bilateral_sad_part_avx2;
        c->bilinear_plane     = ff_mcfps_bilinear_plane_avx2;
        c->sad16              = ff_mcfps_sad16_avx2;
        c->sad_part           = ff_mcfps_sad_part_avx2;
        c->predict8_8tap      = ff_mcfps_predict8_8tap_avx2;
    }
#endif
}
