//! libFuzzer entry for [`fieldwork_fuzz::kummer`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fieldwork_fuzz::kummer(data));
