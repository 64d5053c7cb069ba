/*
 * gpume: Intel VME results to exported blocks (see gpume_vme.h).
 *
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

#include "libavutil/error.h"
#include "libavutil/macros.h"
#include "gpume_vme.h"

/** Top-left of sub-block i (H.264 4x4 scan order) in its macroblock, pixels. */
static void sub_pos(int i, int *x, int *y)
{
    const int q = i >> 2, k = i & 3;
    *x = (q & 1) * 8 + (k & 1) * 4;
    *y = (q >> 1) * 8 + (k >> 1) * 4;
}

/** Partition of size w x h whose first sub-block is sub; appended unless outside the picture. */
static int put(const GpumeVmeMB *mb, int sub, int w, int h, int mb_x, int mb_y,
               int width, int height, GpumeBlock *out, int n)
{
    int x, y;
    sub_pos(sub, &x, &y);
    x += mb_x * GPUME_VME_MB;
    y += mb_y * GPUME_VME_MB;
    if (x >= width || y >= height)
        return n;
    out[n] = (GpumeBlock) {
        .x = x, .y = y,
        .w = FFMIN(w, width - x), .h = FFMIN(h, height - y),
        .mvx = mb->mv[sub][0], .mvy = mb->mv[sub][1],
        .sad = mb->dist[sub],
    };
    return n + 1;
}

int ff_gpume_vme_blocks(const GpumeVmeMB *mb, int mb_x, int mb_y, int width, int height,
                        GpumeBlock *out)
{
    int n = 0;

#define PUT(sub, w, h) n = put(mb, sub, w, h, mb_x, mb_y, width, height, out, n)
    switch (mb->major) {
    case GPUME_VME_MAJOR_16x16:
        PUT(0, 16, 16);
        break;
    case GPUME_VME_MAJOR_16x8:
        PUT(0, 16, 8);
        PUT(8, 16, 8);
        break;
    case GPUME_VME_MAJOR_8x16:
        PUT(0, 8, 16);
        PUT(4, 8, 16);
        break;
    case GPUME_VME_MAJOR_8x8:
        for (int q = 0; q < 4; q++) {
            const int s = 4 * q;
            switch ((mb->minor >> (2 * q)) & 3) {
            case GPUME_VME_MINOR_8x8:
                PUT(s, 8, 8);
                break;
            case GPUME_VME_MINOR_8x4:
                PUT(s, 8, 4);
                PUT(s + 2, 8, 4);
                break;
            case GPUME_VME_MINOR_4x8:
                PUT(s, 4, 8);
                PUT(s + 1, 4, 8);
                break;
            default:
                for (int k = 0; k < 4; k++)
                    PUT(s + k, 4, 4);
            }
        }
        break;
    default:
        return AVERROR_INVALIDDATA;
    }
#undef PUT
    return n;
}
