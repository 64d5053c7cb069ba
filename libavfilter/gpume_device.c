/*
 * gpume device layer: device choice and opening, slice threads
 * (the contract is in gpume_device.h).
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

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

#if CONFIG_OPENCL
#include "opencl.h"     /* first: it enables the OpenCL 1.2 API */
#endif

#include "libavutil/avstring.h"
#include "libavutil/cpu.h"
#include "libavutil/dict.h"
#include "libavutil/hwcontext.h"
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"
#include "libavutil/time.h"

#include "filters.h"
#include "gpume_device.h"

#if GPUME_HAVE_CUDA && !defined(_WIN32)
#include <dlfcn.h>
#define CUDA_PROBE 1
#else
#define CUDA_PROBE 0
#endif

const char *ff_gpume_device_name(int type)
{
    static const char *const names[] = { "auto", "cpu", "cuda", "opencl" };
    return type >= 0 && type < GPUME_DEVICE_NB ? names[type] : "unknown";
}

const char *ff_gpume_format_name(char *buf, size_t size, enum AVPixelFormat format,
                                 enum AVPixelFormat sw_format)
{
    const char *name = av_get_pix_fmt_name(format);
    const int hw = sw_format != AV_PIX_FMT_NONE && sw_format != format;
    const char *sw_name = hw ? av_get_pix_fmt_name(sw_format) : NULL;

    snprintf(buf, size, "%s%s%s%s", name ? name : "none", hw ? "(" : "",
             hw ? (sw_name ? sw_name : "none") : "", hw ? ")" : "");
    return buf;
}

static const char *backend_log_name(void *ptr)
{
    const GpumeBackendLog *log = ptr;
    return ff_gpume_device_name(log->type);
}

static const AVClass backend_log_class = {
    .class_name                = "gpume backend",
    .item_name                 = backend_log_name,
    .version                   = LIBAVUTIL_VERSION_INT,
    .log_level_offset_offset   = offsetof(GpumeBackendLog, level_offset),
    .parent_log_context_offset = offsetof(GpumeBackendLog, filter),
    .category                  = AV_CLASS_CATEGORY_FILTER,
};

av_cold void ff_gpume_backend_log_init(GpumeBackendLog *log, AVFilterContext *ctx)
{
    *log = (GpumeBackendLog) {
        .class  = &backend_log_class,
        .filter = ctx,
        .type   = GPUME_DEVICE_CPU,
    };
}

/** The graph's device (-filter_hw_device) if it has the given type. */
static AVBufferRef *graph_device(AVFilterContext *ctx, enum AVHWDeviceType type)
{
    if (ctx->hw_device_ctx &&
        ((AVHWDeviceContext *)ctx->hw_device_ctx->data)->type == type)
        return ctx->hw_device_ctx;
    return NULL;
}

