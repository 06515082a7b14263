/**
 * The words generated code may not use as names, per target dialect: the language's keywords, the
 * types, macros and functions its headers and built-ins declare, and the names Loom's own
 * printers and runtimes use (`H` in JS, the `loopy_*` helpers in C, `gid`/`lid` in OpenCL).
 * A user name found here is renamed by the `NameAllocator` (codegen/names.ts).
 */
import type { TargetName } from "../src/ir/index.js";
import { GLIBC_NAMES, OPENCL_BUILTINS } from "./reserved-headers.js";

const words = (s: string): string[] => s.split(/\s+/).filter((w) => w.length > 0);

const C11 = words(`auto break case char const continue default do double else enum extern float for goto if inline int
  long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while
  _Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn _Static_assert _Thread_local
  bool true false complex imaginary alignas alignof noreturn static_assert thread_local nullptr constexpr typeof
  typeof_unqual asm fortran`);

/** The names of `<stdint.h>`, `<stdlib.h>`, `<math.h>` and the C runtime a kernel may collide with. */
const LIBC = words(`main system exit _exit abort atexit malloc calloc realloc free printf fprintf sprintf snprintf puts
  putchar getchar scanf memcpy memmove memset memcmp strlen strcpy strcmp strcat abs labs llabs div ldiv rand srand atoi
  atol atof strtol strtod getenv qsort bsearch fopen fclose fread fwrite fflush errno stdin stdout stderr exec execl
  execv execve execvp fork popen pclose kill raise signal dlopen dlsym dlclose
  int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t intptr_t uintptr_t intmax_t uintmax_t size_t
  ptrdiff_t ssize_t wchar_t NULL EOF INFINITY NAN HUGE_VAL HUGE_VALF HUGE_VALL FILE
  INT8_MIN INT16_MIN INT32_MIN INT64_MIN INT8_MAX INT16_MAX INT32_MAX INT64_MAX UINT8_MAX UINT16_MAX UINT32_MAX
  UINT64_MAX SIZE_MAX RAND_MAX EXIT_SUCCESS EXIT_FAILURE M_PI M_E M_SQRT2 FLT_MAX DBL_MAX FLT_MIN DBL_MIN
  min max isnan isinf isfinite isnormal signbit fpclassify nan nanf`);

/** `<math.h>` functions; each also with C's `f` (float) and `l` (long double) suffix. */
const MATH = words(`sin cos tan asin acos atan atan2 sinh cosh tanh asinh acosh atanh exp exp2 expm1 log log2 log10 log1p
  logb pow sqrt cbrt hypot fabs floor ceil round lround llround trunc rint lrint llrint nearbyint fmod remainder remquo
  fmin fmax fdim fma copysign erf erfc tgamma lgamma ldexp frexp modf scalbn ilogb nextafter`);

/** C++ keywords (CUDA is C++; OKL kernels are compiled as C++ by OCCA's serial backends). */
const CPP = words(`and and_eq asm bitand bitor catch char16_t char32_t char8_t class compl concept const_cast consteval
  constexpr constinit co_await co_return co_yield decltype delete dynamic_cast explicit export friend mutable namespace
  new noexcept not not_eq nullptr operator or or_eq private protected public reinterpret_cast requires static_cast
  template this throw try typeid typename using virtual wchar_t xor xor_eq override final std`);

const vectors = (bases: readonly string[], widths: readonly number[]): string[] => bases.flatMap((b) => widths.map((w) => `${b}${w}`));

