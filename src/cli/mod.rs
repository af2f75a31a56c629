//! The command line: argument parsing, output formatting, progress and signals (a command
//! stopped by Ctrl-C or SIGTERM exits 128 + the signal's number, see `interrupt`). The only layer
//! that knows about terminals and exit codes.

mod args;
mod bus_error;
mod db_cmd;
mod gen_cmd;
mod interrupt;
mod learn_cmd;
mod perft_cmd;
mod serve_cmd;
mod show;
mod solve;
mod verify_cmd;

use crate::table::TableError;
use args::{Cli, Command};
use clap::Parser;

/// Exit code for success.
pub const EXIT_OK: i32 = 0;
/// Exit code for "ran, but something was unknown, mismatched or bad".
pub const EXIT_INCOMPLETE: i32 = 1;
/// Exit code for usage errors and bad input.
pub const EXIT_USAGE: i32 = 2;
/// Exit code when a certificate fails its check (`uttt verify`, or a solve's own with
/// `--verify`): a bug to report, not a limit or bad input.
pub const EXIT_CERTIFICATE_FAILED: i32 = 3;

/// Parses the command line, runs the command and returns the process exit code. Errors are
/// printed to stderr as `error: ...`.
pub fn main_exit_code() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap prints help/version to stdout with exit 0, real errors to stderr with 2.
            let _ = e.print();
            return e.exit_code();
        }
    };
    match run(cli) {
        Ok(code) => code,
        // A reader that went away (`| head`) is not an error worth a message.
        Err(e) if is_broken_pipe(&e) => EXIT_OK,
        Err(e) => {
            eprintln!("error: {e:#}");
            stopped_exit_code(&e).unwrap_or(EXIT_USAGE)
        }
    }
}

/// The exit code of a command that ended in an error because it was stopped: by a signal,
/// 128 + its number; by `--time-limit`, [`EXIT_INCOMPLETE`], as an unfinished answer has.
fn stopped_exit_code(error: &anyhow::Error) -> Option<i32> {
    let stopped = error.chain().any(|cause| {
        matches!(cause.downcast_ref(), Some(TableError::Stopped { .. }))
            || cause
                .downcast_ref::<std::io::Error>()
                .is_some_and(crate::files::lines::is_stopped)
    });
    stopped.then(|| interrupt::exit_code().unwrap_or(EXIT_INCOMPLETE))
}

fn run(cli: Cli) -> anyhow::Result<i32> {
    match cli.command {
        Command::Show(args) => show::run(&args),
        Command::Perft(args) => perft_cmd::run(&args),
        Command::Solve(args) => solve::run_solve(&args),
        Command::Analyze(args) => solve::run_analyze(&args),
        Command::Play(args) => solve::run_play(&args),
        Command::Review(args) => solve::run_review(&args),
        Command::Serve(args) => serve_cmd::run(&args),
        Command::Verify(args) => verify_cmd::run(&args),
        Command::Gen(args) => gen_cmd::run(&args),
        Command::Db(command) => db_cmd::run(&command),
        Command::Campaign(command) => solve::run_campaign(&command),
        Command::Learn(command) => learn_cmd::run(&command),
    }
}

/// Whether to colour output on stdout: only on a terminal, never with `NO_COLOR` set.
pub(crate) fn use_colour() -> bool {
    use std::io::IsTerminal;
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|cause| cause.downcast_ref::<std::io::Error>())
        .any(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}