int ff_gpume_device_plan(AVFilterContext *ctx, AVFilterLink *inlink, int requested,
                         int gpu_index, unsigned supported, int only_opencl,
                         GpumeDevicePlan *plan)
{
    FilterLink *l = ff_filter_link(inlink);
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(inlink->format);
    const int has_opencl = !!(supported & (1 << GPUME_DEVICE_OPENCL));
    const int has_cuda   = !!(supported & (1 << GPUME_DEVICE_CUDA));

    memset(plan, 0, sizeof(*plan));
    plan->requested = requested;
    plan->asked     = requested;
    plan->gpu_index = gpu_index;

    if (desc && (desc->flags & AV_PIX_FMT_FLAG_HWACCEL)) {
        /* hardware frames: their device, nothing else (the caller checked
         * that the frames are CUDA or OpenCL of a format it reads) */
        const AVHWFramesContext *frames = (const AVHWFramesContext *)l->hw_frames_ctx->data;
        const int type = inlink->format == AV_PIX_FMT_OPENCL ? GPUME_DEVICE_OPENCL : GPUME_DEVICE_CUDA;
        if (requested != GPUME_DEVICE_AUTO && requested != type) {
            av_log(ctx, AV_LOG_ERROR, "%s frames need device=%s; use hwdownload "
                   "for the %s backend\n", desc->name, ff_gpume_device_name(type),
                   ff_gpume_device_name(requested));
            return AVERROR(ENOSYS);
        }
        if (only_opencl && type != GPUME_DEVICE_OPENCL) {
            av_log(ctx, AV_LOG_ERROR, "these options run on OpenCL only: %s frames need "
                   "hwdownload\n", desc->name);
            return AVERROR(ENOSYS);
        }
        plan->type[plan->nb++] = type;
        plan->given      = frames->device_ref;
        plan->given_from = "the input frames' device";
        plan->requested  = type;    /* no fallback from the frames' device */
        return 0;
    }
    if (only_opencl) {
        plan->type[plan->nb++] = GPUME_DEVICE_OPENCL;
        plan->given      = graph_device(ctx, AV_HWDEVICE_TYPE_OPENCL);
        plan->opencl_any = 1;
        if (requested == GPUME_DEVICE_AUTO)
            plan->requested = GPUME_DEVICE_OPENCL;
    } else if (has_opencl && (requested == GPUME_DEVICE_OPENCL ||
                              (requested == GPUME_DEVICE_AUTO &&
                               graph_device(ctx, AV_HWDEVICE_TYPE_OPENCL)))) {
        /* the graph's OpenCL device was chosen by the user: no fallback */
        plan->type[plan->nb++] = GPUME_DEVICE_OPENCL;
        plan->given      = graph_device(ctx, AV_HWDEVICE_TYPE_OPENCL);
        plan->opencl_any = 1;
        plan->requested  = GPUME_DEVICE_OPENCL;
    } else if (requested == GPUME_DEVICE_AUTO) {
        plan->given = graph_device(ctx, AV_HWDEVICE_TYPE_CUDA);
        if (ctx->hw_device_ctx && !plan->given)
            av_log(ctx, AV_LOG_VERBOSE, "the graph's device is not a CUDA device\n");
        if (has_cuda)
            plan->type[plan->nb++] = GPUME_DEVICE_CUDA;
        if (has_opencl)
            plan->type[plan->nb++] = GPUME_DEVICE_OPENCL;
        plan->type[plan->nb++] = GPUME_DEVICE_CPU;
    } else {
        plan->type[plan->nb++] = requested;
        if (requested == GPUME_DEVICE_CUDA)
            plan->given = graph_device(ctx, AV_HWDEVICE_TYPE_CUDA);
    }
    if (plan->given)
        plan->given_from = "the filter graph's device";
    return 0;
}

/** Append "; what" to plan->why. */
static void add_why(GpumeDevicePlan *plan, const char *what)
{
    if (plan->why[0])
        av_strlcat(plan->why, "; ", sizeof(plan->why));
    av_strlcat(plan->why, what, sizeof(plan->why));
}

#if CUDA_PROBE
typedef int (*CuInit)(unsigned int flags);
typedef int (*CuDeviceGetCount)(int *count);
typedef int (*CuGetErrorName)(int error, const char **str);

/**
 * Look for a CUDA driver and device gpu_index without FFmpeg's loader (which
 * logs errors): 0 when there is one, else an error and why says what is missing.
 */
