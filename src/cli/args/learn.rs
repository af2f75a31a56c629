//! The options of `uttt learn`: the learned guide's samples, training, quality and
//! predictions.

use super::MAX_THREADS_ARG;
use super::{parse_rules, PlayerArg, RuleSetArg};
use crate::game::Rules;
use crate::services::units::parse_size;
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// The `uttt learn` subcommands.
#[derive(Subcommand, Debug)]
pub enum LearnCommand {
    /// Writes training samples (JSON Lines): positions of seeded random games, each question
    /// solved by one-threaded DFPN with a node limit, and positions settled inside those
    /// searches.
    Data(LearnDataArgs),
    /// Fits the guide's pattern table to samples and writes the weights file; prints its
    /// quality on the games held out beside the hand-built estimate's.
    Train(LearnTrainArgs),
    /// Measures a weights file (by default the built-in one) on samples: rank correlation of
    /// predicted and real cost, beside the hand-built estimate.
    Quality(LearnQualityArgs),
    /// Prints the model's predictions for positions, one JSON Line each: the log2 work to prove
    /// and to disprove each question, and the outcome probabilities.
    Predict(LearnPredictArgs),
    /// Fits the calibrated guide's table (the hand-built estimate scaled by the game's stage)
    /// to samples and writes it.
    Calibrate(LearnCalibrateArgs),
}

/// The default seed of `uttt learn data`: far from the small seeds that made `positions/`.
pub const DEFAULT_DATA_SEED: u64 = 0x6775_6964_6500_0001; // "guide" and 1

/// Options of `uttt learn data`.
#[derive(Args, Debug)]
pub struct LearnDataArgs {
    /// Seeded games, one position from each.
    #[arg(long, default_value_t = 1000)]
    pub games: u64,
    /// The first game's index: games FIRST..FIRST+GAMES are made (a run may be split in
    /// parts whose files, put one after another, are the samples of one run from 0).
    #[arg(long, value_name = "FIRST", default_value_t = 0)]
    pub first_game: u64,
    /// The seed (the same seed, options and version give the same samples).
    #[arg(long, default_value_t = DEFAULT_DATA_SEED)]
    pub seed: u64,
    /// MID calls each question's search may take.
    #[arg(long, default_value_t = 100_000, value_name = "N")]
    pub node_limit: u64,
    /// The fewest stones a position may hold.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(0..=80))]
    pub min_stones: u32,
    /// The most stones a position may hold.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(0..=80))]
    pub max_stones: u32,
    /// The rule sets, taken in turn by the games (repeat the option, or `all`).
    #[arg(long = "rules", value_name = "NAME", default_value = "all", value_parser = parse_rule_sets)]
    pub rules: Vec<RuleSets>,
    /// Threads solving games at once (the samples do not depend on it).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=MAX_THREADS_ARG))]
    pub threads: u32,
    /// Each question's table (a fresh one for every question).
    #[arg(long, default_value = "16M", value_parser = parse_size, value_name = "SIZE")]
    pub table_mem: u64,
    /// A position settled inside a search with work W is kept with probability min(1, W / N).
    #[arg(long, default_value_t = 64, value_name = "N")]
    pub keep_work: u64,
    /// Also write positions searched inside a search and still open at its end, their work W
    /// a lower bound (`"result": "unsettled"`, `"root": false`), with probability min(1, W /
    /// (keep-work · N)); 0 writes none.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub keep_unsettled: u64,
    /// Files of positions no sample may equal or follow (the benchmarks'), in the batch
    /// format of `uttt solve --file`.
    #[arg(long, value_name = "FILE")]
    pub exclude: Vec<PathBuf>,
    /// Where to write the samples (default: standard output).
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// One or every rule set, as `--rules` names them.
#[derive(Clone, Debug)]
pub struct RuleSets(pub Vec<Rules>);

/// Reads `--rules` of `uttt learn data`: a rule set's name, or `all`.
fn parse_rule_sets(name: &str) -> Result<RuleSets, String> {
    if name.eq_ignore_ascii_case("all") {
        return Ok(RuleSets(Rules::ALL.to_vec()));
    }
    parse_rules(name).map(|rules| RuleSets(vec![rules]))
}

/// Options of `uttt learn train`.
#[derive(Args, Debug)]
pub struct LearnTrainArgs {
    /// Sample files (JSON Lines, from `uttt learn data`).
    #[arg(required = true, value_name = "DATA")]
    pub data: Vec<PathBuf>,
    /// Where to write the weights.
    #[arg(long, default_value = "models/guide.bin", value_name = "FILE")]
    pub out: PathBuf,
    /// The seed of the sample order and symmetries.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Passes over the samples.
    #[arg(long, default_value_t = 6)]
    pub epochs: u32,
    /// AdaGrad's step size.
    #[arg(long, default_value_t = 0.05)]
    pub learning_rate: f32,
    /// The games whose index is a multiple of N are held out of training and measured.
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = clap::value_parser!(u64).range(2..))]
    pub hold_out: u64,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Options of `uttt learn quality`.
#[derive(Args, Debug)]
pub struct LearnQualityArgs {
    /// Sample files (JSON Lines, from `uttt learn data`).
    #[arg(required = true, value_name = "DATA")]
    pub data: Vec<PathBuf>,
    /// A weights file to measure instead of the built-in one.
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// Options of `uttt learn predict`.
#[derive(Args, Debug)]
pub struct LearnPredictArgs {
    /// A file of positions, one a line, in any notation (`-`: standard input), as
    /// `uttt solve --file` reads them.
    #[arg(default_value = "-", value_name = "FILE")]
    pub file: PathBuf,
    /// The rule set of the positions (a line `rules NAME` changes it for the lines after it).
    #[command(flatten)]
    pub rule_set: RuleSetArg,
    /// Only the question "does this player win?" (default: both).
    #[arg(long, value_enum, value_name = "PLAYER")]
    pub attacker: Option<PlayerArg>,
    /// A weights file to read instead of the built-in one.
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
}

/// Options of `uttt learn calibrate`.
#[derive(Args, Debug)]
pub struct LearnCalibrateArgs {
    /// Sample files (JSON Lines, from `uttt learn data`).
    #[arg(required = true, value_name = "DATA")]
    pub data: Vec<PathBuf>,
    /// Where to write the table.
    #[arg(long, default_value = "models/calibration.bin", value_name = "FILE")]
    pub out: PathBuf,
    /// The games whose index is a multiple of N are left out, as `uttt learn train` leaves
    /// them out.
    #[arg(long, default_value_t = 10, value_name = "N", value_parser = clap::value_parser!(u64).range(2..))]
    pub hold_out: u64,
    /// The factor of the proof side's deviations from its mean (default: the shape chosen by
    /// node counts, see docs/learning.md).
    #[arg(long, value_name = "X")]
    pub proof_spread: Option<f64>,
    /// The factor of the disproof side's deviations from its mean.
    #[arg(long, value_name = "X")]
    pub disproof_spread: Option<f64>,
    /// log2 of how much larger proof numbers are made against disproof numbers.
    #[arg(long, value_name = "X")]
    pub proof_shift: Option<f64>,
}
