//! The graph as the kernels read it: for each cell its neighbours' indices and their
//! distances, `k` a row ([`Rows::Fixed`], scib-metrics' `NeighborsResults`) or rows of
//! their own lengths between offsets ([`Rows::Offsets`], a CSR matrix's `indptr`, as
//! scanpy's `obsp["distances"]` holds it). A row is checked as it is read: each index a
//! cell of the graph, each distance finite and non-negative.

use std::ops::Range;

use rayon::prelude::*;

use crate::alloc;
use crate::error::Error;
use crate::pool;
use crate::stop;

/// A neighbour's index as stored (`int32` or `int64`).
pub trait Index: Copy + Send + Sync {
    fn get(self) -> i64;
}

impl Index for i32 {
    #[inline]
    fn get(self) -> i64 {
        i64::from(self)
    }
}

impl Index for i64 {
    #[inline]
    fn get(self) -> i64 {
        self
    }
}

/// A distance as stored (`float32` or `float64`), read as `f64`.
pub trait Distance: Copy + Send + Sync {
    fn get(self) -> f64;
}

impl Distance for f32 {
    #[inline]
    fn get(self) -> f64 {
        f64::from(self)
    }
}

impl Distance for f64 {
    #[inline]
    fn get(self) -> f64 {
        self
    }
}

/// Where each row's neighbours lie in the graph's arrays.
#[derive(Debug, Clone, Copy)]
pub enum Rows<'a> {
    /// `k` neighbours a row: row `i` is `i·k..(i+1)·k`.
    Fixed(usize),
    /// Row `i` is `offsets[i]..offsets[i + 1]` (`n + 1` offsets from 0, never decreasing).
    Offsets(&'a [i64]),
}

/// A neighbour graph of `n` cells.
#[derive(Debug, Clone, Copy)]
pub struct Graph<'a, I, D> {
    n: usize,
    rows: Rows<'a>,
    indices: &'a [I],
    distances: &'a [D],
}

fn bad(what: String) -> Error {
    Error::BadShape(what)
}

impl<'a, I: Index, D: Distance> Graph<'a, I, D> {
    /// The graph of `n` cells whose rows `rows` cut `indices` and `distances` (as long as
    /// each other); the rows' values are checked as the kernels read them.
    pub fn new(
        n: usize,
        rows: Rows<'a>,
        indices: &'a [I],
        distances: &'a [D],
    ) -> Result<Self, Error> {
        if indices.len() != distances.len() {
            return Err(bad(format!(
                "{} neighbour indices but {} distances",
                indices.len(),
                distances.len()
            )));
        }
        match rows {
            Rows::Fixed(k) => {
                if n.checked_mul(k) != Some(indices.len()) {
                    return Err(bad(format!(
                        "{n} cells of {k} neighbours need {} indices, not {}",
                        n.saturating_mul(k),
                        indices.len()
                    )));
                }
            }
            Rows::Offsets(offsets) => {
                if offsets.len() != n + 1 {
                    return Err(bad(format!(
                        "a graph of {n} cells needs {} row offsets, not {}",
                        n + 1,
                        offsets.len()
                    )));
                }
                if offsets[0] != 0 || offsets[n] != indices.len() as i64 {
                    return Err(bad(format!(
                        "row offsets must run from 0 to the {} neighbours",
                        indices.len()
                    )));
                }
                if offsets.windows(2).any(|w| w[1] < w[0]) {
                    return Err(bad("row offsets must never decrease".to_string()));
                }
            }
        }
        Ok(Graph {
            n,
            rows,
            indices,
            distances,
        })
    }

    /// The number of cells.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The most neighbours of any row.
    pub fn widest(&self) -> usize {
        match self.rows {
            Rows::Fixed(k) => k,
            Rows::Offsets(o) => o
                .windows(2)
                .map(|w| (w[1] - w[0]) as usize)
                .max()
                .unwrap_or(0),
        }
    }

