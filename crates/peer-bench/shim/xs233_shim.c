/*
 * fieldwork peer-bench: Thomas Pornin's GF(2^233) field code from c-xs233
 * (ePrint 2022/1325; public domain), the constant-time reference issue 24
 * asks fieldwork to beat at m = 233. Built only with the `xs233` feature,
 * from the sources `scripts/fetch-xs233.sh` unpacks (never committed here).
 *
 * The header's functions are `static inline`: each wrapper below runs `n`
 * operations in a loop in C, so the peer pays no call per operation.
 * Elements cross as four little-endian 64-bit words, fully reduced on the
 * way out (c-xs233 keeps values partially reduced between operations, its
 * own choice, and normalises only when it must: the chains below do the
 * same, one normalisation per call).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "gf233.h"

static void load(gf *d, const uint64_t w[4]) { memcpy(d->w, w, 32); }

static void store(uint64_t w[4], const gf *a) {
  gf t;
  gf_norm(&t, a);
  memcpy(w, t.w, 32);
}

/* 1 when the header was compiled with its PCLMULQDQ code. */
int fw_xs233_pclmul(void) { return GF233_PCLMUL; }

/* x <- x * y, n times. */
void fw_xs233_mul(uint64_t x[4], const uint64_t y[4], size_t n) {
  gf a, b;
  load(&a, x);
  load(&b, y);
  for (size_t i = 0; i < n; i++) {
    gf_mul(&a, &a, &b);
  }
  store(x, &a);
}

/* NAME(x, n): x <- OP(x), n times. */
#define CHAIN(NAME, OP)                  \
  void NAME(uint64_t x[4], size_t n) {   \
    gf a;                                \
    load(&a, x);                         \
    for (size_t i = 0; i < n; i++) {     \
      OP(&a, &a);                        \
    }                                    \
    store(x, &a);                        \
  }

CHAIN(fw_xs233_sqr, gf_sqr)             /* x^2 */
CHAIN(fw_xs233_inv, gf_inv)             /* 1/x (0 for 0) */
CHAIN(fw_xs233_sqrt, gf_sqrt)           /* sqrt(x) */
CHAIN(fw_xs233_halftrace, gf_halftrace) /* H(x), the half-trace */

/* c[i] = a[i] * b[i] for i < count, each fully reduced (4 words each). */
void fw_xs233_mul_batch(uint64_t *c, const uint64_t *a, const uint64_t *b,
                        size_t count) {
  for (size_t i = 0; i < count; i++) {
    gf u, v;
    load(&u, a + 4 * i);
    load(&v, b + 4 * i);
    gf_mul(&u, &u, &v);
    store(c + 4 * i, &u);
  }
}
