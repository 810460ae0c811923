//! How much memory a bake may still take, so that a request too large for the machine is an
//! error naming the size instead of an abort when an allocation fails (or the kernel's
//! out-of-memory killer).

use crate::error::{Error, Result};

/// Bytes the process may still allocate: `MemAvailable` of `/proc/meminfo`, lowered to what
/// the process's cgroup (a container, a Slurm job) has left under its `memory.max`. `None`
/// where neither is known (not Linux): then no check is made.
pub fn available_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let available = meminfo.as_deref().and_then(|text| {
        text.lines()
            .find_map(|l| l.strip_prefix("MemAvailable:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map(|kib| kib * 1024)
    });
    match (available, cgroup_left()) {
        (Some(a), Some(c)) => Some(a.min(c)),
        (a, c) => a.or(c),
    }
}

/// `memory.max - memory.current` of the process's cgroup (v2), when it sets a limit.
fn cgroup_left() -> Option<u64> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = membership.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = std::path::Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).ok();
    let max = read("memory.max")?.trim().parse::<u64>().ok()?; // "max": no limit
    let current = read("memory.current")?.trim().parse::<u64>().ok()?;
    Some(max.saturating_sub(current))
}

/// Checks that `bytes` more can be allocated for `what`; the error gives both sizes.
pub fn check_available(what: &str, bytes: u64) -> Result<()> {
    match available_bytes() {
        Some(available) if bytes > available => Err(Error::Limit(format!(
            "{what} needs about {} of memory, but only {} is available",
            show_bytes(bytes),
            show_bytes(available)
        ))),
        _ => Ok(()),
    }
}

/// A byte count in MiB or GiB.
fn show_bytes(bytes: u64) -> String {
    if bytes >= 1 << 30 {
        format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
    } else {
        format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_beyond_the_machine_is_an_error_naming_both_sizes() {
        if available_bytes().is_none() {
            return; // not Linux: no figure to check against
        }
        let e = check_available("a test field", u64::MAX / 2).unwrap_err();
        assert!(e.to_string().contains("a test field needs about"), "{e}");
        assert!(e.to_string().contains("available"), "{e}");
        check_available("a small field", 1 << 20).unwrap();
    }
}
