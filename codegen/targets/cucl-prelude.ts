/**
 * The CUCL language layer (boda's `ocl_base_decls` and `cu_base_decls`, shared/reference/CUCL.md
 * §1): the macros that make one source OpenCL C and CUDA C++ at once. A runtime compiles
 * `CUCL_OPENCL_PRELUDE + deviceCode` with OpenCL, `CUCL_CUDA_PRELUDE + deviceCode` with NVRTC/nvcc.
 *
 * Each prelude is boda's (HEAD 27ec86e), then Loom's additions, all of which boda lacks:
 * the fixed-width integer types boda leaves out (`int8_t`, `int16_t`, `uint16_t`, `int64_t`,
 * `uint64_t`; on CUDA spelled as glibc's LP64 typedefs, so that they agree with `<stdint.h>`), a
 * barrier that also orders global memory (`BARRIER_SYNC_GLOBAL`: boda's `BARRIER_SYNC` fences local
 * memory only on OpenCL), and on CUDA `INFINITY`/`NAN` where no header defined them (NVRTC).
 */

const OPENCL_BODA = `typedef unsigned uint32_t;
typedef int int32_t;
typedef unsigned char uint8_t;

#define CUCL_BACKEND_IX 2
__constant uint32_t const U32_MAX = 0xffffffff;
//typedef long long int64_t;
#define CUCL_GLOBAL_KERNEL kernel
#define CUCL_DEVICE 
#define GASQ global
#define GLOB_ID_1D get_global_id(0)
#define LOC_ID_1D get_local_id(0)
#define GRP_ID_1D get_group_id(0)
#define LOC_SZ_1D get_local_size(0)
#define LOCSHAR_MEM local
#define LSMASQ local
#define BARRIER_SYNC barrier(CLK_LOCAL_MEM_FENCE)

// note: it seems OpenCL doesn't provide powf(), but instead overloads pow() for double and float. 
// so, we use this as a compatibility wrapper. 
// the casts should help uses that might expect implict casts from double->float when using powf() 
// ... or maybe that's a bad idea?
#define powf(v,e) pow((float)v,(float)e)
#define store_float_to_rp_half( val, ix, p ) vstore_half( val, ix, p )
#define store_float_to_rp_float( val, ix, p ) p[ix] = val
`;

const CUDA_BODA = `#define CUCL_BACKEND_IX 1
typedef unsigned uint32_t;
uint32_t const U32_MAX = 0xffffffffU;
typedef int int32_t;
//typedef long long int64_t;
float const FLT_MAX = /*0x1.fffffep127f*/ 340282346638528859811704183484516925440.0f;
float const FLT_MIN = 1.175494350822287507969e-38f;
#define CUCL_GLOBAL_KERNEL extern "C" __global__
#define CUCL_DEVICE extern "C" __device__
#define GASQ
#define GLOB_ID_1D (blockDim.x * blockIdx.x + threadIdx.x)
#define LOC_ID_1D (threadIdx.x)
#define GRP_ID_1D (blockIdx.x)
#define LOC_SZ_1D (blockDim.x)
#define LOCSHAR_MEM __shared__
#define LSMASQ
#define BARRIER_SYNC __syncthreads()

#define store_float_to_rp_half( val, ix, p ) vstore_half( val, ix, p )
#define store_float_to_rp_float( val, ix, p ) p[ix] = val
`;

/** boda's OpenCL prelude, then Loom's additions (see the module comment). */
export const CUCL_OPENCL_PRELUDE = `${OPENCL_BODA}
// Loom's additions to the CUCL language layer
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef char int8_t;
typedef short int16_t;
typedef ushort uint16_t;
typedef long int64_t;
typedef ulong uint64_t;
#define BARRIER_SYNC_GLOBAL barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
`;

/** boda's CUDA prelude, then Loom's additions (see the module comment). */
export const CUCL_CUDA_PRELUDE = `${CUDA_BODA}
// Loom's additions to the CUCL language layer
typedef unsigned char uint8_t;
typedef signed char int8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef long int64_t;
typedef unsigned long uint64_t;
#define BARRIER_SYNC_GLOBAL __syncthreads()
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
#ifndef HUGE_VAL
#define HUGE_VAL __longlong_as_double(0x7ff0000000000000LL)
#endif
`;

/** The prelude of each CUCL back end, by boda's `CUCL_BACKEND_IX` name. */
export const CUCL_PRELUDES = { opencl: CUCL_OPENCL_PRELUDE, cuda: CUCL_CUDA_PRELUDE } as const;
