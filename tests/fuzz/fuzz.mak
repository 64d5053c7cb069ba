# libFuzzer targets of the gpume filter (tests/fuzz/target_gpume_fuzzer.c)
# and of mcfps on vectors of any producer (tests/fuzz/target_mcfps_fuzzer.c),
# included from the top Makefile after config.mak.
#
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_JOBS=1] [FUZZ_ARGS=...]
#   make fuzz-mcfps [FUZZ_SECONDS=60] [FUZZ_JOBS=1] [FUZZ_ARGS=...]
#
# builds a second, minimal FFmpeg (libavutil and libavfilter with the buffer,
# buffersink, gpume and mcfps filters, OpenCL when available) with clang under
# AddressSanitizer and UndefinedBehaviorSanitizer in $(FUZZ_DIR)/ffmpeg,
# links the target against it with -fsanitize=fuzzer and runs it for
# FUZZ_SECONDS on the seed corpus (tests/fuzz/corpus) plus the corpus it grew
# ($(FUZZ_DIR)/corpus). A crash leaves crash-* / leak-* / timeout-* files in
# $(FUZZ_DIR)/artifacts and fails the target; reproduce one with
#   $(FUZZ_DIR)/target_gpume_fuzzer FILE
# fuzz-mcfps links the other target against the same FFmpeg and runs it the
# same way on tests/fuzz/corpus-mcfps, growing $(FUZZ_DIR)/corpus-mcfps,
# failures in $(FUZZ_DIR)/artifacts-mcfps.
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
FUZZ_INC      = -I$(TREE) -I$(FUZZ_FFBUILD)
# the libraries FFmpeg's configuration linked (OpenCL, libm, pthreads)
FUZZ_EXTRALIBS = $(shell sed -n 's/^EXTRALIBS-avfilter=//p;s/^EXTRALIBS-avutil=//p;s/^EXTRALIBS=//p' \
                          $(FUZZ_FFBUILD)/ffbuild/config.mak 2>/dev/null) -lm -lpthread

FUZZ_MCFPS_TARGET := $(FUZZ_DIR)/target_mcfps_fuzzer

# each target from tests/fuzz/NAME.c
$(FUZZ_TARGET) $(FUZZ_MCFPS_TARGET): $(FUZZ_DIR)/%: tests/fuzz/%.c tests/fuzz/fuzz_input.h $(FUZZ_LIBS)
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -O1 -Wall $(FUZZ_INC) -o $@ $< \
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

# fuzz_run TARGET,SUFFIX,TIMEOUT,MAX_LEN: run TARGET on tests/fuzz/corpusSUFFIX
# and the corpus it grows, failures in artifactsSUFFIX
fuzz_run = @mkdir -p $(FUZZ_DIR)/corpus$(2) $(FUZZ_DIR)/artifacts$(2); \
	$(FUZZ_ENV) $(1) -max_total_time=$(FUZZ_SECONDS) \
	    $(if $(filter-out 1,$(FUZZ_JOBS)),-fork=$(FUZZ_JOBS)) \
	    -timeout=$(3) -rss_limit_mb=4096 -max_len=$(4) -print_final_stats=1 \
	    -artifact_prefix=$(abspath $(FUZZ_DIR))/artifacts$(2)/ $(FUZZ_ARGS) \
	    $(FUZZ_DIR)/corpus$(2) tests/fuzz/corpus$(2)

fuzz: fuzz-target
	$(call fuzz_run,$(FUZZ_TARGET),,120,4096)

# mcfps's inputs carry vector lists (16 bytes a vector); its budgets keep an
# input to seconds, so 60 s is a hang
fuzz-mcfps-target: fuzz-ffmpeg
	+$(MAKE) --no-print-directory $(FUZZ_MCFPS_TARGET)

fuzz-mcfps: fuzz-mcfps-target
	$(call fuzz_run,$(FUZZ_MCFPS_TARGET),-mcfps,60,8192)

.PHONY: fuzz fuzz-target fuzz-mcfps fuzz-mcfps-target
