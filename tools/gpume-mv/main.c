/*
 * gpume-mv: dump and evaluate the motion vectors (AV_FRAME_DATA_MOTION_VECTORS)
 * that a filter graph (gpume, mestimate, ...) or a decoder attaches to frames.
 * Commands, options, output formats and metrics: docs/gpume-mv.md.
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
#include <stdio.h>
#include <string.h>

#include "libavutil/bprint.h"
#include "libavutil/error.h"
#include "libavutil/log.h"
#include "libavutil/macros.h"
#include "libavutil/mem.h"

#include "gpume-mv.h"

static void usage(FILE *out)
{
    fprintf(out,
        "usage: gpume-mv dump [-f csv|jsonl] [-vf GRAPH] [-frames N] [-export_mvs] [-v LEVEL] INPUT\n"
        "       gpume-mv eval [-vf GRAPH] [-frames N] [-export_mvs] [-truth FILE] [-v LEVEL] INPUT\n"
        "\n"
        "INPUT: a media file (first video stream), or lavfi:GRAPH for a source filter graph,\n"
        "       e.g. lavfi:testsrc2=s=320x240:r=25:d=1\n"
        "-vf GRAPH    filters between the input and the output (default: null),\n"
        "             e.g. gpume=device=cpu:dir=bi or mestimate\n"
        "-frames N    stop after N output frames\n"
        "-export_mvs  let the decoder export its own vectors (flags2 +export_mvs)\n"
        "-f           dump format: csv (a line per vector) or jsonl (an object per frame)\n"
        "-truth FILE  true motion for the end-point error: lines 'FRAME DX DY [X Y W H]',\n"
        "             FRAME an index or '*', (DX, DY) the pixel's position in the previous\n"
        "             frame relative to its own, in pixels; later lines override earlier ones\n"
        "-v LEVEL     log level: quiet, panic, fatal, error, warning (default), info,\n"
        "             verbose, debug, trace, or a number\n"
        "\n"
        "dump prints, per frame, its vectors and lavfi.gpume.* metadata; eval prints\n"
        "motion-compensated prediction PSNR, coverage, smoothness and EPE per frame and\n"
        "a last line 'overall key=value ...'. See docs/gpume-mv.md.\n");
}

static int parse_level(const char *s, int *level)
{
    static const struct { const char *name; int level; } levels[] = {
        { "quiet", AV_LOG_QUIET }, { "panic", AV_LOG_PANIC }, { "fatal", AV_LOG_FATAL },
        { "error", AV_LOG_ERROR }, { "warning", AV_LOG_WARNING }, { "info", AV_LOG_INFO },
        { "verbose", AV_LOG_VERBOSE }, { "debug", AV_LOG_DEBUG }, { "trace", AV_LOG_TRACE },
    };
    int64_t v;

    for (int i = 0; i < FF_ARRAY_ELEMS(levels); i++)
        if (!strcmp(s, levels[i].name)) {
            *level = levels[i].level;
            return 1;
        }
    if (!mv_parse_int(s, AV_LOG_QUIET, AV_LOG_TRACE, &v))
        return 0;
    *level = v;
    return 1;
}

static int cmd_dump(const Options *o)
{
    DumpContext d = { .jsonl = o->jsonl, .max_frames = o->max_frames };
    const FrameSink sink = { mv_dump_start, mv_dump_frame, &d };
    const int err = mv_run_pipeline(o, &sink);

    if (err >= 0)
        mv_dump_finish(&d);
    return err;
}

/** Read the truth file at path (also a pipe) and parse it into t. */
static int read_truth(Truth *t, const char *path)
{
    FILE *f = fopen(path, "rb");
    AVBPrint text;
    char buf[4096], *str;
    size_t n;
    int err = 0;

    if (!f) {
        err = AVERROR(errno);
        av_log(NULL, AV_LOG_ERROR, "cannot read the truth file '%s': %s\n", path, av_err2str(err));
        return err;
    }
    av_bprint_init(&text, 0, AV_BPRINT_SIZE_UNLIMITED);
    while (!err && (n = fread(buf, 1, sizeof(buf), f)) > 0) {
        /* a NUL would end the text the parser sees: the lines after it lost */
        if (memchr(buf, 0, n)) {
            av_log(NULL, AV_LOG_ERROR, "the truth file '%s' holds a NUL byte (a truth file is text)\n", path);
            err = AVERROR_INVALIDDATA;
        }
        av_bprint_append_data(&text, buf, n);
    }
    if (!err && ferror(f)) {
        err = AVERROR(EIO);
        av_log(NULL, AV_LOG_ERROR, "cannot read the truth file '%s': %s\n", path, av_err2str(err));
    }
    fclose(f);
    if (!err && !av_bprint_is_complete(&text))
        err = AVERROR(ENOMEM);
    if (err < 0) {
        av_bprint_finalize(&text, NULL);
        return err;
    }
    if ((err = av_bprint_finalize(&text, &str)) < 0)
        return err;
    err = mv_truth_parse(t, str, path);
    av_free(str);
    return err;
}

