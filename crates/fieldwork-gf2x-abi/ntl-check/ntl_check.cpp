// NTL through whichever libgf2x.so.3 the loader picks: multiplies, squares,
// divides and takes GCDs of random GF2X polynomials of many sizes (1 word to
// 2^16 words, balanced and unbalanced; deterministic seed), does GF2E
// arithmetic modulo the NIST binary-field polynomials, and prints one line
// per case: the operation, the sizes in words, and a 64-bit FNV-1a hash of
// the result's bytes plus its low word in hex. run.sh runs it against
// Debian's libgf2x and against fieldwork-gf2x-abi's and diffs the outputs.
//
// Usage: ntl_check [max_log2_words]   (default 16)

#include <NTL/GF2X.h>
#include <NTL/GF2E.h>
#include <NTL/ZZ.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace NTL;

static uint64_t fnv1a(const GF2X &p) {
    uint64_t h = 0xcbf29ce484222325ULL;
    long n = NumBytes(p);
    std::vector<unsigned char> bytes(n > 0 ? n : 1);
    BytesFromGF2X(bytes.data(), p, n);
    for (long i = 0; i < n; i++) {
        h ^= bytes[i];
        h *= 0x100000001b3ULL;
    }
    // The degree too, so that leading zero bytes cannot hide.
    h ^= (uint64_t)(deg(p) + 1);
    h *= 0x100000001b3ULL;
    return h;
}

static void print(const char *op, long an, long bn, const GF2X &r) {
    unsigned long low = 0;
    for (long i = 0; i < 64 && i <= deg(r); i++)
        if (IsOne(coeff(r, i))) low |= 1UL << i;
    std::printf("%-6s %7ld %7ld  deg %9ld  fnv %016llx  low %016lx\n", op, an, bn, deg(r),
                (unsigned long long)fnv1a(r), low);
}

static GF2X random_words(long words) {
    GF2X p;
    random(p, 64 * words);
    SetCoeff(p, 64 * words - 1);  // exactly `words` words
    return p;
}

int main(int argc, char **argv) {
    long max_log = argc > 1 ? std::atol(argv[1]) : 16;
    SetSeed(ZZ(20261122));

    // Sizes: every word count 1..40, then powers of two and their neighbours.
    std::vector<long> sizes;
    for (long n = 1; n <= 40; n++) sizes.push_back(n);
    for (long k = 6; k <= max_log; k++) {
        long n = 1L << k;
        sizes.push_back(n - 1);
        sizes.push_back(n);
        sizes.push_back(n + 1);
    }

    for (long n : sizes) {
        GF2X a = random_words(n), b = random_words(n), r;
        mul(r, a, b);
        print("mul", n, n, r);
        sqr(r, a);
        print("sqr", n, n, r);
        // Unbalanced: n × about n/3 and n × 1 words.
        long m = n / 3 > 0 ? n / 3 : 1;
        GF2X s = random_words(m);
        mul(r, a, s);
        print("mul", n, m, r);
        GF2X one = random_words(1);
        mul(r, a, one);
        print("mul", n, 1, r);
        // Division of a 2n-word product plus noise by an n-word divisor.
        GF2X num, q, rem;
        mul(num, a, b);
        num += random_words(n);
        DivRem(q, rem, num, b);
        print("div_q", 2 * n, n, q);
        print("div_r", 2 * n, n, rem);
        // GCD with a known common factor (the half-gcd above NTL's threshold),
        // up to 2^12 words: above that NTL's GCD dominates the run time.
        if (n <= 4096) {
            GF2X f = random_words(n / 4 > 0 ? n / 4 : 1), g, x, y;
            mul(x, a, f);
            mul(y, b, f);
            GCD(g, x, y);
            print("gcd", n, n, g);
        }
    }

    // GF2E for the NIST binary fields.
    struct { long m; long k[3]; } nist[] = {
        {163, {7, 6, 3}}, {233, {74, 0, 0}}, {283, {12, 7, 5}},
        {409, {87, 0, 0}}, {571, {10, 5, 2}},
    };
    for (auto &f : nist) {
        GF2X P;
        SetCoeff(P, f.m);
        SetCoeff(P, 0);
        for (long k : f.k)
            if (k) SetCoeff(P, k);
        GF2E::init(P);
        GF2E x = random_GF2E(), y = random_GF2E(), z;
        for (int i = 0; i < 1000; i++) {
            mul(z, x, y);
            x = y;
            y = z + x;
        }
        print("gf2e*", f.m, 1000, rep(z));
        inv(z, x);
        print("gf2e/", f.m, 1, rep(z));
        power(z, y, ZZ(f.m) * 12345);
        print("gf2e^", f.m, 12345, rep(z));
    }
    return 0;
}
