/*
 * gpume: Intel device-side VME kernels (algo=vme). They need the OpenCL
 * extension cl_intel_device_side_avc_motion_estimation, which only Intel
 * Gen9-Gen11 GPUs with Intel's compute runtime have; the host checks it
 * before building this program (gpume_vme_opencl.c). The host prepends
 * gpume.h and gpume_opencl.h and builds with -cl-std=CL2.0.
 *
 * Every kernel runs one sub-group of 16 work-items per 16x16 macroblock
 * (work-group 16 x 1, group (mb_x, mb_y)); the VME built-ins are sub-group
 * functions, every work-item of the group must call them.
 *
 * Pipeline of one estimate (docs/ALGORITHMS.md, "vme"):
 *   gpume_vme_downscale   tiers 1..3 of each picture (2x2 means)
 *   gpume_vme_hme         tier 3, 2, 1: 16x16 IME around the predictor of
 *                         the coarser tier (none at tier 3), writes one
 *                         predictor per macroblock, doubled for the next tier
 *   gpume_vme_search      tier 0: IME around the tier-1 predictor with the
 *                         partition mask, optionally chained by stream-out /
 *                         stream-in with a second window around (0,0), then
 *                         half/quarter-pel refinement (REF); writes GpumeVmeMB
 * The vectors are hardware-defined: not bit-exact with the CPU reference.
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

#pragma OPENCL EXTENSION cl_intel_device_side_avc_motion_estimation : enable

/* the shape codes gpume_vme.c decodes are the extension's */
#if CLK_AVC_ME_MAJOR_16x16_INTEL != GPUME_VME_MAJOR_16x16 || CLK_AVC_ME_MAJOR_16x8_INTEL != GPUME_VME_MAJOR_16x8 || \
    CLK_AVC_ME_MAJOR_8x16_INTEL != GPUME_VME_MAJOR_8x16 || CLK_AVC_ME_MAJOR_8x8_INTEL != GPUME_VME_MAJOR_8x8 || \
    CLK_AVC_ME_MINOR_8x8_INTEL != GPUME_VME_MINOR_8x8 || CLK_AVC_ME_MINOR_8x4_INTEL != GPUME_VME_MINOR_8x4 || \
    CLK_AVC_ME_MINOR_4x8_INTEL != GPUME_VME_MINOR_4x8 || CLK_AVC_ME_MINOR_4x4_INTEL != GPUME_VME_MINOR_4x4
#error "VME shape codes differ from gpume_opencl.h"
#endif

/* the media sampler state that the VME built-ins take */
__constant sampler_t vme_sampler = CLK_AVC_ME_INITIALIZE_INTEL;
__constant sampler_t nearest = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE |
                               CLK_FILTER_NEAREST;

/**
 * One pixel of tier t + 1 from tier t: the mean of the 2x2 pixels at
 * (2x, 2y), clamped into tier t (images CL_R, CL_UNORM_INT8).
 */
__kernel void gpume_vme_downscale(__read_only image2d_t src, __write_only image2d_t dst)
{
    const int x = get_global_id(0), y = get_global_id(1);
    float v;

    if (x >= get_image_width(dst) || y >= get_image_height(dst))
        return;
    v = read_imagef(src, nearest, (int2)(2 * x,     2 * y)).x +
        read_imagef(src, nearest, (int2)(2 * x + 1, 2 * y)).x +
        read_imagef(src, nearest, (int2)(2 * x,     2 * y + 1)).x +
        read_imagef(src, nearest, (int2)(2 * x + 1, 2 * y + 1)).x;
    write_imagef(dst, (int2)(x, y), (float4)(0.25f * v, 0.0f, 0.0f, 1.0f));
}

/** CLK_AVC_ME_SEARCH_WINDOW_*_INTEL of an enum GpumeVmeWindow (AUTO resolved by the host). */
static uchar vme_window_config(int w)
{
    switch (w) {
    case GPUME_VME_WINDOW_SMALL:         return CLK_AVC_ME_SEARCH_WINDOW_SMALL_INTEL;
    case GPUME_VME_WINDOW_TINY:          return CLK_AVC_ME_SEARCH_WINDOW_TINY_INTEL;
    case GPUME_VME_WINDOW_EXTRA_TINY:    return CLK_AVC_ME_SEARCH_WINDOW_EXTRA_TINY_INTEL;
    case GPUME_VME_WINDOW_DIAMOND:       return CLK_AVC_ME_SEARCH_WINDOW_DIAMOND_INTEL;
    case GPUME_VME_WINDOW_LARGE_DIAMOND: return CLK_AVC_ME_SEARCH_WINDOW_LARGE_DIAMOND_INTEL;
    default:                             return CLK_AVC_ME_SEARCH_WINDOW_EXHAUSTIVE_INTEL;
    }
}

