// Measured integer rate of the chip for the SAD kernels' inner operation:
// vabsdiff4 with accumulate (4 absolute byte differences summed per op),
// and plain 32-bit integer adds, from long dependent-free chains.
// Build and run on the GPU machine: nvcc -O3 -arch=sm_90 tools/int-rate.cu -o int-rate
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHAINS 8
#define ITERS  4096

__global__ void sad4_rate(unsigned *out, unsigned seed)
{
    unsigned acc[CHAINS], a = seed ^ threadIdx.x, b = seed * 2654435761u + blockIdx.x;
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
        acc[c] = c;
    for (int i = 0; i < ITERS; i++) {
#pragma unroll
        for (int c = 0; c < CHAINS; c++)
            asm volatile("vabsdiff4.u32.u32.u32.add %0, %1, %2, %0;" : "+r"(acc[c]) : "r"(a + c), "r"(b));
        a += 0x01010101u;
    }
    unsigned s = 0;
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
        s += acc[c];
    if (s == 0x12345678u)
        out[0] = s;
}

__global__ void iadd_rate(unsigned *out, unsigned seed)
{
    unsigned acc[CHAINS], a = seed ^ threadIdx.x;
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
        acc[c] = c * blockIdx.x;
    for (int i = 0; i < ITERS; i++) {
#pragma unroll
        for (int c = 0; c < CHAINS; c++)
            asm volatile("add.u32 %0, %0, %1;" : "+r"(acc[c]) : "r"(a + c));
        a ^= i;
    }
    unsigned s = 0;
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
        s += acc[c];
    if (s == 0x12345678u)
        out[0] = s;
}

/* Stop with the runtime's message where a call fails (no device, no driver). */
static void check(cudaError_t err, const char *what)
{
    if (err != cudaSuccess) {
        fprintf(stderr, "int-rate: %s: %s\n", what, cudaGetErrorString(err));
        exit(1);
    }
}

int main()
{
    cudaDeviceProp prop;
    unsigned *out;
    cudaEvent_t e0, e1;
    int khz = 0;

    check(cudaGetDeviceProperties(&prop, 0), "device 0");
    check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0), "clock rate");
    /* 16 blocks of 256 threads per SM (132 x 16 on an H100 or H200): two
     * waves at full occupancy, long enough to hide the launch */
    const int blocks = prop.multiProcessorCount * 16, threads = 256;
    const double ops = (double)blocks * threads * ITERS * CHAINS;

    check(cudaMalloc(&out, 4), "cudaMalloc");
    check(cudaEventCreate(&e0), "cudaEventCreate");
    check(cudaEventCreate(&e1), "cudaEventCreate");
    for (int k = 0; k < 2; k++) {
        float best = 1e30f;
        for (int rep = 0; rep < 5; rep++) {
            float ms;
            check(cudaEventRecord(e0), "cudaEventRecord");
            if (k == 0)
                sad4_rate<<<blocks, threads>>>(out, rep);
            else
                iadd_rate<<<blocks, threads>>>(out, rep);
            check(cudaGetLastError(), "launch");
            check(cudaEventRecord(e1), "cudaEventRecord");
            check(cudaEventSynchronize(e1), "kernel");
            check(cudaEventElapsedTime(&ms, e0, e1), "cudaEventElapsedTime");
            if (rep && ms < best)
                best = ms;
        }
        printf("%s: %.2f Tops/s (%s)\n", k ? "add.u32" : "vabsdiff4.add",
               ops / (best * 1e-3) / 1e12,
               k ? "32-bit adds" : "each op: 4 absolute byte differences summed");
    }
    printf("device: %s, %d SMs, %.0f MHz\n", prop.name, prop.multiProcessorCount, khz / 1e3);
    return 0;
}
