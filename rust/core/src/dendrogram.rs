//! Every cut of a dendrogram against one labeling: the merges applied one at a time, each
//! updating the sums of the cut's contingency table (rows: the labeling's classes,
//! columns: the cut's clusters) that the measures come from.
//!
//! Merging two clusters changes only their two columns, which become one. The smaller
//! column's cells (by the number of its classes) are added into the larger one's, so each
//! sample's cell moves O(log n) times in all; every sum below is updated by the cells that
//! changed, and the expected mutual information by the three columns (it is a sum over
//! columns of a function of the column's size, kept once per size).

use foldhash::fast::FixedState;
use hashbrown::HashMap;

use crate::alloc;
use crate::emi::{emi_of_sizes, size_counts};
use crate::error::Error;
use crate::numeric::{ln_count, Sum};
use crate::stop;

/// The sums of one cut's table that its measures need.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CutSums {
    /// Merges applied: the cut has `n - merges` clusters (counting those whose samples
    /// are all uncounted).
    pub merges: usize,
    /// Clusters holding a counted sample: the table's columns.
    pub clusters: u64,
    /// Non-zero cells.
    pub nnz: u64,
    /// `Σ n_ij²` over the cells.
    pub cells_sq: u128,
    /// `Σ b_j²` over the columns.
    pub cols_sq: u128,
    /// `Σ n_ij ln n_ij` over the cells.
    pub cells_xlnx: f64,
    /// `Σ b_j ln b_j` over the columns.
    pub cols_xlnx: f64,
    /// `Σ_j max_i n_ij`: the samples in their cluster's majority class (purity's).
    pub majority: u64,
    /// `Σ_i max_j n_ij`: the samples in their class's largest cluster (inverse purity's).
    pub best_cluster: u64,
    /// The expected mutual information of the cut's table under the hypergeometric model
    /// (its sum over columns, without the conventions of one row or one column); 0 unless
    /// asked for.
    pub emi: f64,
}

/// A cluster being built: its cells (class -> count), size and largest cell.
#[derive(Default)]
struct Cluster {
    cells: HashMap<u32, u64, FixedState>,
    size: u64,
    max: u64,
}

