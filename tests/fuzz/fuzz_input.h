/*
 * What the libFuzzer targets share: the reader of the fuzz input (zeros
 * once it is exhausted) and, built with -DGPUME_FUZZ_MAIN, a plain program
 * that runs each file given on its command line (the regression suite of
 * make check, without libFuzzer).
 *
 * This file is part of FFmpeg (LGPL 2.1 or later, as the filters).
 */

#ifndef GPUME_TESTS_FUZZ_INPUT_H
#define GPUME_TESTS_FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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
        LLVMFuzzerTestOneInput(buf, n);
        free(buf);
        /* a failing input aborts: the ones before it are those printed */
        printf("ok %s\n", argv[i]);
        fflush(stdout);
    }
    return 0;
}
#endif

#endif /* GPUME_TESTS_FUZZ_INPUT_H */
