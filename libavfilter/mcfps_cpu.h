/*
 * mcfps CPU reference: row-range forms of the steps of mcfps.h, and the
 * conversion of motion-vector side data into per-cell fields.
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

#ifndef AVFILTER_MCFPS_CPU_H
#define AVFILTER_MCFPS_CPU_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "libavutil/common.h"
#include "libavutil/error.h"
#include "libavutil/mem.h"
#include "libavutil/motion_vector.h"

#include "mcfps.h"
#include "mcfps_dsp.h"

/**
 * One plane of the two input frames and of the output, w x h samples,
 * subsampled by (lx, ly); sample (x, y) of a is a[y * sa + x * step].
 */
typedef struct McfpsPlane {
    const uint8_t *a, *b;
    uint8_t *dst;
    int sa, sb, sd;     ///< line sizes
    int step;           ///< 1, or 2 for interleaved chroma (nv12; subsampled planes only)
    int w, h;
    int lx, ly;         ///< log2 subsampling against luma
    int pad;            ///< samples beyond each edge of a and b that repeat the edge's (ff_gpume_pad_plane()), or 0
} McfpsPlane;

/** What ff_mcfps_raster() saw of the vectors of one source. */
typedef struct McfpsRasterStats {
    int nb;                     ///< vectors of that source
    int outside;                ///< of those, blocks that start right of or below the frame
    int right, bottom;          ///< the furthest block ends (x + w, y + h); 0 without vectors
} McfpsRasterStats;

/**
 * Write the field (A -> B displacements, quarter pel, pairs per cell) of the
 * vectors of side data mvs whose source is `source`, negated when negate is
 * set: each cell takes the vector of the block holding its sample point
 * (the cell centre clamped into the frame), later blocks overriding earlier
 * ones; cells no block covers hold (0, 0). Returns the number of cells
 * written (a cell that several blocks cover counts for each). field may be
 * NULL: nothing is written. *stats (if not NULL) describes
 * the vectors of that source, read in the same pass.
 */
int ff_mcfps_raster(const AVMotionVector *mvs, int nb, int source, int negate,
                    const McfpsParams *p, int16_t *field, McfpsRasterStats *stats);

/**
 * ff_mcfps_raster() of the run mvs[start, end) of an array of vectors, so
 * that runs of one array can be taken on several threads: each cell a block
 * covers keeps in cells[] (zero before the first run) the one of highest
 * index, as (index + 1) << 32 | vector, by an atomic maximum.
 * ff_mcfps_raster_resolve() then writes the field that ff_mcfps_raster()
 * writes, in whatever order the runs went. cells may be NULL: *stats alone,
 * of the run (ff_mcfps_raster_stats_add() of the runs' gives the array's).
 */
void ff_mcfps_raster_run(const AVMotionVector *mvs, int start, int end, int source, int negate,
                         const McfpsParams *p, atomic_uint_least64_t *cells, McfpsRasterStats *stats);

/** Add the description of a run of vectors to *sum, that of the runs before it. */
void ff_mcfps_raster_stats_add(McfpsRasterStats *sum, const McfpsRasterStats *run);

/**
 * Rows [j0, j1) of the field of the runs that wrote cells[], which are
 * zero again after. Returns the number of cells that a block covers.
 */
int ff_mcfps_raster_resolve(const McfpsParams *p, atomic_uint_least64_t *cells, int16_t *field,
                            int j0, int j1);

/** What ff_mcfps_dominant() keeps from pair to pair: zeroed before the first. */
typedef struct McfpsDominant {
    uint32_t *count;            ///< counts of the vectors near (0, 0), all zero between calls
    uint32_t *keys;             ///< the other vectors, and the buffer of their sort
    unsigned int keys_size;     ///< bytes allocated at keys
} McfpsDominant;

