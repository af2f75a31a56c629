//! `uttt verify FILE`: checks every block of a certificate with the independent verifier
//! (game rules only), and says what the blocks prove together.

use super::args::VerifyArgs;
use super::{EXIT_CERTIFICATE_FAILED, EXIT_OK};
use crate::certificate::check_file;
use crate::services::VerifyJson;
use std::io::Write;

/// Runs `uttt verify`: exit 0 when every block verifies, [`EXIT_CERTIFICATE_FAILED`] when one
/// does not; a file that cannot be read or parsed is an error (exit 2).
pub fn run(args: &VerifyArgs) -> anyhow::Result<i32> {
    let check = check_file(&args.file)?;
    let text = if args.json {
        let json = VerifyJson::of(args.file.display().to_string(), &check);
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
