/*
 * gf2x.h for fieldwork-gf2x-abi: gf2x 1.3's public C interface, served by
 * fieldwork's GF(2)[x] product.
 *
 * Written for fieldwork from the interface gf2x 1.3.0 documents (function
 * names, signatures, the pool structure, the error codes and the version
 * macros are the interface; the text is ours). A program that compiles
 * against gf2x 1.3's own <gf2x.h> compiles against this one unchanged, and a
 * program built against either header runs with either library.
 *
 * Licence: MIT OR Apache-2.0, as the rest of fieldwork.
 *
 * Polynomials over GF(2) are arrays of unsigned long (64-bit words on the
 * LP64 targets this library supports): bit j of word i is the coefficient of
 * x^(64*i + j).
 */
#ifndef GF2X_H_
#define GF2X_H_

/* The gf2x release whose interface this is: 1.3.0. */
#define GF2X_VERSION_MAJOR 1
#define GF2X_VERSION_MINOR 3
#define GF2X_VERSION_PATCHLEVEL 0
/* 10000 * major + 100 * minor + patchlevel: 10300 for 1.3.0. */
#define GF2X_VERSION_CODE \
    (((GF2X_VERSION_MAJOR) * 10000) + ((GF2X_VERSION_MINOR) * 100) + (GF2X_VERSION_PATCHLEVEL))

/* Neither optional part of gf2x is provided: the FFT interface
 * (gf2x/gf2x-fft.h, off in Debian's build as well) and the LGPL-only variant
 * flag. GF2X_HAS_FFT_INTERFACE_SUPPORT and GF2X_IS_LGPL_VARIANT stay
 * undefined. */

/* A decoration gf2x lets a build put on every exported declaration (for
 * example a visibility attribute); empty unless the includer defines it. */
#ifndef GF2X_EXPORTED
#define GF2X_EXPORTED
#endif

#include <stddef.h> /* size_t */

#ifdef __cplusplus
extern "C" {
#endif

/* The negative return values of gf2x_mul and gf2x_mul_r (0 is success). */
#define GF2X_ERROR_INVALID_ARGUMENTS -1
#define GF2X_ERROR_OUT_OF_MEMORY -2

/*
 * c = a * b, where a has an words and b has bn words; c receives exactly
 * an + bn words. c may be the same pointer as a or as b (fieldwork also
 * accepts any partial overlap, which gf2x does not promise). Zero lengths
 * are allowed; the pointer of a zero-length operand may be NULL.
 *
 * Returns 0, GF2X_ERROR_INVALID_ARGUMENTS (a NULL pointer with a non-zero
 * length, or lengths whose product cannot fit in memory) or
 * GF2X_ERROR_OUT_OF_MEMORY (c is then left untouched). Thread-safe: unlike
 * gf2x's, this one keeps no global state.
 */
extern int GF2X_EXPORTED gf2x_mul(unsigned long *c,
                                  const unsigned long *a, unsigned long an,
                                  const unsigned long *b, unsigned long bn);

/* Scratch space kept between calls of gf2x_mul_r. Initialise with
 * gf2x_mul_pool_init, release with gf2x_mul_pool_clear. The members belong
 * to the library. */
struct gf2x_mul_pool_s {
    unsigned long *stk;
    size_t stk_size;
};
typedef struct gf2x_mul_pool_s gf2x_mul_pool_t[1];

/* An empty pool. */
extern void GF2X_EXPORTED gf2x_mul_pool_init(gf2x_mul_pool_t pool);
/* Frees the pool's scratch; the pool may be used again afterwards. */
extern void GF2X_EXPORTED gf2x_mul_pool_clear(gf2x_mul_pool_t pool);

/* gf2x_mul with its scratch taken from (and kept in) pool; a NULL pool
 * means scratch for this call only. One pool per thread. */
extern int GF2X_EXPORTED gf2x_mul_r(unsigned long *c,
                                    const unsigned long *a, unsigned long an,
                                    const unsigned long *b, unsigned long bn,
                                    gf2x_mul_pool_t pool);

/* A description of the library's licence status. gf2x says "GPL-licensed
 * GF2X" or an LGPL string here; this library names itself. */
extern const char *gf2x_toom_gpl_status GF2X_EXPORTED;

/* GF2X_VERSION_CODE of the library actually loaded (10300). */
extern int gf2x_lib_version_code GF2X_EXPORTED;

/*
 * c (2n words) = a * b for two n-word operands, with no allocation: stk
 * must point to gf2x_toomspace(n) words of scratch (stk may be NULL when
 * that is 0). gf2x requires c not to overlap a or b; this library accepts an
 * overlap, and a NULL stk where scratch is needed, by allocating (and aborts
 * with a message if that allocation fails, as the function returns nothing).
 */
extern void GF2X_EXPORTED gf2x_mul_toom(unsigned long *c,
                                        const unsigned long *a,
                                        const unsigned long *b, long n,
                                        unsigned long *stk);

/* The number of scratch words gf2x_mul_toom needs for n-word operands. */
extern long GF2X_EXPORTED gf2x_toomspace(long n);

#ifdef __cplusplus
}
#endif

#endif /* GF2X_H_ */
