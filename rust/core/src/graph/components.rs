//! The connected components of the subgraph within each label: an edge `i → j` of the
//! graph counts where `i` and `j` have the same label, so that one pass finds every
//! label's components at once.
//!
//! - weakly connected (edges taken both ways): union-find, by size with path halving, as
//!   scipy's `connected_components(connection="weak")` or `"strong"` on a symmetric graph
//!   (scib-metrics' `kbet_per_label` on UMAP's connectivities);
//! - strongly connected (edges taken as they point): Tarjan's algorithm, with a stack of
//!   its own instead of recursion, as scipy's `connection="strong"` on the directed
//!   k-nearest-neighbour graph (scib-metrics' `graph_connectivity`).
//!
//! Both run on the calling thread, in row order, so the components' numbers are the same
//! for any number of threads: each cell's component is named by one cell of it. Tarjan's
//! search first copies the edges within labels into a compact graph of its own (4 bytes an
//! edge, rows in chunks on the pool), because its search jumps from cell to cell: on a
//! 1e6-cell graph of 30 neighbours a cell and 10 labels, the copy is a tenth of the
//! edges, in cache, where the graph's rows are 240 MB of int64 read in a random order.

use crate::alloc;
use crate::error::Error;
use crate::stop;

use super::rows::{
    check_all, check_codes, map_chunks, with_narrow_codes, Code, Distance, Graph, Index,
};

/// Each cell's component (the index of one cell of it) among the cells of its label
/// (`codes`, one a cell, in `0..n_labels`), weakly or strongly connected.
pub fn components<I: Index, D: Distance>(
    graph: &Graph<'_, I, D>,
    codes: &[i64],
    n_labels: usize,
    strong: bool,
) -> Result<Vec<i64>, Error> {
    check_codes(codes, graph.n(), n_labels)?;
    check_all(graph)?;
    with_narrow_codes!(codes, n_labels, |narrow| {
        if strong {
            tarjan(graph, &narrow)
        } else {
            union_find(graph, &narrow)
        }
    })
}

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

fn union_find<I: Index, D: Distance, C: Code>(
    graph: &Graph<'_, I, D>,
    codes: &[C],
) -> Result<Vec<i64>, Error> {
    let n = graph.n();
    let mut parent = alloc::with_capacity(n, "the cells' parents")?;
    parent.extend(0..n);
    let mut size = alloc::filled(n, 1usize, "the components' sizes")?;
    for i in 0..n {
        if i % stop::EVERY == 0 {
            stop::check()?;
        }
        for &j in graph.raw(i) {
            let j = j.get() as usize;
            if codes[j].at() != codes[i].at() {
                continue;
            }
            let (a, b) = (find(&mut parent, i), find(&mut parent, j));
            if a != b {
                let (big, small) = if size[a] >= size[b] { (a, b) } else { (b, a) };
                parent[small] = big;
                size[big] += size[small];
            }
        }
    }
    let mut out = alloc::with_capacity(n, "the cells' components")?;
    for i in 0..n {
        out.push(find(&mut parent, i) as i64);
    }
    Ok(out)
}

