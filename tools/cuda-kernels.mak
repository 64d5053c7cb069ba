# How the CUDA kernels (libavfilter/X.cu) are embedded: included at the end
# of FFmpeg's Makefile in the build directory through gpume-kernels.mak,
# which tools/ffmpeg-configure.sh writes there; the FFmpeg tree (and the
# patch of make patch) keeps FFmpeg's own rules.
#
# FFmpeg's rules compile X.cu to PTX (X.ptx), which the driver compiles for
# the GPU when the module is loaded: seconds on a fresh machine. With
# GPUME_CUBIN_ARCHS set, X.ptx.c embeds a fatbin instead: a cubin per
# architecture, compiled from that PTX by ptxas, and the PTX itself for the
# other GPUs. The data keeps its name (ff_X_ptx_data, ff_X_ptx_len) and
# compression: ff_cuda_load_module() passes either form to cuModuleLoadData(),
# which tells them apart by their header.
#
# variables (gpume-kernels.mak): GPUME_CUBIN_ARCHS (e.g. sm_80 sm_90 sm_100;
# empty: PTX only), GPUME_PTXAS, GPUME_FATBINARY

GPUME_KERNELS_RULES := $(lastword $(MAKEFILE_LIST))
GPUME_KERNELS       := $(patsubst $(SRC_PATH)/%.cu,%,$(wildcard $(SRC_PATH)/libavfilter/*.cu))

# embedded again when the choice of form changes
$(GPUME_KERNELS:%=%.ptx.c): gpume-kernels.mak $(GPUME_KERNELS_RULES)

ifneq ($(GPUME_CUBIN_ARCHS),)
# the fatbin's PTX entry names the architecture the PTX was written for
# (.target, sm_30 by default), the lowest the driver JIT-compiles it for
%.fatbin: TAG = FATBIN
%.fatbin: %.ptx
	$(M)set -e;                                                                    \
	sm=$$(sed -n 's/^\.target[[:space:]]*sm_\([0-9]*\).*/\1/p' $<);                \
	bits=$$(sed -n 's/^\.address_size[[:space:]]*\([0-9]*\).*/\1/p' $<);           \
	for a in $(GPUME_CUBIN_ARCHS); do                                              \
	    $(GPUME_PTXAS) -arch=$$a -o $@.$$a.cubin $<;                               \
	done;                                                                          \
	$(GPUME_FATBINARY) --create=$@ --$${bits:-64}                                  \
	    $(foreach a,$(GPUME_CUBIN_ARCHS),--image3=kind=elf,sm=$(a:sm_%=%),file=$@.$(a).cubin) \
	    --image3=kind=ptx,sm=$$sm,file=$<;                                         \
	rm -f $(GPUME_CUBIN_ARCHS:%=$@.%.cubin)

ifneq ($(CONFIG_PTX_COMPRESSION)$(CONFIG_SHADER_COMPRESSION),)
%.fatbin.gz: TAG = GZIP
%.fatbin.gz: %.fatbin
	$(M)gzip -nc9 $< >$@

$(GPUME_KERNELS:%=%.ptx.c): %.ptx.c: %.fatbin.gz $(BIN2CEXE)
	$(BIN2C) $< $@ $(subst .,_,$(basename $(notdir $@)))
else
$(GPUME_KERNELS:%=%.ptx.c): %.ptx.c: %.fatbin $(BIN2CEXE)
	$(BIN2C) $< $@ $(subst .,_,$(basename $(notdir $@)))
endif

.SECONDARY: $(GPUME_KERNELS:%=%.fatbin) $(GPUME_KERNELS:%=%.fatbin.gz)

clean::
	$(RM) $(GPUME_KERNELS:%=%.fatbin) $(GPUME_KERNELS:%=%.fatbin.gz)
endif
