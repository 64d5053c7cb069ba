/*
 * gpume: the operations every backend provides; the filter calls these only.
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

#ifndef AVFILTER_GPUME_BACKEND_H
#define AVFILTER_GPUME_BACKEND_H

#include "libavutil/buffer.h"
#include "libavutil/frame.h"
#include "gpume.h"
#include "gpume_dis.h"
#include "gpume_kernel.h"

/**
 * Frames whose estimates stay in flight while the filter takes the next
 * frame: a GPU searches them while the filter graph's thread goes on, and
 * the host waits only for an estimate issued that many frames earlier.
 */
#define GPUME_MAX_INFLIGHT 3

/**
 * Number of picture slots a backend keeps: the pictures the frames in
 * flight read (each its previous, own and next picture), those of the frame
 * being issued, and the one being loaded meanwhile.
 */
#define GPUME_NB_SLOTS (GPUME_MAX_INFLIGHT + 3)

/**
 * Number of result slots: two directions of each frame in flight and of the
 * one being issued. The caller numbers them and never reuses one whose
 * result it has not waited for.
 */
#define GPUME_NB_RESULTS (2 * (GPUME_MAX_INFLIGHT + 1))

/** Runs job(arg, jobnr, nb_jobs) for jobnr in [0, nb_jobs), possibly in parallel. */
typedef int (GpumeExecuteFn)(void *opaque, int (*job)(void *arg, int jobnr, int nb_jobs),
                             void *arg, int nb_jobs);

/** What the host gives a backend at init. */
typedef struct GpumeHost {
    void            *log_ctx;     ///< messages (levels lowered while a device=auto candidate starts)
    void            *note_ctx;    ///< notes on how the backend runs, never lowered (the filter)
    GpumeExecuteFn  *execute;     ///< CPU parallelism (slice threads)
    void            *exec_opaque;
    int              nb_threads;
    AVBufferRef     *hw_device;   ///< GPU backends: a device of their type (gpume_device.h opens it)
} GpumeHost;

/** The result of one estimate: blocks grouped by CTU in raster order. */
typedef struct GpumeResult {
    GpumeBlock *blocks;   ///< nb_ctus * max_out entries; CTU c owns [c * max_out, ...)
    uint16_t   *counts;   ///< blocks exported by each CTU (Z order within it)
} GpumeResult;

typedef struct GpumeBackend {
    const char *name;
    size_t      priv_size;
    /**
     * The estimates issued are done when sync() returns, which the caller
     * calls before it takes the next frame: no frame waits in flight, so
     * that none is held longer than its vectors need (a graph that the
     * ffmpeg CLI replaces at a change of size loses what its filters hold).
     */
    int         synchronous;
    /** Prepare for frames of p->width x p->height; may be called again on a size change after uninit. */
    int  (*init)(void *priv, const GpumeHost *host, const GpumeParams *p);
    /** Make frame the picture of slot (its luma plane; software or this backend's hardware frame). */
    int  (*load)(void *priv, int slot, const AVFrame *frame);
    /**
     * Estimate vectors of picture slot cur into picture slot ref, into
     * result slot out (0 .. GPUME_NB_RESULTS - 1) whose host arrays are res.
     * The predictor of each CTU: with pred_from >= 0, that of
     * gpume_ctu_predictor() on the estimate issued earlier into result slot
     * pred_from (pred=temporal; it stays on the device, nothing waits for
     * it); else pred, one quarter-pel (x, y) per CTU, reusable once this
     * returns. The work may run asynchronously: the result is the caller's
     * after wait(out), or in the arrays of res after sync(). The caller keeps at most
     * GPUME_MAX_INFLIGHT + 1 frames of estimates in flight and does not load
     * a slot that one of them reads.
     */
    int  (*estimate)(void *priv, int cur, int ref, const int16_t *pred, int pred_from,
                     int out, GpumeResult *res);
    /**
     * Wait for the estimate into result slot out and point *res at its
     * result: the backend's own read-back, valid until result slot out is
     * issued again, or the arrays given to estimate() (optional: sync()
     * otherwise).
     */
    int  (*wait)(void *priv, int out, GpumeResult *res);
    /** Wait until every estimate() issued so far has written its result into the arrays given to it. */
    int  (*sync)(void *priv);
    void (*uninit)(void *priv);
} GpumeBackend;