/// The subgraph within labels, its cells renumbered label by label (in their order within
/// a label), so that a search within one label reads and writes one block of each array:
/// cell `i` is `new[i]`, `old[new[i]] == i`; row `r` (a cell's new number) holds its
/// edges to cells of its label, in the graph's order, as new numbers.
struct Within {
    new: Vec<u32>,
    old: Vec<u32>,
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

impl Within {
    fn of<I: Index, D: Distance, C: Code>(
        graph: &Graph<'_, I, D>,
        codes: &[C],
    ) -> Result<Self, Error> {
        let n = graph.n();
        let labels = codes.iter().map(|c| c.at() + 1).max().unwrap_or(0);
        let mut start = alloc::filled(labels + 1, 0usize, "the labels' blocks")?;
        for c in codes {
            start[c.at() + 1] += 1;
        }
        for l in 0..labels {
            start[l + 1] += start[l];
        }
        let mut new = alloc::filled(n, 0u32, "the cells' new numbers")?;
        let mut old = alloc::filled(n, 0u32, "the cells' old numbers")?;
        for (i, c) in codes.iter().enumerate() {
            let at = &mut start[c.at()];
            // n < 2^32 (the caller's check)
            new[i] = *at as u32;
            old[*at] = i as u32;
            *at += 1;
        }
        // Each chunk of new numbers: its rows' lengths, then their targets. Every neighbour
        // is written and the length moved on where its label is the row's: no branch, so
        // that the random reads of the labels overlap rather than wait on a mispredicted
        // jump each (the targets are made new numbers after, a tenth of the reads).
        let (new_ref, old_ref) = (&new, &old);
        let parts = map_chunks(n, |rows| {
            let mut lengths = alloc::with_capacity(rows.len(), "the rows' edges within labels")?;
            let mut targets: Vec<u32> = Vec::new();
            for r in rows {
                let i = old_ref[r] as usize;
                let label = codes[i].at();
                let row = graph.raw(i);
                let before = targets.len();
                alloc::reserve(&mut targets, row.len(), "the edges within labels")?;
                targets.resize(before + row.len(), 0);
                let room = &mut targets[before..];
                let mut len = 0;
                for &j in row {
                    let j = j.get() as usize;
                    room[len] = j as u32;
                    len += usize::from(codes[j].at() == label);
                }
                targets.truncate(before + len);
                lengths.push(len);
            }
            for t in &mut targets {
                *t = new_ref[*t as usize];
            }
            Ok((lengths, targets))
        })?;
        let total = parts.iter().map(|(_, t)| t.len()).sum();
        let mut offsets = alloc::with_capacity(n + 1, "the rows' offsets within labels")?;
        let mut targets = alloc::with_capacity(total, "the edges within labels")?;
        offsets.push(0);
        for (lengths, part) in parts {
            for len in lengths {
                offsets.push(offsets[offsets.len() - 1] + len);
            }
            targets.extend_from_slice(&part);
        }
        Ok(Within {
            new,
            old,
            offsets,
            targets,
        })
    }

    #[inline]
    fn row(&self, r: usize) -> &[u32] {
        &self.targets[self.offsets[r]..self.offsets[r + 1]]
    }
}

/// Not yet visited.
const UNVISITED: u32 = u32::MAX;

/// Tarjan's search over the renumbered subgraph, started from the cells in the graph's
/// order and following each row's edges in the graph's order: the same search, and so the
/// same components named by the same cells, as over the graph itself.
fn tarjan<I: Index, D: Distance, C: Code>(
    graph: &Graph<'_, I, D>,
    codes: &[C],
) -> Result<Vec<i64>, Error> {
    let n = graph.n();
    // A visit order below UNVISITED for every cell.
    if u32::try_from(n).map_or(true, |n| n == u32::MAX) {
        return Err(Error::BadShape(format!(
            "a graph of {n} cells: the strongly connected components take fewer than 2^32 - 1"
        )));
    }
    let within = Within::of(graph, codes)?;
    let mut index = alloc::filled(n, UNVISITED, "the cells' visit order")?;
    let mut low = alloc::filled(n, 0u32, "the cells' low links")?;
    let mut on_stack = alloc::filled(n, false, "the cells on the stack")?;
    let mut comp = alloc::filled(n, -1i64, "the cells' components")?;
    let mut stack: Vec<u32> = Vec::new();
    // (cell, the next of its edges to follow)
    let mut calls: Vec<(u32, u32)> = Vec::new();
    let mut counter = 0u32;
    for (s, &first) in within.new.iter().enumerate() {
        if index[first as usize] != UNVISITED {
            continue;
        }
        if s % stop::EVERY == 0 {
            stop::check()?;
        }
        index[first as usize] = counter;
        low[first as usize] = counter;
        counter += 1;
        alloc::push(&mut stack, first, "the components' stack")?;
        on_stack[first as usize] = true;
        alloc::push(&mut calls, (first, 0), "the search's stack")?;
        while let Some(&mut (v, ref mut next)) = calls.last_mut() {
            let v = v as usize;
            if let Some(&w) = within.row(v).get(*next as usize) {
                *next += 1;
                let w = w as usize;
                if index[w] == UNVISITED {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    alloc::push(&mut stack, w as u32, "the components' stack")?;
                    on_stack[w] = true;
                    alloc::push(&mut calls, (w as u32, 0), "the search's stack")?;
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u as usize] = low[u as usize].min(low[v]);
            }
            if low[v] == index[v] {
                let root = i64::from(within.old[v]);
                while let Some(w) = stack.pop() {
                    on_stack[w as usize] = false;
                    comp[within.old[w as usize] as usize] = root;
                    if w as usize == v {
                        break;
                    }
                }
            }
        }
    }
    Ok(comp)
}
