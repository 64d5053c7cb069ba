/*
 * gpume: OpenCL kernels (OpenCL C 1.2, integer only, no subgroups; inline
 * PTX for the byte SAD where the host sets GPUME_OCL_PTX=1). They
 * reproduce the CPU reference (docs/ALGORITHMS.md) bit for bit: every
 * arg-min is a minimum of (cost, index) keys, so work-item order never
 * matters. The host prepends gpume.h, gpume_kernel.h and gpume_opencl.h and
 * builds with -DGPUME_CTU=16|32|64 (the CTU size of the PU-table search;
 * at 32 the program holds full's kernels of their own too).
 * Local memory comes as __local kernel arguments declared from the lists of
 * gpume_opencl.h, which the host sizes from the same lists.
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

#define NT GPUME_KERNEL_THREADS

/* the search kernels' buffers, after their GpumeSearchArgs */
#define SEARCH_BUFFERS                                                        \
    __global const uchar *cur_buf, __global const uchar *ref_buf,            \
    __global const short *pred, __global GpumeHmeCoarse *coarse,             \
    __global ulong *pu_keys, __global const GpumePU *pu_table,               \
    __global const ushort *fixed_pus, __global GpumeBlock *blocks,           \
    __global ushort *counts

/** Work-group minimum of one key per work-item; all get the result. */
static ulong wg_min_key(ulong key, __local ulong *red, int tid, int nt)
{
    red[tid] = key;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = nt / 2; s > 0; s >>= 1) {
        if (tid < s && red[tid + s] < red[tid])
            red[tid] = red[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    key = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return key;
}

/**
 * The keys of PUs shared by G work-items, red[g * nb + j] for g < G,
 * reduced into red[j] (a tree over g). Called by all work-items.
 */
static void reduce_groups(__local ulong *red, int nb, int G)
{
    const int tid = get_local_id(0);
    int s = 1;

    while (s < G)
        s <<= 1;
    for (s >>= 1; s > 0; s >>= 1) {
        if (tid < s * nb && tid + s * nb < G * nb && red[tid + s * nb] < red[tid])
            red[tid] = red[tid + s * nb];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

#if GPUME_OCL_PTX
/** Sum of |a_i - b_i| over the four bytes of a and b, plus c (one PTX video instruction). */
static inline uint sad4(uint a, uint b, uint c)
{
    uint d;
    asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

/*
 * Warp votes and shuffles, all 32 lanes taking part: NVIDIA runs work-items
 * 32 w .. 32 w + 31 of a work-group as warp w.
 */
static inline uint warp_ballot(int p)
{
    uint r;
    asm volatile("{ .reg .pred q; setp.ne.s32 q, %1, 0; vote.sync.ballot.b32 %0, q, 0xffffffff; }"
                 : "=r"(r) : "r"(p));
    return r;
}

static inline uint warp_xor(uint v, int m)
{
    asm volatile("shfl.sync.bfly.b32 %0, %0, %1, 0x1f, 0xffffffff;" : "+r"(v) : "r"(m));
    return v;
}
#else
/** Sum of |a_i - b_i| over the four bytes of a and b, plus c. */
static inline uint sad4(uint a, uint b, uint c)
{
    const uint4 d = convert_uint4(abs_diff(as_uchar4(a), as_uchar4(b)));
    return c + d.x + d.y + d.z + d.w;
}
#endif

/** Bytes s..s+3 of the 8 bytes lo, hi (little-endian; s = 1, 2 or 3): a funnel shift. */
static inline uint bytes_at(uint lo, uint hi, int s)
{
    return lo >> (8 * s) | hi << (32 - 8 * s);
}

/** SAD of the w x h block at (x, y) of cur against ref displaced by (dx, dy). */
static uint plane_sad(__global const uchar *cur, GpumePlane cp,
                      __global const uchar *ref, GpumePlane rp,
                      int x, int y, int w, int h, int dx, int dy)
{
    __global const uchar *c = cur + cp.offset + y * cp.pitch + x;
    __global const uchar *r = ref + rp.offset + (y + dy) * rp.pitch + x + dx;
    uint sad = 0;
    for (int j = 0; j < h; j++, c += cp.pitch, r += rp.pitch)
        for (int i = 0; i < w; i++)
            sad += abs_diff(c[i], r[i]);
    return sad;
}

/**
 * A picture's pyramid from its luma plane src (tightly packed), in one
 * launch, so that no level waits for another: every sample of every
 * level, the borders replicating the edges, straight from src
 * (gpume_pyramid_px()). Work-group g is block g of GpumePyramidArgs.
 */
__kernel void gpume_pyramid(__global const uchar *src, __global uchar *pic, GpumePyramidArgs a)
{
    const int g = get_group_id(0);
    int r = 0;
    while (r + 1 < a.nb_rects && g >= a.rect[r + 1].first_block)
        r++;
    {
        const GpumePyramidRect rc = a.rect[r];
        const GpumePlane d = a.level[rc.level];
        const int b = g - rc.first_block, cols = (rc.w + GPUME_PYR_BW - 1) / GPUME_PYR_BW;
        const int x = rc.x + b % cols * GPUME_PYR_BW + (int)get_local_id(0);
        const int y = rc.y + b / cols * GPUME_PYR_BH + (int)get_local_id(1);

        if (x >= rc.x + rc.w || y >= rc.y + rc.h)
            return;
        pic[d.offset + y * d.pitch + x] =
            gpume_pyramid_px(src, a.level[0].w, a.level[0].w, a.level[0].h, a.level[1].w, a.level[1].h,
                             rc.level, gpume_clip(x, 0, d.w - 1), gpume_clip(y, 0, d.h - 1));
    }
}

/** The temporal predictor of each CTU from an earlier estimate (pred=temporal). */
__kernel void gpume_predictor(GpumePredArgs a, __global const GpumeBlock *blocks,
                              __global const ushort *counts, __global short *pred)
{
    const int c = get_global_id(0);

    if (c < a.nb_ctus)
        gpume_ctu_predictor(blocks, counts, a.max_out, c, pred);
}

/** The 4 bytes at p, which need not be aligned (two aligned loads; little-endian). */
static inline uint load4_unaligned(__global const uchar *p)
{
    const uint o = (uint)((size_t)p & 3);
    __global const uint *w = (__global const uint *)(p - o);
    const ulong v = (ulong)w[1] << 32 | w[0];
    return (uint)(v >> (8 * o));
}

/** Bytes o..o+3 of the 8 bytes lo, hi (little-endian; o = 0..3): a funnel shift. */
static inline uint full_bytes(uint lo, uint hi, int o)
{
    return (uint)(upsample(hi, lo) >> (8 * o));
}

/**
 * The cols x rows samples at (x, y) of plane pl as words, pitch words per
 * row, 0 past cols and in the words after them; all work-items.
 */
static void load_words(__global const uchar *pic, GpumePlane pl, int x, int y, int cols, int rows,
                       int pitch, __local uint *dst)
{
    __global const uchar *src = pic + pl.offset + y * pl.pitch + x;
    for (int i = get_local_id(0); i < rows * pitch; i += NT) {
        const int row = i / pitch, w = 4 * (i - row * pitch);
        dst[i] = w < cols ? load4_unaligned(src + row * pl.pitch + w) & gpume_byte_mask(cols - w) : 0;
    }
}

/**
 * SAD of the rows y0, y0 + step, ... below h of a block of BW words a row,
 * cur (its first vw samples of a row inside the picture, 0 after them),
 * against ref at byte offset o of its first row (pitch words a row); the
 * reference's bytes past vw count nothing, as cur's.
 */
#define WORDS_SAD(BW)                                                                          \
static uint words_sad_##BW(__local const uint *cur, int vw, __local const uint *ref,           \
                           int pitch, int o, int y0, int h, int step)                          \
{                                                                                              \
    const int sh = o & 3;                                                                      \
    uint cm[BW], sad = 0;                                                                      \
                                                                                               \
    _Pragma("unroll")                                                                          \
    for (int i = 0; i < (BW); i++)                                                             \
        cm[i] = gpume_byte_mask(vw - 4 * i);                                                   \
    ref += o >> 2;                                                                             \
    for (int y = y0; y < h; y += step) {                                                       \
        __local const uint *c = cur + y * (BW), *w = ref + y * pitch;                          \
        _Pragma("unroll")                                                                      \
        for (int i = 0; i < (BW); i++)                                                         \
            sad = sad4(c[i], full_bytes(w[i], w[i + 1], sh) & cm[i], sad);                     \
    }                                                                                          \
    return sad;                                                                                \
}
#define L2_PER_ITEM (((2 * GPUME_OCL_L2_MAX_R + 1) * (2 * GPUME_OCL_L2_MAX_R + 1) + NT - 1) / NT)
#define L1_POINTS   GPUME_OCL_L1_POINTS
#define L1_PARTS    GPUME_OCL_L1_PARTS
#define L2_BW       (GPUME_CTU / 16)   ///< words per row of the CTU's level-2 block
#define L1_BW       (GPUME_CTU / 8)    ///< words per row of its level-1 block
#define L1_WINDOW   (GPUME_OCL_L1_ROWS(GPUME_CTU) * GPUME_OCL_L1_PITCH(GPUME_CTU))

/* one function per block width, so that its loop unrolls */
#if GPUME_CTU == 16
WORDS_SAD(1)
WORDS_SAD(2)
#define l2_sad words_sad_1
#define l1_sad words_sad_2
#elif GPUME_CTU == 32
WORDS_SAD(2)
WORDS_SAD(4)
#define l2_sad words_sad_2
#define l1_sad words_sad_4
#else
WORDS_SAD(4)
WORDS_SAD(8)
#define l2_sad words_sad_4
#define l1_sad words_sad_8
#endif

/**
 * hme levels 2 and 1 of every CTU: the GPUME_HME_MINIMA separated minima of
 * the level-2 full search (each work-item keeps the keys of its
 * candidates), each refined at level 1; writes the CTU's GpumeHmeCoarse.
 * The blocks and their reference windows are read once into local memory
 * as words, four samples a packed SAD; the level-1 searches of the minima
 * run at once, L1_PARTS work-items summing the rows of one point's SAD.
 */
__kernel __attribute__((reqd_work_group_size(NT, 1, 1)))
void gpume_hme_coarse(GpumeSearchArgs a, SEARCH_BUFFERS
                      GPUME_OCL_COARSE_LOCALS(GPUME_OCL_LOCAL_PARAM, GPUME_CTU))
{
    const int tid = get_local_id(0), ctu_idx = get_group_id(0);
    const int cx = ctu_idx % a.p.ctu_cols, cy = ctu_idx / a.p.ctu_cols;
    const int bs = a.p.ctu >> 2, x0 = (cx * a.p.ctu) >> 2, y0 = (cy * a.p.ctu) >> 2;
    const int vw = min(bs, a.cur[2].w - x0), vh = min(bs, a.cur[2].h - y0);
    const int r = gpume_hme_l2_range(a.p.range), n = 2 * r + 1;
    const int pitch2 = GPUME_WINDOW_PITCH(bs, r);
    const int x1 = (cx * a.p.ctu) >> 1, y1 = (cy * a.p.ctu) >> 1;
    const int vw1 = min(2 * bs, a.cur[1].w - x1), vh1 = min(2 * bs, a.cur[1].h - y1);
    const int r1 = GPUME_HME_L1_RANGE, n1 = 2 * r1 + 1, pitch1 = GPUME_OCL_L1_PITCH(GPUME_CTU);
    ulong keys[L2_PER_ITEM];
    int mx[GPUME_HME_MINIMA], my[GPUME_HME_MINIMA];
    /* the tree of the minima over the work-items that hold candidates */
    int nt = 32;

    while (nt < NT && nt < n * n)
        nt <<= 1;
    load_words(cur_buf, a.cur[2], x0, y0, vw, vh, L2_BW, cur2);
    load_words(ref_buf, a.ref[2], x0 - r, y0 - r, vw + 2 * r, vh + 2 * r, pitch2, ref2);
    load_words(cur_buf, a.cur[1], x1, y1, vw1, vh1, L1_BW, cur1);
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int i = 0; i < L2_PER_ITEM; i++) {
        const int c = tid + i * NT;
        keys[i] = GPUME_INVALID_KEY;
        if (c < n * n) {
            const int dx = c % n - r, dy = c / n - r;
            const uint sad = l2_sad(cur2, vw, ref2 + (dy + r) * pitch2, pitch2, dx + r, 0, vh, 1);
            keys[i] = gpume_key(sad + a.p.lambda * (gpume_iabs(dx) + gpume_iabs(dy)), c);
        }
    }
    /* every work-item gets each minimum, so each keeps them all */
    for (int k = 0; k < GPUME_HME_MINIMA; k++) {
        ulong best = GPUME_INVALID_KEY;
#pragma unroll
        for (int i = 0; i < L2_PER_ITEM; i++)
            if (keys[i] < best && gpume_hme_separate(tid + i * NT, r, k, mx, my))
                best = keys[i];
        best = wg_min_key(best, red, tid, nt);
        if (best == GPUME_INVALID_KEY) {    /* nothing far enough: the best again */
            mx[k] = mx[0];
            my[k] = my[0];
        } else {
            mx[k] = (int)((uint)best % n) - r;
            my[k] = (int)((uint)best / n) - r;
        }
    }

    /* level 1: the 5x5 points around each minimum, scaled */
    for (int k = 0; k < GPUME_HME_MINIMA; k++)
        load_words(ref_buf, a.ref[1], x1 + 2 * mx[k] - r1, y1 + 2 * my[k] - r1, vw1 + 2 * r1, vh1 + 2 * r1,
                   pitch1, ref1 + k * L1_WINDOW);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid < GPUME_HME_MINIMA * L1_POINTS * L1_PARTS) {
        const int part_idx = tid % L1_PARTS, point = tid / L1_PARTS;
        const int k = point / L1_POINTS, c = point % L1_POINTS;
        part[point * L1_PARTS + part_idx] =
            l1_sad(cur1, vw1, ref1 + k * L1_WINDOW + (c / n1) * pitch1, pitch1, c % n1,
                   part_idx, vh1, L1_PARTS);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid < GPUME_HME_MINIMA) {
        const int k = tid;
        ulong best = GPUME_INVALID_KEY;
        for (int c = 0; c < L1_POINTS; c++) {
            const int dx = 2 * mx[k] + c % n1 - r1, dy = 2 * my[k] + c / n1 - r1;
            uint sad = 0;
            ulong key;
            for (int j = 0; j < L1_PARTS; j++)
                sad += part[(k * L1_POINTS + c) * L1_PARTS + j];
            key = gpume_key(sad + a.p.lambda * (gpume_iabs(dx) + gpume_iabs(dy)), c);
            if (key < best)
                best = key;
        }
        {
            const int v1x = 2 * mx[k] + (int)((uint)best % n1) - r1;
            const int v1y = 2 * my[k] + (int)((uint)best / n1) - r1;
            coarse[ctu_idx].v[k][0] = gpume_clip(2 * v1x, -a.p.range, a.p.range);
            coarse[ctu_idx].v[k][1] = gpume_clip(2 * v1y, -a.p.range, a.p.range);
        }
    }
}

#define LB_BLOCK  (GPUME_CTU / 2)      ///< side of the CTU's level-1 block, the pitch of cur_w's bytes
#define LB_N      GPUME_OCL_LB_N       ///< rows of candidates of the level-1 block search, at most
#define LB_BLOCKS GPUME_OCL_LB_BLOCKS  ///< blocks of a CTU, at most

/**
 * hme level-1 block search: the least key among the candidates of row dy
 * (of 2r + 1) in quads [q0, q1) (four adjacent columns each) of the
 * BS x BS block at (bx, by) of the CTU's level-1 block, whole inside the
 * picture; with EXCL, leaving out the columns within 1 of xout. Four bytes
 * per operation, the reference words of a row shared by adjacent quads.
 * BLOCK_PART(BS, EXCL) defines it as block_part_BS_EXCL, one function per
 * block side (4, 8, 16, 32) and EXCL (0, 1), so that its loops unroll: 8
 * rows at most, or NVIDIA's compiler holds the rows of a larger block in
 * registers across the quads, for every block side (190 registers at CTU
 * 32, a work-group an SM, instead of 60).
 */
#define BLOCK_PART(BS, EXCL)                                                                  \
static ulong block_part_##BS##_##EXCL(__local const uint *cur_w, __local const uint *ref_w,   \
                                      int pitch, int bx, int by, int dy, int r, int q0, int q1, \
                                      int lambda, int xout)                                   \
{                                                                                             \
    const int n = 2 * r + 1;                                                                  \
    __local const uint *cw = cur_w + by * (LB_BLOCK / 4) + bx / 4;                            \
    uint best = 0xffffffffu;                                                                  \
    int best_x = 0;                                                                           \
                                                                                              \
    for (int q = q0; q < q1; q++) {                                                           \
        __local const uint *rw = ref_w + (by + dy + r) * pitch + bx / 4 + q;                  \
        uint sad[4] = { 0, 0, 0, 0 };                                                         \
        _Pragma("unroll 8")                                                                   \
        for (int y = 0; y < BS; y++) {                                                        \
            uint lo = rw[y * pitch];                                                          \
            _Pragma("unroll")                                                                 \
            for (int w = 0; w < BS / 4; w++) {                                                \
                const uint c = cw[y * (LB_BLOCK / 4) + w], hi = rw[y * pitch + w + 1];        \
                sad[0] = sad4(c, lo, sad[0]);                                                 \
                sad[1] = sad4(c, bytes_at(lo, hi, 1), sad[1]);                                \
                sad[2] = sad4(c, bytes_at(lo, hi, 2), sad[2]);                                \
                sad[3] = sad4(c, bytes_at(lo, hi, 3), sad[3]);                                \
                lo = hi;                                                                      \
            }                                                                                 \
        }                                                                                     \
        /* in index order: a strict minimum keeps the least index of a cost;                  \
         * columns past the row (the last quad's) cost the most */                            \
        _Pragma("unroll")                                                                     \
        for (int i = 0; i < 4; i++) {                                                         \
            const int x = 4 * q + i;                                                          \
            const uint cost = x < n ? sad[i] + lambda * gpume_iabs(x - r) : 0xffffffffu;      \
            if (cost < best && (!(EXCL) || gpume_iabs(x - r - xout) > GPUME_HME_MINIMA_SEP)) { \
                best   = cost;                                                                \
                best_x = x;                                                                   \
            }                                                                                 \
        }                                                                                     \
    }                                                                                         \
    return best == 0xffffffffu ? GPUME_INVALID_KEY :                                          \
           gpume_key(best + lambda * gpume_iabs(dy), (dy + r) * n + best_x);                  \
}

