//! One writer per campaign: a lease row in the database, taken in a write transaction before a
//! run loads the kept tree, and checked in the transaction of every record.
//!
//! Two runs of one campaign at once would each load the tree, number their new nodes from its
//! end, and overwrite each other's nodes: a tree no run can take again. So a run takes the
//! campaign's lease first ([`Database::take_lease`]) and a second run is refused at once,
//! naming the holder. The lease is a row, not a lock file, so that a run killed with `kill -9`
//! or a power cut leaves nothing to clean up by hand: a lease whose holder is gone is taken
//! over.
//!
//! - A holder on this host (the same host name, boot and pid namespace) is alive while a
//!   process of its pid runs, not a zombie, that started when the holder did (a pid reused by
//!   another program is not the holder). A holder of this host's last boot (its lease not
//!   renewed since this boot) is gone.
//! - A holder that cannot be asked (another host, or another pid namespace: a container
//!   beside this one, with the same host name) is alive until its lease goes stale.
//! - A holder on another host (a database on a shared disk) cannot be asked: its lease is stale
//!   once not renewed for [`STALE_AFTER`]; every record renews it.
//!
//! A lease taken over from a holder that was still alive after all (another host's run that
//! did not record for that long) cannot corrupt the tree either: every record checks, in its
//! own transaction, that the row still holds its token, and a run that lost its lease stops
//! with [`DbError::LeaseLost`] and writes nothing more.

use super::{CampaignId, Database, DbError};
use rusqlite::{params, OptionalExtension, TransactionBehavior};
use std::time::Duration;

/// The lease table (schema version 5).
pub(in crate::db) const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS campaign_leases (
        campaign INTEGER PRIMARY KEY REFERENCES campaigns (id),
        token INTEGER NOT NULL,
        pid INTEGER NOT NULL,
        host TEXT NOT NULL,
        boot TEXT NOT NULL,
        pid_space TEXT NOT NULL,
        started INTEGER NOT NULL,
        taken INTEGER NOT NULL,
        renewed INTEGER NOT NULL
    );";

/// How long a lease of another host's process lasts without a record renewing it. A run
/// records every quarter of a second while its jobs merge; this leaves room for a long load
/// of a table snapshot before the first one.
pub const STALE_AFTER: Duration = Duration::from_secs(600);

/// The process holding a campaign's lease, as its row names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LeaseHolder {
    /// Its process id.
    pub pid: u32,
    /// Its host's name.
    pub host: String,
    /// When it took the lease, in seconds since the Unix epoch.
    pub taken: u64,
}

/// This process as a lease names it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Process {
    pid: u32,
    host: String,
    /// The boot's id (`/proc/sys/kernel/random/boot_id`), empty where unknown.
    boot: String,
    /// The pid namespace (`/proc/self/ns/pid`'s link), empty where unknown: pids name the
    /// same processes only within one.
    pid_space: String,
    /// The process's start, in clock ticks since boot (`/proc/PID/stat`), 0 where unknown.
    started: u64,
}

impl Process {
    fn this() -> Process {
        let pid = std::process::id();
        Process {
            pid,
            host: host_name(),
            boot: boot_id(),
            pid_space: std::fs::read_link("/proc/self/ns/pid")
                .map(|link| link.display().to_string())
                .unwrap_or_default(),
            started: start_time(pid).unwrap_or(0),
        }
    }
}

/// A lease's row.
struct LeaseRow {
    token: i64,
    holder: Process,
    taken: u64,
    renewed: u64,
}

