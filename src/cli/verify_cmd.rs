//! `uttt verify FILE`: checks every block of a certificate with the independent verifier
//! (game rules only), and says what the blocks prove together.

use super::args::VerifyArgs;
use super::{EXIT_INCOMPLETE, EXIT_OK};
use crate::certificate::{read_blocks, verify_block, Claim, ClaimKind, Failure, Verified};
use crate::game::{Player, Position};
use anyhow::Context;
use serde::Serialize;
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// The check of one block.
pub struct BlockCheck {
    /// The block's claim.
    pub claim: Claim,
    /// The block's position.
    pub position: Position,
    /// What the verifier found.
    pub result: Result<Verified, Failure>,
}

/// A whole file's check.
pub struct FileCheck {
    /// Every block, in file order.
    pub blocks: Vec<BlockCheck>,
    /// Wall time of reading and checking.
    pub elapsed: Duration,
}

impl FileCheck {
    /// Whether every block verified.
    pub fn all_verified(&self) -> bool {
        self.blocks.iter().all(|b| b.result.is_ok())
    }

    /// Distinct positions visited over all blocks.
    pub fn positions(&self) -> u64 {
        self.blocks
            .iter()
            .filter_map(|b| b.result.as_ref().ok())
            .map(|v| v.positions)
            .sum()
    }

    /// What the verified blocks prove, one statement per position, e.g. `draw in X;...`.
    pub fn proves(&self) -> Vec<String> {
        let mut positions: Vec<Position> = Vec::new();
        for block in &self.blocks {
            if !positions.contains(&block.position) {
                positions.push(block.position);
            }
        }
        positions
            .iter()
            .filter_map(|pos| {
                let verified = |kind, prover| {
                    self.blocks.iter().any(|b| {
                        b.position == *pos && b.result.is_ok() && b.claim == Claim { prover, kind }
                    })
                };
                let statement = if verified(ClaimKind::Wins, Player::X) {
                    "X wins".to_string()
                } else if verified(ClaimKind::Wins, Player::O) {
                    "O wins".to_string()
                } else {
                    match (
                        verified(ClaimKind::Holds, Player::X),
                        verified(ClaimKind::Holds, Player::O),
                    ) {
                        (true, true) => "draw".to_string(),
                        (true, false) => "X does not lose".to_string(),
                        (false, true) => "O does not lose".to_string(),
                        (false, false) => return None,
                    }
                };
                Some(format!("{statement} in {pos}"))
            })
            .collect()
    }
}

/// Reads and checks the certificate at `path`; an error when it cannot be read or parsed.
pub fn check_file(path: &Path) -> anyhow::Result<FileCheck> {
    let start = Instant::now();
    let file = std::fs::File::open(path)
        .with_context(|| format!("cannot read certificate {}", path.display()))?;
    let blocks = read_blocks(&mut std::io::BufReader::new(file))
        .with_context(|| format!("certificate {}", path.display()))?;
    let blocks = blocks
        .iter()
        .map(|block| BlockCheck {
            claim: block.claim,
            position: block.position,
            result: verify_block(block),
        })
        .collect();
    Ok(FileCheck {
        blocks,
        elapsed: start.elapsed(),
    })
}

/// One block in the JSON.
#[derive(Serialize)]
struct BlockJson {
    block: usize,
    claim: String,
    position: Position,
    verified: bool,
    positions: u64,
    bytes: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The JSON object of `uttt verify`.
#[derive(Serialize)]
struct VerifyJson {
    file: String,
    verified: bool,
    blocks: Vec<BlockJson>,
    proves: Vec<String>,
    time_ms: u64,
}

/// Runs `uttt verify`: exit 0 when every block verifies, 1 when one does not; a file that
/// cannot be read or parsed is an error (exit 2).
pub fn run(args: &VerifyArgs) -> anyhow::Result<i32> {
    let check = check_file(&args.file)?;
    let text = if args.json {
        let json = VerifyJson {
            file: args.file.display().to_string(),
            verified: check.all_verified(),
            blocks: check
                .blocks
                .iter()
                .enumerate()
                .map(|(i, b)| BlockJson {
                    block: i + 1,
                    claim: b.claim.to_string(),
                    position: b.position,
                    verified: b.result.is_ok(),
                    positions: b.result.as_ref().map_or(0, |v| v.positions),
                    bytes: b.result.as_ref().map_or(0, |v| v.bytes),
                    error: b.result.as_ref().err().map(ToString::to_string),
                })
                .collect(),
            proves: check.proves(),
            time_ms: check.elapsed.as_millis() as u64,
        };
        serde_json::to_string(&json)? + "\n"
    } else {
        check_text(&check)
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(if check.all_verified() {
        EXIT_OK
    } else {
        EXIT_INCOMPLETE
    })
}

/// The text report: one line per block, then what they prove.
pub fn check_text(check: &FileCheck) -> String {
    let mut out = String::new();
    for (i, b) in check.blocks.iter().enumerate() {
        let _ = match &b.result {
            Ok(v) => writeln!(
                out,
                "block {}  claim {}  verified: {} positions, {} bytes  ({})",
                i + 1,
                b.claim,
                v.positions,
                v.bytes,
                b.position
            ),
            Err(failure) => writeln!(
                out,
                "block {}  claim {}  FAILED: {failure}  (block position {})",
                i + 1,
                b.claim,
                b.position
            ),
        };
    }
    for statement in check.proves() {
        let _ = writeln!(out, "proves   {statement}");
    }
    let _ = writeln!(out, "time     {:.3} s", check.elapsed.as_secs_f64());
    out
}
