//! Certificate files: the proof of an answer written after the search (`--certificate`), and
//! checked by the independent verifier (`--verify`), for a solve, a batch line or a campaign.

use super::{certify, Certificate, CertifyError};
use crate::certificate::{check_file, write_block, Block, CheckFileError};
use crate::files::{remove_files_of_gone_processes, Replacement};
use crate::game::Position;
use crate::services::{SolveReport, Verdict, WinIn, WinInAnswer};
use crate::table::Table;
use serde::Serialize;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// What the user asked for.
pub struct CertificateRequest<'a> {
    /// Where to write the certificate; `None`: a temporary file (only with `verify`).
    pub path: Option<&'a Path>,
    /// Whether to check it after writing.
    pub verify: bool,
}

/// What came of a certificate, as reported under `certificate` in the JSON.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CertificateFigures {
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
    /// Why the certificate is not certified, when writing or checking it found a solver
    /// error (a bug).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Why the file could not be written, or read back for its check, in the system's words
    /// (a full disk, say): the answer stands, but there is no certificate of it. Not a bug:
    /// `certified` is then unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_written: Option<String>,
}

impl CertificateFigures {
    /// The figures of a certificate that could not be made for a solver error (a bug): not
    /// certified, for `problem`.
    pub fn failed(path: Option<PathBuf>, problem: String) -> CertificateFigures {
        CertificateFigures {
            path,
            certified: Some(false),
            problem: Some(problem),
            ..CertificateFigures::default()
        }
    }

    /// The figures of a certificate whose file could not be written or read back (`error`):
    /// not written, and nothing said of its check.
    pub fn not_written(path: Option<PathBuf>, error: &CertificateFileError) -> CertificateFigures {
        CertificateFigures {
            path,
            // The message and its causes (what the system said), each after a colon.
            not_written: Some(
                anyhow::Chain::new(error)
                    .map(|cause| cause.to_string())
                    .collect::<Vec<_>>()
                    .join(": "),
            ),
            ..CertificateFigures::default()
        }
    }
}

/// Why a certificate file could not be written or read back.
#[derive(Debug)]
pub enum CertificateFileError {
    /// Creating or writing the file failed.
    Write {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// Reading it back for the check failed.
    Check(CheckFileError),
}

impl fmt::Display for CertificateFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CertificateFileError::Write { path, .. } => {
                write!(f, "cannot write certificate {}", path.display())
            }
            CertificateFileError::Check(error) => error.fmt(f),
        }
    }
}

impl std::error::Error for CertificateFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CertificateFileError::Write { source, .. } => Some(source),
            CertificateFileError::Check(error) => error.source(),
        }
    }
}

/// Writes (and with `verify` checks) the certificate of `report`'s answer, read from `table`.
/// `Ok(None)` when there is no answer to certify or `stop` ended the extraction. A solver
/// error found while writing, or a certificate that does not verify, is reported
/// (`certified: false`, with the `problem`): it is a bug, which the caller makes loud.
/// `name` goes into the name of the temporary file used when `request` names none. The answer
/// of a question with a ply bound ([`SolveReport::max_plies`]) gets bounded claims. A win
/// whose exact distance the report gives (`--win-in`) gets both halves of it too: "wins within
/// N" and "does not win within N − s", s being the plies between the winner's chances (see
/// [`crate::game::Rules::win_step`]; the bound the distance search disproved last), from which
/// the verifier states the distance.
pub fn write_and_check(
    report: &SolveReport,
    table: &Table,
    epsilon: f64,
    stop: &AtomicBool,
    request: &CertificateRequest,
    name: &str,
) -> Result<Option<CertificateFigures>, CertificateFileError> {
    if !report.verdict.is_answered() {
        return Ok(None);
    }
    let pos = &report.position;
    write_and_check_with(pos, request, name, || {
        let mut certificate = certify(pos, report.verdict, report.max_plies, table, epsilon, stop)?;
        for (verdict, plies) in distance_halves(report) {
            let half = certify(pos, verdict, Some(plies), table, epsilon, stop)?;
            certificate.blocks.extend(half.blocks);
            certificate.research_nodes += half.research_nodes;
        }
        Ok(certificate)
    })
}

