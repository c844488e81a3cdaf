//! How much more memory this process may take: its cgroup's limit less what the cgroup
//! uses (version 2, or version 1's memory controller; the tightest of its ancestors), and
//! the system's available memory. An allocation past it is not refused at once: the pages
//! are promised and the process is killed when it touches them, which no error can report.
//! So the paths whose need is known before they start check it here ([`check`]) and return
//! [`Error::PastUsable`] instead. The Python layer reads the same function (through the
//! binding) for the dense tables it allocates.

use std::fs;
use std::path::Path;

use crate::error::Error;

/// Limits from here on mean none (cgroup version 1 writes 2^63 rounded down to a page).
const UNLIMITED: u64 = 1 << 62;

/// Needs below this many bytes are not checked (the files are not read).
const CHECK_FROM: usize = 64 << 20;

/// The bytes this process may still use and what limits them (`"available memory"` or
/// `"its cgroup's memory limit"`), the smaller; `None` where neither can be read (not
/// Linux). `root` is where `/proc` and `/sys` are found (the tests give others).
pub fn usable_memory(root: &Path) -> Option<(u64, &'static str)> {
    let available = available(root).map(|a| (a, "available memory"));
    let cgroups = cgroup_levels(root)
        .into_iter()
        .map(|(limit, usage)| (limit.saturating_sub(usage), "its cgroup's memory limit"));
    available
        .into_iter()
        .chain(cgroups)
        .min_by_key(|&(room, _)| room)
}

/// [`Error::PastUsable`] naming `what` if `bytes` are more than this process may still
/// use.
pub(crate) fn check(bytes: usize, what: &'static str) -> Result<(), Error> {
    if bytes < CHECK_FROM {
        return Ok(());
    }
    fits(bytes, what, usable_memory(Path::new("/")))
}

fn fits(
    bytes: usize,
    what: &'static str,
    usable: Option<(u64, &'static str)>,
) -> Result<(), Error> {
    match usable {
        Some((room, limit)) if bytes as u64 > room => Err(Error::PastUsable {
            what,
            bytes,
            room,
            limit,
        }),
        _ => Ok(()),
    }
}

fn read(path: &Path) -> Option<String> {
    fs::read_to_string(path)
        .ok()
        .map(|text| text.trim().to_owned())
}

fn number(path: &Path) -> Option<u64> {
    read(path)?.parse().ok()
}

/// `MemAvailable` of `/proc/meminfo`, in bytes.
fn available(root: &Path) -> Option<u64> {
    let text = read(&root.join("proc/meminfo"))?;
    text.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        let kib: u64 = value.split_whitespace().next()?.parse().ok()?;
        (name == "MemAvailable").then_some(kib.saturating_mul(1024))
    })
}

/// (limit, usage) of each cgroup level above this process that has a limit.
fn cgroup_levels(root: &Path) -> Vec<(u64, u64)> {
    let mut levels = Vec::new();
    let text = read(&root.join("proc/self/cgroup")).unwrap_or_default();
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (Some(_), Some(controllers), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let (base, files) = if controllers.is_empty() {
            (root.join("sys/fs/cgroup"), ["memory.max", "memory.current"])
        } else if controllers.split(',').any(|c| c == "memory") {
            (
                root.join("sys/fs/cgroup/memory"),
                ["memory.limit_in_bytes", "memory.usage_in_bytes"],
            )
        } else {
            continue;
        };
        for level in Path::new(path).ancestors() {
            let folder = base.join(level.strip_prefix("/").unwrap_or(level));
            let [limit, usage] = files.map(|name| number(&folder.join(name)));
            if let (Some(limit), Some(usage)) = (limit, usage) {
                if limit < UNLIMITED {
                    levels.push((limit, usage));
                }
            }
        }
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_need_past_the_room_is_refused_naming_the_limit() {
        let limit = Some((100u64 << 20, "its cgroup's memory limit"));
        assert_eq!(fits(100 << 20, "x", limit), Ok(()));
        let got = fits((100 << 20) + 1, "the test's partition", limit);
        assert_eq!(
            got,
            Err(Error::PastUsable {
                what: "the test's partition",
                bytes: (100 << 20) + 1,
                room: 100 << 20,
                limit: "its cgroup's memory limit",
            })
        );
        assert!(got.unwrap_err().to_string().contains(
            "the test's partition needs 104857601 bytes (100.0 MiB), more than the 100.0 MiB \
             this process may use (its cgroup's memory limit)"
        ));
        // Nothing read: nothing refused.
        assert_eq!(fits(usize::MAX, "x", None), Ok(()));
        // Small needs are not checked.
        assert_eq!(check(1 << 20, "x"), Ok(()));
    }
}
