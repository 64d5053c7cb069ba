/*
 * mcfps: OpenCL kernels (OpenCL C 1.2, integer only). The host prepends
 * libavfilter/mcfps.h (embedded as opencl/mcfps_h.cl), so every step is the
 * one the CPU reference runs; these kernels only map work-items onto cells
 * and pixels. Local memory comes as a __local kernel argument sized by the
 * host: PoCL 3.1 shares kernel-scope __local arrays between work-groups
 * running at the same time.
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

#define WIN_PX (MCFPS_WIN * MCFPS_WIN)

/** The smoothed fields of one cell (work-item (i, j)). */
__kernel void mcfps_smooth(__global const short *ra, __global const short *rb,
                           __global short *fa, __global short *fb, int cw, int ch)
{
    const int i = get_global_id(0), j = get_global_id(1);
    if (i >= cw || j >= ch)
        return;
    mcfps_smooth_cell(ra, fa, cw, ch, i, j);
    mcfps_smooth_cell(rb, fb, cw, ch, i, j);
}

/**
 * The vector and info word of one cell: a work-group of WIN_PX work-items,
 * one per pixel of the cell's matching window, runs the probes of
 * mcfps_search_* in order; each probe's bilateral error is the sum of the
 * work-items' terms. Every work-item keeps the same search state (the sums
 * are the same for all), so the probe loop and its barriers are uniform.
 */
__kernel __attribute__((reqd_work_group_size(WIN_PX, 1, 1)))
void mcfps_select(McfpsParams p, __global const uchar *a, int sa, __global const uchar *b, int sb,
                  __global const short *ra, __global const short *rb,
                  __global const short *fa, __global const short *fb, __global const short *fp,
                  __global short *vec, __global ushort *info, __global const int *trust,
                  __local uint *sum)
{
    const int t = get_local_id(0);
    const int i = get_group_id(0) % p.cw, j = get_group_id(0) / p.cw;
    int x0, x1, y0, y1, n;
    McfpsSearch st;

    mcfps_window(&p, i, j, &x0, &x1, &y0, &y1);
    n = (x1 - x0) * (y1 - y0);
    mcfps_search_init(&p, fa, i, j, &st);
    for (int q = 0; q < MCFPS_NB_PROBES; q++) {
        const int x = x0 + t % MCFPS_WIN, y = y0 + t / MCFPS_WIN;
        int dx, dy, oax, oay;
        uint sad;
        if (!mcfps_search_probe(&p, ra, rb, fa, fb, i, j, &st, q, &dx, &dy))
            continue;
        mcfps_search_offsets(&p, fa, fp, 0, i, j, dx, dy, &oax, &oay);
        /* most probes read inside both planes: no clamping then */
        sum[t] = x >= x1 || y >= y1 ? 0 :
                 mcfps_window_inside(&p, x0, x1, y0, y1, oax, oay, dx, dy, 0) ?
                 mcfps_bilateral_px_inside(&p, a, sa, b, sb, x, y, oax, oay, dx, dy) :
                 mcfps_bilateral_px(&p, a, sa, b, sb, x, y, oax, oay, dx, dy);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int h = WIN_PX / 2; h > 0; h >>= 1) {
            if (t < h)
                sum[t] += sum[t + h];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        sad = sum[0];
        barrier(CLK_LOCAL_MEM_FENCE);
        mcfps_search_update(&p, &st, q, dx, dy, sad, n);
    }
    if (t == 0)
        info[j * p.cw + i] = mcfps_search_finish(&p, fa, fb, fp, 0, i, j, &st, n, *trust, vec);
}

/**
 * The motion check over MCFPS_CHECK_GROUP_W x MCFPS_CHECK_GROUP_H of the pixels it reads per
 * work-group, a work-item each: the group's two sums (at most
 * 256 * 255^2 each) into part[].
 */
__kernel __attribute__((reqd_work_group_size(MCFPS_CHECK_GROUP_W, MCFPS_CHECK_GROUP_H, 1)))
void mcfps_check(McfpsParams p, __global const short *d, int phi,
                 __global const uchar *pp, __global const uchar *a, __global const uchar *b,
                 __global uint *part)
{
    __local uint sm[MCFPS_CHECK_GROUP_W * MCFPS_CHECK_GROUP_H], sb[MCFPS_CHECK_GROUP_W * MCFPS_CHECK_GROUP_H];
    const int t = get_local_id(1) * MCFPS_CHECK_GROUP_W + get_local_id(0);
    const int x = get_global_id(0) * MCFPS_CHECK_STEP, y = get_global_id(1) * MCFPS_CHECK_STEP;
    int em = 0, eb = 0;

    if (x < p.width && y < p.height)
        mcfps_check_px(&p, d, phi, pp, p.width, a, p.width, b, p.width, x, y, &em, &eb);
    sm[t] = em;
    sb[t] = eb;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = MCFPS_CHECK_GROUP_W * MCFPS_CHECK_GROUP_H / 2; h > 0; h >>= 1) {
        if (t < h) {
            sm[t] += sm[t + h];
            sb[t] += sb[t + h];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (!t) {
        const int g = get_group_id(1) * get_num_groups(0) + get_group_id(0);
        part[2 * g]     = sm[0];
        part[2 * g + 1] = sb[0];
    }
}

/** The pair's trust from mcfps_check's sums of nb_parts groups: one work-group of MCFPS_TRUST_GROUP. */
__kernel __attribute__((reqd_work_group_size(MCFPS_TRUST_GROUP, 1, 1)))
void mcfps_trust_sum(__global const uint *part, int nb_parts, __global int *trust)
{
    __local ulong sm[MCFPS_TRUST_GROUP], sb[MCFPS_TRUST_GROUP];
    const int t = get_local_id(0);
    ulong em = 0, eb = 0;

    for (int i = t; i < nb_parts; i += MCFPS_TRUST_GROUP) {
        em += part[2 * i];
        eb += part[2 * i + 1];
    }
    sm[t] = em;
    sb[t] = eb;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int h = MCFPS_TRUST_GROUP / 2; h > 0; h >>= 1) {
        if (t < h) {
            sm[t] += sm[t + h];
            sb[t] += sb[t + h];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (!t)
        *trust = mcfps_trust(sm[0], sb[0]);
}

/**
 * One sample of an interpolated plane of pw x ph, subsampled by (lx, ly):
 * sample (x, y) of the buffers at off + y * pitch + x * step.
 */
__kernel void mcfps_render(McfpsParams p, __global const uchar *a, int sa,
                           __global const uchar *b, int sb, __global uchar *dst, int sd,
                           int off, int step, int pw, int ph, int lx, int ly,
                           __global const short *vec, __global const ushort *info)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= pw || y >= ph)
        return;
    dst[off + y * sd + x * step] = mcfps_render_pixel(&p, a + off, sa, b + off, sb, step, pw, ph,
                                                      lx, ly, vec, info, x, y);
}

/** One sample of the weighted average at phase p.phi (mode=blend); the arguments are mcfps_render's first. */
__kernel void mcfps_blend(McfpsParams p, __global const uchar *a, int sa,
                          __global const uchar *b, int sb, __global uchar *dst, int sd,
                          int off, int step, int pw, int ph)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= pw || y >= ph)
        return;
    dst[off + y * sd + x * step] = mcfps_blend_pixel(a[off + y * sa + x * step],
                                                     b[off + y * sb + x * step], p.phi);
}
