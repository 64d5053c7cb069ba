/*
 * frc-metrics: luma PSNR and SSIM of the interpolated frames of a rebuilt
 * clip against the original frames that were dropped.
 *
 *   frc-metrics W H ORIG.gray REBUILT.gray [STEP [LAST]]
 *
 * Both files are raw 8-bit gray frames of W x H, frame k of REBUILT standing
 * for frame k of ORIG. Frames k with k % STEP != 0 (STEP 2 by default: the
 * odd frames, those dropped before the rebuild) that both files hold and
 * that have a kept frame after them in ORIG, up to frame LAST when given,
 * are compared. Prints
 * "frames N psnr P ssim S min_psnr M": P the mean of the per-frame PSNRs
 * (MSE 0 counts as 100 dB), S the mean SSIM of 8x8 windows at a stride of 4
 * (C1 = (0.01*255)^2, C2 = (0.03*255)^2, as FFmpeg's ssim filter uses).
 * With FRC_METRICS_FRAMES set in the environment, a line
 * "frame K psnr P ssim S" for each compared frame comes first.
 * Exit status 1 when no frame could be compared.
 */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static double psnr(const uint8_t *a, const uint8_t *b, size_t n)
{
    uint64_t se = 0;
    for (size_t i = 0; i < n; i++) {
        const int d = a[i] - b[i];
        se += d * d;
    }
    return se ? 10 * log10(255.0 * 255.0 * n / se) : 100;
}

static double ssim(const uint8_t *a, const uint8_t *b, int w, int h)
{
    const double c1 = (0.01 * 255) * (0.01 * 255), c2 = (0.03 * 255) * (0.03 * 255);
    double sum = 0;
    int n = 0;
    for (int y = 0; y + 8 <= h; y += 4) {
        for (int x = 0; x + 8 <= w; x += 4) {
            double sa = 0, sb = 0, saa = 0, sbb = 0, sab = 0;
            for (int j = 0; j < 8; j++) {
                for (int i = 0; i < 8; i++) {
                    const double va = a[(size_t)(y + j) * w + x + i], vb = b[(size_t)(y + j) * w + x + i];
                    sa += va; sb += vb; saa += va * va; sbb += vb * vb; sab += va * vb;
                }
            }
            {
                const double ma = sa / 64, mb = sb / 64;
                const double va = saa / 64 - ma * ma, vb = sbb / 64 - mb * mb, cov = sab / 64 - ma * mb;
                sum += (2 * ma * mb + c1) * (2 * cov + c2) / ((ma * ma + mb * mb + c1) * (va + vb + c2));
            }
            n++;
        }
    }
    return n ? sum / n : 1;
}

int main(int argc, char **argv)
{
    int w, h, step = 2, nb = 0, nb_orig = 0, last = -1;
    size_t size;
    uint8_t *fa, *fb;
    FILE *o, *r;
    double sp = 0, ss = 0, minp = 1e9;
    const int per_frame = getenv("FRC_METRICS_FRAMES") != NULL;

    if (argc < 5) {
        fprintf(stderr, "usage: frc-metrics W H ORIG.gray REBUILT.gray [STEP [LAST]]\n");
        return 2;
    }
    w = atoi(argv[1]);
    h = atoi(argv[2]);
    if (argc > 5)
        step = atoi(argv[5]);
    if (argc > 6)
        last = atoi(argv[6]);
    if (w <= 0 || h <= 0 || step < 2) {
        fprintf(stderr, "frc-metrics: bad size or step\n");
        return 2;
    }
    size = (size_t)w * h;
    o = fopen(argv[3], "rb");
    r = fopen(argv[4], "rb");
    fa = malloc(size);
    fb = malloc(size);
    if (!o || !r || !fa || !fb) {
        fprintf(stderr, "frc-metrics: cannot open %s or %s\n", argv[3], argv[4]);
        return 2;
    }
    fseek(o, 0, SEEK_END);
    nb_orig = ftell(o) / size;
    /* the last compared frame needs a kept frame after it */
    for (int k = 0; k < (nb_orig - 1) / step * step; k++) {
        if (fseek(o, (long)(k * size), SEEK_SET) || fread(fa, 1, size, o) != size)
            break;
        if (fseek(r, (long)(k * size), SEEK_SET) || fread(fb, 1, size, r) != size)
            break;
        if (k % step == 0)
            continue;
        if (last >= 0 && k > last)
            break;
        {
            const double p = psnr(fa, fb, size), q = ssim(fa, fb, w, h);
            if (per_frame)
                printf("frame %d psnr %.2f ssim %.4f\n", k, p, q);
            sp += p;
            ss += q;
            minp = p < minp ? p : minp;
            nb++;
        }
    }
    if (!nb) {
        fprintf(stderr, "frc-metrics: no frame to compare\n");
        return 1;
    }
    printf("frames %d psnr %.2f ssim %.4f min_psnr %.2f\n", nb, sp / nb, ss / nb, minp);
    return 0;
}
