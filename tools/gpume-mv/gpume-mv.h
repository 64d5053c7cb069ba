/*
 * gpume-mv: declarations shared by the files of the tool (docs/gpume-mv.md).
 *
 * metrics.c, truth.c, eval.c, table.c and dump.c use libavutil only, so that
 * tests/mvcheck.c links exactly the code that 'eval' and 'dump' run;
 * pipeline.c and main.c add libavformat, libavcodec and libavfilter.
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

#ifndef GPUME_MV_H
#define GPUME_MV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "libavutil/frame.h"
#include "libavutil/motion_vector.h"
#include "libavutil/pixfmt.h"

#define META_PREFIX "lavfi.gpume."

/* --- metrics.c: luma planes, vectors, prediction ------------------------- */

typedef struct Plane {
    const uint8_t *data;
    ptrdiff_t linesize;
    int w, h;
} Plane;

/** One vector of one direction, as eval uses it. */
typedef struct Block {
    int x, y, w, h;     ///< the block clipped to the frame, w, h > 0
    int dst_x, dst_y;   ///< as exported
    int qx, qy;         ///< quarter-pel vector used for prediction
    double mx, my;      ///< exact vector in pixels
} Block;

/** Pairs of neighbouring blocks, the scratch space of mv_smoothness(). */
typedef struct PairBuf {
    uint64_t *pairs;
    size_t nb, size;
} PairBuf;

/**
 * The reference at quarter-pel position (qx, qy): gpume_sample_qpel() of
 * libavfilter/gpume.h (docs/ALGORITHMS.md §2), in [0, 255].
 */
int mv_sample_q(const Plane *r, int qx, int qy);

/** v / scale in quarter pels, nearest, halves rounded up; scale > 0. */
int mv_to_qpel(int v, int scale);

/**
 * Convert an exported vector of a w x h frame. Return 0 when the block has
 * no pixel inside the frame (b is then unusable), 1 otherwise.
 * motion / motion_scale is used only where it agrees with src - dst within a
 * pixel (exporters round src differently, none by more); else src - dst, and
 * *inconsistent is set: FFmpeg 7.1's mestimate leaves motion_x, motion_y and
 * motion_scale uninitialised, so they may hold anything.
 */
int mv_block_from_mv(const AVMotionVector *mv, int w, int h, Block *b, int *inconsistent);

/**
 * Predict a ref->w x ref->h plane into pred (stride ref->w) from the blocks;
 * label[i] gets the index of the block predicting pixel i, -1 where none.
 */
void mv_predict(const Plane *ref, const Block *blocks, int nb, uint8_t *pred, int32_t *label);

/** Sums of squared and absolute differences between a plane and a w x h prediction. */
void mv_plane_diff(const Plane *c, const uint8_t *pred, ptrdiff_t pred_stride,
                   uint64_t *sse, uint64_t *sad);

/** 10 log10(255^2 pixels / sse); NAN without pixels, INFINITY when sse is 0. */
double mv_psnr(uint64_t sse, uint64_t pixels);

/** Median of n values (sorted in place); the mean of the middle two for even n; NAN for none. */
double mv_median(double *v, size_t n);

/**
 * Smoothness of a w x h label map: the sum, over all distinct pairs of blocks
 * with 4-neighbouring pixels, of the length of their vector difference in
 * pixels, and the number of pairs.
 */
int mv_smoothness(const int32_t *label, int w, int h, const Block *blocks,
                  PairBuf *buf, double *sum, int64_t *nb_pairs);

/* --- truth.c: the -truth file, number parsing ----------------------------- */

typedef struct TruthLine {
    int64_t frame;      ///< -1: every frame
    double dx, dy;
    int has_rect;
    int x, y, w, h;
} TruthLine;

typedef struct Truth {
    TruthLine *lines;
    int nb;
} Truth;

/** Whether s is entirely a finite number; its value in *v. */
int mv_parse_double(const char *s, double *v);
/** Whether s is entirely a decimal integer in [min, max]; its value in *v. */
int mv_parse_int(const char *s, int64_t min, int64_t max, int64_t *v);

/** Parse the text of a truth file into t; name is for messages. */
int mv_truth_parse(Truth *t, const char *text, const char *name);
/** True motion of pixel (x, y) of frame index; 0 when there is none. */
int mv_truth_at(const Truth *t, int64_t index, int x, int y, double *dx, double *dy);
void mv_truth_free(Truth *t);

/* --- eval.c: evaluation of one frame and the totals ----------------------- */

