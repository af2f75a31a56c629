//! `uttt learn`: training samples from the solver's own proofs, the guide's model fitted to
//! them, its quality, and its predictions for any position; the calibrated guide's table
//! fitted to the same samples.

use super::args::{
    LearnCalibrateArgs, LearnCommand, LearnDataArgs, LearnPredictArgs, LearnQualityArgs,
    LearnTrainArgs,
};
use super::solve::entries::{read_entries, Entries};
use super::{interrupt, EXIT_INCOMPLETE, EXIT_OK};
use crate::files::lines::{open_input, read_at_most, LineEnd, LineReader};
use crate::files::{check_distinct, NamedPath, Replacement};
use crate::game::{format_position, Player, Position, Rules};
use crate::search::guide::{embedded_model, Model};
use crate::services::learn::calibrate::{calibrate, Shape};
use crate::services::learn::data::{generate, DataOptions};
use crate::services::learn::predict::predict;
use crate::services::learn::quality::{measure, Quality};
use crate::services::learn::train::{train, TrainOptions};
use crate::services::learn::{Prepared, Sample, Settled};
use anyhow::Context;
use serde_json::json;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Runs a `uttt learn` subcommand.
pub fn run(command: &LearnCommand) -> anyhow::Result<i32> {
    match command {
        LearnCommand::Data(args) => run_data(args),
        LearnCommand::Train(args) => run_train(args),
        LearnCommand::Quality(args) => run_quality(args),
        LearnCommand::Predict(args) => run_predict(args),
        LearnCommand::Calibrate(args) => run_calibrate(args),
    }
}

