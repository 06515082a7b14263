/**
 * Names that the headers generated code includes declare, as tables: every identifier (functions,
 * types, macros) of glibc's `<stdint.h>`, `<stdlib.h>` and `<math.h>` (`gcc -E` and `gcc -E -dM`,
 * names starting with `__` left to the `__` pattern), and the built-in functions of OpenCL C
 * (PoCL's `opencl-c.h`; the `as_`, `convert_`, `vload`, `atomic_` … families are patterns in
 * reserved-words.ts). A kernel named `ushort` or `labs`, or a parameter named `fmin` in code that
 * calls `fmin`, would not compile or would call the wrong thing.
 */

const words = (s: string): string[] => s.split(/\s+/).filter((w) => w.length > 0);

/** glibc's `<stdint.h>`, `<stdlib.h>`, `<math.h>` (and what they pull in: `<sys/types.h>`'s `ushort`, `u_int`, …). */
export const GLIBC_NAMES: readonly string[] = words(`
  BIG_ENDIAN BYTE_ORDER EXIT_FAILURE EXIT_SUCCESS FD_CLR FD_ISSET FD_SET FD_SETSIZE FD_ZERO FP_ILOGB0 FP_ILOGBNAN
  FP_INFINITE FP_NAN FP_NORMAL FP_SUBNORMAL FP_ZERO HUGE_VAL HUGE_VALF HUGE_VALL INFINITY INT16_C INT16_MAX INT16_MIN
  INT32_C INT32_MAX INT32_MIN INT64_C INT64_MAX INT64_MIN INT8_C INT8_MAX INT8_MIN INTMAX_C INTMAX_MAX INTMAX_MIN
  INTPTR_MAX INTPTR_MIN INT_FAST16_MAX INT_FAST16_MIN INT_FAST32_MAX INT_FAST32_MIN INT_FAST64_MAX INT_FAST64_MIN
  INT_FAST8_MAX INT_FAST8_MIN INT_LEAST16_MAX INT_LEAST16_MIN INT_LEAST32_MAX INT_LEAST32_MIN INT_LEAST64_MAX
  INT_LEAST64_MIN INT_LEAST8_MAX INT_LEAST8_MIN LITTLE_ENDIAN MATH_ERREXCEPT MATH_ERRNO MB_CUR_MAX M_1_PI M_2_PI
  M_2_SQRTPI M_E M_LN10 M_LN2 M_LOG10E M_LOG2E M_PI M_PI_2 M_PI_4 M_SQRT1_2 M_SQRT2 NAN NFDBITS NULL PDP_ENDIAN
  PTRDIFF_MAX PTRDIFF_MIN RAND_MAX SIG_ATOMIC_MAX SIG_ATOMIC_MIN SIZE_MAX UINT16_C UINT16_MAX UINT32_C UINT32_MAX
  UINT64_C UINT64_MAX UINT8_C UINT8_MAX UINTMAX_C UINTMAX_MAX UINTPTR_MAX UINT_FAST16_MAX UINT_FAST32_MAX
  UINT_FAST64_MAX UINT_FAST8_MAX UINT_LEAST16_MAX UINT_LEAST32_MAX UINT_LEAST64_MAX UINT_LEAST8_MAX WCHAR_MAX
  WCHAR_MIN WCONTINUED WEXITED WEXITSTATUS WIFCONTINUED WIFEXITED WIFSIGNALED WIFSTOPPED WINT_MAX WINT_MIN WNOHANG
  WNOWAIT WSTOPPED WSTOPSIG WTERMSIG WUNTRACED a64l abort abs acos acosf acosh acoshf acoshl acosl aligned_alloc
  alloca arc4random arc4random_buf arc4random_uniform asin asinf asinh asinhf asinhl asinl at_quick_exit atan atan2
  atan2f atan2l atanf atanh atanhf atanhl atanl atexit atof atoi atol atoll be16toh be32toh be64toh blkcnt_t blksize_t
  bsearch caddr_t calloc cbrt cbrtf cbrtl ceil ceilf ceill clearenv clock_t clockid_t copysign copysignf copysignl cos
  cosf cosh coshf coshl cosl daddr_t dev_t div div_t double_t drand48 drand48_data drand48_r drem dremf dreml ecvt
  ecvt_r end_ptr erand48 erand48_r erf erfc erfcf erfcl erff erfl exit exp exp2 exp2f exp2l expf expl expm1 expm1f
  expm1l fabs fabsf fabsl fcvt fcvt_r fd_mask fd_set fdim fdimf fdiml finite finitef finitel float_t floor floorf
  floorl fma fmaf fmal fmax fmaxf fmaxl fmin fminf fminl fmod fmodf fmodl fpclassify free frexp frexpf frexpl
  fsblkcnt_t fsfilcnt_t fsid_t gamma gammaf gammal gcvt getenv getloadavg getsubopt gid_t htobe16 htobe32 htobe64
  htole16 htole32 htole64 hypot hypotf hypotl id_t ilogb ilogbf ilogbl initstate initstate_r ino_t int16_t int32_t
  int64_t int8_t int_fast16_t int_fast32_t int_fast64_t int_fast8_t int_least16_t int_least32_t int_least64_t
  int_least8_t intmax_t intptr_t isfinite isgreater isgreaterequal isinf isinff isinfl isless islessequal
  islessgreater isnan isnanf isnanl isnormal isunordered j0 j0f j0l j1 j1f j1l jn jnf jnl jrand48 jrand48_r key_t l64a
  labs lcong48 lcong48_r ldexp ldexpf ldexpl ldiv ldiv_t le16toh le32toh le64toh lgamma lgamma_r lgammaf lgammaf_r
  lgammal lgammal_r linux llabs lldiv lldiv_t llrint llrintf llrintl llround llroundf llroundl loff_t log log10 log10f
  log10l log1p log1pf log1pl log2 log2f log2l logb logbf logbl logf logl lrand48 lrand48_r lrint lrintf lrintl lround
  lroundf lroundl malloc math_errhandling mblen mbstowcs mbtowc mkdtemp mkstemp mkstemps mktemp mode_t modf modff
  modfl mrand48 mrand48_r nan nanf nanl nearbyint nearbyintf nearbyintl nextafter nextafterf nextafterl nexttoward
  nexttowardf nexttowardl nlink_t nrand48 nrand48_r off_t on_exit pid_t posix_memalign pow powf powl pselect
  pthread_attr_t pthread_barrier_t pthread_barrierattr_t pthread_cond_t pthread_condattr_t pthread_key_t
  pthread_mutex_t pthread_mutexattr_t pthread_once_t pthread_rwlock_t pthread_rwlockattr_t pthread_spinlock_t
  pthread_t putenv qecvt qecvt_r qfcvt qfcvt_r qgcvt qsort quad_t quick_exit rand rand_deg rand_r rand_sep rand_type
  random random_data random_r realloc reallocarray realpath register_t remainder remainderf remainderl remquo remquof
  remquol rint rintf rintl round roundf roundl rpmatch scalb scalbf scalbl scalbln scalblnf scalblnl scalbn scalbnf
  scalbnl seed48 seed48_r select setenv setstate setstate_r signbit signgam significand significandf significandl
  sigset_t sin sinf sinh sinhf sinhl sinl size_t sqrt sqrtf sqrtl srand srand48 srand48_r srandom srandom_r ssize_t
  strtod strtof strtol strtold strtoll strtoq strtoul strtoull strtouq suseconds_t system tan tanf tanh tanhf tanhl
  tanl tgamma tgammaf tgammal time_t timer_t timespec timeval trunc truncf truncl tv_nsec tv_sec tv_usec u_char u_int
  u_int16_t u_int32_t u_int64_t u_int8_t u_long u_quad_t u_short uid_t uint uint16_t uint32_t uint64_t uint8_t
  uint_fast16_t uint_fast32_t uint_fast64_t uint_fast8_t uint_least16_t uint_least32_t uint_least64_t uint_least8_t
  uintmax_t uintptr_t ulong unix unsetenv ushort valloc wchar_t wcstombs wctomb y0 y0f y0l y1 y1f y1l yn ynf ynl`);