/**
 * The pair's dominant vector: the most frequent non-zero vector of the raw
 * fields ra and rb together, ties to the smallest (vy, vx); (0, 0) when all
 * are zero.
 */
int ff_mcfps_dominant(McfpsDominant *d, const McfpsParams *p, const int16_t *ra, const int16_t *rb,
                      int *gx, int *gy);

void ff_mcfps_dominant_uninit(McfpsDominant *d);

/** Smoothed field of cell rows [j0, j1). */
void ff_mcfps_smooth_rows(const McfpsParams *p, const int16_t *raw, int16_t *out, int j0, int j1);

/** mcfps_bend_smooth() of the cells of rows [j0, j1) of fp into smooth (a byte each). */
void ff_mcfps_bend_smooth_rows(const McfpsParams *p, const int16_t *fp, uint8_t *smooth, int j0, int j1);

/** Quarter-pel fractions of a plane, MCFPS_PHASE(fx, fy) */
#define MCFPS_NB_PHASES 16
#define MCFPS_PHASE(fx, fy) (4 * (fy) + (fx))

/**
 * Rows [y0, y1) of the bilinear samples (mcfps_sample()) of a w x h plane
 * padded by pad samples (ff_gpume_pad_plane()) at each quarter-pel
 * fraction but (0, 0), over the positions whose samples lie inside the
 * padded plane: phase[MCFPS_PHASE(fx, fy)] gets the samples of fraction
 * (fx, fy) for columns [-pad, w + pad - 1), in rows of stride bytes like
 * src's; -pad <= y0 <= y1 <= h + pad - 1. phase[0] is not written.
 */
void ff_mcfps_phase_rows(const McfpsDSPContext *dsp, uint8_t *const *phase,
                         const uint8_t *src, int stride, int w, int pad, int y0, int y1);

/**
 * Vectors with their bends (MCFPS_VEC_N entries a cell) and info words of
 * the intermediate frame's cell rows [j0, j1) (luma planes a, b, padded by
 * pad samples as ff_gpume_pad_plane() pads them, 0 for none; pha, phb:
 * NULL, or their phases, ff_mcfps_phase_rows() of every row, [0] the plane
 * itself); fp: the previous pair's smoothed B field, read where p->bend is
 * not 0, and smooth: NULL or ff_mcfps_bend_smooth_rows() of it.
 */
void ff_mcfps_select_rows(const McfpsParams *p, const McfpsDSPContext *dsp,
                          const uint8_t *a, int sa, const uint8_t *b, int sb, int pad,
                          const uint8_t *const *pha, const uint8_t *const *phb,
                          const int16_t *ra, const int16_t *rb, const int16_t *fa, const int16_t *fb,
                          const int16_t *fp, const uint8_t *smooth, int trust,
                          int16_t *vec, uint16_t *info, int j0, int j1);

/**
 * The motion check (mcfps_check_px()) over the pixels it reads of luma rows
 * [y0, y1) (y0 a multiple of MCFPS_CHECK_STEP): the sums of the squared
 * errors of A rebuilt along d from P (pp) and B, and of the plain average.
 */
void ff_mcfps_check_rows(const McfpsParams *p, const int16_t *d, int phi,
                         const uint8_t *pp, int sp, const uint8_t *a, int sa, const uint8_t *b, int sb,
                         int y0, int y1, uint64_t *em, uint64_t *eb);

/**
 * Interpolated rows [y0, y1) of the nb planes from planes on, all of one
 * size, subsampling, step and pad.
 */
void ff_mcfps_render_rows(const McfpsParams *p, const McfpsDSPContext *dsp, const McfpsPlane *planes, int nb,
                          const int16_t *vec, const uint16_t *info, int y0, int y1);

/** Weighted average at phase phi of rows [y0, y1) of one plane (mode=blend). */
void ff_mcfps_blend_rows(const McfpsPlane *pl, int phi, int y0, int y1);

#endif /* AVFILTER_MCFPS_CPU_H */
