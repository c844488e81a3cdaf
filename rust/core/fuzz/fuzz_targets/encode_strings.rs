//! Fixed-width strings (numpy `S` and `U` buffers) encoded to codes in string order,
//! or refused when the buffer is not a whole number of items.
#![no_main]

use fastcluster_metrics_core::encode::{encode_fixed, MISSING};
use fastcluster_metrics_core::Error;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: (u8, bool, &[u8])| {
    let (width, unicode, data) = input;
    let width = usize::from(width % 17);
    match encode_fixed(data, width, unicode) {
        Ok(c) => {
            assert!(width > 0);
            assert_eq!(c.codes.len(), data.len() / width);
            assert_eq!(c.missing, 0);
            let items: Vec<&[u8]> = data.chunks_exact(width).collect();
            let key = |s: &[u8]| -> Vec<u32> {
                if unicode {
                    s.chunks_exact(4)
                        .map(|p| u32::from_ne_bytes([p[0], p[1], p[2], p[3]]))
                        .collect()
                } else {
                    s.iter().map(|&x| u32::from(x)).collect()
                }
            };
            // Codes are dense ranks of the items in string order.
            let mut sorted: Vec<Vec<u32>> = items.iter().map(|x| key(x)).collect();
            sorted.sort();
            sorted.dedup();
            for (i, x) in items.iter().enumerate() {
                assert_ne!(c.codes[i], MISSING);
                assert_eq!(&items[c.first[c.codes[i] as usize]], x);
                let rank = sorted.binary_search(&key(x)).unwrap();
                assert_eq!(c.codes[i] as usize, rank);
            }
        }
        Err(e) => {
            assert_eq!(e, Error::BadItemWidth);
            assert!(width == 0 || data.len() % width != 0 || (unicode && width % 4 != 0));
        }
    }
});