const OPENCL = [
  ...words(`kernel __kernel global __global local __local private __private constant __constant generic __generic
  read_only write_only read_write __read_only __write_only __read_write uniform pipe
  uchar ushort uint ulong half quad size_t ptrdiff_t intptr_t uintptr_t event_t sampler_t image1d_t image2d_t image3d_t
  image1d_array_t image2d_array_t image1d_buffer_t
  get_global_id get_local_id get_group_id get_global_size get_local_size get_num_groups get_work_dim get_global_offset
  get_enqueued_local_size get_global_linear_id get_local_linear_id
  barrier work_group_barrier mem_fence read_mem_fence write_mem_fence CLK_LOCAL_MEM_FENCE CLK_GLOBAL_MEM_FENCE
  async_work_group_copy async_work_group_strided_copy wait_group_events prefetch
  mad mad24 mul24 mad_hi mul_hi clamp mix step smoothstep sign dot cross length distance normalize fast_length
  fast_distance fast_normalize rsqrt select bitselect any all popcount rotate clz ctz hadd rhadd abs_diff add_sat
  sub_sat upsample degrees radians fract maxmag minmag pown powr rootn sincos sinpi cospi tanpi asinpi acospi atanpi
  atan2pi exp10 printf vec_step shuffle shuffle2 gid lid
  MAXFLOAT HUGE_VALF INFINITY NAN FLT_EPSILON DBL_EPSILON CHAR_BIT MAX_WORK_DIM
  ndrange_t queue_t clk_event_t reserve_id_t kernel_enqueue_flags_t clk_profiling_info kernel_exec`),
  ...vectors(["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double", "half", "bool"], [2, 3, 4, 8, 16]),
];

const CUDA = [
  ...words(`__global__ __device__ __host__ __shared__ __constant__ __managed__ __restrict__ __noinline__ __forceinline__
  __launch_bounds__ __syncthreads __syncwarp __threadfence threadIdx blockIdx blockDim gridDim warpSize dim3
  __float_as_uint __uint_as_float __double_as_longlong __longlong_as_double __ldg clock clock64 longlong ulonglong
  half __half nv_bfloat16 rsqrt rsqrtf`),
  ...vectors(["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong", "ulonglong", "float", "double"], [1, 2, 3, 4]),
];

/** JavaScript's reserved words, strict-mode restrictions, and the globals generated JS reads (`H` is Loom's runtime). */
const JS = words(`break case catch class const continue debugger default delete do else enum export extends false finally
  for function if import in instanceof new null return super switch this throw true try typeof var void while with
  yield let static implements interface package private protected public await async of arguments eval undefined NaN
  Infinity H Math BigInt Number Object Array Function String Symbol Error globalThis console
  Float32Array Float64Array Int8Array Int16Array Int32Array Uint8Array Uint16Array Uint32Array Uint8ClampedArray
  BigInt64Array BigUint64Array`);

/**
 * WGSL's keywords, its reserved words, the predeclared types and built-in functions generated
 * code uses or a user name could shadow, and the names the wgsl printer introduces (`loom_*`).
 */
const WGSL = [
  ...words(`alias break case const const_assert continue continuing default diagnostic discard else enable false fn for
  if let loop override requires return struct switch true var while
  NULL Self abstract active alignas alignof as asm asm_fragment async attribute auto await become binding_array cast
  catch class co_await co_return co_yield coherent column_major common compile compile_fragment concept const_cast
  consteval constexpr constinit crate debugger decltype delete demote demote_to_helper do dynamic_cast enum explicit
  export extends extern external fallthrough filter final finally friend from fxgroup get goto groupshared highp impl
  implements import inline instanceof interface layout lowp macro macro_rules match mediump meta mod module move mut
  mutable namespace new nil noexcept noinline nointerpolation noperspective null nullptr of operator package
  packoffset partition pass patch pixelfragment precise precision premerge priv protected pub public readonly ref
  regardless register reinterpret_cast require resource restrict self set shared sizeof smooth snorm static
  static_assert static_cast std subroutine super target template this thread_local throw trait try type typedef typeid
  typename typeof union unless unorm unsafe unsized use using varying virtual volatile wgsl where with writeonly yield
  bool f16 f32 i32 u32 array atomic ptr sampler sampler_comparison function private workgroup uniform storage read
  write read_write
  abs acos acosh asin asinh atan atanh atan2 ceil clamp cos cosh countLeadingZeros countOneBits countTrailingZeros
  cross degrees determinant distance dot exp exp2 extractBits faceForward firstLeadingBit firstTrailingBit floor fma
  fract frexp insertBits inverseSqrt ldexp length log log2 max min mix modf normalize pow quantizeToF16 radians reflect
  refract reverseBits round saturate sign sin sinh smoothstep sqrt step tan tanh transpose trunc select bitcast all any
  arrayLength workgroupBarrier storageBarrier textureBarrier workgroupUniformLoad atomicLoad atomicStore atomicAdd
  atomicSub atomicMax atomicMin atomicAnd atomicOr atomicXor atomicExchange atomicCompareExchangeWeak
  pack4x8snorm pack4x8unorm pack2x16snorm pack2x16unorm pack2x16float unpack4x8snorm unpack4x8unorm unpack2x16snorm
  unpack2x16unorm unpack2x16float dpdx dpdy fwidth`),
  ...["vec2", "vec3", "vec4"].flatMap((v) => [v, `${v}i`, `${v}u`, `${v}f`, `${v}h`]),
  ...[2, 3, 4].flatMap((c) => [2, 3, 4].flatMap((r) => [`mat${c}x${r}`, `mat${c}x${r}f`, `mat${c}x${r}h`])),
];

