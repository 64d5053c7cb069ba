/*
 * gpume: CUDA kernels. They reproduce the CPU reference (docs/ALGORITHMS.md)
 * bit for bit: integer arithmetic only, and every arg-min is a minimum of
 * (cost, index) keys, so thread order never matters.
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

#include "gpume_cuda.h"
#include "gpume_dis.h"

/* FFmpeg's clang CUDA shim has no __shared__ or __noinline__ */
#ifdef __NVCC__
#define GPUME_SHARED   __shared__
#define GPUME_NOINLINE __noinline__
#else
#define GPUME_SHARED   __attribute__((shared))
#define GPUME_NOINLINE __attribute__((noinline))
#endif

#ifdef __NVCC__
#define GPUME_ATOMIC_OR(p, v) atomicOr(p, v)
#define GPUME_POPC(v)         __popc(v)
#else
#define GPUME_ATOMIC_OR(p, v) __atomic_fetch_or(p, v, __ATOMIC_RELAXED)
#define GPUME_POPC(v)         __builtin_popcount(v)
#endif

#define NT GPUME_KERNEL_THREADS

/** Sum of |a_i - b_i| over the four bytes of a and b, plus c (one PTX video op). */
__device__ static inline uint32_t sad4(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t d;
    asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

/** Four words that one vector load reads (16-byte aligned). */
typedef struct __attribute__((aligned(16))) GpumeWords4 {
    uint32_t w[4];
} GpumeWords4;

/** Bytes s..s+3 of the 8 bytes lo, hi (s = sel's step). */
__device__ static inline uint32_t prmt(uint32_t lo, uint32_t hi, uint32_t sel)
{
    uint32_t d;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(lo), "r"(hi), "r"(sel));
    return d;
}

/**
 * The keys of PUs shared by G threads, red[g * nb + j] for g < G, reduced
 * into red[j] (a tree over g). Called by all threads.
 */
__device__ static void reduce_groups(uint64_t *red, int nb, int G)
{
    const int tid = threadIdx.x;
    int s = 1;

    while (s < G)
        s <<= 1;
    for (s >>= 1; s > 0; s >>= 1) {
        if (tid < s * nb && tid + s * nb < G * nb && red[tid + s * nb] < red[tid])
            red[tid] = red[tid + s * nb];
        __syncthreads();
    }
}

/** Block-wide minimum of one key per thread; all threads get the result. */
__device__ static uint64_t block_min_key(uint64_t key, uint64_t *red, int tid, int nt)
{
    red[tid] = key;
    __syncthreads();
    for (int s = nt / 2; s > 0; s >>= 1) {
        if (tid < s && red[tid + s] < red[tid])
            red[tid] = red[tid + s];
        __syncthreads();
    }
    key = red[0];
    __syncthreads();
    return key;
}

/** SAD of the w x h block at (x, y) of plane cp of cur against (x + dx, y + dy) of plane rp of ref. */
__device__ static uint32_t plane_sad(const uint8_t *cur, GpumePlane cp, const uint8_t *ref, GpumePlane rp,
                                     int x, int y, int w, int h, int dx, int dy)
{
    const uint8_t *c = cur + cp.offset + y * cp.pitch + x;
    const uint8_t *r = ref + rp.offset + (y + dy) * rp.pitch + x + dx;
    uint32_t sad = 0;
    for (int j = 0; j < h; j++, c += cp.pitch, r += rp.pitch)
        for (int i = 0; i < w; i++)
            sad += gpume_iabs(c[i] - r[i]);
    return sad;
}

/**
 * A picture's pyramid once level 0 is loaded, in one launch, so that no
 * level waits for another: the border of level 0, and every sample of the
 * coarse levels, border included, straight from level 0
 * (gpume_pyramid_px()).
 */
extern "C" __global__ void gpume_pyramid(GpumePyramidArgs a, uint8_t *pic)
{
    int r = 0;
    while (r + 1 < a.nb_rects && blockIdx.x >= a.rect[r + 1].first_block)
        r++;
    const GpumePyramidRect rc = a.rect[r];
    const GpumePlane d = a.level[rc.level], l0 = a.level[0];
    const int b = blockIdx.x - rc.first_block, cols = (rc.w + GPUME_PYR_BW - 1) / GPUME_PYR_BW;
    const int x = rc.x + b % cols * GPUME_PYR_BW + threadIdx.x;
    const int y = rc.y + b / cols * GPUME_PYR_BH + threadIdx.y;

    if (x >= rc.x + rc.w || y >= rc.y + rc.h)
        return;
    pic[d.offset + y * d.pitch + x] =
        gpume_pyramid_px(pic + l0.offset, l0.pitch, l0.w, l0.h, a.level[1].w, a.level[1].h,
                         rc.level, gpume_clip(x, 0, d.w - 1), gpume_clip(y, 0, d.h - 1));
}

/** The temporal predictor of each CTU from an earlier estimate (pred=temporal). */
extern "C" __global__ void gpume_predictor(GpumePredArgs a, const GpumeBlock *blocks,
                                            const uint16_t *counts, int16_t *pred)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;

    if (c < a.nb_ctus)
        gpume_ctu_predictor(blocks, counts, a.max_out, c, pred);
}

#define L2_MAX_R       ((GPUME_MAX_RANGE + 3) >> 2)
#define L2_PER_THREAD  (((2 * L2_MAX_R + 1) * (2 * L2_MAX_R + 1) + NT - 1) / NT)
#define L2_BLOCK       (GPUME_MAX_CTU / 4)                  ///< the CTU's block at level 2
#define L1_BLOCK       (GPUME_MAX_CTU / 2)                  ///< the CTU's block at level 1
#define L1_POINTS      ((2 * GPUME_HME_L1_RANGE + 1) * (2 * GPUME_HME_L1_RANGE + 1))
#define L1_PARTS       (NT / (GPUME_HME_MINIMA * L1_POINTS)) ///< threads sharing a level-1 SAD
#define L2_PITCH       GPUME_WINDOW_PITCH(L2_BLOCK, L2_MAX_R)
#define L1_PITCH       GPUME_WINDOW_PITCH(L1_BLOCK, GPUME_HME_L1_RANGE)

/** The 4 bytes at p, which need not be aligned. */
__device__ static inline uint32_t load4_unaligned(const uint8_t *p)
{
    const uint64_t a = (uint64_t)p;
    const uint32_t *w = (const uint32_t *)(a & ~(uint64_t)3);
    const uint64_t v = (uint64_t)w[1] << 32 | w[0];
    return (uint32_t)(v >> (8 * (a & 3)));
}

/**
 * The cols x rows samples at (x, y) of plane pl as words, pitch words per
 * row, 0 past cols and in the words after them; all threads.
 */
__device__ static void load_words(const uint8_t *pic, GpumePlane pl, int x, int y, int cols, int rows,
                                  int pitch, uint32_t *dst)
{
    const uint8_t *src = pic + pl.offset + y * pl.pitch + x;
    for (int i = threadIdx.x; i < rows * pitch; i += NT) {
        const int row = i / pitch, w = 4 * (i - row * pitch);
        dst[i] = w < cols ? load4_unaligned(src + row * pl.pitch + w) & gpume_byte_mask(cols - w) : 0;
    }
}

/**
 * SAD of the rows y0, y0 + step, ... below h of a block of BW words a row,
 * cur (its first vw samples of a row inside the picture, 0 after them),
 * against ref at byte offset o of its first row (pitch words a row).
 */
template <int BW>
__device__ static uint32_t words_sad(const uint32_t *cur, int vw, const uint32_t *ref,
                                     int pitch, int o, int y0, int h, int step)
{
    const uint32_t sel = 0x3210u + 0x1111u * (o & 3);
    uint32_t cm[BW], sad = 0;

    /* the reference's bytes past vw count nothing, as cur's */
#pragma unroll
    for (int i = 0; i < BW; i++)
        cm[i] = gpume_byte_mask(vw - 4 * i);
    ref += o >> 2;
    for (int y = y0; y < h; y += step) {
        const uint32_t *c = cur + y * BW, *w = ref + y * pitch;
#pragma unroll
        for (int i = 0; i < BW; i++)
            sad = sad4(c[i], prmt(w[i], w[i + 1], sel) & cm[i], sad);
    }
    return sad;
}

/** The keys of a thread's level-2 candidates c = tid + i NT (block of BW words a row). */
template <int BW>
__device__ static void l2_keys(const uint32_t *cur2, const uint32_t *ref2, int pitch, int vw, int vh,
                               int r, int lambda, uint64_t (&keys)[L2_PER_THREAD])
{
    const int n = 2 * r + 1;

#pragma unroll
    for (int i = 0; i < L2_PER_THREAD; i++) {
        const int c = threadIdx.x + i * NT;
        keys[i] = GPUME_INVALID_KEY;
        if (c < n * n) {
            const int dx = c % n - r, dy = c / n - r;
            const uint32_t sad = words_sad<BW>(cur2, vw, ref2 + (dy + r) * pitch, pitch, dx + r, 0, vh, 1);
            keys[i] = gpume_key(sad + lambda * (gpume_iabs(dx) + gpume_iabs(dy)), c);
        }
    }
}

/** Part part of the level-1 SAD at point c of minimum k's window (block of BW words a row). */
template <int BW>
__device__ static uint32_t l1_part(const uint32_t *cur1, const uint32_t *ref1, int pitch, int vw1, int vh1,
                                   int c, int part)
{
    const int n1 = 2 * GPUME_HME_L1_RANGE + 1;
    return words_sad<BW>(cur1, vw1, ref1 + (c / n1) * pitch, pitch, c % n1, part, vh1, L1_PARTS);
}

/**
 * hme levels 2 and 1 of every CTU: the GPUME_HME_MINIMA separated minima of
 * the level-2 full search (each thread keeps the keys of its candidates),
 * each refined at level 1; writes the CTU's GpumeHmeCoarse. The blocks and
 * their reference windows are read once into shared memory as words, four
 * samples a packed SAD; the level-1 searches of the minima run at once,
 * L1_PARTS threads summing the rows of one point's SAD.
 */
