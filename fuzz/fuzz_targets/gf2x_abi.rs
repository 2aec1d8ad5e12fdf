//! libFuzzer entry for [`fieldwork_fuzz::gf2x_abi`].
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| fieldwork_fuzz::gf2x_abi(data));
