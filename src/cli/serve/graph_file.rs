//! The one graph file `noisegraph serve` may write: the file named on its command line. Its
//! version (a hash of its bytes) lets the page notice edits made in another editor, and lets
//! Save refuse to overwrite a file that changed since the page loaded it.

use std::collections::hash_map::DefaultHasher;
use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

use noisegraph::io::write_atomic;

use crate::cli::Failure;

/// The largest graph file served and saved, in bytes.
pub const MAX_GRAPH_BYTES: usize = 1 << 20;

/// The version of a file that does not exist (yet).
pub const ABSENT: &str = "absent";

pub struct GraphFile {
    /// The path as given on the command line (for messages and the page's bake command).
    pub shown: String,
    /// The resolved path written to (through symbolic links, so Save edits the target).
    path: PathBuf,
}

impl GraphFile {
    /// The file at `given`: an existing file, or a new one in an existing folder (Save
    /// creates it).
    pub fn open(given: &Path) -> Result<GraphFile, Failure> {
        let shown = given.display().to_string();
        let path = match std::fs::canonicalize(given) {
            Ok(p) if p.is_file() => p,
            Ok(_) => {
                return Err(Failure::bad_input(format!(
                    "{shown}: not a file (give a graph JSON file)"
                )))
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {
                let name = given
                    .file_name()
                    .ok_or_else(|| Failure::bad_input(format!("{shown}: not a file name")))?;
                let parent = match given.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p,
                    _ => Path::new("."),
                };
                let folder = std::fs::canonicalize(parent).map_err(|e| {
                    Failure::bad_input(format!(
                        "{shown}: folder {} does not exist ({e})",
                        parent.display()
                    ))
                })?;
                folder.join(name)
            }
            Err(e) => return Err(Failure::bad_input(format!("{shown}: {e}"))),
        };
        let file = GraphFile { shown, path };
        file.read()?;
        Ok(file)
    }

    /// The file's bytes, `None` when it does not exist.
    pub fn read(&self) -> Result<Option<Vec<u8>>, Failure> {
        let file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Failure::bad_input(format!("{}: {e}", self.shown))),
        };
        let mut bytes = Vec::new();
        file.take(MAX_GRAPH_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| Failure::bad_input(format!("{}: {e}", self.shown)))?;
        if bytes.len() > MAX_GRAPH_BYTES {
            return Err(Failure::bad_input(format!(
                "{}: over {MAX_GRAPH_BYTES} bytes, too large for a graph",
                self.shown
            )));
        }
        Ok(Some(bytes))
    }

    /// The version of `bytes` (see [`GraphFile::read`]).
    pub fn version_of(bytes: Option<&[u8]>) -> String {
        match bytes {
            None => ABSENT.to_string(),
            Some(b) => {
                let mut h = DefaultHasher::new();
                b.hash(&mut h);
                format!("{:016x}-{}", h.finish(), b.len())
            }
        }
    }

    /// The file's current version.
    pub fn version(&self) -> Result<String, Failure> {
        Ok(Self::version_of(self.read()?.as_deref()))
    }

    /// Replaces the file with `text` atomically (a temporary file beside it, synced, then
    /// renamed over it), keeping its permissions; returns the new version.
    pub fn save(&self, text: &str) -> Result<String, Failure> {
        let mut bytes = text.as_bytes().to_vec();
        if !bytes.ends_with(b"\n") {
            bytes.push(b'\n');
        }
        let permissions = std::fs::metadata(&self.path).ok().map(|m| m.permissions());
        write_atomic(&self.path, |tmp| {
            let io = |source| noisegraph::Error::Io {
                path: tmp.display().to_string(),
                source,
            };
            let mut f = File::create(tmp).map_err(io)?;
            f.write_all(&bytes).map_err(io)?;
            if let Some(p) = permissions {
                f.set_permissions(p).map_err(io)?;
            }
            f.sync_all().map_err(io)
        })
        .map_err(|e| Failure {
            code: 1,
            message: format!("saving {}: {e}", self.shown),
        })?;
        Ok(Self::version_of(Some(&bytes)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("ng-serve-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn saves_atomically_and_tracks_versions() {
        let dir = temp_dir("save");
        let path = dir.join("g.json");
        let file = GraphFile::open(&path).unwrap();
        assert_eq!(file.version().unwrap(), ABSENT);
        let v1 = file.save("{\"a\": 1}").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"a\": 1}\n");
        assert_eq!(file.version().unwrap(), v1);
        std::fs::write(&path, "{\"a\": 2}\n").unwrap();
        assert_ne!(file.version().unwrap(), v1);
        // Nothing but the file is left in its folder.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("g.json")]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[cfg(unix)]
    #[test]
    fn keeps_permissions_and_writes_through_links() {
        use std::os::unix::fs::{symlink, PermissionsExt};
        let dir = temp_dir("perm");
        let target = dir.join("real.json");
        std::fs::write(&target, "{}").unwrap();
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = dir.join("link.json");
        symlink(&target, &link).unwrap();
        let file = GraphFile::open(&link).unwrap();
        assert_eq!(file.shown, link.display().to_string());
        file.save("{\"b\": 1}").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "{\"b\": 1}\n");
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        let mode = std::fs::metadata(&target).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn refuses_folders_missing_folders_and_huge_files() {
        let dir = temp_dir("refuse");
        assert!(GraphFile::open(&dir).is_err());
        assert!(GraphFile::open(&dir.join("no/such/g.json")).is_err());
        let big = dir.join("big.json");
        std::fs::write(&big, vec![b' '; MAX_GRAPH_BYTES + 1]).unwrap();
        let e = GraphFile::open(&big).err().unwrap();
        assert!(e.message.contains("too large"), "{}", e.message);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
