// A C interface to NTL's GF2X for peer-bench (NTL is C++ only).
// Polynomials are held as opaque NTL objects so that a timed call is one
// NTL multiplication, not a conversion.
#include <NTL/GF2X.h>
#include <cstdint>
#include <cstddef>
#include <vector>

using NTL::GF2X;

extern "C" {

// A GF2X from n little-endian 64-bit words (word 0 lowest). NTL's byte
// conversion is little-endian too: byte i holds coefficients 8i..8i+7.
void *fw_ntl_gf2x_new(const uint64_t *w, size_t n) {
    GF2X *p = new GF2X();
    std::vector<unsigned char> buf(8 * n);
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 8; j++) buf[8 * i + j] = (unsigned char)(w[i] >> (8 * j));
    NTL::GF2XFromBytes(*p, buf.data(), (long)buf.size());
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
    std::vector<unsigned char> buf(8 * n);
    NTL::BytesFromGF2X(buf.data(), *static_cast<const GF2X *>(p), (long)buf.size());
    for (size_t i = 0; i < n; i++) {
        uint64_t v = 0;
        for (int j = 7; j >= 0; j--) v = (v << 8) | buf[8 * i + j];
        w[i] = v;
    }
}

}  // extern "C"
