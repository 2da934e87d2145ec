//! Fuzz target for the PSYS decoder: no input may panic it, and every system it decodes must
//! re-encode to a block that decodes again and re-encodes to the same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use particles::codec::{decode, encode, Decoded};

fuzz_target!(|block: &[u8]| {
    if let Decoded::System(sys) = decode(block) {
        let encoded = encode(&sys);
        match decode(&encoded) {
            Decoded::System(again) => assert_eq!(encode(&again), encoded, "re-encoding drifted"),
            other => panic!("encoded block did not decode: {other:?}"),
        }
    }
});
