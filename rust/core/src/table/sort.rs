//! The keys of listed cells: sorting the cells by their keys (a radix sort where the
//! keys pack into a `u64`), and finding a column key's position among the distinct ones.

use std::ops::AddAssign;

use foldhash::fast::FixedState;
use hashbrown::HashMap;
use rayon::prelude::*;

use crate::alloc;
use crate::error::Error;
use crate::pool;
use crate::stop;

/// Sorts cells by (row key, column key) and adds up the payloads of equal keys, leaving
/// each pair once: radix-sorted where the keys pack ([`radix_sort`]), compared (on the
/// pool for many cells) where they do not. A stop request ends it with
/// [`Error::Stopped`].
pub(crate) fn sort_cells<T>(cells: &mut Vec<(u64, u64, T)>, threads: usize) -> Result<(), Error>
where
    T: Copy + Default + Send + AddAssign,
{
    if !radix_sort(cells)? {
        if threads > 1 && cells.len() > 1 << 16 {
            pool::run(|| cells.par_sort_unstable_by_key(|&(a, b, _)| (a, b)));
        } else {
            cells.sort_unstable_by_key(|&(a, b, _)| (a, b));
        }
    }
    // A stopped sort leaves the cells out of order.
    stop::check()?;
    cells.dedup_by(|next, kept| {
        let same = next.0 == kept.0 && next.1 == kept.1;
        if same {
            kept.2 += next.2;
        }
        same
    });
    Ok(())
}

/// Sorts many cells by (row key, column key) with an LSD radix sort when both key
/// ranges pack into one `u64` (always so for codes, ids and moderate label values):
/// the pair becomes `(a - a_min) * b_range + (b - b_min)`, and only the digits that
/// vary are sorted. Returns false, leaving `cells` as they were, otherwise. A stopped
/// sort ([`stop::requested`]) returns true and leaves `cells` in no particular order.
/// Each cell carries a payload `T` (a count, or a weighted sum).
fn radix_sort<T: Copy + Default>(cells: &mut [(u64, u64, T)]) -> Result<bool, Error> {
    const BITS: u32 = 11;
    const RADIX: usize = 1 << BITS;
    if cells.len() < 1 << 12 {
        return Ok(false);
    }
    let (mut a_lo, mut a_hi, mut b_lo, mut b_hi) = (u64::MAX, 0, u64::MAX, 0);
    for &(a, b, _) in cells.iter() {
        a_lo = a_lo.min(a);
        a_hi = a_hi.max(a);
        b_lo = b_lo.min(b);
        b_hi = b_hi.max(b);
    }
    // Keys spanning all of u64 do not pack (the range's size, 2^64, was computed before
    // this check, and overflowed in debug builds: found by cargo fuzz).
    let Some(b_range) = (b_hi - b_lo).checked_add(1) else {
        return Ok(false);
    };
    let Some(max) = (a_hi - a_lo)
        .checked_mul(b_range)
        .and_then(|m| m.checked_add(b_hi - b_lo))
    else {
        return Ok(false);
    };
    const WHAT: &str = "sorting the cells of a table";
    let mut keyed: Vec<(u64, T)> = alloc::collect(
        cells
            .iter()
            .map(|&(a, b, c)| ((a - a_lo) * b_range + (b - b_lo), c)),
        WHAT,
    )?;
    let mut buffer = alloc::filled(keyed.len(), (0u64, T::default()), WHAT)?;
    let passes = (u64::BITS - max.leading_zeros()).div_ceil(BITS);
    for pass in 0..passes {
        let shift = pass * BITS;
        let mut start = [0usize; RADIX];
        for part in keyed.chunks(stop::EVERY) {
            if stop::requested() {
                return Ok(true);
            }
            for &(k, _) in part {
                start[((k >> shift) as usize) & (RADIX - 1)] += 1;
            }
        }
        let mut total = 0;
        for s in start.iter_mut() {
            let count = *s;
            *s = total;
            total += count;
        }
        for part in keyed.chunks(stop::EVERY) {
            if stop::requested() {
                return Ok(true);
            }
            for &item in part {
                let d = ((item.0 >> shift) as usize) & (RADIX - 1);
                buffer[start[d]] = item;
                start[d] += 1;
            }
        }
        std::mem::swap(&mut keyed, &mut buffer);
    }
    for (cell, &(k, c)) in cells.iter_mut().zip(&keyed) {
        *cell = (a_lo + k / b_range, b_lo + k % b_range, c);
    }
    Ok(true)
}

/// The sorted distinct column keys of `cells`, and an index from key to position. When
/// the keys span a range not much wider than there are cells (a table counted in a dense
/// window, or small labels), they are found by marking the range, not by sorting: for
/// wide tables (hundreds of thousands of cells) sorting cost more than counting.
pub(super) fn column_keys(cells: &[(u64, u64, u64)]) -> Result<(Vec<u64>, ColIndex), Error> {
    const WHAT: &str = "the columns of a table";
    let (lo, hi) = cells
        .iter()
        .fold((u64::MAX, 0), |(lo, hi), c| (lo.min(c.1), hi.max(c.1)));
    if lo <= hi && hi - lo < 4 * (cells.len() as u64).max(1024) {
        const ABSENT: u32 = u32::MAX;
        let mut position = alloc::filled((hi - lo) as usize + 1, ABSENT, WHAT)?;
        for c in cells {
            position[(c.1 - lo) as usize] = 0;
        }
        let mut keys = Vec::new();
        for (offset, p) in position.iter_mut().enumerate() {
            if *p != ABSENT {
                // At most `cells.len()` keys; the caller refuses more than u32 can index.
                *p = keys.len() as u32;
                alloc::push(&mut keys, lo + offset as u64, WHAT)?;
            }
        }
        return Ok((
            keys,
            ColIndex::Dense {
                start: lo,
                position,
            },
        ));
    }
    let mut keys: Vec<u64> = alloc::collect(cells.iter().map(|c| c.1), WHAT)?;
    sort_keys(&mut keys)?;
    keys.dedup();
    let index = ColIndex::new(&keys, cells.len())?;
    Ok((keys, index))
}

