/*
 * mcfps backends: the CPU reference (mcfps_cpu.c), CUDA (mcfps_cuda.c,
 * cuda/mcfps.cu) and OpenCL (mcfps_opencl.c, opencl/mcfps.cl). Every backend
 * runs the steps of mcfps.h and writes the same bytes.
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

#ifndef AVFILTER_MCFPS_BACKEND_H
#define AVFILTER_MCFPS_BACKEND_H

#include "libavutil/buffer.h"
#include "libavutil/frame.h"
#include "libavutil/pixfmt.h"

#include "mcfps.h"

#define MCFPS_MAX_PLANES 4
#define MCFPS_SLOTS      3   ///< pictures a backend holds: P, A and B

/** A backend's picture slot: 0 .. MCFPS_SLOTS - 1. */
static inline int ff_mcfps_slot_valid(int slot)
{
    return slot >= 0 && slot < MCFPS_SLOTS;
}

/** Runs job(arg, jobnr, nb_jobs) for jobnr in [0, nb_jobs), possibly in parallel. */
typedef int (McfpsExecuteFn)(void *opaque, int (*job)(void *arg, int jobnr, int nb_jobs),
                             void *arg, int nb_jobs);

/** What the filter gives a backend at init. */
typedef struct McfpsHost {
    void            *log_ctx;     ///< messages (levels lowered while a device=auto candidate starts)
    void            *note_ctx;    ///< notes on how the backend runs, never lowered (the filter)
    McfpsExecuteFn  *execute;     ///< CPU parallelism (slice threads)
    void            *exec_opaque;
    int              nb_threads;
    AVBufferRef     *hw_device;   ///< GPU backends: a device of their type (gpume_device.h opens it)
} McfpsHost;

/**
 * The pictures a backend converts: size, the planes of the picture (luma,
 * chroma, alpha: converted one by one) and where they lie in a frame of the
 * software format. A plane of a planar format is a frame plane of its own;
 * the two chroma planes of nv12 and nv21 share frame plane 1, interleaved.
 */
typedef struct McfpsFormat {
    int width, height;
    int nb_planes;
    int w[MCFPS_MAX_PLANES], h[MCFPS_MAX_PLANES];    ///< plane sizes
    int lx[MCFPS_MAX_PLANES], ly[MCFPS_MAX_PLANES]; ///< log2 subsampling against luma
    /** plane i's sample (x, y): byte offset[i] + x * step[i] of row y of frame plane plane[i];
     * step[i] is 1, or 2 for interleaved chroma (subsampled: lx[i] or ly[i] set) */
    int plane[MCFPS_MAX_PLANES], offset[MCFPS_MAX_PLANES], step[MCFPS_MAX_PLANES];
    int nb_frame_planes;
    /** frame plane k: fh[k] rows of fw[k] bytes, in elements of fstep[k] bytes
     * (a sample of each plane in it: the pixel of an OpenCL frame's image) */
    int fw[MCFPS_MAX_PLANES], fh[MCFPS_MAX_PLANES], fstep[MCFPS_MAX_PLANES];
} McfpsFormat;

/**
 * Fill f for width x height pictures of the 8-bit YUV or gray software
 * format sw_format (planar, or with interleaved chroma; chroma subsampled
 * by at most 2 along each axis); AVERROR(EINVAL) for other formats.
 */
int ff_mcfps_format(McfpsFormat *f, int width, int height, enum AVPixelFormat sw_format);

/** Pixels the motion check reads along a luma side of size pixels. */
static inline int ff_mcfps_check_samples(int size)
{
    return (size + MCFPS_CHECK_STEP - 1) / MCFPS_CHECK_STEP;
}

/** Work groups of a GPU check kernel along a luma side of size pixels, each taking group of the samples it reads. */
static inline int ff_mcfps_check_groups(int size, int group)
{
    return (ff_mcfps_check_samples(size) + group - 1) / group;
}

typedef struct McfpsBackend {
    const char *name;
    size_t      priv_size;
    /** Prepare for pictures of f; called again after uninit on a size or format change. */
    int  (*init)(void *priv, const McfpsHost *host, const McfpsFormat *f);
    /**
     * Make frame the picture of slot (0 .. MCFPS_SLOTS - 1): a software frame of f's
     * format, or on a GPU backend a hardware frame of its device (read in
     * place or copied on the device, never through the host). A backend
     * that reads the frame in place keeps a reference to it until the slot
     * is loaded again.
     */
    int  (*load)(void *priv, int slot, const AVFrame *frame);
    /**
     * The raw fields of a pair (A -> B, quarter pel, p->cw x p->ch (x, y)
     * pairs each, host memory, reusable once this returns): the backend
     * smooths them for the following render() calls.
     */
    int  (*fields)(void *priv, const McfpsParams *p, const int16_t *ra, const int16_t *rb);
    /**
     * The motion check of the pair (a, b) (M6): the picture of slot a
     * rebuilt from those of slots prev and b, at phase phi between them,
     * along d (P -> B, quarter pel, p->cw x p->ch (x, y) pairs, host memory,
     * reusable once this returns). The trust it gives weighs motion
     * compensation in the following render() calls; d NULL: full trust.
     */
    int  (*check)(void *priv, const McfpsParams *p, const int16_t *d, int phi, int prev, int a, int b);
    /**
     * Write the frame at phase p->phi between the pictures of slots a and b
     * into out: mode MCFPS_MODE_MC (with the fields of the last fields()
     * call) or MCFPS_MODE_BLEND. out is a software frame of f's format, or
     * on a GPU backend a hardware frame of its device; it is complete for
     * whoever reads it next (the host, or the device's stream or queue).
     */
    int  (*render)(void *priv, const McfpsParams *p, int mode, int a, int b, AVFrame *out);
    /**
     * Optional: when present, render() into a software frame may return
     * before the frame is written, so that the device works while the
     * caller goes on. finish() completes every frame render() was given.
     * The caller keeps those frames, neither reading nor sending them, until
     * finish() returns, and calls it before the next render(); uninit()
     * without finish() drops the frame (the caller frees it after).
     */
    int  (*finish)(void *priv);
    void (*uninit)(void *priv);
} McfpsBackend;

extern const McfpsBackend ff_mcfps_backend_cpu;
extern const McfpsBackend ff_mcfps_backend_cuda;
extern const McfpsBackend ff_mcfps_backend_opencl;

#endif /* AVFILTER_MCFPS_BACKEND_H */
