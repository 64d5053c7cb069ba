/*
 * Where hme loses to full: both searches on the CPU backend over the same
 * frame pairs (forward, fixed blocks), and per block the SAD hme's vector
 * costs more than full's, grouped by the integer distance between the two
 * vectors. For the blocks where the two lie more than 3 pels apart, from
 * the third frame on, the share of that loss where full's vector lies
 * within one pel of a vector that hme could have tried as a candidate: one
 * of the previous pair's hme vectors, or of this pair's hme vectors, of the
 * block or a block within 16 pixels of it.
 *
 * usage: hme-misses FILE.gray W H FRAMES RANGE [BLOCK]   (BLOCK default 16)
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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/common.h"
#include "libavutil/frame.h"
#include "libavutil/mem.h"
#include "libavfilter/gpume_backend.h"

#define NB_BINS 6

typedef struct Search {
    void       *priv;
    GpumeParams p;
    GpumeResult res, prev;   ///< this pair's blocks and the previous pair's
} Search;

static int run_jobs(void *opaque, int (*job)(void *, int, int), void *arg, int nb_jobs)
{
    for (int i = 0; i < nb_jobs; i++)
        job(arg, i, nb_jobs);
    return 0;
}

static const GpumeHost host = { .execute = run_jobs, .nb_threads = 1 };

static int search_init(Search *s, int w, int h, int algo, int range, int block)
{
    s->p = (GpumeParams){ .width = w, .height = h, .algo = algo, .range = range, .ctu = 32,
                          .block = block, .subpel = 2, .lambda = 2, .pu_penalty = 256,
                          .lfs_threshold = 32 };
    if (ff_gpume_params_derive(&s->p) < 0)
        return -1;
    s->priv        = av_mallocz(ff_gpume_backend_cpu.priv_size);
    s->res.blocks  = av_calloc((size_t)s->p.nb_ctus * s->p.max_out, sizeof(GpumeBlock));
    s->res.counts  = av_calloc(s->p.nb_ctus, sizeof(uint16_t));
    s->prev.blocks = av_calloc((size_t)s->p.nb_ctus * s->p.max_out, sizeof(GpumeBlock));
    s->prev.counts = av_calloc(s->p.nb_ctus, sizeof(uint16_t));
    if (!s->priv || !s->res.blocks || !s->res.counts || !s->prev.blocks || !s->prev.counts)
        return -1;
    return ff_gpume_backend_cpu.init(s->priv, &host, &s->p);
}

/** 1 if a block of r within 16 pixels of b has a vector within one pel of (mvx, mvy). */
static int near_candidate(const GpumeParams *p, const GpumeResult *r, const GpumeBlock *b,
                          int mvx, int mvy)
{
    for (int c = 0; c < p->nb_ctus; c++)
        for (int k = 0; k < r->counts[c]; k++) {
            const GpumeBlock *q = &r->blocks[(size_t)c * p->max_out + k];
            if (FFABS(q->x - b->x) <= 16 && FFABS(q->y - b->y) <= 16 &&
                FFABS(q->mvx - mvx) <= 4 && FFABS(q->mvy - mvy) <= 4)
                return 1;
        }
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const bin_name[NB_BINS] = { "0", "1", "2-3", "4-8", "9-16", ">16" };
    double loss[NB_BINS] = { 0 }, total = 0, far = 0, far_prev = 0, far_cur = 0;
    long count[NB_BINS] = { 0 };
    Search hme, full;
    int16_t *no_pred;   /* zero predictors: no pred */
    uint8_t *pix;
    FILE *f;
    int w, h, nf, range, block;

    if (argc < 6) {
        fprintf(stderr, "usage: %s FILE.gray W H FRAMES RANGE [BLOCK]\n", argv[0]);
        return 2;
    }
    w     = atoi(argv[2]);
    h     = atoi(argv[3]);
    nf    = atoi(argv[4]);
    range = atoi(argv[5]);
    block = argc > 6 ? atoi(argv[6]) : 16;
    if (w <= 0 || h <= 0 || nf < 2 || block <= 0 ||
        search_init(&hme, w, h, GPUME_ALGO_HME, range, block) < 0 ||
        search_init(&full, w, h, GPUME_ALGO_FULL, range, block) < 0) {
        fprintf(stderr, "bad arguments or out of memory\n");
        return 1;
    }
    pix     = malloc((size_t)w * h * nf);
    no_pred = av_calloc(2 * hme.p.nb_ctus, sizeof(*no_pred));
    if (!pix || !no_pred || !(f = fopen(argv[1], "rb"))) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    nf = fread(pix, (size_t)w * h, nf, f);
    fclose(f);

    for (int t = 0; t < nf; t++) {
        AVFrame frame = { .width = w, .height = h };
        frame.data[0]     = pix + (size_t)w * h * t;
        frame.linesize[0] = w;
        if (ff_gpume_backend_cpu.load(hme.priv, t % 4, &frame) < 0 ||
            ff_gpume_backend_cpu.load(full.priv, t % 4, &frame) < 0)
            return 1;
        if (!t)
            continue;
        FFSWAP(GpumeResult, hme.res, hme.prev);
        if (ff_gpume_backend_cpu.estimate(hme.priv, t % 4, (t - 1) % 4, no_pred, -1, t % 2, &hme.res) < 0 ||
            ff_gpume_backend_cpu.estimate(full.priv, t % 4, (t - 1) % 4, no_pred, -1, t % 2, &full.res) < 0 ||
            ff_gpume_backend_cpu.sync(hme.priv) < 0 || ff_gpume_backend_cpu.sync(full.priv) < 0)
            return 1;
        for (int c = 0; c < hme.p.nb_ctus; c++)
            for (int k = 0; k < hme.res.counts[c]; k++) {
                const GpumeBlock *a = &hme.res.blocks[(size_t)c * hme.p.max_out + k];
                const GpumeBlock *b = &full.res.blocks[(size_t)c * full.p.max_out + k];
                const int d = FFMAX(FFABS(a->mvx - b->mvx), FFABS(a->mvy - b->mvy)) / 4;
                const int bin = d == 0 ? 0 : d == 1 ? 1 : d <= 3 ? 2 : d <= 8 ? 3 : d <= 16 ? 4 : 5;
                const double l = (double)a->sad - b->sad;
                loss[bin] += l;
                count[bin]++;
                total += l;
                if (t >= 2 && d > 3) {
                    far      += l;
                    far_prev += l * near_candidate(&hme.p, &hme.prev, a, b->mvx, b->mvy);
                    far_cur  += l * near_candidate(&hme.p, &hme.res, a, b->mvx, b->mvy);
                }
            }
    }
    printf("%s range=%d block=%d, %d frames: SAD of hme's vectors minus full's, %.0f\n",
           argv[1], range, block, nf, total);
    printf("| distance (pels) | blocks | SAD lost | share |\n| --- | --- | --- | --- |\n");
    for (int i = 0; i < NB_BINS; i++)
        printf("| %s | %ld | %.0f | %.1f %% |\n", bin_name[i], count[i], loss[i],
               total > 0 ? 100 * loss[i] / total : 0);
    printf("farther than 3 pels from the third frame on: %.0f lost, of it %.1f %% near a previous "
           "hme vector, %.1f %% near a current hme vector of a neighbour\n", far,
           far > 0 ? 100 * far_prev / far : 0, far > 0 ? 100 * far_cur / far : 0);
    return 0;
}
