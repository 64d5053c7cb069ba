/*
 * gpume-mv: the -truth file (true motion for the end-point error), and the
 * number parsing that the options share with it.
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

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libavutil/avstring.h"
#include "libavutil/error.h"
#include "libavutil/log.h"
#include "libavutil/mem.h"

#include "gpume-mv.h"

void mv_truth_free(Truth *t)
{
    av_freep(&t->lines);
    t->nb = 0;
}

int mv_parse_double(const char *s, double *v)
{
    char *end;
    if (!s)
        return 0;
    *v = strtod(s, &end);
    return end != s && !*end && isfinite(*v);
}

int mv_parse_int(const char *s, int64_t min, int64_t max, int64_t *v)
{
    char *end;
    long long r;
    if (!s)
        return 0;
    errno = 0;
    r = strtoll(s, &end, 10);
    if (end == s || *end || errno || r < min || r > max)
        return 0;
    *v = r;
    return 1;
}

int mv_truth_parse(Truth *t, const char *text, const char *name)
{
    char *copy = av_strdup(text), *next;
    int lineno = 0, err = 0;

    if (!copy)
        return AVERROR(ENOMEM);
    for (char *line = copy; line; line = next) {
        const char *tok[8] = { NULL };
        char *save = NULL, *hash;
        int nb = 0;
        int64_t v[4];
        TruthLine tl = { 0 };

        lineno++;
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if ((hash = strchr(line, '#')))
            *hash = '\0';
        for (char *s = av_strtok(line, " \t\r", &save); s && nb < 8; s = av_strtok(NULL, " \t\r", &save))
            tok[nb++] = s;
        if (!nb)
            continue;
        if (nb != 3 && nb != 7) {
            av_log(NULL, AV_LOG_ERROR, "%s:%d: expected 'FRAME DX DY [X Y W H]'\n", name, lineno);
            err = AVERROR_INVALIDDATA;
            break;
        }
        if (!strcmp(tok[0], "*")) {
            tl.frame = -1;
        } else if (!mv_parse_int(tok[0], 0, INT64_MAX, &tl.frame)) {
            av_log(NULL, AV_LOG_ERROR, "%s:%d: frame '%s' is not '*' or an index >= 0\n",
                   name, lineno, tok[0]);
            err = AVERROR_INVALIDDATA;
            break;
        }
        if (!mv_parse_double(tok[1], &tl.dx) || !mv_parse_double(tok[2], &tl.dy)) {
            av_log(NULL, AV_LOG_ERROR, "%s:%d: DX DY must be numbers\n", name, lineno);
            err = AVERROR_INVALIDDATA;
            break;
        }
        if (nb == 7) {
            if (!mv_parse_int(tok[3], INT_MIN, INT_MAX, &v[0]) || !mv_parse_int(tok[4], INT_MIN, INT_MAX, &v[1]) ||
                !mv_parse_int(tok[5], 1, INT_MAX, &v[2]) || !mv_parse_int(tok[6], 1, INT_MAX, &v[3])) {
                av_log(NULL, AV_LOG_ERROR, "%s:%d: X Y W H must be integers, W and H > 0\n",
                       name, lineno);
                err = AVERROR_INVALIDDATA;
                break;
            }
            tl.has_rect = 1;
            tl.x = v[0];
            tl.y = v[1];
            tl.w = v[2];
            tl.h = v[3];
        }
        if (!av_dynarray2_add((void **)&t->lines, &t->nb, sizeof(tl), (const uint8_t *)&tl)) {
            err = AVERROR(ENOMEM);
            break;
        }
    }
    av_free(copy);
    if (!err && !t->nb) {
        av_log(NULL, AV_LOG_ERROR, "%s: no truth lines\n", name);
        err = AVERROR_INVALIDDATA;
    }
    return err;
}

int mv_truth_at(const Truth *t, int64_t index, int x, int y, double *dx, double *dy)
{
    for (int i = t->nb - 1; i >= 0; i--) {
        const TruthLine *l = &t->lines[i];
        if (l->frame >= 0 && l->frame != index)
            continue;
        /* in 64 bits: a rectangle may start anywhere an int does */
        if (l->has_rect && (x < l->x || y < l->y || (int64_t)x - l->x >= l->w ||
                            (int64_t)y - l->y >= l->h))
            continue;
        *dx = l->dx;
        *dy = l->dy;
        return 1;
    }
    return 0;
}
