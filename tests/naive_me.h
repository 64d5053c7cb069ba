/*
 * gpume tests: a deliberately plain implementation of docs/ALGORITHMS.md,
 * written independently of libavfilter/gpume_cpu.c so that the two can be
 * compared bit for bit. Speed is no concern here: every SAD is a loop over
 * the block's pixels with clamped reads straight from the unpadded planes,
 * every candidate of every search is visited, and nothing from gpume.h is
 * used except the GpumeParams / GpumeBlock types.
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

#ifndef GPUME_TESTS_NAIVE_ME_H
#define GPUME_TESTS_NAIVE_ME_H

#include <stddef.h>
#include <stdint.h>

#include "libavutil/motion_vector.h"
#include "libavfilter/gpume.h"

/** An 8-bit plane as the frame holds it; linesize may be negative. */
typedef struct NaivePlane {
    const uint8_t *data;
    ptrdiff_t linesize;
    int w, h;
} NaivePlane;

/** One PU of the PU table (ALGORITHMS.md §4), in pixels relative to its CTU. */
typedef struct NaivePU {
    int x, y, w, h;     ///< the PU
    int cu_x, cu_y, cu; ///< its CU: top-left and size
    int mode, part;     ///< partition mode (0..6) and part within the mode
} NaivePU;

#define NAIVE_MAX_PUS 1024

/** R(x, y) with both coordinates clamped into the plane (§1). */
int naive_pixel(const NaivePlane *pl, int x, int y);

/** Rq(qx, qy), the direct formula of §2 (floor division written out). */
int naive_sample_qpel(const NaivePlane *pl, int qx, int qy);

/**
 * SAD of the rectangle (x, y, w, h) of cur, clipped to the frame, against ref
 * displaced by the quarter-pel vector (qx, qy), its samples Rq (§2).
 */
uint64_t naive_sad_q(const NaivePlane *cur, const NaivePlane *ref,
                     int x, int y, int w, int h, int qx, int qy);

/** Fills pus with the PU table of a CTU of size ctu (§4); returns its length. */
int naive_pu_table(int ctu, NaivePU *pus);

/**
 * Partition decision (§6) written recursively over the quadtree.
 * cost[i] is the best integer cost of PU i of the table. Writes the chosen
 * PU indices in Z order to out and returns their number.
 */
int naive_choose_partition(int ctu, const NaivePU *pus, int nb_pus,
                           const uint64_t *cost, uint64_t pu_penalty, int *out);

/** Blocks per CTU in the result layout: (ctu/block)^2, or (ctu/4)^2 for block=auto. */
int naive_max_out(const GpumeParams *p);

/** CTU columns and rows covering the frame. */
void naive_ctu_grid(const GpumeParams *p, int *cols, int *rows);

/**
 * Estimate the vectors of cur into ref with the option fields of p
 * (width, height, algo, range, ctu, block, subpel, lambda, pu_penalty,
 * lfs_threshold; the derived fields are not read). pred: one quarter-pel
 * predictor (x, y) per CTU in raster order, or NULL for (0, 0).
 * blocks: nb_ctus * naive_max_out(p) entries, CTU c owning
 * [c * max_out, c * max_out + counts[c]); counts: one per CTU.
 * Returns 0, or -1 on bad options or allocation failure.
 */
int naive_me_estimate(const GpumeParams *p, const NaivePlane *cur, const NaivePlane *ref,
                      const int16_t *pred, GpumeBlock *blocks, uint16_t *counts);

/** The exported side data of one block (§9); source is -1 (previous) or +1 (next). */
void naive_side_data(const GpumeBlock *b, int subpel, int source, AVMotionVector *mv);

#endif /* GPUME_TESTS_NAIVE_ME_H */
