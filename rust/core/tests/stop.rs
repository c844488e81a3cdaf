//! A stop request ends the long passes with `Error::Stopped`, and once it is released the
//! same calls give the right answers. (Requests are global: this file's one test runs in
//! a process of its own, beside no other test.)

use fastcluster_metrics_core::{count, count_weighted, pool, stop, Error, Weights};
use std::time::Duration;

#[test]
fn a_request_stops_the_passes_and_its_release_lets_them_run() {
    let n = 1 << 20;
    // A wide table (300,000 values a side): counted by partitions.
    let wide =
        |m: u64| -> Vec<u64> { (0..n as u64).map(|i| i.wrapping_mul(m) % 300_000).collect() };
    // The same spread over 3e11 values: the hash map, its spill and the sort of the
    // spilled pairs.
    let spread = |m: u64| -> Vec<u64> { wide(m).into_iter().map(|k| k * 1_000_003).collect() };
    for (a, b) in [
        (wide(0x9e37_79b9), wide(0x85eb_ca6b)),
        (spread(0x9e37_79b9), spread(0x85eb_ca6b)),
    ] {
        stops_and_restarts(&a, &b);
    }
}

fn stops_and_restarts(a: &[u64], b: &[u64]) {
    let w = vec![0.5f64; a.len()];
    let expected = count(a, b).ok().unwrap();
    {
        let _request = stop::Request::new();
        assert!(stop::requested());
        assert!(matches!(count(a, b), Err(Error::Stopped)));
        assert!(matches!(
            count_weighted(a, b, Weights::F64(&w)),
            Err(Error::Stopped)
        ));
    }
    assert!(!stop::requested());
    let again = count(a, b).ok().unwrap();
    assert_eq!(again.cell_count, expected.cell_count);
    assert_eq!(again.row_sums, expected.row_sums);
    // Watched: the caller's `interrupted` stops the work; the request ends with it.
    let before = stop::epoch();
    let (out, asked) = pool::watched(|| count(a, b), Duration::from_millis(1), || true);
    assert!(asked);
    assert!(out.map_or(true, |t| t.cell_count == expected.cell_count));
    assert!(!stop::requested());
    assert_ne!(stop::epoch(), before);
    let (out, asked) = pool::watched(|| count(a, b), Duration::from_millis(1), || false);
    assert!(!asked);
    assert_eq!(out.ok().unwrap().cell_count, expected.cell_count);
}
