# bench-backend (tools/bench-backend.c): device time per frame of one
# backend's estimate, driven without FFmpeg (tools/bench.sh, bench-gpu.sh and
# profile-gpu.sh run it; usage at the head of its source).
#
#   make -f tools/bench-backend.mak BUILDDIR=<build dir> GPUME_CUDA=yes|no \
#       GPUME_OPENCL=yes|no <build dir>/tools/bench-backend
#
# It links what tests/backendcheck links: the CPU backend, and the CUDA and
# OpenCL host code and kernels of the FFmpeg build in $(FFMPEG_BUILD) for the
# backends named yes; that set is defined once, in tests/tests.mak.

GPUME_TOOLS_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
include $(GPUME_TOOLS_DIR)/../tests/tests.mak
.DEFAULT_GOAL := $(BUILDDIR)/tools/bench-backend

$(BUILDDIR)/tools/bench-backend: $(GPUME_TOOLS_DIR)/bench-backend.c $(GPU_TEST_DEPS)
	@mkdir -p $(@D)
	$(CC) $(GPU_TEST_CPPFLAGS) $(CHECKME_CFLAGS) -o $@ $< $(filter %.c %.o,$(GPU_TEST_DEPS)) $(CHECKME_LIBS) $(GPU_TEST_LIBS) -ldl
