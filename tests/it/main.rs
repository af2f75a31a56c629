//! The integration tests, in one binary: one link of the release profile's LTO instead of one
//! per file, which was most of `cargo test --release`'s build time. Each file is a module; a
//! test's name starts with its file's (`solve_oracle::...`), so `cargo test --test it --
//! solve_oracle::` runs one file's tests. The heaviest oracle sweeps are `#[ignore]`d:
//! `cargo test --release -- --ignored` runs them (`.ci/run` does).
mod common;

mod analyze_cli;
mod batch_cli;
mod bounded_facts;
mod campaign_cli;
mod campaign_race;
mod campaign_refit;
mod certificate_cli;
mod certificates;
mod cli_errors;
mod cli_snapshots;
mod db_cli;
mod essential_hash;
mod estimates_oracle;
mod everyday_cli;
mod game_rules;
mod gen_cli;
mod hostile_files;
mod hostile_resources;
mod independent_checker;
mod kills_oracle;
mod learn_cli;
mod max_plies;
#[cfg(feature = "mpi")]
mod mpi_campaign_cli;
#[cfg(feature = "mpi")]
mod mpi_cli;
mod notations_cli;
mod oracle_reference;
mod perft;
mod play_oracle;
mod random_bytes;
mod review;
mod review_cli;
mod rule_sets;
mod rules_cli;
mod rules_oracle;
mod serve_api_cli;
mod serve_cli;
mod serve_hostile;
mod shared_entries;
mod solve_cli;
mod solve_oracle;
mod table_stress;
mod trapped_oracle;
mod win_in;
