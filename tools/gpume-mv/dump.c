/*
 * gpume-mv dump: the vectors and lavfi.gpume.* metadata of every frame, as
 * csv (a line per vector) or jsonl (an object per frame).
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
#include <stdio.h>
#include <string.h>

#include "libavutil/bprint.h"
#include "libavutil/common.h"
#include "libavutil/dict.h"
#include "libavutil/error.h"

#include "gpume-mv.h"

/** Print s as a CSV field: quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        const unsigned char c = *s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

int mv_is_json_number(const char *s)
{
    if (*s == '-')
        s++;
    if (*s == '0')
        s++;
    else if (*s >= '1' && *s <= '9')
        while (*s >= '0' && *s <= '9')
            s++;
    else
        return 0;
    if (*s == '.') {
        if (!(*++s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!(*s >= '0' && *s <= '9'))
            return 0;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return !*s;
}

static const AVDictionaryEntry *next_gpume_meta(const AVDictionary *m, const AVDictionaryEntry *prev)
{
    return av_dict_get(m, META_PREFIX, prev, AV_DICT_IGNORE_SUFFIX);
}

static void print_header(DumpContext *d)
{
    if (!d->jsonl && !d->header_printed++)
        printf("frame,pts,pict_type,count,source,w,h,src_x,src_y,dst_x,dst_y,"
               "motion_x,motion_y,motion_scale,mean_sad,scene_score,gpume_meta\n");
}

int mv_dump_start(void *opaque)
{
    DumpContext *d = opaque;

    /* the header waits for a frame: a graph whose output cannot be read
     * leaves nothing on stdout */
    d->started = 1;
    return 0;
}

void mv_dump_finish(DumpContext *d)
{
    if (d->started)
        print_header(d);
}

int mv_dump_frame(void *opaque, AVFrame *f, int64_t index)
{
    DumpContext *d = opaque;
    const AVFrameSideData *sd = av_frame_get_side_data(f, AV_FRAME_DATA_MOTION_VECTORS);
    const AVMotionVector *mvs = sd ? (const AVMotionVector *)sd->data : NULL;
    const size_t n = sd ? sd->size / sizeof(*mvs) : 0;
    const char type = av_get_picture_type_char(f->pict_type);
    const AVDictionaryEntry *t;
    char pts[32] = "";

    if (f->pts != AV_NOPTS_VALUE)
        snprintf(pts, sizeof(pts), "%"PRId64, f->pts);
    print_header(d);

    if (d->jsonl) {
        printf("{\"frame\":%"PRId64",\"pts\":%s,\"pict_type\":\"%c\",\"count\":%zu,\"gpume\":{",
               index, *pts ? pts : "null", type, n);
        t = NULL;
        for (int i = 0; (t = next_gpume_meta(f->metadata, t)); i++) {
            printf(i ? "," : "");
            json_string(stdout, t->key + strlen(META_PREFIX));
            putchar(':');
            if (mv_is_json_number(t->value))
                fputs(t->value, stdout);
            else
                json_string(stdout, t->value);
        }
        printf("},\"mvs\":[");
        for (size_t i = 0; i < n; i++) {
            const AVMotionVector *mv = &mvs[i];
            printf("%s{\"source\":%d,\"w\":%d,\"h\":%d,\"src_x\":%d,\"src_y\":%d,"
                   "\"dst_x\":%d,\"dst_y\":%d,\"motion_x\":%d,\"motion_y\":%d,"
                   "\"motion_scale\":%d}", i ? "," : "", mv->source, mv->w, mv->h,
                   mv->src_x, mv->src_y, mv->dst_x, mv->dst_y, mv->motion_x,
                   mv->motion_y, mv->motion_scale);
        }
        printf("]}\n");
    } else {
        const AVDictionaryEntry *sad   = av_dict_get(f->metadata, META_PREFIX "mean_sad", NULL, 0);
        const AVDictionaryEntry *scene = av_dict_get(f->metadata, META_PREFIX "scene_score", NULL, 0);
        AVBPrint meta;

        av_bprint_init(&meta, 0, AV_BPRINT_SIZE_UNLIMITED);
        t = NULL;
        for (int i = 0; (t = next_gpume_meta(f->metadata, t)); i++)
            av_bprintf(&meta, "%s%s=%s", i ? ";" : "", t->key + strlen(META_PREFIX), t->value);
        if (!av_bprint_is_complete(&meta)) {
            av_bprint_finalize(&meta, NULL);
            return AVERROR(ENOMEM);
        }
        for (size_t i = 0; i < FFMAX(n, 1); i++) {
            printf("%"PRId64",%s,%c,%zu,", index, pts, type, n);
            if (n) {
                const AVMotionVector *mv = &mvs[i];
                printf("%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,", mv->source, mv->w, mv->h,
                       mv->src_x, mv->src_y, mv->dst_x, mv->dst_y, mv->motion_x,
                       mv->motion_y, mv->motion_scale);
            } else {
                printf(",,,,,,,,,,");
            }
            csv_field(stdout, sad ? sad->value : "");
            putchar(',');
            csv_field(stdout, scene ? scene->value : "");
            putchar(',');
            csv_field(stdout, meta.str);
            putchar('\n');
        }
        av_bprint_finalize(&meta, NULL);
    }
    return d->max_frames && index + 1 >= d->max_frames;
}