static int cmd_eval(const Options *o)
{
    EvalRun r = { .max_frames = o->max_frames };
    const FrameSink sink = { mv_eval_start, mv_eval_take, &r };
    int err = 0;

    if (o->truth) {
        if ((err = read_truth(&r.e.truth, o->truth)) < 0)
            goto end;
        r.e.have_truth = 1;
    }
    err = mv_run_pipeline(o, &sink);
    if (err >= 0)
        err = mv_eval_finish(&r);
end:
    mv_eval_run_free(&r);
    return err;
}

int main(int argc, char **argv)
{
    Options o = { .graph = "null" };
    const char *cmd = argc > 1 ? argv[1] : "";
    int dump = !strcmp(cmd, "dump"), eval = !strcmp(cmd, "eval"), level = AV_LOG_WARNING, err;

    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!dump && !eval) {
        fprintf(stderr, "gpume-mv: %s%s%s\n\n", *cmd ? "unknown command '" : "no command given",
                cmd, *cmd ? "'" : "");
        usage(stderr);
        return 2;
    }

    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        const int takes_value = !strcmp(a, "-f") || !strcmp(a, "-vf") || !strcmp(a, "-frames") ||
                                !strcmp(a, "-truth") || !strcmp(a, "-v");

        if (takes_value && !val) {
            fprintf(stderr, "gpume-mv: option %s needs a value\n", a);
            return 2;
        }
        if (!strcmp(a, "-f") && dump) {
            if (strcmp(val, "csv") && strcmp(val, "jsonl")) {
                fprintf(stderr, "gpume-mv: -f %s: the format must be csv or jsonl\n", val);
                return 2;
            }
            o.jsonl = !strcmp(val, "jsonl");
        } else if (!strcmp(a, "-vf")) {
            o.graph = val;
        } else if (!strcmp(a, "-frames")) {
            if (!mv_parse_int(val, 1, INT64_MAX, &o.max_frames)) {
                fprintf(stderr, "gpume-mv: -frames %s: a number of frames >= 1 is needed\n", val);
                return 2;
            }
        } else if (!strcmp(a, "-truth") && eval) {
            o.truth = val;
        } else if (!strcmp(a, "-v")) {
            if (!parse_level(val, &level)) {
                fprintf(stderr, "gpume-mv: -v %s: unknown log level\n", val);
                return 2;
            }
        } else if (!strcmp(a, "-export_mvs")) {
            o.export_mvs = 1;
            continue;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "gpume-mv %s: unknown option %s\n", cmd, a);
            return 2;
        } else if (o.input) {
            fprintf(stderr, "gpume-mv: more than one input ('%s', '%s')\n", o.input, a);
            return 2;
        } else {
            o.input = a;
            continue;
        }
        i++;
    }
    if (!o.input) {
        fprintf(stderr, "gpume-mv %s: no input given\n", cmd);
        return 2;
    }
    if (!*o.graph) {
        fprintf(stderr, "gpume-mv: -vf: empty filter graph (use null)\n");
        return 2;
    }

    av_log_set_level(level);
    err = dump ? cmd_dump(&o) : cmd_eval(&o);
    if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "gpume-mv: error writing the output\n");
        return 1;
    }
    if (err < 0) {
        fprintf(stderr, "gpume-mv %s: failed: %s\n", cmd, av_err2str(err));
        return 1;
    }
    return 0;
}
