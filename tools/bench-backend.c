/*
 * gpume backend benchmark: per-frame time of one backend on real frames.
 * GPU backends: device time of the search (CUDA events on the compute
 * stream around estimate()), and host time per frame with the filter's
 * pipeline (load frame n and issue its search, then collect frame n-1).
 * OpenCL: device time too, between profiling markers on a queue of its own
 * around estimate(). CPU: host time of estimate() and sync(). Prints
 * medians and quartiles over many frames after a warm-up.
 * First, the time to first vectors: from opening the device to the first
 * estimate's blocks on the host (device open, backend init with its kernels,
 * the first two frames' upload and search). CUDA_CACHE_DISABLE=1 makes the
 * driver JIT-compile the PTX every time, as on a fresh machine, and
 * CUDA_FORCE_PTX_JIT=1 makes it ignore the cubins of a fatbin.
 *
 * usage: bench-backend --backend=cuda|opencl|cpu --frames=FILE.gray:WxH:N
 *                      [--algo=full|hme|lfs] [--range=N] [--block=N|auto]
 *                      [--ctu=N] [--subpel=N] [--iters=N] [--threads=N]
 *                      [--startup]   (stop after the time to first vectors)
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

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libavutil/dict.h"
#include "libavutil/error.h"
#include "libavutil/frame.h"
#include "libavutil/hwcontext.h"
#if GPUME_TEST_CUDA
#include <zlib.h>
#include "compat/cuda/dynlink_loader.h"
#include "libavutil/hwcontext_cuda.h"
#endif
#if GPUME_TEST_OPENCL
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "libavutil/hwcontext_opencl.h"
#endif
#include "libavutil/log.h"
#include "libavutil/mem.h"
#include "libavfilter/gpume_backend.h"

/* CUDA driver calls FFmpeg's loader does not provide */
typedef int (*EventCreate)(void **ev, unsigned flags);
typedef int (*EventRecord)(void *ev, void *stream);
typedef int (*EventSync)(void *ev);
typedef int (*EventElapsed)(float *ms, void *a, void *b);
typedef int (*CtxSetCurrent)(void *ctx);
typedef int (*StreamCreate)(void **stream, unsigned flags);

typedef struct ThreadPool {
    int nb;
} ThreadPool;

typedef struct JobArgs {
    int (*job)(void *, int, int);
    void *arg;
    int jobnr, nb_jobs;
} JobArgs;

static void *job_thread(void *p)
{
    JobArgs *a = p;
    a->job(a->arg, a->jobnr, a->nb_jobs);
    return NULL;
}

