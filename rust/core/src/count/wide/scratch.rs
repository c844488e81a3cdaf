//! A counting thread's buffers, kept from one range to the next.

/// A counting thread's buffers: the dense counts and their cells, the samples to sort and
/// their copy, a marked range's bitmaps, or a hashed range's tables (`quotients`, then
/// `slots`, with its samples left and spilled in `keys` and `spare`, and its repeats in
/// `hist`).
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) counts: Vec<u32>,
    pub(super) cells: Vec<(u32, u32)>,
    pub(super) keys: Vec<u32>,
    pub(super) spare: Vec<u32>,
    pub(super) hist: Vec<u32>,
    pub(super) marks: Vec<u64>,
    pub(super) slots: Vec<u32>,
    pub(super) quotients: Vec<u16>,
}
