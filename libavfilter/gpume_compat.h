/*
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

/**
 * @file
 * The filter definition across FFmpeg 7.1, 8.x and 9.0. libavfilter 11
 * (FFmpeg 8.0) turned a filter's "const AVFilter ff_vf_x = { .name, ... }"
 * into "const FFFilter ff_vf_x = { .p.name, ... }": the public fields
 * (name, description, priv_class, flags) moved under .p, the internal ones
 * (init, activate, process_command, FILTER_INPUTS, ...) stayed where they
 * were. Write
 *
 *     const GPUME_FILTER ff_vf_x = {
 *         GPUME_FILTER_P(name)        = "x",
 *         GPUME_FILTER_P(description) = NULL_IF_CONFIG_SMALL("..."),
 *         .init                       = init,
 *         ...
 *     };
 *
 * and declare it in allfilters.c with the same type (tools/overlay.sh does).
 */

#ifndef AVFILTER_GPUME_COMPAT_H
#define AVFILTER_GPUME_COMPAT_H

#include "libavutil/version.h"
#include "version_major.h"

#if LIBAVFILTER_VERSION_MAJOR >= 11
#define GPUME_FILTER          FFFilter
#define GPUME_FILTER_P(field) .p.field
#else
#define GPUME_FILTER          AVFilter
#define GPUME_FILTER_P(field) .field
#endif

/* AVFrame.key_frame, deprecated since FFmpeg 6.1, is gone from FFmpeg 8 */
#define GPUME_FRAME_KEY_FIELD (LIBAVUTIL_VERSION_MAJOR < 60)

#endif /* AVFILTER_GPUME_COMPAT_H */
