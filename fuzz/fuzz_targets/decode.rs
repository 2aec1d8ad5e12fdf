//! libFuzzer entry for [`fieldwork_fuzz::decode`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fieldwork_fuzz::decode(data));
