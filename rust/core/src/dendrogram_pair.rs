//! Every cut of two dendrograms over the same samples, compared: both trees' merges applied
//! in turn, each updating the sums of the table of the two cuts (rows: the first tree's
//! clusters, columns: the second's) that Fowlkes & Mallows' B_k and the other measures of
//! pair counts and entropies come from.
//!
//! A merge in one tree joins two rows (or two columns) of the table. Each cluster keeps its
//! cells as a map from the other tree's clusters to counts, and each map entry is mirrored
//! in the other tree's map, so the cells of the smaller cluster (by samples) are added into
//! the larger's, and moved in the mirrors, in time proportional to the smaller's size: each
//! sample's cell moves O(log n) times per tree, the whole curve costs O(n log n), where
//! re-cutting both trees and counting each k's table costs O(n) per k.
//!
//! A cluster of one sample keeps no map (it would be most of them early on): its one cell is
//! with the other tree's cluster holding that sample, found through a union-find of the
//! samples whose roots are the clusters.

use foldhash::fast::FixedState;
use hashbrown::HashMap;

use crate::alloc;
use crate::dendrogram::{check_tree, Nodes};
use crate::error::Error;
use crate::numeric::{ln_count, Sum};
use crate::stop;

/// The sums of the table of two cuts.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PairCutSums {
    /// Merges applied in each tree: the cuts have `n - merges` clusters.
    pub merges: (usize, usize),
    /// Non-zero cells.
    pub nnz: u64,
    /// `Σ n_ij²` over the cells.
    pub cells_sq: u128,
    /// `Σ a_i²` over the first cut's clusters (the rows).
    pub rows_sq: u128,
    /// `Σ b_j²` over the second cut's clusters (the columns).
    pub cols_sq: u128,
    /// `Σ a_i (a_i - 1) (a_i - 2)` over the rows (Fowlkes & Mallows' variance needs it).
    pub rows_cubed: u128,
    /// `Σ b_j (b_j - 1) (b_j - 2)` over the columns.
    pub cols_cubed: u128,
    /// `Σ n_ij ln n_ij` over the cells.
    pub cells_xlnx: f64,
    /// `Σ a_i ln a_i` over the rows.
    pub rows_xlnx: f64,
    /// `Σ b_j ln b_j` over the columns.
    pub cols_xlnx: f64,
}

/// The cells of a cluster: the other tree's clusters it shares samples with, and how many.
type Cells = HashMap<u32, u64, FixedState>;

/// One tree being replayed.
struct Tree<'a> {
    merges: &'a [(u64, u64)],
    order: &'a [usize],
    done: usize,
    nodes: Nodes<u32>,
    /// Union-find of the samples: a root is a cluster, named by that sample.
    parent: Vec<u32>,
    /// Samples in each cluster (by its root).
    size: Vec<u64>,
    /// Cells of each cluster of more than one sample (by its root).
    cells: Vec<Option<Cells>>,
    sq: u128,
    cubed: u128,
    xlnx: Sum,
}

impl<'a> Tree<'a> {
    fn new(n: usize, merges: &'a [(u64, u64)], order: &'a [usize]) -> Result<Self, Error> {
        const WHAT: &str = "a dendrogram's clusters";
        Ok(Tree {
            merges,
            order,
            done: 0,
            nodes: Nodes::new(n, merges.len())?,
            parent: alloc::collect(0..n as u32, WHAT)?,
            size: alloc::filled(n, 1, WHAT)?,
            cells: alloc::collect((0..n).map(|_| None), WHAT)?,
            sq: n as u128,
            cubed: 0,
            xlnx: Sum::default(),
        })
    }

    /// The cluster that holds sample `i`.
    fn find(&mut self, mut i: u32) -> u32 {
        while self.parent[i as usize] != i {
            let up = self.parent[self.parent[i as usize] as usize];
            self.parent[i as usize] = up;
            i = up;
        }
        i
    }
}

/// The sums of `Σ n_ij²`, `Σ n_ij ln n_ij` and the non-zero cells, shared by both trees.
struct Shared {
    nnz: u64,
    cells_sq: u128,
    cells_xlnx: Sum,
}

