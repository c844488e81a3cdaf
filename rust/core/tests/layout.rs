//! The crate's modules import one another without cycles.
//!
//! The module graph is read from the sources under `src/`: a module depends on another
//! when it names it in a path (`use crate::a::b::X`, `crate::a::f()`, `super::x::Y`,
//! `child::Z` for a child module of its own), outside its `#[cfg(test)]` modules and
//! its comments and strings. A path goes to the deepest module it names (`crate::a::b::X`
//! to `a::b` if that is a module, else to `a`); a path to an item of the crate root
//! (`crate::Table`, a re-export) goes to the root, which depends on every module it
//! re-exports from. Module declarations (`mod x;`) are not dependencies.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module's path from the crate root (`[]` for the root, `["count", "window"]`).
type Module = Vec<String>;

fn name(m: &Module) -> String {
    if m.is_empty() {
        "crate".to_string()
    } else {
        m.join("::")
    }
}

/// The module a source file holds, from its path under `src/` (`lib.rs`, `x.rs`,
/// `x/mod.rs`, `x/y.rs`).
fn module_of(relative: &str) -> Module {
    let mut parts: Vec<String> = relative.split('/').map(str::to_string).collect();
    let file = parts.pop().expect("a file name");
    let stem = file.strip_suffix(".rs").expect("a .rs file");
    if !(parts.is_empty() && stem == "lib" || stem == "mod") {
        parts.push(stem.to_string());
    }
    parts
}

