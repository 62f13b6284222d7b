/* Startup for QEMU's mps2-an386 (Cortex-M4 with FPU): vector table, FPU on,
 * .data copied from flash, .bss zeroed, then main. Only for running the
 * test firmware under QEMU; real boards bring their own (CMSIS) startup. */
#include <stdint.h>

extern uint32_t _sidata, _sdata, _edata, _sbss, _ebss, _estack;
int main(void);

static void fault(void) {
  for (;;) {
  }
}

__attribute__((naked, noreturn)) void reset_handler(void) {
  /* CPACR: full access to CP10/CP11 (the FPU) before any floating-point code. */
  __asm__ volatile(
      "ldr r0, =0xE000ED88\n"
      "ldr r1, [r0]\n"
      "orr r1, r1, #(0xF << 20)\n"
      "str r1, [r0]\n"
      "dsb\n"
      "isb\n"
      "b start_c\n");
}

__attribute__((noreturn, used)) void start_c(void) {
  uint32_t* src = &_sidata;
  for (uint32_t* dst = &_sdata; dst < &_edata;) *dst++ = *src++;
  for (uint32_t* dst = &_sbss; dst < &_ebss;) *dst++ = 0;
  main();
  fault();
  for (;;) {
  }
}

__attribute__((section(".vectors"), used)) const void* const vectors[16] = {
    &_estack,
    (const void*)reset_handler,
    (const void*)fault,
    (const void*)fault,
    (const void*)fault,
    (const void*)fault,
    (const void*)fault,
    0,
    0,
    0,
    0,
    (const void*)fault,
    (const void*)fault,
    0,
    (const void*)fault,
    (const void*)fault,
};
