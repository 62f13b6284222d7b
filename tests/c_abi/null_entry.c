/* A library whose entry point returns NULL: aot_model_open must say so. */
const void* aot_compiled_model_entry(void);
const void* aot_compiled_model_entry(void) { return 0; }
