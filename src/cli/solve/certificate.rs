//! `--certificate` and `--verify` of `uttt solve`: write the proof of an answer after the
//! search, and check it with the independent verifier.

use crate::certificate::{check_file, write_block};
use crate::game::Position;
use crate::services::{certify, Certificate, CertifyError, SolveReport};
use crate::table::Table;
use anyhow::Context;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// What the user asked for.
pub struct Request<'a> {
    /// Where to write the certificate; `None`: a temporary file (only with `verify`).
    pub path: Option<&'a Path>,
    /// Whether to check it after writing.
    pub verify: bool,
}

/// What came of a certificate, as reported under `certificate` in the JSON.
#[derive(Clone, Debug, Serialize)]
pub struct Figures {
    /// The file written, or `None` for a temporary one (removed after the check).
    pub path: Option<PathBuf>,
    /// Blocks written.
    pub blocks: usize,
    /// Move bytes written over all blocks.
    pub bytes: usize,
    /// Time to extract and write it.
    pub write_ms: u64,
    /// MID calls spent solving again positions the table had lost.
    pub research_nodes: u64,
    /// With `--verify`: whether every block verified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub certified: Option<bool>,
    /// With `--verify`: distinct positions the verifier visited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<u64>,
    /// With `--verify`: its time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verify_ms: Option<u64>,
}

/// Writes (and with `verify` checks) the certificate of `report`'s answer, read from `table`.
/// `Ok(None)` when there is no answer to certify or `stop` ended the extraction. A solver
/// error found while writing, or a certificate that does not verify, is printed loudly to
/// stderr and reported (`certified: false`); it is a bug, and the caller exits with
/// [`crate::cli::EXIT_CERTIFICATE_FAILED`].
pub fn write_and_check(
    report: &SolveReport,
    table: &Table,
    epsilon: f64,
    stop: &AtomicBool,
    request: &Request,
    name: &str,
) -> anyhow::Result<Option<Figures>> {
    if !report.verdict.is_answered() {
        return Ok(None);
    }
    write_and_check_with(&report.position, request, name, || {
        certify(&report.position, report.verdict, table, epsilon, stop)
    })
}

/// [`write_and_check`] of the certificate of an answer at `position` that `make` writes.
pub fn write_and_check_with(
    position: &Position,
    request: &Request,
    name: &str,
    make: impl FnOnce() -> Result<Certificate, CertifyError>,
) -> anyhow::Result<Option<Figures>> {
    let start = Instant::now();
    let certificate = match make() {
        Ok(certificate) => certificate,
        Err(CertifyError::Stopped) => return Ok(None),
        Err(error) => {
            eprintln!("BUG: no certificate for {position}: {error}");
            return Ok(Some(Figures {
                path: request.path.map(Path::to_path_buf),
                blocks: 0,
                bytes: 0,
                write_ms: start.elapsed().as_millis() as u64,
                research_nodes: 0,
                certified: Some(false),
                positions: None,
                verify_ms: None,
            }));
        }
    };
    let blocks = certificate.blocks;
    // Removed when this function returns, whichever way.
    let temporary;
    let (path, file) = match request.path {
        Some(path) => (
            path,
            std::fs::File::create(path)
                .with_context(|| format!("cannot write certificate {}", path.display()))?,
        ),
        None => {
            let file;
            (temporary, file) = TempFile::create(name)?;
            (temporary.0.as_path(), file)
        }
    };
    let mut out = std::io::BufWriter::new(file);
    for block in &blocks {
        write_block(&mut out, block)
            .with_context(|| format!("cannot write certificate {}", path.display()))?;
    }
    out.flush()
        .with_context(|| format!("cannot write certificate {}", path.display()))?;
    drop(out);
    let mut figures = Figures {
        path: request.path.map(Path::to_path_buf),
        blocks: blocks.len(),
        bytes: blocks.iter().map(|b| b.moves.len()).sum(),
        write_ms: start.elapsed().as_millis() as u64,
        research_nodes: certificate.research_nodes,
        certified: None,
        positions: None,
        verify_ms: None,
    };
    if request.verify {
        let check = check_file(path)?;
        if !check.all_verified() {
            eprint!("BUG: the certificate of {position} does not verify:\n{check}");
        }
        figures.certified = Some(check.all_verified());
        figures.positions = Some(check.positions());
        figures.verify_ms = Some(check.elapsed.as_millis() as u64);
    }
    Ok(Some(figures))
}

/// A temporary certificate file: created new under a fresh name (never through an existing
/// file or link of that name), and removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    /// A new empty file in the system's temporary directory, with `name` in its file name.
    fn create(name: &str) -> anyhow::Result<(TempFile, std::fs::File)> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        loop {
            let path = std::env::temp_dir().join(format!(
                "uttt-{}-{}-{name}.cert",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(file) => return Ok((TempFile(path), file)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(anyhow::Error::new(e).context(format!(
                        "cannot create temporary certificate {}",
                        path.display()
                    )))
                }
            }
        }
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
