/*
 * clshim: an OpenCL platform that makes a GPU backend fail to start, for the
 * device=auto fallback of tests/suites/robustness.sh on machines without a
 * GPU. Preloaded (LD_PRELOAD=clshim.so) into a program linked with the
 * OpenCL ICD loader, it
 *  - CLSHIM_GPU=1: reports every OpenCL device as a GPU, so that
 *    device=auto takes a CPU driver (PoCL) for one;
 *  - CLSHIM_BUILD_FAIL=1: fails every clBuildProgram() as a driver without
 *    the kernels' features would (CL_BUILD_PROGRAM_FAILURE).
 * Everything else is the real platform's.
 *
 * This file is part of gpume. SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>

static int env_set(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "0") && *v;
}

CL_API_ENTRY cl_int CL_API_CALL
clGetDeviceInfo(cl_device_id device, cl_device_info param, size_t size, void *value,
                size_t *size_ret)
{
    static cl_int (CL_API_CALL *real)(cl_device_id, cl_device_info, size_t, void *, size_t *);
    cl_int ret;

    if (!real)
        real = (cl_int (CL_API_CALL *)(cl_device_id, cl_device_info, size_t, void *, size_t *))
               dlsym(RTLD_NEXT, "clGetDeviceInfo");
    if (!real)
        return CL_INVALID_DEVICE;
    ret = real(device, param, size, value, size_ret);
    if (ret == CL_SUCCESS && param == CL_DEVICE_TYPE && value &&
        size >= sizeof(cl_device_type) && env_set("CLSHIM_GPU"))
        *(cl_device_type *)value = CL_DEVICE_TYPE_GPU;
    return ret;
}

CL_API_ENTRY cl_int CL_API_CALL
clBuildProgram(cl_program program, cl_uint nb_devices, const cl_device_id *devices,
               const char *options, void (CL_CALLBACK *notify)(cl_program, void *), void *data)
{
    static cl_int (CL_API_CALL *real)(cl_program, cl_uint, const cl_device_id *, const char *,
                                      void (CL_CALLBACK *)(cl_program, void *), void *);

    if (env_set("CLSHIM_BUILD_FAIL"))
        return CL_BUILD_PROGRAM_FAILURE;
    if (!real)
        real = (cl_int (CL_API_CALL *)(cl_program, cl_uint, const cl_device_id *, const char *,
                                       void (CL_CALLBACK *)(cl_program, void *), void *))
               dlsym(RTLD_NEXT, "clBuildProgram");
    return real ? real(program, nb_devices, devices, options, notify, data) : CL_INVALID_PROGRAM;
}
