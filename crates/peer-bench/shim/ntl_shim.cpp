// A C interface to NTL's GF2X and GF2E for peer-bench (NTL is C++ only).
// Polynomials and field elements are held as opaque NTL objects so that a
// timed call is one NTL operation, not a conversion.
#include <NTL/GF2E.h>
#include <NTL/GF2X.h>
#include <cstdint>
#include <cstddef>
#include <vector>

using NTL::GF2E;
using NTL::GF2EContext;
using NTL::GF2X;

namespace {

// A GF2X from n little-endian 64-bit words (word 0 lowest).
GF2X gf2x_from_words(const uint64_t *w, size_t n) {
    GF2X p;
    std::vector<unsigned char> buf(8 * n);
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 8; j++) buf[8 * i + j] = (unsigned char)(w[i] >> (8 * j));
    NTL::GF2XFromBytes(p, buf.data(), (long)buf.size());
    return p;
}

// The low n words of p (zero-padded).
void gf2x_to_words(const GF2X &p, uint64_t *w, size_t n) {
    std::vector<unsigned char> buf(8 * n);
    NTL::BytesFromGF2X(buf.data(), p, (long)buf.size());
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        for (int j = 7; j >= 0; j--) v = (v << 8) | buf[8 * i + j];
        w[i] = v;
    }
}

}  // namespace

extern "C" {

// A GF2X from n little-endian 64-bit words (word 0 lowest). NTL's byte
// conversion is little-endian too: byte i holds coefficients 8i..8i+7.
void *fw_ntl_gf2x_new(const uint64_t *w, size_t n) { return new GF2X(gf2x_from_words(w, n)); }

void fw_ntl_gf2x_free(void *p) { delete static_cast<GF2X *>(p); }

// c = a * b.
void fw_ntl_gf2x_mul(void *c, const void *a, const void *b) {
    NTL::mul(*static_cast<GF2X *>(c), *static_cast<const GF2X *>(a),
             *static_cast<const GF2X *>(b));
}

// Writes the low n words of p into w (zero-padded).
void fw_ntl_gf2x_words(const void *p, uint64_t *w, size_t n) {
    gf2x_to_words(*static_cast<const GF2X *>(p), w, n);
}

// GF(2^m) through NTL's GF2E. NTL keeps the modulus of GF2E in a global
// (thread-local with NTL_THREADS, as Debian builds it); a field here is a
// saved GF2EContext, and fw_ntl_gf2e_field_use makes it the current one of
// the calling thread. Every element operation below works under the
// current modulus, which must be the one the elements were made under.

// The field GF(2)[x]/(P), P = sum of x^e over the n exponents (the degree
// m among them, and 0). Returns null if P is not of degree >= 1.
void *fw_ntl_gf2e_field_new(const long *exponents, size_t n) {
    GF2X p;
    for (size_t i = 0; i < n; i++) NTL::SetCoeff(p, exponents[i]);
    if (NTL::deg(p) < 1) return nullptr;
    return new GF2EContext(p);
}

void fw_ntl_gf2e_field_free(void *f) { delete static_cast<GF2EContext *>(f); }

// Makes f the current modulus of this thread.
void fw_ntl_gf2e_field_use(const void *f) { static_cast<const GF2EContext *>(f)->restore(); }

// An element from n little-endian words, reduced modulo the current modulus.
void *fw_ntl_gf2e_new(const uint64_t *w, size_t n) {
    GF2E *e = new GF2E();
    NTL::conv(*e, gf2x_from_words(w, n));
    return e;
}

void fw_ntl_gf2e_free(void *e) { delete static_cast<GF2E *>(e); }

// Writes the low n words of e's representative into w.
void fw_ntl_gf2e_words(const void *e, uint64_t *w, size_t n) {
    gf2x_to_words(NTL::rep(*static_cast<const GF2E *>(e)), w, n);
}

// c = a * b (NTL allows the output to alias an input).
void fw_ntl_gf2e_mul(void *c, const void *a, const void *b) {
    NTL::mul(*static_cast<GF2E *>(c), *static_cast<const GF2E *>(a),
             *static_cast<const GF2E *>(b));
}

// x = x^2.
void fw_ntl_gf2e_sqr(void *x) {
    GF2E &r = *static_cast<GF2E *>(x);
    NTL::sqr(r, r);
}

// x = 1/x; returns 0, or -1 (x unchanged) when x is zero.
int fw_ntl_gf2e_inv(void *x) {
    GF2E &r = *static_cast<GF2E *>(x);
    if (NTL::IsZero(r)) return -1;
    NTL::inv(r, r);
    return 0;
}

// x = sqrt(x) = x^(2^(m-1)): NTL has no square root in GF2E, so this is the
// m-1 squarings an NTL user writes (power(x, x, 2^(m-1)) does the same).
void fw_ntl_gf2e_sqrt(void *x) {
    GF2E &r = *static_cast<GF2E *>(x);
    for (long i = 1; i < GF2E::degree(); i++) NTL::sqr(r, r);
}

}  // extern "C"