static int cuda_probe(int gpu_index, char *why, size_t size)
{
    void *lib = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    CuInit cu_init;
    CuDeviceGetCount cu_count;
    CuGetErrorName cu_error;
    const char *name = NULL;
    int ret, count = 0;

    if (!lib) {
        const char *e = dlerror();
        snprintf(why, size, "no CUDA driver (%s)", e ? e : "libcuda.so.1 not found");
        return AVERROR(ENOSYS);
    }
    cu_init  = (CuInit)dlsym(lib, "cuInit");
    cu_count = (CuDeviceGetCount)dlsym(lib, "cuDeviceGetCount");
    cu_error = (CuGetErrorName)dlsym(lib, "cuGetErrorName");
    if (!cu_init || !cu_count) {
        snprintf(why, size, "no usable CUDA driver (libcuda.so.1 lacks cuInit)");
        dlclose(lib);
        return AVERROR(ENOSYS);
    }
    /* the library stays loaded once initialised: FFmpeg's loader opens it again */
    ret = cu_init(0);
    if (!ret)
        ret = cu_count(&count);
    if (ret) {
        if (cu_error)
            cu_error(ret, &name);
        snprintf(why, size, "no CUDA device (the CUDA driver says %s)", name ? name : "error");
        /* not closed: a driver that ran cuInit() may have left handlers behind */
        return AVERROR(ENODEV);
    }
    if (gpu_index >= count) {
        snprintf(why, size, "gpu=%d: the CUDA driver found %d device%s", gpu_index,
                 count, count == 1 ? "" : "s");
        return AVERROR(ENODEV);
    }
    return 0;
}
#endif

#if CONFIG_OPENCL
/**
 * Find the gpu_index-th OpenCL GPU over all platforms, or with any set and
 * no GPU anywhere the gpu_index-th device of any type, as "P.D" (the device
 * string of hwcontext_opencl). Otherwise why says what was found.
 */
static int opencl_find(int gpu_index, int any, char *name, size_t name_size,
                       char *why, size_t why_size)
{
    cl_platform_id *platforms = NULL;
    cl_device_id *devices = NULL;
    cl_uint nb_platforms = 0, nb_devices;
    char found_desc[256] = "";
    int err = AVERROR(ENODEV), found = 0, nb_all = 0, nb_gpu = 0;

    name[0] = 0;
    if (clGetPlatformIDs(0, NULL, &nb_platforms) != CL_SUCCESS || !nb_platforms) {
        snprintf(why, why_size, "no OpenCL platform");
        return AVERROR(ENODEV);
    }
    platforms = av_malloc_array(nb_platforms, sizeof(*platforms));
    if (!platforms)
        return AVERROR(ENOMEM);
    if (clGetPlatformIDs(nb_platforms, platforms, NULL) != CL_SUCCESS) {
        snprintf(why, why_size, "the OpenCL platforms cannot be listed");
        goto end;
    }
    /* pass 0: GPUs only; pass 1 (no GPU anywhere): every device */
    for (int pass = 0; pass < (any ? 2 : 1) && !name[0]; pass++) {
        found = 0;
        for (cl_uint p = 0; p < nb_platforms && !name[0]; p++) {
            if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nb_devices) != CL_SUCCESS ||
                !nb_devices)
                continue;
            av_freep(&devices);
            devices = av_malloc_array(nb_devices, sizeof(*devices));
            if (!devices) {
                err = AVERROR(ENOMEM);
                goto end;
            }
            if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, nb_devices, devices, NULL) != CL_SUCCESS)
                continue;
            for (cl_uint d = 0; d < nb_devices && !name[0]; d++) {
                cl_device_type type = 0;
                char dev_name[256] = "";
                clGetDeviceInfo(devices[d], CL_DEVICE_TYPE, sizeof(type), &type, NULL);
                if (pass == 0) {
                    clGetDeviceInfo(devices[d], CL_DEVICE_NAME, sizeof(dev_name) - 1, dev_name, NULL);
                    if (nb_all++ < 3) {
                        char one[96];
                        snprintf(one, sizeof(one), "%s%s '%s'", found_desc[0] ? ", " : "",
                                 type & CL_DEVICE_TYPE_GPU ? "GPU" :
                                 type & CL_DEVICE_TYPE_CPU ? "CPU device" :
                                 type & CL_DEVICE_TYPE_ACCELERATOR ? "accelerator" : "device",
                                 dev_name);
                        av_strlcat(found_desc, one, sizeof(found_desc));
                    }
                    if (!(type & CL_DEVICE_TYPE_GPU))
                        continue;
                    nb_gpu++;
                }
                if (found++ == gpu_index)
                    snprintf(name, name_size, "%u.%u", p, d);
            }
        }
        if (found)
            break;
    }
    if (name[0])
        err = 0;
    else if (!nb_all)
        snprintf(why, why_size, "no OpenCL device");
    else if (!found)
        snprintf(why, why_size, "no OpenCL GPU (found %s)", found_desc);
    else
        snprintf(why, why_size, "gpu=%d: only %d OpenCL %s%s (found %s)", gpu_index, found,
                 nb_gpu ? "GPU" : "device", found == 1 ? "" : "s", found_desc);
