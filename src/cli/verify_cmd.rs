//! `uttt verify FILE`: checks every block of a certificate with the independent verifier
//! (game rules only), and says what the blocks prove together.

use super::args::VerifyArgs;
use super::{EXIT_CERTIFICATE_FAILED, EXIT_OK};
use crate::certificate::check_file;
use crate::game::{Position, Rules};
use serde::Serialize;
use std::io::Write;

/// One block in the JSON.
#[derive(Serialize)]
struct BlockJson {
    block: usize,
    claim: String,
    position: Position,
    #[serde(skip_serializing_if = "Rules::is_common")]
    rules: Rules,
    verified: bool,
    positions: u64,
    bytes: usize,
    referenced: bool,
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

/// Runs `uttt verify`: exit 0 when every block verifies, [`EXIT_CERTIFICATE_FAILED`] when one
/// does not; a file that cannot be read or parsed is an error (exit 2).
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
                    rules: b.position.rules(),
                    verified: b.result.is_ok(),
                    positions: b.result.as_ref().map_or(0, |v| v.positions),
                    bytes: b.result.as_ref().map_or(0, |v| v.bytes),
                    referenced: b.referenced,
                    error: b.result.as_ref().err().map(ToString::to_string),
                })
                .collect(),
            proves: check.proves().iter().map(ToString::to_string).collect(),
            time_ms: check.elapsed.as_millis() as u64,
        };
        serde_json::to_string(&json)? + "\n"
    } else {
        check.to_string()
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(if check.all_verified() {
        EXIT_OK
    } else {
        EXIT_CERTIFICATE_FAILED
    })
}
