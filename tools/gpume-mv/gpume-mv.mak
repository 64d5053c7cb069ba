# gpume-mv (tools/gpume-mv/, docs/gpume-mv.md): dumps and evaluates motion
# vectors, linked against the static FFmpeg libraries of the build.
#
# Included by the top Makefile (targets gpume-mv and $(BUILDDIR)/gpume-mv,
# built by 'make' and 'make check') and by tests/tests.mak (mvcheck links
# GPUME_MV_CORE_SRCS), or run alone:
#   make -f tools/gpume-mv/gpume-mv.mak BUILDDIR=<build dir> <build dir>/gpume-mv
# It needs the FFmpeg build in $(FFMPEG_BUILD) (libraries and generated
# headers) and its source tree $(FFMPEG_TREE).

GPUME_MV_DIR      := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
BUILDDIR          ?= build
FFMPEG_TREE       ?= $(BUILDDIR)/ffmpeg-tree
FFMPEG_BUILD      ?= $(BUILDDIR)/ffmpeg

# the files that use libavutil only (tests/mvcheck.c links them), then the
# input and filter graph and the command line
GPUME_MV_CORE_SRCS := $(addprefix $(GPUME_MV_DIR)/,metrics.c truth.c eval.c table.c dump.c)
GPUME_MV_SRCS      := $(GPUME_MV_CORE_SRCS) $(addprefix $(GPUME_MV_DIR)/,pipeline.c main.c)
# gpume-mv.h, and libavfilter/gpume.h of this checkout (gpume_sample_qpel)
GPUME_MV_HDRS      := $(GPUME_MV_DIR)/gpume-mv.h $(GPUME_MV_DIR)/../../libavfilter/gpume.h

GPUME_MV_CFLAGS   ?= -O2 -g -std=c17 -Wall -Wextra -Wno-sign-compare -Wno-unused-parameter
# this checkout first (tools/gpume-mv/gpume-mv.h, libavfilter/gpume.h), then
# FFmpeg's headers and its generated ones (config.h, libavutil/avconfig.h)
GPUME_MV_CPPFLAGS := -I$(GPUME_MV_DIR)/../.. -I$(FFMPEG_TREE) -I$(FFMPEG_BUILD)
# in link order: each library before the ones it uses
# (libpostproc: a --enable-gpl build of FFmpeg 7.1 has it, for the pp filter)
GPUME_MV_FFLIBS   := avfilter $(if $(wildcard $(FFMPEG_BUILD)/libpostproc/libpostproc.a),postproc) \
                     swscale avformat avcodec swresample avutil
GPUME_MV_LIBA     := $(foreach l,$(GPUME_MV_FFLIBS),$(FFMPEG_BUILD)/lib$(l)/lib$(l).a)
# the system libraries those static libraries were configured with
GPUME_MV_LIBS      = $(GPUME_MV_LIBA)                                                        \
                     $(shell sed -n 's/^EXTRALIBS=//p;$(foreach l,$(GPUME_MV_FFLIBS),s/^EXTRALIBS-$(l)=//p;)' \
                                    $(FFMPEG_BUILD)/ffbuild/config.mak 2>/dev/null)           \
                     -lm -lpthread

$(BUILDDIR)/gpume-mv: $(GPUME_MV_SRCS) $(GPUME_MV_HDRS) $(GPUME_MV_LIBA)
	@mkdir -p $(@D)
	$(CC) $(GPUME_MV_CPPFLAGS) $(GPUME_MV_CFLAGS) -o $@ $(GPUME_MV_SRCS) $(GPUME_MV_LIBS)
