//! Writing a file whole or not at all: into a temporary part beside the target, synced, then
//! renamed over it (a rename within one directory is atomic), so that a write that fails or
//! is killed leaves the old file as it was. A part is named after its target and the process
//! that writes it (`NAME.part-PID`): two processes never write one part, and the next run
//! knows which parts belong to processes that are gone.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file being written in place of `target` (see the module documentation). Dropped without
/// [`Replacement::commit`], it removes its part and leaves the target alone.
pub struct Replacement {
    target: PathBuf,
    part: PathBuf,
    file: Option<File>,
}

impl Replacement {
    /// Starts writing in place of `target`: parts of `target` left by processes that are gone
    /// are removed, and a new part is created (never through an existing file or link of
    /// its name). A target that is a link is replaced where it leads.
    pub fn create(target: &Path) -> io::Result<Replacement> {
        let target = match std::fs::symlink_metadata(target) {
            Ok(metadata) if metadata.file_type().is_symlink() => target.canonicalize()?,
            _ => target.to_path_buf(),
        };
        remove_stale_parts(&target);
        let part = part_path(&target, std::process::id());
        // A part of this process's own number is one it left after a failure it has
        // forgotten, or a dead process's whose number came back: nobody writes it now.
        let _ = std::fs::remove_file(&part);
        let file = File::options().write(true).create_new(true).open(&part)?;
        Ok(Replacement {
            target,
            part,
            file: Some(file),
        })
    }

    /// The part being written.
    pub fn file(&mut self) -> &mut File {
        self.file
            .as_mut()
            .expect("a replacement holds its file until it commits")
    }

    /// The file it will replace.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Syncs the part and renames it over the target.
    pub fn commit(mut self) -> io::Result<()> {
        // Until the rename is done the part is removed on the way out (see `Drop`).
        self.file().sync_all()?;
        std::fs::rename(&self.part, &self.target)?;
        self.file = None;
        // The rename is durable once the directory is synced; a system that cannot sync a
        // directory still has the file whole, old or new.
        if let Some(directory) = self.target.parent().filter(|d| !d.as_os_str().is_empty()) {
            if let Ok(directory) = File::open(directory) {
                let _ = directory.sync_all();
            }
        }
        Ok(())
    }
}

impl Write for Replacement {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.file().write(bytes)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file().flush()
    }
}

impl Drop for Replacement {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.part);
        }
    }
}

/// Whether `target` can be written by a [`Replacement`]: checked before long work whose
/// result goes there (a search, then its certificate), so that the work is not done in vain.
/// A part is created and removed again; a directory is refused.
pub fn check_writable(target: &Path) -> io::Result<()> {
    if target.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "it is a directory",
        ));
    }
    Replacement::create(target).map(drop)
}

/// The part of `target` this process writes.
pub fn part_of(target: &Path) -> PathBuf {
    part_path(target, std::process::id())
}

/// The part of `target` written by process `pid`.
pub(super) fn part_path(target: &Path, pid: u32) -> PathBuf {
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".part-{pid}"));
    target.with_file_name(name)
}

/// Removes the parts of `target` (`NAME.part-PID`) whose process is gone: what a write killed
/// half way left. Parts of live processes, and anything else, stay; nothing here fails.
pub fn remove_stale_parts(target: &Path) {
    let Some(name) = target.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let directory = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let prefix = format!("{name}.part-");
    remove_files_of_gone_processes(directory, |file| file.strip_prefix(&prefix)?.parse().ok());
}

/// Removes the files of `directory` that `owner` names a process for (by the file's name),
/// where that process is gone: the temporary files a killed process left. Nothing here fails.
pub fn remove_files_of_gone_processes(directory: &Path, owner: impl Fn(&str) -> Option<u32>) {
    let Ok(listing) = std::fs::read_dir(directory) else {
        return;
    };
    for item in listing.flatten() {
        let name = item.file_name();
        let Some(pid) = name.to_str().and_then(&owner) else {
            continue;
        };
        if pid != std::process::id() && process_is_gone(pid) {
            let _ = std::fs::remove_file(item.path());
        }
    }
}

/// Whether no process of number `pid` exists (a process of another user exists too).
#[cfg(unix)]
pub(super) fn process_is_gone(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    if pid <= 0 {
        return false;
    }
    // SAFETY: signal 0 sends nothing; it only asks whether the process exists.
    let result = unsafe { libc::kill(pid, 0) };
    result != 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Elsewhere no part is known to be stale.
#[cfg(not(unix))]
pub(super) fn process_is_gone(_pid: u32) -> bool {
    false
}