/* one thread per job: like slice threading, enough for a benchmark */
static int thread_execute(void *opaque, int (*job)(void *, int, int), void *arg, int nb_jobs)
{
    pthread_t th[64];
    JobArgs a[64];
    nb_jobs = FFMIN(nb_jobs, 64);
    for (int i = 0; i < nb_jobs; i++) {
        a[i] = (JobArgs) { job, arg, i, nb_jobs };
        pthread_create(&th[i], NULL, job_thread, &a[i]);
    }
    for (int i = 0; i < nb_jobs; i++)
        pthread_join(th[i], NULL);
    return 0;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#if GPUME_TEST_CUDA
extern const unsigned char ff_gpume_ptx_data[];
extern const unsigned int ff_gpume_ptx_len;

/* what the build embedded: a fatbin (cubins and PTX) or PTX, gzipped or not */
static const char *cuda_kernel_form(void)
{
    static const uint8_t fatbin_magic[4] = { 0x50, 0xed, 0x55, 0xba };
    uint8_t head[4] = { 0 };
    if (ff_gpume_ptx_len >= 2 && ff_gpume_ptx_data[0] == 0x1f && ff_gpume_ptx_data[1] == 0x8b) {
        z_stream z = { .next_in = (uint8_t *)ff_gpume_ptx_data, .avail_in = ff_gpume_ptx_len,
                       .next_out = head, .avail_out = sizeof(head) };
        if (inflateInit2(&z, 32 + 15) == Z_OK) {
            inflate(&z, Z_SYNC_FLUSH);
            inflateEnd(&z);
        }
    } else {
        memcpy(head, ff_gpume_ptx_data, FFMIN(ff_gpume_ptx_len, sizeof(head)));
    }
    return memcmp(head, fatbin_magic, 4) ? "PTX" : "fatbin (cubins and PTX)";
}
#endif

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *backend = "cuda", *algo_name = "hme";
    char path[4096] = "";
    int w = 0, h = 0, n = 0, iters = 200, threads = 1, startup_only = 0, err;
    GpumeParams p = { .range = 16, .ctu = 32, .block = 16, .subpel = 2, .lambda = 2,
                      .pu_penalty = 256, .lfs_threshold = 32 };
    const GpumeBackend *be;
    GpumeHost host = { .execute = thread_execute };
    AVBufferRef *dev = NULL;
    void *priv;
    AVFrame **frames;
    GpumeResult res[2];
    void *stream = NULL;
    int16_t *pred;
    double *t_est, *t_all;
    uint8_t *raw;
    FILE *fp;
    void *lib = NULL, *ev[2];
    const char *kernels = "";
    double t_open, t_init, t_first;
    EventCreate ev_create = NULL;
    EventRecord ev_record = NULL;
    EventSync ev_sync = NULL;
    EventElapsed ev_elapsed = NULL;
    int cl_timed = 0;   /* OpenCL: device time from profiling markers */
#if GPUME_TEST_OPENCL
    cl_command_queue cl_queue = NULL;   /* with profiling: device time from markers */
    cl_event cl_ev[2] = { NULL, NULL };
#endif

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strncmp(a, "--backend=", 10))     backend = a + 10;
        else if (!strncmp(a, "--algo=", 7))    algo_name = a + 7;
        else if (!strncmp(a, "--range=", 8))   p.range = atoi(a + 8);
        else if (!strncmp(a, "--ctu=", 6))     p.ctu = atoi(a + 6);
        else if (!strncmp(a, "--subpel=", 9))  p.subpel = atoi(a + 9);
        else if (!strncmp(a, "--iters=", 8))   iters = atoi(a + 8);
        else if (!strncmp(a, "--threads=", 10)) threads = atoi(a + 10);
        else if (!strncmp(a, "--block=", 8))   p.block = strcmp(a + 8, "auto") ? atoi(a + 8) : 0;
        else if (!strcmp(a, "--startup"))      startup_only = 1;
        else if (!strncmp(a, "--frames=", 9)) {
            if (sscanf(a + 9, "%4095[^:]:%dx%d:%d", path, &w, &h, &n) != 4 || n < 2) {
                fprintf(stderr, "--frames=FILE:WxH:N (N >= 2 gray8 frames)\n");
                return 1;
            }
        } else {
            fprintf(stderr, "unknown option %s\n", a);
            return 1;
        }
    }
    p.algo = !strcmp(algo_name, "full") ? GPUME_ALGO_FULL :
             !strcmp(algo_name, "lfs")  ? GPUME_ALGO_LFS : GPUME_ALGO_HME;
    p.width  = w;
    p.height = h;
    if (!n || ff_gpume_params_derive(&p) < 0 || iters < 1) {
        fprintf(stderr, "bad parameters\n");
        return 1;
    }
    av_log_set_level(AV_LOG_ERROR);

    raw    = av_malloc((size_t)w * h * n);
    frames = av_calloc(n, sizeof(*frames));
    fp     = fopen(path, "rb");
    if (!raw || !frames || !fp || fread(raw, 1, (size_t)w * h * n, fp) != (size_t)w * h * n) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    fclose(fp);
    for (int i = 0; i < n; i++) {
        frames[i] = av_frame_alloc();
        frames[i]->format = AV_PIX_FMT_GRAY8;
        frames[i]->width  = w;
        frames[i]->height = h;
        if (av_frame_get_buffer(frames[i], 0) < 0)
            return 1;
        for (int y = 0; y < h; y++)
            memcpy(frames[i]->data[0] + y * frames[i]->linesize[0], raw + ((size_t)i * h + y) * w, w);
    }
    for (int i = 0; i < 2; i++) {
        res[i].blocks = av_calloc((size_t)p.nb_ctus * p.max_out, sizeof(*res[i].blocks));
        res[i].counts = av_calloc(p.nb_ctus, sizeof(*res[i].counts));
        if (!res[i].blocks || !res[i].counts)
            return 1;
    }

    /* start-up: everything from here to the first blocks on the host */
    t_open = now_ms();

    if (!strcmp(backend, "cpu")) {
        be = &ff_gpume_backend_cpu;
    } else if (!strcmp(backend, "opencl")) {
#if GPUME_TEST_OPENCL
        AVDictionary *opts = NULL;
        be = &ff_gpume_backend_opencl;
        /* a GPU first, else any OpenCL device */
        av_dict_set(&opts, "device_type", "gpu", 0);
        if (av_hwdevice_ctx_create(&dev, AV_HWDEVICE_TYPE_OPENCL, NULL, opts, 0) < 0 &&
            av_hwdevice_ctx_create(&dev, AV_HWDEVICE_TYPE_OPENCL, NULL, NULL, 0) < 0) {
            av_dict_free(&opts);
            printf("skipped: no OpenCL device\n");
            return 0;
        }
        av_dict_free(&opts);
        {
            /* a queue of our own with profiling, which the backend takes over
             * from the device; the device context releases it */
            AVOpenCLDeviceContext *hw = ((AVHWDeviceContext *)dev->data)->hwctx;
            cl_int cle;
            cl_queue = clCreateCommandQueue(hw->context, hw->device_id, CL_QUEUE_PROFILING_ENABLE, &cle);
            if (cle == CL_SUCCESS) {
                if (hw->command_queue)
                    clReleaseCommandQueue(hw->command_queue);
                hw->command_queue = cl_queue;
                cl_timed = 1;
            } else {
                cl_queue = NULL;
            }
        }
#else
        printf("skipped: no OpenCL backend in this build\n");
        return 0;
#endif
    } else {
#if GPUME_TEST_CUDA
        be = &ff_gpume_backend_cuda;
        if (av_hwdevice_ctx_create(&dev, AV_HWDEVICE_TYPE_CUDA, NULL, NULL, 0) < 0 ||
            !(lib = dlopen("libcuda.so.1", RTLD_NOW))) {
            printf("skipped: no CUDA device\n");
            return 0;
        }
        ev_create  = (EventCreate)dlsym(lib, "cuEventCreate");
        ev_record  = (EventRecord)dlsym(lib, "cuEventRecord");
        ev_sync    = (EventSync)dlsym(lib, "cuEventSynchronize");
        ev_elapsed = (EventElapsed)dlsym(lib, "cuEventElapsedTime");
        {
            /* a compute stream of our own, so that events can time it */
            AVCUDADeviceContext *hw = ((AVHWDeviceContext *)dev->data)->hwctx;
            CtxSetCurrent set = (CtxSetCurrent)dlsym(lib, "cuCtxSetCurrent");
            StreamCreate create = (StreamCreate)dlsym(lib, "cuStreamCreate");
            set(hw->cuda_ctx);
            create(&stream, 1 /* CU_STREAM_NON_BLOCKING */);
            hw->stream = stream;
            for (int i = 0; i < 2; i++)
                ev_create(&ev[i], 0);
        }
#else
        printf("skipped: no CUDA backend in this build\n");
        return 0;
#endif
    }
    host.hw_device  = dev;
    host.nb_threads = threads;
    t_open = now_ms() - t_open;

    pred       = av_calloc(2 * p.nb_ctus, sizeof(*pred));
    t_est      = av_calloc(iters, sizeof(*t_est));
    t_all      = av_calloc(iters, sizeof(*t_all));
    priv       = av_mallocz(be->priv_size);
    if (!pred || !t_est || !t_all || !priv)
        return 1;
    t_init = now_ms();
    if ((err = be->init(priv, &host, &p)) < 0) {
        printf("skipped: %s backend init failed: %s\n", be->name, av_err2str(err));
        return 0;
    }
    t_init = now_ms() - t_init;
    /* the first vectors: frame 1 against frame 0, as the filter's second frame */
    t_first = now_ms();
    if ((err = be->load(priv, 0, frames[0])) < 0 || (err = be->load(priv, 1, frames[1])) < 0 ||
        (err = be->estimate(priv, 1, 0, pred, -1, 0, &res[0])) < 0 || (err = be->sync(priv)) < 0)
        goto fail;
    t_first = now_ms() - t_first;
