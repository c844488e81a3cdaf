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
//! for any number of threads: each cell's component is named by one cell of it.

use crate::alloc;
use crate::error::Error;
use crate::stop;

use super::rows::{check_all, check_codes, Distance, Graph, Index};

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
    if strong {
        tarjan(graph, codes)
    } else {
        union_find(graph, codes)
    }
}

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

fn union_find<I: Index, D: Distance>(
    graph: &Graph<'_, I, D>,
    codes: &[i64],
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
            if codes[j] != codes[i] {
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

/// Not yet visited.
const UNSEEN: usize = usize::MAX;

fn tarjan<I: Index, D: Distance>(
    graph: &Graph<'_, I, D>,
    codes: &[i64],
) -> Result<Vec<i64>, Error> {
    let n = graph.n();
    let mut index = alloc::filled(n, UNSEEN, "the cells' visit order")?;
    let mut low = alloc::filled(n, 0usize, "the cells' low links")?;
    let mut on_stack = alloc::filled(n, false, "the cells on the stack")?;
    let mut comp = alloc::filled(n, -1i64, "the cells' components")?;
    let mut stack: Vec<usize> = Vec::new();
    // (cell, the next of its edges to follow)
    let mut calls: Vec<(usize, usize)> = Vec::new();
    let mut counter = 0usize;
    for s in 0..n {
        if index[s] != UNSEEN {
            continue;
        }
        if s % stop::EVERY == 0 {
            stop::check()?;
        }
        index[s] = counter;
        low[s] = counter;
        counter += 1;
        alloc::push(&mut stack, s, "the components' stack")?;
        on_stack[s] = true;
        alloc::push(&mut calls, (s, 0), "the search's stack")?;
        while let Some(&mut (v, ref mut next)) = calls.last_mut() {
            let edges = graph.raw(v);
            if let Some(&w) = edges.get(*next) {
                *next += 1;
                let w = w.get() as usize;
                if codes[w] != codes[v] {
                    continue;
                }
                if index[w] == UNSEEN {
                    index[w] = counter;
                    low[w] = counter;
                    counter += 1;
                    alloc::push(&mut stack, w, "the components' stack")?;
                    on_stack[w] = true;
                    alloc::push(&mut calls, (w, 0), "the search's stack")?;
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            calls.pop();
            if let Some(&(u, _)) = calls.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    comp[w] = v as i64;
                    if w == v {
                        break;
                    }
                }
            }
        }
    }
    Ok(comp)
}