/// The sums of the cuts after `record[0]`, `record[1]`, ... merges (ascending, each at most
/// `merges.len()`), when the merges are applied in `order`.
///
/// `classes[i]` is the class (`0..n_classes`) of leaf `i`, or `u32::MAX` for a sample not
/// counted (a missing label); `merges[m]` joins two nodes, a node `< n` being a leaf and
/// `n + m'` the cluster that merge `m'` formed (scipy's linkage, scikit-learn's
/// `children_`); `order` is a permutation of the merges in which each merge comes after
/// those that formed its two nodes. With `emi`, each cut's expected mutual information
/// as well. A tree that breaks these rules is [`Error::BadTree`].
pub fn dendrogram_cuts(
    classes: &[u32],
    n_classes: usize,
    merges: &[(u64, u64)],
    order: &[usize],
    record: &[usize],
    emi: bool,
) -> Result<Vec<CutSums>, Error> {
    let n = classes.len();
    check_tree(n, merges, order, record)?;
    let mut row_sums = alloc::filled(n_classes, 0u64, "the class sizes of a dendrogram's samples")?;
    for &c in classes {
        if c != u32::MAX {
            *row_sums
                .get_mut(c as usize)
                .ok_or_else(|| Error::BadTree(format!("class {c} of {n_classes}")))? += 1;
        }
    }
    let counted: u64 = row_sums.iter().sum();
    let rows = size_counts(&row_sums)?;
    let rows_nonempty = row_sums.iter().filter(|&&a| a > 0).count();
    let mut expected = Expected {
        rows: &rows,
        n: counted,
        sizes: HashMap::default(),
        on: emi && rows_nonempty > 1,
    };
    let xlnx = |x: u64| if x > 1 { x as f64 * ln_count(x) } else { 0.0 };

    // The cut of no merges: every counted sample alone.
    let mut sums = CutSums {
        merges: 0,
        clusters: counted,
        nnz: counted,
        cells_sq: u128::from(counted),
        cols_sq: u128::from(counted),
        cells_xlnx: 0.0,
        cols_xlnx: 0.0,
        majority: counted,
        best_cluster: rows_nonempty as u64,
        emi: 0.0,
    };
    let (mut cells_xlnx, mut cols_xlnx, mut emi_sum) =
        (Sum::default(), Sum::default(), Sum::default());
    emi_sum.add(counted as f64 * expected.of(1)?);
    let mut row_max = alloc::collect(
        row_sums.iter().map(|&a| a.min(1)),
        "the largest cell of each class of a dendrogram",
    )?;
    let mut nodes = Nodes::new(n, merges.len())?;
    // A leaf is made into a cluster when first merged.
    let leaf = |i: usize| {
        let mut leaf = Cluster::default();
        if classes[i] != u32::MAX {
            alloc::reserve_map(&mut leaf.cells, 1, "a dendrogram's leaf")?;
            leaf.cells.insert(classes[i], 1);
            leaf.size = 1;
            leaf.max = 1;
        }
        Ok(leaf)
    };
    let mut out = alloc::with_capacity(record.len(), "the sums of a dendrogram's cuts")?;
    let mut next = record.iter().peekable();
    for (step, &m) in order.iter().enumerate() {
        while next.next_if(|&&s| s == step).is_some() {
            out.push(sums.with(step, cells_xlnx, cols_xlnx, emi_sum));
        }
        if step % 4096 == 0 {
            stop::check()?;
        }
        let (a, b) = nodes.take_merge(merges, m, leaf)?;
        let (mut big, small) = if a.cells.len() >= b.cells.len() {
            (a, b)
        } else {
            (b, a)
        };
        let mut max = big.max.max(small.max);
        alloc::reserve_map(&mut big.cells, small.cells.len(), WHAT)?;
        for (&class, &x) in &small.cells {
            let cell = big.cells.entry(class).or_insert(0);
            let old = *cell;
            let new = old + x;
            *cell = new;
            if old > 0 {
                sums.nnz -= 1;
                sums.cells_sq += 2 * u128::from(old) * u128::from(x);
                cells_xlnx.add(xlnx(new) - xlnx(old) - xlnx(x));
            }
            max = max.max(new);
            let best = &mut row_max[class as usize];
            if new > *best {
                sums.best_cluster += new - *best;
                *best = new;
            }
        }
        sums.majority = sums.majority + max - big.max - small.max;
        let size = big.size + small.size;
        if big.size > 0 && small.size > 0 {
            sums.clusters -= 1;
            sums.cols_sq += 2 * u128::from(big.size) * u128::from(small.size);
            cols_xlnx.add(xlnx(size) - xlnx(big.size) - xlnx(small.size));
            emi_sum.add(expected.of(size)? - expected.of(big.size)? - expected.of(small.size)?);
        }
        big.size = size;
        big.max = max;
        nodes.form(m, big);
    }
    for _ in next {
        out.push(sums.with(order.len(), cells_xlnx, cols_xlnx, emi_sum));
    }
    Ok(out)
}

/// [`Error::BadTree`] unless `n` samples have `n - 1` merges, `order` is as long and
/// `record` ascends to at most `merges.len()`.
pub(crate) fn check_tree(
    n: usize,
    merges: &[(u64, u64)],
    order: &[usize],
    record: &[usize],
) -> Result<(), Error> {
    if merges.len() != n.saturating_sub(1) || order.len() != merges.len() {
        return Err(Error::BadTree(format!(
            "{} samples need {} merges in order; got {} merges and an order of {}",
            n,
            n.saturating_sub(1),
            merges.len(),
            order.len()
        )));
    }
    if record.windows(2).any(|w| w[0] > w[1]) || record.last().is_some_and(|&s| s > merges.len()) {
        return Err(Error::BadTree("the cuts to record are not in order".into()));
    }
    Ok(())
}

