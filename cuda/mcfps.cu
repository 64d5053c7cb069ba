/*
 * mcfps: CUDA kernels. Every step is the one of libavfilter/mcfps.h that
 * the CPU reference runs, so the bytes are the same; these kernels only map
 * threads onto cells and pixels.
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

#include "mcfps_cuda.h"

#if 32 % MCFPS_WIN
#error "mcfps_select's lanes take whole rows of the window"
#endif

/* FFmpeg's clang CUDA shim has no __shared__ */
#ifdef __NVCC__
#define MCFPS_SHARED __shared__
#else
#define MCFPS_SHARED __attribute__((shared))
#endif

/** The smoothed fields of one cell (thread (i, j)). */
extern "C" __global__ void mcfps_smooth(McfpsCudaCellArgs a)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = blockIdx.y * blockDim.y + threadIdx.y;

    if (i >= a.p.cw || j >= a.p.ch)
        return;
    mcfps_smooth_cell(a.f.ra, a.f.fa, a.p.cw, a.p.ch, i, j);
    mcfps_smooth_cell(a.f.rb, a.f.fb, a.p.cw, a.p.ch, i, j);
}

/**
 * The vector and info word of MCFPS_CUDA_SELECT_CELLS cells per block, one
 * warp of 32 threads per cell, each thread summing every 32nd pixel of the
 * cell's matching window: the probes of mcfps_search_* in order, each
 * probe's bilateral error the sum of the warp's terms. The threads of a
 * cell keep the same search state (all see the same sums), and every warp
 * runs the same MCFPS_NB_PROBES iterations, so the barriers are uniform.
 * Every thread sums its warp's 32 terms itself, from one of two buffers in
 * turn: one barrier a probe (a thread writes a buffer again only after the
 * next probe's barrier, which all threads reach after their reads).
 */
extern "C" __global__ void mcfps_select(McfpsCudaCellArgs a)
{
    MCFPS_SHARED __align__(16) uint32_t sum[2][MCFPS_CUDA_SELECT_THREADS];
    const McfpsParams *p = &a.p;
    const int lane = threadIdx.x % 32;
    const int cell = blockIdx.x * MCFPS_CUDA_SELECT_CELLS + threadIdx.x / 32;
    const int valid = cell < p->cw * p->ch;
    const int i = valid ? cell % p->cw : 0, j = valid ? cell / p->cw : 0;
    int x0, x1, y0, y1, n;
    McfpsSearch st;

    mcfps_window(p, i, j, &x0, &x1, &y0, &y1);
    n = (x1 - x0) * (y1 - y0);
    mcfps_search_init(p, a.f.fa, i, j, &st);
    for (int q = 0; q < MCFPS_NB_PROBES; q++) {
        int dx = 0, dy = 0, oax = 0, oay = 0;
        const int live = valid && mcfps_search_probe(p, a.f.ra, a.f.rb, a.f.fa, a.f.fb, i, j,
                                                     &st, q, &dx, &dy);
        uint32_t acc = 0;
        int inside;
        if (live)
            mcfps_search_offsets(p, a.f.fa, a.f.fp, 0, i, j, dx, dy, &oax, &oay);
        /* most probes read inside both planes: no clamping then, and
         * each lane keeps a column of the window, its weights and rows */
        inside = live && mcfps_window_inside(p, x0, x1, y0, y1, oax, oay, dx, dy, 0);
        if (inside && x0 + lane % MCFPS_WIN < x1) {
            const int x = x0 + lane % MCFPS_WIN, y = y0 + lane / MCFPS_WIN;
            const int obx = oax + dx, oby = oay + dy;
            const uint8_t *ra = a.a + (long)(y + (oay >> 2)) * a.sa + x + (oax >> 2);
            const uint8_t *rb = a.b + (long)(y + (oby >> 2)) * a.sb + x + (obx >> 2);
            int wa[4], wb[4];

            mcfps_bilinear_weights(oax & 3, oay & 3, wa);
            mcfps_bilinear_weights(obx & 3, oby & 3, wb);
            for (int yy = y; yy < y1; yy += 32 / MCFPS_WIN) {
                acc += mcfps_abs(mcfps_bilinear_inside(ra, a.sa, wa) - mcfps_bilinear_inside(rb, a.sb, wb));
                ra += (long)a.sa * (32 / MCFPS_WIN);
                rb += (long)a.sb * (32 / MCFPS_WIN);
            }
        } else if (live && !inside) {
            for (int k = lane; k < MCFPS_WIN * MCFPS_WIN; k += 32) {
                const int x = x0 + k % MCFPS_WIN, y = y0 + k / MCFPS_WIN;
                if (x < x1 && y < y1)
                    acc += mcfps_bilateral_px(p, a.a, a.sa, a.b, a.sb, x, y, oax, oay, dx, dy);
            }
        }
        /* the warp's 32 terms, 16-byte aligned */
        uint32_t *s = sum[q & 1] + threadIdx.x - lane;
        s[lane] = acc;
        __syncthreads();
        if (live) {
            const int4 *t = (const int4 *)s;
            uint32_t sad = 0;
            for (int k = 0; k < 8; k++)
                sad += (uint32_t)t[k].x + t[k].y + t[k].z + t[k].w;
            mcfps_search_update(p, &st, q, dx, dy, sad, n);
        }
    }
    if (valid && lane == 0)
        a.f.info[j * p->cw + i] = mcfps_search_finish(p, a.f.fa, a.f.fb, a.f.fp, 0, i, j, &st, n,
                                                      *a.f.trust, a.f.vec);
}

