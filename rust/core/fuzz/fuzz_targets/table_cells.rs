//! Tables given by cells (as a user hands over a contingency matrix): built with exactly
//! the given cells, or refused with the right error; every score finite and in range.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/mod.rs"]
mod common;

fuzz_target!(|input: (u8, u8, Vec<(i8, i8, i64)>)| {
    let (n_rows, n_cols, cells) = input;
    let cells: Vec<(i64, i64, i64)> = cells
        .into_iter()
        .map(|(r, c, v)| (i64::from(r), i64::from(c), v))
        .collect();
    common::check_from_cells(usize::from(n_rows % 64), usize::from(n_cols % 64), &cells);
});