/// The source with its comments, strings and character literals blanked (a space each),
/// so that nothing in them reads as a path.
fn strip(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c[i] == 'r' && (next == Some('"') || next == Some('#')) && !ident_before(&c, i) {
            // A raw string: r"...", r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while c.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if c.get(j) != Some(&'"') {
                out.push(c[i]);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= c.len() {
                    break;
                }
                if c[j] == '"' && (0..hashes).all(|h| c.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            i = j;
            out.push(' ');
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else if c[i] == '\'' {
            // A character literal ('x', '\n', '\u{..}'), or a lifetime ('a), kept.
            if next == Some('\\') {
                let mut j = i + 2;
                while j < c.len() && c[j] != '\'' {
                    j += 1;
                }
                i = j + 1;
                out.push(' ');
            } else if c.get(i + 2) == Some(&'\'') {
                i += 3;
                out.push(' ');
            } else {
                out.push(c[i]);
                i += 1;
            }
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

fn ident_before(c: &[char], i: usize) -> bool {
    i > 0 && (c[i - 1].is_alphanumeric() || c[i - 1] == '_')
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Ident(String),
    PathSep,
    Open,
    Close,
    Comma,
    Semi,
    Star,
    Other(char),
}

fn tokens(src: &str) -> Vec<Token> {
    let c: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch.is_alphabetic() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(Token::Ident(c[start..i].iter().collect()));
            continue;
        }
        if ch.is_whitespace() {
            i += 1;
            continue;
        }
        if ch == ':' && c.get(i + 1) == Some(&':') {
            out.push(Token::PathSep);
            i += 2;
            continue;
        }
        out.push(match ch {
            '{' => Token::Open,
            '}' => Token::Close,
            ',' => Token::Comma,
            ';' => Token::Semi,
            '*' => Token::Star,
            other => Token::Other(other),
        });
        i += 1;
    }
    out
}

fn is_ident(t: Option<&Token>, s: &str) -> bool {
    matches!(t, Some(Token::Ident(x)) if x == s)
}

/// The tokens without the items marked `#[cfg(test)]` that are modules (`mod x { .. }`,
/// `mod x;`) or imports (`use ..;`); also the names of such file modules.
fn without_test_items(t: Vec<Token>) -> (Vec<Token>, BTreeSet<String>) {
    let mut out = Vec::with_capacity(t.len());
    let mut test_files = BTreeSet::new();
    let mut i = 0;
    'tokens: while i < t.len() {
        // #[cfg(test)]
        let attr = [
            Token::Other('#'),
            Token::Other('['),
            Token::Ident("cfg".into()),
            Token::Other('('),
            Token::Ident("test".into()),
            Token::Other(')'),
            Token::Other(']'),
        ];
        if t[i..].starts_with(&attr) {
            let mut j = i + attr.len();
            // Visibility, then `mod name {`, `mod name;` or `use ...;`.
            if is_ident(t.get(j), "pub") {
                j += 1;
                if t.get(j) == Some(&Token::Other('(')) {
                    while j < t.len() && t[j] != Token::Other(')') {
                        j += 1;
                    }
                    j += 1;
                }
            }
            if is_ident(t.get(j), "mod") {
                if let (Some(Token::Ident(m)), Some(next)) = (t.get(j + 1), t.get(j + 2)) {
                    if *next == Token::Semi {
                        test_files.insert(m.clone());
                        i = j + 3;
                        continue 'tokens;
                    }
                    if *next == Token::Open {
                        let mut depth = 0;
                        let mut k = j + 2;
                        while k < t.len() {
                            match t[k] {
                                Token::Open => depth += 1,
                                Token::Close => {
                                    depth -= 1;
                                    if depth == 0 {
                                        break;
                                    }
                                }
                                _ => {}
                            }
                            k += 1;
                        }
                        i = k + 1;
                        continue 'tokens;
                    }
                }
            }
            if is_ident(t.get(j), "use") {
                while j < t.len() && t[j] != Token::Semi {
                    j += 1;
                }
                i = j + 1;
                continue 'tokens;
            }
        }
        out.push(t[i].clone());
        i += 1;
    }
    (out, test_files)
}

/// The paths of a `use` tree starting at `t[*i]`, each prefixed by `prefix`; `*i` ends
/// past the tree.
fn use_tree(t: &[Token], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    loop {
        match t.get(*i) {
            Some(Token::Ident(s)) => {
                path.push(s.clone());
                *i += 1;
                if is_ident(t.get(*i), "as") {
                    *i += 2;
                }
                if t.get(*i) == Some(&Token::PathSep) {
                    *i += 1;
                    continue;
                }
                out.push(path);
                return;
            }
            Some(Token::Star) => {
                *i += 1;
                out.push(path);
                return;
            }
            Some(Token::Open) => {
                *i += 1;
                while *i < t.len() && t[*i] != Token::Close {
                    if t[*i] == Token::Comma {
                        *i += 1;
                        continue;
                    }
                    use_tree(t, i, &path, out);
                }
                *i += 1;
                return;
            }
            _ => {
                out.push(path);
                return;
            }
        }
    }
}

/// Every path the tokens name: each path of each `use` tree, and each other run of
/// identifiers joined by `::` (but the module of a `pub(in path)` visibility).
fn paths(t: &[Token]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if is_ident(t.get(i), "use") {
            i += 1;
            use_tree(t, &mut i, &[], &mut out);
            continue;
        }
        if let Token::Ident(first) = &t[i] {
            let after_in = i > 0 && is_ident(t.get(i - 1), "in");
            let mut path = vec![first.clone()];
            let mut j = i + 1;
            while t.get(j) == Some(&Token::PathSep) {
                match t.get(j + 1) {
                    Some(Token::Ident(s)) => {
                        path.push(s.clone());
                        j += 2;
                    }
                    _ => {
                        j += 1;
                        break;
                    }
                }
            }
            if path.len() > 1 && !after_in {
                out.push(path);
            }
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// The module graph of the sources (`relative path -> text`): each module and the
/// modules it depends on.
fn graph(files: &BTreeMap<String, String>) -> BTreeMap<Module, BTreeSet<Module>> {
    let modules: BTreeSet<Module> = files.keys().map(|f| module_of(f)).collect();
    let mut graph = BTreeMap::new();
    for (file, src) in files {
        let here = module_of(file);
        let (t, _) = without_test_items(tokens(&strip(src)));
        let mut deps = BTreeSet::new();
        for path in paths(&t) {
            let (mut base, mut rest): (Module, &[String]) = match path[0].as_str() {
                "crate" => (Vec::new(), &path[1..]),
                "self" => (here.clone(), &path[1..]),
                "super" => {
                    let mut base = here.clone();
                    let mut k = 0;
                    while path.get(k).map(String::as_str) == Some("super") {
                        base.pop();
                        k += 1;
                    }
                    (base, &path[k..])
                }
                child => {
                    let mut m = here.clone();
                    m.push(child.to_string());
                    if !modules.contains(&m) {
                        continue;
                    }
                    (here.clone(), &path[..])
                }
            };
            // The deepest module the path names.
            while let Some((first, more)) = rest.split_first() {
                let mut deeper = base.clone();
                deeper.push(first.clone());
                if !modules.contains(&deeper) {
                    break;
                }
                base = deeper;
                rest = more;
            }
            if base != here {
                deps.insert(base);
            }
        }
        graph.insert(here, deps);
    }
    graph
}

/// A cycle of the graph, as the modules along it (the first again at the end).
fn find_cycle(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Option<Vec<Module>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(
        m: &Module,
        graph: &BTreeMap<Module, BTreeSet<Module>>,
        mark: &mut BTreeMap<Module, Mark>,
        stack: &mut Vec<Module>,
    ) -> Option<Vec<Module>> {
        mark.insert(m.clone(), Mark::Open);
        stack.push(m.clone());
        for d in graph.get(m).into_iter().flatten() {
            match mark.get(d).copied().unwrap_or(Mark::New) {
                Mark::Open => {
                    let from = stack.iter().position(|s| s == d).expect("on the stack");
                    let mut cycle = stack[from..].to_vec();
                    cycle.push(d.clone());
                    return Some(cycle);
                }
                Mark::New => {
                    if let Some(cycle) = visit(d, graph, mark, stack) {
                        return Some(cycle);
                    }
                }
                Mark::Done => {}
            }
        }
        stack.pop();
        mark.insert(m.clone(), Mark::Done);
        None
    }
    let mut mark = BTreeMap::new();
    for m in graph.keys() {
        if mark.get(m).copied().unwrap_or(Mark::New) == Mark::New {
            if let Some(cycle) = visit(m, graph, &mut mark, &mut Vec::new()) {
                return Some(cycle);
            }
        }
    }
    None
}

fn describe(cycle: &[Module]) -> String {
    cycle.iter().map(name).collect::<Vec<_>>().join(" -> ")
}

fn sources(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a readable source folder")
        .map(|e| e.expect("a folder entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            sources(&path, root, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let relative = path.strip_prefix(root).expect("under src");
            let relative = relative
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            let text = std::fs::read_to_string(&path).expect("a readable source file");
            out.insert(relative, text);
        }
    }
}

#[test]
fn the_crate_has_no_module_cycles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    sources(&root, &root, &mut files);
    let graph = graph(&files);
    // The graph was read: the driver depends on the pass by blocks and the table.
    let count = vec!["count".to_string()];
    let deps = &graph[&count];
    assert!(deps.contains(&vec!["count".to_string(), "blocks".to_string()]));
    assert!(deps.contains(&vec!["table".to_string()]));
    if let Some(cycle) = find_cycle(&graph) {
        panic!("a module cycle: {}", describe(&cycle));
    }
}

fn module(path: &str) -> Module {
    path.split("::").map(str::to_string).collect()
}

#[test]
fn submodules_import_their_siblings_not_their_parents() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    sources(&root, &root, &mut files);
    let graph = graph(&files);
    // The graph was read: the wide count's kernels use the plan and the partition beside
    // them, and its driver dispatches to them.
    let hashed = &graph[&module("count::wide::hashed")];
    assert!(hashed.contains(&module("count::wide::plan")), "{hashed:?}");
    assert!(
        hashed.contains(&module("count::wide::partition")),
        "{hashed:?}"
    );
    assert!(graph[&module("count::wide")].contains(&module("count::wide::dense")));
    for (m, deps) in &graph {
        // `table::dense` extends its parent's `Table`, which never names it.
        if m.len() < 2 || *m == module("table::dense") {
            continue;
        }
        let parent = m[..m.len() - 1].to_vec();
        assert!(
            !deps.contains(&parent),
            "{} imports its parent {}",
            name(m),
            name(&parent)
        );
    }
}

fn example(files: &[(&str, &str)]) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(f, s)| (f.to_string(), s.to_string()))
        .collect()
}