/// A tree's nodes as its merges take them: each node joined once, and the cluster of a
/// merge only after that merge formed it (`T`: what a cluster is to the caller).
pub(crate) struct Nodes<T> {
    n: usize,
    used: Vec<bool>,
    formed: Vec<Option<T>>,
}

impl<T> Nodes<T> {
    pub(crate) fn new(n: usize, merges: usize) -> Result<Self, Error> {
        const WHAT: &str = "a dendrogram's nodes";
        Ok(Nodes {
            n,
            used: alloc::filled(n.saturating_add(merges), false, WHAT)?,
            formed: alloc::collect((0..merges).map(|_| None), WHAT)?,
        })
    }

    /// The two clusters merge `m` joins, taken: `leaf(i)` for leaf `i`, the cluster an
    /// earlier merge formed otherwise.
    pub(crate) fn take_merge(
        &mut self,
        merges: &[(u64, u64)],
        m: usize,
        mut leaf: impl FnMut(usize) -> Result<T, Error>,
    ) -> Result<(T, T), Error> {
        let &(left, right) = merges
            .get(m)
            .ok_or_else(|| Error::BadTree(format!("merge {m} of {} in the order", merges.len())))?;
        let bad = |what: String| Error::BadTree(format!("merge {m} joins {what}"));
        let a = self.take(left, &mut leaf).map_err(bad)??;
        let b = self.take(right, &mut leaf).map_err(bad)??;
        Ok((a, b))
    }

    /// Node `node`, a leaf made by `leaf` (which may be refused memory) or the cluster a
    /// merge formed; a description of the node if the tree breaks a rule there.
    fn take(
        &mut self,
        node: u64,
        leaf: &mut impl FnMut(usize) -> Result<T, Error>,
    ) -> Result<Result<T, Error>, String> {
        let node = usize::try_from(node).unwrap_or(usize::MAX);
        if node >= self.used.len() {
            return Err(format!(
                "node {node}, but the nodes are 0 to {}",
                self.used.len() - 1
            ));
        }
        if self.used[node] {
            return Err(format!(
                "node {node}, which an earlier merge (or this one) joined"
            ));
        }
        self.used[node] = true;
        if node < self.n {
            Ok(leaf(node))
        } else {
            self.formed[node - self.n].take().map(Ok).ok_or_else(|| {
                format!(
                    "node {node}, the cluster of merge {}, which comes later",
                    node - self.n
                )
            })
        }
    }

    /// Merge `m` formed `cluster`.
    pub(crate) fn form(&mut self, m: usize, cluster: T) {
        self.formed[m] = Some(cluster);
    }
}

impl CutSums {
    /// These sums after `merges` merges, with the compensated sums' values.
    fn with(&self, merges: usize, cells: Sum, cols: Sum, emi: Sum) -> CutSums {
        CutSums {
            merges,
            cells_xlnx: cells.value(),
            cols_xlnx: cols.value(),
            emi: emi.value(),
            ..*self
        }
    }
}

/// What the merges' maps of cells build, when refused.
const WHAT: &str = "the cells of a dendrogram's clusters";

/// A column's share of the expected mutual information, by its size (kept once per size).
struct Expected<'a> {
    rows: &'a [(u64, u64)],
    n: u64,
    sizes: HashMap<u64, f64, FixedState>,
    on: bool,
}