#if GPUME_TEST_CUDA
    if (be == &ff_gpume_backend_cuda)
        kernels = cuda_kernel_form();
#endif
    printf("%-5s time to first vectors: %.1f ms (device open %.1f ms, backend init %.1f ms, "
           "first frame pair %.1f ms)%s%s%s%s\n", be->name, t_open + t_init + t_first,
           t_open, t_init, t_first, *kernels ? "; kernels: " : "", kernels,
           getenv("CUDA_CACHE_DISABLE") ? "; CUDA_CACHE_DISABLE set" : "",
           getenv("CUDA_FORCE_PTX_JIT") ? "; CUDA_FORCE_PTX_JIT set" : "");
    fflush(stdout);
    if (startup_only)
        goto end;
    /* warm-up, then timed frames: latency of one search on the device, then
     * the filter's pipeline (issue frame n, collect frame n-1) on the host */
    for (int it = -10; it < iters; it++) {
        const int cur = (it + 20) % GPUME_NB_SLOTS, ref = (it + 19) % GPUME_NB_SLOTS;
        double t0;
        be->load(priv, cur, frames[(it + 20) % n]);
        if ((err = be->sync(priv)) < 0)
            goto fail;
        t0 = now_ms();
        if (ev_create) ev_record(ev[0], stream);
#if GPUME_TEST_OPENCL
        if (cl_queue) clEnqueueMarkerWithWaitList(cl_queue, 0, NULL, &cl_ev[0]);
#endif
        if ((err = be->estimate(priv, cur, ref, pred, -1, 0, &res[0])) < 0)
            goto fail;
        if (ev_create) ev_record(ev[1], stream);
#if GPUME_TEST_OPENCL
        if (cl_queue) clEnqueueMarkerWithWaitList(cl_queue, 0, NULL, &cl_ev[1]);
#endif
        if ((err = be->sync(priv)) < 0)
            goto fail;
        if (it >= 0) {
            float ms = 0;
            if (ev_create) {
                ev_sync(ev[1]);
                ev_elapsed(&ms, ev[0], ev[1]);
            }
            t_est[it] = ev_create ? ms : now_ms() - t0;
#if GPUME_TEST_OPENCL
            if (cl_queue) {
                /* the queue is in order: the markers end when what was queued before them has */
                cl_ulong end[2] = { 0, 0 };
                clWaitForEvents(1, &cl_ev[1]);
                for (int i = 0; i < 2; i++)
                    clGetEventProfilingInfo(cl_ev[i], CL_PROFILING_COMMAND_END, sizeof(end[i]), &end[i], NULL);
                t_est[it] = (end[1] - end[0]) / 1e6;
            }
#endif
        }
#if GPUME_TEST_OPENCL
        for (int i = 0; i < 2 && cl_queue; i++)
            clReleaseEvent(cl_ev[i]);
#endif
    }
    for (int it = -10; it < iters; it++) {
        const int cur = (it + 20) % GPUME_NB_SLOTS, ref = (it + 19) % GPUME_NB_SLOTS;
        const double t0 = now_ms();
        GpumeResult view;
        if ((err = be->load(priv, cur, frames[(it + 20) % n])) < 0 ||
            (err = be->estimate(priv, cur, ref, pred, -1, it & 1, &res[it & 1])) < 0 ||
            (it > -10 && (err = (be->wait ? be->wait(priv, (it - 1) & 1, &view) : be->sync(priv))) < 0))
            goto fail;
        if (it >= 0)
            t_all[it] = now_ms() - t0;
    }
    be->sync(priv);
    qsort(t_est, iters, sizeof(*t_est), cmp_double);
    qsort(t_all, iters, sizeof(*t_all), cmp_double);
    {
        char block[8];
        snprintf(block, sizeof(block), p.block ? "%d" : "auto", p.block);
        printf("%-5s %-4s %4dx%-4d range=%-2d ctu=%d block=%-4s subpel=%d: "
               "%s %.3f ms (q1 %.3f, q3 %.3f); pipelined frame %.3f ms (q1 %.3f, q3 %.3f), "
               "%.0f fps\n", be->name, algo_name, w, h, p.range, p.ctu, block, p.subpel,
               ev_create || cl_timed ? "device search" : "search", t_est[iters / 2], t_est[iters / 4],
               t_est[3 * iters / 4], t_all[iters / 2], t_all[iters / 4], t_all[3 * iters / 4],
               1000.0 / t_all[iters / 2]);
    }

end:
    be->uninit(priv);
    av_free(priv);
    for (int i = 0; i < n; i++)
        av_frame_free(&frames[i]);
    av_free(frames);
    av_free(raw);
    for (int i = 0; i < 2; i++) {
        av_free(res[i].blocks);
        av_free(res[i].counts);
    }
    av_free(pred);
    av_free(t_est);
    av_free(t_all);
    av_buffer_unref(&dev);
    return 0;
fail:
    fprintf(stderr, "%s backend failed: %s\n", be->name, av_err2str(err));
    return 1;
}