#[test]
fn a_cyclic_pair_is_found_and_named() {
    let files = example(&[
        ("lib.rs", "mod a;\nmod b;\npub use a::A;\n"),
        ("a.rs", "use crate::b::B;\npub struct A(B);\n"),
        (
            "b.rs",
            "pub struct B;\nfn f() -> usize { crate::a::size() }\n",
        ),
    ]);
    let cycle = find_cycle(&graph(&files)).expect("a cycle");
    assert!(
        ["a -> b -> a", "b -> a -> b"].contains(&describe(&cycle).as_str()),
        "{}",
        describe(&cycle)
    );
}

#[test]
fn cycles_through_super_children_and_use_groups_are_found() {
    // count -> count::window (a child named in a path), count::window -> count (super),
    // and a longer one through a `use` group: x -> y::z -> x.
    let files = example(&[
        ("lib.rs", "mod count;\nmod x;\nmod y;\n"),
        ("count/mod.rs", "mod window;\nfn f() { window::g() }\n"),
        ("count/window.rs", "use super::Counter;\npub fn g() {}\n"),
        ("x.rs", "use crate::{y::z::Z, table};\n"),
        ("y/mod.rs", "pub mod z;\n"),
        (
            "y/z.rs",
            "pub struct Z;\nimpl Z { fn f() { super::super::x::g() } }\n",
        ),
    ]);
    let g = graph(&files);
    let cycle = find_cycle(&g).expect("a cycle");
    assert_eq!(describe(&cycle), "count -> count::window -> count");
    let z = vec!["y".to_string(), "z".to_string()];
    assert!(g[&vec!["x".to_string()]].contains(&z));
    assert!(g[&z].contains(&vec!["x".to_string()]));
}

#[test]
fn tests_comments_and_strings_are_no_dependencies() {
    // The way back from b to a is only in b's tests, a comment, a string, a character
    // after a lifetime, and a visibility: no cycle.
    let files = example(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "use crate::b::B;\n"),
        (
            "b.rs",
            "//! See [`crate::a::A`].\n\
             pub struct B<'a>(&'a str);\n\
             pub(in crate::a) fn c() -> char { '{' }\n\
             /* crate::a::f() */\n\
             const S: &str = \"crate::a::A\";\n\
             #[cfg(test)]\n\
             mod tests {\n    use super::*;\n    use crate::a::A;\n    fn t() { let _ = '}'; }\n}\n",
        ),
    ]);
    let g = graph(&files);
    assert_eq!(find_cycle(&g), None, "{g:?}");
    assert!(g[&vec!["b".to_string()]].is_empty(), "{g:?}");
}
