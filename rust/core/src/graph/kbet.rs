//! kBET (Büttner et al. 2019) as scib-metrics' `kbet` computes it: each cell's
//! neighbourhood (its row of the graph) tested against the batches' shares of all cells,
//! the statistic `Σ_b (c_b − k·f_b)² / (k·f_b)` over every batch `b` (`c_b` the row's
//! neighbours in `b`, `k` the row's length, `f_b` the share of all cells in `b`), its
//! p-value the chi-square upper tail with `B − 1` degrees of freedom.
//!
//! Where the cell itself is not stored among its neighbours (scanpy's distance matrix),
//! `with_self` counts it as one more neighbour, as scib-metrics' `NeighborsResults` holds
//! it, so that both forms of one k-nearest-neighbour search give the same values.

use crate::alloc;
use crate::error::Error;

use super::gamma::gammaincc;
use super::rows::{check_codes, map_rows, with_narrow_codes, Code, Distance, Graph, Index};

/// Up to this many batches a row's statistic sums over every batch in order, as
/// scib-metrics does; above it, over the batches the row meets (and the rest at once).
const DENSE: usize = 64;

/// Each cell's kBET statistic and p-value (`2n` values: statistic, p-value, cell by
/// cell) of the batches `codes` (`0..n_batches`, one a cell) over the graph.
pub fn kbet<I: Index, D: Distance>(
    graph: &Graph<'_, I, D>,
    codes: &[i64],
    n_batches: usize,
    with_self: bool,
) -> Result<Vec<f64>, Error> {
    check_codes(codes, graph.n(), n_batches)?;
    with_narrow_codes!(codes, n_batches, |narrow| kbet_of(
        graph, &narrow, n_batches, with_self
    ))
}

fn kbet_of<I: Index, D: Distance, C: Code>(
    graph: &Graph<'_, I, D>,
    codes: &[C],
    n_batches: usize,
    with_self: bool,
) -> Result<Vec<f64>, Error> {
    let n = graph.n();
    let mut freq = alloc::filled(n_batches, 0.0f64, "the batches' shares")?;
    for &c in codes {
        freq[c.at()] += 1.0;
    }
    freq.iter_mut().for_each(|f| *f /= n as f64);
    let a = (n_batches as f64 - 1.0) / 2.0;
    let widest = graph.widest() + 1;
    let freq = &freq;
    map_rows(n, 2, 0.0f64, "the cells' kBET statistics", |rows, out| {
        let mut nb = alloc::with_capacity(widest, "a row's neighbours")?;
        let mut count = alloc::filled(n_batches, 0u32, "a row's batch counts")?;
        let mut touched = alloc::with_capacity(widest, "a row's batches")?;
        for (i, o) in rows.zip(out.chunks_exact_mut(2)) {
            graph.neighbours(i, &mut nb)?;
            graph.check_distances(i)?;
            if with_self && !nb.contains(&i) {
                nb.push(i);
            }
            let k = nb.len() as f64;
            let stat = if n_batches <= DENSE {
                // No branch on a neighbour's batch: the reads of the batches overlap.
                for &j in &nb {
                    count[codes[j].at()] += 1;
                }
                let mut s = 0.0;
                for (c, &f) in count.iter_mut().zip(freq.iter()) {
                    let e = f * k;
                    let r = f64::from(*c) - e;
                    s += r * r / e;
                    *c = 0;
                }
                s
            } else {
                touched.clear();
                for &j in &nb {
                    let b = codes[j].at();
                    if count[b] == 0 {
                        touched.push(b);
                    }
                    count[b] += 1;
                }
                let mut s = 0.0;
                let mut met = 0.0;
                for &b in &touched {
                    let e = freq[b] * k;
                    let r = f64::from(count[b]) - e;
                    s += r * r / e;
                    met += freq[b];
                    count[b] = 0;
                }
                s + k * (1.0 - met).max(0.0)
            };
            o[0] = stat;
            o[1] = gammaincc(a, stat / 2.0);
        }
        Ok(())
    })
}
