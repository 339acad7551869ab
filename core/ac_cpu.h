/* Which vector instructions the running CPU has, for the few loops that
 * carry a version for them beside the baseline one (built with
 * __attribute__((target("avx2"))), chosen at run time). Internal to the
 * core. */
#ifndef AC_CPU_H
#define AC_CPU_H

#if defined(__x86_64__) && defined(__GNUC__)
#define AC_HAVE_AVX2_PATH 1
/* A read of what libgcc found at startup: cheap enough to ask per call. */
#define ac_cpu_avx2() __builtin_cpu_supports("avx2")
#else
#define AC_HAVE_AVX2_PATH 0
#define ac_cpu_avx2() 0
#endif

#endif
