#if defined(__GNUC__)
#define AOT_UNUSED __attribute__((unused))
#else
#define AOT_UNUSED
#endif
/* ---- C ABI argument checks (shared by NAME_run and the loader) ----
 * No stdio: messages are assembled by hand so firmware links no printf. */
typedef struct aot__msg {
  char* p;
  size_t n, cap;
} aot__msg;
static void aot__put(aot__msg* m, const char* s) {
  for (; s && *s && m->n + 1 < m->cap; ++s) m->p[m->n++] = *s;
  if (m->cap) m->p[m->n] = 0;
}
static void aot__put_num(aot__msg* m, uint64_t u, int negative) {
  char tmp[24];
  size_t k = 0;
  do {
    tmp[k++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u && k < sizeof(tmp) - 1);
  if (negative) tmp[k++] = '-';
  char out[24];
  for (size_t i = 0; i < k; ++i) out[i] = tmp[k - 1 - i];
  out[k] = 0;
  aot__put(m, out);
}
static void aot__put_int(aot__msg* m, int64_t v) {
  aot__put_num(m, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, v < 0);
}
/* Counts and byte sizes: size_t values print as themselves (SIZE_MAX too). */
static void aot__put_size(aot__msg* m, size_t v) { aot__put_num(m, (uint64_t)v, 0); }
static const char* aot__dtype_name(int32_t d) {
  static const char* const names[] = {"float32", "float64", "int32", "int64", "bool", "uint8", "int8", "int16"};
  return d >= 0 && d < 8 ? names[d] : "an unknown dtype";
}
/* "<what> <index> (<name>) <detail>": the index and name only when given. */
static int aot__fail_at(char* err, size_t err_len, int code, const char* what, int64_t index, const char* name,
                        const char* detail) {
  aot__msg m = {err, 0, err ? err_len : 0};
  aot__put(&m, what);
  if (index >= 0) {
    aot__put(&m, " ");
    aot__put_int(&m, index);
  }
  if (name && *name) {
    aot__put(&m, " (");
    aot__put(&m, name);
    aot__put(&m, ")");
  }
  if (detail && *detail) {
    aot__put(&m, " ");
    aot__put(&m, detail);
  }
  return code;
}
/* A writer that appends to the message already in err. */
static aot__msg aot__tail(char* err, size_t err_len) {
  aot__msg m = {err, err && err_len ? strlen(err) : 0, err ? err_len : 0};
  return m;
}
AOT_UNUSED static int aot__fail(char* err, size_t err_len, int code, const char* what, const char* detail) {
  return aot__fail_at(err, err_len, code, what, -1, 0, detail);
}

/* A gather's index outside [lo, hi) (eager raises IndexError): "index K is
 * out of range [lo, hi) of <where>". */
AOT_UNUSED static int aot__bad_index(char* err, size_t err_len, int64_t k, int64_t lo, int64_t hi, const char* where) {
  aot__msg m = {err, 0, err ? err_len : 0};
  aot__put(&m, "index ");
  aot__put_int(&m, k);
  aot__put(&m, " is out of range [");
  aot__put_int(&m, lo);
  aot__put(&m, ", ");
  aot__put_int(&m, hi);
  aot__put(&m, ") of ");
  aot__put(&m, where);
  aot__put(&m, " (eager raises IndexError)");
  return AOT_ERR_INDEX_OUT_OF_RANGE;
}

/* The bytes a tensor's elements occupy, [lo, hi); empty for no elements. */
typedef struct aot__span {
  uintptr_t lo, hi;
} aot__span;
static aot__span aot__span_of(const aot_tensor* t) {
  static const unsigned char item[] = {4, 8, 4, 8, 1, 1, 1, 2};
  aot__span s = {(uintptr_t)t->data, (uintptr_t)t->data};
  if (!t->data || t->dtype < 0 || t->dtype > 7 || t->ndim < 0 || t->ndim > AOT_MAX_DIMS) return s;
  uint64_t lo = 0, hi = 0;
  for (int d = 0; d < t->ndim; ++d) {
    if (t->sizes[d] <= 0) return s;
    const uint64_t st = t->strides[d] < 0 ? (uint64_t)0 - (uint64_t)t->strides[d] : (uint64_t)t->strides[d];
    const uint64_t reach = (uint64_t)(t->sizes[d] - 1) * st;
    if (t->strides[d] < 0)
      lo += reach;
    else
      hi += reach;
  }
  s.lo -= (uintptr_t)(lo * item[t->dtype]);
  s.hi += (uintptr_t)((hi + 1) * item[t->dtype]);
  return s;
}
static int aot__overlap(aot__span a, aot__span b) { return a.lo < a.hi && b.lo < b.hi && a.lo < b.hi && b.lo < a.hi; }

/* The layout an input was compiled for: its strides (in elements) and, for an
 * input that shared memory with an earlier one when traced (anchor < its own
 * index), the byte distance of its first element from the anchor's. */
typedef struct aot__layout {
  int64_t strides[AOT_MAX_DIMS];
  int64_t delta;
  int32_t anchor;
} aot__layout;
static void aot__put_list(aot__msg* m, const int64_t* v, int n) {
  aot__put(m, "(");
  for (int d = 0; d < n; ++d) {
    if (d) aot__put(m, ", ");
    aot__put_int(m, v[d]);
  }
  aot__put(m, ")");
}

/* strides: the layout the model was compiled for; NULL for contiguous row-major. */
static int aot__check(const aot_tensor* t, const aot_tensor_info* info, const int64_t* strides, size_t index,
                      const char* what, int32_t model_device, char* err, size_t err_len) {
  const int64_t i = (int64_t)index;
  aot__msg m;
  if (t->device != AOT_DEVICE_CPU && t->device != model_device) {
    aot__fail_at(err, err_len, 0, what, i, info->name, "is on device");
    m = aot__tail(err, err_len);
    aot__put(&m, " ");
    aot__put_int(&m, t->device);
    aot__put(&m, model_device == AOT_DEVICE_CPU ? "; this model runs on the CPU and takes host tensors (AOT_DEVICE_CPU)"
                                                : "; this model takes host or CUDA tensors");
    return AOT_ERR_BAD_DEVICE;
  }
  if (!t->data && info->ndim >= 0) {
    int64_t n = 1;
    for (int d = 0; d < info->ndim; ++d) n *= info->sizes[d];
    if (n > 0) return aot__fail_at(err, err_len, AOT_ERR_NULL_POINTER, what, i, info->name, "has a NULL data pointer");
  }
  if (t->dtype != info->dtype) {
    aot__fail_at(err, err_len, 0, what, i, info->name, "has dtype");
    m = aot__tail(err, err_len);
    aot__put(&m, " ");
    aot__put(&m, aot__dtype_name(t->dtype));
    aot__put(&m, "; the model expects ");
    aot__put(&m, aot__dtype_name(info->dtype));
    return AOT_ERR_BAD_DTYPE;
  }
  if (t->ndim != info->ndim) {
    aot__fail_at(err, err_len, 0, what, i, info->name, "has");
    m = aot__tail(err, err_len);
    aot__put(&m, " ");
    aot__put_int(&m, t->ndim);
    aot__put(&m, " dimensions; the model expects ");
    aot__put_int(&m, info->ndim);
    return AOT_ERR_BAD_SHAPE;
  }
  for (int d = 0; d < info->ndim; ++d) {
    if (t->sizes[d] != info->sizes[d]) {
      aot__fail_at(err, err_len, 0, what, i, info->name, "has size");
      m = aot__tail(err, err_len);
      aot__put(&m, " ");
      aot__put_int(&m, t->sizes[d]);
      aot__put(&m, " in dimension ");
      aot__put_int(&m, d);
      aot__put(&m, "; the model expects ");
      aot__put_int(&m, info->sizes[d]);
      return AOT_ERR_BAD_SHAPE;
    }
  }
  /* A tensor without elements has no layout to check (PyTorch gives {3, 0}
   * the strides {1, 1}, not {0, 1}). */
  int64_t expect = 1, numel = 1;
  for (int d = 0; d < info->ndim; ++d) numel *= info->sizes[d];
  for (int d = info->ndim - 1; d >= 0 && numel != 0; --d) {
    if (info->sizes[d] != 1 && t->strides[d] != (strides ? strides[d] : expect)) {
      if (!strides)
        return aot__fail_at(err, err_len, AOT_ERR_BAD_STRIDES, what, i, info->name,
                            "is not contiguous row-major (strides in elements)");
      aot__fail_at(err, err_len, 0, what, i, info->name, "has strides");
      m = aot__tail(err, err_len);
      aot__put(&m, " ");
      aot__put_list(&m, t->strides, t->ndim);
      aot__put(&m, "; the model was traced and compiled with strides ");
      aot__put_list(&m, strides, info->ndim);
      aot__put(&m, " (in elements)");
      return AOT_ERR_BAD_STRIDES;
    }
    expect *= info->sizes[d];
  }
  return AOT_OK;
}

/* model_device: AOT_DEVICE_CPU models take host tensors only; a CUDA model
 * takes host and CUDA tensors (the model checks CUDA pointers itself). */
/* in_layout: NULL when every input is contiguous row-major in memory of its own. */
AOT_UNUSED static int aot__validate(const aot_tensor* inputs, size_t num_inputs, const aot_tensor_info* in_info,
                                    const aot__layout* in_layout, size_t n_in, aot_tensor* outputs, size_t num_outputs,
                                    const aot_tensor_info* out_info, size_t n_out, const void* arena,
                                    size_t arena_bytes, size_t need, int32_t model_device, char* err, size_t err_len) {
  aot__msg m = {err, 0, err ? err_len : 0};
  if ((n_in && !inputs) || (n_out && !outputs))
    return aot__fail(err, err_len, AOT_ERR_NULL_POINTER, "the inputs or outputs array", "is NULL");
  if (num_inputs != n_in || num_outputs != n_out) {
    aot__put(&m, "got ");
    aot__put_size(&m, num_inputs != n_in ? num_inputs : num_outputs);
    aot__put(&m, num_inputs != n_in ? " inputs; the model takes " : " outputs; the model returns ");
    aot__put_size(&m, num_inputs != n_in ? n_in : n_out);
    return AOT_ERR_BAD_COUNT;
  }
  if (need && !arena) return aot__fail(err, err_len, AOT_ERR_NULL_POINTER, "the arena", "is NULL");
  if (arena_bytes < need) {
    aot__put(&m, "the arena has ");
    aot__put_size(&m, arena_bytes);
    aot__put(&m, " bytes; the model needs ");
    aot__put_size(&m, need);
    return AOT_ERR_ARENA_TOO_SMALL;
  }
  if (need && ((uintptr_t)arena % 64) != 0)
    return aot__fail(err, err_len, AOT_ERR_BAD_ALIGNMENT, "the arena", "is not 64-byte aligned");
  for (size_t i = 0; i < n_in; ++i) {
    int s = aot__check(&inputs[i], &in_info[i], in_layout ? in_layout[i].strides : 0, i, "input", model_device, err,
                       err_len);
    if (s) return s;
  }
  for (size_t i = 0; i < n_out; ++i) {
    int s = aot__check(&outputs[i], &out_info[i], 0, i, "output", model_device, err, err_len);
    if (s) return s;
  }
  /* Inputs that were views of one another when traced must be so again: the
   * kernels reach every one of them through the first one's pointer. */
  for (size_t i = 0; in_layout && i < n_in; ++i) {
    const size_t a = (size_t)in_layout[i].anchor;
    aot__span si = aot__span_of(&inputs[i]), sa = aot__span_of(&inputs[a]);
    if (a == i || si.lo == si.hi || sa.lo == sa.hi ||
        (int64_t)((uintptr_t)inputs[i].data - (uintptr_t)inputs[a].data) == in_layout[i].delta)
      continue;
    aot__fail_at(err, err_len, 0, "input", (int64_t)i, in_info[i].name, "must start");
    m = aot__tail(err, err_len);
    aot__put(&m, " ");
    aot__put_int(&m, in_layout[i].delta);
    aot__put(&m, " bytes from input ");
    aot__put_size(&m, a);
    aot__put(&m, ": the model was traced with the two sharing memory that way");
    return AOT_ERR_BAD_STRIDES;
  }
  /* An input the model updates must not overlap inputs that were separate
   * when traced: the compiled program would not see its writes through them. */
  for (size_t i = 0; i < n_in; ++i) {
    if (!(in_info[i].flags & AOT_INFO_MUTATED)) continue;
    for (size_t j = 0; j < n_in; ++j) {
      if (j == i || (in_layout && in_layout[i].anchor == in_layout[j].anchor)) continue;
      if (!aot__overlap(aot__span_of(&inputs[i]), aot__span_of(&inputs[j]))) continue;
      aot__fail_at(err, err_len, 0, "input", (int64_t)i, in_info[i].name, "is updated in place and overlaps input");
      m = aot__tail(err, err_len);
      aot__put(&m, " ");
      aot__put_size(&m, j);
      aot__put(&m, "; the model was traced with them in separate memory");
      return AOT_ERR_OVERLAP;
    }
  }
  /* Kernels write the arena and the outputs while they read the inputs: an
   * output inside the arena, an input or another output would give wrong
   * numbers, so such calls fail. (Inputs only read may share memory.) */
  aot__span arena_span = {(uintptr_t)arena, (uintptr_t)arena + (need ? arena_bytes : 0)};
  for (size_t i = 0; i < n_in + n_out; ++i) {
    const int is_out = i >= n_in;
    const size_t k = is_out ? i - n_in : i;
    aot__span a = aot__span_of(is_out ? &outputs[k] : &inputs[k]);
    const char* what = is_out ? "output" : "input";
    const char* name = is_out ? out_info[k].name : in_info[k].name;
    if (aot__overlap(a, arena_span))
      return aot__fail_at(err, err_len, AOT_ERR_OVERLAP, what, (int64_t)k, name, "lies inside the arena");
    if (!is_out) continue;
    for (size_t j = 0; j < i; ++j) {
      const int j_out = j >= n_in;
      const size_t jk = j_out ? j - n_in : j;
      if (!aot__overlap(a, aot__span_of(j_out ? &outputs[jk] : &inputs[jk]))) continue;
      aot__fail_at(err, err_len, 0, what, (int64_t)k, name, "overlaps");
      m = aot__tail(err, err_len);
      aot__put(&m, j_out ? " output " : " input ");
      aot__put_size(&m, jk);
      aot__put(&m, "; outputs must not share memory with inputs or other outputs");
      return AOT_ERR_OVERLAP;
    }
  }
  return AOT_OK;
}