fn xlnx(x: u64) -> f64 {
    if x > 1 {
        x as f64 * ln_count(x)
    } else {
        0.0
    }
}

fn cubed(x: u64) -> u128 {
    u128::from(x) * u128::from(x.saturating_sub(1)) * u128::from(x.saturating_sub(2))
}

/// What the merges' maps of cells build, when refused.
const WHAT: &str = "the cells of a dendrogram's clusters";

/// Applies `this` tree's next merge; `other` is the other tree, whose maps mirror the cells.
fn merge_next(this: &mut Tree, other: &mut Tree, shared: &mut Shared) -> Result<(), Error> {
    let m = this.order[this.done];
    this.done += 1;
    let (a, b) = this.nodes.take_merge(this.merges, m, |i| Ok(i as u32))?;
    let (big, small) = if this.size[a as usize] >= this.size[b as usize] {
        (a, b)
    } else {
        (b, a)
    };
    let single = |cluster: u32, other: &mut Tree| -> Result<Cells, Error> {
        let mut cells = Cells::default();
        alloc::reserve_map(&mut cells, 1, WHAT)?;
        cells.insert(other.find(cluster), 1);
        Ok(cells)
    };
    let small_cells = match this.cells[small as usize].take() {
        Some(cells) => cells,
        None => single(small, other)?,
    };
    let mut big_cells = match this.cells[big as usize].take() {
        Some(cells) => cells,
        None => single(big, other)?,
    };
    alloc::reserve_map(&mut big_cells, small_cells.len(), WHAT)?;
    for (&j, &x) in &small_cells {
        let cell = big_cells.entry(j).or_insert(0);
        let old = *cell;
        *cell = old + x;
        if old > 0 {
            shared.nnz -= 1;
            shared.cells_sq += 2 * u128::from(old) * u128::from(x);
            shared.cells_xlnx.add(xlnx(old + x) - xlnx(old) - xlnx(x));
        }
        // The mirror; a cluster of one sample has none (its sample is now in `big`).
        if let Some(mirror) = other.cells[j as usize].as_mut() {
            // Removing `small` leaves room for `big`.
            mirror.remove(&small);
            *mirror.entry(big).or_insert(0) += x;
        }
    }
    let (x, y) = (this.size[big as usize], this.size[small as usize]);
    this.sq += 2 * u128::from(x) * u128::from(y);
    this.cubed = this.cubed + cubed(x + y) - cubed(x) - cubed(y);
    this.xlnx.add(xlnx(x + y) - xlnx(x) - xlnx(y));
    this.size[big as usize] = x + y;
    this.parent[small as usize] = big;
    this.cells[big as usize] = Some(big_cells);
    this.nodes.form(m, big);
    Ok(())
}

