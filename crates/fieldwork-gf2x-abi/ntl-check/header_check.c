/* Compiles against a gf2x.h (Debian's, or fieldwork's include/gf2x.h) only if
 * it declares gf2x 1.3's interface with exactly these types: every function
 * is assigned to a pointer of its gf2x 1.3 type (an incompatible declaration
 * is an error under -Werror), and the pool, macros and variables are
 * checked. run.sh compiles it with both headers, as C and as C++, and runs
 * it against the library each build links. */
#include <gf2x.h>
#include <stddef.h>

#if !defined(GF2X_VERSION_MAJOR) || GF2X_VERSION_MAJOR != 1 || GF2X_VERSION_MINOR != 3 \
    || GF2X_VERSION_PATCHLEVEL != 0 || GF2X_VERSION_CODE != 10300
#error "gf2x.h does not say version 1.3.0"
#endif
#if GF2X_ERROR_INVALID_ARGUMENTS != -1 || GF2X_ERROR_OUT_OF_MEMORY != -2
#error "gf2x.h error codes differ from gf2x 1.3's"
#endif

#ifdef __cplusplus
#define STATIC_ASSERT static_assert
#else
#define STATIC_ASSERT _Static_assert
#endif
STATIC_ASSERT(sizeof(gf2x_mul_pool_t) == sizeof(struct gf2x_mul_pool_s), "pool is one struct");
STATIC_ASSERT(sizeof(struct gf2x_mul_pool_s) == sizeof(unsigned long *) + sizeof(size_t), "pool layout");
STATIC_ASSERT(offsetof(struct gf2x_mul_pool_s, stk) == 0, "pool: stk first");
STATIC_ASSERT(offsetof(struct gf2x_mul_pool_s, stk_size) == sizeof(unsigned long *), "pool: stk_size second");

typedef int mul_t(unsigned long *, const unsigned long *, unsigned long, const unsigned long *,
                  unsigned long);
typedef int mul_r_t(unsigned long *, const unsigned long *, unsigned long, const unsigned long *,
                    unsigned long, struct gf2x_mul_pool_s *);
typedef void pool_t(struct gf2x_mul_pool_s *);
typedef void toom_t(unsigned long *, const unsigned long *, const unsigned long *, long,
                    unsigned long *);
typedef long toomspace_t(long);

int main(void) {
    mul_t *mul = gf2x_mul;
    mul_r_t *mul_r = gf2x_mul_r;
    pool_t *init = gf2x_mul_pool_init, *clear = gf2x_mul_pool_clear;
    toom_t *toom = gf2x_mul_toom;
    toomspace_t *space = gf2x_toomspace;
    const char *const *status = &gf2x_toom_gpl_status;
    int *code = &gf2x_lib_version_code;

    /* (x + 1)(x^2 + x + 1) = x^3 + 1, through every entry point. */
    unsigned long a = 3, b = 7, c[2] = {0, 0}, stk[64];
    gf2x_mul_pool_t pool;
    int bad = 0;
    bad |= mul(c, &a, 1, &b, 1) != 0 || c[0] != 9 || c[1] != 0;
    init(pool);
    c[0] = 0;
    bad |= mul_r(c, &a, 1, &b, 1, pool) != 0 || c[0] != 9;
    clear(pool);
    c[0] = 0;
    bad |= space(1) > 64;
    toom(c, &a, &b, 1, stk);
    bad |= c[0] != 9;
    bad |= *code != GF2X_VERSION_CODE || *status == NULL;
    return bad;
}
