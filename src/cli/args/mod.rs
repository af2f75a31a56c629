//! Command-line options, parsed once into plain structs.

use crate::search::guide::Guide;
use crate::services::units::{parse_duration, parse_size};
use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

mod database;
mod learn;
mod play;
mod position;
mod serve;

pub use database::{
    CampaignCertifyArgs, CampaignCommand, CampaignRunArgs, CampaignStatusArgs, DbCheckArgs,
    DbCommand, DbImportArgs, DbStatsArgs,
};
pub use learn::{
    LearnCalibrateArgs, LearnCommand, LearnDataArgs, LearnPredictArgs, LearnQualityArgs,
    LearnTrainArgs,
};
pub use play::PlayArgs;
/// The most threads (or jobs) any option takes: the search's own cap, as clap reads a range.
const MAX_THREADS_ARG: i64 = crate::search::threads::MAX_THREADS as i64;

pub use position::{parse_rules, PositionArgs, RuleSetArg};
pub use serve::ServeArgs;

/// Solver for Ultimate Tic Tac Toe (common rules).
#[derive(Parser, Debug)]
#[command(name = "uttt", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Show a position as a board, with its legal moves and notation.
    #[command(after_help = "Example:\n  uttt show \"ee ea ae\"\n  uttt show start --moves ee,ea")]
    Show(ShowArgs),
    /// Count the leaves of the game tree to a fixed depth.
    #[command(after_help = "Example:\n  uttt perft 7\n  uttt perft 5 \"ee ea\" --divide --json")]
    Perft(PerftArgs),
    /// Solve a position: X wins, O wins or draw, with a best move and proof statistics.
    #[command(
        after_help = "Examples:\n  uttt solve \"X;...;...\" --time-limit 1m\n  uttt solve \"ee ea ae\" --moves \"eb be\" --engine dfpn --table-mem 2G --json\n  uttt solve start --moves \"ee ea\" --attacker X --table-file run.tt\n  uttt solve --file positions/demo.txt --json"
    )]
    Solve(SolveArgs),
    /// Analyse every legal move: its value (win, draw, loss or unknown) with a best reply.
    #[command(
        after_help = "Examples:\n  uttt analyze \"X;...;...\" --time-limit 1m\n  uttt analyze \"ee ea ae\" --json"
    )]
    Analyze(AnalyzeArgs),
    /// Choose a move by Monte Carlo tree search that knows what is proved: the move, the
    /// value where it is proved, and an estimate (shares of playouts) where it is not.
    #[command(
        after_help = "Examples:\n  uttt play \"ee ea\" --time-limit 500ms\n  uttt play \"X;...;...\" --playouts 20000 --threads 1 --seed 3 --json"
    )]
    Play(PlayArgs),
    /// Review a game: its positions solved from the end backwards on one table, each move
    /// marked best, mistake or blunder, and where the result was decided.
    #[command(
        after_help = "Examples:\n  uttt review \"ee ea ae ee ...\" --time-limit 30s\n  uttt review --file game.txt --all --json\n  uttt gen --plies 81 --allow-finished --player search --games --count 1 | uttt review -"
    )]
    Review(ReviewArgs),
    /// Serve an analysis board in the browser and its JSON API, on this machine only unless
    /// `--bind` says otherwise.
    #[command(
        after_help = "Example:\n  uttt serve --port 8080\n  curl 'http://127.0.0.1:8080/api/analyze?position=ee+ea+ae'"
    )]
    Serve(ServeArgs),
    /// Check a proof certificate with the independent verifier.
    #[command(
        after_help = "Example:\n  uttt solve \"X;...;...\" --certificate proof.cert\n  uttt verify proof.cert"
    )]
    Verify(VerifyArgs),
    /// Print positions (or games) from seeded playouts (for benchmarks and tests).
    #[command(after_help = "Example:\n  uttt gen --plies 40 --count 10 --seed 7 > positions.txt")]
    Gen(GenArgs),
    /// The database of solved positions (`--db`): counts, export, import and checks.
    #[command(
        subcommand,
        after_help = "Examples:\n  uttt db stats solved.db\n  uttt db export solved.db > facts.jsonl\n  uttt db import other.db facts.jsonl\n  uttt db check solved.db --sample 20"
    )]
    Db(DbCommand),
    /// Settle a position over as many runs as it takes: its PN-DFPN trees are kept in a
    /// database (`--db`) as they grow, and the same command resumes after any stop.
    #[command(
        subcommand,
        after_help = "Examples:\n  uttt campaign run \"X;...;...\" --db solved.db --time-limit 1h\n  uttt campaign status \"X;...;...\" --db solved.db\n  uttt campaign certify \"X;...;...\" --db solved.db --certificate proof.cert --verify"
    )]
    Campaign(CampaignCommand),
    /// The learned guide: training samples from the solver's own proofs, the model fitted to
    /// them, its quality and its predictions.
    #[command(
        subcommand,
        after_help = "Examples:\n  uttt learn data --games 200 --output samples.jsonl\n  uttt learn train samples.jsonl --out guide.bin\n  uttt learn quality held-out.jsonl\n  uttt gen --plies 30 --count 3 | uttt learn predict"
    )]
    Learn(LearnCommand),
}

