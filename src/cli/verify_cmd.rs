//! `uttt verify FILE`: checks every block of a certificate with the independent verifier
//! (game rules only), and says what the blocks prove together.

use super::args::VerifyArgs;
use super::{interrupt, EXIT_CERTIFICATE_FAILED, EXIT_INCOMPLETE, EXIT_OK};
use crate::certificate::{check_file_until, CheckFileError};
use crate::services::VerifyJson;
use std::io::Write;
use std::time::Instant;

/// Runs `uttt verify`: exit 0 when every block verifies, [`EXIT_CERTIFICATE_FAILED`] when one
/// does not; a file that cannot be read or parsed is an error (exit 2). A check stopped by
/// `--time-limit` is an error with [`EXIT_INCOMPLETE`], one stopped by Ctrl-C or SIGTERM exits
/// 128 + the signal's number, as other commands do: either way nothing is printed to stdout,
/// since a partial check proves nothing (a block's leaves may be later blocks).
pub fn run(args: &VerifyArgs) -> anyhow::Result<i32> {
    let stop = interrupt::stop_flag();
    // A limit too far to add to the clock is no limit.
    let deadline = args
        .time_limit
        .and_then(|limit| Instant::now().checked_add(limit));
    let check = match check_file_until(&args.file, stop, deadline) {
        Ok(check) => check,
        Err(CheckFileError::Stopped { path }) => {
            let (why, code) = match interrupt::exit_code() {
                Some(code) => ("it was interrupted".to_string(), code),
                None => (
                    format!(
                        "the time limit of {:?} ran out (--time-limit)",
                        args.time_limit.unwrap_or_default()
                    ),
                    EXIT_INCOMPLETE,
                ),
            };
            eprintln!(
                "error: the check of certificate {} stopped before it finished: {why}; \
                 nothing is known of the certificate",
                path.display()
            );
            return Ok(code);
        }
        Err(error) => return Err(error.into()),
    };
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
