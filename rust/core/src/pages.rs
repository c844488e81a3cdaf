//! Large zeroed arrays on huge pages. Where Linux gives huge pages only to memory that
//! asks for them (`transparent_hugepage` set to `madvise`, as on this project's machines and
//! many distributions), each 4 kB page of a fresh array costs a fault and its zeroing when
//! first written: for the hundred megabytes of a wide table's cells, longer than counting
//! them. Asked for, the kernel maps 2 MB at a fault (as NumPy asks for its large arrays):
//! the full table of a million labels a side at 1e7 was counted in 270 ms, against 350 ms
//! on 4 kB pages.

use std::alloc::Layout;

use crate::alloc;
use crate::error::Error;

/// Arrays from this many bytes ask for huge pages.
const HUGE_FROM: usize = 4 << 20;
/// The size of a huge page (x86-64 and most aarch64 kernels).
const HUGE_PAGE: usize = 2 << 20;

/// Element types whose all-zero bytes are the value 0.
///
/// # Safety
///
/// Every bit pattern of zeros must be a valid value of the type.
pub(crate) unsafe trait Zero: Copy {}

// SAFETY: integers and floats are valid (0 and 0.0) as all-zero bytes.
unsafe impl Zero for u16 {}
// SAFETY: as above.
unsafe impl Zero for u32 {}
// SAFETY: as above.
unsafe impl Zero for u64 {}
// SAFETY: as above.
unsafe impl Zero for u128 {}
// SAFETY: as above.
unsafe impl Zero for f64 {}
// SAFETY: an array of zero values is all-zero bytes, and valid.
unsafe impl<T: Zero, const N: usize> Zero for [T; N] {}

/// `len` zeros, on huge pages where the kernel has them and the array is large; the
/// core's error naming `what` if the memory is refused.
pub(crate) fn zeroed<T: Zero>(len: usize, what: &'static str) -> Result<Vec<T>, Error> {
    let v: Vec<T> = calloc(len, what)?;
    advise(v.as_ptr().cast(), len * std::mem::size_of::<T>());
    Ok(v)
}

/// `len` zeros on the pages the allocator gives (`calloc`: fresh pages of a large
/// allocation are not touched here, as `vec![0; len]` leaves them); the core's error naming
/// `what` if the memory is refused.
pub(crate) fn calloc<T: Zero>(len: usize, what: &'static str) -> Result<Vec<T>, Error> {
    let bytes = len.saturating_mul(std::mem::size_of::<T>());
    let refused = || Error::OutOfMemory { what, bytes };
    let layout = Layout::array::<T>(len).map_err(|_| refused())?;
    if layout.size() == 0 {
        return Ok(Vec::new());
    }
    if !alloc::allowed(bytes) {
        return Err(refused());
    }
    // SAFETY: the layout has a non-zero size.
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) }.cast::<T>();
    if ptr.is_null() {
        return Err(refused());
    }
    // SAFETY: `ptr` was allocated by the global allocator with `T`'s alignment and room
    // for `len` values, all initialized (zero bytes are a `T`: `Zero`).
    Ok(unsafe { Vec::from_raw_parts(ptr, len, len) })
}

/// An empty vector with room for `len` values, on huge pages where the kernel has them and
/// the room is large: for arrays filled by pushing, such as a gathered column. The core's
/// error naming `what` if the memory is refused.
pub(crate) fn with_capacity<T>(len: usize, what: &'static str) -> Result<Vec<T>, Error> {
    let v: Vec<T> = alloc::with_capacity(len, what)?;
    advise(v.as_ptr().cast(), len * std::mem::size_of::<T>());
    Ok(v)
}

/// A copy of `items`, on huge pages where the kernel has them and it is large (as NumPy
/// asks for its large arrays); the core's error naming `what` if the memory is refused.
pub fn copied<T: Copy>(items: &[T], what: &'static str) -> Result<Vec<T>, Error> {
    let mut v = with_capacity(items.len(), what)?;
    v.extend_from_slice(items);
    Ok(v)
}

#[cfg(target_os = "linux")]
fn advise(start: *const u8, bytes: usize) {
    if bytes < HUGE_FROM {
        return;
    }
    let first = (start as usize).next_multiple_of(HUGE_PAGE);
    let end = (start as usize + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end > first {
        // SAFETY: the range lies within the allocation just made, page-aligned; the advice
        // changes only how the kernel backs those pages, never their contents (zero, or
        // not yet written).
        // Its failure (no huge pages here) leaves things as they were, so it is ignored.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_start: *const u8, _bytes: usize) {}