/// The default of `--db-min-work`: answers of fewer nodes are not worth a row (they take
/// milliseconds to find again).
pub const DEFAULT_DB_MIN_WORK: u64 = crate::services::StorePolicy::DEFAULT_MIN_WORK;

/// Options of `uttt show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The position to show.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Print the position (and, for a game from the start, its moves) in this notation instead
    /// of as a board.
    #[arg(
        long = "as",
        value_enum,
        value_name = "NOTATION",
        conflicts_with = "json"
    )]
    pub notation: Option<NotationArg>,
    /// Print the position as one JSON object: its notation, side to move, legal moves and its
    /// other notations.
    #[arg(long)]
    pub json: bool,
}

/// A notation `uttt show --as` writes.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotationArg {
    /// This project's: `X;BOARDS;CELLS`, and moves such as `ee ea`.
    Uttt,
    /// uttt.ai's: the 93-digit state string and its link, and a game's move list and link.
    UtttAi,
    /// CodinGame's `row col` moves (a game from the start only: it has no position notation).
    Codingame,
}

/// Options of `uttt perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Depth in plies.
    pub depth: u32,
    /// The root position.
    #[command(flatten)]
    pub position: PositionArgs,
    /// Print the leaf count below each root move.
    #[arg(long)]
    pub divide: bool,
    /// Worker threads (split over root moves).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=MAX_THREADS_ARG))]
    pub threads: u32,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Which engine `uttt solve` uses.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineArg {
    /// The parallel engine: a root proof-number tree feeding DFPN jobs to `--threads` workers.
    PnDfpn,
    /// Single-threaded depth-first proof-number search.
    Dfpn,
    /// `--threads` DFPN searchers from the root sharing one table, each with its own ε.
    SharedDfpn,
}

/// How much of a win's distance a solve finds (`--win-in`).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinInArg {
    /// The exact number of plies, within the solve's limits.
    Exact,
    /// What a fifth more of the solve's nodes proves: the distance if short, else a range.
    Range,
    /// None.
    Off,
}

impl WinInArg {
    /// The services' mode.
    pub fn mode(self) -> crate::services::WinInMode {
        match self {
            WinInArg::Exact => crate::services::WinInMode::Exact,
            WinInArg::Range => crate::services::WinInMode::Range,
            WinInArg::Off => crate::services::WinInMode::Off,
        }
    }
}

/// A guide named on the command line (see [`Guide`]).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GuideArg {
    /// The hand-built estimate: mobility, live lines and threats.
    Rules,
    /// The model learned from the solver's own proofs.
    Learned,
    /// The hand-built estimate scaled by the game's stage, as the solver's own proofs say.
    Calibrated,
}

impl From<Guide> for GuideArg {
    fn from(guide: Guide) -> GuideArg {
        match guide {
            Guide::Rules => GuideArg::Rules,
            Guide::Learned => GuideArg::Learned,
            Guide::Calibrated => GuideArg::Calibrated,
        }
    }
}

impl GuideArg {
    /// The guide, its weights checked: an error names what is wrong with them.
    pub fn checked(self) -> anyhow::Result<Guide> {
        let guide = match self {
            GuideArg::Rules => Guide::Rules,
            GuideArg::Learned => Guide::Learned,
            GuideArg::Calibrated => Guide::Calibrated,
        };
        guide
            .checked()
            .map_err(|e| anyhow::anyhow!("--guide {}: {e}", guide.name()))?;
        Ok(guide)
    }
}

