/*
 * mcfps: what the CUDA backend's host code (mcfps_cuda.c) and kernels
 * (cuda/mcfps.cu) share: the kernels' arguments.
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

#ifndef AVFILTER_MCFPS_CUDA_H
#define AVFILTER_MCFPS_CUDA_H

#include "mcfps.h"

/* Device pointers are plain 64-bit integers on the host side. */
#if defined(__CUDACC__) || defined(__CUDA__)
#define MCFPS_DEVPTR(type) type *
#else
#define MCFPS_DEVPTR(type) uint64_t
#endif

#define MCFPS_CUDA_SELECT_CELLS   8                              ///< cells of a mcfps_select block
#define MCFPS_CUDA_SELECT_THREADS (32 * MCFPS_CUDA_SELECT_CELLS)  ///< a warp per cell
#define MCFPS_CUDA_RENDER_W       32    ///< samples of a row of a mcfps_render block: 4 warps of 8 x 4
#define MCFPS_CUDA_RENDER_H       8     ///< rows of a mcfps_render block: 2 warps of 8 x 4

/** The vector fields of a pair and the choice of each cell, cw x ch entries each. */
typedef struct McfpsCudaFields {
    /* one per line: the macro gives a pointer type on the device */
    MCFPS_DEVPTR(int16_t)  ra;          ///< raw fields, (x, y) pairs
    MCFPS_DEVPTR(int16_t)  rb;
    MCFPS_DEVPTR(int16_t)  fa;          ///< smoothed fields
    MCFPS_DEVPTR(int16_t)  fb;
    MCFPS_DEVPTR(int16_t)  fp;          ///< the previous pair's fb (P -> A), for the bend
    MCFPS_DEVPTR(int16_t)  vec;         ///< the intermediate frame's vectors and bends, MCFPS_VEC_N a cell
    MCFPS_DEVPTR(uint16_t) info;        ///< and info words
    MCFPS_DEVPTR(int16_t)  d;           ///< the motion check's field, P -> B
    MCFPS_DEVPTR(uint32_t) part;        ///< its sums per mcfps_check block, (em, eb) pairs
    MCFPS_DEVPTR(int32_t)  trust;       ///< the pair's trust (one value)
} McfpsCudaFields;

/** Argument of mcfps_smooth and mcfps_select. */
typedef struct McfpsCudaCellArgs {
    McfpsParams p;
    McfpsCudaFields f;
    MCFPS_DEVPTR(const uint8_t) a;      ///< luma planes
    MCFPS_DEVPTR(const uint8_t) b;
    int sa, sb;                         ///< their pitches
} McfpsCudaCellArgs;

/** Argument of mcfps_check and mcfps_trust_sum: the motion check of A between P and B. */
typedef struct McfpsCudaCheckArgs {
    McfpsParams p;
    McfpsCudaFields f;
    MCFPS_DEVPTR(const uint8_t) pp;     ///< luma planes of P, A, B
    MCFPS_DEVPTR(const uint8_t) a;
    MCFPS_DEVPTR(const uint8_t) b;
    int sp, sa, sb;                     ///< their pitches
    int phi;                            ///< A's phase between P and B
    int parts_w, nb_parts;              ///< mcfps_check's grid: blocks per row, blocks
} McfpsCudaCheckArgs;

/** Argument of mcfps_render and mcfps_blend: one plane, sample (x, y) at y * pitch + x * step. */
typedef struct McfpsCudaPlaneArgs {
    McfpsParams p;
    McfpsCudaFields f;
    MCFPS_DEVPTR(const uint8_t) a;
    MCFPS_DEVPTR(const uint8_t) b;
    MCFPS_DEVPTR(uint8_t) dst;
    int sa, sb, sd;                     ///< pitches
    int step;                           ///< 1, or 2 for interleaved chroma (nv12)
    int pw, ph, lx, ly;                 ///< plane size, log2 subsampling against luma
} McfpsCudaPlaneArgs;

#endif /* AVFILTER_MCFPS_CUDA_H */
