/*
 * The device a GPU backend's test runs on, for tests/backendcheck.c and
 * tests/mcfps-backendcheck.c. The includer defines BACKEND_TEST_OPENCL to 1
 * where the OpenCL backend is built in.
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

#ifndef GPUME_TESTS_BACKEND_DEVICE_H
#define GPUME_TESTS_BACKEND_DEVICE_H

#include <stdio.h>

#include "libavutil/buffer.h"
#include "libavutil/dict.h"
#include "libavutil/hwcontext.h"
#if BACKEND_TEST_OPENCL
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "libavutil/hwcontext_opencl.h"
#endif

static AVBufferRef *device_for(const char *name)
{
    AVBufferRef *dev = NULL;
    enum AVHWDeviceType type = av_hwdevice_find_type_by_name(name);
    if (type == AV_HWDEVICE_TYPE_NONE)
        return NULL;
    if (type == AV_HWDEVICE_TYPE_OPENCL) {
        /* a GPU if there is one, else the only device, else the first */
        AVDictionary *opts = NULL;
        int err;
        av_dict_set(&opts, "device_type", "gpu", 0);
        err = av_hwdevice_ctx_create(&dev, type, NULL, opts, 0);
        av_dict_free(&opts);
        if (err < 0 && av_hwdevice_ctx_create(&dev, type, NULL, NULL, 0) < 0 &&
            av_hwdevice_ctx_create(&dev, type, "0.0", NULL, 0) < 0)
            return NULL;
        return dev;
    }
    if (av_hwdevice_ctx_create(&dev, type, NULL, NULL, 0) < 0)
        return NULL;
    return dev;
}

/** 1 when dev is an OpenCL device of type CPU (PoCL): slow, so the quick case list runs. */
static int is_cpu_device(AVBufferRef *dev)
{
#if BACKEND_TEST_OPENCL
    const AVHWDeviceContext *hwdev = (const AVHWDeviceContext *)dev->data;
    cl_device_type type = 0;
    if (hwdev->type != AV_HWDEVICE_TYPE_OPENCL)
        return 0;
    clGetDeviceInfo(((const AVOpenCLDeviceContext *)hwdev->hwctx)->device_id, CL_DEVICE_TYPE,
                    sizeof(type), &type, NULL);
    return !!(type & CL_DEVICE_TYPE_CPU);
#else
    return 0;
#endif
}

/**
 * The device of backend (have: its backend is built in), or NULL after the
 * lines of a skipped test; *quick set where the device is a CPU.
 */
static AVBufferRef *backend_device(const char *backend, int have, int *quick)
{
    AVBufferRef *dev = have ? device_for(backend) : NULL;

    if (!dev) {
        printf(have ? "skipped: no %s device\n" : "skipped: no %s backend in this build\n", backend);
        printf("0 passed, 0 failed, 1 skipped\n");
        return NULL;
    }
    if (!*quick && is_cpu_device(dev)) {
        printf("note: %s runs on a CPU device here: the quick case list\n", backend);
        *quick = 1;
    }
    return dev;
}

#endif /* GPUME_TESTS_BACKEND_DEVICE_H */