/// A player named on the command line.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlayerArg {
    /// The first player.
    #[value(name = "X", alias = "x")]
    X,
    /// The second player.
    #[value(name = "O", alias = "o")]
    O,
}

/// Options of `uttt solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// The position: `start`, the notation, or a move list from the start.
    #[arg(required_unless_present = "file", conflicts_with = "file")]
    pub position: Option<String>,
    /// Moves to play on top of the position (spaces or commas between moves).
    #[arg(long, value_name = "LIST", conflicts_with = "file")]
    pub moves: Option<String>,
    /// The rule set.
    #[command(flatten)]
    pub rule_set: RuleSetArg,
    /// Solve every position of a file (`-` for stdin): one per line, optionally followed by
    /// the expected value (`X`, `O` or `draw`); blank lines and `#` comments are skipped, and
    /// a line `rules NAME` sets the rule set for the lines after it.
    #[arg(long, value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Positions solved at once in a batch (default: the available parallelism). They share
    /// one table.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=MAX_THREADS_ARG))]
    pub jobs: Option<u32>,
    /// Ask only "does this player win?" (a single binary search).
    #[arg(long, value_enum)]
    pub attacker: Option<PlayerArg>,
    /// Ask only "does the attacker win within N plies?" (the side to move unless --attacker
    /// names the attacker): a depth-bounded search (0 to 81 plies), of every position with
    /// --file. With --db its answer is stored as a bounded fact, and bounded facts answer it.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=81))]
    pub max_plies: Option<u32>,
    /// How soon a win comes: the plies to the end of the game with best play (the winner
    /// quickest, the loser slowest), exact or the range proved with a fifth more nodes.
    #[arg(long, value_enum, value_name = "HOW", default_value = "off",
          conflicts_with_all = ["attacker", "max_plies"])]
    pub win_in: WinInArg,
    /// Write a proof certificate of the answer to this file (with --file: into this
    /// directory, one `line-N.cert` per position); `uttt verify` checks it.
    #[arg(long, value_name = "PATH")]
    pub certificate: Option<PathBuf>,
    /// Write the certificate (to a temporary file unless --certificate names one), check it
    /// with the independent verifier, and report whether the answer is certified.
    #[arg(long)]
    pub verify: bool,
    /// Give each PN-DFPN worker thread a `--table-mem` table of its own, as the worker ranks
    /// of an MPI run have, to measure what separate tables cost (one position only; the
    /// JSON's `table` figures are then the root's table's). A benchmark harness
    /// (`scripts/bench-mpi.sh`), so hidden from `--help`.
    #[arg(long, hide = true, conflicts_with_all = ["file", "certificate", "verify", "table_file"])]
    pub private_tables: bool,
    /// Run over MPI (start with `mpirun -np N`, N ≥ 2): rank 0 runs the root tree, every
    /// other rank `--threads` DFPN workers against its machine's `--table-mem` table.
    #[cfg(feature = "mpi")]
    #[arg(long, conflicts_with_all = ["file", "certificate", "verify", "table_file", "private_tables"])]
    pub mpi: bool,
    /// How the worker ranks share jobs and tables.
    #[cfg(feature = "mpi")]
    #[command(flatten)]
    pub mpi_options: MpiArgs,
    /// How to search.
    #[command(flatten)]
    pub search: SearchArgs,
}

/// The options of `--mpi` runs.
#[cfg(feature = "mpi")]
#[derive(Args, Debug)]
pub struct MpiArgs {
    /// With --mpi: how jobs are given to ranks (locality: to the ranks whose table knows the
    /// job's subtree).
    #[arg(long, value_enum, default_value = "locality", requires = "mpi")]
    pub mpi_assignment: AssignmentArg,
    /// With --mpi: give every worker rank a `--table-mem` table of its own, instead of one
    /// table in shared memory for the worker ranks of each machine (for measuring what
    /// separate machines cost, or where shared memory cannot hold the table).
    #[arg(long, requires = "mpi")]
    pub table_per_rank: bool,
}

/// How `--mpi` gives jobs to ranks.
#[cfg(feature = "mpi")]
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignmentArg {
    /// A job goes to the rank that ran the last job at its leaf or nearest ancestor.
    Locality,
    /// Ranks take jobs in turn.
    RoundRobin,
}

