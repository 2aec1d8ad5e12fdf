/* gf2x 1.3's C API through Debian's own header (<gf2x.h>), linked to
 * libgf2x.so.3: gf2x_mul, gf2x_mul_r with a pool and with a null pool,
 * gf2x_mul_toom with gf2x_toomspace words of scratch, and c aliasing a or b
 * (as gf2x allows), for many sizes; prints one hash line per case. run.sh
 * runs it against the system libgf2x and against ours and diffs the
 * outputs. The library's identity lines (gf2x_toom_gpl_status, which
 * differs by design) go to stderr. */
#include <gf2x.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t state = 0x243f6a8885a308d3ULL;
static unsigned long rnd(void) {
    state ^= state >> 12; state ^= state << 25; state ^= state >> 27;
    return (unsigned long)(state * 0x2545f4914f6cdd1dULL);
}

static uint64_t hash(const unsigned long *c, unsigned long n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned long i = 0; i < n; i++) { h ^= c[i]; h *= 0x100000001b3ULL; h ^= h >> 29; }
    return h;
}

static void die(const char *what) { fprintf(stderr, "c_api_check: %s\n", what); exit(1); }

static void one(unsigned long an, unsigned long bn, gf2x_mul_pool_t pool) {
    unsigned long cn = an + bn, n = cn ? cn : 1;
    unsigned long *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    unsigned long *c = malloc(n * sizeof *c), *d = malloc(n * sizeof *d);
    if (!a || !b || !c || !d) die("out of memory");
    for (unsigned long i = 0; i < an; i++) a[i] = rnd();
    for (unsigned long i = 0; i < bn; i++) b[i] = rnd();

    if (gf2x_mul(c, a, an, b, bn) != 0) die("gf2x_mul failed");
    uint64_t h = hash(c, cn);
    if (gf2x_mul_r(d, a, an, b, bn, pool) != 0 || memcmp(c, d, cn * sizeof *c)) die("gf2x_mul_r (pool) differs");
    if (gf2x_mul_r(d, a, an, b, bn, NULL) != 0 || memcmp(c, d, cn * sizeof *c)) die("gf2x_mul_r (NULL) differs");
    /* c == a */
    memcpy(d, a, an * sizeof *a);
    if (gf2x_mul(d, d, an, b, bn) != 0 || memcmp(c, d, cn * sizeof *c)) die("gf2x_mul c == a differs");
    /* c == b */
    memcpy(d, b, bn * sizeof *b);
    if (gf2x_mul_r(d, a, an, d, bn, pool) != 0 || memcmp(c, d, cn * sizeof *c)) die("gf2x_mul_r c == b differs");
    printf("mul %6lu %6lu %016llx\n", an, bn, (unsigned long long)h);

    if (an == bn && an > 0) {
        long space = gf2x_toomspace((long)an);
        unsigned long *stk = malloc((space > 0 ? space : 1) * sizeof *stk);
        if (!stk) die("out of memory");
        gf2x_mul_toom(d, a, b, (long)an, stk);
        if (memcmp(c, d, cn * sizeof *c)) die("gf2x_mul_toom differs");
        free(stk);
    }
    free(a); free(b); free(c); free(d);
}

int main(void) {
    fprintf(stderr, "gf2x_lib_version_code %d, gf2x_toom_gpl_status \"%s\"\n",
            gf2x_lib_version_code, gf2x_toom_gpl_status);
    printf("version code %d (header %d)\n", gf2x_lib_version_code, GF2X_VERSION_CODE);
    gf2x_mul_pool_t pool;
    gf2x_mul_pool_init(pool);
    for (unsigned long an = 1; an <= 64; an++)
        for (unsigned long bn = 1; bn <= 64; bn += (bn < 16 ? 1 : 7)) one(an, bn, pool);
    unsigned long big[][2] = {{100, 100}, {1000, 1000}, {1024, 3}, {2047, 2049}, {4096, 4096},
                              {10000, 333}, {16384, 16384}, {65536, 65536}, {65536, 1000}};
    for (size_t i = 0; i < sizeof big / sizeof big[0]; i++) one(big[i][0], big[i][1], pool);
    gf2x_mul_pool_clear(pool);
    return 0;
}
