//! Large zeroed arrays on huge pages. Where Linux gives huge pages only to memory that
//! asks for them (`transparent_hugepage` set to `madvise`, as on this project's machines and
//! many distributions), each 4 kB page of a fresh array costs a fault and its zeroing when
//! first written: for the hundred megabytes of a wide table's cells, longer than counting
//! them. Asked for, the kernel maps 2 MB at a fault (as NumPy asks for its large arrays):
//! the full table of a million labels a side at 1e7 was counted in 270 ms, against 350 ms
//! on 4 kB pages.

/// Arrays from this many bytes ask for huge pages.
const HUGE_FROM: usize = 4 << 20;
/// The size of a huge page (x86-64 and most aarch64 kernels).
const HUGE_PAGE: usize = 2 << 20;

/// Element types whose all-zero bytes are the value 0.
pub(crate) trait Zero: Copy {
    fn zeroed(len: usize) -> Vec<Self>;
}

macro_rules! zero {
    ($($t:ty),*) => {$(
        impl Zero for $t {
            fn zeroed(len: usize) -> Vec<Self> {
                // Allocated zeroed (fresh pages of a large allocation are not touched).
                vec![0; len]
            }
        }
    )*};
}

zero!(u16, u32, u64);

impl Zero for f64 {
    fn zeroed(len: usize) -> Vec<Self> {
        vec![0.0; len]
    }
}

/// `len` zeros, on huge pages where the kernel has them and the array is large.
pub(crate) fn zeroed<T: Zero>(len: usize) -> Vec<T> {
    let v = T::zeroed(len);
    advise(v.as_ptr().cast(), len * std::mem::size_of::<T>());
    v
}

/// An empty vector with room for `len` values, on huge pages where the kernel has them and
/// the room is large: for arrays filled by pushing, such as a gathered column.
pub(crate) fn with_capacity<T>(len: usize) -> Vec<T> {
    let v: Vec<T> = Vec::with_capacity(len);
    advise(v.as_ptr().cast(), len * std::mem::size_of::<T>());
    v
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
