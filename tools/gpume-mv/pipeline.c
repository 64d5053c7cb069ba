/*
 * gpume-mv: the input (libavformat and a decoder, or a lavfi: source graph),
 * and the filter graph buffer -> GRAPH -> buffersink that its frames go through.
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

#include "libavcodec/avcodec.h"
#include "libavfilter/avfilter.h"
#include "libavfilter/buffersink.h"
#include "libavfilter/buffersrc.h"
#include "libavformat/avformat.h"
#include "libavutil/avstring.h"
#include "libavutil/buffer.h"
#include "libavutil/error.h"
#include "libavutil/log.h"
#include "libavutil/mem.h"
#include "libavutil/pixdesc.h"

#include "gpume-mv.h"

typedef struct Pipeline {
    AVFormatContext *fmt;
    AVCodecContext *dec;
    AVPacket *pkt;
    int stream, flushed;

    AVFilterGraph *src_graph;       ///< lavfi: input
    AVFilterContext *src_sink;

    AVFilterGraph *graph;
    AVFilterContext *buffer, *sink;
    AVRational time_base, frame_rate;

    /* the frames the graph was configured for */
    int format, width, height;
    enum AVColorSpace color_space;
    enum AVColorRange color_range;
    AVBufferRef *hw_frames_ctx;
} Pipeline;

static void pipeline_close(Pipeline *p)
{
    avfilter_graph_free(&p->graph);
    /* the sources first: a movie source's decoder threads may still be
     * writing frames into its output link, which must outlive them */
    for (unsigned i = 0; p->src_graph && i < p->src_graph->nb_filters; ) {
        if (!p->src_graph->filters[i]->nb_inputs)
            avfilter_free(p->src_graph->filters[i]);
        else
            i++;
    }
    avfilter_graph_free(&p->src_graph);
    avcodec_free_context(&p->dec);
    avformat_close_input(&p->fmt);
    av_packet_free(&p->pkt);
    av_buffer_unref(&p->hw_frames_ctx);
}

/**
 * Parse desc into graph, its unlabelled (or [in]) input linked to in when
 * in is not NULL, its unlabelled (or [out]) output to out.
 */
static int parse_graph(AVFilterGraph *graph, const char *desc, AVFilterContext *in,
                       AVFilterContext *out)
{
    AVFilterInOut *outputs = NULL, *inputs = avfilter_inout_alloc();
    int err = AVERROR(ENOMEM);

    if (!inputs || !(inputs->name = av_strdup("out")))
        goto end;
    inputs->filter_ctx = out;
    if (in) {
        if (!(outputs = avfilter_inout_alloc()) || !(outputs->name = av_strdup("in")))
            goto end;
        outputs->filter_ctx = in;
    }
    err = avfilter_graph_parse_ptr(graph, desc, &inputs, &outputs, NULL);
    if (err < 0) {
        av_log(NULL, AV_LOG_ERROR, "cannot parse the filter graph '%s': %s\n", desc, av_err2str(err));
        goto end;
    }
    if (inputs || outputs) {
        av_log(NULL, AV_LOG_ERROR, "filter graph '%s': %s has unconnected pads%s\n", desc,
               in ? "it" : "a source graph (lavfi:)",
               in ? " (one input and one output are expected)" : " (sources and one output are expected)");
        err = AVERROR(EINVAL);
        goto end;
    }
    err = avfilter_graph_config(graph, NULL);
    if (err < 0) {
        av_log(NULL, AV_LOG_ERROR, "cannot configure the filter graph '%s': %s\n", desc, av_err2str(err));
        goto end;
    }
    if (av_buffersink_get_type(out) != AVMEDIA_TYPE_VIDEO) {
        av_log(NULL, AV_LOG_ERROR, "filter graph '%s' does not output video\n", desc);
        err = AVERROR(EINVAL);
    }
end:
    avfilter_inout_free(&inputs);
    avfilter_inout_free(&outputs);
    return err;
}