BLOCK_PART(4, 0)
BLOCK_PART(8, 0)
BLOCK_PART(16, 0)
BLOCK_PART(32, 0)
BLOCK_PART(4, 1)
BLOCK_PART(8, 1)
BLOCK_PART(16, 1)
BLOCK_PART(32, 1)

/** One block_part_BS_EXCL() for a level-1 block side bs of 4, 8, 16 or 32. */
static ulong block_part_bs(int bs, int excl, __local const uint *cur_w, __local const uint *ref_w,
                           int pitch, int bx, int by, int dy, int r, int q0, int q1,
                           int lambda, int xout)
{
    switch (bs) {
    case 4:  return excl ? block_part_4_1(cur_w, ref_w, pitch, bx, by, dy, r, q0, q1, lambda, xout) :
                           block_part_4_0(cur_w, ref_w, pitch, bx, by, dy, r, q0, q1, lambda, xout);
    case 8:  return excl ? block_part_8_1(cur_w, ref_w, pitch, bx, by, dy, r, q0, q1, lambda, xout) :
                           block_part_8_0(cur_w, ref_w, pitch, bx, by, dy, r, q0, q1, lambda, xout);
    case 16: return excl ? block_part_16_1(cur_w, ref_w, pitch, bx, by, dy, r, q0, q1, lambda, xout) :
                           block_part_16_0(cur_w, ref_w, pitch, bx, by, dy, r, q0, q1, lambda, xout);
    default: return excl ? block_part_32_1(cur_w, ref_w, pitch, bx, by, dy, r, q0, q1, lambda, xout) :
                           block_part_32_0(cur_w, ref_w, pitch, bx, by, dy, r, q0, q1, lambda, xout);
    }
}

/** The block_part_BS_EXCL() of a block of vw x vh samples inside the picture, cut by its edge. */
static ulong block_part_edge(__local const uint *cur_w, __local const uint *ref_w, int pitch,
                             int bx, int by, int vw, int vh, int dy, int r,
                             int q0, int q1, int lambda, int xout)
{
    __local const uchar *cur_s = (__local const uchar *)cur_w, *ref_s = (__local const uchar *)ref_w;
    const int n = 2 * r + 1;
    ulong best = GPUME_INVALID_KEY;

    for (int x = 4 * q0; x < min(4 * q1, n); x++) {
        uint sad = 0;
        ulong key;
        for (int y = 0; y < vh; y++)
            for (int i = 0; i < vw; i++)
                sad += abs_diff(cur_s[(by + y) * LB_BLOCK + bx + i],
                                ref_s[(by + y + dy + r) * 4 * pitch + bx + x + i]);
        key = gpume_key(sad + lambda * (gpume_iabs(x - r) + gpume_iabs(dy)), (dy + r) * n + x);
        if (key < best && gpume_iabs(x - r - xout) > GPUME_HME_MINIMA_SEP)
            best = key;
    }
    return best;
}