/** Quarter-pel predictor of macroblock (mx, my) from the coarser tier, doubled; (0,0) without one. */
static short2 vme_predictor(__global const short2 *pred, GpumeVmeArgs a, int mx, int my)
{
    if (!a.pred_cols)
        return (short2)(0, 0);
    return pred[min(my >> 1, a.pred_rows - 1) * a.pred_cols + min(mx >> 1, a.pred_cols - 1)] * (short)2;
}

/**
 * Integer reference offset of the search window centred on the quarter-pel
 * vector mv, moved inside the picture (the hardware requires it there).
 */
static short2 vme_window(short2 mv, uchar window, ushort2 src_coord, GpumeVmeArgs a)
{
    const ushort2 size = intel_sub_group_avc_ime_ref_window_size(window, 0);
    short2 off = (short2)(mv.x >> 2, mv.y >> 2) - convert_short2((size - (ushort2)(GPUME_VME_MB)) / (ushort2)2);
    return intel_sub_group_avc_ime_adjust_ref_offset(off, src_coord, size,
                                                     (ushort2)(a.width, a.height));
}

/** IME payload: the window, the cost of |mv - cost_centre| from the QP's table, shape penalties. */
static intel_sub_group_avc_ime_payload_t vme_payload(ushort2 src_coord, short2 ref_offset,
                                                     short2 cost_centre, uchar mask,
                                                     uchar window, uchar qp)
{
    const uchar slice = CLK_AVC_ME_SLICE_TYPE_PRED_INTEL;
    const uint centre = as_uint(cost_centre);
    intel_sub_group_avc_ime_payload_t p =
        intel_sub_group_avc_ime_initialize(src_coord, mask, CLK_AVC_ME_SAD_ADJUST_MODE_NONE_INTEL);

    p = intel_sub_group_avc_ime_set_single_reference(ref_offset, window, p);
    p = intel_sub_group_avc_ime_set_motion_vector_cost_function(
            (ulong)centre << 32 | centre,
            intel_sub_group_avc_mce_get_default_inter_motion_vector_cost_table(slice, qp),
            CLK_AVC_ME_COST_PRECISION_QPEL_INTEL, p);
    p = intel_sub_group_avc_ime_set_inter_shape_penalty(
            intel_sub_group_avc_mce_get_default_inter_shape_penalty(slice, qp), p);
    p = intel_sub_group_avc_ime_set_inter_base_multi_reference_penalty(
            intel_sub_group_avc_mce_get_default_inter_base_multi_reference_penalty(slice, qp), p);
    return p;
}

/**
 * HME tier: 16x16 IME of each macroblock of this tier around the coarser
 * tier's predictor; pred_out gets the winning quarter-pel vector (this
 * tier's units) per macroblock, raster order, mb_cols x mb_rows.
 */
__kernel __attribute__((reqd_work_group_size(16, 1, 1)))
__attribute__((intel_reqd_sub_group_size(16)))
void gpume_vme_hme(GpumeVmeArgs a, __read_only image2d_t src, __read_only image2d_t ref,
                   __global const short2 *pred_in, __global short2 *pred_out)
{
    const int mx = get_group_id(0), my = get_group_id(1);
    const ushort2 src_coord = (ushort2)(mx * GPUME_VME_MB, my * GPUME_VME_MB);
    const uchar window = vme_window_config(a.window);
    const short2 pred = vme_predictor(pred_in, a, mx, my);
    intel_sub_group_avc_ime_payload_t p =
        vme_payload(src_coord, vme_window(pred, window, src_coord, a), pred,
                    CLK_AVC_ME_PARTITION_MASK_16x16_INTEL, window, a.qp);
    intel_sub_group_avc_ime_result_t r =
        intel_sub_group_avc_ime_evaluate_with_single_reference(src, ref, vme_sampler, p);
    const ulong mvs = intel_sub_group_avc_ime_get_motion_vectors(r);

    if (mx < a.mb_cols && my < a.mb_rows && get_sub_group_local_id() == 0)
        pred_out[my * a.mb_cols + mx] = as_short2(as_uint2(mvs).s0);
}

/**
 * Full-resolution search: IME with the partition mask around the tier-1
 * predictor (and, with chain_zero, a second window around (0,0) that
 * continues the first through stream-out/stream-in, so that the better of
 * both wins per partition), then REF to half or quarter pel. Writes one
 * GpumeVmeMB per macroblock, raster order.
 */
