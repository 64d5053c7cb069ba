/*
 * What the libFuzzer targets share: the reader of the fuzz input (zeros
 * once it is exhausted), the device of the filters and a digest of what
 * comes out, and, built with -DGPUME_FUZZ_MAIN, a plain program that runs
 * each file given on its command line (the regression suite of make check,
 * without libFuzzer).
 *
 * The replay program on a GPU (tests/gpu-fuzz.sh): with GPUME_FUZZ_DEVICE
 * set (cuda, opencl) the filters run there where an input chooses the
 * CPU, and with GPUME_FUZZ_DIGEST set the program prints, after each
 * input's "ok" line, "digest FILE FRAMES ERROR": a hash of every output frame
 * (timestamp, size, format, picture type and key flag, the pixels of
 * frames in memory, motion vectors, captions, lavfi.gpume.* metadata) and
 * one of the first error the graph returned, equal where the CPU's run
 * gives the same frames. GPUME_FUZZ_DIGEST=frames also lists the frames on
 * stderr, and with it GPUME_FUZZ_DUMP=PREFIX writes their pixels.
 *
 * This file is part of FFmpeg (LGPL 2.1 or later, as the filters).
 */

#ifndef GPUME_TESTS_FUZZ_INPUT_H
#define GPUME_TESTS_FUZZ_INPUT_H

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/common.h"
#include "libavutil/dict.h"
#include "libavutil/frame.h"
#include "libavutil/imgutils.h"
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"

typedef struct Reader {
    const uint8_t *p, *end;
} Reader;

static inline unsigned rd8(Reader *r)
{
    return r->p < r->end ? *r->p++ : 0;
}

static inline unsigned rd16(Reader *r)
{
    unsigned v = rd8(r) << 8;
    return v | rd8(r);
}

/* the contents of frame's buffers by mode: one value of the input (2), the
 * rest of the input over and over while there is some (3), else noise from
 * *seed */
static inline void fill_buffers(AVFrame *frame, Reader *r, unsigned mode, uint32_t *seed)
{
    for (int i = 0; i < AV_NUM_DATA_POINTERS && frame->buf[i]; i++) {
        uint8_t *p = frame->buf[i]->data;
        size_t n = frame->buf[i]->size;
        if (mode == 2) {
            memset(p, rd8(r), n);
        } else if (mode == 3 && r->p < r->end) {
            for (size_t j = 0; j < n; j++)
                p[j] = r->p[j % (r->end - r->p)];
        } else {
            for (size_t j = 0; j < n; j++) {
                *seed = *seed * 1664525u + 1013904223u;
                p[j] = *seed >> 24;
            }
        }
    }
}

/* whether frame can take prev's luma, moved: of its size and format, in bytes */
static inline int can_shift_luma(const AVFrame *frame, const AVFrame *prev)
{
    return prev && prev->format == frame->format &&
           prev->width == frame->width && prev->height == frame->height &&
           !(av_pix_fmt_desc_get(frame->format)->flags & AV_PIX_FMT_FLAG_BITSTREAM);
}

/* prev's luma moved by (dx, dy) into frame, where a sample is one byte
 * (can_shift_luma() first) */
static inline void shift_luma(AVFrame *frame, const AVFrame *prev, int dx, int dy)
{
    if (av_get_padded_bits_per_pixel(av_pix_fmt_desc_get(frame->format)) > 16)
        return;
    for (int y = 0; y < frame->height; y++) {
        const int sy = y - dy;
        if (sy < 0 || sy >= frame->height)
            continue;
        for (int x = 0; x < frame->width; x++) {
            const int sx = x - dx;
            if (sx >= 0 && sx < frame->width)
                frame->data[0][y * frame->linesize[0] + x] = prev->data[0][sy * prev->linesize[0] + sx];
        }
    }
}

/* the device where an input chooses the CPU: GPUME_FUZZ_DEVICE, else cpu */
static inline const char *fuzz_cpu_device(void)
{
    const char *dev = getenv("GPUME_FUZZ_DEVICE");
    return dev && *dev ? dev : "cpu";
}

#define FUZZ_DIGEST_START 14695981039346656037ULL
/* FNV-1a of the input's output frames, and apart its first error: a GPU
 * backend holds frames in flight, so an error may come before frames that
 * on the CPU came out before it, or after more frames were sent */
static uint64_t fuzz_digest = FUZZ_DIGEST_START, fuzz_digest_errors = FUZZ_DIGEST_START;

static inline void digest_to(uint64_t *h, const void *data, size_t size)
{
    const uint8_t *p = data;
    for (size_t i = 0; i < size; i++)
        *h = (*h ^ p[i]) * 1099511628211ULL;
}

static inline void digest_bytes(const void *data, size_t size)
{
    digest_to(&fuzz_digest, data, size);
}