end:
    av_free(platforms);
    av_free(devices);
    return err;
}
#endif

int ff_gpume_device_open(AVFilterContext *ctx, GpumeDevicePlan *plan, int i, AVBufferRef **dev)
{
    const int type  = plan->type[i];
    const int quiet = plan->requested == GPUME_DEVICE_AUTO;
    enum AVHWDeviceType hwtype = type == GPUME_DEVICE_CUDA ? AV_HWDEVICE_TYPE_CUDA :
                                 type == GPUME_DEVICE_OPENCL ? AV_HWDEVICE_TYPE_OPENCL :
                                 AV_HWDEVICE_TYPE_NONE;
    char why[384] = "", name[32] = "";
    int err = AVERROR(ENOSYS);

    *dev = NULL;
    if (type == GPUME_DEVICE_CPU)
        return 0;
    if (plan->given && ((AVHWDeviceContext *)plan->given->data)->type == hwtype) {
        *dev = av_buffer_ref(plan->given);
        return *dev ? 0 : AVERROR(ENOMEM);
    }
    if (type == GPUME_DEVICE_CUDA) {
#if CUDA_PROBE
        err = cuda_probe(plan->gpu_index, why, sizeof(why));
#else
        err = 0;
#endif
        snprintf(name, sizeof(name), "%d", plan->gpu_index);
#if CONFIG_OPENCL
    } else if (type == GPUME_DEVICE_OPENCL) {
        err = opencl_find(plan->gpu_index, plan->opencl_any, name, sizeof(name), why, sizeof(why));
#endif
    }
    if (err >= 0) {
        AVDictionary *opts = NULL;
        /* the primary context: the filters of a graph (and every instance)
         * share one context instead of time-slicing the GPU between theirs */
        if (type == GPUME_DEVICE_CUDA)
            err = av_dict_set(&opts, "primary_ctx", "1", 0);
        if (err >= 0)
            err = av_hwdevice_ctx_create(dev, hwtype, name, opts, 0);
        av_dict_free(&opts);
        if (err < 0)
            snprintf(why, sizeof(why), "%s device %s cannot be created (%s)",
                     ff_gpume_device_name(type), name, av_err2str(err));
    }
    if (err >= 0)
        return 0;
    if (err == AVERROR(ENOMEM))
        return err;
    if (!why[0])
        snprintf(why, sizeof(why), "no %s support", ff_gpume_device_name(type));
    if (quiet) {
        av_log(ctx, AV_LOG_VERBOSE, "%s backend passed over: %s\n", ff_gpume_device_name(type), why);
        add_why(plan, why);
    } else {
        av_log(ctx, AV_LOG_ERROR, "device=%s: %s\n", ff_gpume_device_name(type), why);
    }
    return err;
}

void ff_gpume_device_skip(AVFilterContext *ctx, GpumeDevicePlan *plan, int i, int err)
{
    char why[128];
    snprintf(why, sizeof(why), "%s backend did not start (%s)",
             ff_gpume_device_name(plan->type[i]), av_err2str(err));
    av_log(ctx, AV_LOG_VERBOSE, "%s\n", why);
    add_why(plan, why);
}