impl Database {
    /// Takes `campaign`'s lease for this handle, in one write transaction: refused with
    /// [`DbError::CampaignBusy`] while another live process (or another handle of this one)
    /// holds it; a lease whose holder is gone is taken over. Held until
    /// [`Database::release_lease`] or until the handle is dropped; a process that dies leaves
    /// a row the next run takes over.
    pub fn take_lease(&self, campaign: CampaignId) -> Result<(), DbError> {
        let me = Process::this();
        let token = new_token();
        let now = super::super::now_seconds();
        let mut conn = self.connection();
        let transaction = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.query_error(e))?;
        if let Some(row) = lease_row(&transaction, campaign).map_err(|e| self.query_error(e))? {
            if holder_is_alive(&row, &me, now) {
                return Err(DbError::CampaignBusy {
                    path: self.path.clone(),
                    holder: LeaseHolder {
                        pid: row.holder.pid,
                        host: row.holder.host,
                        taken: row.taken,
                    },
                });
            }
        }
        transaction
            .execute(
                "INSERT OR REPLACE INTO campaign_leases
                 (campaign, token, pid, host, boot, pid_space, started, taken, renewed)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
                params![
                    campaign.0,
                    token,
                    me.pid,
                    me.host,
                    me.boot,
                    me.pid_space,
                    super::super::clamp(me.started),
                    super::super::clamp(now)
                ],
            )
            .map_err(|e| self.query_error(e))?;
        transaction.commit().map_err(|e| self.query_error(e))?;
        drop(conn);
        self.held_leases().push((campaign, token));
        Ok(())
    }

    /// Makes sure this handle holds `campaign`'s lease: taken ([`Database::take_lease`]) unless
    /// held already. What a search that keeps a campaign's tree asks before it loads it.
    pub fn hold_lease(&self, campaign: CampaignId) -> Result<(), DbError> {
        if self.held_leases().iter().any(|&(c, _)| c == campaign) {
            return Ok(());
        }
        self.take_lease(campaign)
    }

    /// Gives `campaign`'s lease back, if this handle holds it (a row another process has
    /// taken over since is left alone).
    pub fn release_lease(&self, campaign: CampaignId) -> Result<(), DbError> {
        let token = {
            let mut held = self.held_leases();
            let Some(index) = held.iter().position(|&(c, _)| c == campaign) else {
                return Ok(());
            };
            held.swap_remove(index).1
        };
        self.connection()
            .execute(
                "DELETE FROM campaign_leases WHERE campaign = ?1 AND token = ?2",
                params![campaign.0, token],
            )
            .map_err(|e| self.query_error(e))?;
        Ok(())
    }

    /// Gives back every lease this handle holds (when it is dropped); failures are ignored:
    /// a row left behind is taken over by the next run.
    pub(in crate::db) fn release_all_leases(&self) {
        let campaigns: Vec<CampaignId> = self.held_leases().iter().map(|&(c, _)| c).collect();
        for campaign in campaigns {
            let _ = self.release_lease(campaign);
        }
    }

    /// Within a record's write transaction: checks that this handle still holds `campaign`'s
    /// lease, and renews it.
    pub(in crate::db) fn check_lease(
        &self,
        transaction: &rusqlite::Connection,
        campaign: CampaignId,
    ) -> Result<(), DbError> {
        let token = self
            .held_leases()
            .iter()
            .find(|&&(c, _)| c == campaign)
            .map(|&(_, token)| token);
        let Some(token) = token else {
            return Err(DbError::LeaseLost {
                path: self.path.clone(),
                holder: None,
            });
        };
        let row = lease_row(transaction, campaign).map_err(|e| self.query_error(e))?;
        match row {
            Some(row) if row.token == token => {
                transaction
                    .execute(
                        "UPDATE campaign_leases SET renewed = ?2 WHERE campaign = ?1",
                        params![campaign.0, super::super::clamp(super::super::now_seconds())],
                    )
                    .map_err(|e| self.query_error(e))?;
                Ok(())
            }
            other => {
                // Lost for good: a later `hold_lease` takes it anew rather than trusting it.
                self.held_leases()
                    .retain(|&(c, t)| (c, t) != (campaign, token));
                Err(DbError::LeaseLost {
                    path: self.path.clone(),
                    holder: other.map(|row| LeaseHolder {
                        pid: row.holder.pid,
                        host: row.holder.host,
                        taken: row.taken,
                    }),
                })
            }
        }
    }

    /// The holder of `campaign`'s lease while it lives (`None`: free, or its holder is gone).
    pub fn lease_holder(&self, campaign: CampaignId) -> Result<Option<LeaseHolder>, DbError> {
        let conn = self.connection();
        let row = lease_row(&conn, campaign).map_err(|e| self.query_error(e))?;
        let now = super::super::now_seconds();
        let me = Process::this();
        Ok(row
            .filter(|row| holder_is_alive(row, &me, now))
            .map(|row| LeaseHolder {
                pid: row.holder.pid,
                host: row.holder.host,
                taken: row.taken,
            }))
    }
}