static inline void digest_int(int64_t v)
{
    digest_bytes(&v, sizeof(v));
}

/* what a frame out of the graph is, in the digest */
static inline void digest_frame(const AVFrame *f)
{
    const AVPixFmtDescriptor *desc = av_pix_fmt_desc_get(f->format);
    const AVDictionaryEntry *e = NULL;
    static const enum AVFrameSideDataType types[] = {
        AV_FRAME_DATA_MOTION_VECTORS, AV_FRAME_DATA_A53_CC,
    };

    if (!getenv("GPUME_FUZZ_DIGEST"))
        return;
    if (!strcmp(getenv("GPUME_FUZZ_DIGEST"), "frames")) {
        /* each plane apart: which plane differs */
        fprintf(stderr, "digest: frame pts %" PRId64 " %dx%d %s pict_type %d%s", f->pts, f->width,
                f->height, av_get_pix_fmt_name(f->format), f->pict_type,
                f->flags & AV_FRAME_FLAG_KEY ? " key" : "");
        for (int p = 0; desc && !(desc->flags & AV_PIX_FMT_FLAG_HWACCEL) && p < 4 && f->data[p]; p++) {
            const int ch = p == 1 || p == 2 ? AV_CEIL_RSHIFT(f->height, desc->log2_chroma_h) : f->height;
            const int bytes = av_image_get_linesize(f->format, f->width, p);
            uint64_t h = FUZZ_DIGEST_START;
            for (int y = 0; y < ch && bytes > 0; y++)
                digest_to(&h, f->data[p] + (ptrdiff_t)y * f->linesize[p], bytes);
            fprintf(stderr, " plane%d %016" PRIx64, p, h);
        }
        fprintf(stderr, "\n");
    }
    digest_int(f->pts);
    digest_int(f->width);
    digest_int(f->height);
    digest_int(f->format);
    digest_int(f->pict_type);
    digest_int(!!(f->flags & AV_FRAME_FLAG_KEY));
    if (desc && !(desc->flags & AV_PIX_FMT_FLAG_HWACCEL)) {
        const int n = av_image_get_buffer_size(f->format, f->width, f->height, 1);
        uint8_t *buf = n > 0 ? av_malloc(n) : NULL;
        if (buf && av_image_copy_to_buffer(buf, n, (const uint8_t *const *)f->data, f->linesize,
                                           f->format, f->width, f->height, 1) >= 0) {
            digest_bytes(buf, n);
            if (getenv("GPUME_FUZZ_DUMP")) {
                /* GPUME_FUZZ_DUMP=PREFIX: each frame's pixels in PREFIX-N.raw */
                static int nb_dumped;
                char name[4096];
                FILE *fp;
                snprintf(name, sizeof(name), "%s-%03d.raw", getenv("GPUME_FUZZ_DUMP"), nb_dumped++);
                if ((fp = fopen(name, "wb"))) {
                    fwrite(buf, 1, n, fp);
                    fclose(fp);
                }
            }
        }
        av_free(buf);
    }
    for (int i = 0; i < FF_ARRAY_ELEMS(types); i++) {
        const AVFrameSideData *sd = av_frame_get_side_data(f, types[i]);
        digest_int(sd ? (int64_t)sd->size : -1);
        if (sd)
            digest_bytes(sd->data, sd->size);
    }
    while ((e = av_dict_get(f->metadata, "lavfi.gpume.", e, AV_DICT_IGNORE_SUFFIX))) {
        digest_bytes(e->key, strlen(e->key) + 1);
        digest_bytes(e->value, strlen(e->value) + 1);
    }
}

/* an error of the graph, in the digest where it is the first */
static inline void digest_error(int err)
{
    if (getenv("GPUME_FUZZ_DIGEST") && fuzz_digest_errors == FUZZ_DIGEST_START)
        digest_to(&fuzz_digest_errors, &err, sizeof(err));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef GPUME_FUZZ_MAIN
int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        FILE *fp = fopen(argv[i], "rb");
        uint8_t *buf;
        long n;
        if (!fp || fseek(fp, 0, SEEK_END) || (n = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET)) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 2;
        }
        buf = malloc(n ? n : 1);
        if (!buf || fread(buf, 1, n, fp) != (size_t)n) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 2;
        }
        fclose(fp);
        fuzz_digest = fuzz_digest_errors = FUZZ_DIGEST_START;
        LLVMFuzzerTestOneInput(buf, n);
        free(buf);
        /* a failing input aborts: the ones before it are those printed */
        printf("ok %s\n", argv[i]);
        if (getenv("GPUME_FUZZ_DIGEST"))
            printf("digest %s %016" PRIx64 " %016" PRIx64 "\n", argv[i], fuzz_digest, fuzz_digest_errors);
        fflush(stdout);
    }
    return 0;
}
#endif

#endif /* GPUME_TESTS_FUZZ_INPUT_H */
