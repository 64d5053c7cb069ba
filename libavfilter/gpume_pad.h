/*
 * gpume, mcfps: planes with their edges repeated beyond them.
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

#ifndef AVFILTER_GPUME_PAD_H
#define AVFILTER_GPUME_PAD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "libavutil/common.h"

/**
 * Copy the w x h plane src to dst, with pad samples beyond each of its
 * edges that repeat the nearest sample of the plane, as reads clamped into
 * the plane would give: dst points at the plane's first sample, its rows
 * dst_stride >= w + 2 pad apart, pad rows above and below. dst may be src,
 * with the same stride, to pad a plane in place.
 */
static inline void ff_gpume_pad_plane(uint8_t *dst, ptrdiff_t dst_stride,
                                      const uint8_t *src, ptrdiff_t src_stride,
                                      int w, int h, int pad)
{
    for (int y = -pad; y < h + pad; y++) {
        const uint8_t *row = src + (ptrdiff_t)av_clip(y, 0, h - 1) * src_stride;
        uint8_t *d = dst + (ptrdiff_t)y * dst_stride;

        if (d != row)
            memcpy(d, row, w);
        memset(d - pad, row[0], pad);
        memset(d + w, row[w - 1], pad);
    }
}

#endif /* AVFILTER_GPUME_PAD_H */