/** OpenCL C built-in functions (PoCL's opencl-c.h), outside the families matched by pattern. */
export const OPENCL_BUILTINS: readonly string[] = words(`
  abs abs_diff acos acosh acospi add_sat all any atan atan2 atan2pi atanh atanpi barrier bit_reverse
  bitfield_extract_signed bitfield_extract_unsigned bitfield_insert bitselect capture_event_profiling_info cbrt ceil
  clamp clz copysign cos cosh cospi create_user_event cross ctz degrees distance dot dot_4x8packed_ss_int
  dot_4x8packed_su_int dot_4x8packed_us_int dot_4x8packed_uu_uint dot_acc_sat dot_acc_sat_4x8packed_ss_int
  dot_acc_sat_4x8packed_su_int dot_acc_sat_4x8packed_us_int dot_acc_sat_4x8packed_uu_uint enqueue_marker erf erfc exp
  exp10 exp2 expm1 fabs fast_distance fast_length fast_normalize fdim floor fma fmax fmin fmod fract frexp
  get_default_queue get_enqueued_local_size get_enqueued_num_sub_groups get_fence get_global_id get_global_linear_id
  get_global_offset get_global_size get_group_id get_local_id get_local_linear_id get_local_size
  get_max_sub_group_size get_num_groups get_num_sub_groups get_sub_group_eq_mask get_sub_group_ge_mask
  get_sub_group_gt_mask get_sub_group_id get_sub_group_le_mask get_sub_group_local_id get_sub_group_lt_mask
  get_sub_group_size get_work_dim hadd hypot ilogb is_valid_event is_valid_reserve_id isequal isfinite isgreater
  isgreaterequal isinf isless islessequal islessgreater isnan isnormal isnotequal isordered isunordered ldexp length
  lgamma lgamma_r log log10 log1p log2 logb mad mad24 mad_hi mad_sat max maxmag mem_fence min minmag mix modf mul24
  mul_hi nan nextafter normalize popcount pow pown powr prefetch radians read_mem_fence release_event remainder remquo
  retain_event rhadd rint rootn rotate round rsqrt select set_user_event_status shuffle shuffle2 sign signbit sin
  sincos sinh sinpi smoothstep sqrt step sub_sat tan tanh tanpi tgamma trunc upsample vec_step wait_group_events
  work_group_all work_group_any work_group_barrier work_group_broadcast work_group_reduce_add work_group_reduce_max
  work_group_reduce_min work_group_scan_exclusive_add work_group_scan_exclusive_max work_group_scan_exclusive_min
  work_group_scan_inclusive_add work_group_scan_inclusive_max work_group_scan_inclusive_min write_mem_fence`);
