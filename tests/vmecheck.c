/*
 * gpume: unit test of the Intel VME host conversion (libavfilter/gpume_vme.c)
 * on hand-made VME results: every major shape, every minor shape, clipping
 * at the right and bottom edges, macroblocks outside the picture, a bad
 * shape, and the GpumeVmeMB layout that the kernel writes. Each case lists
 * its expected blocks by hand. Prints "FAIL name: ..." per failure and
 * "N passed, N failed" last; exit status 1 on a failure.
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

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "libavutil/error.h"
#include "libavfilter/gpume_vme.h"

static int pass, fail;

/* the kernel writes this layout (opencl/gpume_vme.cl): no padding anywhere */
_Static_assert(offsetof(GpumeVmeMB, dist)  == 64, "GpumeVmeMB.dist");
_Static_assert(offsetof(GpumeVmeMB, major) == 96, "GpumeVmeMB.major");
_Static_assert(sizeof(GpumeVmeMB) == 100, "GpumeVmeMB size");

/** A result with distinct values per sub-block: mv (4i + 1, -2i - 3), distortion 100 + i. */
static GpumeVmeMB make_mb(int major, int minor)
{
    GpumeVmeMB mb = { .major = major, .minor = minor };
    for (int i = 0; i < GPUME_VME_SUBS; i++) {
        mb.mv[i][0] = 4 * i + 1;
        mb.mv[i][1] = -2 * i - 3;
        mb.dist[i]  = 100 + i;
    }
    return mb;
}

/** Expected block of sub-block s at (x, y), w x h. */
#define B(s, X, Y, W, H) { .x = X, .y = Y, .w = W, .h = H, .mvx = 4 * (s) + 1, .mvy = -2 * (s) - 3, .sad = 100 + (s) }

static void print_blocks(const char *what, const GpumeBlock *b, int n)
{
    printf("  %s (%d):", what, n);
    for (int i = 0; i < n; i++)
        printf(" [%d,%d %dx%d mv %d,%d sad %u]", b[i].x, b[i].y, b[i].w, b[i].h,
               b[i].mvx, b[i].mvy, b[i].sad);
    printf("\n");
}

static void check(const char *name, int major, int minor, int mb_x, int mb_y, int width, int height,
                  const GpumeBlock *want, int nb_want)
{
    GpumeBlock got[GPUME_VME_MAX_BLOCKS + 1];
    const GpumeVmeMB mb = make_mb(major, minor);
    int n;

    memset(got, 0xa5, sizeof(got));     /* guard: the entry after the last must stay */
    n = ff_gpume_vme_blocks(&mb, mb_x, mb_y, width, height, got);
    if (n == nb_want && (n <= 0 || !memcmp(got, want, n * sizeof(*got))) &&
        (n < 0 || got[n].x == (int16_t)0xa5a5)) {
        pass++;
        printf("ok %s\n", name);
        return;
    }
    fail++;
    printf("FAIL %s: major=%d minor=0x%02x mb=(%d,%d) picture %dx%d: %d blocks, %d expected\n",
           name, major, minor, mb_x, mb_y, width, height, n, nb_want);
    if (n > 0)
        print_blocks("got", got, n);
    if (nb_want > 0)
        print_blocks("want", want, nb_want);
}

int main(void)
{
    {
        const GpumeBlock w[] = { B(0, 16, 32, 16, 16) };
        check("16x16", GPUME_VME_MAJOR_16x16, 0, 1, 2, 64, 64, w, 1);
    }
    {
        const GpumeBlock w[] = { B(0, 0, 0, 16, 8), B(8, 0, 8, 16, 8) };
        check("16x8", GPUME_VME_MAJOR_16x8, 0, 0, 0, 64, 64, w, 2);
    }
    {
        const GpumeBlock w[] = { B(0, 16, 0, 8, 16), B(4, 24, 0, 8, 16) };
        check("8x16", GPUME_VME_MAJOR_8x16, 0, 1, 0, 64, 64, w, 2);
    }
    {   /* quadrants: 8x8, 8x4, 4x8, 4x4 (minor 0 | 1 << 2 | 2 << 4 | 3 << 6) */
        const GpumeBlock w[] = {
            B(0, 0, 0, 8, 8),
            B(4, 8, 0, 8, 4), B(6, 8, 4, 8, 4),
            B(8, 0, 8, 4, 8), B(9, 4, 8, 4, 8),
            B(12, 8, 8, 4, 4), B(13, 12, 8, 4, 4), B(14, 8, 12, 4, 4), B(15, 12, 12, 4, 4),
        };
        check("8x8-minors", GPUME_VME_MAJOR_8x8, 0xe4, 0, 0, 64, 64, w, 9);
    }
    {
        const GpumeBlock w[] = {
            B(0, 48, 16, 8, 8), B(4, 56, 16, 8, 8), B(8, 48, 24, 8, 8), B(12, 56, 24, 8, 8),
        };
        check("8x8-all-8x8", GPUME_VME_MAJOR_8x8, 0x00, 3, 1, 64, 64, w, 4);
    }
    {   /* picture 40x20, macroblock (2,1) at (32,16): 8 columns, 4 rows left */
        const GpumeBlock w[] = { B(0, 32, 16, 8, 4) };
        check("16x8-clip-right-bottom", GPUME_VME_MAJOR_16x8, 0, 2, 1, 40, 20, w, 1);
    }
    {   /* picture 22 wide: of macroblock 1 (x 16..31) columns 16..21 remain */
        const GpumeBlock w[] = {
            B(0, 16, 0, 4, 4), B(1, 20, 0, 2, 4), B(2, 16, 4, 4, 4), B(3, 20, 4, 2, 4),
            B(8, 16, 8, 4, 4), B(9, 20, 8, 2, 4), B(10, 16, 12, 4, 4), B(11, 20, 12, 2, 4),
        };
        check("4x4-clip-right", GPUME_VME_MAJOR_8x8, 0xff, 1, 0, 22, 16, w, 8);
    }
    {   /* picture 16x10: the lower 8x4 of quadrants 0 and 1 start at row 4, those of 2, 3 are out */
        const GpumeBlock w[] = {
            B(0, 0, 0, 8, 4), B(2, 0, 4, 8, 4), B(4, 8, 0, 8, 4), B(6, 8, 4, 8, 4),
            B(8, 0, 8, 8, 2), B(12, 8, 8, 8, 2),
        };
        check("8x4-clip-bottom", GPUME_VME_MAJOR_8x8, 0x55, 0, 0, 16, 10, w, 6);
    }
    {
        const GpumeBlock w[] = { B(0, 0, 0, 1, 1) };
        check("16x16-1x1-picture", GPUME_VME_MAJOR_16x16, 0, 0, 0, 1, 1, w, 1);
    }
    check("outside", GPUME_VME_MAJOR_16x16, 0, 4, 0, 64, 64, NULL, 0);
    check("bad-major", 4, 0, 0, 0, 64, 64, NULL, AVERROR_INVALIDDATA);

    printf("%d passed, %d failed\n", pass, fail);
    return fail != 0;
}
