//! Allocations that grow with the input, made fallibly. The standard library's infallible
//! allocations abort the whole process when the system refuses memory (an address-space
//! limit such as `ulimit -v`, as HPC schedulers set): the interpreter that called us and
//! everything in it would be gone. These helpers return [`Error::OutOfMemory`] instead,
//! naming what was being built and how many bytes it needed, which the binding raises as
//! Python's `MemoryError`; what was allocated before is freed as the error unwinds. A
//! path that has a way needing less memory takes it when refused ([`or_less`]).

#[cfg(test)]
use std::cell::Cell;
use std::hash::{BuildHasher, Hash};
use std::sync::OnceLock;

use hashbrown::HashMap;

use crate::error::Error;

/// The bytes of `items` values of `T`.
fn bytes<T>(items: usize) -> usize {
    items.saturating_mul(std::mem::size_of::<T>())
}

fn refused<T>(what: &'static str, items: usize) -> Error {
    Error::OutOfMemory {
        what,
        bytes: bytes::<T>(items),
    }
}

#[cfg(test)]
thread_local! {
    /// (Unit tests only) allocations of at least this many bytes made through these
    /// helpers on this thread are refused, as an address-space limit refuses them.
    static REFUSE_FROM: Cell<usize> = const { Cell::new(usize::MAX) };
}

/// (Unit tests only) `f` run with every allocation of at least `bytes` made through these
/// helpers on this thread refused.
#[cfg(test)]
pub(crate) fn refusing_from<R>(bytes: usize, f: impl FnOnce() -> R) -> R {
    let before = REFUSE_FROM.replace(bytes);
    let out = f();
    REFUSE_FROM.set(before);
    out
}

/// Whether an allocation of `bytes` may be tried (always, outside unit tests).
#[inline]
pub(crate) fn allowed(bytes: usize) -> bool {
    #[cfg(test)]
    if bytes >= REFUSE_FROM.get() {
        return false;
    }
    let _ = bytes;
    true
}

/// Whether `error` is memory refused, by the system ([`Error::OutOfMemory`]) or as more
/// than the process may use ([`Error::PastUsable`]).
pub(crate) fn is_refusal(error: &Error) -> bool {
    matches!(error, Error::OutOfMemory { .. } | Error::PastUsable { .. })
}

/// `first()`, or, if it was refused memory, `less()`: a way to the same result that needs
/// less memory (sorting in place rather than through a buffer, say) and is slower.
pub(crate) fn or_less<T>(
    first: impl FnOnce() -> Result<T, Error>,
    less: impl FnOnce() -> Result<T, Error>,
) -> Result<T, Error> {
    match first() {
        Err(error) if is_refusal(&error) => less(),
        other => other,
    }
}

/// Room in `v` for `additional` more items (amortised, as `Vec::reserve`).
pub(crate) fn reserve<T>(
    v: &mut Vec<T>,
    additional: usize,
    what: &'static str,
) -> Result<(), Error> {
    let total = v.len().saturating_add(additional);
    if total > v.capacity() && !allowed(bytes::<T>(total.max(2 * v.capacity()))) {
        return Err(refused::<T>(what, total));
    }
    v.try_reserve(additional)
        .map_err(|_| refused::<T>(what, total))
}

/// Room in `v` for exactly `additional` more items (no more than that is allocated).
pub(crate) fn reserve_exact<T>(
    v: &mut Vec<T>,
    additional: usize,
    what: &'static str,
) -> Result<(), Error> {
    let total = v.len().saturating_add(additional);
    if total > v.capacity() && !allowed(bytes::<T>(total)) {
        return Err(refused::<T>(what, total));
    }
    v.try_reserve_exact(additional)
        .map_err(|_| refused::<T>(what, total))
}

/// An empty vector with room for `len` items.
pub(crate) fn with_capacity<T>(len: usize, what: &'static str) -> Result<Vec<T>, Error> {
    let mut v = Vec::new();
    reserve_exact(&mut v, len, what)?;
    Ok(v)
}

/// `len` copies of `value`.
pub(crate) fn filled<T: Clone>(len: usize, value: T, what: &'static str) -> Result<Vec<T>, Error> {
    let mut v = with_capacity(len, what)?;
    v.resize(len, value);
    Ok(v)
}

/// `x` pushed onto `v`, which grows fallibly when full.
#[inline]
pub(crate) fn push<T>(v: &mut Vec<T>, x: T, what: &'static str) -> Result<(), Error> {
    if v.len() == v.capacity() {
        reserve(v, 1, what)?;
    }
    v.push(x);
    Ok(())
}

/// The items of `items` appended to `v`, its room made first.
pub(crate) fn extend<T>(
    v: &mut Vec<T>,
    items: impl ExactSizeIterator<Item = T>,
    what: &'static str,
) -> Result<(), Error> {
    reserve(v, items.len(), what)?;
    v.extend(items);
    Ok(())
}

/// The items of `items`, collected into a vector of their exact length.
pub fn collect<T>(
    items: impl ExactSizeIterator<Item = T>,
    what: &'static str,
) -> Result<Vec<T>, Error> {
    let mut v = with_capacity(items.len(), what)?;
    v.extend(items);
    Ok(v)
}

