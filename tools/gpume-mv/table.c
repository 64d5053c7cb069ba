/*
 * gpume-mv eval: the table (a row per frame) and the overall line.
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

#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "libavutil/bprint.h"

#include "gpume-mv.h"

static void put_num(AVBPrint *bp, int valid, double v, const char *fmt)
{
    if (!valid || isnan(v))
        av_bprintf(bp, " %s", "-");
    else if (isinf(v))
        av_bprintf(bp, " %s", "inf");
    else {
        av_bprint_chars(bp, ' ', 1);
        av_bprintf(bp, fmt, v);
    }
}

void mv_print_eval_header(void)
{
    printf("frame pts type n_fwd n_bwd cover_fwd cover_bwd psnr0 psnr_fwd psnr_bwd psnr_bi "
           "mae_fwd mae_bwd mean_sad smooth_fwd smooth_bwd epe_mean epe_median\n");
}

void mv_print_eval_row(const FrameStats *st)
{
    AVBPrint bp;

    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
    av_bprintf(&bp, "%"PRId64, st->index);
    if (st->pts == AV_NOPTS_VALUE)
        av_bprintf(&bp, " -");
    else
        av_bprintf(&bp, " %"PRId64, st->pts);
    av_bprintf(&bp, " %c %d %d", st->type, st->n[FWD], st->n[BWD]);
    put_num(&bp, st->has[FWD], st->cover[FWD], "%.4f");
    put_num(&bp, st->has[BWD], st->cover[BWD], "%.4f");
    put_num(&bp, st->has0, mv_psnr(st->sse0, st->pixels), "%.4f");
    put_num(&bp, st->has[FWD], mv_psnr(st->sse[FWD], st->pixels), "%.4f");
    put_num(&bp, st->has[BWD], mv_psnr(st->sse[BWD], st->pixels), "%.4f");
    put_num(&bp, st->has_bi, mv_psnr(st->sse_bi, st->pixels), "%.4f");
    put_num(&bp, st->has[FWD], st->mae[FWD], "%.4f");
    put_num(&bp, st->has[BWD], st->mae[BWD], "%.4f");
    put_num(&bp, 1, st->mean_sad, "%.4f");
    put_num(&bp, st->has[FWD], st->smooth[FWD], "%.4f");
    put_num(&bp, st->has[BWD], st->smooth[BWD], "%.4f");
    put_num(&bp, st->nb_epe, st->epe_mean, "%.4f");
    put_num(&bp, st->nb_epe, st->epe_median, "%.4f");
    printf("%s\n", bp.str);
    av_bprint_finalize(&bp, NULL);
}

static void kv(AVBPrint *bp, const char *key, double v)
{
    if (isnan(v))
        av_bprintf(bp, " %s=-", key);
    else if (isinf(v))
        av_bprintf(bp, " %s=inf", key);
    else
        av_bprintf(bp, " %s=%.4f", key, v);
}

static double ratio(double sum, int64_t n)
{
    return n ? sum / n : NAN;
}

int mv_print_eval_summary(const EvalContext *e)
{
    AVBPrint bp;

    av_bprint_init(&bp, 0, AV_BPRINT_SIZE_UNLIMITED);
    av_bprintf(&bp, "overall frames=%"PRId64" frames_fwd=%"PRId64" frames_bwd=%"PRId64
               " frames_bi=%"PRId64" vectors_fwd=%"PRId64" vectors_bwd=%"PRId64,
               e->frames, e->frames_dir[FWD], e->frames_dir[BWD], e->frames_bi,
               e->vectors[FWD], e->vectors[BWD]);
    kv(&bp, "psnr0",      mv_psnr(e->sse0, e->pixels0));
    kv(&bp, "psnr_fwd",   mv_psnr(e->sse[FWD], e->pixels[FWD]));
    kv(&bp, "psnr_bwd",   mv_psnr(e->sse[BWD], e->pixels[BWD]));
    kv(&bp, "psnr_bi",    mv_psnr(e->sse_bi, e->pixels_bi));
    kv(&bp, "mae_fwd",    ratio(e->mae_sum[FWD], e->frames_dir[FWD]));
    kv(&bp, "mae_bwd",    ratio(e->mae_sum[BWD], e->frames_dir[BWD]));
    kv(&bp, "cover_fwd",  ratio(e->cover_sum[FWD], e->frames_dir[FWD]));
    kv(&bp, "cover_bwd",  ratio(e->cover_sum[BWD], e->frames_dir[BWD]));
    kv(&bp, "smooth_fwd", ratio(e->smooth_sum[FWD], e->smooth_pairs[FWD]));
    kv(&bp, "smooth_bwd", ratio(e->smooth_sum[BWD], e->smooth_pairs[BWD]));
    kv(&bp, "epe_mean",   ratio(e->epe_sum, e->nb_epe_all));
    kv(&bp, "epe_median", mv_median(e->epe_all, e->nb_epe_all));
    av_bprintf(&bp, " epe_blocks=%zu", e->nb_epe_all);
    printf("%s\n", bp.str);
    av_bprint_finalize(&bp, NULL);
    return 0;
}
