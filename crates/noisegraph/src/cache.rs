//! Files in the user's cache folder: the GPU pipeline cache (compiled kernels, where the
//! backend supports one) and the answer of `Backend::Auto`'s adapter probe. A file is written
//! whole under a temporary name and renamed into place; it carries its kind, length and a
//! checksum, and one that does not match is ignored (reported, never trusted), so a cache file
//! that is truncated, corrupt or from another program can cost a recompile but not a crash.

use std::path::{Path, PathBuf};

/// The environment variable naming the cache folder; empty or `off` turns the caches off.
pub const CACHE_DIR_ENV: &str = "NOISEGRAPH_CACHE_DIR";

/// The cache folder: `$NOISEGRAPH_CACHE_DIR`, else `$XDG_CACHE_HOME/noisegraph`, else
/// `$HOME/.cache/noisegraph`; `None` when turned off or when none of them is set.
pub fn cache_dir() -> Option<PathBuf> {
    let non_empty = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(dir) = std::env::var_os(CACHE_DIR_ENV) {
        if dir.is_empty() || dir == "off" {
            return None;
        }
        return Some(PathBuf::from(dir));
    }
    if let Some(xdg) = non_empty("XDG_CACHE_HOME") {
        return Some(PathBuf::from(xdg).join("noisegraph"));
    }
    non_empty("HOME").map(|home| PathBuf::from(home).join(".cache").join("noisegraph"))
}

/// What reading a cache file found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loaded {
    /// No file.
    Missing,
    /// The file's data, whole and of the kind asked for.
    Data(Vec<u8>),
    /// A file that cannot be used, and why (unreadable, another kind, truncated, corrupt).
    Ignored(String),
}

const MAGIC: &[u8; 8] = b"NGCACHE1";
/// Magic, kind, length, checksum.
const HEADER: usize = 8 + 8 + 8 + 8;

/// FNV-1a, 64 bits: enough to tell a damaged file from a whole one.
fn checksum(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Reads the cache file at `path` holding data of `kind`.
pub fn read(path: &Path, kind: &[u8; 8]) -> Loaded {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Loaded::Missing,
        Err(e) => return Loaded::Ignored(format!("unreadable ({e})")),
    };
    if bytes.len() < HEADER || &bytes[..8] != MAGIC {
        return Loaded::Ignored("not a noisegraph cache file".into());
    }
    if &bytes[8..16] != kind {
        return Loaded::Ignored("a cache file of another kind".into());
    }
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"));
    let data = &bytes[HEADER..];
    if word(16) != data.len() as u64 {
        return Loaded::Ignored(format!(
            "truncated or extended ({} bytes of data, {} recorded)",
            data.len(),
            word(16)
        ));
    }
    if word(24) != checksum(data) {
        return Loaded::Ignored("corrupt (checksum mismatch)".into());
    }
    Loaded::Data(data.to_vec())
}

/// Writes `data` of `kind` to `path` (creating its folder): whole under a temporary name in
/// the same folder, then renamed into place, so readers see the old file or the new one.
pub fn write(path: &Path, kind: &[u8; 8], data: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut bytes = Vec::with_capacity(HEADER + data.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(kind);
    bytes.extend_from_slice(&(data.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&checksum(data).to_le_bytes());
    bytes.extend_from_slice(data);
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = path.with_file_name(format!(".{name}.{}.partial", std::process::id()));
    let result = std::fs::write(&tmp, &bytes).and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("noisegraph-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn a_written_file_reads_back_and_a_damaged_one_is_ignored() {
        let path = scratch("round-trip");
        assert_eq!(read(&path, b"testdata"), Loaded::Missing);
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7) as u8).collect();
        write(&path, b"testdata", &data).unwrap();
        assert_eq!(read(&path, b"testdata"), Loaded::Data(data.clone()));
        assert!(matches!(read(&path, b"otherkin"), Loaded::Ignored(_)));

        let whole = std::fs::read(&path).unwrap();
        let mut flipped = whole.clone();
        flipped[HEADER + 500] ^= 1;
        let mut truncated = whole.clone();
        truncated.truncate(whole.len() - 1);
        let cases: [(&str, Vec<u8>); 4] = [
            ("flipped", flipped),
            ("truncated", truncated),
            ("empty", Vec::new()),
            ("foreign", b"{\"hello\": 1}".repeat(10)),
        ];
        for (what, bytes) in cases {
            std::fs::write(&path, bytes).unwrap();
            assert!(
                matches!(read(&path, b"testdata"), Loaded::Ignored(_)),
                "{what}"
            );
        }
        std::fs::remove_file(&path).unwrap();
    }
}
