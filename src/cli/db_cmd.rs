//! `uttt db`: the database of solved positions from outside a solve: its counts, its facts as
//! JSON Lines (to merge databases of several machines), and a check that solves stored facts
//! again.

use super::args::{DbCheckArgs, DbCommand, DbImportArgs, DbStatsArgs};
use super::{interrupt, EXIT_INCOMPLETE, EXIT_OK};
use crate::db::{Database, Fact};
use crate::files::lines::{open_input, LineEnd, LineReader};
use crate::files::{check_distinct, NamedPath};
use crate::search::{Engine, SolveOptions};
use crate::services::memory::anonymous_table;
use crate::services::units::show_bytes;
use crate::services::{Solver, Verdict};
use anyhow::Context;
use std::io::Write;

/// Runs a `uttt db` subcommand; returns the exit code.
pub fn run(command: &DbCommand) -> anyhow::Result<i32> {
    match command {
        DbCommand::Stats(args) => stats(args),
        DbCommand::Export(args) => export(&Database::open_existing(&args.path)?),
        DbCommand::Import(args) => import(args),
        DbCommand::Check(args) => check(args),
    }
}

fn stats(args: &DbStatsArgs) -> anyhow::Result<i32> {
    let stats = Database::open_existing(&args.path)?.stats()?;
    let text = if args.json {
        serde_json::to_string(&stats)? + "\n"
    } else {
        let sources: Vec<String> = stats
            .by_source
            .iter()
            .map(|(source, n)| format!("{n} {source}"))
            .collect();
        format!(
            "facts      {} ({}), and {} bounded\npositions  {} ({} with their value)\n\
             campaigns  {} ({} tree nodes kept; {} nodes searched in {:.1} s)\nsize       {}\n",
            stats.facts,
            if sources.is_empty() {
                "none".to_string()
            } else {
                sources.join(", ")
            },
            stats.bounded_facts,
            stats.positions,
            stats.values,
            stats.campaigns,
            stats.campaign_tree_nodes,
            stats.campaign_nodes_searched,
            stats.campaign_seconds,
            show_bytes(stats.bytes)
        )
    };
    std::io::stdout().write_all(text.as_bytes())?;
    Ok(EXIT_OK)
}

fn export(database: &Database) -> anyhow::Result<i32> {
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for fact in database.facts()? {
        serde_json::to_writer(&mut out, &fact)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(EXIT_OK)
}

/// The longest line of a facts file: a fact's JSON is a few hundred bytes.
const MAX_FACT_BYTES: usize = 64 << 10;

/// Reads facts from `args.file`, naming the line of any that cannot be read; stores them all in
/// one transaction (so a contradiction stores none of them).
fn import(args: &DbImportArgs) -> anyhow::Result<i32> {
    let name = args.file.display().to_string();
    if name != "-" {
        check_distinct(&[
            NamedPath::read("FILE", &args.file),
            NamedPath::written("PATH", &args.path),
        ])?;
    }
    // A FIFO (or stdin) is waited for until Ctrl-C or SIGTERM.
    let input = open_input(&args.file, interrupt::stop_flag(), None, None)
        .with_context(|| format!("cannot read facts from {name}"))?;
    let mut facts: Vec<Fact> = Vec::new();
    let mut lines = LineReader::new(input, MAX_FACT_BYTES);
    let mut line = Vec::new();
    for number in 1.. {
        let end = lines
            .read_line(&mut line)
            .with_context(|| format!("cannot read facts from {name}"))?;
        match end {
            None => break,
            Some(LineEnd::TooLong) => anyhow::bail!(
                "{name}:{number}: not a fact: the line is longer than {MAX_FACT_BYTES} bytes (a \
                 fact's is a few hundred)"
            ),
            Some(LineEnd::Whole) if line.trim_ascii().is_empty() => continue,
            Some(LineEnd::Whole) => {}
        }
        let fact: Fact = serde_json::from_slice(&line)
            .map_err(|e| anyhow::anyhow!("{name}:{number}:{}: not a fact: {e}", e.column()))?;
        if let Some(defect) = fact.rule_defect() {
            anyhow::bail!("{name}:{number}: a fact the rules contradict: {defect}");
        }
        facts.push(fact);
    }
    let stored = Database::open(&args.path)?.store(&facts)?;
    println!(
        "imported {} facts: {} new, {} known already",
        facts.len(),
        stored.new,
        stored.known
    );
    Ok(EXIT_OK)
}

/// ` within N plies` for a bounded fact, nothing for another.
fn within_words(within: Option<u32>) -> String {
    within.map_or(String::new(), |plies| format!(" within {plies} plies"))
}

/// Checks every stored fact's key against its position, and reports each that is filed under
/// another; then solves a sample of the stored facts again (each its one binary question, with DFPN) and
/// reports each that disagrees; exit 1 when one does or a check was left unfinished.
fn check(args: &DbCheckArgs) -> anyhow::Result<i32> {
    let stop = interrupt::stop_flag();
    let stored = Database::open_existing(&args.path)?.stored_facts()?;
    // Every fact's key is checked, whatever the sample: it is what lookups use, and costs
    // nothing next to a search.
    let mut misfiled = 0;
    for stored in stored.iter().filter(|stored| !stored.filed_right) {
        misfiled += 1;
        println!(
            "{:<10} does {} win{}? filed under another position's key: lookups of that \
             position would find it  {}",
            "MISFILED",
            stored.fact.attacker.letter(),
            within_words(stored.fact.within),
            stored.fact.position
        );
    }
    let facts: Vec<Fact> = stored.into_iter().map(|stored| stored.fact).collect();
    let picked: Vec<&Fact> = if args.all || args.sample >= facts.len() {
        facts.iter().collect()
    } else {
        let step = facts.len() as f64 / args.sample as f64;
        (0..args.sample)
            .map(|i| &facts[(i as f64 * step) as usize])
            .collect()
    };
    let (mut agreed, mut disagreed, mut unfinished) = (0, 0, 0);
    for fact in picked {
        // A fresh table for each, so that no fact is checked against another's search.
        let table = anonymous_table(args.table_mem)?;
        let options = SolveOptions {
            engine: Engine::Dfpn,
            threads: 1,
            attacker: Some(fact.attacker),
            max_plies: fact.within,
            time_limit: Some(args.time_limit),
            ..SolveOptions::default()
        };
        let report = Solver::new(&options, &table)
            .stopped_by(stop)
            .solve(&fact.position);
        // The verdict, not the searches: a position the rules settle needs no search.
        let (word, verdict) = match report.verdict {
            Verdict::Unknown => ("unfinished", &mut unfinished),
            v if (v == Verdict::Wins(fact.attacker)) == fact.wins => ("agrees", &mut agreed),
            _ => ("DISAGREES", &mut disagreed),
        };
        *verdict += 1;
        println!(
            "{word:<10} does {} win{}? {} (stored)  {}",
            fact.attacker.letter(),
            within_words(fact.within),
            if fact.wins { "yes" } else { "no" },
            fact.position
        );
        if interrupt::exit_code().is_some() {
            break;
        }
    }
    println!(
        "checked    {agreed} agree, {disagreed} disagree, {unfinished} unfinished; \
         {misfiled} misfiled"
    );
    Ok(if let Some(code) = interrupt::exit_code() {
        code
    } else if disagreed + unfinished + misfiled > 0 {
        EXIT_INCOMPLETE
    } else {
        EXIT_OK
    })
}