/// Options of `uttt analyze`.
#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    /// The position whose moves are analysed.
    #[command(flatten)]
    pub position: PositionArgs,
    /// How soon the game ends after each winning or losing move (the plies from before the
    /// move, which counts): exact, or the range proved with a fifth more nodes.
    #[arg(long, value_enum, value_name = "HOW", default_value = "off")]
    pub win_in: WinInArg,
    /// Ask of each move only "does it win within N plies?" (the move counts): a depth-bounded
    /// search of the position after it (0 to 81 plies).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=81),
          conflicts_with = "win_in")]
    pub max_plies: Option<u32>,
    /// Playouts of the tree search whose estimate stands beside each value left unknown
    /// (0: no estimates). Default: a quarter of the time limit (shared over the moves), or 10000 without one.
    #[arg(long, value_name = "N")]
    pub estimate_playouts: Option<u64>,
    /// How to search (the limits apply to the whole analysis).
    #[command(flatten)]
    pub search: SearchArgs,
}

/// Options of `uttt review`.
#[derive(Args, Debug)]
pub struct ReviewArgs {
    /// The game: its moves from the start in any accepted notation (a move list, a uttt.ai
    /// move list or link, CodinGame moves), or `-` to read it from stdin.
    #[arg(required_unless_present = "file", conflicts_with = "file")]
    pub game: Option<String>,
    /// Read the game from this file (`#` starts a comment; CodinGame moves may take a line
    /// each).
    #[arg(long, value_name = "PATH")]
    pub file: Option<PathBuf>,
    /// How soon the game ends from each won position (and which winning moves made the win
    /// further off): exact, or the range proved with a fifth more nodes.
    #[arg(long, value_enum, value_name = "HOW", default_value = "off")]
    pub win_in: WinInArg,
    /// The rule set the game was played under.
    #[command(flatten)]
    pub rule_set: RuleSetArg,
    /// Stop walking back after this many positions in a row are left unknown.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_REVIEW_STOP_AFTER,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub stop_after: u32,
    /// Walk back to the start, however many positions are left unknown.
    #[arg(long, conflicts_with = "stop_after")]
    pub all: bool,
    /// Playouts of the tree search whose estimate stands beside each value left unknown
    /// (0: no estimates). Default: a quarter of the time limit (each), or 10000 without one.
    #[arg(long, value_name = "N")]
    pub estimate_playouts: Option<u64>,
    /// How to search. `--time-limit` and `--node-limit` bound each position's solve
    /// (default time limit: 10s).
    #[command(flatten)]
    pub search: SearchArgs,
}

/// The default of `uttt review --stop-after`: two unknowns in a row rarely precede a known
/// value, since earlier positions are harder.
pub const DEFAULT_REVIEW_STOP_AFTER: u32 =
    crate::services::review::DEFAULT_UNKNOWNS_IN_A_ROW as u32;

/// The default time limit of each position's solve in `uttt review`.
pub const DEFAULT_REVIEW_TIME_LIMIT: Duration = crate::services::review::DEFAULT_TIME_LIMIT;

