// The thread pool of generated CPU libraries (not of --embedded sources,
// which stay single-threaded): worker threads started on the first run that
// has work to split (or when the "threads" option is set), then reused; no
// allocation at all. Kernels call aot__parallel_for, which splits [0, total)
// into one fixed chunk per thread: elementwise ranges and rows of reductions
// come out bitwise identical for any thread count.
#pragma once

namespace atenaot {

// C source: aot__parallel_for(total, grain, fn, ctx), aot__set_threads(n,
// err, err_len) and the pool (one per library, stopped at unload). Needs
// <pthread.h>, <unistd.h> (_POSIX_C_SOURCE) and the validation helpers.
extern const char kCThreadsSource[];

// C source: aot__sgemm_mt, the kernel library's GEMM split over the pool
// (after kCThreadsSource and the kernel library's source).
extern const char kCGemmThreadsSource[];

// The most threads one library runs (NAME_MAX_THREADS).
constexpr int kMaxThreads = 64;

}  // namespace atenaot
