/*
 * clshim: an OpenCL platform that makes a GPU backend fail to start, for the
 * device=auto fallback of tests/suites/robustness.sh on machines without a
 * GPU. Preloaded (LD_PRELOAD=clshim.so) into a program linked with the
 * OpenCL ICD loader, it
 *  - CLSHIM_GPU=1: reports every OpenCL device as a GPU, so that
 *    device=auto takes a CPU driver (PoCL) for one;
 *  - CLSHIM_BUILD_FAIL=1: fails every clBuildProgram() as a driver without
 *    the kernels' features would (CL_BUILD_PROGRAM_FAILURE);
 *  - CLSHIM_LOCAL_MEM=N: reports N bytes of local memory per work-group
 *    (CL_DEVICE_LOCAL_MEM_SIZE), as a small GPU would (32768: OpenCL 1.2's
 *    least);
 *  - CLSHIM_FAIL=FUNCTION:N: fails the Nth call (from 1) of FUNCTION,
 *    clWaitForEvents, clEnqueueWriteBuffer or clEnqueueWriteBufferRect,
 *    as a device that fails mid-stream would (CL_OUT_OF_RESOURCES), for
 *    the tests of what the filters do after such a failure
 *    (tests/graphcheck.c).
 * Everything else is the real platform's.
 *
 * This file is part of gpume. SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <dlfcn.h>
#include <stdatomic.h>
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
    if (ret == CL_SUCCESS && param == CL_DEVICE_LOCAL_MEM_SIZE && value &&
        size >= sizeof(cl_ulong) && env_set("CLSHIM_LOCAL_MEM"))
        *(cl_ulong *)value = strtoull(getenv("CLSHIM_LOCAL_MEM"), NULL, 10);
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

/** Whether this call of function, counted in *calls, is the one CLSHIM_FAIL names. */
static int fail_call(const char *function, atomic_long *calls)
{
    const char *v = getenv("CLSHIM_FAIL");
    const size_t len = strlen(function);
    const long n = atomic_fetch_add(calls, 1) + 1;

    return v && !strncmp(v, function, len) && v[len] == ':' && atol(v + len + 1) == n;
}

CL_API_ENTRY cl_int CL_API_CALL
clWaitForEvents(cl_uint nb_events, const cl_event *events)
{
    static cl_int (CL_API_CALL *real)(cl_uint, const cl_event *);
    static atomic_long calls;

    if (fail_call("clWaitForEvents", &calls))
        return CL_OUT_OF_RESOURCES;
    if (!real)
        real = (cl_int (CL_API_CALL *)(cl_uint, const cl_event *))dlsym(RTLD_NEXT, "clWaitForEvents");
    return real ? real(nb_events, events) : CL_INVALID_EVENT;
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueWriteBuffer(cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,
                     size_t size, const void *ptr, cl_uint nb_events, const cl_event *events,
                     cl_event *event)
{
    typedef cl_int (CL_API_CALL *Write)(cl_command_queue, cl_mem, cl_bool, size_t, size_t,
                                        const void *, cl_uint, const cl_event *, cl_event *);
    static Write real;
    static atomic_long calls;

    if (fail_call("clEnqueueWriteBuffer", &calls))
        return CL_OUT_OF_RESOURCES;
    if (!real)
        real = (Write)dlsym(RTLD_NEXT, "clEnqueueWriteBuffer");
    return real ? real(queue, buffer, blocking, offset, size, ptr, nb_events, events, event) :
                  CL_INVALID_COMMAND_QUEUE;
}

CL_API_ENTRY cl_int CL_API_CALL
clEnqueueWriteBufferRect(cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                         const size_t *buffer_origin, const size_t *host_origin, const size_t *region,
                         size_t buffer_row_pitch, size_t buffer_slice_pitch,
                         size_t host_row_pitch, size_t host_slice_pitch, const void *ptr,
                         cl_uint nb_events, const cl_event *events, cl_event *event)
{
    typedef cl_int (CL_API_CALL *WriteRect)(cl_command_queue, cl_mem, cl_bool, const size_t *,
                                            const size_t *, const size_t *, size_t, size_t,
                                            size_t, size_t, const void *, cl_uint,
                                            const cl_event *, cl_event *);
    static WriteRect real;
    static atomic_long calls;

    if (fail_call("clEnqueueWriteBufferRect", &calls))
        return CL_OUT_OF_RESOURCES;
    if (!real)
        real = (WriteRect)dlsym(RTLD_NEXT, "clEnqueueWriteBufferRect");
    return real ? real(queue, buffer, blocking, buffer_origin, host_origin, region,
                       buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch,
                       ptr, nb_events, events, event) : CL_INVALID_COMMAND_QUEUE;
}
