// A C interface to NTL's GF2X for peer-bench (NTL is C++ only).
// Polynomials are held as opaque NTL objects so that a timed call is one
// NTL multiplication, not a conversion.
#include <NTL/GF2X.h>
#include <cstdint>
#include <cstddef>

using NTL::GF2X;

extern "C" {

// A GF2X from n little-endian 64-bit words (word 0 lowest).
void *fw_ntl_gf2x_new(const uint64_t *w, size_t n) {
    GF2X *p = new GF2X();
    unsigned char buf[8];
    NTL::clear(*p);
    for (size_t i = n; i-- > 0;) {
        for (int j = 0; j < 8; j++) buf[j] = (unsigned char)(w[i] >> (8 * j));
        GF2X t;
        NTL::GF2XFromBytes(t, buf, 8);
        NTL::LeftShift(*p, *p, 64);
        NTL::add(*p, *p, t);
    }
    return p;
}

void fw_ntl_gf2x_free(void *p) { delete static_cast<GF2X *>(p); }

// c = a * b.
void fw_ntl_gf2x_mul(void *c, const void *a, const void *b) {
    NTL::mul(*static_cast<GF2X *>(c), *static_cast<const GF2X *>(a),
             *static_cast<const GF2X *>(b));
}

// Writes the low n words of p into w (zero-padded).
void fw_ntl_gf2x_words(const void *p, uint64_t *w, size_t n) {
    const GF2X &x = *static_cast<const GF2X *>(p);
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        for (int j = 63; j >= 0; j--) {
            long k = (long)(64 * i + j);
            v = (v << 1) | (k <= NTL::deg(x) ? (uint64_t)NTL::IsOne(NTL::coeff(x, k)) : 0);
        }
        w[i] = v;
    }
}

}  // extern "C"