void ff_gpume_device_report(AVFilterContext *ctx, const GpumeDevicePlan *plan, int i,
                            const AVBufferRef *dev)
{
    const char *on = dev && plan->given && dev->data == plan->given->data ? plan->given_from : NULL;
    av_log(ctx, AV_LOG_INFO, "using the %s backend%s%s%s%s%s\n", ff_gpume_device_name(plan->type[i]),
           on ? " on " : "", on ? on : "",
           plan->why[0] ? " (device=auto: " : "", plan->why, plan->why[0] ? ")" : "");
}

/* shares of a pass's jobs, at most; a runner beyond them starts in share
 * runner % MAX_SHARES */
#define MAX_SHARES 64

/* how long the first runner waits awake for the others' last jobs: about
 * what waking it from the slice threads' condition variable takes */
#define RUNNER_WAIT_US 50

typedef struct ExecuteTrampoline {
    int (*job)(void *arg, int jobnr, int nb_jobs);
    void *arg;
    int nb_jobs;
    int nb_shares;              ///< share s: jobs [nb_jobs s / nb_shares, nb_jobs (s + 1) / nb_shares)
    atomic_int next[MAX_SHARES];    ///< each share's next job to take
    atomic_int err;             ///< a job's error
    atomic_int started;         ///< runners that have started the pass
    atomic_int running;         ///< runners not done with the pass
} ExecuteTrampoline;

int ff_gpume_device_start(AVFilterContext *ctx, GpumeDevicePlan *plan, AVBufferRef **dev,
                          GpumeBackendLog *log, int (*start)(AVFilterContext *ctx, int type))
{
    int err = AVERROR(ENODEV);

    for (int i = 0; i < plan->nb; i++) {
        const char *name = ff_gpume_device_name(plan->type[i]);
        av_buffer_unref(dev);
        err = ff_gpume_device_open(ctx, plan, i, dev);
        if (err >= 0) {
            log->type = plan->type[i];
            /* device=auto: an error of the backend's start is a verbose line */
            log->level_offset = plan->requested == GPUME_DEVICE_AUTO ? AV_LOG_VERBOSE - AV_LOG_ERROR : 0;
            err = start(ctx, plan->type[i]);
            log->level_offset = 0;
            if (err >= 0) {
                ff_gpume_device_report(ctx, plan, i, *dev);
                return 0;
            }
            if (plan->requested == GPUME_DEVICE_AUTO && err != AVERROR(ENOMEM)) {
                ff_gpume_device_skip(ctx, plan, i, err);
                continue;
            }
            if (plan->type[i] == GPUME_DEVICE_CPU || err == AVERROR(ENOMEM))
                av_log(ctx, AV_LOG_ERROR, "device=%s: initialisation failed: %s\n",
                       name, av_err2str(err));
            else
                av_log(ctx, AV_LOG_ERROR, "device=%s: the %s device cannot run %s "
                       "(see the messages above): %s\n", ff_gpume_device_name(plan->asked),
                       name, ctx->filter->name, av_err2str(err));
        } else if (err == AVERROR(ENOMEM)) {
            av_log(ctx, AV_LOG_ERROR, "device=%s: initialisation failed: %s\n",
                   name, av_err2str(err));
        }
        if (plan->requested != GPUME_DEVICE_AUTO || err == AVERROR(ENOMEM))
            break;
    }
    av_buffer_unref(dev);
    /* out of memory said so above: the devices are not to blame */
    if (plan->requested == GPUME_DEVICE_AUTO && err != AVERROR(ENOMEM))
        av_log(ctx, AV_LOG_ERROR, "no device can run %s with these options: %s\n",
               ctx->filter->name, plan->why);
    return err;
}

