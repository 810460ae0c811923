//! Atomic writes: every file is written under a temporary name beside its destination
//! (`.NAME.PID.partial`) and renamed into place when whole, so an interrupted bake never
//! leaves a file that looks complete. The temporary files being written are recorded so an
//! interrupt handler can remove them.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};

/// The temporary files this process is writing, so that an interrupt can remove them
/// ([`remove_partial_files`]). Creating one and removing them all take the same lock, so no
/// temporary file appears after the removal.
static PARTIALS: Mutex<Partials> = Mutex::new(Partials {
    paths: Vec::new(),
    closed: false,
});

struct Partials {
    paths: Vec<PathBuf>,
    /// Set by [`remove_partial_files`]: the process is ending; no new temporary file.
    closed: bool,
}

fn partials() -> std::sync::MutexGuard<'static, Partials> {
    PARTIALS.lock().unwrap_or_else(|e| e.into_inner())
}

fn interrupted() -> Error {
    Error::InvalidRequest("interrupted: no new file is started".into())
}

/// Creates the temporary file `tmp` and records it for [`remove_partial_files`].
fn create_partial(tmp: &Path, path: &Path) -> Result<File> {
    let mut p = partials();
    if p.closed {
        return Err(interrupted());
    }
    let file = File::create(tmp).map_err(io_err(path))?;
    p.paths.push(tmp.to_path_buf());
    Ok(file)
}

/// Forgets `tmp` (renamed into place or removed).
fn forget_partial(tmp: &Path) {
    partials().paths.retain(|p| p != tmp);
}

/// Removes every temporary file this process is writing and refuses new ones; returns how
/// many were removed. For an interrupt handler (the command-line tool calls it on SIGINT,
/// SIGTERM and SIGHUP, then exits): files already renamed into place are whole and stay.
pub fn remove_partial_files() -> usize {
    let mut p = partials();
    p.closed = true;
    let paths = std::mem::take(&mut p.paths);
    paths
        .iter()
        .filter(|t| std::fs::remove_file(t).is_ok())
        .count()
}

/// Removes the temporary files that bakes killed without a chance to clean up left beside
/// `path` (`.NAME.PID.partial`, of a process that no longer runs; checked through `/proc`,
/// so on systems without it nothing is removed). Returns how many were removed.
pub fn remove_stale_partials(path: &Path) -> usize {
    let Some(name) = path.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return 0;
    };
    if !Path::new("/proc/self").exists() {
        return 0;
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let prefix = format!(".{name}.");
    let own = std::process::id().to_string();
    entries
        .filter_map(|e| e.ok())
        .filter(|e| {
            let file = e.file_name().to_string_lossy().into_owned();
            let Some(pid) = file
                .strip_prefix(&prefix)
                .and_then(|rest| rest.strip_suffix(".partial"))
            else {
                return false;
            };
            !pid.is_empty()
                && pid.bytes().all(|b| b.is_ascii_digit())
                && pid != own
                && !Path::new("/proc").join(pid).exists()
                && e.file_type().is_ok_and(|t| t.is_file())
        })
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

/// A temporary path beside `path`, renamed into place by [`commit`].
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.{}.partial", std::process::id()))
}

/// Refuses an output path that exists and is not a regular file (a directory, a device node,
/// a fifo, a socket, or a link to one), without touching it: renaming the finished file into
/// place would replace it. Also clears a leftover temporary file of this process's id.
fn check_target(path: &Path, tmp: &Path) -> Result<()> {
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() {
            let kind = if meta.is_dir() {
                "a directory"
            } else {
                "not a regular file (a device, fifo or socket)"
            };
            return Err(Error::InvalidRequest(format!(
                "output {} exists and is {kind}; refusing to replace it",
                path.display()
            )));
        }
    }
    match std::fs::symlink_metadata(tmp) {
        Ok(meta) if meta.is_dir() => Err(Error::InvalidRequest(format!(
            "temporary file {} is a directory; remove it",
            tmp.display()
        ))),
        Ok(_) => std::fs::remove_file(tmp).map_err(io_err(tmp)),
        Err(_) => Ok(()),
    }
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Writes bytes produced by `write` atomically to `path`.
/// The whole write holds the lock [`remove_partial_files`] takes, so an interrupt waits for it
/// and then removes the temporary file.
pub fn write_atomic(path: &Path, write: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
    let tmp = temp_path(path);
    check_target(path, &tmp)?;
    let p = partials();
    if p.closed {
        return Err(interrupted());
    }
    let result = write(&tmp).and_then(|()| std::fs::rename(&tmp, path).map_err(io_err(path)));
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    drop(p);
    result
}

/// A file being written under its temporary name beside `path`: [`PartialFile::commit`]
/// syncs it and renames it into place; dropped before that (an error, a panic), the
/// temporary file is removed and nothing appears under the final name.
pub(crate) struct PartialFile {
    path: PathBuf,
    tmp: PathBuf,
    committed: bool,
}

impl PartialFile {
    /// Refuses a `path` that is not a regular file, then creates its temporary file.
    pub(crate) fn create(path: &Path) -> Result<(PartialFile, File)> {
        let tmp = temp_path(path);
        check_target(path, &tmp)?;
        let file = create_partial(&tmp, path)?;
        Ok((
            PartialFile {
                path: path.to_path_buf(),
                tmp,
                committed: false,
            },
            file,
        ))
    }

    /// The final path.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Syncs `file` (the temporary file, finished) and renames it into place.
    pub(crate) fn commit(mut self, file: File) -> Result<()> {
        let result = file.sync_all().map_err(io_err(&self.path)).and_then(|()| {
            drop(file);
            std::fs::rename(&self.tmp, &self.path).map_err(io_err(&self.path))
        });
        self.committed = result.is_ok();
        result
    }
}

impl Drop for PartialFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.tmp);
        }
        forget_partial(&self.tmp);
    }
}
