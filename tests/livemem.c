/*
 * livemem: counts the bytes a process holds on the C heap, for the soak of
 * tests/gpu-check.sh. A process's resident size also moves with the
 * allocator's arenas and the driver's mappings, in steps that say nothing
 * about a leak; the heap in use does not.
 *
 * LD_PRELOAD=livemem.so LIVEMEM_FILE=F CMD...: once a second the process
 * appends a line to F with the bytes allocated and not yet freed (usable
 * sizes, so glibc's), and at its exit, after the program and its libraries
 * have freed what they free, a line "exit N" with the bytes never freed.
 * A thread of its own writes the samples: a signal handler could be
 * replaced by a library the process loads (LLVM's, in PoCL, takes SIGUSR1).
 *
 * This file is part of gpume. SPDX-License-Identifier: LGPL-2.1-or-later
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void  (*real_free)(void *);
static int   (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);

static long long live;
static int out_fd = -1;

/* dlsym() may call calloc() before the real one is known */
static _Alignas(16) char boot[4096];
static size_t boot_used;

static int in_boot(const void *p)
{
    return (const char *)p >= boot && (const char *)p < boot + sizeof(boot);
}

static void count(void *p, int sign)
{
    if (p && !in_boot(p))
        __atomic_add_fetch(&live, sign * (long long)malloc_usable_size(p), __ATOMIC_RELAXED);
}

/* PREFIX and the count on one line, without allocating */
static int write_count(const char *prefix)
{
    char buf[48], *e = buf + sizeof(buf), *s = e;
    long long v = __atomic_load_n(&live, __ATOMIC_RELAXED);
    int neg = v < 0;
    size_t n = strlen(prefix);

    *--s = '\n';
    do {
        *--s = '0' + (neg ? -(v % 10) : v % 10);
        v /= 10;
    } while (v);
    if (neg)
        *--s = '-';
    s -= n;
    memcpy(s, prefix, n);
    return write(out_fd, s, e - s) < 0 ? -1 : 0;
}

static void *sampler(void *arg)
{
    const struct timespec period = { 1, 0 };

    (void)arg;
    do
        nanosleep(&period, NULL);
    while (!write_count(""));
    return NULL;
}

static void resolve(void)
{
    if (real_malloc)
        return;
    real_calloc         = dlsym(RTLD_NEXT, "calloc");
    real_malloc         = dlsym(RTLD_NEXT, "malloc");
    real_realloc        = dlsym(RTLD_NEXT, "realloc");
    real_free           = dlsym(RTLD_NEXT, "free");
    real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc  = dlsym(RTLD_NEXT, "aligned_alloc");
    real_memalign       = dlsym(RTLD_NEXT, "memalign");
}

__attribute__((constructor)) static void livemem_init(void)
{
    const char *f = getenv("LIVEMEM_FILE");
    pthread_attr_t attr;
    pthread_t thread;

    resolve();
    if (!f || (out_fd = open(f, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0)
        return;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_create(&thread, &attr, sampler, NULL);
    pthread_attr_destroy(&attr);
}

__attribute__((destructor)) static void livemem_exit(void)
{
    if (out_fd >= 0)
        write_count("exit ");
}

void *malloc(size_t n)
{
    void *p;
    resolve();
    p = real_malloc(n);
    count(p, 1);
    return p;
}

void *calloc(size_t n, size_t size)
{
    void *p;
    if (!real_calloc) {
        /* only while dlsym() resolves the real functions */
        size_t bytes = (n * size + 15) & ~(size_t)15;
        if ((size && n > sizeof(boot) / size) || boot_used + bytes > sizeof(boot))
            return NULL;
        p = boot + boot_used;
        boot_used += bytes;
        return p; /* static storage: already zero */
    }
    p = real_calloc(n, size);
    count(p, 1);
    return p;
}

void *realloc(void *old, size_t n)
{
    void *p;
    resolve();
    if (in_boot(old)) {
        p = real_malloc(n);
        if (p) {
            size_t left = boot + sizeof(boot) - (char *)old;
            memcpy(p, old, n < left ? n : left);
            count(p, 1);
        }
        return p;
    }
    count(old, -1);
    p = real_realloc(old, n);
    /* a failed realloc leaves the old block in place */
    count(p ? p : (n ? old : NULL), 1);
    return p;
}

void free(void *p)
{
    if (!p || in_boot(p))
        return;
    resolve();
    count(p, -1);
    real_free(p);
}

int posix_memalign(void **pp, size_t align, size_t n)
{
    int ret;
    resolve();
    ret = real_posix_memalign(pp, align, n);
    if (!ret)
        count(*pp, 1);
    return ret;
}

void *aligned_alloc(size_t align, size_t n)
{
    void *p;
    resolve();
    p = real_aligned_alloc(align, n);
    count(p, 1);
    return p;
}

void *memalign(size_t align, size_t n)
{
    void *p;
    resolve();
    p = real_memalign(align, n);
    count(p, 1);
    return p;
}
