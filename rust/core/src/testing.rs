//! What the unit tests share: a small generator of test values, and random dendrograms
//! with their cuts.

/// A xorshift64 generator of test values from `seed` (non-zero).
pub(crate) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    }
}

/// The clusters of each leaf after the first `s` merges of `order`.
pub(crate) fn cut(n: usize, merges: &[(u64, u64)], order: &[usize], s: usize) -> Vec<i64> {
    let mut parent: Vec<usize> = (0..n + merges.len()).collect();
    for &m in &order[..s] {
        parent[merges[m].0 as usize] = n + m;
        parent[merges[m].1 as usize] = n + m;
    }
    (0..n)
        .map(|mut i| {
            while parent[i] != i {
                i = parent[i];
            }
            i as i64
        })
        .collect()
}

/// A random tree: merges of random pairs of the current clusters.
pub(crate) fn random_tree(n: usize, next: &mut impl FnMut() -> u64) -> Vec<(u64, u64)> {
    let mut alive: Vec<u64> = (0..n as u64).collect();
    (0..n - 1)
        .map(|m| {
            let i = (next() % alive.len() as u64) as usize;
            let a = alive.swap_remove(i);
            let j = (next() % alive.len() as u64) as usize;
            let b = alive.swap_remove(j);
            alive.push((n + m) as u64);
            (a, b)
        })
        .collect()
}
