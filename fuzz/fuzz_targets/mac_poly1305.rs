//! libFuzzer entry for [`fieldwork_fuzz::mac_poly1305`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fieldwork_fuzz::mac_poly1305(data));
