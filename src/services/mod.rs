//! The services: what a user asks of the solver, built from the engines in [`crate::search`]
//! and the table. Each answers with typed data; the command line renders it.
//!
//! - The one way into a solve: [`Solver`] ([`solve`]), which answers X wins / O wins / draw
//!   with the engines, consulting and filling the database of solved positions through
//!   [`known`] (the database keeper); what a solve found out: [`report`].
//! - Built on it: [`analyze`] (every move's value), [`review`] (where a game was won and
//!   lost), [`campaign`] (a solve kept in the database: running it, where it stands),
//!   [`certify`](mod@certify) (proof certificates from a solved table or campaign, written to
//!   files and checked), [`player`] (games played by short searches), [`play`] (a move chosen by Monte Carlo tree search
//!   that knows what is proved) and [`learn`] (the
//!   learned guide's samples, training and predictions).
//! - What every front end shares (the command line, the server and the Python package, which
//!   import this module and `crate::game`, never `crate::cli`): [`json`], the documented JSON
//!   objects of the answers; [`units`], the sizes and durations people write; [`board`], the
//!   board as text; [`memory`], tables refused when they do not fit; [`perft`], timed counts.

pub mod analyze;
pub mod board;
pub mod campaign;
pub mod certify;
pub mod json;
pub mod known;
pub mod learn;
pub mod memory;
pub mod perft;
pub mod play;
pub mod player;
pub mod report;
pub mod review;
pub mod solve;
pub mod units;

pub use analyze::{Analysis, MoveAnalysis};
pub use certify::{
    certify, claims_for, write_and_check, Certificate, CertificateFigures, CertificateRequest,
    CertifyError,
};
pub use json::{verdict_label, AnalysisJson, NotationsJson, SolveJson, VerifyJson};
pub use known::StorePolicy;
pub use play::{Estimate, PlayOptions, PlayReport, PlayedMove, Shares, TreePlayer};
pub use player::SearchPlayer;
pub use report::{
    BinaryOutcome, DatabaseReport, SearchReport, SolveReport, SolveValue, TableReport, Verdict,
};
pub use review::{review, Decision, Mark, PlyReview, Review, ReviewEvent, ReviewLimits, WalkEnd};
pub use solve::{Distance, DistanceBudget, Solver, WinIn, WinInAnswer, WinInMode};