/**
 * hme level 1, the blocks of every CTU one by one (gpume_hme_block_size()):
 * the GPUME_HME_BLOCK_MINIMA separated minima of each block's full search,
 * doubled into the CTU's GpumeHmeCoarse; runs after gpume_hme_coarse, whose
 * best vector a block outside the picture takes. The CTU's level-1 block and
 * its reference window are read once into local memory. A work-item finds
 * the least key of one part (up to P of them) of one row of candidates of
 * one block, then a work-item per row the least of its parts and a
 * work-item per block the least of its rows; for the second minimum only
 * the rows within 1 of the first are searched again, without the first's
 * neighbours. Items are numbered block-major and a work-item steps through
 * them by NT, its indices carried rather than divided.
 */
__kernel __attribute__((reqd_work_group_size(NT, 1, 1)))
void gpume_hme_blocks(GpumeSearchArgs a, SEARCH_BUFFERS
                      GPUME_OCL_BLOCKS_LOCALS(GPUME_OCL_LOCAL_PARAM, GPUME_CTU))
{
    const int tid = get_local_id(0), ctu_idx = get_group_id(0);
    const int cx = ctu_idx % a.p.ctu_cols, cy = ctu_idx / a.p.ctu_cols;
    const int bs = gpume_hme_block_size(a.p.block) >> 1, side = gpume_hme_blocks_per_side(a.p.ctu, a.p.block);
    const int nblk = side * side;
    const int r = gpume_hme_l1_block_range(a.p.range), n = 2 * r + 1, nq = (n + 3) >> 2;
    /* quads per part: enough parts to keep every work-item busy, as many as part_best holds */
    const int fit = min(nq, LB_BLOCKS * LB_N / (nblk * n));
    const int per_part = (nq + fit - 1) / fit, P = (nq + per_part - 1) / per_part;
    const int x1 = (cx * a.p.ctu) >> 1, y1 = (cy * a.p.ctu) >> 1;
    const int vw1 = min(LB_BLOCK, a.cur[1].w - x1), vh1 = min(LB_BLOCK, a.cur[1].h - y1);
    /* odd pitch: the rows that adjacent work-items read lie in different banks */
    const int ww = vw1 + 2 * r + 4, pitch = ((ww + 3) >> 2) | 1, wb = 4 * pitch;
    __local uchar *cur_s = (__local uchar *)cur_w, *ref_s = (__local uchar *)ref_w;
    __global GpumeHmeCoarse *out = coarse + ctu_idx;
    int lside = 0;

    while ((1 << lside) < side)
        lside++;
    for (int i = tid; i < LB_BLOCK * LB_BLOCK; i += NT) {
        const int x = i % LB_BLOCK, y = i / LB_BLOCK;
        cur_s[i] = x < vw1 && y < vh1 ? cur_buf[a.cur[1].offset + (y1 + y) * a.cur[1].pitch + x1 + x] : 0;
    }
    /* rows of whole words, zero past the window: the last quad's words read there */
    if (tid < NT / wb * wb) {
        __global const uchar *src = ref_buf + a.ref[1].offset + (y1 - r) * a.ref[1].pitch + x1 - r;
        const int x = tid % wb;
        for (int y = tid / wb; y < vh1 + 2 * r; y += NT / wb)
            ref_s[y * wb + x] = x < ww ? src[y * a.ref[1].pitch + x] : 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int k = 0; k < GPUME_HME_BLOCK_MINIMA; k++) {
        /* the parts of the rows: all rows, then those within 1 of the first minimum's */
        const int rows = k == 0 ? n : 2 * GPUME_HME_MINIMA_SEP + 1;
        const int sp = NT % P, sr = NT / P % rows, sj = NT / (P * rows);
        int part = tid % P, row = tid / P % rows, j = tid / (P * rows);

        while (j < nblk) {
            const int bx = (j & (side - 1)) * bs, by = (j >> lside) * bs;
            const int dy = k == 0 ? row - r : m0[2 * j + 1] + row - GPUME_HME_MINIMA_SEP;
            const int vw = min(bs, vw1 - bx), vh = min(bs, vh1 - by);
            const int q0 = part * per_part, q1 = min(q0 + per_part, nq);
            const int xout = k == 0 ? 4 * LB_N : m0[2 * j];
            if (vw > 0 && vh > 0 && dy >= -r && dy <= r) {
                ulong key;
                if (vw < bs || vh < bs)
                    key = block_part_edge(cur_w, ref_w, pitch, bx, by, vw, vh, dy, r, q0, q1, a.p.lambda, xout);
                else
                    key = block_part_bs(bs, k != 0, cur_w, ref_w, pitch, bx, by, dy, r, q0, q1,
                                        a.p.lambda, xout);
                part_best[(j * n + dy + r) * P + part] = key;
            }
            part += sp;
            row  += sr;
            j    += sj;
            if (part >= P) {
                part -= P;
                row++;
            }
            if (row >= rows) {
                row -= rows;
                j++;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* each row's least key into its first part */
        for (int it = tid; it < nblk * rows; it += NT) {
            const int jr = it / rows, dy = k == 0 ? it - jr * rows - r :
                                                    m0[2 * jr + 1] + it - jr * rows - GPUME_HME_MINIMA_SEP;
            __local ulong *pb = part_best + (jr * n + dy + r) * P;
            if (dy < -r || dy > r)
                continue;
            for (int i = 1; i < P; i++)
                pb[0] = pb[i] < pb[0] ? pb[i] : pb[0];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int jb = tid; jb < nblk; jb += NT) {
            const int x = cx * a.p.ctu + 2 * (jb & (side - 1)) * bs, y = cy * a.p.ctu + 2 * (jb >> lside) * bs;
            __global short *b = out->b[GPUME_HME_BLOCK_MINIMA * jb + k];
            ulong best = GPUME_INVALID_KEY;
            int vx, vy;
            if (x < a.p.width && y < a.p.height) {
                for (int i = 0; i < n; i++)
                    best = part_best[(jb * n + i) * P] < best ? part_best[(jb * n + i) * P] : best;
                if (best == GPUME_INVALID_KEY)  /* nothing far enough: the first again */
                    best = (m0[2 * jb + 1] + r) * n + m0[2 * jb] + r;
                vx = (int)((uint)best % n) - r;
                vy = (int)((uint)best / n) - r;
                if (k == 0) {
                    m0[2 * jb]     = vx;
                    m0[2 * jb + 1] = vy;
                }
                b[0] = gpume_clip(2 * vx, -a.p.range, a.p.range);
                b[1] = gpume_clip(2 * vy, -a.p.range, a.p.range);
            } else {
                m0[2 * jb] = m0[2 * jb + 1] = 0;
                b[0] = out->v[0][0];
                b[1] = out->v[0][1];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/** Window origins of a CTU's PU-table search (full: one; hme: GPUME_HME_WINDOWS). */
static void pu_windows(const GpumeSearchArgs *a, __global const GpumeHmeCoarse *coarse,
                       int ctu_idx, int px, int py, int *x0, int *y0)
{
    if (a->p.algo == GPUME_ALGO_HME)
        gpume_hme_windows(coarse, a->p.ctu_cols, a->p.ctu_rows, ctu_idx, px, py, a->p.range,
                          x0, y0);
    else
        x0[0] = y0[0] = -a->p.range;
}

#define CTU GPUME_CTU
#define U   (CTU / 4)                 ///< 4x4 units per CTU side
#define U1  (U + 1)                   ///< side of the prefix table
#define TW  (U1 * U1)                 ///< entries of one prefix table
#define B   GPUME_OCL_BATCH(CTU)      ///< candidates per batch
/** PUs of the table of the CTU (gpume_nb_pus()) */
#define NB_PUS (CTU == 16 ? 4 * GPUME_PUS_PER_CU8 + GPUME_PUS_PER_CU :                   \
                CTU == 32 ? 16 * GPUME_PUS_PER_CU8 + 5 * GPUME_PUS_PER_CU :              \
                64 * GPUME_PUS_PER_CU8 + 21 * GPUME_PUS_PER_CU)
/** PUs a work-item owns, at most: one at CTU 16 and 32 */
#define PUS_PER_ITEM (((NB_PUS) + NT - 1) / NT)
#define NO_CAND GPUME_NO_CANDIDATE

/**
 * Row uy of the unit-SAD table of one candidate as running sums along the
 * row, written to row[1..U], for a CTU entirely inside the frame: four
 * bytes per operation.
 */
static void unit_row_interior(__local const uint *cur_w, __global const uchar *ref, int pitch,
                              int uy, __local uint *row)
{
    uint acc[U];
#pragma unroll
    for (int ux = 0; ux < U; ux++)
        acc[ux] = 0;
#pragma unroll
    for (int y = 0; y < 4; y++) {
        __local const uint *c = cur_w + (4 * uy + y) * U;
        __global const uchar *r = ref + (4 * uy + y) * pitch;
#pragma unroll
        for (int ux = 0; ux < U; ux++)
            acc[ux] = sad4(c[ux], load4_unaligned(r + 4 * ux), acc[ux]);
    }
    {
        uint run = 0;
#pragma unroll
        for (int ux = 0; ux < U; ux++) {
            run += acc[ux];
            row[ux + 1] = run;
        }
    }
}

/** The same for a CTU that crosses the frame edge: only the vw x vh valid samples count. */
static void unit_row_edge(__local const uchar *cur_s, __global const uchar *ref, int pitch,
                          int uy, int vw, int vh, __local uint *row)
{
    const int rows = min(4, vh - 4 * uy);
    uint run = 0;
    for (int ux = 0; ux < U; ux++) {
        const int cols = min(4, vw - 4 * ux);
        for (int y = 0; y < rows; y++)
            for (int x = 0; x < cols; x++)
                run += abs_diff(cur_s[(4 * uy + y) * CTU + 4 * ux + x],
                                ref[(4 * uy + y) * pitch + 4 * ux + x]);
        row[ux + 1] = run;
    }
}

/**
 * Ordered compaction, one flag per work-item: the number of work-items
 * before this one whose keep is set; *count gets the number of all. mask
 * holds NT / 32 words of local memory. Called by all work-items.
 */
static int compact_place(int keep, volatile __local uint *mask, int *count)
{
    const int tid = get_local_id(0), w = tid >> 5;
    int pos = 0, n = 0;

#if GPUME_OCL_PTX
    /* mask was last read before a barrier of the caller's */
    const uint flags = warp_ballot(keep);
    if ((tid & 31) == 0)
        mask[w] = flags;
#else
    if (tid < NT / 32)
        mask[tid] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (keep)
        atomic_or(&mask[w], 1u << (tid & 31));
#endif
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int i = 0; i < NT / 32; i++) {
        const int c = popcount(mask[i]);
        pos += i < w ? c : 0;
        n   += c;
    }
    *count = n;
    return pos + popcount(mask[w] & ((1u << (tid & 31)) - 1));
}

/**
 * hme (hme set; otherwise *total is left as it is): the first candidates
 * of the search of a CTU, compacted into list_* after the *total already
 * there: those of its windows that can win (in range, not in an earlier
 * window), in index order, then the block vectors not costed before.
 * Called by all work-items.
 */
static void hme_first_list(int hme, int ctu, int block, int range, __global const GpumeHmeCoarse *coarse,
                           const int *wx0, const int *wy0, volatile __local uint *mask,
                           __local uint *list_idx, __local short *list_dx, __local short *list_dy,
                           int *total)
{
    /* each candidate's place is the number kept before it */
    const int k = get_local_id(0);
    int dx = 0, dy = 0, pos, count;
    const uint idx = hme && k < GPUME_HME_CANDIDATES ? gpume_hme_candidate(k, wx0, wy0, &dx, &dy) : 0;
    int keep = hme && k < GPUME_HME_CANDIDATES && gpume_in_range(dx, dy, range) &&
               !gpume_hme_seen(dx, dy, idx / GPUME_HME_WIN_STRIDE, wx0, wy0);

    pos = compact_place(keep, mask, &count);
    if (keep) {
        list_idx[pos] = idx;
        list_dx[pos]  = dx;
        list_dy[pos]  = dy;
    }
    if (hme)
        *total = count;
    barrier(CLK_LOCAL_MEM_FENCE);   /* mask is read until here */
    keep = hme && k < gpume_hme_nb_block_vectors(ctu, block) &&
           gpume_hme_block_new(coarse, k, wx0, wy0, &dx, &dy);
    pos = *total + compact_place(keep, mask, &count);
    if (keep) {
        list_idx[pos] = gpume_hme_round_index(dx, dy, range);
        list_dx[pos]  = dx;
        list_dy[pos]  = dy;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (hme)
        *total += count;
}

/**
 * hme rounds (more set): the next candidates of round *round, at most
 * GPUME_HME_CANDIDATES from its *c0-th on, those not costed yet, into
 * list_*; returns their number (0 without more) and moves *round, *c0 and
 * *added on. Called by all work-items.
 */
static int hme_round_step(int more, int ns, int range, __local const short *seed_x,
                          __local const short *seed_y, const int *wx0, const int *wy0,
                          volatile __local uint *mask, __local uint *list_idx,
                          __local short *list_dx, __local short *list_dy,
                          int *round, int *c0, int *added)
{
    const int n = more ? min(GPUME_HME_CANDIDATES, 9 * ns - *c0) : 0;
    const int k = get_local_id(0);
    int dx, dy, pos, count;
    const int keep = k < n && gpume_hme_round_new(*c0 + k, seed_x, seed_y, *round * ns,
                                                  wx0, wy0, range, &dx, &dy);

    pos = compact_place(keep, mask, &count);
    if (keep) {
        list_idx[pos] = gpume_hme_round_index(dx, dy, range);
        list_dx[pos]  = dx;
        list_dy[pos]  = dy;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    *added += count;
    *c0    += n;
    if (more && *c0 == 9 * ns) {
        /* no new vector: the winners and so the next seeds stay as they are */
        *round = *added ? *round + 1 : GPUME_HME_ROUNDS;
        *c0    = 0;
        *added = 0;
    }
    return count;
}

/**
 * PU-table search (full, hme level 0), one work-group per CTU. Per batch of
 * B candidates: unit SADs as running row sums, column sums into the 2-D
 * prefix tables S, then the best key of every PU. With few PUs (fixed
 * blocks) G work-items share a PU, each taking every G-th candidate, and
 * their keys are reduced at the end as a tree. hme's candidates are
 * compacted first (those in range and in no earlier window, then the block
 * vectors that gpume_hme_block_new() finds not costed), then its rounds
 * follow: the 3x3 neighbourhoods of the 2Nx2N PUs' winners so far
 * that gpume_hme_round_new() finds not costed yet, compacted the same way;
 * a round that costs nothing ends them (the next would find the same seeds).
 */
__kernel __attribute__((reqd_work_group_size(NT, 1, 1)))
void gpume_pu_search(GpumeSearchArgs a, SEARCH_BUFFERS
                     GPUME_OCL_PU_SEARCH_LOCALS(GPUME_OCL_LOCAL_PARAM, GPUME_CTU))
{
    __local uint *St = (__local uint *)S;
    __local ulong *red = S;           /* the keys of PUs shared by work-items, between batches */
    __local const uchar *cur_s = (__local const uchar *)cur_w;
    const int tid = get_local_id(0), ctu_idx = get_group_id(0);
    const int X = (ctu_idx % a.p.ctu_cols) * CTU, Y = (ctu_idx / a.p.ctu_cols) * CTU;
    const int vw = min(CTU, a.p.width - X), vh = min(CTU, a.p.height - Y);
    const int interior = vw == CTU && vh == CTU;
    const int px = pred[2 * ctu_idx], py = pred[2 * ctu_idx + 1];
    const int nb = a.p.block ? a.nb_fixed_pus : a.p.nb_pus;
    const int G = 2 * nb <= NT ? NT / nb : 1;   /* work-items per PU */
    __global const uchar *ref0 = ref_buf + a.ref[0].offset;
    const int rpitch = a.ref[0].pitch;
    const int hme = a.p.algo == GPUME_ALGO_HME;
    const int ns = gpume_hme_nb_seeds(CTU, a.p.block, nb);
    int total = gpume_pu_nb_candidates(a.p.algo, a.p.range);
    int round = 0, c0 = 0, added = 0;
    int wx0[GPUME_HME_WINDOWS], wy0[GPUME_HME_WINDOWS];
    GpumePU my_pu[PUS_PER_ITEM];
    ulong best[PUS_PER_ITEM];

    pu_windows(&a, coarse, ctu_idx, px, py, wx0, wy0);
#pragma unroll
    for (int i = 0; i < PUS_PER_ITEM; i++) {
        const int k = G > 1 ? (i == 0 && tid < G * nb ? tid % nb : nb) : tid + i * NT;
        best[i] = GPUME_INVALID_KEY;
        if (k < nb)
            my_pu[i] = pu_table[a.p.block ? fixed_pus[k] : k];
    }
    for (int i = tid; i < CTU * CTU; i += NT) {
        const int x = i % CTU, y = i / CTU;
        ((__local uchar *)cur_w)[i] = x < vw && y < vh ?
            cur_buf[a.cur[0].offset + (Y + y) * a.cur[0].pitch + X + x] : 0;
    }
    hme_first_list(hme, CTU, a.p.block, a.p.range, coarse + ctu_idx, wx0, wy0, mask,
                   list_idx, list_dx, list_dy, &total);

    for (int more = 1; more; ) {
        for (int base = 0; base < total; base += B) {
            /* the last batch may be short */
            const int bn = min(B, total - base);

            for (int c = tid; c < B; c += NT) {
                const int k = base + c;
                uint idx = NO_CAND, mvc = 0;
                int dx = 0, dy = 0;
                if (k < total)
                    idx = gpume_table_candidate(&a.p, k, list_idx, list_dx, list_dy, wx0, wy0,
                                                px, py, &dx, &dy, &mvc);
                cand_idx[c] = idx;
                cand_mvc[c] = mvc;
                cand_dx[c]  = dx;
                cand_dy[c]  = dy;
            }
            barrier(CLK_LOCAL_MEM_FENCE);

            for (int it = tid; it < B * U; it += NT) {
                const int c = it % B, uy = it / B;
                __local uint *row = St + c * TW + (uy + 1) * U1;
                if (c >= bn)
                    continue;
                if (uy == 0)
                    for (int x = 0; x < U1; x++)
                        St[c * TW + x] = 0;
                row[0] = 0;
                if (cand_idx[c] != NO_CAND) {
                    __global const uchar *ref = ref0 + (Y + cand_dy[c]) * rpitch + X + cand_dx[c];
                    if (interior)
                        unit_row_interior(cur_w, ref, rpitch, uy, row);
                    else
                        unit_row_edge(cur_s, ref, rpitch, uy, vw, vh, row);
                } else {
                    for (int ux = 0; ux < U; ux++)
                        row[ux + 1] = 0;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            /* column sums turn row sums into the 2-D prefix table */
            for (int it = tid; it < B * U; it += NT) {
                const int c = it % B, ux = it / B + 1;
                __local uint *col = St + c * TW + ux;
                uint run;
                if (c >= bn)
                    continue;
                run = col[U1];
                for (int y = 2; y <= U; y++) {
                    run += col[y * U1];
                    col[y * U1] = run;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);

#pragma unroll
            for (int i = 0; i < PUS_PER_ITEM; i++) {
                const int active = G > 1 ? i == 0 && tid < G * nb : tid + i * NT < nb;
                if (active) {
                    const GpumePU pu = my_pu[i];
                    const int o00 = pu.t * U1 + pu.l, o01 = pu.t * U1 + pu.r;
                    const int o10 = pu.b * U1 + pu.l, o11 = pu.b * U1 + pu.r;
                    ulong bk = best[i];
                    for (int c = G > 1 ? tid / nb : 0; c < bn; c += G) {
                        __local const uint *t = St + c * TW;
                        const ulong key = gpume_key(t[o11] - t[o01] - t[o10] + t[o00] + cand_mvc[c],
                                                    cand_idx[c]);
                        if (cand_idx[c] != NO_CAND && key < bk)
                            bk = key;
                    }
                    best[i] = bk;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        /* hme rounds: the 3x3 neighbourhoods of the 2Nx2N PUs' winners so far,
         * those not costed yet, GPUME_HME_CANDIDATES of them at a time. Every
         * barrier is reached unconditionally (PoCL wants that). */
        more = hme && round < GPUME_HME_ROUNDS;
        {
            /* a round's seeds: the winning vectors of the 2Nx2N PUs so far,
             * from the PUs' keys (G work-items' keys per PU, or one) */
            const int seeding = more && !c0;
            if (seeding && G > 1) {
                red[tid] = best[0];
            } else if (seeding) {
#pragma unroll
                for (int i = 0; i < PUS_PER_ITEM; i++)
                    if (tid + i * NT < nb)
                        red[tid + i * NT] = best[i];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            reduce_groups(red, nb, seeding ? G : 1);
            for (int j = tid; j < nb && seeding; j += NT) {
                const int slot = a.p.block ? j : gpume_hme_seed_of_pu(CTU, j);
                int vx, vy;
                if (slot < 0)
                    continue;
                gpume_key_vector(red[j], a.p.algo, a.p.range, wx0, wy0, &vx, &vy);
                seed_x[round * ns + slot] = vx;
                seed_y[round * ns + slot] = vy;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        total = hme_round_step(more, ns, a.p.range, seed_x, seed_y, wx0, wy0, mask,
                               list_idx, list_dx, list_dy, &round, &c0, &added);
    }

    /* the PUs' keys: G work-items' keys per PU reduced, or one */
    if (G > 1)
        red[tid] = best[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    reduce_groups(red, nb, G);
    if (G > 1) {
        if (tid < nb)
            pu_keys[(size_t)ctu_idx * a.p.nb_pus + (a.p.block ? fixed_pus[tid] : tid)] = red[tid];
    } else {
#pragma unroll
        for (int i = 0; i < PUS_PER_ITEM; i++) {
            const int k = tid + i * NT;
            if (k < nb)
                pu_keys[(size_t)ctu_idx * a.p.nb_pus + (a.p.block ? fixed_pus[k] : k)] = best[i];
        }
    }
}

#if GPUME_CTU == 32
/*
 * full, CTU 32: a search of its own, in the structure of CUDA's
 * gpume_full32 (docs/PERFORMANCE.md, "full: a kernel of its own for CTU
 * 32"). One work-group of NT work-items per CTU. The candidates are cut
 * into bands of FULL_K rows of dy (the last band moved up to end on the
 * last row, so it repeats a few candidates, which a minimum of keys does
 * not mind) and enumerated as (band, dx) pairs; a chunk is FULL_PAIRS
 * consecutive pairs, FULL_SLOTS candidates. Per chunk:
 *  1. work-item (pair, strip) sums the SADs of a 4-pixel-wide strip of the
 *     CTU for the pair's K candidates at once, each reference row loaded
 *     once for all K (candidate dy + 1 meets row y + 1 where dy met row y),
 *     four bytes per sad4(), into cells of 4 rows (block=auto) or of the
 *     block's height;
 *  2. work-item (16x16 quadrant, candidate; with all PU shapes, half of the
 *     quadrant's PUs) adds the cells up into the costs of its quadrant's
 *     PUs, smaller PUs into larger ones (the 8x8 CUs, then the 16x16 CU),
 *     and keeps each PU's minimum key;
 *  3. work-item (candidate) does the same for the PUs of the 32x32 CU from
 *     the quadrants' sums (block=auto, block=32).
 * At the end the keys of a PU from all work-items meet in local memory: the
 * least cost, then the least index of that cost, by atomic minima. A key
 * is 32 bits (GpumeOclFullArgs). FULL_SADS and FULL_SEARCH32 define one
 * function per block mode (0: all PU shapes, 8, 16, 32), so that loops
 * unroll and arrays have constant sizes.
 */
#define FULL_K          GPUME_FULL_K
#define FULL_PAIRS      GPUME_FULL_PAIRS
#define FULL_SLOTS      GPUME_OCL_FULL_SLOTS
#define FULL_NONE       0xffffffffu                /* a key or term of no candidate */
#define FULL_CUR_STRIDE GPUME_OCL_FULL_CUR_STRIDE
#define FULL_STRIDE(block) GPUME_OCL_FULL_STRIDE(block)
/* keys per work-item of stage 2 and of stage 3, stage-2 items per work-item and chunk */
#define FULL_NQ(block)    ((block) == 0 ? 25 : (block) == 8 ? 4 : (block) == 16 ? 1 : 0)
#define FULL_N3(block)    ((block) == 0 ? 7 : (block) == 32 ? 1 : 0)
#define FULL_ITEMS(block) ((block) == 0 ? 4 : 2)

/**
 * Fold one of the work-item's keys into the PU's minimum: pass 0 the cost,
 * pass 1 the index of that cost.
 */
static inline void full_merge(uint key, int pu, int pass, GpumeOclFullArgs f, int chunk_div,
                              int slot0, int slot_step, int n, volatile __local uint *min_cost,
                              volatile __local uint *min_idx)
{
    uint cost, idx;
    if (key == FULL_NONE)
        return;
    cost = key >> f.key_bits;
    if (!pass) {
        atomic_min(&min_cost[pu], cost);
        return;
    }
    if (cost != min_cost[pu])
        return;
    if (f.numbered) {
        const int e = key & ((1u << GPUME_FULL_LOCAL_BITS) - 1);
        idx = gpume_full_index(e / chunk_div, slot0 + slot_step * (e % chunk_div), n);
    } else {
        idx = key & ((1u << f.key_bits) - 1);
    }
    atomic_min(&min_idx[pu], idx);
}

/**
 * Stage 1 for the work-item's item: the cells of strip ux for the K
 * candidates of one pair, whose reference rows start at row row0, byte oc
 * of ref (the pixel under the strip's first column for the pair's first
 * dy; rows of pw words, the last of the padded plane rmax). EDGE: a CTU
 * that crosses the frame edge, where only its vh rows inside count
 * (colmask keeps the strip's columns inside). FULL_SADS(BLOCK, EDGE)
 * defines it as full_sads_BLOCK_EDGE.
 */
#define FULL_SADS(BLOCK, EDGE)                                                                     \
static void full_sads_##BLOCK##_##EDGE(__global const uint *ref, int oc, int pw, int rmax,         \
                                       __local const uint *cur_t, __local uint *cells, int ux,     \
                                       int row0, int vh, uint colmask)                             \
{                                                                                                  \
    const int CH = (BLOCK) ? (BLOCK) : 4, STRIDE = FULL_STRIDE(BLOCK), o = oc & 3;                 \
    /* group g: cur rows 4g .. 4g + 3 meet reference rows 4g .. 4g + 6 (relative to row0);         \
     * w: the words of the next reference row; EDGE: rows below the frame's                        \
     * border meet only pixels outside the frame, and read its last row */                         \
    __global const uint *w = ref + (oc >> 2) + row0 * pw, *last = ref + (oc >> 2) + rmax * pw;     \
    uint r[4 + FULL_K - 1], acc[FULL_K];                                                           \
                                                                                                   \
    _Pragma("unroll")                                                                              \
    for (int k = 0; k < FULL_K; k++)                                                               \
        acc[k] = 0;                                                                                \
    _Pragma("unroll")                                                                              \
    for (int i = 0; i < FULL_K - 1; i++, w += pw)                                                  \
        r[i] = full_bytes(w[0], w[1], o);                                                          \
    _Pragma("unroll")                                                                              \
    for (int g = 0; g < 8; g++) {                                                                  \
        const uint4 cv = *(__local const uint4 *)(cur_t + ux * FULL_CUR_STRIDE + 4 * g);           \
        const uint c[4] = { cv.x, cv.y, cv.z, cv.w };                                              \
        _Pragma("unroll")                                                                          \
        for (int i = FULL_K - 1; i < 4 + FULL_K - 1; i++, w += pw) {                               \
            __global const uint *v = (EDGE) && row0 + 4 * g + i > rmax ? last : w;                 \
            r[i] = full_bytes(v[0], v[1], o);                                                      \
        }                                                                                          \
        _Pragma("unroll")                                                                          \
        for (int k = 0; k < FULL_K; k++) {                                                         \
            _Pragma("unroll")                                                                      \
            for (int i = 0; i < 4; i++)                                                            \
                if (!(EDGE) || 4 * g + i < vh)                                                     \
                    acc[k] = sad4(c[i], (EDGE) ? r[i + k] & colmask : r[i + k], acc[k]);           \
            if ((4 * g + 4) % CH == 0) {                                                           \
                cells[k * FULL_PAIRS * STRIDE + gpume_full_cell(BLOCK, 4 * g / CH, ux)] = acc[k];  \
                acc[k] = 0;                                                                        \
            }                                                                                      \
        }                                                                                          \
        _Pragma("unroll")                                                                          \
        for (int i = 0; i < FULL_K - 1; i++)                                                       \
            r[i] = r[i + 4];                                                                       \
    }                                                                                              \
}

FULL_SADS(0, 0)
FULL_SADS(0, 1)
FULL_SADS(8, 0)
FULL_SADS(8, 1)
FULL_SADS(16, 0)
FULL_SADS(16, 1)
FULL_SADS(32, 0)
FULL_SADS(32, 1)

/** The kernel NAME of block mode BLOCK (0: all PU shapes). */
#define FULL_SEARCH32(NAME, BLOCK)                                                                 \
__kernel __attribute__((reqd_work_group_size(NT, 1, 1)))                                           \
void NAME(GpumeSearchArgs a, SEARCH_BUFFERS, GpumeOclFullArgs f                                    \
          GPUME_OCL_FULL32_LOCALS(GPUME_OCL_LOCAL_PARAM, BLOCK))                                   \
{                                                                                                  \
    const int STRIDE = FULL_STRIDE(BLOCK), NQ = FULL_NQ(BLOCK), N3 = FULL_N3(BLOCK);               \
    const int ITEMS = FULL_ITEMS(BLOCK), PG = FULL_PAIRS / ITEMS;                                  \
    __local uint *cells = (__local uint *)cells4, *quads = (__local uint *)quads4;                 \
    __local uint *cur_t = (__local uint *)cur4;                                                    \
    const int tid = get_local_id(0), ctu_idx = get_group_id(0);                                    \
    const int X = (ctu_idx % a.p.ctu_cols) * 32, Y = (ctu_idx / a.p.ctu_cols) * 32;                \
    const int vw = min(32, a.p.width - X), vh = min(32, a.p.height - Y);                           \
    const int edge = vw < 32 || vh < 32;                                                           \
    const int px = pred[2 * ctu_idx], py = pred[2 * ctu_idx + 1];                                  \
    const int R = a.p.range, n = 2 * R + 1;                                                        \
    const int npairs = (n + FULL_K - 1) / FULL_K * n;                                              \
    const int nchunks = (npairs + FULL_PAIRS - 1) / FULL_PAIRS;                                    \
    const uint scale = f.scale;                                                                    \
    /* the plane offset is > pad samples of border, so word offsets are >= 0;                      \
     * pitch is a multiple of 4 */                                                                 \
    __global const uint *ref = (__global const uint *)ref_buf;                                     \
    const int pw = a.ref[0].pitch >> 2, rmax = a.ref[0].h + a.p.pad - 1;                           \
    /*                                                                                             \
     * Stage 1: strip ux of pair pc. Stage 2: half h (block=auto; uniform in                       \
     * a warp of 32) of quadrant q of slots sb + PG m, m < ITEMS (row j,                           \
     * pairs pg + PG m), so that a work-item meets its candidates in                               \
     * increasing index order, as the local numbering needs; 8 neighbouring                        \
     * work-items read pairs pg and pg + 2, whose cells lie 16 banks apart.                        \
     * Stage 3: half h3 of slot s3.                                                                \
     */                                                                                            \
    const int ux = tid & 7, pc = tid >> 3, q = tid & 3;                                            \
    const int h = (BLOCK) == 0 ? tid >> 5 & 1 : 0;                                                 \
    const int cq = (BLOCK) == 0 ? (tid & 31) >> 2 | (tid >> 6) << 3 : tid >> 2;                    \
    const int pg = (cq % PG & ~3) | (cq & 1) << 1 | (cq >> 1 & 1), sb = cq / PG * FULL_PAIRS + pg; \
    const int s3 = tid % FULL_SLOTS, h3 = tid / FULL_SLOTS;                                        \
    const int inside = vw - 4 * ux;                                                                \
    const uint colmask = inside >= 4 ? 0xffffffffu : inside <= 0 ? 0 : (1u << 8 * inside) - 1;     \
    uint kq[FULL_NQ(BLOCK) > 4 ? FULL_NQ(BLOCK) : 4], k3[FULL_N3(BLOCK) ? FULL_N3(BLOCK) : 1];     \
                                                                                                   \
    _Pragma("unroll")                                                                              \
    for (int i = 0; i < NQ; i++)                                                                   \
        kq[i] = FULL_NONE;                                                                         \
    _Pragma("unroll")                                                                              \
    for (int i = 0; i < N3; i++)                                                                   \
        k3[i] = FULL_NONE;                                                                         \
    {                                                                                              \
        /* the current CTU as 8 strips of 32 rows of 4 pixels, 0 outside the frame */              \
        const int sx = tid >> 5, y = tid & 31;                                                     \
        uint w = 0;                                                                                \
        for (int i = 0; i < 4; i++)                                                                \
            if (4 * sx + i < vw && y < vh)                                                         \
                w |= (uint)cur_buf[a.cur[0].offset + (Y + y) * a.cur[0].pitch + X + 4 * sx + i]    \
                     << 8 * i;                                                                     \
        cur_t[sx * FULL_CUR_STRIDE + y] = w;                                                       \
    }                                                                                              \
    barrier(CLK_LOCAL_MEM_FENCE);                                                                  \
                                                                                                   \
    for (int chunk = 0; chunk < nchunks; chunk++) {                                                \
        __local uint *ct = terms + (chunk & 1) * FULL_SLOTS;                                       \
        {                                                                                          \
            const int pair = chunk * FULL_PAIRS + pc, band = pair / n, dxi = pair - band * n;      \
            const int dyb = min(FULL_K * band, n - FULL_K);                                        \
            if (ux < FULL_K) {                                                                     \
                /* the term of candidate ux of the pair: its MV cost and index */                  \
                const int dyi = dyb + ux;                                                          \
                ct[ux * FULL_PAIRS + pc] = pair >= npairs ? FULL_NONE :                            \
                    gpume_mv_cost(a.p.lambda, 4 * (dxi - R), 4 * (dyi - R), px, py) * scale +      \
                    (f.numbered ? 0 : (uint)(dyi * n + dxi));                                      \
            }                                                                                      \
            if (pair < npairs) {                                                                   \
                __local uint *c = cells + pc * STRIDE;                                             \
                const int row0 = Y - R + dyb, oc = a.ref[0].offset + X + 4 * ux + dxi - R;         \
                if (edge)                                                                          \
                    full_sads_##BLOCK##_1(ref, oc, pw, rmax, cur_t, c, ux, row0, vh, colmask);     \
                else                                                                               \
                    full_sads_##BLOCK##_0(ref, oc, pw, rmax, cur_t, c, ux, row0, vh, colmask);     \
            }                                                                                      \
        }                                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        if (NQ) {                                                                                  \
            _Pragma("unroll")                                                                      \
            for (int m = 0; m < ITEMS; m++) {                                                      \
                const int s = sb + PG * m;                                                         \
                __local const uint *u = cells + s * STRIDE + 4 * q;                                \
                uint t = ct[s];                                                                    \
                if (t == FULL_NONE)                                                                \
                    continue;                                                                      \
                t += f.numbered ? chunk * ITEMS + m : 0;                                           \
                if ((BLOCK) == 0) {                                                                \
                    gpume_full_quadrant(u, quads + 12 * s, q, h, scale, t, kq);                    \
                } else if ((BLOCK) == 8) {                                                         \
                    const uint4 v0 = *(__local const uint4 *)u;                                    \
                    const uint4 v1 = *(__local const uint4 *)(u + 16);                             \
                    gpume_full_update(&kq[0], v0.x + v0.y, scale, t);                              \
                    gpume_full_update(&kq[1], v0.z + v0.w, scale, t);                              \
                    gpume_full_update(&kq[2], v1.x + v1.y, scale, t);                              \
                    gpume_full_update(&kq[3], v1.z + v1.w, scale, t);                              \
                } else {                                                                           \
                    const uint4 v = *(__local const uint4 *)u;                                     \
                    gpume_full_update(&kq[0], v.x + v.y + v.z + v.w, scale, t);                    \
                }                                                                                  \
            }                                                                                      \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        if (N3 && ((BLOCK) == 0 || h3 == 0)) {                                                     \
            uint t = ct[s3];                                                                       \
            if (t != FULL_NONE) {                                                                  \
                t += f.numbered ? chunk : 0;                                                       \
                if ((BLOCK) == 0) {                                                                \
                    gpume_full_ctu(quads + 12 * s3, h3, scale, t, k3);                             \
                } else {                                                                           \
                    const uint4 v0 = *(__local const uint4 *)(cells + s3 * STRIDE);                \
                    const uint4 v1 = *(__local const uint4 *)(cells + s3 * STRIDE + 4);            \
                    gpume_full_update(&k3[0], v0.x + v0.y + v0.z + v0.w + v1.x + v1.y + v1.z + v1.w, \
                                scale, t);                                                         \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        if ((BLOCK) == 32)                                                                         \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
    }                                                                                              \
                                                                                                   \
    /* every work-item's keys into each PU's minimum, through the cell                             \
     * buffer (free now), in rolled loops: few registers */                                        \
    {                                                                                              \
        __local uint *min_cost = cells, *min_idx = cells + 256, *kept = cells + 512;               \
        const int nb = a.p.nb_pus;                                                                 \
        _Pragma("unroll")                                                                          \
        for (int i = 0; i < NQ; i++)                                                               \
            kept[i * NT + tid] = kq[i];                                                            \
        _Pragma("unroll")                                                                          \
        for (int i = 0; i < N3; i++)                                                               \
            kept[(NQ + i) * NT + tid] = k3[i];                                                     \
        for (int i = tid; i < 512; i += NT)                                                        \
            cells[i] = FULL_NONE;                                                                  \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        _Pragma("unroll 1")                                                                        \
        for (int pass = 0; pass < 2; pass++) {                                                     \
            _Pragma("unroll 1")                                                                    \
            for (int i = 0; i < NQ + N3; i++) {                                                    \
                const uint key = kept[i * NT + tid];                                               \
                if (i < NQ) {                                                                      \
                    const int pu = (BLOCK) == 0 ? (i < 18 ? (4 * q + 2 * h + i / 9) * 9 + i % 9 :  \
                                                            144 + 13 * q + 7 * h + i - 18) :       \
                                   (BLOCK) == 8 ? (4 * q + i) * 9 : 144 + 13 * q;                  \
                    full_merge(key, pu, pass, f, ITEMS, sb, PG, n, min_cost, min_idx);             \
                } else {                                                                           \
                    full_merge(key, 196 + 7 * h3 + i - NQ, pass, f, 1, s3, 0, n,                   \
                               min_cost, min_idx);                                                 \
                }                                                                                  \
            }                                                                                      \
            barrier(CLK_LOCAL_MEM_FENCE);                                                          \
        }                                                                                          \
        if ((BLOCK) == 0) {                                                                        \
            for (int pu = tid; pu < nb; pu += NT)                                                  \
                pu_keys[(size_t)ctu_idx * nb + pu] = gpume_key(min_cost[pu], min_idx[pu]);         \
        } else {                                                                                   \
            for (int i = tid; i < a.nb_fixed_pus; i += NT) {                                       \
                const int pu = fixed_pus[i];                                                       \
                pu_keys[(size_t)ctu_idx * nb + pu] = gpume_key(min_cost[pu], min_idx[pu]);         \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
}

FULL_SEARCH32(gpume_full32, 0)
FULL_SEARCH32(gpume_full32_b8, 8)
FULL_SEARCH32(gpume_full32_b16, 16)
FULL_SEARCH32(gpume_full32_b32, 32)

/*
 * hme and full with blocks of 8 (ff_gpume_block8_search()): each block's
 * SAD straight from the pixels, in the structure of CUDA's
 * gpume_pu_blocks32. The CTU's whole search area is copied into local
 * memory once; work-items 32 w .. 32 w + 31 own rows 8 (w / 2) .. + 7 and
 * columns 16 (w % 2) .. + 15 of the CTU, two blocks, read a row of their
 * pixels at once and cost one candidate each; the 32 keys of a block meet
 * in b8_reduce(). Every barrier is reached by all work-items.
 */
/**
 * The keys of the 16 blocks, the least of their 32 work-items' (best0 for
 * block k0 and best1 for k1 from each work-item of a part), into red[32 j]
 * for block j. Called by all work-items.
 */
static void b8_reduce(__local ulong *red, int k0, int k1, ulong best0, ulong best1)
{
    const int tid = get_local_id(0);

#if GPUME_OCL_PTX
    for (int m = 16; m > 0; m >>= 1) {
        const ulong o0 = upsample(warp_xor((uint)(best0 >> 32), m), warp_xor((uint)best0, m));
        const ulong o1 = upsample(warp_xor((uint)(best1 >> 32), m), warp_xor((uint)best1, m));
        best0 = o0 < best0 ? o0 : best0;
        best1 = o1 < best1 ? o1 : best1;
    }
    if ((tid & 31) == 0) {
        red[k0 * 32] = best0;
        red[k1 * 32] = best1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    /* a tree over the lanes, neighbouring work-items reading neighbouring words */
    red[k0 * 32 + (tid & 31)] = best0;
    red[k1 * 32 + (tid & 31)] = best1;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 16; s > 0; s >>= 1) {
        const int i = (tid / s) * 32 + tid % s;
        if (tid < 16 * s && red[i + s] < red[i])
            red[i] = red[i + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
}

/**
 * SADs of the two blocks of a part inside the picture at byte offset o of
 * the search area; cur: the part's first row of pixels in the CTU, 8 words
 * a row.
 */
static inline void b8_sads(__local const uint *cur, __local const uint *area, int pitch, int o,
                           uint *s0, uint *s1)
{
    __local const uint *w = area + (o >> 2);
    const int sh = o & 3;
    uint a0 = 0, a1 = 0;

#pragma unroll
    for (int y = 0; y < 8; y++, w += pitch) {
        const uint r0 = w[0], r1 = w[1], r2 = w[2], r3 = w[3], r4 = w[4];
        const uint4 c = vload4(0, cur + 8 * y);
        a0 = sad4(c.x, full_bytes(r0, r1, sh), a0);
        a0 = sad4(c.y, full_bytes(r1, r2, sh), a0);
        a1 = sad4(c.z, full_bytes(r2, r3, sh), a1);
        a1 = sad4(c.w, full_bytes(r3, r4, sh), a1);
    }
    *s0 = a0;
    *s1 = a1;
}

/**
 * b8_sads() for a part cut by the picture's edge: samples past column vw
 * of the part or past its row rows count nothing. Not unrolled, so that
 * its masks take no registers of the kernel's.
 */
static void b8_sads_edge(__local const uint *cur, __local const uint *area, int pitch, int o,
                         int vw, int rows, uint *s0, uint *s1)
{
    __local const uint *w = area + (o >> 2);
    const int sh = o & 3;
    uint a0 = 0, a1 = 0;

#pragma unroll 1
    for (int y = 0; y < min(rows, 8); y++, w += pitch) {
        const uint r0 = w[0], r1 = w[1], r2 = w[2], r3 = w[3], r4 = w[4];
        const uint4 c = vload4(0, cur + 8 * y);
        a0 = sad4(c.x, full_bytes(r0, r1, sh) & gpume_byte_mask(vw),      a0);
        a0 = sad4(c.y, full_bytes(r1, r2, sh) & gpume_byte_mask(vw - 4),  a0);
        a1 = sad4(c.z, full_bytes(r2, r3, sh) & gpume_byte_mask(vw - 8),  a1);
        a1 = sad4(c.w, full_bytes(r3, r4, sh) & gpume_byte_mask(vw - 12), a1);
    }
    *s0 = a0;
    *s1 = a1;
}

/**
 * The windows of a CTU from local memory (win: x0 then y0) into x0[], y0[]:
 * read again where needed, they hold no registers through the search.
 */
static inline void b8_windows(__local const int *win, int *x0, int *y0)
{
#pragma unroll
    for (int w = 0; w < GPUME_HME_WINDOWS; w++) {
        x0[w] = win[w];
        y0[w] = win[GPUME_HME_WINDOWS + w];
    }
}

__kernel __attribute__((reqd_work_group_size(NT, 1, 1)))
void gpume_pu_blocks32(GpumeSearchArgs a, SEARCH_BUFFERS
                       GPUME_OCL_BLOCK8_LOCALS(GPUME_OCL_LOCAL_PARAM, GPUME_MAX_RANGE))
{
    const int tid = get_local_id(0), lane = tid & 31, part = tid >> 5;
    const int ctu_idx = get_group_id(0), R = a.p.range, pitch = GPUME_B8_PITCH(R);
    const int X = (ctu_idx % a.p.ctu_cols) * 32, Y = (ctu_idx / a.p.ctu_cols) * 32;
    const int vw = min(32, a.p.width - X), vh = min(32, a.p.height - Y);
    const int edge = vw < 32 || vh < 32;
    const int px = pred[2 * ctu_idx], py = pred[2 * ctu_idx + 1];
    const int part_x = 16 * (part & 1), part_y = 8 * (part >> 1);
    __local const uint *cur_part = cur_w + part_y * 8 + part_x / 4;
    const int hme = a.p.algo == GPUME_ALGO_HME, lambda = a.p.lambda;
    int total = gpume_pu_nb_candidates(a.p.algo, R);
    int round = 0, c0 = 0, added = 0, k0 = 0, k1 = 0;
    ulong best0 = GPUME_INVALID_KEY, best1 = GPUME_INVALID_KEY;

    if (hme && tid == 0) {
        int wx0[GPUME_HME_WINDOWS], wy0[GPUME_HME_WINDOWS];
        gpume_hme_windows(coarse, a.p.ctu_cols, a.p.ctu_rows, ctu_idx, px, py, R, wx0, wy0);
#pragma unroll
        for (int w = 0; w < GPUME_HME_WINDOWS; w++) {
            win[w] = wx0[w];
            win[GPUME_HME_WINDOWS + w] = wy0[w];
        }
    }
    /* the search area: rows Y - R .., columns X - R .. of the reference, 0 past the picture's part */
    {
        const int rp = a.ref[0].pitch, rows = vh + 2 * R, cols = vw + 2 * R;
        __global const uchar *ref = ref_buf + a.ref[0].offset + (Y - R) * rp + X - R;
        for (int i = tid; i < rows * pitch; i += NT) {
            const int y = i / pitch, x = 4 * (i % pitch);
            area[i] = x < cols ? load4_unaligned(ref + y * rp + x) & gpume_byte_mask(cols - x) : 0;
        }
    }
    /* the CTU, 0 outside the picture */
    for (int i = tid; i < 32 * 32 / 4; i += NT) {
        const int y = i / 8, x = 4 * (i % 8);
        cur_w[i] = y < vh && x < vw ?
                   load4_unaligned(cur_buf + a.cur[0].offset + (Y + y) * a.cur[0].pitch + X + x) &
                   gpume_byte_mask(vw - x) : 0;
    }
    /* this part's blocks among the fixed PUs */
    for (int k = 0; k < 16; k++) {
        const GpumePU pu = pu_table[fixed_pus[k]];
        if (4 * pu.t == part_y && 4 * pu.l == part_x)
            k0 = k;
        if (4 * pu.t == part_y && 4 * pu.l == part_x + 8)
            k1 = k;
    }
    barrier(CLK_LOCAL_MEM_FENCE);   /* win */
    {
        int wx0[GPUME_HME_WINDOWS], wy0[GPUME_HME_WINDOWS];
        b8_windows(win, wx0, wy0);
        hme_first_list(hme, 32, 8, R, coarse + ctu_idx, wx0, wy0, mask, list_idx, list_dx, list_dy,
                       &total);
    }

    for (int more = 1; more; ) {
        for (int c = lane; c < total; c += 32) {
            /* gpume_table_candidate(), whose full raster is all in range */
            const int dx = hme ? list_dx[c] : c % (2 * R + 1) - R;
            const int dy = hme ? list_dy[c] : c / (2 * R + 1) - R;
            const uint idx = hme ? list_idx[c] : (uint)c;
            const uint mvc = gpume_mv_cost(lambda, 4 * dx, 4 * dy, px, py);
            const int o = (R + dy + part_y) * 4 * pitch + R + dx + part_x;
            uint s0, s1;
            ulong key;
            if (edge)
                b8_sads_edge(cur_part, area, pitch, o, vw - part_x, vh - part_y, &s0, &s1);
            else
                b8_sads(cur_part, area, pitch, o, &s0, &s1);
            key   = gpume_key(s0 + mvc, idx);
            best0 = key < best0 ? key : best0;
            key   = gpume_key(s1 + mvc, idx);
            best1 = key < best1 ? key : best1;
        }
        /* hme rounds, as in gpume_pu_search: the seeds are the blocks' winners */
        more = hme && round < GPUME_HME_ROUNDS;
        {
            const int seeding = more && !c0;
            if (seeding)
                b8_reduce(red, k0, k1, best0, best1);
            if (seeding && tid < 16) {
                int wx0[GPUME_HME_WINDOWS], wy0[GPUME_HME_WINDOWS], vx, vy;
                b8_windows(win, wx0, wy0);
                gpume_key_vector(red[tid * 32], GPUME_ALGO_HME, R, wx0, wy0, &vx, &vy);
                seed_x[round * 16 + tid] = vx;
                seed_y[round * 16 + tid] = vy;
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        {
            int wx0[GPUME_HME_WINDOWS], wy0[GPUME_HME_WINDOWS];
            b8_windows(win, wx0, wy0);
            total = hme_round_step(more, 16, R, seed_x, seed_y, wx0, wy0, mask,
                                   list_idx, list_dx, list_dy, &round, &c0, &added);
        }
    }

    b8_reduce(red, k0, k1, best0, best1);
    if (tid < 16)
        pu_keys[(size_t)ctu_idx * a.p.nb_pus + fixed_pus[tid]] = red[tid * 32];
}
#endif /* GPUME_CTU == 32 */

/**
 * Partition choice (or the fixed blocks), then sub-pel refinement of every
 * exported PU; writes the CTU's blocks and count. One work-group per CTU.
 * Each stage costs the 9 points of every PU at once: one work-item per row
 * segment of a PU sums its samples for all points (gpume_subpel_segment()),
 * then one per (PU, point) adds the segments and one per PU picks the best
 * key. No atomics, so sums are exact and the
 * order of additions does not matter.
 */
__kernel __attribute__((reqd_work_group_size(NT, 1, 1)))
void gpume_refine(GpumeSearchArgs a, SEARCH_BUFFERS
                  GPUME_OCL_REFINE_LOCALS(GPUME_OCL_LOCAL_PARAM, GPUME_CTU))
{
    const int tid = get_local_id(0), ctu_idx = get_group_id(0);
    const int X = (ctu_idx % a.p.ctu_cols) * a.p.ctu, Y = (ctu_idx / a.p.ctu_cols) * a.p.ctu;
    const int px = pred[2 * ctu_idx], py = pred[2 * ctu_idx + 1];
    __global const ulong *keys = pu_keys + (size_t)ctu_idx * a.p.nb_pus;
    __global GpumeBlock *out = blocks + (size_t)ctu_idx * a.p.max_out;
    __global const uchar *cur = cur_buf + a.cur[0].offset, *ref = ref_buf + a.ref[0].offset;
    const int cur_pitch = a.cur[0].pitch, ref_pitch = a.ref[0].pitch;
    __local short *bx = geo, *by = bx + GPUME_OCL_OUT(CTU), *bw = by + GPUME_OCL_OUT(CTU);
    __local short *bh = bw + GPUME_OCL_OUT(CTU), *qx = bh + GPUME_OCL_OUT(CTU), *qy = qx + GPUME_OCL_OUT(CTU);
    int wx0[GPUME_HME_WINDOWS], wy0[GPUME_HME_WINDOWS];
    int nb_out, nb_segs;

    pu_windows(&a, coarse, ctu_idx, px, py, wx0, wy0);
    if (a.p.block) {
        for (int i = tid; i < a.nb_fixed_pus; i += NT)
            chosen[i] = fixed_pus[i];
        if (tid == 0)
            *nb_chosen = a.nb_fixed_pus;
    } else {
        for (int i = tid; i < a.p.nb_pus; i += NT)
            cost[i] = keys[i] >> 32;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (tid == 0)
            *nb_chosen = gpume_choose_partition(cost, a.p.ctu, a.p.pu_penalty, tmp_cost, tmp_mode, chosen);
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* clipped geometry and integer vectors of the exported PUs (those inside
     * the frame, in order: one work-item each), their row segments numbered
     * by a prefix sum */
    {
        const int i = tid;
        int x = 0, y = 0, w = 0, h = 0, segs, k;
        if (i < *nb_chosen) {
            const GpumePU pu = pu_table[chosen[i]];
            x = X + 4 * pu.l;
            y = Y + 4 * pu.t;
            w = min(4 * (pu.r - pu.l), a.p.width - x);
            h = min(4 * (pu.b - pu.t), a.p.height - y);
        }
        if (w <= 0 || h <= 0)
            w = h = 0;
        /* the PU's row segments of at most 4 samples */
        segs = h * ((w + 3) >> 2);
        k = compact_place(h > 0, mask, &nb_out);
        scan[tid] = segs;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int d = 1; d < NT; d <<= 1) {
            const int v = tid >= d ? scan[tid - d] : 0;
            barrier(CLK_LOCAL_MEM_FENCE);
            scan[tid] += v;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (h > 0) {
            const int first = scan[tid] - segs;
            int vx, vy;
            gpume_key_vector(keys[chosen[i]], a.p.algo, a.p.range, wx0, wy0, &vx, &vy);
            bx[k] = x; by[k] = y; bw[k] = w; bh[k] = h;
            qx[k] = 4 * vx;
            qy[k] = 4 * vy;
            first_seg[k] = first;
            for (int j = 0; j < segs; j++)
                seg_pu[first + j] = k;
        }
        nb_segs = scan[NT - 1];
        if (tid == 0)
            first_seg[nb_out] = nb_segs;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* stages: the integer SAD only (subpel=0), or half then quarter pel */
    for (int step = a.p.subpel ? 2 : 0; step >= (a.p.subpel == 2 ? 1 : a.p.subpel ? 2 : 0); step--) {
        const int np = step ? 9 : 1;
        for (int sg = tid; sg < nb_segs; sg += NT) {
            const int k = seg_pu[sg], n = (bw[k] + 3) >> 2, s = sg - first_seg[k];
            const int y = by[k] + s / n, x0 = bx[k] + 4 * (s % n), w = min(4, bw[k] - 4 * (s % n));
            __global const uchar *c = cur + y * cur_pitch + x0;
            if (!step) {
                __global const uchar *r = ref + (y + qy[k] / 4) * ref_pitch + x0 + qx[k] / 4;
                uint acc = 0;
                for (int x = 0; x < w; x++)
                    acc += abs_diff(c[x], r[x]);
                seg_sad[sg] = acc;
            } else {
                uint pts[9];
                gpume_subpel_segment(c, ref, ref_pitch, x0, y, w, qx[k], qy[k], step, pts);
#pragma unroll
                for (int i = 0; i < 9; i++)
                    seg_sad[sg * 9 + i] = pts[i];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int it = tid; it < np * nb_out; it += NT) {
            const int i = it % np, k = it / np;
            uint sum = 0;
            for (int sg = first_seg[k]; sg < first_seg[k + 1]; sg++)
                sum += seg_sad[sg * np + i];
            sad[k * 9 + i] = sum;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = tid; k < nb_out && step; k += NT) {
            ulong best = GPUME_INVALID_KEY;
            int bi = 0, ox, oy;
            for (int i = 0; i < 9; i++) {
                ulong key;
                gpume_subpel_offset(i, step, &ox, &oy);
                key = gpume_key(sad[k * 9 + i] + gpume_mv_cost(a.p.lambda, qx[k] + ox, qy[k] + oy, px, py), i);
                if (key < best) {
                    best = key;
                    bi   = i;
                }
            }
            gpume_subpel_offset(bi, step, &ox, &oy);
            qx[k] += ox;
            qy[k] += oy;
            sad[k * 9] = sad[k * 9 + bi];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    for (int k = tid; k < nb_out; k += NT)
        out[k] = gpume_make_block(bx[k], by[k], bw[k], bh[k], qx[k], qy[k], sad[k * 9]);
    if (tid == 0)
        counts[ctu_idx] = nb_out;
}

/**
 * One LFS template step around (cxv, cyv): one work-item per template
 * point, integer (qpel = 0) or quarter-pel (qpel = 1) positions. Returns
 * the winner's SAD; (*bx, *by) is the winner.
 */
static uint lfs_step(const GpumeSearchArgs *a, __global const uchar *cur_buf,
                     __global const uchar *ref_buf, int x, int y, int w, int h,
                     int cxv, int cyv, int stride, int qpel, int px, int py,
                     __local ulong *red, __local uint *sad_of, int *bx, int *by)
{
    const int tid = get_local_id(0);
    const int i = tid % GPUME_LFS_N, j = tid / GPUME_LFS_N;
    const int dx = cxv + (GPUME_LFS_LO + i) * stride, dy = cyv + (GPUME_LFS_LO + j) * stride;
    ulong key = GPUME_INVALID_KEY;
    uint sad = 0;

    if (qpel) {
        __global const uchar *cur0 = cur_buf + a->cur[0].offset;
        __global const uchar *ref0 = ref_buf + a->ref[0].offset;
        for (int yy = 0; yy < h; yy++)
            for (int xx = 0; xx < w; xx++)
                sad += gpume_iabs(cur0[(y + yy) * a->cur[0].pitch + x + xx] -
                                  gpume_sample_qpel(ref0, a->ref[0].pitch, a->ref[0].w, a->ref[0].h,
                                                    4 * (x + xx) + dx, 4 * (y + yy) + dy));
        key = gpume_key(sad + gpume_mv_cost(a->p.lambda, dx, dy, px, py), tid);
    } else if (gpume_in_range(dx, dy, a->p.range)) {
        sad = plane_sad(cur_buf, a->cur[0], ref_buf, a->ref[0], x, y, w, h, dx, dy);
        key = gpume_key(sad + gpume_mv_cost(a->p.lambda, 4 * dx, 4 * dy, px, py), tid);
    }
    sad_of[tid] = sad;
    key = wg_min_key(key, red, tid, GPUME_LFS_THREADS);
    {
        const int w_idx = (uint)key;
        *bx = cxv + (GPUME_LFS_LO + w_idx % GPUME_LFS_N) * stride;
        *by = cyv + (GPUME_LFS_LO + w_idx / GPUME_LFS_N) * stride;
        sad = sad_of[w_idx];
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* sad_of is rewritten by the next step */
    return sad;
}

/** LFS over the fixed blocks of one CTU; one work-item per template point. */
__kernel __attribute__((reqd_work_group_size(GPUME_LFS_THREADS, 1, 1)))
void gpume_lfs(GpumeSearchArgs a, SEARCH_BUFFERS
               GPUME_OCL_LFS_LOCALS(GPUME_OCL_LOCAL_PARAM, GPUME_CTU))
{
    const int tid = get_local_id(0), ctu_idx = get_group_id(0);
    const int X = (ctu_idx % a.p.ctu_cols) * a.p.ctu, Y = (ctu_idx / a.p.ctu_cols) * a.p.ctu;
    const int px = pred[2 * ctu_idx], py = pred[2 * ctu_idx + 1];
    __global GpumeBlock *out = blocks + (size_t)ctu_idx * a.p.max_out;
    int nout = 0;

    for (int k = 0; k < a.nb_fixed_pus; k++) {
        const GpumePU pu = pu_table[fixed_pus[k]];
        const int x = X + 4 * pu.l, y = Y + 4 * pu.t;
        const int w = min(a.p.block, a.p.width - x), h = min(a.p.block, a.p.height - y);
        const uint thr = (uint)a.p.lfs_threshold * w * h / 64;
        GpumeLfs l;
        int bx, by;
        uint sad;

        if (w <= 0 || h <= 0)
            continue;
        gpume_lfs_start(&l);
        do {
            /* stride and unit as constants: each kind of step is specialised */
            if (l.qpel && l.stride == 1)
                sad = lfs_step(&a, cur_buf, ref_buf, x, y, w, h, l.cx, l.cy, 1, 1,
                               px, py, red, sad_of, &bx, &by);
            else if (l.qpel)
                sad = lfs_step(&a, cur_buf, ref_buf, x, y, w, h, l.cx, l.cy, 2, 1,
                               px, py, red, sad_of, &bx, &by);
            else if (l.stride == 1)
                sad = lfs_step(&a, cur_buf, ref_buf, x, y, w, h, l.cx, l.cy, 1, 0,
                               px, py, red, sad_of, &bx, &by);
            else
                sad = lfs_step(&a, cur_buf, ref_buf, x, y, w, h, l.cx, l.cy, 2, 0,
                               px, py, red, sad_of, &bx, &by);
        } while (gpume_lfs_next(&l, bx, by, sad, thr, a.p.subpel));
        if (tid == 0)
            out[nout] = gpume_make_block(x, y, w, h, l.bx, l.by, l.sad);
        nout++;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0)
        counts[ctu_idx] = nout;
}

/* dis: one work-item a sample, a patch or a pixel (gpume_dis.h); each
 * level's samples at its offset of the buffer given */

/** Level k + 1 of the dis pyramid (dl in dst) from level k (sl in src). */
__kernel void gpume_dis_down(GpumeDisLevel sl, __global const uchar *src, GpumeDisLevel dl,
                             __global uchar *dst)
{
    const int x = get_global_id(0), y = get_global_id(1);

    if (x < dl.w && y < dl.h)
        dst[dl.offset + y * dl.pitch + x] = gpume_downscale_px(src + sl.offset, sl.pitch, sl.w, sl.h, x, y);
}

/** The vectors of a level's patches, a work-group of gpume_dis_patches_block() each. */
__kernel __attribute__((reqd_work_group_size(GPUME_DIS_GROUP, 1, 1)))
void gpume_dis_patches(GpumeDisLevel l, __global const uchar *cur, __global const uchar *ref,
                       __global const int *coarse, int coarse_w, __global int *patch,
                       GpumeDisHmeArgs ha, __global const GpumeBlock *hme,
                       __global const GpumePU *pu, __global const ushort *fixed)
{
    __local int tpl[GPUME_DIS_TPL_W * GPUME_DIS_TPL_H];
    __local long err[GPUME_DIS_BW * GPUME_DIS_BH];
    __local int vec[2 * GPUME_DIS_BW * GPUME_DIS_BH];
    __local int list[GPUME_DIS_BW * GPUME_DIS_BH];
    __local int counts[2];

    gpume_dis_patches_block(l, cur, ref, coarse, coarse_w, patch, ha, hme, pu, fixed, get_local_id(0),
                            get_group_id(0) * GPUME_DIS_BW, get_group_id(1) * GPUME_DIS_BH,
                            tpl, err, vec, list, counts);
}

/** A level's field from its patches. */
__kernel void gpume_dis_densify(GpumeDisLevel l, __global const uchar *cur, __global const uchar *ref,
                                __global const int *patch, __global int *field)
{
    const int x = get_global_id(0), y = get_global_id(1);

    if (x < l.w && y < l.h)
        gpume_dis_densify_px(cur + l.offset, l.pitch, ref + l.offset, l.pitch, l.w, l.h, patch, x, y,
                             field);
}

/** The exported blocks: a work-group a CTU, a work-item its fixed PU k. */
__kernel void gpume_dis_blocks(GpumeDisBlockArgs a, __global const uchar *cur, __global const uchar *ref,
                               __global const int *field, __global const GpumePU *pu,
                               __global const ushort *fixed, __global GpumeBlock *blocks,
                               __global ushort *counts)
{
    gpume_dis_blocks_item(a, cur, ref, field, pu, fixed, blocks, counts, get_group_id(0), get_local_id(0));
}