/// The sums of the tables of the cuts after `steps[0]`, `steps[1]`, ... merges of each tree
/// (pairs ascending in both), the merges applied in each tree's `order`.
///
/// Each tree is given as in [`dendrogram_cuts`](crate::dendrogram_cuts) over the same `n`
/// samples (leaf `i` is sample `i` in both). A tree that breaks its rules, or steps that
/// are not in order, is [`Error::BadTree`].
pub fn dendrogram_pair_cuts(
    n: usize,
    first: (&[(u64, u64)], &[usize]),
    second: (&[(u64, u64)], &[usize]),
    steps: &[(usize, usize)],
) -> Result<Vec<PairCutSums>, Error> {
    if u32::try_from(n).is_err() {
        return Err(Error::BadTree(format!("{n} samples: at most 2**32 - 1")));
    }
    const STEPS: &str = "the cuts of a pair of dendrograms";
    let firsts = alloc::collect(steps.iter().map(|s| s.0), STEPS)?;
    let seconds = alloc::collect(steps.iter().map(|s| s.1), STEPS)?;
    check_tree(n, first.0, first.1, &firsts)?;
    check_tree(n, second.0, second.1, &seconds)?;
    let mut one = Tree::new(n, first.0, first.1)?;
    let mut two = Tree::new(n, second.0, second.1)?;
    let mut shared = Shared {
        nnz: n as u64,
        cells_sq: n as u128,
        cells_xlnx: Sum::default(),
    };
    drop((firsts, seconds));
    let mut out = alloc::with_capacity(steps.len(), STEPS)?;
    let mut applied = 0usize;
    for &(s1, s2) in steps {
        while one.done < s1 || two.done < s2 {
            if applied.is_multiple_of(4096) {
                stop::check()?;
            }
            applied += 1;
            if one.done < s1 {
                merge_next(&mut one, &mut two, &mut shared)?;
            } else {
                merge_next(&mut two, &mut one, &mut shared)?;
            }
        }
        out.push(PairCutSums {
            merges: (one.done, two.done),
            nnz: shared.nnz,
            cells_sq: shared.cells_sq,
            rows_sq: one.sq,
            cols_sq: two.sq,
            rows_cubed: one.cubed,
            cols_cubed: two.cubed,
            cells_xlnx: shared.cells_xlnx.value(),
            rows_xlnx: one.xlnx.value(),
            cols_xlnx: two.xlnx.value(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::count;
    use crate::scores::pair_sums;
    use crate::testing::{cut, random_tree, xorshift};

    #[test]
    fn every_pair_of_cuts_has_the_sums_of_its_counted_table() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        for n in [1usize, 2, 3, 8, 61, 300] {
            let (t1, t2) = (random_tree(n, &mut next), random_tree(n, &mut next));
            let order: Vec<usize> = (0..n - 1).collect();
            // Every k, and a path that moves one tree well ahead of the other.
            let same: Vec<(usize, usize)> = (0..n).map(|s| (s, s)).collect();
            let skewed: Vec<(usize, usize)> = (0..n).map(|s| ((s * 2).min(n - 1), s / 2)).collect();
            for steps in [same, skewed] {
                let got = dendrogram_pair_cuts(n, (&t1, &order), (&t2, &order), &steps)
                    .expect("valid trees");
                for (&(s1, s2), sums) in steps.iter().zip(&got) {
                    let (a, b) = (cut(n, &t1, &order, s1), cut(n, &t2, &order, s2));
                    let t = count(&a, &b).unwrap();
                    let p = pair_sums(&t);
                    assert_eq!(sums.merges, (s1, s2));
                    assert_eq!(sums.nnz, t.cell_count.len() as u64);
                    assert_eq!(sums.cells_sq, p.cells_sq);
                    assert_eq!(sums.rows_sq, p.rows_sq);
                    assert_eq!(sums.cols_sq, p.cols_sq);
                    let cubes = |xs: &[u64]| xs.iter().map(|&x| cubed(x)).sum::<u128>();
                    assert_eq!(sums.rows_cubed, cubes(&t.row_sums));
                    assert_eq!(sums.cols_cubed, cubes(&t.col_sums));
                    let xlnx = |xs: &[u64]| -> f64 {
                        xs.iter().map(|&x| x as f64 * (x as f64).ln()).sum()
                    };
                    for (got, want) in [
                        (sums.cells_xlnx, xlnx(&t.cell_count)),
                        (sums.rows_xlnx, xlnx(&t.row_sums)),
                        (sums.cols_xlnx, xlnx(&t.col_sums)),
                    ] {
                        assert!((got - want).abs() <= 1e-9 * want.max(1.0), "{got} {want}");
                    }
                }
            }
        }
    }

    #[test]
    fn bad_trees_and_steps_are_refused() {
        let good = [(0u64, 1u64), (2, 3)];
        let order = [0usize, 1];
        for bad in [[(0u64, 1u64), (1, 2)], [(0, 3), (1, 2)], [(0, 1), (2, 7)]] {
            for (one, two) in [(&bad, &good), (&good, &bad)] {
                let got = dendrogram_pair_cuts(3, (one, &order), (two, &order), &[(2, 2)]);
                assert!(matches!(got, Err(Error::BadTree(_))), "{bad:?}");
            }
        }
        let got = dendrogram_pair_cuts(3, (&good, &order), (&good, &order), &[(2, 1), (1, 2)]);
        assert!(matches!(got, Err(Error::BadTree(_))));
        let got = dendrogram_pair_cuts(3, (&good, &order), (&good[..1], &order[..1]), &[]);
        assert!(matches!(got, Err(Error::BadTree(_))));
    }
}