/** HIP's names beyond CUDA's (hip_runtime.h): the `hip*` ids and API, the wave intrinsics. */
const HIP = words(`hipThreadIdx_x hipThreadIdx_y hipThreadIdx_z hipBlockIdx_x hipBlockIdx_y hipBlockIdx_z hipBlockDim_x
  hipBlockDim_y hipBlockDim_z hipGridDim_x hipGridDim_y hipGridDim_z hipLaunchKernelGGL HIP_KERNEL_NAME HIP_DYNAMIC_SHARED
  warpSize __shfl __shfl_up __shfl_down __shfl_xor __ballot __any __all __activemask __lane_id __popc __popcll __clz
  __clzll __ffs __ffsll __brev __brevll __fmaf_rn __threadfence_block __threadfence_system __syncthreads_count
  __syncthreads_and __syncthreads_or atomicInc atomicDec atomicCAS atomicAdd_system __hip_atomic_fetch_add
  hipError_t hipSuccess hipStream_t hipEvent_t hipDeviceProp_t hipMalloc hipFree hipMemcpy hipDeviceSynchronize`);

/**
 * boda's CUCL language layer (CUCL.md §1) and Loom's additions to it (codegen/targets/cucl-prelude.ts):
 * its macros, typedefs and constants, in code that is OpenCL C and CUDA C++ at once.
 */
const CUCL = words(`CUCL_GLOBAL_KERNEL CUCL_DEVICE CUCL_BACKEND_IX GASQ GLOB_ID_1D LOC_ID_1D GRP_ID_1D LOC_SZ_1D
  LOCSHAR_MEM LSMASQ BARRIER_SYNC BARRIER_SYNC_GLOBAL U32_MAX FLT_MAX FLT_MIN store_float_to_rp_half
  store_float_to_rp_float powf vstore_half`);

/** SYCL 2020 (issue 22): the namespace the sycl printer qualifies every name with, and its own names. */
const SYCL = words(`sycl loopy_queue loopy_cgh loopy_item`);

