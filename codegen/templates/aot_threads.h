/* ---- threads ----
 * One pool per library: `threads` - 1 workers (the caller is thread 0),
 * started on the first run with work to split, or when the option is set, and
 * joined when the library is unloaded. Chunk k of a range always goes to
 * thread k, so results never depend on timing. A run that finds the pool busy
 * (another thread is running this library) runs its ranges itself. */
#define AOT_MAX_THREADS 64
typedef void (*aot__range_fn)(void* ctx, int64_t lo, int64_t hi);
/* A kernel's arguments, for its _part function on the pool. */
typedef struct aot__kargs {
  void* const* in;
  void* const* out;
  uint8_t* arena;
  const uint8_t* wts;
} aot__kargs;
static pthread_mutex_t aot__pool_mu = PTHREAD_MUTEX_INITIALIZER, aot__pool_busy = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t aot__pool_go = PTHREAD_COND_INITIALIZER, aot__pool_done = PTHREAD_COND_INITIALIZER;
static struct {
  pthread_t th[AOT_MAX_THREADS];
  int started, wanted, parts;
  long stop, pending, gen; /* atomics (__atomic builtins): workers spin on gen */
  aot__range_fn fn;
  void* ctx;
  int64_t total, unit;
} aot__pool;

/* [lo, hi) of chunk k of n: equal shares, in multiples of `unit` elements. */
static void aot__chunk(int64_t total, int64_t unit, int k, int n, int64_t* lo, int64_t* hi) {
  const int64_t units = (total + unit - 1) / unit;
  *lo = units * k / n * unit;
  *hi = units * (k + 1) / n * unit;
  if (*hi > total) *hi = total;
}

/* Waiting: a worker that finished a chunk, and a caller waiting for its
 * workers, first spin for AOT_SPIN pause instructions (about 160 us at the
 * 10 ns a pause takes on this project's Xeon) before sleeping on the
 * condition variable: a model runs its kernels back to back, and waking a
 * sleeping thread (about 40 us here) costs more than a small kernel. 4096
 * spins were too few: the serial stretch of a squeeze-and-excitation block
 * (pooling, two tiny convolutions) outlasted them, and its next parallel
 * kernel paid the wake-up. After a run the workers sleep within that time. */
#define AOT_SPIN 16384
static inline void aot__relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}
static inline long aot__load(const long* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
/* One spin step; every 256th yields, so that on a machine with more runnable
 * threads than CPUs the thread being waited for can run here. */
static inline void aot__spin(int i) {
  aot__relax();
  if ((i & 255) == 255) sched_yield();
}

static void* aot__worker(void* arg) {
  const int k = (int)(intptr_t)arg;
  long seen = 0;
  for (;;) {
    for (int i = 0; i < AOT_SPIN && aot__load(&aot__pool.gen) == seen && !aot__load(&aot__pool.stop); ++i) aot__spin(i);
    if (aot__load(&aot__pool.gen) == seen && !aot__load(&aot__pool.stop)) {
      pthread_mutex_lock(&aot__pool_mu);
      while (aot__load(&aot__pool.gen) == seen && !aot__load(&aot__pool.stop))
        pthread_cond_wait(&aot__pool_go, &aot__pool_mu);
      pthread_mutex_unlock(&aot__pool_mu);
    }
    if (aot__load(&aot__pool.stop)) break;
    seen = aot__load(&aot__pool.gen); /* the job's fields were written before gen (release) */
    int64_t lo = 0, hi = 0;
    if (k < aot__pool.parts) aot__chunk(aot__pool.total, aot__pool.unit, k, aot__pool.parts, &lo, &hi);
    if (lo < hi) aot__pool.fn(aot__pool.ctx, lo, hi);
    if (__atomic_sub_fetch(&aot__pool.pending, 1, __ATOMIC_ACQ_REL) == 0) {
      pthread_mutex_lock(&aot__pool_mu); /* the caller may be asleep */
      pthread_cond_signal(&aot__pool_done);
      pthread_mutex_unlock(&aot__pool_mu);
    }
  }
  return 0;
}

/* Stops and joins the workers (pool busy-locked by the caller, or at unload). */
static void aot__pool_stop(void) {
  pthread_mutex_lock(&aot__pool_mu);
  __atomic_store_n(&aot__pool.stop, 1, __ATOMIC_RELEASE);
  pthread_cond_broadcast(&aot__pool_go);
  pthread_mutex_unlock(&aot__pool_mu);
  for (int k = 1; k < aot__pool.started; ++k) pthread_join(aot__pool.th[k], 0);
  aot__pool.started = 0;
  aot__pool.stop = 0;
  aot__pool.gen = 0; /* new workers start at generation 0 */
}
__attribute__((destructor)) static void aot__pool_unload(void) {
  if (aot__pool.started > 1) aot__pool_stop();
}

/* Workers for `wanted` threads (0: one per online CPU); the busy lock is held. */
static int aot__pool_start(void) {
  int want = aot__pool.wanted;
  if (want <= 0) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    want = cpus < 1 ? 1 : cpus > AOT_MAX_THREADS ? AOT_MAX_THREADS : (int)cpus;
  }
  if (want == aot__pool.started) return want;
  if (aot__pool.started > 1) aot__pool_stop();
  aot__pool.started = 1;
  for (int k = 1; k < want; ++k) {
    if (pthread_create(&aot__pool.th[k], 0, aot__worker, (void*)(intptr_t)k) != 0) break; /* fewer threads */
    aot__pool.started = k + 1;
  }
  return aot__pool.started;
}

