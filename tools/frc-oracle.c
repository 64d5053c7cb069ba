/*
 * frc-oracle: how far a choice between methods could go. For each block of
 * each interpolated frame, the rebuilt clip of least squared error against
 * the dropped original is taken, as if an oracle chose; the mean luma PSNR
 * of the frames so made is printed beside each method's own, and beside
 * that of the methods' pictures averaged pixel by pixel (unrounded).
 *
 *   frc-oracle DIR NAME BLOCK LAST METHOD...
 *
 * reads what tools/frc-bench.sh leaves in DIR: NAME.y4m (for the size),
 * NAME.orig.gray and NAME.METHOD.gray (raw 8-bit luma, frame k standing
 * for frame k of the original). Compared are the odd frames up to LAST that
 * every file holds and that have a kept frame after them, as frc-metrics
 * compares them (a frame without error counts as 100 dB). Prints one line:
 * "NAME frames N METHOD P ... oracle P average P".
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_METHODS 16

static double psnr_of(double se, size_t n)
{
    return se ? 10 * log10(255.0 * 255.0 * n / se) : 100;
}

static long frames_in(FILE *f, size_t size)
{
    if (fseek(f, 0, SEEK_END))
        return 0;
    return ftell(f) / (long)size;
}

static int read_frame(FILE *f, int k, uint8_t *buf, size_t size)
{
    return !fseek(f, (long)(k * size), SEEK_SET) && fread(buf, 1, size, f) == size;
}

int main(int argc, char **argv)
{
    const char *dir, *name;
    char path[4096], header[256];
    int w = 0, h = 0, block, last, nb_methods, nb = 0;
    long nb_frames;
    size_t size;
    FILE *orig, *f[MAX_METHODS], *y4m;
    uint8_t *o, *r[MAX_METHODS];
    uint64_t *block_se;
    double sum[MAX_METHODS] = { 0 }, sum_oracle = 0, sum_average = 0;

    if (argc < 6 || argc - 5 > MAX_METHODS) {
        fprintf(stderr, "usage: frc-oracle DIR NAME BLOCK LAST METHOD... (at most %d methods)\n", MAX_METHODS);
        return 2;
    }
    dir        = argv[1];
    name       = argv[2];
    block      = atoi(argv[3]);
    last       = atoi(argv[4]);
    nb_methods = argc - 5;

    snprintf(path, sizeof(path), "%s/%s.y4m", dir, name);
    if (!(y4m = fopen(path, "rb")) || !fgets(header, sizeof(header), y4m)) {
        fprintf(stderr, "frc-oracle: cannot read %s\n", path);
        return 2;
    }
    fclose(y4m);
    for (char *t = strtok(header, " \n"); t; t = strtok(NULL, " \n")) {
        if (t[0] == 'W')
            w = atoi(t + 1);
        else if (t[0] == 'H')
            h = atoi(t + 1);
    }
    if (w <= 0 || h <= 0 || block <= 0) {
        fprintf(stderr, "frc-oracle: bad size %dx%d or block %d\n", w, h, block);
        return 2;
    }
    size = (size_t)w * h;

    snprintf(path, sizeof(path), "%s/%s.orig.gray", dir, name);
    if (!(orig = fopen(path, "rb"))) {
        fprintf(stderr, "frc-oracle: cannot open %s\n", path);
        return 2;
    }
    nb_frames = frames_in(orig, size);
    for (int m = 0; m < nb_methods; m++) {
        snprintf(path, sizeof(path), "%s/%s.%s.gray", dir, name, argv[5 + m]);
        if (!(f[m] = fopen(path, "rb"))) {
            fprintf(stderr, "frc-oracle: cannot open %s\n", path);
            return 2;
        }
        {
            const long n = frames_in(f[m], size);
            nb_frames = n < nb_frames ? n : nb_frames;
        }
    }
    o        = malloc(size);
    block_se = calloc((size_t)((w + block - 1) / block) * ((h + block - 1) / block) * nb_methods,
                      sizeof(*block_se));
    for (int m = 0; m < nb_methods; m++)
        r[m] = malloc(size);

    /* odd frames with a kept (even) frame after them that every file holds */
    for (int k = 1; k + 1 < nb_frames && k <= last; k += 2) {
        const int bw = (w + block - 1) / block, bh = (h + block - 1) / block;
        uint64_t se_oracle = 0;

        if (!read_frame(orig, k, o, size))
            break;
        memset(block_se, 0, sizeof(*block_se) * bw * bh * nb_methods);
        for (int m = 0; m < nb_methods; m++) {
            uint64_t se = 0;
            if (!read_frame(f[m], k, r[m], size)) {
                fprintf(stderr, "frc-oracle: cannot read frame %d of %s\n", k, argv[5 + m]);
                return 2;
            }
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < w; x++) {
                    const int d = o[(size_t)y * w + x] - r[m][(size_t)y * w + x];
                    block_se[((size_t)(y / block) * bw + x / block) * nb_methods + m] += d * d;
                    se += d * d;
                }
            }
            sum[m] += psnr_of(se, size);
        }
        for (int i = 0; i < bw * bh; i++) {
            uint64_t best = block_se[(size_t)i * nb_methods];
            for (int m = 1; m < nb_methods; m++)
                if (block_se[(size_t)i * nb_methods + m] < best)
                    best = block_se[(size_t)i * nb_methods + m];
            se_oracle += best;
        }
        sum_oracle += psnr_of(se_oracle, size);
        {
            double se = 0;
            for (size_t i = 0; i < size; i++) {
                double d = 0;
                for (int m = 0; m < nb_methods; m++)
                    d += r[m][i];
                d = d / nb_methods - o[i];
                se += d * d;
            }
            sum_average += psnr_of(se, size);
        }
        nb++;
    }
    if (!nb) {
        fprintf(stderr, "frc-oracle: no frame to compare\n");
        return 1;
    }
    printf("%s frames %d", name, nb);
    for (int m = 0; m < nb_methods; m++)
        printf(" %s %.2f", argv[5 + m], sum[m] / nb);
    printf(" oracle %.2f average %.2f\n", sum_oracle / nb, sum_average / nb);
    return 0;
}