/**
 * A runner: the jobs not yet taken of its own share, one after the other,
 * then those of the shares after it. The passes' jobs follow the
 * picture's rows, and a thread mostly keeps its runner from pass to pass
 * (the graph's thread, which wakes the others, mostly comes first and
 * takes runner 0), so that a thread mostly reads rows that it wrote in the
 * pass before, from its own cache, rather than from the other core's.
 */
static int run_jobs(AVFilterContext *ctx, void *arg, int runner, int nb_runners)
{
    ExecuteTrampoline *t = arg;

    atomic_fetch_add_explicit(&t->started, 1, memory_order_relaxed);
    for (int i = 0; i < t->nb_shares; i++) {
        const int s = (runner + i) % t->nb_shares;
        const int end = (int)((int64_t)t->nb_jobs * (s + 1) / t->nb_shares);
        int jobnr;

        while ((jobnr = atomic_fetch_add_explicit(&t->next[s], 1, memory_order_relaxed)) < end) {
            const int err = t->job(t->arg, jobnr, t->nb_jobs);
            if (err < 0)
                atomic_store_explicit(&t->err, err, memory_order_relaxed);
        }
    }
    /* Runner 0 (mostly the graph's thread, which woke the others) waits
     * for their last jobs here, awake: asleep in avpriv_slicethread_execute()
     * it takes tens of microseconds to wake, a sizeable part of a pass on
     * small pictures. Not for a runner that has not started (still waking,
     * or an executor that runs the jobs one after another), and only
     * briefly, in case one is held up; where a worker took runner 0, it
     * only goes back to sleep that much later. */
    if (atomic_fetch_sub_explicit(&t->running, 1, memory_order_acq_rel) > 1 && !runner &&
        atomic_load_explicit(&t->started, memory_order_relaxed) == nb_runners) {
        const int64_t give_up = av_gettime_relative() + RUNNER_WAIT_US;
        while (atomic_load_explicit(&t->running, memory_order_acquire) > 0 &&
               av_gettime_relative() < give_up)
            ;
    }
    return 0;
}

av_cold void ff_gpume_slices_init(GpumeSlices *sl, AVFilterContext *ctx)
{
    /* a graph runs one slice thread more than there are cores by default
     * (avpriv_slicethread_create()): so that no pass waits at its end for
     * a job on a thread the system has set aside, a runner per core at
     * most takes the jobs, as they come free */
    sl->ctx        = ctx;
    sl->nb_runners = FFMAX(FFMIN(ff_filter_get_nb_threads(ctx), av_cpu_count()), 1);
}

int ff_gpume_execute_slices(void *slices, int (*job)(void *arg, int jobnr, int nb_jobs),
                            void *arg, int nb_jobs)
{
    const GpumeSlices *sl = slices;
    const int nb_runners = FFMAX(FFMIN(nb_jobs, sl->nb_runners), 1);
    ExecuteTrampoline t = { job, arg, nb_jobs, FFMIN(nb_runners, MAX_SHARES) };

    for (int s = 0; s < t.nb_shares; s++)
        atomic_init(&t.next[s], (int)((int64_t)nb_jobs * s / t.nb_shares));
    atomic_init(&t.err, 0);
    atomic_init(&t.started, 0);
    atomic_init(&t.running, nb_runners);
    ff_filter_execute(sl->ctx, run_jobs, &t, NULL, nb_runners);
    return atomic_load_explicit(&t.err, memory_order_relaxed);
}

int ff_gpume_remove_properties(AVFrame *frame)
{
    const AVDictionaryEntry *e;

    av_frame_remove_side_data(frame, AV_FRAME_DATA_MOTION_VECTORS);
    while ((e = av_dict_get(frame->metadata, "lavfi.gpume.", NULL, AV_DICT_IGNORE_SUFFIX))) {
        /* a removal copies the key first, and fails without it */
        const int err = av_dict_set(&frame->metadata, e->key, NULL, 0);
        if (err < 0)
            return err;
    }
    return 0;
}
