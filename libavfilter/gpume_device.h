/*
 * gpume device layer: which device a GPU filter runs on (CUDA, OpenCL or the
 * CPU), opening it quietly in device=auto, slice threads for its CPU
 * backend, and the frame properties gpume sets. Shared by the filters of
 * this repository (gpume, mcfps).
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

/*
 * Contract (docs/ARCHITECTURE.md tells the same story):
 *
 *  1. config_input of a filter with a device option calls
 *     ff_gpume_device_plan() once: from the option, the input link (hardware
 *     frames decide the device type and the device itself) and the graph's
 *     device (-filter_hw_device), it lists the device types to try, in order.
 *     device=auto: CUDA, then an OpenCL GPU (never an OpenCL CPU driver),
 *     then the CPU.
 *  2. For each candidate i the filter calls ff_gpume_device_open(), which
 *     gives a new reference to the input frames' or the graph's device of
 *     that type, or creates one (CUDA device gpu_index, on its primary
 *     context, which the filters of a process share; OpenCL the
 *     gpu_index-th GPU, or with device=opencl and no GPU the gpu_index-th
 *     device of any type), or NULL for the CPU. Before creating a CUDA
 *     device it probes the driver itself, so that a machine without CUDA
 *     gets no error lines from FFmpeg's loader. The filter then initialises
 *     its backend on that device; when that fails it calls
 *     ff_gpume_device_skip() and tries the next one.
 *  3. A failure in device=auto is a normal fallback: it is logged at verbose
 *     level and remembered; ff_gpume_device_report() then logs one info line
 *     that names the backend chosen and why the earlier ones were not. What
 *     a backend logs while it starts, it logs to the filter's
 *     GpumeBackendLog, whose levels are lowered for such a candidate (its
 *     errors become verbose lines). With an explicit device a failure is an
 *     error that says what is missing (no CUDA driver, no CUDA device, no
 *     OpenCL GPU and what was found).
 *  4. The filter keeps the device reference for its lifetime (a restart on
 *     a size change reuses it) and unrefs it in uninit.
 *  5. Backends never create devices: they take the AVBufferRef they are
 *     given (its type is theirs) and load their kernels with FFmpeg's
 *     helpers (CUDA: ff_cuda_load_module() of cuda/load_helper.h; OpenCL:
 *     clCreateProgramWithSource on the device's context, with the sources
 *     FFmpeg's build embeds from opencl/NAME.cl, and CL_* checks of opencl.h).
 *     They read software frames by a copy into their own buffers and
 *     hardware frames of their device on the device (gpume_cuda.c,
 *     cuda_load(), and gpume_opencl.c, ocl_load(): a copy of the luma;
 *     mcfps_cuda.c reads CUDA frames in place).
 *  6. CPU backends run their slices with ff_gpume_execute_slices() (opaque:
 *     the filter's GpumeSlices), i.e. the filter graph's slice threads.
 */

#ifndef AVFILTER_GPUME_DEVICE_H
#define AVFILTER_GPUME_DEVICE_H

#include <stddef.h>

#include "config.h"

#include "libavutil/buffer.h"
#include "libavutil/frame.h"
#include "libavutil/log.h"

#include "avfilter.h"

/** CUDA kernels can be built (FFmpeg configured with a CUDA compiler). */
#define GPUME_HAVE_CUDA (CONFIG_CUDA && (CONFIG_CUDA_NVCC || CONFIG_CUDA_LLVM))

/** Device types; the values of the filters' device option. */
enum GpumeDeviceType {
    GPUME_DEVICE_AUTO,
    GPUME_DEVICE_CPU,
    GPUME_DEVICE_CUDA,
    GPUME_DEVICE_OPENCL,
    GPUME_DEVICE_NB
};

/** "auto", "cpu", "cuda", "opencl" */
const char *ff_gpume_device_name(int type);

/**
 * A format as the filters' messages name it: "gray", or "cuda(nv12)" for
 * hardware frames of that software format (sw_format AV_PIX_FMT_NONE or
 * format itself for software frames). Returns buf.
 */
const char *ff_gpume_format_name(char *buf, size_t size, enum AVPixelFormat format,
                                 enum AVPixelFormat sw_format);

#define GPUME_DEVICE_MAX_CANDIDATES 3

typedef struct GpumeDevicePlan {
    int requested;                  ///< the option, or the one device it leaves: enum GpumeDeviceType
    int asked;                      ///< the option as given: enum GpumeDeviceType
    int gpu_index;                  ///< the filter's gpu option
    int nb;                         ///< candidates, tried in order
    int type[GPUME_DEVICE_MAX_CANDIDATES]; ///< CPU, CUDA or OPENCL
    AVBufferRef *given;             ///< the input frames' or graph's device (not owned), or NULL
    const char  *given_from;        ///< "the input frames' device" or "the filter graph's device"
    int opencl_any;                 ///< an OpenCL device that is not a GPU will do
    char why[512];                  ///< why earlier candidates were passed over
} GpumeDevicePlan;