extern "C" __global__ __attribute__((launch_bounds(NT, 8))) void gpume_hme_coarse(GpumeSearchArgs a, GpumeCudaBuffers b)
{
    GPUME_SHARED uint64_t red[NT];
    GPUME_SHARED uint32_t cur2[L2_BLOCK * L2_BLOCK / 4], ref2[(L2_BLOCK + 2 * L2_MAX_R) * L2_PITCH];
    GPUME_SHARED uint32_t cur1[L1_BLOCK * L1_BLOCK / 4];
    GPUME_SHARED uint32_t ref1[GPUME_HME_MINIMA][(L1_BLOCK + 2 * GPUME_HME_L1_RANGE) * L1_PITCH];
    GPUME_SHARED uint32_t part[GPUME_HME_MINIMA * L1_POINTS][L1_PARTS];
    GPUME_SHARED int mx[GPUME_HME_MINIMA], my[GPUME_HME_MINIMA];
    const int tid = threadIdx.x, ctu_idx = blockIdx.x;
    const int cx = ctu_idx % a.p.ctu_cols, cy = ctu_idx / a.p.ctu_cols;
    const int bs = a.p.ctu >> 2, bw = bs >> 2, x0 = (cx * a.p.ctu) >> 2, y0 = (cy * a.p.ctu) >> 2;
    const int vw = min(bs, a.cur[2].w - x0), vh = min(bs, a.cur[2].h - y0);
    const int r = gpume_hme_l2_range(a.p.range), n = 2 * r + 1, pitch2 = GPUME_WINDOW_PITCH(bs, r);
    const int x1 = (cx * a.p.ctu) >> 1, y1 = (cy * a.p.ctu) >> 1;
    const int vw1 = min(2 * bs, a.cur[1].w - x1), vh1 = min(2 * bs, a.cur[1].h - y1);
    const int r1 = GPUME_HME_L1_RANGE, n1 = 2 * r1 + 1, pitch1 = GPUME_WINDOW_PITCH(2 * bs, r1);
    /* the tree of the minima over the threads that hold candidates */
    int nt = 32;
    uint64_t keys[L2_PER_THREAD];

    while (nt < NT && nt < n * n)
        nt <<= 1;
    load_words(b.cur, a.cur[2], x0, y0, vw, vh, bw, cur2);
    load_words(b.ref, a.ref[2], x0 - r, y0 - r, vw + 2 * r, vh + 2 * r, pitch2, ref2);
    load_words(b.cur, a.cur[1], x1, y1, vw1, vh1, 2 * bw, cur1);
    __syncthreads();
    if (bw == 1)
        l2_keys<1>(cur2, ref2, pitch2, vw, vh, r, a.p.lambda, keys);
    else if (bw == 2)
        l2_keys<2>(cur2, ref2, pitch2, vw, vh, r, a.p.lambda, keys);
    else
        l2_keys<4>(cur2, ref2, pitch2, vw, vh, r, a.p.lambda, keys);
    for (int k = 0; k < GPUME_HME_MINIMA; k++) {
        uint64_t best = GPUME_INVALID_KEY;
#pragma unroll
        for (int i = 0; i < L2_PER_THREAD; i++)
            if (keys[i] < best && gpume_hme_separate(tid + i * NT, r, k, mx, my))
                best = keys[i];
        best = block_min_key(best, red, tid, nt);
        if (tid == 0) {
            if (best == GPUME_INVALID_KEY) {  /* nothing far enough: the best again */
                mx[k] = mx[0];
                my[k] = my[0];
            } else {
                mx[k] = (int)((uint32_t)best % n) - r;
                my[k] = (int)((uint32_t)best / n) - r;
            }
        }
        __syncthreads();
    }

    /* level 1: the 5x5 points around each minimum, scaled */
    for (int k = 0; k < GPUME_HME_MINIMA; k++)
        load_words(b.ref, a.ref[1], x1 + 2 * mx[k] - r1, y1 + 2 * my[k] - r1, vw1 + 2 * r1, vh1 + 2 * r1,
                   pitch1, ref1[k]);
    __syncthreads();
    if (tid < GPUME_HME_MINIMA * L1_POINTS * L1_PARTS) {
        const int part_idx = tid % L1_PARTS, point = tid / L1_PARTS;
        const int k = point / L1_POINTS, c = point % L1_POINTS;
        part[point][part_idx] =
            bw == 1 ? l1_part<2>(cur1, ref1[k], pitch1, vw1, vh1, c, part_idx) :
            bw == 2 ? l1_part<4>(cur1, ref1[k], pitch1, vw1, vh1, c, part_idx) :
                      l1_part<8>(cur1, ref1[k], pitch1, vw1, vh1, c, part_idx);
    }
    __syncthreads();
    if (tid < GPUME_HME_MINIMA) {
        const int k = tid;
        uint64_t best = GPUME_INVALID_KEY;
        for (int c = 0; c < L1_POINTS; c++) {
            const int dx = 2 * mx[k] + c % n1 - r1, dy = 2 * my[k] + c / n1 - r1;
            uint32_t sad = 0;
            for (int j = 0; j < L1_PARTS; j++)
                sad += part[k * L1_POINTS + c][j];
            {
                const uint64_t key = gpume_key(sad + a.p.lambda * (gpume_iabs(dx) + gpume_iabs(dy)), c);
                if (key < best)
                    best = key;
            }
        }
        {
            const int v1x = 2 * mx[k] + (int)((uint32_t)best % n1) - r1;
            const int v1y = 2 * my[k] + (int)((uint32_t)best / n1) - r1;
            b.coarse[ctu_idx].v[k][0] = gpume_clip(2 * v1x, -a.p.range, a.p.range);
            b.coarse[ctu_idx].v[k][1] = gpume_clip(2 * v1y, -a.p.range, a.p.range);
        }
    }
}

#define LB_MAX_R   ((GPUME_MAX_RANGE + 1) >> 1)        ///< level-1 block search radius, at most
#define LB_N       (2 * LB_MAX_R + 1)                  ///< its rows of candidates, at most
#define LB_PITCH   ((L1_BLOCK + 2 * LB_MAX_R + 4) / 4 + 1) ///< words per row of its reference window, at most
#define LB_BLOCKS  (GPUME_HME_BLOCK_VECTORS / GPUME_HME_BLOCK_MINIMA)

/**
 * hme level-1 block search: the least key among the candidates of row dy
 * (of 2r + 1) in quads [q0, q1) (four adjacent columns each) of the
 * BS x BS block at (bx, by) of the CTU's level-1 block, whole inside the
 * picture; with EXCL, leaving out the columns within 1 of xout. Four bytes
 * per operation, the reference words of a row shared by adjacent quads.
 */
template <int BS, bool EXCL>
__device__ static uint64_t block_part(const uint32_t *cur_w, const uint32_t *ref_w, int pitch,
                                      int bx, int by, int dy, int r, int q0, int q1,
                                      int lambda, int xout)
{
    const int n = 2 * r + 1;
    const uint32_t *cw = cur_w + by * (L1_BLOCK / 4) + bx / 4;
    uint32_t best = 0xffffffffu;
    int best_x = 0;

    for (int q = q0; q < q1; q++) {
        const uint32_t *rw = ref_w + (by + dy + r) * pitch + bx / 4 + q;
        uint32_t sad[4] = { 0, 0, 0, 0 };
#pragma unroll
        for (int y = 0; y < BS; y++) {
            uint32_t lo = rw[y * pitch];
#pragma unroll
            for (int w = 0; w < BS / 4; w++) {
                const uint32_t c = cw[y * (L1_BLOCK / 4) + w], hi = rw[y * pitch + w + 1];
                sad[0] = sad4(c, lo, sad[0]);
                sad[1] = sad4(c, prmt(lo, hi, 0x4321), sad[1]);
                sad[2] = sad4(c, prmt(lo, hi, 0x5432), sad[2]);
                sad[3] = sad4(c, prmt(lo, hi, 0x6543), sad[3]);
                lo = hi;
            }
        }
        /* in index order: a strict minimum keeps the least index of a cost;
         * columns past the row (the last quad's) cost the most */
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int x = 4 * q + i;
            const uint32_t cost = x < n ? sad[i] + lambda * gpume_iabs(x - r) : 0xffffffffu;
            if (cost < best && (!EXCL || gpume_iabs(x - r - xout) > GPUME_HME_MINIMA_SEP)) {
                best   = cost;
                best_x = x;
            }
        }
    }
    return best == 0xffffffffu ? GPUME_INVALID_KEY :
           gpume_key(best + lambda * gpume_iabs(dy), (dy + r) * n + best_x);
}

/** One block_part() for a level-1 block side bs of 4, 8, 16 or 32. */
template <bool EXCL>
__device__ static uint64_t block_part_bs(int bs, const uint32_t *cur_w, const uint32_t *ref_w, int pitch,
                                         int bx, int by, int dy, int r, int q0, int q1,
                                         int lambda, int xout)
{
    switch (bs) {
    case 4:  return block_part<4,  EXCL>(cur_w, ref_w, pitch, bx, by, dy, r, q0, q1, lambda, xout);
    case 8:  return block_part<8,  EXCL>(cur_w, ref_w, pitch, bx, by, dy, r, q0, q1, lambda, xout);
    case 16: return block_part<16, EXCL>(cur_w, ref_w, pitch, bx, by, dy, r, q0, q1, lambda, xout);
    default: return block_part<32, EXCL>(cur_w, ref_w, pitch, bx, by, dy, r, q0, q1, lambda, xout);
    }
}