extern const GpumeBackend ff_gpume_backend_cpu;
extern const GpumeBackend ff_gpume_backend_cuda;
extern const GpumeBackend ff_gpume_backend_opencl;

/** Fill the derived fields of p; returns AVERROR(EINVAL) for inconsistent values. */
int ff_gpume_params_derive(GpumeParams *p);

/**
 * The PU table of p's CTU (p->nb_pus entries) and, with fixed blocks, the
 * PUs exported in Z order (p->nb_fixed_pus entries): what every search reads.
 */
void ff_gpume_pu_tables(const GpumeParams *p, GpumePU *pu, uint16_t *fixed_pus);

/**
 * Lay out the padded pyramid of one picture of p (level 0 and the hme
 * levels, each with p->pad samples of border and a pitch aligned to align
 * bytes) in one buffer of the GPU backends: level[k] gets its offset, pitch
 * and size. Returns the buffer's size in bytes, or 0 when it would not fit
 * the int offsets of GpumePlane.
 */
size_t ff_gpume_pyramid_layout(const GpumeParams *p, int align, GpumePlane *level);

/**
 * The pyramid kernels' argument for the planes of level (from
 * ff_gpume_pyramid_layout()): with level0_loaded, level 0's border only (its
 * samples were loaded in place), else all of level 0 with its border; then,
 * for hme, each coarse level with its border. Returns the kernel's number of
 * blocks.
 */
int ff_gpume_pyramid_args(const GpumeParams *p, const GpumePlane *level, int level0_loaded,
                          GpumePyramidArgs *a);

/**
 * Whether the search costs the fixed 8x8 blocks of a 32x32 CTU straight
 * from the pixels, without the unit table (the GPU backends' kernels of
 * their own for gpume's default blocks).
 */
int ff_gpume_block8_search(const GpumeParams *p);

/**
 * The key packing of the full-search kernels of CTU 32 (gpume.h) for the
 * caller's predictors pred (nb_ctus (x, y) pairs), or (NULL) those of an
 * earlier estimate, whose components the sub-pel steps keep within
 * 4 range + 3 quarter pels. Returns 1 and sets *key_bits and *local, or 0
 * when none fits (or the range is below GPUME_FULL_MIN_RANGE) and the
 * PU-table kernel searches instead. Both GPU backends decide with it.
 */
int ff_gpume_full_key_packing(const GpumeParams *p, const int16_t *pred, int *key_bits, int *local);

/**
 * A GPU backend's read-back of one result: the block counts, then at
 * *blocks_offset the whole nb_ctus * max_out block array. Returns the
 * buffer's size in bytes.
 */
size_t ff_gpume_readback_layout(const GpumeParams *p, size_t *blocks_offset);

/**
 * Point view at the counts and blocks of a read-back buf laid out by
 * ff_gpume_readback_layout(), without a copy. AVERROR_BUG for a count above
 * max_out.
 */
int ff_gpume_readback_view(const GpumeParams *p, uint8_t *buf, size_t blocks_offset,
                           GpumeResult *view);

/** Copy the counts and the exported blocks of result src into the arrays of dst. */
void ff_gpume_result_copy(const GpumeParams *p, const GpumeResult *src, const GpumeResult *dst);

/** Copy the counts and the exported blocks of a read-back buf into the arrays of res. */
int ff_gpume_readback_result(const GpumeParams *p, uint8_t *buf, size_t blocks_offset,
                             const GpumeResult *res);

/**
 * dis: the levels of a picture's pyramid that the search reads beyond hme's
 * (GPUME_HME_LEVELS + 1 .. gpume_dis_coarsest()), each with rows aligned to
 * align bytes, in one buffer of each picture; lv[0 .. GPUME_HME_LEVELS] are
 * hme's levels as given (the backend's pyramid holds them: dis runs hme
 * first). Returns the buffer's size in bytes (at least 1), or 0 when an
 * offset would not fit an int.
 */
size_t ff_gpume_dis_layout(const GpumeParams *p, int align, GpumeDisLevel *lv);

/** The algorithms the PU-table and LFS searches of every backend run (VME has its own path). */
static inline int ff_gpume_is_search_algo(int algo)
{
    return algo == GPUME_ALGO_FULL || algo == GPUME_ALGO_HME || algo == GPUME_ALGO_LFS;
}

#endif /* AVFILTER_GPUME_BACKEND_H */
