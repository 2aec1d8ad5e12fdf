//! libFuzzer entry for [`fieldwork_fuzz::chacha20`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fieldwork_fuzz::chacha20(data));