/**
 * The log context a filter gives its backend (the hosts' log_ctx): a
 * backend's lines appear under the filter's as "[filter] [backend]". While
 * ff_gpume_device_start() tries a candidate of device=auto, whose failure
 * is a normal fallback, the levels of all its lines are lowered by one step
 * (AV_LOG_VERBOSE - AV_LOG_ERROR: an error becomes a verbose line, a
 * verbose line is dropped), and the filter's info line says why the
 * candidate was passed over. What a backend notes on how it runs (pageable
 * staging memory, portable kernels) it logs to the hosts' note_ctx, the
 * filter, which is never lowered.
 */
typedef struct GpumeBackendLog {
    const AVClass   *class;
    int              level_offset;  ///< added to each line's level
    AVFilterContext *filter;        ///< the parent log context
    int              type;          ///< the backend's device type, its name
} GpumeBackendLog;

/** Make log the backend log context of filter ctx. */
void ff_gpume_backend_log_init(GpumeBackendLog *log, AVFilterContext *ctx);

/**
 * Fill plan for the filter ctx whose first input is inlink. supported:
 * bit (1 << type) for each device type the filter has a backend for in this
 * build (the CPU at least); only_opencl: the filter's options need OpenCL
 * (gpume's algo=vme), any OpenCL device will do then. Returns an error
 * (logged) for hardware frames it cannot use or that contradict requested.
 */
int ff_gpume_device_plan(AVFilterContext *ctx, AVFilterLink *inlink, int requested,
                         int gpu_index, unsigned supported, int only_opencl,
                         GpumeDevicePlan *plan);

/**
 * Open candidate i of plan: *dev becomes a new reference to the given
 * device (if its type is plan->type[i]) or to a created one, or NULL for the
 * CPU. In device=auto a failure is logged at verbose level and added to
 * plan->why; with an explicit device it is an error with a clear message.
 */
int ff_gpume_device_open(AVFilterContext *ctx, GpumeDevicePlan *plan, int i, AVBufferRef **dev);

/** Candidate i opened but its backend did not start (err): remember why, at verbose level. */
void ff_gpume_device_skip(AVFilterContext *ctx, GpumeDevicePlan *plan, int i, int err);

/** The one info line: "using the X backend" on which device, and why not the earlier ones. */
void ff_gpume_device_report(AVFilterContext *ctx, const GpumeDevicePlan *plan, int i,
                            const AVBufferRef *dev);

/**
 * Start the filter on the candidates of plan in turn: open each
 * (ff_gpume_device_open() into *dev), call start(ctx, type) to start the
 * filter's backend of that type on *dev, with log (the backend's log
 * context) set to that type and, in device=auto, to lowered levels; and
 * report the first that starts (ff_gpume_device_report()). start leaves
 * nothing started when it fails.
 * With device=auto a candidate whose backend does not start is skipped
 * (ff_gpume_device_skip()) unless it ran out of memory; with an explicit
 * device the failure is final and logged. On failure *dev is NULL and, for
 * device=auto, one error line says why no candidate could run the filter.
 */
int ff_gpume_device_start(AVFilterContext *ctx, GpumeDevicePlan *plan, AVBufferRef **dev,
                          GpumeBackendLog *log, int (*start)(AVFilterContext *ctx, int type));

/** A filter's slice threads as its CPU backends run them (ff_gpume_execute_slices()). */
typedef struct GpumeSlices {
    AVFilterContext *ctx;
    int nb_runners;             ///< threads that take a pass's jobs: the graph's, at most one per core
} GpumeSlices;

/** Set sl up for filter ctx, whose graph's threads are known. */
void ff_gpume_slices_init(GpumeSlices *sl, AVFilterContext *ctx);

/**
 * Runs job(arg, jobnr, nb_jobs) for jobnr in [0, nb_jobs) on the slice
 * threads of slices (a GpumeSlices), at most nb_runners at once: each
 * takes the jobs of its own contiguous share in order, then those left in
 * the others', and the first briefly waits for the others awake. Returns an
 * error of a job, if one failed.
 */
int ff_gpume_execute_slices(void *slices, int (*job)(void *arg, int jobnr, int nb_jobs),
                            void *arg, int nb_jobs);

/**
 * Remove from frame what gpume attaches, as describing the frame among its
 * neighbours: motion vectors and the lavfi.gpume.* metadata (pict_type is
 * the caller's). Returns 0 or an error of av_dict_set().
 */
int ff_gpume_remove_properties(AVFrame *frame);

#endif /* AVFILTER_GPUME_DEVICE_H */