    /// Where row `i` lies in the arrays.
    #[inline]
    fn range(&self, i: usize) -> Range<usize> {
        match self.rows {
            Rows::Fixed(k) => i * k..(i + 1) * k,
            Rows::Offsets(o) => o[i] as usize..o[i + 1] as usize,
        }
    }

    /// Row `i`'s neighbours, checked (each a cell of the graph).
    #[inline]
    pub(crate) fn neighbours(&self, i: usize, out: &mut Vec<usize>) -> Result<(), Error> {
        out.clear();
        for &j in &self.indices[self.range(i)] {
            let j = j.get();
            if j < 0 || j as u64 >= self.n as u64 {
                return Err(bad(format!(
                    "cell {i} has the neighbour index {j}, not a cell of a graph of {} cells",
                    self.n
                )));
            }
            out.push(j as usize);
        }
        Ok(())
    }

    /// Row `i`'s distances checked (each finite and not negative), not copied: one loop
    /// without a branch, then the first bad one found where there is one.
    #[inline]
    pub(crate) fn check_distances(&self, i: usize) -> Result<(), Error> {
        let row = &self.distances[self.range(i)];
        let good = |d: f64| (0.0..=f64::MAX).contains(&d);
        if row.iter().fold(true, |ok, &d| ok & good(d.get())) {
            return Ok(());
        }
        let d = row
            .iter()
            .map(|d| d.get())
            .find(|&d| !good(d))
            .unwrap_or(f64::NAN);
        Err(bad(format!(
            "cell {i} has the distance {d} to a neighbour: distances must be finite and \
             non-negative"
        )))
    }

    /// Row `i`'s neighbours and their distances, checked (each distance finite and not
    /// negative).
    #[inline]
    pub(crate) fn row(
        &self,
        i: usize,
        nb: &mut Vec<usize>,
        dist: &mut Vec<f64>,
    ) -> Result<(), Error> {
        self.neighbours(i, nb)?;
        dist.clear();
        for &d in &self.distances[self.range(i)] {
            let d = d.get();
            if !(d.is_finite() && d >= 0.0) {
                return Err(bad(format!(
                    "cell {i} has the distance {d} to a neighbour: distances must be finite and \
                     non-negative"
                )));
            }
            dist.push(d);
        }
        Ok(())
    }
}

/// Rows per chunk of the pass: a few thousand, and no more than 256 chunks.
fn chunk_rows(n: usize) -> usize {
    (1usize << 12).max(n.div_ceil(256)).max(1)
}

/// `width` values a row for each of `n` rows: `f(rows, out)` fills the values of a chunk
/// of rows, on the pool where it has several threads. Each row's values are its own, so
/// the result is the same for any number of threads; the error is the first chunk's.
pub(crate) fn map_rows<T: Copy + Send + Sync>(
    n: usize,
    width: usize,
    zero: T,
    what: &'static str,
    f: impl Fn(Range<usize>, &mut [T]) -> Result<(), Error> + Sync + Send,
) -> Result<Vec<T>, Error> {
    let mut out = alloc::filled(n * width, zero, what)?;
    let rows = chunk_rows(n);
    let one = |(c, part): (usize, &mut [T])| {
        stop::check()?;
        let start = c * rows;
        f(start..start + part.len() / width.max(1), part)
    };
    let results: Vec<Result<(), Error>> = if pool::threads() > 1 && n > rows {
        pool::run(|| {
            out.par_chunks_mut(rows * width.max(1))
                .enumerate()
                .map(one)
                .collect()
        })
    } else {
        out.chunks_mut(rows * width.max(1))
            .enumerate()
            .map(one)
            .collect()
    };
    results.into_iter().collect::<Result<(), Error>>()?;
    Ok(out)
}