/**
 * The motion check over MCFPS_CHECK_GROUP_W x MCFPS_CHECK_GROUP_H of the
 * pixels it reads per block, a thread each: the block's two sums (at most
 * 256 * 255^2 each) into part[].
 */
extern "C" __global__ void mcfps_check(McfpsCudaCheckArgs a)
{
    MCFPS_SHARED uint32_t sm[MCFPS_CHECK_GROUP_W * MCFPS_CHECK_GROUP_H];
    MCFPS_SHARED uint32_t sb[MCFPS_CHECK_GROUP_W * MCFPS_CHECK_GROUP_H];
    const int t = threadIdx.y * MCFPS_CHECK_GROUP_W + threadIdx.x;
    const int x = (blockIdx.x * MCFPS_CHECK_GROUP_W + threadIdx.x) * MCFPS_CHECK_STEP;
    const int y = (blockIdx.y * MCFPS_CHECK_GROUP_H + threadIdx.y) * MCFPS_CHECK_STEP;
    int em = 0, eb = 0;

    if (x < a.p.width && y < a.p.height)
        mcfps_check_px(&a.p, a.f.d, a.phi, a.pp, a.sp, a.a, a.sa, a.b, a.sb, x, y, &em, &eb);
    sm[t] = em;
    sb[t] = eb;
    __syncthreads();
    for (int h = MCFPS_CHECK_GROUP_W * MCFPS_CHECK_GROUP_H / 2; h > 0; h >>= 1) {
        if (t < h) {
            sm[t] += sm[t + h];
            sb[t] += sb[t + h];
        }
        __syncthreads();
    }
    if (!t) {
        const int part = blockIdx.y * a.parts_w + blockIdx.x;
        a.f.part[2 * part]     = sm[0];
        a.f.part[2 * part + 1] = sb[0];
    }
}

/** The pair's trust from mcfps_check's sums: one block of MCFPS_TRUST_GROUP. */
extern "C" __global__ void mcfps_trust_sum(McfpsCudaCheckArgs a)
{
    MCFPS_SHARED uint64_t sm[MCFPS_TRUST_GROUP], sb[MCFPS_TRUST_GROUP];
    const int t = threadIdx.x;
    uint64_t em = 0, eb = 0;

    for (int i = t; i < a.nb_parts; i += MCFPS_TRUST_GROUP) {
        em += a.f.part[2 * i];
        eb += a.f.part[2 * i + 1];
    }
    sm[t] = em;
    sb[t] = eb;
    __syncthreads();
    for (int h = MCFPS_TRUST_GROUP / 2; h > 0; h >>= 1) {
        if (t < h) {
            sm[t] += sm[t + h];
            sb[t] += sb[t + h];
        }
        __syncthreads();
    }
    if (!t)
        *a.f.trust = mcfps_trust(sm[0], sb[0]);
}

/**
 * The samples of an interpolated plane, a warp for each 8 x 4 of them
 * that lie in one tile between four cell centres (in two side by side on
 * subsampled chroma): the lanes of a warp sum over the same cells, so they
 * compute the same terms and read the same taps, where lanes of one row
 * would span four or eight cells. A block of MCFPS_CUDA_RENDER_W x
 * MCFPS_CUDA_RENDER_H threads takes as many samples, from (-ox, -oy) on.
 */
extern "C" __global__ void mcfps_render(McfpsCudaPlaneArgs a)
{
    const int ox = (MCFPS_CELL / 2) >> a.lx, oy = (MCFPS_CELL / 2) >> a.ly;
    const int warp = (threadIdx.y * MCFPS_CUDA_RENDER_W + threadIdx.x) / 32, lane = threadIdx.x % 32;
    const int x = blockIdx.x * MCFPS_CUDA_RENDER_W + warp % (MCFPS_CUDA_RENDER_W / 8) * 8 + lane % 8 - ox;
    const int y = blockIdx.y * MCFPS_CUDA_RENDER_H + warp / (MCFPS_CUDA_RENDER_W / 8) * 4 + lane / 8 - oy;

    if (x < 0 || y < 0 || x >= a.pw || y >= a.ph)
        return;
    a.dst[(long)y * a.sd + x * a.step] = mcfps_render_pixel(&a.p, a.a, a.sa, a.b, a.sb, a.step,
                                                            a.pw, a.ph, a.lx, a.ly, a.f.vec, a.f.info,
                                                            x, y);
}

/** One sample of the weighted average at phase p.phi (mode=blend). */
extern "C" __global__ void mcfps_blend(McfpsCudaPlaneArgs a)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;

    if (x >= a.pw || y >= a.ph)
        return;
    a.dst[(long)y * a.sd + x * a.step] = mcfps_blend_pixel(a.a[(long)y * a.sa + x * a.step],
                                                           a.b[(long)y * a.sb + x * a.step], a.p.phi);
}
