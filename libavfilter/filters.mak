# The filters of this repository and the objects each one links, written the
# way FFmpeg's libavfilter/Makefile lists them. tools/overlay.sh (the build)
# and tools/make-patch.sh (make patch) read this file; nothing else needs
# editing to add a filter or a source file.
#
# Adding a filter X (source libavfilter/vf_X.c defining ff_vf_X):
#   OBJS-$(CONFIG_X_FILTER)        += objects always linked with the filter
#   CUDA-OBJS-$(CONFIG_X_FILTER)   += objects linked when FFmpeg has CUDA
#                                     (cuda_llvm or cuda_nvcc): host code and
#                                     kernels, cuda/Y.cu -> Y.ptx.o
#   OPENCL-OBJS-$(CONFIG_X_FILTER) += objects linked when FFmpeg has OpenCL:
#                                     host code and kernels, opencl/Y.cl ->
#                                     opencl/Y.o (source string ff_source_Y_cl);
#                                     a header libavfilter/Y.h the kernels
#                                     need is embedded as opencl/Y_h.o
#                                     (source string ff_source_Y_h_cl)
#   X86ASM-OBJS-$(CONFIG_X_FILTER) += x86 objects, built when FFmpeg has
#                                     x86 assembly (libavfilter/x86/Makefile):
#                                     x86/Y.o from libavfilter/x86/Y.asm or .c
# - Object names are relative to libavfilter/, as in FFmpeg. Each filter
#   lists everything it needs; an object shared by two filters appears under
#   both (FFmpeg links it once), e.g. opencl.o, cuda/load_helper.o.
# - The filter's name comes from CONFIG_X_FILTER; its declaration in
#   allfilters.c (ff_vf_X, ff_af_X, ... from the vf_X.o / af_X.o object)
#   takes the form the FFmpeg version needs (const AVFilter in 7.1, const
#   FFFilter from 8.0 on).
# - FATE: fate/X.mak, when present, is included in tests/Makefile; its
#   references live in fate/ref/.
# - Every libavfilter/*.c of the repository must appear in some list
#   (overlay.sh warns otherwise); headers are copied as they are.
# - Continuation lines (ending in \) are allowed; one list per line type and
#   filter is the rule.

OBJS-$(CONFIG_GPUME_FILTER)        += vf_gpume.o gpume_cpu.o gpume_device.o gpume_params.o gpume_vme.o
X86ASM-OBJS-$(CONFIG_GPUME_FILTER) += x86/gpume_dsp_init.o x86/gpume_dsp.o
CUDA-OBJS-$(CONFIG_GPUME_FILTER)   += gpume_cuda.o gpume_cuda_staging.o gpume.ptx.o cuda/load_helper.o
OPENCL-OBJS-$(CONFIG_GPUME_FILTER) += gpume_opencl.o gpume_vme_opencl.o gpume_opencl_program.o opencl.o \
                                      opencl/gpume.o opencl/gpume_vme.o          \
                                      opencl/gpume_h.o opencl/gpume_dis_h.o opencl/gpume_kernel_h.o \
                                      opencl/gpume_opencl_h.o opencl/gpume_vme_h.o

OBJS-$(CONFIG_MCFPS_FILTER)        += vf_mcfps.o mcfps_cpu.o gpume_device.o
X86ASM-OBJS-$(CONFIG_MCFPS_FILTER) += x86/mcfps_dsp_init.o x86/mcfps_dsp.o
CUDA-OBJS-$(CONFIG_MCFPS_FILTER)   += mcfps_cuda.o gpume_cuda_staging.o mcfps.ptx.o cuda/load_helper.o
OPENCL-OBJS-$(CONFIG_MCFPS_FILTER) += mcfps_opencl.o gpume_opencl_program.o opencl.o \
                                      opencl/mcfps.o opencl/mcfps_h.o