fn lease_row(
    conn: &rusqlite::Connection,
    campaign: CampaignId,
) -> rusqlite::Result<Option<LeaseRow>> {
    conn.query_row(
        "SELECT token, pid, host, boot, pid_space, started, taken, renewed
         FROM campaign_leases WHERE campaign = ?1",
        params![campaign.0],
        |row| {
            let whole = |i| row.get::<_, i64>(i).map(|v| v.max(0) as u64);
            Ok(LeaseRow {
                token: row.get(0)?,
                holder: Process {
                    pid: u32::try_from(row.get::<_, i64>(1)?).unwrap_or(0),
                    host: row.get(2)?,
                    boot: row.get(3)?,
                    pid_space: row.get(4)?,
                    started: whole(5)?,
                },
                taken: whole(6)?,
                renewed: whole(7)?,
            })
        },
    )
    .optional()
}

/// Whether the holder of `row` still holds it, seen from process `me` at `now`.
fn holder_is_alive(row: &LeaseRow, me: &Process, now: u64) -> bool {
    let holder = &row.holder;
    let stale = || now.saturating_sub(row.renewed) >= STALE_AFTER.as_secs();
    let known = |a: &str, b: &str| !a.is_empty() && !b.is_empty();
    if holder.host != me.host {
        return !stale();
    }
    if known(&holder.boot, &me.boot) && holder.boot != me.boot {
        // This host's last boot, if not renewed since this one began; else a machine of the
        // same name (`localhost`) that cannot be asked.
        let before_boot = boot_time().is_some_and(|boot| row.renewed < boot);
        return !before_boot && !stale();
    }
    if known(&holder.pid_space, &me.pid_space) && holder.pid_space != me.pid_space {
        return !stale();
    }
    process_is_alive(holder.pid, holder.started)
}

/// Whether process `pid`, started at `started` ticks after boot (0: unknown), runs: a process
/// of that pid that is no zombie and started then.
fn process_is_alive(pid: u32, started: u64) -> bool {
    if pid == 0 || i32::try_from(pid).is_err() {
        return false;
    }
    match process_state(pid) {
        Some((state, now_started)) => {
            !matches!(state, 'Z' | 'X' | 'x') && (started == 0 || now_started == started)
        }
        // No /proc entry: gone, where /proc is there to say so.
        None if std::path::Path::new("/proc/self/stat").exists() => false,
        None => signal_reaches(pid),
    }
}

/// Whether a signal could be sent to `pid` (it exists, though it may be another user's).
#[cfg(unix)]
fn signal_reaches(pid: u32) -> bool {
    // SAFETY: signal 0 sends nothing; it only checks that the process exists.
    let result = unsafe { libc::kill(pid as libc::pid_t, 0) };
    result == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
fn signal_reaches(_pid: u32) -> bool {
    true
}

/// Process `pid`'s state letter and start in clock ticks since boot: fields 3 and 22 of
/// `/proc/PID/stat`, read after the command's closing parenthesis (a command may hold spaces
/// and parentheses).
fn process_state(pid: u32) -> Option<(char, u64)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = fields.next()?.chars().next()?;
    // The start time is the 20th field after the state.
    let started = fields.nth(18)?.parse().ok()?;
    Some((state, started))
}