/** The Metal Shading Language's address spaces, types and functions a kernel meets (`using namespace metal`), and the printer's ids. */
const METAL = [
  ...words(`metal kernel vertex fragment device threadgroup threadgroup_imageblock constant thread ray_data object_data
  half uchar ushort uint ulong bfloat atomic atomic_int atomic_uint atomic_bool atomic_float atomic_ulong memory_order
  memory_order_relaxed mem_flags mem_none mem_device mem_threadgroup mem_texture threadgroup_barrier simdgroup_barrier
  clamp mix step smoothstep sign saturate select rsqrt fract dot cross length distance normalize popcount clz ctz
  mad mulhi rotate absdiff addsat subsat extract_bits insert_bits reverse_bits as_type sampler texture2d
  loopy_group loopy_local loopy_encoder MTL NS`),
  ...vectors(["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "float", "bool"], [2, 3, 4]),
];

/** alpaka's namespace and macros, the functor's template parameters, and the printer's accelerator and queue. */
const ALPAKA = words(`alpaka TAcc TQueue ALPAKA_FN_ACC ALPAKA_FN_HOST_ACC ALPAKA_FN_HOST ALPAKA_UNROLL ALPAKA_STATIC_ACC_MEM_GLOBAL
  loopy_acc loopy_block loopy_thread loopy_queue loopy_vec`);

/** ISPC's keywords, types and built-in variables (its standard library by pattern), and the printer's loop variables. */
const ISPC = words(`uniform varying task launch sync export foreach foreach_tiled foreach_active foreach_unique unmasked cif
  cfor cwhile cdo soa new delete in print assert assume noinline programIndex programCount taskIndex taskIndex0
  taskIndex1 taskIndex2 taskCount taskCount0 taskCount1 taskCount2 threadIndex threadCount int8 int16 int32 int64
  uint8 uint16 uint32 uint64 float16 memory_barrier rsqrt rcp clamp select popcnt count_leading_zeros
  count_trailing_zeros shuffle broadcast rotate exclusive_scan_add all any none loopy_lid1 loopy_lid2`);

/**
 * OCCA's own names in OKL: the loop variables the okl printer writes, its attributes' spellings and
 * runtime. The okl dialect reserves these and the words of every language OCCA translates OKL into
 * (C++, OpenCL C, CUDA, HIP, Metal): a kernel argument `global` or `threadIdx` would break there.
 */
const OKL = words(`occa okl kernel outer inner shared exclusive barrier atomic restrict dim dimOrder tile`);

/** Patterns of reserved names: C's `__x`/`_X`, the printers' helpers, OpenCL's conversions, CUDA's atomics. */
/** (`loopy_p`, `loopy_v`, `loopy_seen`, `loopy_old`: the compare-and-swap loop's locals, codegen/targets/atomics.ts.) */
const C_PATTERNS: readonly RegExp[] = [/^__/, /^_[A-Z]/, /^loopy_(min|max|fmod|floor_div|mod|div|abs|pow|shc|trap)_/, /^loom_entry_/, /^loopy_(p|v|seen|old|int_trap|trap)$/];
/**
 * OpenCL C's families of names (PoCL's opencl-c.h and opencl-c-base.h): conversions, vector loads,
 * atomics, native and half functions, OpenCL 2.0's memory orders and scopes, the image, queue and
 * fence constants (CLK_, CL_), the extension macros (cl_khr_…), the limits of each type and the
 * float and half math constants (M_PI_F, M_PI_H); test/codegen/reserved-opencl-header.test.ts
 * checks every name the installed header declares.
 */
const OPENCL_PATTERNS: readonly RegExp[] = [
  /^(as|convert)_/, /^v(load|store)[a-z_]*\d*(_rt[eznp])?$/, /^atomi?c?_/, /^ATOMIC_/, /^native_/, /^half_/, /^memory_(order|scope)/,
  /^(intel_)?(sub_group|work_group)_/, /^(amd|arm)_/, /^get_[a-z_]*sub_group/, /^(read|write)_image/, /^get_image_/, /^ndrange_[123]D$/,
  /^CLK?_/, /^cl_/, /^(FLT|DBL|HALF)_[A-Z0-9_]+$/, /^M_[A-Z0-9_]+_[FH]$/, /^(S?CHAR|UCHAR|U?SHRT|U?INT|U?LONG)_(MAX|MIN)$/,
];
const PATTERNS: Readonly<Record<NameDialect, readonly RegExp[]>> = {
  c: C_PATTERNS,
  openmp: [...C_PATTERNS, /^omp_/],
  opencl: [...C_PATTERNS, ...OPENCL_PATTERNS],
  cuda: [...C_PATTERNS, /^atomic[A-Z]/, /^make_/, /^__/],
  okl: [...C_PATTERNS, /^_[gl]\d+$/, /^_occa_/],
  js: [],
  sycl: [...C_PATTERNS],
  metal: [...C_PATTERNS, /^simd_/, /^quad_/, /^atomic_/, /^loopy_pipeline_\d+$/],
  alpaka: [...C_PATTERNS, /^ALPAKA_/],
  ispc: [...C_PATTERNS, /^atomic_/, /^reduce_/, /^packed_/, /^streaming_/, /^prefetch/],
  hip: [...C_PATTERNS, /^atomic[A-Z]/, /^make_/, /^__/, /^hip[A-Z]/, /^HIP_/],
  // CUCL code is OpenCL and CUDA at once; the linearized ids are GRP_ID_1D_g0, LOC_ID_1D_l0, …
  cucl: [...C_PATTERNS, ...OPENCL_PATTERNS, /^atomic[A-Z]/, /^make_/,
    /^(GLOB|LOC|GRP)_ID_1D/, /^CUCL_/, /^BARRIER_SYNC/],
  // WGSL: no identifier starts with two underscores or is `_`; the printer's names start with `loom_`.
  wgsl: [/^__/, /^_$/, /^texture_/, /^loom_(fdiv|mod|div|shc|pow|f2u|rt|trap|err|group|local|args|wg|erf|cas)(_|$)/],
};

/** The dialects whose reserved words differ (openmp is C plus `omp_*`). */
export type NameDialect = "c" | "openmp" | "opencl" | "cuda" | "js" | "okl" | "wgsl" | "hip" | "cucl" | "sycl" | "metal" | "alpaka" | "ispc";

const C_FAMILY = [...C11, ...LIBC, ...GLIBC_NAMES, ...MATH, ...MATH.map((m) => `${m}f`), ...MATH.map((m) => `${m}l`)];
const WORDS: Readonly<Record<NameDialect, ReadonlySet<string>>> = {
  c: new Set(C_FAMILY),
  openmp: new Set(C_FAMILY),
  opencl: new Set([...C_FAMILY, ...OPENCL, ...OPENCL_BUILTINS]),
  cuda: new Set([...C_FAMILY, ...CPP, ...CUDA]),
  okl: new Set([...C_FAMILY, ...CPP, ...OKL, ...OPENCL, ...OPENCL_BUILTINS, ...CUDA, ...HIP, ...METAL]),
  js: new Set(JS),
  sycl: new Set([...C_FAMILY, ...CPP, ...SYCL]),
  metal: new Set([...C_FAMILY, ...CPP, ...METAL]),
  alpaka: new Set([...C_FAMILY, ...CPP, ...ALPAKA]),
  ispc: new Set([...C_FAMILY, ...ISPC]),
  hip: new Set([...C_FAMILY, ...CPP, ...CUDA, ...HIP]),
  cucl: new Set([...C_FAMILY, ...CPP, ...CUDA, ...OPENCL, ...OPENCL_BUILTINS, ...CUCL]),
  wgsl: new Set(WGSL),
};

/** Whether `name` is reserved in `dialect`: `isReserved("restrict", "c")`, `isReserved("var", "js")`. */
export function isReserved(name: string, dialect: NameDialect): boolean {
  return WORDS[dialect].has(name) || PATTERNS[dialect].some((p) => p.test(name));
}

/** Every reserved word of every dialect (for tests and fuzzers that draw hostile names). */
export function allReservedWords(): readonly string[] {
  return [...new Set(Object.values(WORDS).flatMap((s) => [...s]))].sort();
}

/** The dialect whose names a target's code uses. */
export function dialectOf(target: TargetName): NameDialect {
  switch (target) {
    case "c": case "openmp": case "opencl": case "cuda": case "js": case "okl": case "wgsl": return target;
    case "hip": case "cucl": return target;
    case "sycl": case "metal": case "alpaka": case "ispc": return target;
    default: return "c";
  }
}