impl Expected<'_> {
    fn of(&mut self, size: u64) -> Result<f64, Error> {
        if !self.on || size == 0 {
            return Ok(0.0);
        }
        let (rows, n) = (self.rows, self.n);
        alloc::room_for_one(
            &mut self.sizes,
            "the expected information of a dendrogram's sizes",
        )?;
        if let Some(&known) = self.sizes.get(&size) {
            return Ok(known);
        }
        let emi = emi_of_sizes(rows, &[(size, 1)], n)?;
        self.sizes.insert(size, emi);
        Ok(emi)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::count;
    use crate::scores::{expected_mutual_info, pair_sums, purity};
    use crate::testing::{cut, random_tree, xorshift};

    #[test]
    fn every_cut_has_the_sums_of_its_counted_table() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for (n, k) in [(2, 1), (7, 3), (60, 4), (300, 9)] {
            let classes: Vec<u32> = (0..n).map(|_| (next() % k) as u32).collect();
            let merges = random_tree(n, &mut next);
            let order: Vec<usize> = (0..n - 1).collect();
            let record: Vec<usize> = (0..n).collect();
            let cuts = dendrogram_cuts(&classes, k as usize, &merges, &order, &record, true)
                .expect("a valid tree");
            let truth: Vec<i64> = classes.iter().map(|&c| i64::from(c)).collect();
            for (s, sums) in cuts.iter().enumerate() {
                let t = count(&truth, &cut(n, &merges, &order, s)).unwrap();
                let p = pair_sums(&t);
                assert_eq!(sums.merges, s);
                assert_eq!(sums.clusters, t.n_cols() as u64);
                assert_eq!(sums.nnz, t.cell_count.len() as u64);
                assert_eq!(sums.cells_sq, p.cells_sq);
                assert_eq!(sums.cols_sq, p.cols_sq);
                let xlnx = |xs: &[u64]| xs.iter().map(|&x| x as f64 * (x as f64).ln()).sum();
                let want: f64 = xlnx(&t.cell_count);
                assert!((sums.cells_xlnx - want).abs() <= 1e-9 * want.max(1.0));
                let want: f64 = xlnx(&t.col_sums);
                assert!((sums.cols_xlnx - want).abs() <= 1e-9 * want.max(1.0));
                assert_eq!(sums.majority as f64 / n as f64, purity(&t).unwrap());
                let mut best = vec![0u64; t.n_rows()];
                for (&i, &c) in t.cell_row.iter().zip(&t.cell_count) {
                    best[i as usize] = best[i as usize].max(c);
                }
                assert_eq!(sums.best_cluster, best.iter().sum::<u64>());
                if t.n_rows() > 1 && t.n_cols() > 1 {
                    let want = expected_mutual_info(&t).unwrap();
                    assert!((sums.emi - want).abs() <= 1e-12 * want.max(1.0), "{s}");
                }
            }
        }
    }

    #[test]
    fn uncounted_samples_leave_no_cells() {
        let classes = [0, u32::MAX, 1, 1];
        let merges = [(0, 1), (2, 3), (4, 5)];
        let cuts = dendrogram_cuts(&classes, 2, &merges, &[0, 1, 2], &[0, 1, 2, 3], false)
            .expect("a valid tree");
        let clusters: Vec<u64> = cuts.iter().map(|c| c.clusters).collect();
        assert_eq!(clusters, [3, 3, 2, 1]);
        assert_eq!(cuts[3].cells_sq, 1 + 4);
        assert_eq!(cuts[3].cols_sq, 9);
    }

    #[test]
    fn bad_trees_are_refused() {
        let classes = [0, 0, 1];
        for merges in [
            vec![(0, 1), (1, 2)], // a leaf merged twice
            vec![(0, 4), (1, 2)], // a cluster used before it is formed
            vec![(0, 1), (2, 9)], // no such node
        ] {
            let got = dendrogram_cuts(&classes, 2, &merges, &[0, 1], &[2], false);
            assert!(matches!(got, Err(Error::BadTree(_))), "{merges:?}");
        }
        let got = dendrogram_cuts(&classes, 2, &[(0, 1)], &[0], &[1], false);
        assert!(matches!(got, Err(Error::BadTree(_))));
    }
}