static int open_input(Pipeline *p, const Options *o)
{
    const AVCodec *codec;
    AVDictionary *opts = NULL;
    AVStream *st;
    int err;

    if (av_strstart(o->input, "lavfi:", NULL)) {
        const char *desc = o->input + 6;
        if (!(p->src_graph = avfilter_graph_alloc()))
            return AVERROR(ENOMEM);
        err = avfilter_graph_create_filter(&p->src_sink, avfilter_get_by_name("buffersink"),
                                           "src_out", NULL, NULL, p->src_graph);
        if (err < 0)
            return err;
        if ((err = parse_graph(p->src_graph, desc, NULL, p->src_sink)) < 0)
            return err;
        p->time_base  = av_buffersink_get_time_base(p->src_sink);
        p->frame_rate = av_buffersink_get_frame_rate(p->src_sink);
        if (o->export_mvs)
            av_log(NULL, AV_LOG_WARNING, "-export_mvs has no effect on a lavfi: input\n");
        return 0;
    }

    err = avformat_open_input(&p->fmt, o->input, NULL, NULL);
    if (err < 0) {
        av_log(NULL, AV_LOG_ERROR, "cannot open '%s': %s\n", o->input, av_err2str(err));
        return err;
    }
    err = avformat_find_stream_info(p->fmt, NULL);
    if (err < 0) {
        av_log(NULL, AV_LOG_ERROR, "'%s': cannot read stream information: %s\n",
               o->input, av_err2str(err));
        return err;
    }
    p->stream = -1;
    for (unsigned i = 0; i < p->fmt->nb_streams; i++) {
        if (p->stream < 0 && p->fmt->streams[i]->codecpar->codec_type == AVMEDIA_TYPE_VIDEO)
            p->stream = i;
        else
            p->fmt->streams[i]->discard = AVDISCARD_ALL;
    }
    if (p->stream < 0) {
        av_log(NULL, AV_LOG_ERROR, "'%s' has no video stream\n", o->input);
        return AVERROR_STREAM_NOT_FOUND;
    }
    st = p->fmt->streams[p->stream];
    codec = avcodec_find_decoder(st->codecpar->codec_id);
    if (!codec) {
        av_log(NULL, AV_LOG_ERROR, "'%s': no decoder for %s in this build\n", o->input,
               avcodec_get_name(st->codecpar->codec_id));
        return AVERROR_DECODER_NOT_FOUND;
    }
    if (!(p->dec = avcodec_alloc_context3(codec)) || !(p->pkt = av_packet_alloc()))
        return AVERROR(ENOMEM);
    if ((err = avcodec_parameters_to_context(p->dec, st->codecpar)) < 0)
        return err;
    p->dec->pkt_timebase = st->time_base;
    if (o->export_mvs && (err = av_dict_set(&opts, "flags2", "+export_mvs", 0)) < 0)
        return err;
    err = avcodec_open2(p->dec, codec, &opts);
    av_dict_free(&opts);
    if (err < 0) {
        av_log(NULL, AV_LOG_ERROR, "'%s': cannot open the %s decoder: %s\n", o->input,
               codec->name, av_err2str(err));
        return err;
    }
    p->time_base  = st->time_base;
    p->frame_rate = av_guess_frame_rate(p->fmt, st, NULL);
    return 0;
}

/** The next input frame; AVERROR_EOF at the end. */
static int read_frame(Pipeline *p, AVFrame *frame)
{
    int err;

    if (p->src_graph)
        return av_buffersink_get_frame(p->src_sink, frame);

    for (;;) {
        err = avcodec_receive_frame(p->dec, frame);
        if (err >= 0) {
            frame->pts = frame->best_effort_timestamp;
            return 0;
        }
        if (err != AVERROR(EAGAIN))
            return err;
        if (p->flushed)
            return AVERROR_EOF;
        err = av_read_frame(p->fmt, p->pkt);
        if (err < 0) {
            if (err != AVERROR_EOF)
                av_log(NULL, AV_LOG_ERROR, "error reading the input: %s; "
                       "treating it as the end\n", av_err2str(err));
            p->flushed = 1;
            if ((err = avcodec_send_packet(p->dec, NULL)) < 0)
                return err;
            continue;
        }
        if (p->pkt->stream_index == p->stream) {
            err = avcodec_send_packet(p->dec, p->pkt);
            if (err < 0 && err != AVERROR(EAGAIN))
                av_log(NULL, AV_LOG_WARNING, "decoding error (packet skipped): %s\n",
                       av_err2str(err));
        }
        av_packet_unref(p->pkt);
    }
}

/**
 * Whether frame differs from those the graph was configured for in what the
 * buffer source was told (the ffmpeg CLI reconfigures its graphs on the same
 * changes).
 */
static int graph_outdated(const Pipeline *p, const AVFrame *frame)
{
    return frame->format != p->format || frame->width != p->width ||
           frame->height != p->height || frame->colorspace != p->color_space ||
           frame->color_range != p->color_range ||
           !!frame->hw_frames_ctx != !!p->hw_frames_ctx ||
           (frame->hw_frames_ctx && frame->hw_frames_ctx->data != p->hw_frames_ctx->data);
}

static int make_graph(Pipeline *p, const Options *o, const AVFrame *frame)
{
    AVBufferSrcParameters *par;
    int err;

    if (!(p->graph = avfilter_graph_alloc()) ||
        !(p->buffer = avfilter_graph_alloc_filter(p->graph, avfilter_get_by_name("buffer"), "in")) ||
        !(par = av_buffersrc_parameters_alloc()))
        return AVERROR(ENOMEM);
    par->format              = frame->format;
    par->width               = frame->width;
    par->height              = frame->height;
    par->sample_aspect_ratio = frame->sample_aspect_ratio;
    par->time_base           = p->time_base;
    par->frame_rate          = p->frame_rate;
    par->hw_frames_ctx       = frame->hw_frames_ctx;
    par->color_space         = frame->colorspace;
    par->color_range         = frame->color_range;
    err = av_buffersrc_parameters_set(p->buffer, par);
    av_free(par);
    if (err < 0 || (err = avfilter_init_dict(p->buffer, NULL)) < 0)
        return err;
    if ((err = av_buffer_replace(&p->hw_frames_ctx, frame->hw_frames_ctx)) < 0)
        return err;
    p->format      = frame->format;
    p->width       = frame->width;
    p->height      = frame->height;
    p->color_space = frame->colorspace;
    p->color_range = frame->color_range;
    err = avfilter_graph_create_filter(&p->sink, avfilter_get_by_name("buffersink"), "out",
                                       NULL, NULL, p->graph);
    if (err < 0)
        return err;
    return parse_graph(p->graph, o->graph, p->buffer, p->sink);
}