/** block_part() for a block of vw x vh samples inside the picture, cut by its edge. */
__device__ static uint64_t block_part_edge(const uint32_t *cur_w, const uint32_t *ref_w, int pitch,
                                           int bx, int by, int vw, int vh, int dy, int r,
                                           int q0, int q1, int lambda, int xout)
{
    const uint8_t *cur_s = (const uint8_t *)cur_w, *ref_s = (const uint8_t *)ref_w;
    const int n = 2 * r + 1;
    uint64_t best = GPUME_INVALID_KEY;

    for (int x = 4 * q0; x < min(4 * q1, n); x++) {
        uint32_t sad = 0;
        uint64_t key;
        for (int y = 0; y < vh; y++)
            for (int i = 0; i < vw; i++)
                sad += gpume_iabs(cur_s[(by + y) * L1_BLOCK + bx + i] -
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
 * its reference window are read once into shared memory. A thread finds the
 * least key of one part (up to P of them) of one row of candidates of one
 * block, then a thread per row the least of its parts and a thread per
 * block the least of its rows; for the second minimum only the rows within
 * 1 of the first are searched again, without the first's neighbours. Items
 * are numbered block-major and a thread steps through them by NT, its
 * indices carried rather than divided.
 */
extern "C" __global__ void gpume_hme_blocks(GpumeSearchArgs a, GpumeCudaBuffers b)
{
    GPUME_SHARED uint32_t cur_w[L1_BLOCK * L1_BLOCK / 4], ref_w[(L1_BLOCK + 2 * LB_MAX_R) * LB_PITCH];
    GPUME_SHARED uint64_t part_best[LB_BLOCKS * LB_N];
    GPUME_SHARED int16_t m0[LB_BLOCKS][2];
    const int tid = threadIdx.x, ctu_idx = blockIdx.x;
    const int cx = ctu_idx % a.p.ctu_cols, cy = ctu_idx / a.p.ctu_cols;
    const int bs = gpume_hme_block_size(a.p.block) >> 1, side = gpume_hme_blocks_per_side(a.p.ctu, a.p.block);
    const int nblk = side * side;
    const int r = gpume_hme_l1_block_range(a.p.range), n = 2 * r + 1, nq = (n + 3) >> 2;
    /* quads per part: enough parts to keep every thread busy, as many as part_best holds */
    const int fit = min(nq, LB_BLOCKS * LB_N / (nblk * n));
    const int per_part = (nq + fit - 1) / fit, P = (nq + per_part - 1) / per_part;
    const int x1 = (cx * a.p.ctu) >> 1, y1 = (cy * a.p.ctu) >> 1;
    const int vw1 = min(a.p.ctu >> 1, a.cur[1].w - x1), vh1 = min(a.p.ctu >> 1, a.cur[1].h - y1);
    /* odd pitch: the rows that a warp's threads read lie in different banks */
    const int ww = vw1 + 2 * r + 4, pitch = ((ww + 3) >> 2) | 1, wb = 4 * pitch;
    uint8_t *cur_s = (uint8_t *)cur_w, *ref_s = (uint8_t *)ref_w;
    GpumeHmeCoarse *out = &b.coarse[ctu_idx];
    int lside = 0;

    while ((1 << lside) < side)
        lside++;
    for (int i = tid; i < L1_BLOCK * L1_BLOCK; i += NT) {
        const int x = i % L1_BLOCK, y = i / L1_BLOCK;
        cur_s[i] = x < vw1 && y < vh1 ? b.cur[a.cur[1].offset + (y1 + y) * a.cur[1].pitch + x1 + x] : 0;
    }
    if (tid < NT / wb * wb) {
        const uint8_t *src = b.ref + a.ref[1].offset + (y1 - r) * a.ref[1].pitch + x1 - r;
        const int x = tid % wb;
        for (int y = tid / wb; y < vh1 + 2 * r; y += NT / wb)
            ref_s[y * wb + x] = x < ww ? src[y * a.ref[1].pitch + x] : 0;
    }
    __syncthreads();

    for (int k = 0; k < GPUME_HME_BLOCK_MINIMA; k++) {
        /* the parts of the rows: all rows, then those within 1 of the first minimum's */
        const int rows = k == 0 ? n : 2 * GPUME_HME_MINIMA_SEP + 1;
        const int sp = NT % P, sr = NT / P % rows, sj = NT / (P * rows);
        int part = tid % P, row = tid / P % rows, j = tid / (P * rows);

        while (j < nblk) {
            const int bx = (j & (side - 1)) * bs, by = (j >> lside) * bs;
            const int dy = k == 0 ? row - r : m0[j][1] + row - GPUME_HME_MINIMA_SEP;
            const int vw = min(bs, vw1 - bx), vh = min(bs, vh1 - by);
            const int q0 = part * per_part, q1 = min(q0 + per_part, nq);
            const int xout = k == 0 ? 4 * LB_N : m0[j][0];
            if (vw > 0 && vh > 0 && dy >= -r && dy <= r) {
                uint64_t key;
                if (vw < bs || vh < bs)
                    key = block_part_edge(cur_w, ref_w, pitch, bx, by, vw, vh, dy, r, q0, q1, a.p.lambda, xout);
                else if (k == 0)
                    key = block_part_bs<false>(bs, cur_w, ref_w, pitch, bx, by, dy, r, q0, q1, a.p.lambda, 0);
                else
                    key = block_part_bs<true>(bs, cur_w, ref_w, pitch, bx, by, dy, r, q0, q1, a.p.lambda, xout);
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
        __syncthreads();
        /* each row's least key into its first part */
        for (int it = tid; it < nblk * rows; it += NT) {
            const int jr = it / rows, dy = k == 0 ? it - jr * rows - r :
                                                    m0[jr][1] + it - jr * rows - GPUME_HME_MINIMA_SEP;
            uint64_t *pb = part_best + (jr * n + dy + r) * P;
            if (dy < -r || dy > r)
                continue;
            for (int i = 1; i < P; i++)
                pb[0] = pb[i] < pb[0] ? pb[i] : pb[0];
        }
        __syncthreads();
        for (int jb = tid; jb < nblk; jb += NT) {
            const int x = cx * a.p.ctu + 2 * (jb & (side - 1)) * bs, y = cy * a.p.ctu + 2 * (jb >> lside) * bs;
            uint64_t best = GPUME_INVALID_KEY;
            int vx, vy;
            if (x < a.p.width && y < a.p.height) {
                for (int i = 0; i < n; i++)
                    best = part_best[(jb * n + i) * P] < best ? part_best[(jb * n + i) * P] : best;
                if (best == GPUME_INVALID_KEY)  /* nothing far enough: the first again */
                    best = (m0[jb][1] + r) * n + m0[jb][0] + r;
                vx = (int)((uint32_t)best % n) - r;
                vy = (int)((uint32_t)best / n) - r;
                if (k == 0) {
                    m0[jb][0] = vx;
                    m0[jb][1] = vy;
                }
                out->b[GPUME_HME_BLOCK_MINIMA * jb + k][0] = gpume_clip(2 * vx, -a.p.range, a.p.range);
                out->b[GPUME_HME_BLOCK_MINIMA * jb + k][1] = gpume_clip(2 * vy, -a.p.range, a.p.range);
            } else {
                m0[jb][0] = m0[jb][1] = 0;
                out->b[GPUME_HME_BLOCK_MINIMA * jb + k][0] = out->v[0][0];
                out->b[GPUME_HME_BLOCK_MINIMA * jb + k][1] = out->v[0][1];
            }
        }
        __syncthreads();
    }
}

/** Window origins of a CTU's PU-table search (full: one; hme: GPUME_HME_WINDOWS). */
__device__ static void pu_windows(const GpumeParams &p, const GpumeHmeCoarse *coarse, int ctu_idx,
                                  int px, int py, int *x0, int *y0)
{
    if (p.algo == GPUME_ALGO_HME)
        gpume_hme_windows(coarse, p.ctu_cols, p.ctu_rows, ctu_idx, px, py, p.range, x0, y0);
    else
        x0[0] = y0[0] = -p.range;
}

/* PUs of the table of a CTU (gpume_nb_pus()) as a constant, for the size of per-thread arrays */
__device__ constexpr int pus_of_ctu(int ctu, int s = GPUME_MIN_CU)
{
    return s > ctu ? 0 : (ctu / s) * (ctu / s) * (s == 8 ? GPUME_PUS_PER_CU8 : GPUME_PUS_PER_CU) +
                         pus_of_ctu(ctu, 2 * s);
}

/* PUs a thread of the PU-table search of a CTU owns, at most: one per thread at CTU 16 and 32 */
#define PUS_PER_THREAD ((pus_of_ctu(CTU) + NT - 1) / NT)

/**
 * Row uy of the unit-SAD table of one candidate as running sums along the
 * row, for a CTU entirely inside the frame: four bytes per operation.
 */
template <int CTU>
__device__ static void unit_row_interior(const uint32_t *cur_w, const uint8_t *ref, int pitch,
                                         int uy, uint32_t *row)
{
    const int u = CTU / 4;
    uint32_t acc[CTU / 4];
#pragma unroll
    for (int ux = 0; ux < u; ux++)
        acc[ux] = 0;
#pragma unroll
    for (int y = 0; y < 4; y++) {
        const uint32_t *c = cur_w + (4 * uy + y) * u;
        const uint8_t *r = ref + (4 * uy + y) * pitch;
#pragma unroll
        for (int ux = 0; ux < u; ux++)
            acc[ux] = sad4(c[ux], load4_unaligned(r + 4 * ux), acc[ux]);
    }
    {
        uint32_t run = 0;
#pragma unroll
        for (int ux = 0; ux < u; ux++) {
            run += acc[ux];
            row[ux + 1] = run;
        }
    }
}

/** The same for a CTU that crosses the frame edge: only the vw x vh valid pixels count. */
__device__ static void unit_row_edge(const uint8_t *cur_s, int ctu, const uint8_t *ref, int pitch,
                                     int uy, int vw, int vh, uint32_t *row)
{
    const int u = ctu / 4, rows = min(4, vh - 4 * uy);
    uint32_t run = 0;
    for (int ux = 0; ux < u; ux++) {
        const int cols = min(4, vw - 4 * ux);
        for (int y = 0; y < rows; y++)
            for (int x = 0; x < cols; x++)
                run += gpume_iabs(cur_s[(4 * uy + y) * ctu + 4 * ux + x] -
                                  ref[(4 * uy + y) * pitch + 4 * ux + x]);
        row[ux + 1] = run;
    }
}

/**
 * Ordered compaction, one flag per thread: the number of threads before
 * this one whose keep is set; *count gets the number of all. mask holds
 * NT / 32 words of shared memory. Called by all threads.
 */
__device__ static int compact_place(int keep, uint32_t *mask, int *count)
{
    static_assert(GPUME_HME_CANDIDATES <= NT, "hme compacts one candidate per thread");
    const int tid = threadIdx.x, w = tid >> 5;
    int pos = 0, n = 0;

    if (tid < NT / 32)
        mask[tid] = 0;
    __syncthreads();
    if (keep)
        GPUME_ATOMIC_OR(&mask[w], 1u << (tid & 31));
    __syncthreads();
#pragma unroll
    for (int i = 0; i < NT / 32; i++) {
        const int c = GPUME_POPC(mask[i]);
        pos += i < w ? c : 0;
        n   += c;
    }
    *count = n;
    return pos + GPUME_POPC(mask[w] & ((1u << (tid & 31)) - 1));
}

/**
 * hme rounds: the seeds of a round, the winning vectors of the 2Nx2N PUs
 * among the nb searched ones, from their keys red[j] (reduce_groups()).
 */
__device__ static GPUME_NOINLINE void round_seeds(const uint64_t *red, int nb, int ctu,
                                                int block, int algo, int range,
                                                const int *wx, const int *wy,
                                                int16_t *sx, int16_t *sy)
{
    for (int j = threadIdx.x; j < nb; j += NT) {
        const int slot = block ? j : gpume_hme_seed_of_pu(ctu, j);
        const uint64_t k = red[j];
        int vx, vy;
        if (slot < 0)
            continue;
        gpume_key_vector(k, algo, range, wx, wy, &vx, &vy);
        sx[slot] = vx;
        sy[slot] = vy;
    }
    __syncthreads();
}

/**
 * hme rounds: candidates c0 .. c0 + n - 1 of the round whose seeds start at
 * sx[first], sy[first], those gpume_hme_round_new() keeps, compacted into
 * list_*; *nb_list gets their number. Out of line: inlined, it raised the
 * register count of the PU-table search for all its batches.
 */
__device__ static GPUME_NOINLINE void round_candidates(int c0, int n, int first,
                                                     const int16_t *sx, const int16_t *sy,
                                                     const int *wx, const int *wy, int range,
                                                     uint32_t *mask, uint32_t *list_idx,
                                                     int16_t *list_dx, int16_t *list_dy, int *nb_list)
{
    const int k = threadIdx.x;
    int dx, dy, count;
    const int keep = k < n && gpume_hme_round_new(c0 + k, sx, sy, first, wx, wy, range, &dx, &dy);
    const int pos  = compact_place(keep, mask, &count);

    if (keep) {
        list_idx[pos] = gpume_hme_round_index(dx, dy, range);
        list_dx[pos]  = dx;
        list_dy[pos]  = dy;
    }
    *nb_list = count;
    __syncthreads();
}

/**
 * hme rounds: the next candidates of round *round, at most
 * GPUME_HME_CANDIDATES from its *c0-th on, those not costed yet, into
 * list_*; returns their number and moves *round, *c0 and *added on.
 * Called by all threads.
 */
__device__ static int hme_round_step(int ns, int range, const int16_t *seed_x, const int16_t *seed_y,
                                     const int *win_x, const int *win_y, uint32_t *mask,
                                     uint32_t *list_idx, int16_t *list_dx, int16_t *list_dy,
                                     int *nb_list, int *round, int *c0, int *added)
{
    const int n = min(GPUME_HME_CANDIDATES, 9 * ns - *c0);
    int total;

    round_candidates(*c0, n, *round * ns, seed_x, seed_y, win_x, win_y, range,
                     mask, list_idx, list_dx, list_dy, nb_list);
    total   = *nb_list;
    *added += total;
    *c0    += n;
    if (*c0 == 9 * ns) {
        /* no new vector: the winners and so the next seeds stay as they are */
        *round = *added ? *round + 1 : GPUME_HME_ROUNDS;
        *c0    = 0;
        *added = 0;
    }
    return total;
}

/**
 * hme: the windows x0[], y0[] of a CTU into win_x, win_y, in shared memory
 * for the searches' lists; by one thread, with a barrier after. Called by
 * all threads.
 */
__device__ static void hme_share_windows(const int *x0, const int *y0, int *win_x, int *win_y)
{
    if (threadIdx.x == 0) {
#pragma unroll
        for (int w = 0; w < GPUME_HME_WINDOWS; w++) {
            win_x[w] = x0[w];
            win_y[w] = y0[w];
        }
    }
    __syncthreads();
}

/**
 * hme: the first candidates of the PU-table search of a CTU, compacted into
 * list_*: those of its windows win_x, win_y (in shared memory) that can
 * win (in range, not in an earlier window), in index order, then the block
 * vectors not costed before. Returns their number. Called by all threads.
 */
__device__ static inline __attribute__((always_inline))
int hme_first_list_inline(int ctu, int block, int range, const GpumeHmeCoarse *coarse,
                          const int *win_x, const int *win_y, uint32_t *mask,
                          uint32_t *list_idx, int16_t *list_dx, int16_t *list_dy)
{
    /* compaction: each candidate's place is the number kept before it */
    const int k = threadIdx.x;
    int dx = 0, dy = 0, count, pos, total;
    const uint32_t idx = k < GPUME_HME_CANDIDATES ? gpume_hme_candidate(k, win_x, win_y, &dx, &dy) : 0;
    int keep = k < GPUME_HME_CANDIDATES && gpume_in_range(dx, dy, range) &&
               !gpume_hme_seen(dx, dy, idx / GPUME_HME_WIN_STRIDE, win_x, win_y);

    pos = compact_place(keep, mask, &count);
    if (keep) {
        list_idx[pos] = idx;
        list_dx[pos]  = dx;
        list_dy[pos]  = dy;
    }
    total = count;
    __syncthreads();    /* mask is read until here */
    keep = k < gpume_hme_nb_block_vectors(ctu, block) &&
           gpume_hme_block_new(coarse, k, win_x, win_y, &dx, &dy);
    pos = total + compact_place(keep, mask, &count);
    if (keep) {
        list_idx[pos] = gpume_hme_round_index(dx, dy, range);
        list_dx[pos]  = dx;
        list_dy[pos]  = dy;
    }
    total += count;
    __syncthreads();
    return total;
}

/** hme_first_list_inline() out of line: inlined, it raised the register count of the PU-table search. */
__device__ static GPUME_NOINLINE int hme_first_list(int ctu, int block, int range, const GpumeHmeCoarse *coarse,
                                                    const int *win_x, const int *win_y, uint32_t *mask,
                                                    uint32_t *list_idx, int16_t *list_dx, int16_t *list_dy)
{
    return hme_first_list_inline(ctu, block, range, coarse, win_x, win_y, mask, list_idx, list_dx, list_dy);
}

/**
 * PU-table search (full, hme level 0), one block per CTU. Per batch of B
 * candidates: unit SADs as running row sums, column sums into the 2-D
 * prefix table S, then the best key of every PU. With few PUs (fixed
 * blocks) several threads share a PU, each taking every G-th candidate,
 * and their keys are reduced at the end. hme's rounds follow its windows:
 * the 3x3 neighbourhoods of the 2Nx2N PUs' winners so far that
 * gpume_hme_round_new() finds not costed yet, compacted like the windows;
 * a round that costs nothing ends them (the next would find the same seeds).
 */
template <int CTU>
__device__ static void pu_search(const GpumeSearchArgs &a, const GpumeCudaBuffers &b)
{
    const int u = CTU / 4, u1 = u + 1, tw = u1 * u1;
    const int B = CTU == 16 ? 256 : CTU == 32 ? 128 : 32;
    GPUME_SHARED uint32_t S[B * (CTU / 4 + 1) * (CTU / 4 + 1)];
    GPUME_SHARED uint32_t cur_w[CTU * CTU / 4];
    GPUME_SHARED uint32_t cand_idx[B], cand_mvc[B];
    GPUME_SHARED int16_t cand_dx[B], cand_dy[B];
    /* hme: the candidates that can win (in range, not in an earlier window), in index order,
     * then the block vectors not costed before */
    const int LIST = GPUME_HME_CANDIDATES + GPUME_HME_BLOCK_MINIMA * (CTU / GPUME_MIN_CU) * (CTU / GPUME_MIN_CU);
    GPUME_SHARED uint32_t list_idx[LIST];
    GPUME_SHARED int16_t list_dx[LIST], list_dy[LIST];
    GPUME_SHARED uint32_t mask[NT / 32];
    GPUME_SHARED int nb_list;
    /* hme rounds: the seeds of every round so far */
    GPUME_SHARED int16_t seed_x[GPUME_HME_ROUNDS * GPUME_HME_SEEDS(CTU)];
    GPUME_SHARED int16_t seed_y[GPUME_HME_ROUNDS * GPUME_HME_SEEDS(CTU)];
    /* and the windows, in shared memory rather than registers through the batches */
    GPUME_SHARED int win_x[GPUME_HME_WINDOWS], win_y[GPUME_HME_WINDOWS];
    const uint8_t *cur_s = (const uint8_t *)cur_w;

    const int tid = threadIdx.x, ctu_idx = blockIdx.x;
    const int cx = ctu_idx % a.p.ctu_cols, cy = ctu_idx / a.p.ctu_cols;
    const int X = cx * CTU, Y = cy * CTU;
    const int vw = min(CTU, a.p.width - X), vh = min(CTU, a.p.height - Y);
    const int interior = vw == CTU && vh == CTU;
    const int px = b.pred[2 * ctu_idx], py = b.pred[2 * ctu_idx + 1];
    const int nb = a.p.block ? a.nb_fixed_pus : a.p.nb_pus;
    const int G = 2 * nb <= NT ? NT / nb : 1;   /* threads per PU */
    const int hme = a.p.algo == GPUME_ALGO_HME;
    const int ns = gpume_hme_nb_seeds(CTU, a.p.block, nb);
    int total = gpume_pu_nb_candidates(a.p.algo, a.p.range);
    int round = 0, c0 = 0, added = 0;
    int wx0[GPUME_HME_WINDOWS], wy0[GPUME_HME_WINDOWS];
    GpumePU my_pu[PUS_PER_THREAD];
    uint64_t best[PUS_PER_THREAD];
    int bn;

    pu_windows(a.p, b.coarse, ctu_idx, px, py, wx0, wy0);
#pragma unroll
    for (int i = 0; i < PUS_PER_THREAD; i++) {
        const int k = G > 1 ? (i == 0 && tid < G * nb ? tid % nb : nb) : tid + i * NT;
        best[i] = GPUME_INVALID_KEY;
        if (k < nb)
            my_pu[i] = b.pu[a.p.block ? b.fixed_pus[k] : k];
    }
    for (int i = tid; i < CTU * CTU; i += NT) {
        const int x = i % CTU, y = i / CTU;
        ((uint8_t *)cur_w)[i] = x < vw && y < vh ? b.cur[a.cur[0].offset + (Y + y) * a.cur[0].pitch + X + x] : 0;
    }
    if (hme) {
        hme_share_windows(wx0, wy0, win_x, win_y);
        total = hme_first_list(CTU, a.p.block, a.p.range, &b.coarse[ctu_idx], win_x, win_y, mask,
                               list_idx, list_dx, list_dy);
    }

    for (;;) {
        for (int base = 0; base < total; base += B) {
            for (int c = tid; c < B; c += NT) {
                const int k = base + c;
                uint32_t idx = GPUME_NO_CANDIDATE, mvc = 0;
                int dx = 0, dy = 0;
                if (k < total)
                    idx = gpume_table_candidate(&a.p, k, list_idx, list_dx, list_dy, wx0, wy0,
                                                px, py, &dx, &dy, &mvc);
                cand_idx[c] = idx;
                cand_mvc[c] = mvc;
                cand_dx[c]  = dx;
                cand_dy[c]  = dy;
            }
            __syncthreads();

            /* the last batch of a window may be short */
            bn = min(B, total - base);
            /* tasks of the batch's candidates only, spread over all threads:
             * a round's short batch would leave most warps waiting */
            for (int it = tid; it < bn * u; it += NT) {
                const int c = it % bn, uy = it / bn;
                uint32_t *row = S + c * tw + (uy + 1) * u1;
                if (uy == 0)
                    for (int x = 0; x < u1; x++)
                        S[c * tw + x] = 0;
                row[0] = 0;
                if (cand_idx[c] != GPUME_NO_CANDIDATE) {
                    const uint8_t *ref = b.ref + (a.ref[0].offset + (Y + cand_dy[c]) * a.ref[0].pitch +
                                                  X + cand_dx[c]);
                    if (interior)
                        unit_row_interior<CTU>(cur_w, ref, a.ref[0].pitch, uy, row);
                    else
                        unit_row_edge(cur_s, CTU, ref, a.ref[0].pitch, uy, vw, vh, row);
                } else {
                    for (int ux = 0; ux < u; ux++)
                        row[ux + 1] = 0;
                }
            }
            __syncthreads();
            /* column sums turn row sums into the 2-D prefix table */
            for (int it = tid; it < bn * u; it += NT) {
                const int c = it % bn, ux = it / bn + 1;
                uint32_t *col = S + c * tw + ux;
                uint32_t run = col[u1];
                for (int y = 2; y <= u; y++) {
                    run += col[y * u1];
                    col[y * u1] = run;
                }
            }
            __syncthreads();

#pragma unroll
            for (int i = 0; i < PUS_PER_THREAD; i++) {
                const int active = G > 1 ? i == 0 && tid < G * nb : tid + i * NT < nb;
                if (active) {
                    const GpumePU pu = my_pu[i];
                    const int o00 = pu.t * u1 + pu.l, o01 = pu.t * u1 + pu.r;
                    const int o10 = pu.b * u1 + pu.l, o11 = pu.b * u1 + pu.r;
                    uint64_t bk = best[i];
                    for (int c = G > 1 ? tid / nb : 0; c < bn; c += G) {
                        const uint32_t *t = S + c * tw;
                        const uint64_t key = gpume_key(t[o11] - t[o01] - t[o10] + t[o00] + cand_mvc[c],
                                                       cand_idx[c]);
                        if (cand_idx[c] != GPUME_NO_CANDIDATE && key < bk)
                            bk = key;
                    }
                    best[i] = bk;
                }
            }
            __syncthreads();
        }
        if (!hme || round == GPUME_HME_ROUNDS)
            break;

        /* hme rounds: the 3x3 neighbourhoods of the 2Nx2N PUs' winners so far,
         * those not costed yet, GPUME_HME_CANDIDATES of them at a time */
        if (!c0) {
            /* the PUs' keys so far: G threads' keys per PU, or one */
            uint64_t *red = (uint64_t *)S;
            if (G > 1) {
                red[tid] = best[0];
            } else {
#pragma unroll
                for (int i = 0; i < PUS_PER_THREAD; i++)
                    if (tid + i * NT < nb)
                        red[tid + i * NT] = best[i];
            }
            __syncthreads();
            reduce_groups(red, nb, G);
            round_seeds(red, nb, CTU, a.p.block, a.p.algo, a.p.range, win_x, win_y,
                        seed_x + round * ns, seed_y + round * ns);
        }
        total = hme_round_step(ns, a.p.range, seed_x, seed_y, win_x, win_y, mask,
                               list_idx, list_dx, list_dy, &nb_list, &round, &c0, &added);
    }

    if (G > 1) {
        uint64_t *red = (uint64_t *)S;
        red[tid] = best[0];
        __syncthreads();
        reduce_groups(red, nb, G);
        if (tid < nb)
            b.pu_keys[(uint64_t)ctu_idx * a.p.nb_pus + (a.p.block ? b.fixed_pus[tid] : tid)] = red[tid];
        return;
    }
#pragma unroll
    for (int i = 0; i < PUS_PER_THREAD; i++) {
        const int k = tid + i * NT;
        if (k < nb)
            b.pu_keys[(uint64_t)ctu_idx * a.p.nb_pus + (a.p.block ? b.fixed_pus[k] : k)] = best[i];
    }
}

/* blocks per SM: as many as shared memory allows (four), left to the
 * compiler's register count only two; three at CTU 64, whose four PUs per
 * thread spill at 64 registers */
#define PU_SEARCH_BOUNDS(blocks) __attribute__((launch_bounds(NT, blocks)))
extern "C" __global__ PU_SEARCH_BOUNDS(4) void gpume_pu_search16(GpumeSearchArgs a, GpumeCudaBuffers b) { pu_search<16>(a, b); }
extern "C" __global__ PU_SEARCH_BOUNDS(4) void gpume_pu_search32(GpumeSearchArgs a, GpumeCudaBuffers b) { pu_search<32>(a, b); }
extern "C" __global__ PU_SEARCH_BOUNDS(3) void gpume_pu_search64(GpumeSearchArgs a, GpumeCudaBuffers b) { pu_search<64>(a, b); }

/*
 * hme and full with blocks of 8 at CTU 32 (gpume's defaults): each block's
 * SAD straight from the pixels, without the unit table, which only
 * partitions need (docs/PERFORMANCE.md, "PU search of 8x8 blocks"). One
 * block of NT threads per CTU. The CTU's whole search area, (32 + 2 range)^2
 * samples, is copied into shared memory once, so that no candidate reads
 * the reference in global memory. Warp w owns rows 8 (w / 2) .. + 7 and
 * columns 16 (w % 2) .. + 15 of the CTU, two blocks: its lanes read a row
 * of their pixels at once, the same for all, and each costs one candidate;
 * the lanes' minima meet in pb_reduce().
 */
#define PB_CTU   32
#define PB_NB    ((PB_CTU / 8) * (PB_CTU / 8))                       ///< blocks of a CTU
#define PB_ROWS  GPUME_B8_ROWS(GPUME_MAX_RANGE)  ///< rows of the search area, at most
#define PB_PITCH GPUME_B8_PITCH(GPUME_MAX_RANGE) ///< its words per row, at most

/**
 * SADs of the two blocks of a warp's part at byte offset o of the search
 * area: cur points at the part's first row of pixels in the CTU (16-byte
 * aligned rows of PB_CTU / 4 words, one vector load a row, the same for all
 * lanes), cm the bytes of each column word and rows the rows that lie in
 * the picture (EDGE only).
 */
template <bool EDGE>
__device__ static inline void pb_sads(const uint32_t *cur, const uint32_t *area, int pitch, int o,
                                      const uint32_t (&cm)[4], int rows, uint32_t *s0, uint32_t *s1)
{
    const uint32_t *w = area + (o >> 2);
    const uint32_t sel = 0x3210u + 0x1111u * (o & 3);
    uint32_t a0 = 0, a1 = 0;

#pragma unroll
    for (int y = 0; y < 8; y++, w += pitch) {
        const uint32_t r0 = w[0], r1 = w[1], r2 = w[2], r3 = w[3], r4 = w[4];
        uint32_t v0 = prmt(r0, r1, sel), v1 = prmt(r1, r2, sel);
        uint32_t v2 = prmt(r2, r3, sel), v3 = prmt(r3, r4, sel);
        const GpumeWords4 c = *(const GpumeWords4 *)(cur + y * (PB_CTU / 4));
        if (EDGE) {
            /* samples outside the picture count nothing: cur holds 0 there */
            const uint32_t m = y < rows ? ~0u : 0;
            v0 &= cm[0] & m;
            v1 &= cm[1] & m;
            v2 &= cm[2] & m;
            v3 &= cm[3] & m;
        }
        a0 = sad4(c.w[0], v0, a0);
        a0 = sad4(c.w[1], v1, a0);
        a1 = sad4(c.w[2], v2, a1);
        a1 = sad4(c.w[3], v3, a1);
    }
    *s0 = a0;
    *s1 = a1;
}

/**
 * The keys of a warp's two blocks, the least over its 32 lanes, into
 * keys[k0] and keys[k1]: a tree over the lanes in red[32 k + lane], whose
 * neighbouring threads read neighbouring words (no bank conflicts). Called
 * by all threads.
 */
__device__ static void pb_reduce(uint64_t *red, uint64_t *keys, int k0, int k1,
                                 uint64_t best0, uint64_t best1)
{
    const int tid = threadIdx.x, lane = tid & 31;

    red[k0 * 32 + lane] = best0;
    red[k1 * 32 + lane] = best1;
    __syncthreads();
    for (int s = 16; s > 1; s >>= 1) {
        const int i = (tid / s) * 32 + tid % s;
        if (tid < PB_NB * s && red[i + s] < red[i])
            red[i] = red[i + s];
        __syncthreads();
    }
    if (tid < PB_NB)
        keys[tid] = red[32 * tid + 1] < red[32 * tid] ? red[32 * tid + 1] : red[32 * tid];
    __syncthreads();
}

/* 5 blocks an SM (48 registers): the CTU's pixels are read from shared
 * memory a row at a time rather than held in 32 registers */
extern "C" __global__ __attribute__((launch_bounds(NT, 5)))
void gpume_pu_blocks32(GpumeSearchArgs a, GpumeCudaBuffers b)
{
    GPUME_SHARED uint32_t area[PB_ROWS * PB_PITCH];
    GPUME_SHARED __attribute__((aligned(16))) uint32_t cur_w[PB_CTU * PB_CTU / 4];
    GPUME_SHARED uint64_t red[32 * PB_NB], keys[PB_NB];
    const int LIST = GPUME_HME_CANDIDATES + GPUME_HME_BLOCK_MINIMA * PB_NB;
    GPUME_SHARED uint32_t list_idx[LIST];
    GPUME_SHARED int16_t list_dx[LIST], list_dy[LIST];
    GPUME_SHARED uint32_t mask[NT / 32];
    GPUME_SHARED int nb_list;
    GPUME_SHARED int16_t seed_x[GPUME_HME_ROUNDS * PB_NB], seed_y[GPUME_HME_ROUNDS * PB_NB];
    GPUME_SHARED int win_x[GPUME_HME_WINDOWS], win_y[GPUME_HME_WINDOWS];
    GPUME_SHARED GpumeHmeCoarse coarse_s; /* the CTU's, for the block vectors' tests */

    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int ctu_idx = blockIdx.x, R = a.p.range, pitch = GPUME_B8_PITCH(R);
    const int X = ctu_idx % a.p.ctu_cols * PB_CTU, Y = ctu_idx / a.p.ctu_cols * PB_CTU;
    const int vw = min(PB_CTU, a.p.width - X), vh = min(PB_CTU, a.p.height - Y);
    const int edge = vw < PB_CTU || vh < PB_CTU;
    const int px = b.pred[2 * ctu_idx], py = b.pred[2 * ctu_idx + 1];
    const int part_x = 16 * (warp & 1), part_y = 8 * (warp >> 1);
    const uint32_t *cur_part = cur_w + part_y * (PB_CTU / 4) + part_x / 4;
    const int hme = a.p.algo == GPUME_ALGO_HME, lambda = a.p.lambda;
    int total = gpume_pu_nb_candidates(a.p.algo, R);
    int round = 0, c0 = 0, added = 0, k0 = 0, k1 = 0;
    uint32_t cm[4];
    uint64_t best0 = GPUME_INVALID_KEY, best1 = GPUME_INVALID_KEY;

    /* the windows, by one thread, read from shared memory by all (the
     * barrier before the first list); no pointer to the kernel's
     * arguments, which would copy them to the stack */
    if (hme && tid == 0)
        gpume_hme_windows(b.coarse, a.p.ctu_cols, a.p.ctu_rows, ctu_idx, px, py, R, win_x, win_y);
    /* the search area: rows Y - R .., columns X - R .. of the reference, 0
     * past the picture's part; aligned words, where the border allows */
    {
        const int rp = a.ref[0].pitch, rows = vh + 2 * R, cols = vw + 2 * R;
        const uint8_t *ref = b.ref + a.ref[0].offset + (Y - R) * rp + X - R;
        for (int i = tid; i < rows * pitch; i += NT) {
            const int y = i / pitch, x = 4 * (i % pitch);
            area[i] = x < cols ? load4_unaligned(ref + y * rp + x) & gpume_byte_mask(cols - x) : 0;
        }
    }
    /* the CTU, 0 outside the picture */
    for (int i = tid; i < PB_CTU * PB_CTU / 4; i += NT) {
        const int y = i / (PB_CTU / 4), x = 4 * (i % (PB_CTU / 4));
        cur_w[i] = y < vh && x < vw ?
                   load4_unaligned(b.cur + a.cur[0].offset + (Y + y) * a.cur[0].pitch + X + x) &
                   gpume_byte_mask(vw - x) : 0;
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
        cm[i] = gpume_byte_mask(vw - part_x - 4 * i);
    /* this warp's blocks among the fixed PUs */
    for (int k = 0; k < PB_NB; k++) {
        const GpumePU pu = b.pu[b.fixed_pus[k]];
        if (4 * pu.t == part_y && 4 * pu.l == part_x)
            k0 = k;
        if (4 * pu.t == part_y && 4 * pu.l == part_x + 8)
            k1 = k;
    }
    if (hme) {
        static_assert(sizeof(GpumeHmeCoarse) % 4 == 0 && sizeof(GpumeHmeCoarse) <= 4 * NT, "one word a thread");
        if (tid < sizeof(GpumeHmeCoarse) / 4)
            ((uint32_t *)&coarse_s)[tid] = ((const uint32_t *)&b.coarse[ctu_idx])[tid];
        __syncthreads();    /* the search area, coarse_s and the windows */
        total = hme_first_list_inline(PB_CTU, 8, R, &coarse_s, win_x, win_y, mask,
                                      list_idx, list_dx, list_dy);
    } else {
        __syncthreads();    /* the search area */
    }

    for (;;) {
        for (int c = lane; c < total; c += 32) {
            /* gpume_table_candidate(), whose full raster is all in range */
            const int dx = hme ? list_dx[c] : c % (2 * R + 1) - R;
            const int dy = hme ? list_dy[c] : c / (2 * R + 1) - R;
            const uint32_t idx = hme ? list_idx[c] : c;
            const uint32_t mvc = gpume_mv_cost(lambda, 4 * dx, 4 * dy, px, py);
            /* the byte of the search area under the part's first pixel */
            const int o = (R + dy + part_y) * 4 * pitch + R + dx + part_x;
            uint32_t s0, s1;
            uint64_t key;
            /* the same branch for a whole block */
            if (edge)
                pb_sads<true>(cur_part, area, pitch, o, cm, vh - part_y, &s0, &s1);
            else
                pb_sads<false>(cur_part, area, pitch, o, cm, vh - part_y, &s0, &s1);
            key   = gpume_key(s0 + mvc, idx);
            best0 = key < best0 ? key : best0;
            key   = gpume_key(s1 + mvc, idx);
            best1 = key < best1 ? key : best1;
        }
        if (!hme || round == GPUME_HME_ROUNDS)
            break;

        /* hme rounds, as in pu_search(): the seeds are the blocks' winners */
        if (!c0) {
            pb_reduce(red, keys, k0, k1, best0, best1);
            round_seeds(keys, PB_NB, PB_CTU, 8, GPUME_ALGO_HME, R, win_x, win_y,
                        seed_x + round * PB_NB, seed_y + round * PB_NB);
        }
        total = hme_round_step(PB_NB, R, seed_x, seed_y, win_x, win_y, mask,
                               list_idx, list_dx, list_dy, &nb_list, &round, &c0, &added);
    }

    pb_reduce(red, keys, k0, k1, best0, best1);
    if (tid < PB_NB)
        b.pu_keys[(uint64_t)ctu_idx * a.p.nb_pus + b.fixed_pus[tid]] = keys[tid];
}

/*
 * full, CTU 32: a search of its own (docs/PERFORMANCE.md, "full: a kernel
 * of its own for CTU 32"). One block of NT threads per CTU. The candidates are
 * cut into bands of GPUME_FULL_K rows of dy (the last band moved up to end
 * on the last row, so it repeats a few candidates, which a minimum of keys
 * does not mind) and enumerated as (band, dx) pairs; a chunk is
 * GPUME_FULL_PAIRS consecutive pairs, FULL_SLOTS candidates. Per chunk:
 *  1. thread (pair, strip) sums the SADs of a 4-pixel-wide strip of the CTU
 *     for the pair's K candidates at once, each reference row loaded once
 *     for all K (candidate dy + 1 meets row y + 1 where dy met row y), four
 *     bytes per vabsdiff4, into cells of 4 rows (block=auto) or of the
 *     block's height;
 *  2. thread (16x16 quadrant, candidate; with all PU shapes, half of the
 *     quadrant's PUs) adds the cells up into the costs of its quadrant's
 *     PUs, smaller PUs into larger ones (the 8x8 CUs, then the 16x16 CU),
 *     and keeps each PU's minimum key;
 *  3. thread (candidate) does the same for the PUs of the 32x32 CU from the
 *     quadrants' sums (block=auto, block=32).
 * At the end the keys of a PU from all threads meet in shared memory: the
 * least cost, then the least index of that cost, by atomic minima.
 */
#define FULL_K     GPUME_FULL_K
#define FULL_PAIRS GPUME_FULL_PAIRS
#define FULL_SLOTS (FULL_PAIRS * FULL_K)
#define FULL_NONE  0xffffffffu          /* a key or term of no candidate */
#define FULL_CUR_STRIDE 36              /* words per strip of the current CTU: 8 strips, 8 bank groups */

/** 32-bit words per candidate in the cell buffer: 8 strips x cells, padded against bank conflicts. */
#define FULL_STRIDE(block) ((block) == 0 ? 72 : (block) == 8 ? 40 : (block) == 16 ? 24 : 8)

__device__ static inline void atomic_min_u32(uint32_t *p, uint32_t v)
{
    uint32_t old;
    asm volatile("atom.min.u32 %0, [%1], %2;" : "=r"(old) : "l"(p), "r"(v) : "memory");
}

/**
 * Stage 1 for the thread's item: the cells of strip ux for the K candidates
 * of one pair, whose reference rows start at row row0, column col (the
 * pixel under the strip's first column for the pair's first dy). EDGE: a
 * CTU that crosses the frame edge, where only the vw x vh pixels inside
 * count (colmask keeps the strip's columns inside).
 */
template <int BLOCK, bool EDGE>
__device__ static inline __attribute__((always_inline))
void full_sads(const GpumeSearchArgs &a, const GpumeCudaBuffers &b, const uint32_t *cur_t,
               uint32_t *cells, int ux, int row0, int col, int vh, uint32_t colmask)
{
    const int CH = BLOCK ? BLOCK : 4, STRIDE = FULL_STRIDE(BLOCK);
    const uint32_t *ref = (const uint32_t *)b.ref;
    /* the plane offset is > pad samples of border, so these are >= 0; pitch is a multiple of 4 */
    const int oc = a.ref[0].offset + col, pw = a.ref[0].pitch >> 2;
    const uint32_t sel = 0x3210u + 0x1111u * (oc & 3);
    const int rmax = a.ref[0].h + a.p.pad - 1;
    /* group g: cur rows 4g .. 4g + 3 meet reference rows 4g .. 4g + 6 (relative to row0) */
    /* w: the words of the next reference row; EDGE: rows below the frame's
     * border meet only pixels outside the frame, and read its last row */
    const uint32_t *w = ref + (oc >> 2) + row0 * pw, *last = ref + (oc >> 2) + rmax * pw;
    uint32_t r[4 + FULL_K - 1], acc[FULL_K];

#pragma unroll
    for (int k = 0; k < FULL_K; k++)
        acc[k] = 0;
#pragma unroll
    for (int i = 0; i < FULL_K - 1; i++, w += pw)
        r[i] = prmt(w[0], w[1], sel);
#pragma unroll
    for (int g = 0; g < 8; g++) {
        const int4 cv = *(const int4 *)(cur_t + ux * FULL_CUR_STRIDE + 4 * g);
        const uint32_t c[4] = { (uint32_t)cv.x, (uint32_t)cv.y, (uint32_t)cv.z, (uint32_t)cv.w };
#pragma unroll
        for (int i = FULL_K - 1; i < 4 + FULL_K - 1; i++, w += pw) {
            const uint32_t *v = EDGE && row0 + 4 * g + i > rmax ? last : w;
            r[i] = prmt(v[0], v[1], sel);
        }
#pragma unroll
        for (int k = 0; k < FULL_K; k++) {
#pragma unroll
            for (int i = 0; i < 4; i++)
                if (!EDGE || 4 * g + i < vh)
                    acc[k] = sad4(c[i], EDGE ? r[i + k] & colmask : r[i + k], acc[k]);
            if ((4 * g + 4) % CH == 0) {
                cells[k * FULL_PAIRS * STRIDE + gpume_full_cell(BLOCK, 4 * g / CH, ux)] = acc[k];
                acc[k] = 0;
            }
        }
#pragma unroll
        for (int i = 0; i < FULL_K - 1; i++)
            r[i] = r[i + 4];
    }
}

/** Fold one of the thread's keys into the PU's minimum: pass 0 the cost, pass 1 the index of that cost. */
__device__ static inline __attribute__((always_inline))
void full_merge(uint32_t key, int pu, int pass, const GpumeFullArgs &f, int chunk_div, int slot0,
                int slot_step, int n, uint32_t *min_cost, uint32_t *min_idx)
{
    uint32_t cost, idx;
    if (key == FULL_NONE)
        return;
    cost = key >> f.key_bits;
    if (!pass) {
        atomic_min_u32(&min_cost[pu], cost);
        return;
    }
    if (cost != min_cost[pu])
        return;
    if (f.local) {
        const int e = key & ((1u << GPUME_FULL_LOCAL_BITS) - 1);
        idx = gpume_full_index(e / chunk_div, slot0 + slot_step * (e % chunk_div), n);
    } else {
        idx = key & ((1u << f.key_bits) - 1);
    }
    atomic_min_u32(&min_idx[pu], idx);
}

template <int BLOCK>
__device__ static inline __attribute__((always_inline))
void full_search32(const GpumeSearchArgs &a, const GpumeCudaBuffers &b,
                                     const GpumeFullArgs &f)
{
    const int STRIDE = FULL_STRIDE(BLOCK);
    /* keys per thread of stage 2 and of stage 3 */
    const int NQ = BLOCK == 0 ? 25 : BLOCK == 8 ? 4 : BLOCK == 16 ? 1 : 0;
    /* stage-2 items per thread and chunk: pairs pg, pg + PG, ... of one row j */
    const int ITEMS = BLOCK == 0 ? 4 : 2, PG = FULL_PAIRS / ITEMS;
    const int N3 = BLOCK == 0 ? 7 : BLOCK == 32 ? 1 : 0;
    GPUME_SHARED __align__(16) uint32_t cells[FULL_SLOTS * FULL_STRIDE(BLOCK)];
    GPUME_SHARED uint32_t terms[2][FULL_SLOTS];
    GPUME_SHARED __align__(16) uint32_t quads[BLOCK == 0 ? FULL_SLOTS * 12 : 1];
    GPUME_SHARED __align__(16) uint32_t cur_t[8 * FULL_CUR_STRIDE];

    const int tid = threadIdx.x, ctu_idx = blockIdx.x;
    const int X = (ctu_idx % a.p.ctu_cols) * 32, Y = (ctu_idx / a.p.ctu_cols) * 32;
    const int vw = min(32, a.p.width - X), vh = min(32, a.p.height - Y);
    const int edge = vw < 32 || vh < 32;
    const int px = b.pred[2 * ctu_idx], py = b.pred[2 * ctu_idx + 1];
    const int R = a.p.range, n = 2 * R + 1;
    const int npairs = (n + FULL_K - 1) / FULL_K * n, nchunks = (npairs + FULL_PAIRS - 1) / FULL_PAIRS;
    uint32_t scale;
    /*
     * Stage 1: strip ux of pair pc. Stage 2: half h (block=auto; warp-uniform)
     * of quadrant q of slots sb + PG m, m < ITEMS (row j, pairs pg + PG m), so
     * that a thread meets its candidates in increasing index order, as the
     * local numbering needs; a phase of 8 lanes reads pairs pg and pg + 2,
     * whose cells lie 16 banks apart. Stage 3: half h3 of slot s3.
     */
    const int ux = tid & 7, pc = tid >> 3, q = tid & 3;
    const int h = BLOCK == 0 ? tid >> 5 & 1 : 0;
    const int cq = BLOCK == 0 ? (tid & 31) >> 2 | (tid >> 6) << 3 : tid >> 2;
    const int pg = (cq % PG & ~3) | (cq & 1) << 1 | (cq >> 1 & 1), sb = cq / PG * FULL_PAIRS + pg;
    const int s3 = tid % FULL_SLOTS, h3 = tid / FULL_SLOTS;
    const int inside = vw - 4 * ux;
    const uint32_t colmask = inside >= 4 ? 0xffffffffu : inside <= 0 ? 0 : (1u << 8 * inside) - 1;
    uint32_t kq[NQ ? NQ : 1], k3[N3 ? N3 : 1];

    /* 2^key_bits, opaque to the compiler: a multiply-add per key, not a shift and an add */
    asm("mov.u32 %0, %1;" : "=r"(scale) : "r"(1u << f.key_bits));
#pragma unroll
    for (int i = 0; i < NQ; i++)
        kq[i] = FULL_NONE;
#pragma unroll
    for (int i = 0; i < N3; i++)
        k3[i] = FULL_NONE;
    {
        /* the current CTU as 8 strips of 32 rows of 4 pixels, 0 outside the frame */
        const int sx = tid >> 5, y = tid & 31;
        uint32_t w = 0;
        for (int i = 0; i < 4; i++)
            if (4 * sx + i < vw && y < vh)
                w |= (uint32_t)b.cur[a.cur[0].offset + (Y + y) * a.cur[0].pitch + X + 4 * sx + i] << 8 * i;
        cur_t[sx * FULL_CUR_STRIDE + y] = w;
    }
    __syncthreads();

    for (int chunk = 0; chunk < nchunks; chunk++) {
        uint32_t *ct = terms[chunk & 1];
        {
            const int pair = chunk * FULL_PAIRS + pc, band = pair / n, dxi = pair - band * n;
            const int dyb = min(FULL_K * band, n - FULL_K);
            if (ux < FULL_K) {
                /* the term of candidate ux of the pair: its MV cost and index */
                const int dyi = dyb + ux;
                ct[ux * FULL_PAIRS + pc] = pair >= npairs ? FULL_NONE :
                    gpume_mv_cost(a.p.lambda, 4 * (dxi - R), 4 * (dyi - R), px, py) * scale +
                    (f.local ? 0 : (uint32_t)(dyi * n + dxi));
            }
            if (pair < npairs) {
                uint32_t *c = cells + pc * STRIDE;
                if (edge)
                    full_sads<BLOCK, true>(a, b, cur_t, c, ux, Y - R + dyb, X + 4 * ux + dxi - R, vh, colmask);
                else
                    full_sads<BLOCK, false>(a, b, cur_t, c, ux, Y - R + dyb, X + 4 * ux + dxi - R, vh, colmask);
            }
        }
        __syncthreads();
        if (NQ) {
#pragma unroll
            for (int m = 0; m < ITEMS; m++) {
                const int s = sb + PG * m;
                const uint32_t *u = cells + s * STRIDE + 4 * q;
                uint32_t t = ct[s];
                if (t == FULL_NONE)
                    continue;
                t += f.local ? chunk * ITEMS + m : 0;
                if (BLOCK == 0) {
                    gpume_full_quadrant(u, quads + 12 * s, q, h, scale, t, kq);
                } else if (BLOCK == 8) {
                    const int4 v0 = *(const int4 *)u, v1 = *(const int4 *)(u + 16);
                    gpume_full_update(&kq[0], (uint32_t)v0.x + v0.y, scale, t);
                    gpume_full_update(&kq[1], (uint32_t)v0.z + v0.w, scale, t);
                    gpume_full_update(&kq[2], (uint32_t)v1.x + v1.y, scale, t);
                    gpume_full_update(&kq[3], (uint32_t)v1.z + v1.w, scale, t);
                } else {
                    const int4 v = *(const int4 *)u;
                    gpume_full_update(&kq[0], (uint32_t)v.x + v.y + v.z + v.w, scale, t);
                }
            }
            __syncthreads();
        }
        if (N3 && (BLOCK == 0 || h3 == 0)) {
            uint32_t t = ct[s3];
            if (t != FULL_NONE) {
                t += f.local ? chunk : 0;
                if (BLOCK == 0) {
                    gpume_full_ctu(quads + 12 * s3, h3, scale, t, k3);
                } else {
                    const int4 v0 = *(const int4 *)(cells + s3 * STRIDE);
                    const int4 v1 = *(const int4 *)(cells + s3 * STRIDE + 4);
                    gpume_full_update(&k3[0], (uint32_t)v0.x + v0.y + v0.z + v0.w +
                                       v1.x + v1.y + v1.z + v1.w, scale, t);
                }
            }
        }
        if (BLOCK == 32)
            __syncthreads();
    }

    /* every thread's keys into each PU's minimum, through the cell buffer
     * (free now), in rolled loops: few registers */
    {
        uint32_t *min_cost = cells, *min_idx = cells + 256, *kept = cells + 512;
        const int nb = a.p.nb_pus;
#pragma unroll
        for (int i = 0; i < NQ; i++)
            kept[i * NT + tid] = kq[i];
#pragma unroll
        for (int i = 0; i < N3; i++)
            kept[(NQ + i) * NT + tid] = k3[i];
        for (int i = tid; i < 512; i += NT)
            cells[i] = FULL_NONE;
        __syncthreads();
#pragma unroll 1
        for (int pass = 0; pass < 2; pass++) {
#pragma unroll 1
            for (int i = 0; i < NQ + N3; i++) {
                const uint32_t key = kept[i * NT + tid];
                if (i < NQ) {
                    const int pu = BLOCK == 0 ? (i < 18 ? (4 * q + 2 * h + i / 9) * 9 + i % 9 :
                                                          144 + 13 * q + 7 * h + i - 18) :
                                   BLOCK == 8 ? (4 * q + i) * 9 : 144 + 13 * q;
                    full_merge(key, pu, pass, f, ITEMS, sb, PG, n, min_cost, min_idx);
                } else {
                    full_merge(key, 196 + 7 * h3 + i - NQ, pass, f, 1, s3, 0, n, min_cost, min_idx);
                }
            }
            __syncthreads();
        }
        if (BLOCK == 0) {
            for (int pu = tid; pu < nb; pu += NT)
                b.pu_keys[(uint64_t)ctu_idx * nb + pu] = gpume_key(min_cost[pu], min_idx[pu]);
        } else {
            for (int i = tid; i < a.nb_fixed_pus; i += NT) {
                const int pu = b.fixed_pus[i];
                b.pu_keys[(uint64_t)ctu_idx * nb + pu] = gpume_key(min_cost[pu], min_idx[pu]);
            }
        }
    }
}

extern "C" __global__ __attribute__((launch_bounds(NT, 2)))
void gpume_full32(GpumeSearchArgs a, GpumeCudaBuffers b, GpumeFullArgs f) { full_search32<0>(a, b, f); }
extern "C" __global__ __attribute__((launch_bounds(NT, 3)))
void gpume_full32_b8(GpumeSearchArgs a, GpumeCudaBuffers b, GpumeFullArgs f) { full_search32<8>(a, b, f); }
extern "C" __global__ __attribute__((launch_bounds(NT, 3)))
void gpume_full32_b16(GpumeSearchArgs a, GpumeCudaBuffers b, GpumeFullArgs f) { full_search32<16>(a, b, f); }
extern "C" __global__ __attribute__((launch_bounds(NT, 3)))
void gpume_full32_b32(GpumeSearchArgs a, GpumeCudaBuffers b, GpumeFullArgs f) { full_search32<32>(a, b, f); }


/* Row segments of at most 4 samples of all exported PUs of a CTU: the PUs
 * tile the CTU and are >= 4 wide, so at most one per 4 samples; at most
 * GPUME_MAX_OUT_PER_CTU (256) PUs, so a PU index fits a byte. */
#define MAX_SEGS (GPUME_MAX_CTU * GPUME_MAX_CTU / 4)

/**
 * Partition choice (or the fixed blocks), then sub-pel refinement of every
 * exported PU; writes the CTU's blocks and count. One block per CTU.
 * Each stage costs the 9 points of every PU at once: one thread per row
 * segment of a PU sums its samples for all points (gpume_subpel_segment()),
 * then one thread per (PU, point) adds the segments and one per PU picks
 * the best key. No atomics, so sums are exact and the
 * order of additions does not matter.
 */
extern "C" __global__ __attribute__((launch_bounds(NT, 4))) void gpume_refine(GpumeSearchArgs a, GpumeCudaBuffers b)
{
    GPUME_SHARED uint32_t cost[GPUME_MAX_PUS];
    GPUME_SHARED uint32_t tmp_cost[2 * (GPUME_MAX_CTU / 8) * (GPUME_MAX_CTU / 8)];
    GPUME_SHARED uint8_t tmp_mode[2 * (GPUME_MAX_CTU / 8) * (GPUME_MAX_CTU / 8)];
    GPUME_SHARED uint16_t chosen[GPUME_MAX_OUT_PER_CTU];
    GPUME_SHARED int16_t bx[GPUME_MAX_OUT_PER_CTU], by[GPUME_MAX_OUT_PER_CTU];
    GPUME_SHARED int16_t bw[GPUME_MAX_OUT_PER_CTU], bh[GPUME_MAX_OUT_PER_CTU];
    GPUME_SHARED int16_t qx[GPUME_MAX_OUT_PER_CTU], qy[GPUME_MAX_OUT_PER_CTU];
    GPUME_SHARED uint8_t seg_pu[MAX_SEGS];
    GPUME_SHARED uint16_t first_seg[GPUME_MAX_OUT_PER_CTU + 1];
    GPUME_SHARED uint16_t seg_sad[9 * MAX_SEGS];    /* a segment: <= 4 * 255 */
    GPUME_SHARED uint32_t sad[GPUME_MAX_OUT_PER_CTU][9];
    GPUME_SHARED int nb_chosen, nb_out, nb_segs;
    GPUME_SHARED uint32_t mask[NT / 32];
    GPUME_SHARED int scan[NT];

    const int tid = threadIdx.x, ctu_idx = blockIdx.x;
    const int X = (ctu_idx % a.p.ctu_cols) * a.p.ctu, Y = (ctu_idx / a.p.ctu_cols) * a.p.ctu;
    const int px = b.pred[2 * ctu_idx], py = b.pred[2 * ctu_idx + 1];
    const uint64_t *keys = b.pu_keys + (uint64_t)ctu_idx * a.p.nb_pus;
    GpumeBlock *out = b.blocks + (uint64_t)ctu_idx * a.p.max_out;
    const uint8_t *cur = b.cur + a.cur[0].offset, *ref = b.ref + a.ref[0].offset;
    const int cur_pitch = a.cur[0].pitch, ref_pitch = a.ref[0].pitch;
    int wx0[GPUME_HME_WINDOWS], wy0[GPUME_HME_WINDOWS];

    pu_windows(a.p, b.coarse, ctu_idx, px, py, wx0, wy0);
    if (a.p.block) {
        for (int i = tid; i < a.nb_fixed_pus; i += NT)
            chosen[i] = b.fixed_pus[i];
        if (tid == 0)
            nb_chosen = a.nb_fixed_pus;
    } else {
        for (int i = tid; i < a.p.nb_pus; i += NT)
            cost[i] = keys[i] >> 32;
        __syncthreads();
        /* gpume_choose_partition(): the CUs of a level at once, then the walk */
        for (int l = 0; GPUME_MIN_CU << l <= a.p.ctu; l++) {
            const int side = a.p.ctu / (GPUME_MIN_CU << l);
            for (int z = tid; z < side * side; z += NT)
                gpume_cu_best(cost, a.p.ctu, a.p.pu_penalty, l, z, tmp_cost, tmp_mode);
            __syncthreads();
        }
        if (tid == 0)
            nb_chosen = gpume_emit_partition(a.p.ctu, tmp_mode, chosen);
    }
    __syncthreads();

    static_assert(GPUME_MAX_OUT_PER_CTU <= NT, "one exported PU per thread");
    /* clipped geometry and integer vectors of the exported PUs (those inside
     * the frame, in order: one thread each), their row segments numbered
     * by a prefix sum */
    {
        const int i = tid;
        int x = 0, y = 0, w = 0, h = 0, segs, k, count;
        if (i < nb_chosen) {
            const GpumePU pu = b.pu[chosen[i]];
            x = X + 4 * pu.l;
            y = Y + 4 * pu.t;
            w = min(4 * (pu.r - pu.l), a.p.width - x);
            h = min(4 * (pu.b - pu.t), a.p.height - y);
        }
        if (w <= 0 || h <= 0)
            w = h = 0;
        /* the PU's row segments of at most 4 samples */
        segs = h * ((w + 3) >> 2);
        k = compact_place(h > 0, mask, &count);
        scan[tid] = segs;
        __syncthreads();
        for (int d = 1; d < NT; d <<= 1) {
            const int v = tid >= d ? scan[tid - d] : 0;
            __syncthreads();
            scan[tid] += v;
            __syncthreads();
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
        if (tid == NT - 1) {
            first_seg[count] = scan[tid];
            nb_out  = count;
            nb_segs = scan[tid];
        }
    }
    __syncthreads();

    /* stages: the integer SAD only (subpel=0), or half then quarter pel */
    for (int step = a.p.subpel ? 2 : 0; step >= (a.p.subpel == 2 ? 1 : a.p.subpel ? 2 : 0); step--) {
        const int np = step ? 9 : 1;
        for (int sg = tid; sg < nb_segs; sg += NT) {
            const int k = seg_pu[sg], n = (bw[k] + 3) >> 2, s = sg - first_seg[k];
            const int y = by[k] + s / n, x0 = bx[k] + 4 * (s % n), w = min(4, bw[k] - 4 * (s % n));
            const uint8_t *c = cur + y * cur_pitch + x0;
            if (!step) {
                const uint8_t *r = ref + (y + qy[k] / 4) * ref_pitch + x0 + qx[k] / 4;
                uint32_t acc = 0;
                for (int x = 0; x < w; x++)
                    acc += gpume_iabs(c[x] - r[x]);
                seg_sad[sg] = acc;
            } else {
                uint32_t pts[9];
                gpume_subpel_segment(c, ref, ref_pitch, x0, y, w, qx[k], qy[k], step, pts);
#pragma unroll
                for (int i = 0; i < 9; i++)
                    seg_sad[sg * 9 + i] = pts[i];
            }
        }
        __syncthreads();
        for (int it = tid; it < np * nb_out; it += NT) {
            const int i = it % np, k = it / np;
            uint32_t sum = 0;
            for (int sg = first_seg[k]; sg < first_seg[k + 1]; sg++)
                sum += seg_sad[sg * np + i];
            sad[k][i] = sum;
        }
        __syncthreads();
        for (int k = tid; k < nb_out && step; k += NT) {
            uint64_t best = GPUME_INVALID_KEY;
            int bi = 0;
            for (int i = 0; i < 9; i++) {
                int ox, oy;
                uint64_t key;
                gpume_subpel_offset(i, step, &ox, &oy);
                key = gpume_key(sad[k][i] + gpume_mv_cost(a.p.lambda, qx[k] + ox, qy[k] + oy, px, py), i);
                if (key < best) {
                    best = key;
                    bi   = i;
                }
            }
            {
                int ox, oy;
                gpume_subpel_offset(bi, step, &ox, &oy);
                qx[k] += ox;
                qy[k] += oy;
                sad[k][0] = sad[k][bi];
            }
        }
        __syncthreads();
    }

    for (int k = tid; k < nb_out; k += NT) {
        GpumeBlock blk;
        blk.x = bx[k]; blk.y = by[k]; blk.w = bw[k]; blk.h = bh[k];
        blk.mvx = qx[k]; blk.mvy = qy[k]; blk.sad = sad[k][0];
        out[k] = blk;
    }
    if (tid == 0)
        b.counts[ctu_idx] = nb_out;
}

/**
 * One LFS template step around (cxv, cyv): one thread per template point,
 * integer (qpel = 0) or quarter-pel (qpel = 1) positions.
 */
__device__ static uint64_t lfs_step(const GpumeSearchArgs *a, const GpumeCudaBuffers *b,
                                    int x, int y, int w, int h,
                                    int cxv, int cyv, int stride, int qpel, int px, int py,
                                    uint64_t *red, uint32_t *sad_of, int *bx, int *by)
{
    const int tid = threadIdx.x;
    const int i = tid % GPUME_LFS_N, j = tid / GPUME_LFS_N;
    const int dx = cxv + (GPUME_LFS_LO + i) * stride, dy = cyv + (GPUME_LFS_LO + j) * stride;
    uint64_t key = GPUME_INVALID_KEY;
    uint32_t sad = 0;

    if (qpel) {
        const uint8_t *cur = b->cur + a->cur[0].offset, *ref = b->ref + a->ref[0].offset;
        for (int yy = 0; yy < h; yy++)
            for (int xx = 0; xx < w; xx++)
                sad += gpume_iabs(cur[(y + yy) * a->cur[0].pitch + x + xx] -
                                  gpume_sample_qpel(ref, a->ref[0].pitch, a->ref[0].w, a->ref[0].h,
                                                    4 * (x + xx) + dx, 4 * (y + yy) + dy));
        key = gpume_key(sad + gpume_mv_cost(a->p.lambda, dx, dy, px, py), tid);
    } else if (gpume_in_range(dx, dy, a->p.range)) {
        sad = plane_sad(b->cur, a->cur[0], b->ref, a->ref[0], x, y, w, h, dx, dy);
        key = gpume_key(sad + gpume_mv_cost(a->p.lambda, 4 * dx, 4 * dy, px, py), tid);
    }
    sad_of[tid] = sad;
    key = block_min_key(key, red, tid, GPUME_LFS_THREADS);
    {
        const int w_idx = (uint32_t)key;
        *bx = cxv + (GPUME_LFS_LO + w_idx % GPUME_LFS_N) * stride;
        *by = cyv + (GPUME_LFS_LO + w_idx / GPUME_LFS_N) * stride;
        sad = sad_of[w_idx];
    }
    __syncthreads(); /* sad_of is rewritten by the next step */
    return sad;
}

/** LFS over the fixed blocks of one CTU; one thread per template point. */
extern "C" __global__ void gpume_lfs(GpumeSearchArgs a, GpumeCudaBuffers b)
{
    GPUME_SHARED uint64_t red[GPUME_LFS_THREADS];
    GPUME_SHARED uint32_t sad_of[GPUME_LFS_THREADS];
    const int tid = threadIdx.x, ctu_idx = blockIdx.x;
    const int X = (ctu_idx % a.p.ctu_cols) * a.p.ctu, Y = (ctu_idx / a.p.ctu_cols) * a.p.ctu;
    const int px = b.pred[2 * ctu_idx], py = b.pred[2 * ctu_idx + 1];
    GpumeBlock *out = b.blocks + (uint64_t)ctu_idx * a.p.max_out;
    int nout = 0;

    for (int k = 0; k < a.nb_fixed_pus; k++) {
        const GpumePU pu = b.pu[b.fixed_pus[k]];
        const int x = X + 4 * pu.l, y = Y + 4 * pu.t;
        const int w = min(a.p.block, a.p.width - x), h = min(a.p.block, a.p.height - y);
        const uint32_t thr = (uint32_t)a.p.lfs_threshold * w * h / 64;
        int bx, by, b2x, b2y;
        uint32_t sad;

        if (w <= 0 || h <= 0)
            continue;
        /*
         * The schedule of gpume_lfs_next() written out: driven by that state
         * machine (as the CPU and OpenCL code are) this kernel took 0.448 ms
         * instead of 0.426 ms per 1080p frame on an H100 (tools/bench-backend
         * --algo=lfs --range=16). backendcheck holds it to the same vectors.
         */
        sad = lfs_step(&a, &b, x, y, w, h, 0, 0, 1, 0, px, py, red, sad_of, &bx, &by);
        if (!(gpume_iabs(bx) <= 1 && gpume_iabs(by) <= 1) && sad > thr) {
            sad = lfs_step(&a, &b, x, y, w, h, bx, by, 2, 0, px, py, red, sad_of, &b2x, &b2y);
            if (sad > thr && (b2x != bx || b2y != by))
                sad = lfs_step(&a, &b, x, y, w, h, b2x, b2y, 1, 0, px, py, red, sad_of, &b2x, &b2y);
            bx = b2x;
            by = b2y;
        }
        bx *= 4;
        by *= 4;
        if (a.p.subpel)
            sad = lfs_step(&a, &b, x, y, w, h, bx, by, a.p.subpel == 2 ? 1 : 2, 1, px, py,
                           red, sad_of, &bx, &by);
        if (tid == 0)
            out[nout] = gpume_make_block(x, y, w, h, bx, by, sad);
        nout++;
        __syncthreads();
    }
    if (tid == 0)
        b.counts[ctu_idx] = nout;
}

/* dis: one thread a sample, a patch or a pixel (gpume_dis.h); each level's
 * samples at its offset of the buffer given */

/** Level k + 1 of the dis pyramid (dl in dst) from level k (sl in src). */
extern "C" __global__ void gpume_dis_down(GpumeDisLevel sl, const uint8_t *src, GpumeDisLevel dl,
                                          uint8_t *dst)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;

    if (x < dl.w && y < dl.h)
        dst[dl.offset + y * dl.pitch + x] = gpume_downscale_px(src + sl.offset, sl.pitch, sl.w, sl.h, x, y);
}

/** The vectors of a level's patches, a block of gpume_dis_patches_block() each. */
extern "C" __global__ __attribute__((launch_bounds(GPUME_DIS_GROUP, 4)))
void gpume_dis_patches(GpumeDisLevel l, const uint8_t *cur, const uint8_t *ref, const int32_t *coarse,
                       int coarse_w, int32_t *patch, GpumeDisHmeArgs ha, const GpumeBlock *hme,
                       const GpumePU *pu, const uint16_t *fixed)
{
    GPUME_SHARED int tpl[GPUME_DIS_TPL_W * GPUME_DIS_TPL_H];
    GPUME_SHARED int64_t err[GPUME_DIS_BW * GPUME_DIS_BH];
    GPUME_SHARED int vec[2 * GPUME_DIS_BW * GPUME_DIS_BH];
    GPUME_SHARED int list[GPUME_DIS_BW * GPUME_DIS_BH];
    GPUME_SHARED int counts[2];

    gpume_dis_patches_block(l, cur, ref, coarse, coarse_w, patch, ha, hme, pu, fixed, threadIdx.x,
                            blockIdx.x * GPUME_DIS_BW, blockIdx.y * GPUME_DIS_BH, tpl, err, vec, list, counts);
}

/**
 * The sums of v[0 .. n-1] (n at most 5) over the GPUME_DIS_PATCH threads
 * of the patch group of thread tid, through red (5 slots per thread of the
 * block): every thread of the block takes part (the shuffles of FFmpeg's
 * PTX 3.2 are not safe in divergent warps).
 */
__device__ static void dis_group_sums(int64_t (*red)[GPUME_DIS_PATCH_THREADS], int tid, int64_t *v, int n)
{
    const int base = tid & ~(GPUME_DIS_PATCH - 1);

    for (int k = 0; k < n; k++)
        red[k][tid] = v[k];
    __syncthreads();
    for (int k = 0; k < n; k++) {
        v[k] = 0;
        for (int i = 0; i < GPUME_DIS_PATCH; i++)
            v[k] += red[k][base + i];
    }
    __syncthreads();
}

/** Whether pred holds on some thread of the block, every thread taking part (__syncthreads_or()). */
__device__ static inline int dis_block_any(int pred)
{
    int r;
    asm volatile("{\n\t.reg .pred p, q;\n\tsetp.ne.s32 p, %1, 0;\n\t"
                 "bar.red.or.pred q, 0, p;\n\tselp.s32 %0, 1, 0, q;\n\t}"
                 : "=r"(r) : "r"(pred));
    return r;
}

/**
 * The errors (gpume_dis_error_of()) of the patch of thread tid's group at
 * (ax, ay) and at (bx, by), its rows' sums added across the group: every
 * thread of the block takes part, row says whether it has a row.
 */
__device__ static void dis_group_errors(int64_t (*red)[GPUME_DIS_PATCH_THREADS], int tid, GpumeDisLevel l,
                                        const uint8_t *c, const uint8_t *r, int px, int y, int row,
                                        int ax, int ay, int bx, int by, int64_t *ea, int64_t *eb)
{
    const int n = gpume_dis_patch_side(l.w) * gpume_dis_patch_side(l.h);
    int64_t v[4], qa = 0, qb = 0;
    int gx, gy, sa = 0, sb = 0;

    if (row) {
        gpume_dis_residual_row(c, l.pitch, r, l.pitch, l.w, l.h, px, y, ax, ay, &gx, &gy, &sa, &qa);
        gpume_dis_residual_row(c, l.pitch, r, l.pitch, l.w, l.h, px, y, bx, by, &gx, &gy, &sb, &qb);
    }
    v[0] = sa;
    v[1] = qa;
    v[2] = sb;
    v[3] = qb;
    dis_group_sums(red, tid, v, 4);
    *ea = gpume_dis_error_of((int)v[0], v[1], n);
    *eb = gpume_dis_error_of((int)v[2], v[3], n);
}

/**
 * The descent (gpume_dis_descent_step()) of the patch of thread tid's group from
 * (*ux, *uy), g its template's gradient sums, the rows' sums of each step
 * added across the group; the groups of the block step together until the
 * last is done, those that do not descend (active 0) keeping their start.
 */
__device__ static void dis_group_descent(int64_t (*red)[GPUME_DIS_PATCH_THREADS], int tid, GpumeDisLevel l,
                                         const uint8_t *c, const uint8_t *r, int px, int y, int row,
                                         const int64_t *g, int active, int *ux, int *uy)
{
    GpumeDisDescent d;
    int64_t v[4];

    gpume_dis_descent_start(&d, (int)g[0], (int)g[1], (int)g[2], (int)g[3], (int)g[4],
                            gpume_dis_patch_side(l.w) * gpume_dis_patch_side(l.h), *ux, *uy);
    do {
        int rbx = 0, rby = 0, sr = 0;
        int64_t ssd = 0;
        if (row && active)
            gpume_dis_residual_row(c, l.pitch, r, l.pitch, l.w, l.h, px, y, d.vx, d.vy,
                                   &rbx, &rby, &sr, &ssd);
        v[0] = rbx;
        v[1] = rby;
        v[2] = sr;
        v[3] = ssd;
        dis_group_sums(red, tid, v, 4);
        if (active)
            active = gpume_dis_descent_step(&d, v[0], v[1], (int)v[2], v[3]);
    } while (dis_block_any(active));
    gpume_dis_descent_result(&d, ux, uy);
}

/**
 * gpume_dis_patches() for levels of few patches, whose time is one
 * patch's descent: a group of GPUME_DIS_PATCH threads a patch, a thread a
 * row, the rows' sums added across the group. The groups of a block step
 * together until the last is done.
 */
extern "C" __global__ void gpume_dis_patches_rows(GpumeDisLevel l, const uint8_t *cur, const uint8_t *ref,
                                                  const int32_t *coarse, int coarse_w, int32_t *patch,
                                                  GpumeDisHmeArgs ha, const GpumeBlock *hme,
                                                  const GpumePU *pu, const uint16_t *fixed)
{
    GPUME_SHARED int64_t red[5][GPUME_DIS_PATCH_THREADS];
    const int tid = threadIdx.x, t = blockIdx.x * blockDim.x + tid;
    const int q = t / GPUME_DIS_PATCH, lane = t % GPUME_DIS_PATCH;
    const int nx = gpume_dis_nb_patches(l.w), np = nx * gpume_dis_nb_patches(l.h);
    const int ph = gpume_dis_patch_side(l.h);
    const int valid = q < np;
    const int px = gpume_dis_patch_pos(valid ? q % nx : 0, l.w);
    const int py = gpume_dis_patch_pos(valid ? q / nx : 0, l.h);
    const int row = valid && lane < ph, y = py + lane;
    const uint8_t *c = cur + l.offset, *r = ref + l.offset;
    int64_t g[5] = { 0, 0, 0, 0, 0 };
    int ux, uy, hx = 0, hy = 0, start = GPUME_DIS_FROM_COARSE;

    gpume_dis_patch_start(coarse, coarse_w, l.w, l.h, px, py, &ux, &uy);
    if (ha.on) {
        int64_t eu, eh;
        gpume_dis_hme_start(hme, pu, fixed, ha.nb_fixed, ha.ctu, ha.ctu_cols, ha.max_out, ha.width,
                            ha.height, ha.lf, l.w, l.h, px, py, &hx, &hy);
        dis_group_errors(red, tid, l, c, r, px, y, row, ux, uy, hx, hy, &eu, &eh);
        start = gpume_dis_start_of(eh, eu, hx, hy, ux, uy);
        if (start == GPUME_DIS_FROM_HME) {
            ux = hx;
            uy = hy;
        }
    }
    {
        int gr[5] = { 0, 0, 0, 0, 0 };
        if (row)
            gpume_dis_gradient_row(c, l.pitch, l.w, l.h, px, y, gr);
        for (int i = 0; i < 5; i++)
            g[i] = gr[i];
        dis_group_sums(red, tid, g, 5);
    }
    dis_group_descent(red, tid, l, c, r, px, y, row, g, valid, &ux, &uy);
    /* the second descent of the patches that start from both */
    if (dis_block_any(valid && start == GPUME_DIS_FROM_BOTH)) {
        int64_t eu, eh;
        dis_group_descent(red, tid, l, c, r, px, y, row, g, valid && start == GPUME_DIS_FROM_BOTH, &hx, &hy);
        dis_group_errors(red, tid, l, c, r, px, y, row, ux, uy, hx, hy, &eu, &eh);
        if (start == GPUME_DIS_FROM_BOTH && gpume_dis_keep_hme(eh, eu)) {
            ux = hx;
            uy = hy;
        }
    }
    if (valid && lane == 0) {
        patch[2 * q]     = ux;
        patch[2 * q + 1] = uy;
    }
}

/** A level's field from its patches. */
extern "C" __global__ void gpume_dis_densify(GpumeDisLevel l, const uint8_t *cur, const uint8_t *ref,
                                             const int32_t *patch, int32_t *field)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;

    if (x < l.w && y < l.h)
        gpume_dis_densify_px(cur + l.offset, l.pitch, ref + l.offset, l.pitch, l.w, l.h, patch, x, y,
                             field);
}

/** The exported blocks: a block of threads a CTU, a thread its fixed PU k. */
extern "C" __global__ void gpume_dis_blocks(GpumeDisBlockArgs a, const uint8_t *cur, const uint8_t *ref,
                                            const int32_t *field, const GpumePU *pu,
                                            const uint16_t *fixed, GpumeBlock *blocks, uint16_t *counts)
{
    gpume_dis_blocks_item(a, cur, ref, field, pu, fixed, blocks, counts, blockIdx.x, threadIdx.x);
}