/// Process `pid`'s start in clock ticks since boot (see [`process_state`]).
fn start_time(pid: u32) -> Option<u64> {
    process_state(pid).map(|(_, started)| started)
}

/// When this boot began, in seconds since the Unix epoch (`btime` of `/proc/stat`).
fn boot_time() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    stat.lines()
        .find_map(|line| line.strip_prefix("btime "))
        .and_then(|seconds| seconds.trim().parse().ok())
}

fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|id| id.trim().to_string())
        .unwrap_or_default()
}

/// This host's name, or "" where it cannot be read.
fn host_name() -> String {
    let mut buffer = [0u8; 256];
    #[cfg(unix)]
    {
        // SAFETY: the buffer is writable for its length; the name is NUL-terminated within it
        // when it fits (the last byte is kept 0 for when it does not).
        let result = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len() - 1) };
        if result != 0 {
            return String::new();
        }
    }
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(0);
    String::from_utf8_lossy(&buffer[..end]).into_owned()
}

/// A token no other lease is likely to hold: a draw of the game's generator seeded by the
/// time, the pid and a count of this process's leases.
fn new_token() -> i64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let seed =
        nanos ^ (u64::from(std::process::id()) << 40) ^ COUNT.fetch_add(1, Ordering::Relaxed);
    crate::game::Rng::new(seed).next_u64() as i64
}

#[cfg(test)]
mod tests {
    use super::super::super::tests::{position, TempPath};
    use super::super::{Progress, Question};
    use super::*;
    use crate::game::Player;

    /// A small record of `question`.
    fn record(db: &Database, question: Question) -> Result<(), DbError> {
        db.record(
            question,
            &Progress {
                jobs: 1,
                work: 5,
                ..Progress::default()
            },
        )
        .map(|_| ())
    }

    /// Rewrites the lease row of `campaign` as held by `pid` with start `started` on this
    /// host, with a new token (as another process's take-over would).
    fn hand_lease_to(db: &Database, campaign: CampaignId, pid: u32, started: u64) {
        db.connection()
            .execute(
                "UPDATE campaign_leases SET pid = ?2, started = ?3, token = token + 1
                 WHERE campaign = ?1",
                params![campaign.0, pid, started as i64],
            )
            .unwrap();
    }

