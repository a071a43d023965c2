#![no_main]
// Thin shell: the generator and the oracle live in `rbv::fuzz`. The target's
// own constant (not its name) keeps the other targets' code out of the binary.
use rbv::fuzz::libfuzzer::libfuzzer_target;
use rbv::fuzz::targets::AUDIT;
libfuzzer_sys::fuzz_target!(|data: &[u8]| libfuzzer_target(&AUDIT, data));
