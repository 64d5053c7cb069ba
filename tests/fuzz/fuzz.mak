# libFuzzer target of the gpume filter (tests/fuzz/target_gpume_fuzzer.c),
# included from the top Makefile after config.mak.
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_JOBS=1] [FUZZ_ARGS=...]
#
# builds a second, minimal FFmpeg (libavutil and libavfilter with the buffer,
# buffersink and gpume filters, OpenCL when available) with clang under
# AddressSanitizer and UndefinedBehaviorSanitizer in $(FUZZ_DIR)/ffmpeg,
# links the target against it with -fsanitize=fuzzer and runs it for
# FUZZ_SECONDS on the seed corpus (tests/fuzz/corpus) plus the corpus it grew
# ($(FUZZ_DIR)/corpus). A crash leaves crash-* / leak-* / timeout-* files in
# $(FUZZ_DIR)/artifacts and fails the target; reproduce one with
#   $(FUZZ_DIR)/target_gpume_fuzzer FILE
# The sources come from the same overlaid tree as the main build.

FUZZ_DIR     := $(BUILDDIR)/fuzz
FUZZ_FFBUILD := $(FUZZ_DIR)/ffmpeg
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_JOBS    ?= 1
FUZZ_SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -g
# mcfps joins the graph (gpume=dir=bi,mcfps) for inputs with flag bit 1 once
# the filter exists
FUZZ_COMMA   := ,
FUZZ_FILTERS := buffer,buffersink,gpume,null$(if $(wildcard libavfilter/vf_mcfps.c),$(FUZZ_COMMA)mcfps)
FUZZ_CCACHE  := $(if $(shell command -v ccache),ccache )
# FFmpeg's own options come from tools/ffmpeg-configure.sh (its minimal
# set); these follow them and win: nothing but what the filter graph needs
FUZZ_FFMPEG_FLAGS := --disable-everything --disable-programs --disable-avdevice \
    --disable-avformat --disable-avcodec --disable-swresample --disable-swscale \
    --disable-zlib --enable-filter=$(FUZZ_FILTERS) \
    --extra-cflags='$(FUZZ_SAN) -fsanitize=fuzzer-no-link' --extra-ldflags='$(FUZZ_SAN)'

FUZZ_LIBS = $(FUZZ_FFBUILD)/libavfilter/libavfilter.a $(FUZZ_FFBUILD)/libavutil/libavutil.a

fuzz-ffmpeg: overlay
	@$(SHELL) tests/fuzz/deps.sh $(FUZZ_CC)
	@mkdir -p $(FUZZ_DIR)
	CUDA=no MINIMAL=yes FFMPEG_CC='$(FUZZ_CCACHE)$(FUZZ_CC)' EXTRA_FFMPEG_FLAGS="$(FUZZ_FFMPEG_FLAGS)" \
	    $(SHELL) tools/ffmpeg-configure.sh $(FUZZ_DIR) $(TREE)
	+$(MAKE) -C $(FUZZ_FFBUILD) $(SUBJOBS) libavutil/libavutil.a libavfilter/libavfilter.a

.PHONY: fuzz-ffmpeg

FUZZ_TARGET  := $(FUZZ_DIR)/target_gpume_fuzzer
FUZZ_SRC     := tests/fuzz/target_gpume_fuzzer.c
FUZZ_INC      = -I$(TREE) -I$(FUZZ_FFBUILD)
# the libraries FFmpeg's configuration linked (OpenCL, libm, pthreads)
FUZZ_EXTRALIBS = $(shell sed -n 's/^EXTRALIBS-avfilter=//p;s/^EXTRALIBS-avutil=//p;s/^EXTRALIBS=//p' \
                          $(FUZZ_FFBUILD)/ffbuild/config.mak 2>/dev/null) -lm -lpthread

$(FUZZ_TARGET): $(FUZZ_SRC) $(FUZZ_LIBS)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -O1 -Wall $(FUZZ_INC) -o $@ $(FUZZ_SRC) \
	    $(FUZZ_LIBS) $(FUZZ_EXTRALIBS)

# LeakSanitizer: PoCL and the OpenCL loader keep what they allocate until exit.
# intercept_tls_get_addr=0: up to LLVM 16 the runtime's __tls_get_addr hook
# takes a malloc'd block of a dlopen'ed library's TLS (PoCL's) that happens to
# sit at a certain page offset for a pre-2.25 glibc header, and the leak
# checker's tracer then dies on a wild read ("Tracer caught signal 11") at
# random, with no leak to report
FUZZ_ENV = ASAN_OPTIONS=abort_on_error=1:detect_leaks=1:quarantine_size_mb=64:intercept_tls_get_addr=0 \
           LSAN_OPTIONS=suppressions=$(abspath tests/fuzz/lsan.supp) \
           UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 POCL_CACHE_DIR=$(abspath $(FUZZ_DIR))/pocl-cache

# FFmpeg's make decides whether the libraries are up to date, then the link
fuzz-target: fuzz-ffmpeg
	+$(MAKE) --no-print-directory $(FUZZ_TARGET)

fuzz: fuzz-target
	@mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/artifacts
	$(FUZZ_ENV) $(FUZZ_TARGET) -max_total_time=$(FUZZ_SECONDS) \
	    $(if $(filter-out 1,$(FUZZ_JOBS)),-fork=$(FUZZ_JOBS)) \
	    -timeout=120 -rss_limit_mb=4096 -max_len=4096 -print_final_stats=1 \
	    -artifact_prefix=$(abspath $(FUZZ_DIR))/artifacts/ $(FUZZ_ARGS) \
	    $(FUZZ_DIR)/corpus tests/fuzz/corpus

.PHONY: fuzz fuzz-target
