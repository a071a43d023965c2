#![no_main]
// Thin shell: the generator and the oracle live in `rbv::fuzz`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| rbv::fuzz::targets::libfuzzer("protocol_decoder", data));
