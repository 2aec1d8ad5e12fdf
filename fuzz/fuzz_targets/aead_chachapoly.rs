//! libFuzzer entry for [`fieldwork_fuzz::aead_chachapoly`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fieldwork_fuzz::aead_chachapoly(data));