/// The value in `cell`, built by `build` if it is not there yet: as
/// `OnceLock::get_or_init`, but a refusal is returned and leaves the cell empty, to be
/// built by the next call. (Two threads may both build it; one value is kept.)
pub(crate) fn once<T>(
    cell: &OnceLock<T>,
    build: impl FnOnce() -> Result<T, Error>,
) -> Result<&T, Error> {
    if let Some(value) = cell.get() {
        return Ok(value);
    }
    let value = build()?;
    Ok(cell.get_or_init(|| value))
}

/// The value of a fallible build whose caller cannot return an error: as the standard
/// library's infallible allocations do, the process aborts if the memory was refused.
/// For the accessors that return references ([`crate::Measures`]); the binding builds
/// what they read first, fallibly ([`crate::Counted::ready`]).
pub(crate) fn or_abort<T>(built: Result<T, Error>) -> T {
    built.unwrap_or_else(|error| match error {
        Error::OutOfMemory { bytes, .. } => std::alloc::handle_alloc_error(
            std::alloc::Layout::from_size_align(bytes, 1)
                .unwrap_or(std::alloc::Layout::new::<u8>()),
        ),
        other => panic!("{other}"),
    })
}

/// Room in `map` for `additional` more entries.
pub(crate) fn reserve_map<K: Eq + Hash, V, S: BuildHasher>(
    map: &mut HashMap<K, V, S>,
    additional: usize,
    what: &'static str,
) -> Result<(), Error> {
    let total = map.len().saturating_add(additional);
    if total > map.capacity() && !allowed(bytes::<(K, V)>(total)) {
        return Err(refused::<(K, V)>(what, total));
    }
    map.try_reserve(additional)
        .map_err(|_| refused::<(K, V)>(what, total))
}

/// Room in `map` for one more entry: when full, it doubles (at least 16), fallibly.
#[inline]
pub(crate) fn room_for_one<K: Eq + Hash, V, S: BuildHasher>(
    map: &mut HashMap<K, V, S>,
    what: &'static str,
) -> Result<(), Error> {
    let len = map.len();
    if len == map.capacity() {
        reserve_map(map, len.max(16), what)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_allocation_is_an_error_naming_it() {
        let mut v: Vec<u64> = Vec::new();
        let got = reserve(&mut v, usize::MAX / 4, "the test's cells");
        let Err(Error::OutOfMemory { what, bytes }) = got else {
            panic!("{got:?}");
        };
        assert_eq!(what, "the test's cells");
        assert_eq!(bytes, usize::MAX);
        assert!(with_capacity::<u32>(usize::MAX / 2, "x").is_err());
        assert!(filled(usize::MAX / 2, 0u16, "x").is_err());
        let mut map: HashMap<u64, u64, foldhash::fast::FixedState> = HashMap::default();
        assert!(reserve_map(&mut map, usize::MAX / 2, "x").is_err());
        room_for_one(&mut map, "x").unwrap();
        assert!(map.capacity() >= 16);
        // The failure leaves things usable.
        push(&mut v, 7, "x").unwrap();
        extend(&mut v, [8, 9].into_iter(), "x").unwrap();
        assert_eq!(v, [7, 8, 9]);
        assert_eq!(collect([1u8, 2].into_iter(), "x").unwrap(), [1, 2]);
        assert_eq!(filled(3, 5u8, "x").unwrap(), [5, 5, 5]);
    }

    #[test]
    fn a_way_that_needs_less_is_taken_on_refusal_alone() {
        let refused = || -> Result<u8, Error> { with_capacity::<u8>(64, "x").map(|_| 1) };
        assert_eq!(refusing_from(64, || or_less(refused, || Ok(2))), Ok(2));
        assert_eq!(refusing_from(65, || or_less(refused, || Ok(2))), Ok(1));
        let stopped = || -> Result<u8, Error> { Err(Error::Stopped) };
        assert_eq!(or_less(stopped, || Ok(2)), Err(Error::Stopped));
        // Growth within the room a vector has is never refused.
        let mut v: Vec<u64> = with_capacity(100, "x").unwrap();
        refusing_from(8, || reserve_exact(&mut v, 100, "x")).unwrap();
        let refusal = refusing_from(8, || reserve(&mut v, 101, "the test's cells"));
        assert_eq!(
            refusal,
            Err(Error::OutOfMemory {
                what: "the test's cells",
                bytes: 808
            })
        );
        assert!(is_refusal(&refusal.unwrap_err()));
    }

    #[test]
    fn a_refused_build_leaves_the_cell_to_the_next_call() {
        let cell = OnceLock::new();
        let refusal = Error::OutOfMemory {
            what: "the test's table",
            bytes: 8,
        };
        assert_eq!(once(&cell, || Err(refusal.clone())), Err(refusal));
        assert!(cell.get().is_none());
        assert_eq!(once(&cell, || Ok(5u32)), Ok(&5));
        // Built once: a later build is not run.
        assert_eq!(
            once(&cell, || -> Result<u32, Error> { unreachable!() }),
            Ok(&5)
        );
    }
}