/// Sorts `keys`: for many, by an LSD radix sort over the bits that vary, which looks for a
/// stop request every [`stop::EVERY`] keys (tens of millions of column keys took seconds in
/// `sort_unstable`, deaf to a Ctrl-C all along).
fn sort_keys(keys: &mut Vec<u64>) -> Result<(), Error> {
    const BITS: u32 = 11;
    const RADIX: usize = 1 << BITS;
    if keys.len() < 1 << 16 {
        keys.sort_unstable();
        return Ok(());
    }
    let (lo, hi) = keys
        .iter()
        .fold((u64::MAX, 0), |(lo, hi), &k| (lo.min(k), hi.max(k)));
    let passes = (u64::BITS - (hi - lo).leading_zeros()).div_ceil(BITS);
    let mut buffer = alloc::filled(keys.len(), 0u64, "sorting the columns of a table")?;
    for pass in 0..passes {
        let shift = pass * BITS;
        let digit = |k: u64| (((k - lo) >> shift) as usize) & (RADIX - 1);
        let mut start = [0usize; RADIX];
        for part in keys.chunks(stop::EVERY) {
            stop::check()?;
            for &k in part {
                start[digit(k)] += 1;
            }
        }
        let mut total = 0;
        for s in start.iter_mut() {
            let count = *s;
            *s = total;
            total += count;
        }
        for part in keys.chunks(stop::EVERY) {
            stop::check()?;
            for &k in part {
                let d = digit(k);
                buffer[start[d]] = k;
                start[d] += 1;
            }
        }
        std::mem::swap(keys, &mut buffer);
    }
    Ok(())
}

/// Finds a column key's position among the sorted distinct column keys: by binary
/// search for few columns, by a direct lookup over the key range when it is not much
/// wider than the table, and by hashing otherwise.
pub(super) enum ColIndex {
    Search,
    Dense { start: u64, position: Vec<u32> },
    Hashed(HashMap<u64, u32, FixedState>),
}

impl ColIndex {
    fn new(keys: &[u64], n_cells: usize) -> Result<Self, Error> {
        const WHAT: &str = "the index of a table's columns";
        let (Some(&first), Some(&last)) = (keys.first(), keys.last()) else {
            return Ok(ColIndex::Search);
        };
        if keys.len() <= 256 || keys.len() > u32::MAX as usize {
            return Ok(ColIndex::Search);
        }
        let range = last - first;
        if range < 4 * (n_cells as u64).max(keys.len() as u64) {
            let mut position = alloc::filled(range as usize + 1, 0u32, WHAT)?;
            for (j, &k) in keys.iter().enumerate() {
                position[(k - first) as usize] = j as u32;
            }
            return Ok(ColIndex::Dense {
                start: first,
                position,
            });
        }
        let mut map = HashMap::with_hasher(FixedState::default());
        alloc::reserve_map(&mut map, keys.len(), WHAT)?;
        for (part, chunk) in keys.chunks(stop::EVERY).enumerate() {
            stop::check()?;
            let first = part * stop::EVERY;
            for (j, &k) in chunk.iter().enumerate() {
                map.insert(k, (first + j) as u32);
            }
        }
        Ok(ColIndex::Hashed(map))
    }

    #[inline]
    pub(super) fn get(&self, keys: &[u64], key: u64) -> usize {
        match self {
            ColIndex::Search => keys.binary_search(&key).unwrap_or_default(),
            ColIndex::Dense { start, position } => position[(key - start) as usize] as usize,
            ColIndex::Hashed(map) => map.get(&key).copied().unwrap_or_default() as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::label::KeyKind;
    use crate::table::Table;

    #[test]
    fn many_keys_are_sorted_as_sort_unstable_sorts_them() {
        let mut next = crate::testing::xorshift(7);
        for spread in [1u64 << 20, 1 << 40, u64::MAX] {
            let mut keys: Vec<u64> = (0..200_000).map(|_| next() % spread).collect();
            keys.push(spread - 1);
            let mut want = keys.clone();
            want.sort_unstable();
            sort_keys(&mut keys).unwrap();
            assert_eq!(keys, want);
        }
    }

    #[test]
    fn keys_spanning_all_of_u64_do_not_pack() {
        // 5,000 cells (enough to radix-sort) whose column keys run from 0 to u64::MAX.
        let mut cells: Vec<(u64, u64, u64)> = (0..5000u64).map(|i| (i % 7, i * 31, 1)).collect();
        cells.push((3, u64::MAX, 1));
        cells.push((3, 0, 2));
        let before = cells.clone();
        assert!(!radix_sort(&mut cells).unwrap());
        assert_eq!(cells, before);
        let t =
            Table::from_key_cells(cells, false, KeyKind::Unsigned, KeyKind::Unsigned, 1).unwrap();
        assert_eq!(t.n, 5003);
        assert_eq!(t.cols.keys.last(), Some(&u64::MAX));
    }
}