__kernel __attribute__((reqd_work_group_size(16, 1, 1)))
__attribute__((intel_reqd_sub_group_size(16)))
void gpume_vme_search(GpumeVmeArgs a, __read_only image2d_t src, __read_only image2d_t ref,
                      __global const short2 *pred_in, __global GpumeVmeMB *out)
{
    const int mx = get_group_id(0), my = get_group_id(1), lane = get_sub_group_local_id();
    const ushort2 src_coord = (ushort2)(mx * GPUME_VME_MB, my * GPUME_VME_MB);
    const uchar window = vme_window_config(a.window), qp = a.qp;
    const uchar mask = a.all_partitions ? CLK_AVC_ME_PARTITION_MASK_ALL_INTEL
                                        : CLK_AVC_ME_PARTITION_MASK_16x16_INTEL;
    const short2 pred = vme_predictor(pred_in, a, mx, my);
    const short2 zero = (short2)(0, 0);
    intel_sub_group_avc_ime_payload_t p =
        vme_payload(src_coord, vme_window(pred, window, src_coord, a), pred, mask, window, qp);
    intel_sub_group_avc_ime_result_t r;
    ulong mvs;
    ushort dist;
    uchar major, minor, dir;

    if (a.chain_zero) {
        intel_sub_group_avc_ime_result_single_reference_streamout_t so =
            intel_sub_group_avc_ime_evaluate_with_single_reference_streamout(src, ref, vme_sampler, p);
        intel_sub_group_avc_ime_single_reference_streamin_t si =
            intel_sub_group_avc_ime_get_single_reference_streamin(so);
        p = vme_payload(src_coord, vme_window(zero, window, src_coord, a), pred, mask, window, qp);
        r = intel_sub_group_avc_ime_evaluate_with_single_reference_streamin(src, ref, vme_sampler, p, si);
    } else {
        r = intel_sub_group_avc_ime_evaluate_with_single_reference(src, ref, vme_sampler, p);
    }
    mvs   = intel_sub_group_avc_ime_get_motion_vectors(r);
    dist  = intel_sub_group_avc_ime_get_inter_distortions(r);
    major = intel_sub_group_avc_ime_get_inter_major_shape(r);
    minor = intel_sub_group_avc_ime_get_inter_minor_shapes(r);
    dir   = intel_sub_group_avc_ime_get_inter_directions(r);

    if (a.subpel) {
        const uchar mode = a.subpel == 1 ? CLK_AVC_ME_SUBPIXEL_MODE_HPEL_INTEL
                                         : CLK_AVC_ME_SUBPIXEL_MODE_QPEL_INTEL;
        const uchar slice = CLK_AVC_ME_SLICE_TYPE_PRED_INTEL;
        const uint centre = as_uint(pred);
        intel_sub_group_avc_ref_payload_t rp =
            intel_sub_group_avc_fme_initialize(src_coord, mvs, major, minor, dir, mode,
                                               CLK_AVC_ME_SAD_ADJUST_MODE_NONE_INTEL);
        intel_sub_group_avc_ref_result_t rr;

        rp = intel_sub_group_avc_ref_set_motion_vector_cost_function(
                 (ulong)centre << 32 | centre,
                 intel_sub_group_avc_mce_get_default_inter_motion_vector_cost_table(slice, qp),
                 CLK_AVC_ME_COST_PRECISION_QPEL_INTEL, rp);
        rp = intel_sub_group_avc_ref_set_inter_shape_penalty(
                 intel_sub_group_avc_mce_get_default_inter_shape_penalty(slice, qp), rp);
        rr = intel_sub_group_avc_ref_evaluate_with_single_reference(src, ref, vme_sampler, rp);
        mvs   = intel_sub_group_avc_ref_get_motion_vectors(rr);
        dist  = intel_sub_group_avc_ref_get_inter_distortions(rr);
        major = intel_sub_group_avc_ref_get_inter_major_shape(rr);
        minor = intel_sub_group_avc_ref_get_inter_minor_shapes(rr);
    }

    if (mx < a.mb_cols && my < a.mb_rows) {
        __global GpumeVmeMB *mb = &out[my * a.mb_cols + mx];
        const short2 mv = as_short2(as_uint2(mvs).s0);
        mb->mv[lane][0] = mv.x;
        mb->mv[lane][1] = mv.y;
        mb->dist[lane]  = dist;
        if (lane == 0) {
            mb->major = major;
            mb->minor = minor;
            mb->dir   = dir;
            mb->pad   = 0;
        }
    }
}