/// Options shared by every command that searches: engine, tuning, table, limits, output.
#[derive(Args, Debug)]
pub struct SearchArgs {
    /// No progress display (it is shown only when stderr is a terminal anyway).
    #[arg(long, short, conflicts_with = "progress")]
    pub quiet: bool,
    /// Show progress even when stderr is not a terminal (a log file): one line per second
    /// for a solve or an analysis, one per finished position for a batch.
    #[arg(long)]
    pub progress: bool,
    /// The search engine [default: pn-dfpn].
    #[arg(long, value_enum)]
    pub engine: Option<EngineArg>,
    /// Search threads of pn-dfpn and shared-dfpn (default: the available parallelism).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=MAX_THREADS_ARG))]
    pub threads: Option<u32>,
    /// PN-DFPN: cumulative work (nodes) after which a leaf joins the root tree.
    #[arg(long, value_name = "NODES", default_value_t = crate::search::options::DEFAULT_SPLIT_THRESHOLD)]
    pub split_threshold: u64,
    /// PN-DFPN: nodes each job may search before reporting back.
    #[arg(long, visible_alias = "job-nodes", value_name = "NODES", default_value_t = crate::search::options::DEFAULT_JOB_WORK)]
    pub job_work: u64,
    /// PN-DFPN: time each job may search before reporting back, as well as its nodes
    /// (e.g. 500ms, 2s).
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub job_time: Option<Duration>,
    /// PN-DFPN: memory for the root tree (same units as --table-mem).
    #[arg(long, value_name = "SIZE", default_value = "256M", value_parser = parse_size)]
    pub tree_mem: u64,
    /// ε of the 1+ε trick: child thresholds grow to (1+ε) times the second-best sibling.
    #[arg(long, default_value_t = crate::search::options::DEFAULT_EPSILON)]
    pub epsilon: f64,
    /// Where new nodes' proof numbers come from: `rules` (the hand-built estimate),
    /// `learned` (the model trained on the solver's own proofs) or `calibrated` (the
    /// hand-built estimate scaled by the game's stage, as those proofs say). Changes the work,
    /// never the answer.
    #[arg(long, value_enum, default_value_t = GuideArg::from(Guide::default()))]
    pub guide: GuideArg,
    /// Transposition table size; K, M, G, T (or KiB, MiB, GiB, TiB) are powers of 1024,
    /// so 1G = 2^30 bytes. Rounded down to a power of two. Memory is used as the search
    /// needs it, so a large table costs a small solve nothing.
    #[arg(long, value_name = "SIZE", default_value = "1G", value_parser = parse_size)]
    pub table_mem: u64,
    /// Keep the table in this file: a later run with the same file resumes from its work.
    #[arg(long, value_name = "PATH")]
    pub table_file: Option<PathBuf>,
    /// The database of solved positions (SQLite; created if missing): answers found there
    /// come back without a search, and what is settled here is stored for later runs.
    #[arg(long, value_name = "PATH")]
    pub db: Option<PathBuf>,
    /// With --db: store an answer whose search took at least this many nodes.
    #[arg(long, value_name = "NODES", default_value_t = DEFAULT_DB_MIN_WORK, requires = "db")]
    pub db_min_work: u64,
    /// Give up with `unknown` after this long (e.g. 500ms, 30s, 2m, 1h).
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub time_limit: Option<Duration>,
    /// Give up with `unknown` after this many nodes.
    #[arg(long, value_name = "N")]
    pub node_limit: Option<u64>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Options of `uttt verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The certificate file.
    pub file: PathBuf,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Give up after this long (e.g. 500ms, 30s, 2m, 1h): an error, exit 1, and nothing said
    /// of the certificate.
    #[arg(long, value_name = "TIME", value_parser = parse_duration)]
    pub time_limit: Option<Duration>,
}

/// Options of `uttt gen`.
#[derive(Args, Debug)]
pub struct GenArgs {
    /// Random moves played from the start for each position.
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=81))]
    pub plies: u32,
    /// Number of positions.
    #[arg(long, default_value_t = 10)]
    pub count: usize,
    /// Seed of the generator: the same seed gives the same positions (for a given version).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The rule set the games are played under.
    #[command(flatten)]
    pub rule_set: RuleSetArg,
    /// Also keep games that ended before `--plies` moves (by default they are redrawn).
    #[arg(long)]
    pub allow_finished: bool,
    /// How moves are chosen: `random` (uniform playouts) or `search` (each move by short
    /// searches of every candidate, with seeded noise: positions like those of played games).
    #[arg(long, value_enum, default_value_t = GenPlayer::Random)]
    pub player: GenPlayer,
    /// Print each game's moves from the start (a move list) instead of the position it reaches:
    /// games for `uttt review`.
    #[arg(long)]
    pub games: bool,
    /// With `--player search`: MID calls for each candidate move's solve.
    #[arg(long, default_value_t = 20_000, value_name = "N")]
    pub search_nodes: u64,
    /// With `--player search`: the spread of the random amount added to each candidate's
    /// score (a win scores 4, a move that cannot lose 3, an open move 2-3, a draw 2, a loss 0).
    #[arg(long, default_value_t = 0.3, value_name = "X")]
    pub noise: f64,
}

/// How `uttt gen` chooses moves.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum GenPlayer {
    /// Uniformly random legal moves.
    Random,
    /// The best move by short searches, with seeded noise.
    Search,
}