/* The public parallel-for of generated code: runs fn(ctx, lo, hi) over
 * [0, total) split over the pool, one chunk per thread, each a multiple of
 * `unit` (e.g. 16 elements: whole vectors; a GEMM's tile rows) and at least
 * `grain` long; on the calling thread alone when that leaves one chunk. */
AOT_UNUSED static void aot__parallel_for(int64_t total, int64_t unit, int64_t grain, aot__range_fn fn, void* ctx) {
  if (total <= 0) return;
  if (aot__pool.wanted == 1 || total < 2 * grain || pthread_mutex_trylock(&aot__pool_busy) != 0) {
    fn(ctx, 0, total);
    return;
  }
  int n = aot__pool_start();
  if (grain < unit) grain = unit;
  if (n > total / grain) n = (int)(total / grain);
  if (n <= 1) {
    pthread_mutex_unlock(&aot__pool_busy);
    fn(ctx, 0, total);
    return;
  }
  aot__pool.fn = fn;
  aot__pool.ctx = ctx;
  aot__pool.total = total;
  aot__pool.unit = unit;
  aot__pool.parts = n;
  __atomic_store_n(&aot__pool.pending, (long)(aot__pool.started - 1), __ATOMIC_RELAXED);
  __atomic_add_fetch(&aot__pool.gen, 1, __ATOMIC_RELEASE); /* spinning workers start here */
  pthread_mutex_lock(&aot__pool_mu);                       /* sleeping ones on the broadcast */
  pthread_cond_broadcast(&aot__pool_go);
  pthread_mutex_unlock(&aot__pool_mu);
  int64_t lo, hi;
  aot__chunk(total, unit, 0, n, &lo, &hi);
  if (lo < hi) fn(ctx, lo, hi);
  for (int i = 0; i < AOT_SPIN && aot__load(&aot__pool.pending) > 0; ++i) aot__spin(i);
  if (aot__load(&aot__pool.pending) > 0) {
    pthread_mutex_lock(&aot__pool_mu);
    while (aot__load(&aot__pool.pending) > 0) pthread_cond_wait(&aot__pool_done, &aot__pool_mu);
    pthread_mutex_unlock(&aot__pool_mu);
  }
  pthread_mutex_unlock(&aot__pool_busy);
}

/* The "threads" option: N >= 1 threads, 0 for one per online CPU. */
AOT_UNUSED static int aot__set_threads(int64_t n, char* err, size_t err_len) {
  if (n < 0 || n > AOT_MAX_THREADS)
    return aot__fail(err, err_len, AOT_ERR_BAD_OPTION, "threads", "takes 0 (one per CPU) to 64");
  pthread_mutex_lock(&aot__pool_busy);
  aot__pool.wanted = (int)n;
  if (n != 1)
    aot__pool_start(); /* now, not during a run */
  else if (aot__pool.started > 1)
    aot__pool_stop();
  pthread_mutex_unlock(&aot__pool_busy);
  return AOT_OK;
}