/// The bounded answers that prove `report`'s exact distance, if it gives one: the win within
/// it, and where a lower bound says more than the game not being over, no win within the
/// bound below it that the winner could have won by.
fn distance_halves(report: &SolveReport) -> Vec<(Verdict, u32)> {
    let (Verdict::Wins(winner), WinInAnswer::Win(WinIn::Exact(plies)), None) =
        (report.verdict, report.win_in, report.max_plies)
    else {
        return Vec::new();
    };
    let mut halves = vec![(Verdict::Wins(winner), plies)];
    match plies.checked_sub(report.position.rules().win_step()) {
        Some(below) if below > 0 => halves.push((Verdict::DoesNotWin(winner), below)),
        _ => {}
    }
    halves
}

/// [`write_and_check`] of the certificate of an answer at `position` that `make` writes.
pub fn write_and_check_with(
    position: &Position,
    request: &CertificateRequest,
    name: &str,
    make: impl FnOnce() -> Result<Certificate, CertifyError>,
) -> Result<Option<CertificateFigures>, CertificateFileError> {
    let start = Instant::now();
    let certificate = match make() {
        Ok(certificate) => certificate,
        Err(CertifyError::Stopped) => return Ok(None),
        Err(error) => {
            return Ok(Some(CertificateFigures {
                write_ms: start.elapsed().as_millis() as u64,
                ..CertificateFigures::failed(
                    request.path.map(Path::to_path_buf),
                    format!("no certificate for {position}: {error}"),
                )
            }));
        }
    };
    let blocks = certificate.blocks;
    // The certificate goes to a part beside the file named, renamed over it once whole (a
    // failed or stopped write leaves the file as it was), or to a temporary file removed when
    // this function returns, whichever way.
    let temporary;
    let path = match request.path {
        Some(path) => {
            let replacement =
                Replacement::create(path).map_err(|source| write_error(path, source))?;
            let mut out = std::io::BufWriter::new(replacement);
            write_blocks(&mut out, &blocks).map_err(|source| write_error(path, source))?;
            let replacement = out
                .into_inner()
                .map_err(|e| write_error(path, e.into_error()))?;
            replacement
                .commit()
                .map_err(|source| write_error(path, source))?;
            path
        }
        None => {
            let file;
            (temporary, file) = TempFile::create(name)?;
            let path = temporary.0.as_path();
            let mut out = std::io::BufWriter::new(file);
            write_blocks(&mut out, &blocks).map_err(|source| write_error(path, source))?;
            path
        }
    };
    let mut figures = CertificateFigures {
        path: request.path.map(Path::to_path_buf),
        blocks: blocks.len(),
        bytes: blocks.iter().map(|b| b.moves.len()).sum(),
        write_ms: start.elapsed().as_millis() as u64,
        research_nodes: certificate.research_nodes,
        ..CertificateFigures::default()
    };
    if request.verify {
        let check = check_file(path).map_err(CertificateFileError::Check)?;
        if !check.all_verified() {
            figures.problem = Some(format!(
                "the certificate of {position} does not verify:\n{check}"
            ));
        }
        figures.certified = Some(check.all_verified());
        figures.positions = Some(check.positions());
        figures.verify_ms = Some(check.elapsed.as_millis() as u64);
    }
    Ok(Some(figures))
}

/// Writes every block to `out` and flushes it.
fn write_blocks(out: &mut impl Write, blocks: &[Block]) -> std::io::Result<()> {
    for block in blocks {
        write_block(out, block)?;
    }
    out.flush()
}

fn write_error(path: &Path, source: std::io::Error) -> CertificateFileError {
    CertificateFileError::Write {
        path: path.to_path_buf(),
        source,
    }
}

/// A temporary certificate file: created new under a fresh name (never through an existing
/// file or link of that name), and removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    /// A new empty file in the system's temporary directory, with `name` in its file name.
    fn create(name: &str) -> Result<(TempFile, std::fs::File), CertificateFileError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        static SWEPT: std::sync::Once = std::sync::Once::new();
        // Once a process: the files of killed processes go (`uttt-PID-...cert`).
        SWEPT.call_once(|| {
            remove_files_of_gone_processes(&std::env::temp_dir(), |file| {
                let rest = file.strip_prefix("uttt-")?;
                file.ends_with(".cert").then_some(())?;
                rest.split('-').next()?.parse().ok()
            });
        });
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
                Err(e) => return Err(write_error(&path, e)),
            }
        }
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}