/// `f(rows)` for each chunk of the `n` rows (the chunks of [`map_rows`]), on the pool where
/// it has several threads: the chunks' results in row order, or the first chunk's error.
pub(crate) fn map_chunks<T: Send>(
    n: usize,
    f: impl Fn(Range<usize>) -> Result<T, Error> + Sync + Send,
) -> Result<Vec<T>, Error> {
    let rows = chunk_rows(n);
    let one = |c: usize| {
        stop::check()?;
        f(c * rows..((c + 1) * rows).min(n))
    };
    let chunks = n.div_ceil(rows);
    let results: Vec<Result<T, Error>> = if pool::threads() > 1 && n > rows {
        pool::run(|| (0..chunks).into_par_iter().map(one).collect())
    } else {
        (0..chunks).map(one).collect()
    };
    results.into_iter().collect()
}

/// A label code narrowed to the fewest bytes that hold every label's ([`narrow`]).
pub(crate) trait Code: Copy + Send + Sync + TryFrom<i64> {
    fn at(self) -> usize;
}

macro_rules! code {
    ($($t:ty),*) => {$(
        impl Code for $t {
            #[inline(always)]
            fn at(self) -> usize {
                self as usize
            }
        }
    )*};
}
code!(u8, u16, u32, u64);

/// `codes` (checked: each in `0..n_labels`) as `C`: a kernel's reads of its neighbours'
/// labels, in a random order, then come from a table that fits in cache (1 MB for 1e6
/// cells of at most 256 labels, against 8 MB as `i64`).
pub(crate) fn narrow<C: Code>(codes: &[i64]) -> Result<Vec<C>, Error> {
    let mut out = alloc::with_capacity(codes.len(), "the cells' labels")?;
    for &c in codes {
        let Ok(c) = C::try_from(c) else {
            return Err(bad(format!("the label code {c} is out of range")));
        };
        out.push(c);
    }
    Ok(out)
}

/// `f` called with `codes` narrowed to the fewest bytes that hold `n_labels` labels.
macro_rules! with_narrow_codes {
    ($codes:expr, $n_labels:expr, |$c:ident| $body:expr) => {{
        let n_labels: usize = $n_labels;
        if n_labels <= usize::from(u8::MAX) + 1 {
            let $c = $crate::graph::rows::narrow::<u8>($codes)?;
            $body
        } else if n_labels <= usize::from(u16::MAX) + 1 {
            let $c = $crate::graph::rows::narrow::<u16>($codes)?;
            $body
        } else if u32::try_from(n_labels).is_ok() {
            let $c = $crate::graph::rows::narrow::<u32>($codes)?;
            $body
        } else {
            let $c = $crate::graph::rows::narrow::<u64>($codes)?;
            $body
        }
    }};
}
pub(crate) use with_narrow_codes;

/// `codes` is one code a cell of `n`, each in `0..n_labels`.
pub(crate) fn check_codes(codes: &[i64], n: usize, n_labels: usize) -> Result<(), Error> {
    if codes.len() != n {
        return Err(bad(format!(
            "labels of {} cells for a graph of {n} cells",
            codes.len()
        )));
    }
    if codes.iter().any(|&c| c < 0 || c as u64 >= n_labels as u64) {
        return Err(bad(format!("label codes must lie in 0..{n_labels}")));
    }
    Ok(())
}

/// Every row of the graph checked ([`Graph::row`]), on the pool.
pub(crate) fn check_all<I: Index, D: Distance>(graph: &Graph<'_, I, D>) -> Result<(), Error> {
    let widest = graph.widest();
    map_rows(graph.n(), 1, 0u8, "the rows' checks", |rows, _| {
        let mut nb = alloc::with_capacity(widest, "a row's neighbours")?;
        let mut dist = alloc::with_capacity(widest, "a row's distances")?;
        for i in rows {
            graph.row(i, &mut nb, &mut dist)?;
        }
        Ok(())
    })?;
    Ok(())
}

impl<I: Index, D: Distance> Graph<'_, I, D> {
    /// Row `i`'s neighbours as stored, unchecked (after [`check_all`]).
    #[inline]
    pub(crate) fn raw(&self, i: usize) -> &[I] {
        &self.indices[self.range(i)]
    }
}
