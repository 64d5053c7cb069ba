/*
 * mcfps tests: frames of any format mcfps takes, for tests/mcfpscheck.c
 * and tests/mcfps-backendcheck.c.
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

#ifndef GPUME_TESTS_MCFPS_FRAMES_H
#define GPUME_TESTS_MCFPS_FRAMES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "libavutil/frame.h"

#include "libavfilter/mcfps_backend.h"

/** A software frame of fmt, every byte of its buffers 0x5a (a marker for stray writes). */
static inline AVFrame *mcfps_test_frame(int w, int h, enum AVPixelFormat fmt)
{
    AVFrame *f = av_frame_alloc();
    if (!f)
        return NULL;
    f->format = fmt;
    f->width  = w;
    f->height = h;
    if (av_frame_get_buffer(f, 0) < 0) {
        av_frame_free(&f);
        return NULL;
    }
    for (int i = 0; i < 4 && f->buf[i]; i++)
        memset(f->buf[i]->data, 0x5a, f->buf[i]->size);
    return f;
}

/** Sample (x, y) of plane i of frame f, of format fm. */
static inline uint8_t *mcfps_test_sample(const McfpsFormat *fm, const AVFrame *f, int i, int x, int y)
{
    const int k = fm->plane[i];
    return f->data[k] + (ptrdiff_t)y * f->linesize[k] + fm->offset[i] + x * fm->step[i];
}

#endif /* GPUME_TESTS_MCFPS_FRAMES_H */