enum { FWD, BWD };

typedef struct FrameStats {
    int64_t index, pts;
    char type;
    int n[2];               ///< vectors of each direction in the side data
    int has[2];             ///< the direction was evaluated
    double cover[2], mae[2], smooth[2];
    uint64_t sse[2], pixels;
    int has_bi, has0;
    uint64_t sse_bi, sse0;
    double mean_sad;        ///< NAN when absent
    double epe_mean, epe_median;
    size_t nb_epe;
} FrameStats;

typedef struct EvalContext {
    Truth truth;
    int have_truth;

    Block *blocks;
    unsigned blocks_size;
    uint8_t *pred[2];
    int32_t *label;
    int plane_w, plane_h;
    PairBuf pairs;
    double *epe;                ///< EPEs of the current frame
    size_t nb_epe, epe_size;
    double *epe_all;            ///< of every frame, for the overall median
    size_t nb_epe_all, epe_all_size;
    int warned_ref, warned_motion;

    /* totals */
    int64_t frames, frames_dir[2], frames_bi, frames0, vectors[2];
    uint64_t sse[2], pixels[2], sse_bi, pixels_bi, sse0, pixels0;
    double cover_sum[2], mae_sum[2], smooth_sum[2];
    int64_t smooth_pairs[2];
    double epe_sum;
} EvalContext;

/** Frames arrive one by one; each is evaluated once its next one is there. */
typedef struct EvalRun {
    EvalContext e;
    AVFrame *prev, *cur;
    int64_t cur_index;
    int64_t max_frames;     ///< 0: all
    int started;            ///< a graph is configured (mv_eval_start())
    int header_printed;     ///< once the first frame can be evaluated, or at the end
} EvalRun;

/** Whether eval can read the luma of fmt: 8 bits, one byte a sample, plane 0. */
int mv_luma_usable(enum AVPixelFormat fmt);

/**
 * Evaluate cur (frame number index) against its neighbours prev and next
 * (either may be NULL), fill *st and add it to the totals.
 */
int mv_eval_frame(EvalContext *e, const AVFrame *prev, const AVFrame *cur,
                  const AVFrame *next, int64_t index, FrameStats *st);
void mv_eval_uninit(EvalContext *e);

/** Pipeline callbacks of 'eval': print the table header once the input is open ... */
int mv_eval_start(void *opaque);
/** ... take output frame index (its row is printed when the next one arrives) ... */
int mv_eval_take(void *opaque, AVFrame *f, int64_t index);
/** ... and, at the end, print the last row and the overall line. */
int mv_eval_finish(EvalRun *r);
void mv_eval_run_free(EvalRun *r);

/* --- table.c: eval's output ---------------------------------------------- */

void mv_print_eval_header(void);
void mv_print_eval_row(const FrameStats *st);
int mv_print_eval_summary(const EvalContext *e);

/* --- dump.c ----------------------------------------------------------------- */

typedef struct DumpContext {
    int jsonl;
    int64_t max_frames;     ///< 0: all
    int started;            ///< the graph is configured
    int header_printed;
} DumpContext;

/** Whether s is a number in JSON's grammar. */
int mv_is_json_number(const char *s);

/** Pipeline callbacks of 'dump': the graph configured ... */
int mv_dump_start(void *opaque);
/** ... and the lines of one frame (after the csv header); > 0 after the last frame wanted. */
int mv_dump_frame(void *opaque, AVFrame *f, int64_t index);
/** The csv header of a run that ended without frames, once its graph was configured. */
void mv_dump_finish(DumpContext *d);

/* --- pipeline.c: input -> decoder -> buffer -> GRAPH -> buffersink ---------- */

typedef struct Options {
    const char *input, *graph, *truth;
    int jsonl, export_mvs;
    int64_t max_frames;
} Options;

typedef struct FrameSink {
    /** Called once, when the input is open and the graph configured; may be NULL. */
    int (*start)(void *opaque);
    /** Gets every output frame (and may keep its content); returns > 0 to stop. */
    int (*take)(void *opaque, AVFrame *f, int64_t index);
    void *opaque;
} FrameSink;

/**
 * Decode o->input, run it through o->graph and pass every output frame to
 * sink->take(). The graph is rebuilt (after the old one is drained) when the
 * decoded frames change size, pixel format, colour space, colour range or
 * hardware frames context.
 */
int mv_run_pipeline(const Options *o, const FrameSink *sink);

#endif /* GPUME_MV_H */
