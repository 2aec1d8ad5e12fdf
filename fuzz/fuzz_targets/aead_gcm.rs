//! libFuzzer entry for [`fieldwork_fuzz::aead_gcm`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fieldwork_fuzz::aead_gcm(data));