    #[test]
    fn a_campaign_has_one_lease_holder_at_a_time() {
        let file = TempPath::new("lease-one");
        let first = Database::open(&file.0).unwrap();
        let second = Database::open(&file.0).unwrap();
        let campaign = first.campaign(&position(), None).unwrap();
        let question = Question {
            campaign,
            attacker: Player::X,
        };
        // No lease, no record.
        assert!(matches!(
            record(&first, question),
            Err(DbError::LeaseLost { holder: None, .. })
        ));
        first.take_lease(campaign).unwrap();
        record(&first, question).unwrap();
        let holder = second.lease_holder(campaign).unwrap().expect("held");
        assert_eq!(holder.pid, std::process::id());
        match second.take_lease(campaign) {
            Err(DbError::CampaignBusy { holder: busy, .. }) => assert_eq!(busy, holder),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            record(&second, question),
            Err(DbError::LeaseLost { .. })
        ));
        // Another campaign's lease is its own.
        let other = first.campaign(&position(), Some(9)).unwrap();
        second.take_lease(other).unwrap();
        // Given back when the handle is dropped: the other handle takes it then.
        drop(first);
        assert_eq!(second.lease_holder(campaign).unwrap(), None);
        second.take_lease(campaign).unwrap();
        record(&second, question).unwrap();
    }

    #[test]
    fn a_lease_of_a_process_that_is_gone_is_taken_over_and_its_holder_writes_no_more() {
        let file = TempPath::new("lease-gone");
        let holder = Database::open(&file.0).unwrap();
        let other = Database::open(&file.0).unwrap();
        let campaign = holder.campaign(&position(), None).unwrap();
        let question = Question {
            campaign,
            attacker: Player::O,
        };
        holder.take_lease(campaign).unwrap();
        // A live process of this host (pid 1 runs for as long as the system does), with its
        // start as it is: held.
        let init_start = start_time(1);
        if let Some(started) = init_start {
            hand_lease_to(&holder, campaign, 1, started);
            assert!(matches!(
                other.take_lease(campaign),
                Err(DbError::CampaignBusy { .. })
            ));
            // The same pid with another start: a pid reused by another program.
            hand_lease_to(&holder, campaign, 1, started + 1);
            assert_eq!(other.lease_holder(campaign).unwrap(), None);
        }
        // A pid no process has (above the kernel's largest).
        hand_lease_to(&holder, campaign, 1 << 30, 0);
        assert_eq!(other.lease_holder(campaign).unwrap(), None);
        other.take_lease(campaign).unwrap();
        record(&other, question).unwrap();
        // The first holder's token is no longer the row's: it writes nothing more.
        match record(&holder, question) {
            Err(DbError::LeaseLost {
                holder: Some(now), ..
            }) => assert_eq!(now.pid, std::process::id()),
            result => panic!("{result:?}"),
        }
        // Nor does it take the other's lease away when it gives its own back.
        holder.release_lease(campaign).unwrap();
        record(&other, question).unwrap();
    }

    #[test]
    fn another_hosts_lease_is_held_until_it_goes_unrenewed() {
        let file = TempPath::new("lease-host");
        let db = Database::open(&file.0).unwrap();
        let campaign = db.campaign(&position(), None).unwrap();
        let now = crate::db::now_seconds() as i64;
        let stale = STALE_AFTER.as_secs() as i64;
        let me = Process::this();
        // Another host; this host's name in another pid namespace (a container beside this
        // one); this host's name on another boot renewed since this boot (a machine of the
        // same name): each held until stale.
        let unaskable = [
            (
                "elsewhere".to_string(),
                me.boot.clone(),
                me.pid_space.clone(),
            ),
            (me.host.clone(), me.boot.clone(), "pid:[1]".to_string()),
            (
                me.host.clone(),
                "another boot".to_string(),
                me.pid_space.clone(),
            ),
        ];
        for (host, boot, space) in unaskable {
            for (renewed, held) in [(now - 5, true), (now - stale - 5, false)] {
                db.connection()
                    .execute(
                        "INSERT OR REPLACE INTO campaign_leases
                         (campaign, token, pid, host, boot, pid_space, started, taken, renewed)
                         VALUES (?1, 7, 4242, ?2, ?3, ?4, 9, ?5, ?5)",
                        params![campaign.0, host, boot, space, renewed],
                    )
                    .unwrap();
                let what = format!("{host} {boot} {space} renewed {renewed}");
                assert_eq!(db.lease_holder(campaign).unwrap().is_some(), held, "{what}");
                assert_eq!(db.take_lease(campaign).is_ok(), !held, "{what}");
                db.release_lease(campaign).unwrap();
            }
        }
        // This host's last boot, not renewed since this boot began: gone at once.
        if let Some(boot) = boot_time().filter(|_| !me.boot.is_empty()) {
            db.connection()
                .execute(
                    "INSERT OR REPLACE INTO campaign_leases
                     (campaign, token, pid, host, boot, pid_space, started, taken, renewed)
                     VALUES (?1, 7, 4242, ?2, 'an older boot', ?3, 9, ?4, ?4)",
                    params![campaign.0, me.host, me.pid_space, boot as i64 - 5],
                )
                .unwrap();
            assert_eq!(db.lease_holder(campaign).unwrap(), None);
        }
    }
}