static const char *or_unknown(const char *s)
{
    return s ? s : "unknown";
}

enum { PULL_AGAIN, PULL_EOF, PULL_STOP };

/**
 * Pass the output frames that the graph has ready to sink->take().
 * Returns PULL_AGAIN when it needs input, PULL_EOF at its end, PULL_STOP when
 * take() asked to stop, or an error.
 */
static int pull(Pipeline *p, const FrameSink *sink, AVFrame *out, int64_t *nb_out)
{
    for (;;) {
        int err = av_buffersink_get_frame(p->sink, out);
        if (err == AVERROR(EAGAIN))
            return PULL_AGAIN;
        if (err == AVERROR_EOF)
            return PULL_EOF;
        if (err < 0) {
            const int failed = err;
            av_log(NULL, AV_LOG_ERROR, "filtering failed: %s\n", av_err2str(failed));
            /* the frames the graph made before the error are still queued
             * in the sink: pass them on, without running the graph again */
            while (av_buffersink_get_frame_flags(p->sink, out, AV_BUFFERSINK_FLAG_NO_REQUEST) >= 0) {
                err = sink->take(sink->opaque, out, (*nb_out)++);
                av_frame_unref(out);
                if (err)
                    break;
            }
            return failed;
        }
        err = sink->take(sink->opaque, out, (*nb_out)++);
        av_frame_unref(out);
        if (err)
            return err < 0 ? err : PULL_STOP;
    }
}

/** Feed frame (NULL: the end of the input) to the graph. */
static int feed(Pipeline *p, AVFrame *frame)
{
    int err = av_buffersrc_add_frame_flags(p->buffer, frame, 0);
    if (err < 0)
        av_log(NULL, AV_LOG_ERROR, "cannot feed the filter graph: %s\n", av_err2str(err));
    return err;
}

int mv_run_pipeline(const Options *o, const FrameSink *sink)
{
    Pipeline p = { 0 };
    AVFrame *in = av_frame_alloc(), *out = av_frame_alloc();
    int64_t nb_out = 0;
    int err, state = PULL_AGAIN, started = 0, eof = 0;

    if (!in || !out) {
        err = AVERROR(ENOMEM);
        goto end;
    }
    if ((err = open_input(&p, o)) < 0)
        goto end;

    while (state == PULL_AGAIN && !eof) {
        err = read_frame(&p, in);
        if (err == AVERROR_EOF) {
            eof = 1;
            if (!p.graph) {
                av_log(NULL, AV_LOG_ERROR, "'%s': no video frame could be decoded\n", o->input);
                err = AVERROR_INVALIDDATA;
                goto end;
            }
            if ((err = feed(&p, NULL)) < 0)
                goto end;
        } else if (err < 0) {
            av_log(NULL, AV_LOG_ERROR, "'%s': %s\n", o->input, av_err2str(err));
            goto end;
        } else {
            if (p.graph && graph_outdated(&p, in)) {
                av_log(NULL, AV_LOG_INFO, "reconfiguring the filter graph for %s(%s, %s) %dx%d "
                       "frames%s\n", or_unknown(av_get_pix_fmt_name(in->format)),
                       or_unknown(av_color_space_name(in->colorspace)),
                       or_unknown(av_color_range_name(in->color_range)), in->width, in->height,
                       in->hw_frames_ctx ? " (hardware)" : "");
                /* the old graph's last frames first, as at the end of the input */
                if ((err = feed(&p, NULL)) < 0 ||
                    (err = state = pull(&p, sink, out, &nb_out)) < 0)
                    goto end;
                avfilter_graph_free(&p.graph);
                if (state == PULL_STOP) {
                    av_frame_unref(in);
                    break;
                }
                state = PULL_AGAIN;
            }
            if (!p.graph) {
                if ((err = make_graph(&p, o, in)) < 0)
                    goto end;
                if (!started++ && sink->start && (err = sink->start(sink->opaque)) < 0)
                    goto end;
            }
            err = feed(&p, in);
            av_frame_unref(in);
            if (err < 0)
                goto end;
        }
        if ((err = state = pull(&p, sink, out, &nb_out)) < 0)
            goto end;
    }
    err = 0;
    if (!nb_out)
        av_log(NULL, AV_LOG_WARNING, "the filter graph output no frame\n");
end:
    av_frame_free(&in);
    av_frame_free(&out);
    pipeline_close(&p);
    return err;
}
