//! The keys of listed cells: sorting the cells by their keys (a radix sort where the
//! keys pack into a `u64`), and finding a column key's position among the distinct ones.

use std::ops::AddAssign;

use foldhash::fast::FixedState;
use hashbrown::HashMap;

use crate::alloc;
use crate::error::Error;
use crate::pool;
use crate::stop;

/// Sorts cells by (row key, column key) and adds up the payloads of equal keys, leaving
/// each pair once: radix-sorted where the keys pack ([`radix_sort`]), compared in place
/// (on the pool for many cells) where they do not, or where the radix sort's buffers
/// were refused. A stop request ends it with [`Error::Stopped`].
pub(crate) fn sort_cells<T>(cells: &mut Vec<(u64, u64, T)>, threads: usize) -> Result<(), Error>
where
    T: Copy + Default + Send + AddAssign,
{
    if !alloc::or_less(|| radix_sort(cells), || Ok(false))? {
        let key = |c: &(u64, u64, T)| (c.0, c.1);
        if threads > 1 && cells.len() > 1 << 16 {
            pool::run(|| quicksort(cells, key, true, 0));
        } else {
            quicksort(cells, key, false, 0);
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

/// Pieces of at most this many cells are sorted whole (a few milliseconds each).
const PIECE: usize = 1 << 16;

/// Sorts `items` by `key` in place, stopping soon after a stop is requested (then they
/// are left in no particular order): partitioned around pivots, the two sides on the
/// pool's threads where `parallel`, down to pieces of [`PIECE`] items, which the standard
/// library sorts. The library's parallel sort of 3e7 cells ran a second and could not be
/// stopped.
fn quicksort<T, K, F>(items: &mut [T], key: F, parallel: bool, depth: u32)
where
    T: Copy + Send,
    K: Ord + Copy,
    F: Fn(&T) -> K + Sync + Copy,
{
    if stop::requested() {
        return;
    }
    // Past twice the depth of balanced pivots (adversarial keys), the library's sort,
    // which guarantees n log n, takes the piece whole.
    if items.len() <= PIECE || depth > 2 * (usize::BITS - items.len().leading_zeros()) {
        items.sort_unstable_by_key(key);
        return;
    }
    let pivot = ninther(items, key);
    let Some(below) = partition(items, |c| key(c) < pivot) else {
        return;
    };
    if below == 0 {
        // The pivot is the least key: the items equal to it go first, sorted as they are.
        if let Some(equal) = partition(items, |c| key(c) <= pivot) {
            quicksort(&mut items[equal..], key, parallel, depth + 1);
        }
        return;
    }
    let (low, high) = items.split_at_mut(below);
    if parallel {
        rayon::join(
            || quicksort(low, key, true, depth + 1),
            || quicksort(high, key, true, depth + 1),
        );
    } else {
        quicksort(low, key, false, depth + 1);
        quicksort(high, key, false, depth + 1);
    }
}

/// The median of three medians of three keys spread over `items` (Tukey's ninther).
fn ninther<T, K: Ord + Copy>(items: &[T], key: impl Fn(&T) -> K) -> K {
    let key = |i: usize| key(&items[i]);
    let median = |a, b, c| {
        let (x, y, z) = (key(a), key(b), key(c));
        x.max(y).min(x.min(y).max(z))
    };
    let step = items.len() / 9;
    let m = |k: usize| median(k * 3 * step, (k * 3 + 1) * step, (k * 3 + 2) * step);
    let (x, y, z) = (m(0), m(1), m(2));
    x.max(y).min(x.min(y).max(z))
}

/// Moves the items for which `first` holds before the rest; returns their number, or
/// `None` if a stop was requested meanwhile.
fn partition<T: Copy>(items: &mut [T], first: impl Fn(&T) -> bool) -> Option<usize> {
    let (mut i, mut j) = (0, items.len());
    let mut next_check = stop::EVERY;
    loop {
        while i < j && first(&items[i]) {
            i += 1;
        }
        while i < j && !first(&items[j - 1]) {
            j -= 1;
        }
        if i >= j {
            return Some(i);
        }
        items.swap(i, j - 1);
        i += 1;
        j -= 1;
        if i + (items.len() - j) >= next_check {
            if stop::requested() {
                return None;
            }
            next_check += stop::EVERY;
        }
    }
}

/// Sorts many cells by (row key, column key) with an LSD radix sort when both key
/// ranges pack into one `u64` (always so for codes, ids and moderate label values):
/// the pair becomes `(a - a_min) * b_range + (b - b_min)`, and only the digits that
/// vary are sorted. Returns false, leaving `cells` as they were, otherwise. A stopped
/// sort ([`stop::requested`]) returns true and leaves `cells` in no particular order.
/// Each cell carries a payload `T` (a count, or a weighted sum).
fn radix_sort<T: Copy + Default>(cells: &mut [(u64, u64, T)]) -> Result<bool, Error> {
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
    let mut keyed: Vec<(u64, T)> = gather(
        cells
            .iter()
            .map(|&(a, b, c)| ((a - a_lo) * b_range + (b - b_lo), c)),
        WHAT,
    )?;
    if !radix_pairs(&mut keyed, max, WHAT)? {
        return Ok(true);
    }
    for (cell, &(k, c)) in cells.iter_mut().zip(&keyed) {
        *cell = (a_lo + k / b_range, b_lo + k % b_range, c);
    }
    Ok(true)
}

/// The items collected into a vector of their exact length, [`Error::Stopped`] if a stop
/// is requested meanwhile (looked for every [`stop::EVERY`] items): the fresh pages of
/// hundreds of megabytes, at tens of millions of cells, take a fraction of a second to
/// write.
fn gather<T>(
    mut items: impl ExactSizeIterator<Item = T>,
    what: &'static str,
) -> Result<Vec<T>, Error> {
    let mut v = alloc::with_capacity(items.len(), what)?;
    loop {
        stop::check()?;
        let before = v.len();
        v.extend(items.by_ref().take(stop::EVERY));
        if v.len() == before {
            return Ok(v);
        }
    }
}

/// Sorts `items` by their keys (all at most `max`) with an LSD radix sort over the digits
/// that vary, looking for a stop request every [`stop::EVERY`] items: false if one came
/// (the items are then in no particular order).
fn radix_pairs<T: Copy + Default>(
    items: &mut Vec<(u64, T)>,
    max: u64,
    what: &'static str,
) -> Result<bool, Error> {
    const BITS: u32 = 11;
    const RADIX: usize = 1 << BITS;
    let mut buffer = gather(std::iter::repeat_n((0u64, T::default()), items.len()), what)?;
    let passes = (u64::BITS - max.leading_zeros()).div_ceil(BITS);
    for pass in 0..passes {
        let shift = pass * BITS;
        let mut start = [0usize; RADIX];
        for part in items.chunks(stop::EVERY) {
            if stop::requested() {
                return Ok(false);
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
        for part in items.chunks(stop::EVERY) {
            if stop::requested() {
                return Ok(false);
            }
            for &item in part {
                let d = ((item.0 >> shift) as usize) & (RADIX - 1);
                buffer[start[d]] = item;
                start[d] += 1;
            }
        }
        std::mem::swap(items, &mut buffer);
    }
    Ok(true)
}

/// The sorted distinct column keys of `cells`, and an index from key to position. When
/// the keys span a range not much wider than there are cells (a table counted in a dense
/// window, or small labels), they are found by marking the range, not by sorting: for
/// wide tables (hundreds of thousands of cells) sorting cost more than counting. Where
/// the memory for marking or numbering is refused, the keys are sorted in place and each
/// cell's found by binary search ([`sorted_columns`]), which needs 8 bytes a cell.
pub(super) fn column_keys(cells: &[(u64, u64, u64)]) -> Result<(Vec<u64>, ColIndex), Error> {
    let (lo, hi) = cells
        .iter()
        .fold((u64::MAX, 0), |(lo, hi), c| (lo.min(c.1), hi.max(c.1)));
    if lo <= hi && hi - lo < 4 * (cells.len() as u64).max(1024) {
        return alloc::or_less(|| marked_columns(cells, lo, hi), || sorted_columns(cells));
    }
    if cells.len() >= 1 << 16 && cells.len() <= u32::MAX as usize {
        return alloc::or_less(|| numbered_columns(cells, lo, hi), || sorted_columns(cells));
    }
    sorted_columns(cells)
}

const COLUMNS: &str = "the columns of a table";

/// [`column_keys`] of cells whose column keys run from `lo` to `hi`, a range not much
/// wider than there are cells: the range marked where a cell's key is.
fn marked_columns(
    cells: &[(u64, u64, u64)],
    lo: u64,
    hi: u64,
) -> Result<(Vec<u64>, ColIndex), Error> {
    const ABSENT: u32 = u32::MAX;
    let mut position = gather(std::iter::repeat_n(ABSENT, (hi - lo) as usize + 1), COLUMNS)?;
    for c in cells {
        position[(c.1 - lo) as usize] = 0;
    }
    let present = position.iter().filter(|&&p| p != ABSENT).count();
    let mut keys = alloc::with_capacity(present, COLUMNS)?;
    for (offset, p) in position.iter_mut().enumerate() {
        if *p != ABSENT {
            // At most `cells.len()` keys; the caller refuses more than u32 can index.
            *p = keys.len() as u32;
            keys.push(lo + offset as u64);
        }
    }
    Ok((
        keys,
        ColIndex::Dense {
            start: lo,
            position,
        },
    ))
}

/// [`column_keys`] of many cells whose column keys (from `lo` to `hi`) spread too wide to
/// mark: each cell's (key, place) radix-sorted, the keys numbered in that order and each
/// number written to its cell's place. A hash map of the keys, looked up cell by cell,
/// took 9 s of a 15 s call at 3e7 spread cells (each lookup a cache miss).
fn numbered_columns(
    cells: &[(u64, u64, u64)],
    lo: u64,
    hi: u64,
) -> Result<(Vec<u64>, ColIndex), Error> {
    let mut keyed: Vec<(u64, u32)> = gather(
        cells.iter().enumerate().map(|(i, c)| (c.1 - lo, i as u32)),
        COLUMNS,
    )?;
    if !radix_pairs(&mut keyed, hi - lo, COLUMNS)? {
        return Err(Error::Stopped);
    }
    let distinct = 1 + keyed.windows(2).filter(|w| w[0].0 != w[1].0).count();
    let mut keys = alloc::with_capacity(distinct, COLUMNS)?;
    let mut number = gather(std::iter::repeat_n(0u32, cells.len()), COLUMNS)?;
    for part in keyed.chunks(stop::EVERY) {
        stop::check()?;
        for &(k, i) in part {
            if keys.last() != Some(&(lo + k)) {
                keys.push(lo + k);
            }
            number[i as usize] = keys.len() as u32 - 1;
        }
    }
    Ok((keys, ColIndex::Numbered(number)))
}

/// [`column_keys`] by the keys alone, sorted and made distinct in place, then indexed as
/// [`ColIndex::new`] chooses, or by binary search where its memory is refused.
fn sorted_columns(cells: &[(u64, u64, u64)]) -> Result<(Vec<u64>, ColIndex), Error> {
    let mut keys: Vec<u64> = alloc::collect(cells.iter().map(|c| c.1), COLUMNS)?;
    sort_keys(&mut keys)?;
    keys.dedup();
    keys.shrink_to_fit();
    let index = alloc::or_less(
        || ColIndex::new(&keys, cells.len()),
        || Ok(ColIndex::Search),
    )?;
    Ok((keys, index))
}

/// Sorts `keys`: for many (more cells than [`numbered_columns`] can number), by
/// [`radix_pairs`], or in place where its buffer is refused; both look for a stop
/// request as they go.
fn sort_keys(keys: &mut Vec<u64>) -> Result<(), Error> {
    if keys.len() < 1 << 16 {
        keys.sort_unstable();
        return Ok(());
    }
    let (lo, hi) = keys
        .iter()
        .fold((u64::MAX, 0), |(lo, hi), &k| (lo.min(k), hi.max(k)));
    // Both conversions reuse the vector's allocation: `(u64, ())` is laid out as `u64`.
    let mut pairs: Vec<(u64, ())> = std::mem::take(keys)
        .into_iter()
        .map(|k| (k - lo, ()))
        .collect();
    let sorted = radix_pairs(&mut pairs, hi - lo, "sorting the columns of a table");
    *keys = pairs.into_iter().map(|(k, ())| lo + k).collect();
    match sorted {
        Ok(true) => Ok(()),
        Ok(false) => Err(Error::Stopped),
        // The buffer was refused before the keys were moved.
        Err(error) if alloc::is_refusal(&error) => {
            quicksort(keys, |&k| k, false, 0);
            stop::check()
        }
        Err(error) => Err(error),
    }
}

/// Finds a cell's column's position among the sorted distinct column keys: by binary
/// search for few columns, by a direct lookup over the key range when it is not much
/// wider than the table, by hashing for fewer cells, and as numbered cell by cell for
/// many ([`numbered_columns`]).
pub(super) enum ColIndex {
    Search,
    Dense { start: u64, position: Vec<u32> },
    Hashed(HashMap<u64, u32, FixedState>),
    Numbered(Vec<u32>),
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

    /// The position of cell `i`'s column key `key`.
    #[inline]
    pub(super) fn get(&self, keys: &[u64], key: u64, i: usize) -> usize {
        match self {
            ColIndex::Search => keys.binary_search(&key).unwrap_or_default(),
            ColIndex::Dense { start, position } => position[(key - start) as usize] as usize,
            ColIndex::Hashed(map) => map.get(&key).copied().unwrap_or_default() as usize,
            ColIndex::Numbered(number) => number[i] as usize,
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
    fn cells_that_do_not_pack_are_sorted_as_sort_unstable_sorts_them() {
        let mut next = crate::testing::xorshift(11);
        const N: u64 = 300_000;
        // Each shape's (row key, column key) of the i-th cell, from a random r.
        type Key = Box<dyn Fn(u64, u64) -> (u64, u64)>;
        let shapes: [(&str, Key); 7] = [
            ("spread", Box::new(|_, r| (r, r.rotate_left(17)))),
            ("few rows", Box::new(|_, r| (r % 3, r))),
            ("few keys", Box::new(|_, r| ((r % 5) << 60, r % 7))),
            ("all equal", Box::new(|_, _| (1 << 62, u64::MAX))),
            ("sorted", Box::new(|i, _| (i << 40, u64::MAX - i))),
            ("reversed", Box::new(|i, _| ((N - i) << 40, i))),
            ("organ pipe", Box::new(|i, _| ((i.min(N - i)) << 40, 0))),
        ];
        for (shape, key) in &shapes {
            let cells: Vec<(u64, u64, u32)> = (0..N)
                .map(|i| {
                    let (a, b) = key(i, next());
                    (a, b, i as u32)
                })
                .collect();
            let mut want = cells.clone();
            want.sort_unstable_by_key(|&(a, b, _)| (a, b));
            for parallel in [false, true] {
                let mut got = cells.clone();
                crate::pool::run(|| quicksort(&mut got, |c| (c.0, c.1), parallel, 0));
                let keys =
                    |c: &[(u64, u64, u32)]| c.iter().map(|&(a, b, _)| (a, b)).collect::<Vec<_>>();
                assert_eq!(keys(&got), keys(&want), "{shape}");
                // The same cells, each once.
                let mut payloads: Vec<u32> = got.iter().map(|c| c.2).collect();
                payloads.sort_unstable();
                assert!(payloads.iter().copied().eq(0..N as u32), "{shape}");
            }
        }
    }

    #[test]
    fn every_cell_finds_its_column_however_the_columns_are_indexed() {
        let mut next = crate::testing::xorshift(5);
        // Few columns (searched), a narrow range (dense), spread keys for fewer cells
        // (hashed) and for many (numbered cell by cell), with repeats.
        for (n, spread) in [
            (5_000u64, 100u64),
            (5_000, 1 << 12),
            (5_000, 1 << 50),
            (200_000, 1 << 50),
            (200_000, u64::MAX),
        ] {
            let cells: Vec<(u64, u64, u64)> = (0..n)
                .map(|i| (i / 3, next() % spread / 2 * 2, 1))
                .collect();
            let (keys, index) = column_keys(&cells).unwrap();
            let mut want: Vec<u64> = cells.iter().map(|c| c.1).collect();
            want.sort_unstable();
            want.dedup();
            assert_eq!(keys, want, "{n} {spread}");
            for (i, c) in cells.iter().enumerate() {
                assert_eq!(keys[index.get(&keys, c.1, i)], c.1, "{n} {spread}");
            }
            if n > 1 << 16 {
                assert!(matches!(index, ColIndex::Numbered(_)), "{n} {spread}");
            }
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

    #[test]
    fn refused_buffers_sort_and_index_in_place_alike() {
        let mut next = crate::testing::xorshift(9);
        // Keys sorted through a buffer, and in place where its 1.6 MB is refused.
        let keys: Vec<u64> = (0..200_000).map(|_| next() >> 20).collect();
        let mut want = keys.clone();
        want.sort_unstable();
        let mut got = keys.clone();
        crate::alloc::refusing_from(1 << 20, || sort_keys(&mut got)).unwrap();
        assert_eq!(got, want);
        // Cells that pack, radix-sorted or (their 3.2 MB of keys refused) compared in place.
        let cells: Vec<(u64, u64, u64)> = (0..200_000)
            .map(|_| (next() % 5000, next() % 7000, 1))
            .collect();
        let mut want = cells.clone();
        sort_cells(&mut want, 1).unwrap();
        let mut got = cells.clone();
        crate::alloc::refusing_from(1 << 20, || sort_cells(&mut got, 1)).unwrap();
        assert_eq!(got, want);
        // Columns marked, numbered or hashed, and found by binary search where the memory
        // for those is refused: the same keys, each cell finding its own.
        for spread in [300_000u64, 1 << 50] {
            let cells: Vec<(u64, u64, u64)> =
                (0..100_000).map(|i| (i / 3, next() % spread, 1)).collect();
            let (want, _) = column_keys(&cells).unwrap();
            let (keys, index) =
                crate::alloc::refusing_from(1 << 20, || column_keys(&cells)).unwrap();
            assert!(matches!(index, ColIndex::Search), "{spread}");
            assert_eq!(keys, want, "{spread}");
            for (i, c) in cells.iter().enumerate() {
                assert_eq!(keys[index.get(&keys, c.1, i)], c.1, "{spread}");
            }
        }
    }
}
