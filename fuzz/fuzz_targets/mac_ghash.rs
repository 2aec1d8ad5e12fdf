//! libFuzzer entry for [`fieldwork_fuzz::mac_ghash`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fieldwork_fuzz::mac_ghash(data));
