/*
 * gpume: SIMD functions of the CPU backend, x86.
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
#include "libavfilter/gpume_dsp.h"

void ff_gpume_sad4x4_rows_sse4(uint16_t *sad, ptrdiff_t sad_stride, const uint16_t *add,
                               const uint8_t *cur, ptrdiff_t cur_stride,
                               const uint8_t *ref, ptrdiff_t ref_stride, int w, int h);
void ff_gpume_sad8x8_grid_sse2(uint32_t *sad, const uint8_t *cur, ptrdiff_t cur_stride,
                                const uint8_t *ref, ptrdiff_t ref_stride, int cols, int rows);
void ff_gpume_sad8x8_grid_avx2(uint32_t *sad, const uint8_t *cur, ptrdiff_t cur_stride,
                               const uint8_t *ref, ptrdiff_t ref_stride, int cols, int rows);
int ff_gpume_first_least_sse4(const uint16_t *v, int n);
int ff_gpume_first_least_avx2(const uint16_t *v, int n);
uint32_t ff_gpume_sad_qpel_ssse3(const uint8_t *cur, ptrdiff_t cur_stride,
                                 const uint8_t *ref, ptrdiff_t ref_stride, int fx, int fy, int w, int h);
uint32_t ff_gpume_sad_qpel_avx2(const uint8_t *cur, ptrdiff_t cur_stride,
                                const uint8_t *ref, ptrdiff_t ref_stride, int fx, int fy, int w, int h);
void ff_gpume_sad_hpel_sse2(uint32_t *sad, const uint8_t *cur, ptrdiff_t cur_stride,
                            const uint8_t *ref, ptrdiff_t ref_stride, int w, int h);
void ff_gpume_sad_hpel_avx(uint32_t *sad, const uint8_t *cur, ptrdiff_t cur_stride,
                           const uint8_t *ref, ptrdiff_t ref_stride, int w, int h);
uint32_t ff_gpume_sad_rect_sse2(const uint8_t *cur, ptrdiff_t cur_stride,
                                const uint8_t *ref, ptrdiff_t ref_stride, int w, int h, uint32_t limit);
void ff_gpume_min_keys_avx2(uint64_t *keys, const uint32_t *cost, uint32_t add, uint32_t idx, int n);
void ff_gpume_dis_sums_avx2(int64_t *sums, const uint8_t *ref, ptrdiff_t stride, const int32_t *t,
                            const int32_t *gx, const int32_t *gy, int fx, int fy);
void ff_gpume_dis_template_avx2(int32_t *t, int32_t *gx, int32_t *gy, int32_t *sums,
                                const uint8_t *c, ptrdiff_t stride);
void ff_gpume_dis_weights_avx2(int64_t *acc, ptrdiff_t plane, const uint8_t *ref, ptrdiff_t stride,
                               const uint8_t *cur, int fx, int fy, const int32_t *v);

av_cold void ff_gpume_dsp_init_x86(GpumeDSPContext *c)
{
#if ARCH_X86_64 && HAVE_X86ASM
    const int cpu_flags = av_get_cpu_flags();

    if (EXTERNAL_SSE2(cpu_flags)) {
        c->sad8x8_grid  = ff_gpume_sad8x8_grid_sse2;
        c->sad_rect     = ff_gpume_sad_rect_sse2;
        c->sad_hpel     = ff_gpume_sad_hpel_sse2;
    }
    if (EXTERNAL_SSSE3(cpu_flags))
        c->sad_qpel     = ff_gpume_sad_qpel_ssse3;
    if (EXTERNAL_SSE4(cpu_flags)) {
        c->sad4x4_rows  = ff_gpume_sad4x4_rows_sse4;
        c->first_least  = ff_gpume_first_least_sse4;
    }
    if (EXTERNAL_AVX(cpu_flags))
        c->sad_hpel     = ff_gpume_sad_hpel_avx;
    if (EXTERNAL_AVX2_FAST(cpu_flags)) {
        c->sad8x8_grid  = ff_gpume_sad8x8_grid_avx2;
        c->sad_qpel     = ff_gpume_sad_qpel_avx2;
        c->min_keys     = ff_gpume_min_keys_avx2;
        c->first_least  = ff_gpume_first_least_avx2;
        c->dis_sums     = ff_gpume_dis_sums_avx2;
        c->dis_template = ff_gpume_dis_template_avx2;
        c->dis_weights  = ff_gpume_dis_weights_avx2;
    }
#endif
}