fn run_data(args: &LearnDataArgs) -> anyhow::Result<i32> {
    anyhow::ensure!(
        args.min_stones <= args.max_stones,
        "--min-stones {} is more than --max-stones {}",
        args.min_stones,
        args.max_stones
    );
    let mut rules: Vec<Rules> = args.rules.iter().flat_map(|r| r.0.clone()).collect();
    rules.dedup();
    let options = DataOptions {
        games: args.games,
        first_game: args.first_game,
        seed: args.seed,
        node_limit: args.node_limit.max(1),
        stones: args.min_stones..=args.max_stones,
        rules,
        threads: args.threads as usize,
        table_bytes: args.table_mem,
        keep_work: args.keep_work,
        keep_unsettled: args.keep_unsettled,
    };
    let mut files: Vec<NamedPath> = args
        .exclude
        .iter()
        .map(|path| NamedPath::read("--exclude", path))
        .collect();
    files.extend(
        args.output
            .as_deref()
            .map(|path| NamedPath::written("--output", path)),
    );
    check_distinct(&files)?;
    let mut excluded = Vec::new();
    for path in &args.exclude {
        for entry in read_entries(path, Rules::Common)? {
            let (pos, _) = entry
                .parsed
                .map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), entry.line))?;
            excluded.push(pos);
        }
    }
    // Into a part beside the file named, put in its place once the samples are all written.
    let mut replacement = match &args.output {
        Some(path) => Some(
            Replacement::create(path)
                .with_context(|| format!("cannot write {}", path.display()))?,
        ),
        None => None,
    };
    let mut out: Box<dyn Write> = match replacement.as_mut() {
        Some(replacement) => Box::new(std::io::BufWriter::new(replacement)),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let started = Instant::now();
    let stop = interrupt::stop_flag();
    let summary = generate(&options, &excluded, stop, &mut |samples: &[Sample]| {
        for sample in samples {
            serde_json::to_writer(&mut out, sample)?;
            out.write_all(b"\n")?;
        }
        Ok(())
    })?;
    out.flush()?;
    drop(out);
    if let (Some(replacement), Some(path)) = (replacement, &args.output) {
        replacement
            .commit()
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    eprintln!(
        "{} games ({} left out as positions of the benchmarks or after them): {} samples of \
         roots, {} of positions settled inside searches, {} of positions open at their ends; {} \
         nodes in {:.1} s",
        summary.games,
        summary.excluded,
        summary.root_samples,
        summary.inner_samples,
        summary.open_samples,
        summary.nodes,
        started.elapsed().as_secs_f64()
    );
    Ok(interrupt::exit_code().unwrap_or(EXIT_OK))
}

/// The longest line of a sample file: a sample's JSON is a few hundred bytes.
const MAX_SAMPLE_BYTES: usize = 64 << 10;

/// Reads sample files, each line a [`Sample`] of at most [`MAX_SAMPLE_BYTES`]; a bad line is
/// an error naming its file, line and column. A FIFO is waited for until Ctrl-C or SIGTERM.
fn read_samples(paths: &[PathBuf]) -> anyhow::Result<Vec<Prepared>> {
    let mut prepared = Vec::new();
    let mut line = Vec::new();
    for path in paths {
        let input = open_input(path, interrupt::stop_flag(), None, None)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let mut lines = LineReader::new(input, MAX_SAMPLE_BYTES);
        for index in 0.. {
            let end = lines
                .read_line(&mut line)
                .with_context(|| format!("cannot read {}", path.display()))?;
            let at = |column: usize| format!("{}:{}:{column}", path.display(), index + 1);
            match end {
                None => break,
                Some(LineEnd::TooLong) => anyhow::bail!(
                    "{}: not a sample: the line is longer than {MAX_SAMPLE_BYTES} bytes (a \
                     sample's is a few hundred)",
                    at(1)
                ),
                Some(LineEnd::Whole) if line.trim_ascii().is_empty() => continue,
                Some(LineEnd::Whole) => {}
            }
            let sample: Sample = serde_json::from_slice(&line)
                .map_err(|e| anyhow::anyhow!("{}: {e}", at(e.column())))?;
            if let Some(ready) =
                Prepared::of(&sample).map_err(|e| anyhow::anyhow!("{}: {e}", at(1)))?
            {
                prepared.push(ready);
            }
        }
    }
    Ok(prepared)
}

/// Refuses an output that is one of the sample files read.
fn check_outputs(data: &[PathBuf], out: &Path) -> anyhow::Result<()> {
    let mut files: Vec<NamedPath> = data.iter().map(|p| NamedPath::read("DATA", p)).collect();
    files.push(NamedPath::written("--out", out));
    Ok(check_distinct(&files)?)
}

fn run_train(args: &LearnTrainArgs) -> anyhow::Result<i32> {
    check_outputs(&args.data, &args.out)?;
    let started = Instant::now();
    let samples = read_samples(&args.data)?;
    let (held_out, training): (Vec<Prepared>, Vec<Prepared>) = samples
        .into_iter()
        .partition(|sample| sample.game % args.hold_out == 0);
    anyhow::ensure!(!training.is_empty(), "no samples to train on");
    let options = TrainOptions {
        seed: args.seed,
        epochs: args.epochs,
        learning_rate: args.learning_rate,
    };
    let model = train(&training, &options);
    let trained = started.elapsed();
    write_weights(&args.out, &model.to_bytes())?;
    let quality = measure(&model, &held_out);
    let fitted = measure(&model, &training);
    if args.json {
        let report = json!({
            "weights": args.out,
            "checksum": format!("{:016x}", model.checksum()),
            "training_samples": training.len(),
            "seconds": trained.as_secs_f64(),
            "held_out": quality,
            "training": fitted,
        });
        println!("{report}");
    } else {
        println!(
            "wrote {} (checksum {:016x}): {} samples, {} epochs, {:.1} s",
            args.out.display(),
            model.checksum(),
            training.len(),
            args.epochs,
            trained.as_secs_f64()
        );
        print_quality("held-out games", &quality);
        print_quality("training games", &fitted);
    }
    Ok(EXIT_OK)
}

/// Writes the weights through a part beside the file, so that a stopped run never leaves half
/// a file where the weights were.
fn write_weights(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let written = Replacement::create(path).and_then(|mut replacement| {
        replacement.write_all(bytes)?;
        replacement.commit()
    });
    written.with_context(|| format!("cannot write {}", path.display()))
}

fn run_calibrate(args: &LearnCalibrateArgs) -> anyhow::Result<i32> {
    check_outputs(&args.data, &args.out)?;
    let samples = read_samples(&args.data)?;
    let fitted: Vec<Prepared> = samples
        .into_iter()
        .filter(|sample| sample.game % args.hold_out != 0)
        .collect();
    anyhow::ensure!(
        fitted.iter().any(|s| s.result != Settled::Unsettled),
        "no settled samples to fit"
    );
    let default = Shape::default();
    let shape = Shape {
        proof_spread: args.proof_spread.unwrap_or(default.proof_spread),
        disproof_spread: args.disproof_spread.unwrap_or(default.disproof_spread),
        proof_shift: args.proof_shift.unwrap_or(default.proof_shift),
    };
    let table = calibrate(&fitted, shape);
    write_weights(&args.out, &table.to_bytes())?;
    println!(
        "wrote {} (checksum {:016x}) from {} samples",
        args.out.display(),
        table.checksum(),
        fitted.len()
    );
    Ok(EXIT_OK)
}

fn print_quality(label: &str, quality: &Quality) {
    println!(
        "{label}: {} samples; rank correlation with the real cost, learned / hand-built: \
         proofs {:.3} / {:.3} ({}), disproofs {:.3} / {:.3} ({}); likeliest outcome agrees \
         {:.1} %",
        quality.samples,
        quality.proofs.learned,
        quality.proofs.rules,
        quality.proofs.samples,
        quality.disproofs.learned,
        quality.disproofs.rules,
        quality.disproofs.samples,
        100.0 * quality.outcome_agreement
    );
}

/// The model in `path`, or the built-in one.
fn load_model(path: Option<&Path>) -> anyhow::Result<Model> {
    match path {
        Some(path) => {
            // A model's file has one length: no more is read (a file that never ends, such
            // as /dev/zero, is refused after that many bytes, at its header).
            let bytes = open_input(path, interrupt::stop_flag(), None, None)
                .and_then(|input| read_at_most(input, Model::FILE_BYTES as u64))
                .with_context(|| format!("cannot read {}", path.display()))?;
            let bytes = bytes.with_context(|| {
                format!(
                    "{}: not a guide's weights file: longer than the {} bytes one has",
                    path.display(),
                    Model::FILE_BYTES
                )
            })?;
            Model::from_bytes(&bytes).with_context(|| format!("{}", path.display()))
        }
        None => embedded_model()
            .cloned()
            .context("the built-in guide weights (models/guide.bin)"),
    }
}

fn run_quality(args: &LearnQualityArgs) -> anyhow::Result<i32> {
    let model = load_model(args.weights.as_deref())?;
    let samples = read_samples(&args.data)?;
    let quality = measure(&model, &samples);
    if args.json {
        println!("{}", serde_json::to_string(&quality)?);
    } else {
        print_quality("samples", &quality);
    }
    Ok(EXIT_OK)
}

fn run_predict(args: &LearnPredictArgs) -> anyhow::Result<i32> {
    let model = load_model(args.weights.as_deref())?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut bad = 0;
    for entry in Entries::open(&args.file, args.rule_set.rules, None)? {
        let entry = entry?;
        let pos: Position = match entry.parsed {
            Ok((pos, _)) => pos,
            Err(reason) => {
                eprintln!("error: {}:{}: {reason}", args.file.display(), entry.line);
                bad += 1;
                continue;
            }
        };
        let prediction = predict(&model, &pos);
        let mut line = json!({ "line": entry.line, "position": format_position(&pos) });
        match args.attacker.map(Player::from) {
            Some(Player::X) => line["x_wins"] = serde_json::to_value(&prediction.x_wins)?,
            Some(Player::O) => line["o_wins"] = serde_json::to_value(&prediction.o_wins)?,
            None => {
                line["x_wins"] = serde_json::to_value(&prediction.x_wins)?;
                line["o_wins"] = serde_json::to_value(&prediction.o_wins)?;
            }
        }
        line["estimate"] = serde_json::to_value(prediction.estimate)?;
        writeln!(out, "{line}")?;
    }
    out.flush()?;
    Ok(if bad > 0 { EXIT_INCOMPLETE } else { EXIT_OK })
}
