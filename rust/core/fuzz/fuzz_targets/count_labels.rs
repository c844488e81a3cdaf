//! Label streams of every width, counted in pairs and alone, against a naive count.
//!
//! The input's first byte picks the two label types, the second how many times the
//! stream is tiled (so long streams reach the window growth, the spill to a sorted
//! list and the per-thread tables), the third the shift added to each tile (so tiles
//! bring new labels); the rest is split in half, one half per labeling.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/mod.rs"]
mod common;

/// Decodes `bytes` as little-endian `$t`s, tiled `reps` times with `shift` added per tile.
macro_rules! labels {
    ($t:ty, $bytes:expr, $reps:expr, $shift:expr) => {{
        let base: Vec<$t> = $bytes
            .chunks_exact(std::mem::size_of::<$t>())
            .map(|c| <$t>::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let mut out = Vec::with_capacity(base.len() * $reps);
        for r in 0..$reps {
            let add = ($shift as $t).wrapping_mul(r as $t);
            out.extend(base.iter().map(|&x| x.wrapping_add(add)));
        }
        out
    }};
}

macro_rules! check {
    ($ta:ty, $tb:ty, $data:expr, $reps:expr, $shift:expr) => {{
        let (left, right) = $data.split_at($data.len() / 2);
        let mut a = labels!($ta, left, $reps, $shift);
        let mut b = labels!($tb, right, $reps, $shift);
        let n = a.len().min(b.len());
        // Unequal lengths are an error, never a panic.
        if a.len() != b.len() {
            assert!(fastcluster_metrics_core::count(&a, &b).is_err());
        }
        a.truncate(n);
        b.truncate(n);
        common::check_count(&a, &b);
        common::check_merge(&a, &b, n / 3);
    }};
}

fuzz_target!(|data: &[u8]| {
    let [kind, tiles, shift, rest @ ..] = data else {
        return;
    };
    // Up to about 70,000 labels: past the 65,536 at which the pass splits across threads.
    let reps = if *tiles < 200 {
        1
    } else {
        1 + (70_000 / rest.len().max(1)).min(usize::from(*tiles - 199) * 64)
    };
    match kind % 6 {
        0 => check!(i8, u16, rest, reps, *shift),
        1 => check!(u8, i32, rest, reps, *shift),
        2 => check!(i64, u64, rest, reps, *shift),
        3 => check!(u32, i16, rest, reps, *shift),
        4 => check!(u64, i8, rest, reps, *shift),
        _ => check!(i16, i64, rest, reps, *shift),
    }
});
