//! Table snapshots: the part in use of a table, copied into a file while searchers go on
//! using it, and copied back into a fresh table before a search starts.
//!
//! A campaign keeps one beside its database, so that a run stopped by a crash (or `kill -9`)
//! resumes with what its table knew at the last snapshot, not with an empty table. A table
//! file (`--table-file`) keeps everything too, but every search pays for it: its pages are
//! the file's (no huge pages, so more TLB misses) and the kernel writes them back as they
//! change. A snapshot costs one sequential write every so often and leaves the table
//! anonymous.
//!
//! A snapshot file is a table file (see `file.rs`) whose bucket count is the active part's
//! when the snapshot began, marked clean. Each entry is copied with the readers' protocol
//! (`Entry::read`), so it is one consistent write of one position, or left empty when a writer
//! held it: entries of different moments are mixed, which a cache allows (a proof or disproof
//! is a fact whenever it was found; other numbers only steer). It is written to a temporary
//! file beside the target, synced, then renamed over it: a reader sees the old snapshot or the
//! new one, never a part of one. Entries added to the active part after the snapshot began
//! may be missing; when the part doubled meanwhile, the entries copied still sit in the bucket
//! their key selects under the snapshot's bucket count, which is all a lookup needs (see the
//! module documentation of the table on growth).

use super::entry::{meta_work_log, LOCK_MASK};
use super::file::{check_file, entry_is_sound, FileHeader, FILE_HEADER_BYTES};
use super::{keep_rank, Table, TableError, ENTRIES_PER_BUCKET};
use crate::files::Replacement;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// Bytes copied per read or write call.
const CHUNK_BYTES: usize = 1 << 20;
/// Bytes of one entry in a file: the meta word, then the numbers word.
const ENTRY_BYTES: usize = 16;

/// What a snapshot held.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SnapshotFigures {
    /// Entries in use it held.
    pub entries: u64,
    /// The file's size in bytes.
    pub bytes: u64,
}

impl Table {
    /// Writes the active part of this table to `path` (see the module documentation), while
    /// other threads may go on searching with it.
    pub fn save_snapshot(&self, path: &Path) -> Result<SnapshotFigures, TableError> {
        // A part of its own beside the target, renamed over it once synced; removed if the
        // write fails (a full disk, say); a killed write's part is removed by a later one.
        let replacement =
            Replacement::create(path).map_err(|e| TableError::io(path, "create", e))?;
        self.write_snapshot(replacement, path)
    }

    /// Writes the snapshot into `replacement` and puts it in place of `path` (see
    /// [`Table::save_snapshot`]).
    fn write_snapshot(
        &self,
        replacement: Replacement,
        path: &Path,
    ) -> Result<SnapshotFigures, TableError> {
        let buckets = (self.active_mask.load(Ordering::Relaxed) + 1) as usize;
        let failed = |e| TableError::io(path, "write", e);
        let mut out = BufWriter::with_capacity(CHUNK_BYTES, replacement);
        let mut header = vec![0u8; FILE_HEADER_BYTES];
        FileHeader::current(buckets as u64, true).encode(&mut header);
        out.write_all(&header).map_err(failed)?;
        let mut entries = 0u64;
        let mut chunk = Vec::with_capacity(CHUNK_BYTES);
        for bucket in &self.buckets()[..buckets] {
            for entry in &bucket.entries {
                // An entry a writer holds is left empty; the lock bits are never kept.
                let (meta, numbers) = entry
                    .read()
                    .filter(|&(meta, _)| meta_work_log(meta) != 0)
                    .map_or((0, 0), |(meta, numbers)| (meta & !LOCK_MASK, numbers));
                entries += u64::from(meta != 0);
                chunk.extend_from_slice(&meta.to_ne_bytes());
                chunk.extend_from_slice(&numbers.to_ne_bytes());
            }
            if chunk.len() >= CHUNK_BYTES {
                out.write_all(&chunk).map_err(failed)?;
                chunk.clear();
            }
        }
        out.write_all(&chunk).map_err(failed)?;
        let replacement = out.into_inner().map_err(|e| failed(e.into_error()))?;
        replacement
            .commit()
            .map_err(|e| TableError::io(path, "replace", e))?;
        Ok(SnapshotFigures {
            entries,
            bytes: (FILE_HEADER_BYTES + buckets * ENTRIES_PER_BUCKET * ENTRY_BYTES) as u64,
        })
    }

    /// Fills this anonymous table, which no searcher uses yet, from the snapshot at `path`: its
    /// part in use becomes the snapshot's (or the whole table, if that is smaller: each
    /// snapshot bucket then goes to the bucket its index selects here, and a full bucket keeps
    /// the entries the store's replacement rule values most). A file that is not a table file
    /// of this format is refused. (A table file uses all its buckets at once, so the
    /// snapshot's entries would not be where its lookups look: it is refused too.)
    pub fn load_snapshot(&mut self, path: &Path) -> Result<SnapshotFigures, TableError> {
        self.load_snapshot_until(path, &AtomicBool::new(false))
    }

    /// [`Table::load_snapshot`], stopped with [`TableError::Stopped`] once `stop` is raised
    /// (looked at every megabyte); the table is then to be dropped, half filled.
    pub fn load_snapshot_until(
        &mut self,
        path: &Path,
        stop: &AtomicBool,
    ) -> Result<SnapshotFigures, TableError> {
        if let Some(file) = &self.file {
            return Err(TableError::BadFile {
                path: file.clone(),
                problem: "is a table file: a snapshot is loaded into an anonymous table"
                    .to_string(),
            });
        }
        let mut file = open_without_waiting(path).map_err(|e| TableError::io(path, "open", e))?;
        let metadata = file
            .metadata()
            .map_err(|e| TableError::io(path, "read", e))?;
        if !metadata.is_file() {
            return Err(TableError::BadFile {
                path: path.to_path_buf(),
                problem: "is not a regular file (a FIFO or a device): a snapshot is one"
                    .to_string(),
            });
        }
        let len = metadata.len();
        let snapshot_buckets = check_file(path, &file, len)? as u64;
        let mask = (snapshot_buckets - 1).min(self.bucket_mask);
        let folds = snapshot_buckets - 1 > mask;
        // Every slot of the new active part that is not filled below must be empty, whatever
        // the table held before.
        for bucket in &self.buckets()[..=mask as usize] {
            for entry in &bucket.entries {
                entry.meta.store(0, Ordering::Relaxed);
                entry.numbers.store(0, Ordering::Relaxed);
            }
        }
        let failed = |e| TableError::io(path, "read", e);
        // The entries start after the header page (`check_file` read part of it).
        file.seek(SeekFrom::Start(FILE_HEADER_BYTES as u64))
            .map_err(failed)?;
        let mut chunk = vec![0u8; CHUNK_BYTES];
        let bucket_bytes = ENTRIES_PER_BUCKET * ENTRY_BYTES;
        let mut index = 0u64;
        let mut entries = 0u64;
        while index < snapshot_buckets {
            if stop.load(Ordering::Relaxed) {
                return Err(TableError::Stopped {
                    path: path.to_path_buf(),
                });
            }
            let count = ((snapshot_buckets - index) as usize).min(CHUNK_BYTES / bucket_bytes);
            let bytes = &mut chunk[..count * bucket_bytes];
            file.read_exact(bytes).map_err(failed)?;
            for (offset, stored) in bytes.chunks_exact(bucket_bytes).enumerate() {
                let bucket = &self.buckets()[((index + offset as u64) & mask) as usize];
                for (slot, word) in stored.chunks_exact(ENTRY_BYTES).enumerate() {
                    let meta = u64::from_ne_bytes(word[..8].try_into().unwrap()) & !LOCK_MASK;
                    let numbers = u64::from_ne_bytes(word[8..].try_into().unwrap());
                    // Empty slots, and entries no writer leaves (a damaged file), stay empty.
                    if meta_work_log(meta) == 0 || !entry_is_sound(meta, numbers) {
                        continue;
                    }
                    let target = if folds {
                        // The slot a store would give up, if it is worth less than this entry.
                        let (victim, least) = bucket
                            .entries
                            .iter()
                            .enumerate()
                            .map(|(i, e)| {
                                let held = e.meta.load(Ordering::Relaxed);
                                (i, keep_rank(held, e.numbers.load(Ordering::Relaxed)))
                            })
                            .min_by_key(|&(_, rank)| rank)
                            .expect("a bucket has entries");
                        if least >= keep_rank(meta, numbers) {
                            continue;
                        }
                        entries -= u64::from(least > 1);
                        &bucket.entries[victim]
                    } else {
                        &bucket.entries[slot]
                    };
                    target.meta.store(meta, Ordering::Relaxed);
                    target.numbers.store(numbers, Ordering::Relaxed);
                    entries += 1;
                }
            }
            index += count as u64;
        }
        self.active_mask.store(mask, Ordering::Relaxed);
        self.filled.store(entries, Ordering::Relaxed);
        Ok(SnapshotFigures {
            entries,
            bytes: len,
        })
    }
}

/// Opens `path` for reading without waiting for anything: a FIFO that no one writes would keep
/// a plain open(2) waiting for ever (no stop reaches it), so it is opened with `O_NONBLOCK`,
/// which returns at once; the caller refuses what is not a regular file, whose reads
/// `O_NONBLOCK` does not change.
fn open_without_waiting(path: &Path) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::super::entry::{key_tag, LOCKED, TAG_MASK, TAG_SHIFT};
    use super::*;
    use crate::files::part_of as part_path;
    use crate::files::scratch::Scratch;
    use crate::table::numbers::Numbers;

    /// Numbers that differ from key to key.
    fn numbers(i: u64) -> Numbers {
        Numbers {
            phi: (i % 1000 + 1) as u32,
            delta: (i / 1000 + 1) as u32,
        }
    }

    /// Keys spread over a table's buckets, and the numbers stored for each.
    fn fill(table: &Table, count: u64) -> Vec<(u64, u64)> {
        let mut writer = table.writer();
        (0..count)
            .map(|i| {
                let key = crate::game::tables::splitmix64(i).0;
                writer.store(key, numbers(i), 1 + i % 1000);
                (key, 1 + i % 1000)
            })
            .collect()
    }

    fn found_share(table: &Table, keys: &[(u64, u64)]) -> f64 {
        let mut writer = table.writer();
        let found = keys
            .iter()
            .enumerate()
            .filter(|(i, (key, _))| {
                writer
                    .lookup(*key)
                    .is_some_and(|f| f.numbers == numbers(*i as u64))
            })
            .count();
        found as f64 / keys.len() as f64
    }

    #[test]
    fn a_snapshot_brings_back_every_entry_it_held() {
        let scratch = Scratch::new("snapshot-round-trip");
        let path = scratch.file("round-trip.table");
        let table = Table::new(64 << 20).unwrap();
        let keys = fill(&table, 200_000);
        let before = found_share(&table, &keys);
        let saved = table.save_snapshot(&path).unwrap();
        assert_eq!(saved.bytes, std::fs::metadata(&path).unwrap().len());
        assert!(!part_path(&path).exists(), "the temporary file is renamed");

        // Into a table of the same size, and into a larger one: the same entries.
        for bytes in [64 << 20, 256 << 20] {
            let mut fresh = Table::new(bytes).unwrap();
            let loaded = fresh.load_snapshot(&path).unwrap();
            assert_eq!(loaded.entries, saved.entries);
            assert_eq!(fresh.active_bytes(), table.active_bytes());
            assert_eq!(found_share(&fresh, &keys), before);
        }
        // Into a smaller one: folded, never a wrong entry, and the entries of most work kept.
        let mut small = Table::new(1 << 20).unwrap();
        let loaded = small.load_snapshot(&path).unwrap();
        assert!(loaded.entries <= small.entries());
        let share = found_share(&small, &keys);
        assert!(share > 0.0 && share < before, "found {share}");
        let mut writer = small.writer();
        let kept_work: Vec<u64> = keys
            .iter()
            .filter(|(key, _)| writer.lookup(*key).is_some())
            .map(|&(_, work)| work)
            .collect();
        let mean = kept_work.iter().sum::<u64>() as f64 / kept_work.len() as f64;
        assert!(
            mean > 600.0,
            "the folded table keeps the larger entries (mean work {mean})"
        );
    }

    #[test]
    fn a_snapshot_that_cannot_replace_its_target_leaves_no_part_behind() {
        let scratch = Scratch::new("snapshot-part");
        // The target is a directory with a file in it: the rename fails.
        let path = scratch.file("occupied.table");
        std::fs::create_dir_all(path.join("inside")).unwrap();
        let table = Table::new(1 << 20).unwrap();
        fill(&table, 100);
        let error = table.save_snapshot(&path).unwrap_err().to_string();
        assert!(error.contains("occupied.table"), "{error}");
        assert!(!part_path(&path).exists());
    }

    #[test]
    fn a_file_that_is_not_a_snapshot_is_refused() {
        let scratch = Scratch::new("snapshot-bad");
        let path = scratch.file("bad.table");
        std::fs::write(&path, b"not a table").unwrap();
        let mut table = Table::new(1 << 20).unwrap();
        let error = table.load_snapshot(&path).unwrap_err().to_string();
        assert!(error.contains("bad.table"), "{error}");
    }

    #[test]
    fn a_snapshot_taken_while_searchers_write_holds_only_whole_entries() {
        let scratch = Scratch::new("snapshot-busy");
        let path = scratch.file("busy.table");
        // A small table, so that keys keep taking one another's slots.
        let table = Table::new(64 << 10).unwrap();
        let keys: Vec<u64> = (0..50_000u64)
            .map(|i| crate::game::tables::splitmix64(i).0)
            .collect();
        // Each writer stores, for each key, numbers that name the key: a torn entry would
        // pair a key's tag with another key's numbers.
        let named = |key: u64| Numbers {
            phi: (key >> 40) as u32 | 1,
            delta: (key >> 8) as u32 | 1,
        };
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            for round in 0..2u64 {
                let (table, keys, stop) = (&table, &keys, &stop);
                scope.spawn(move || {
                    let mut writer = table.writer();
                    while !stop.load(Ordering::Relaxed) {
                        for &key in keys {
                            writer.store(key, named(key), 1 + round);
                        }
                    }
                });
            }
            for _ in 0..5 {
                table.save_snapshot(&path).unwrap();
            }
            stop.store(true, Ordering::Relaxed);
        });
        let mut fresh = Table::new(64 << 10).unwrap();
        assert!(fresh.load_snapshot(&path).unwrap().entries > 0);
        let mut writer = fresh.writer();
        for &key in &keys {
            if let Some(found) = writer.lookup(key) {
                assert_eq!(found.numbers, named(key));
            }
        }
    }

    #[test]
    fn an_entry_a_writer_holds_is_saved_empty() {
        let scratch = Scratch::new("snapshot-held");
        let path = scratch.file("held.table");
        let table = Table::new(1 << 20).unwrap();
        let keys = fill(&table, 1_000);
        // Take the first key's entry as a writer does, in the middle of a write: its numbers
        // may belong to the next position already, so it must not be copied.
        let held = keys[0].0;
        let bucket = table.bucket(held);
        let entry = bucket
            .entries
            .iter()
            .find(|e| e.meta.load(Ordering::Relaxed) >> TAG_SHIFT & TAG_MASK == key_tag(held))
            .expect("the key is stored");
        entry.meta.fetch_or(LOCKED, Ordering::Relaxed);
        table.save_snapshot(&path).unwrap();
        let mut fresh = Table::new(1 << 20).unwrap();
        fresh.load_snapshot(&path).unwrap();
        let mut writer = fresh.writer();
        assert!(writer.lookup(held).is_none());
        assert!(writer.lookup(keys[1].0).is_some());
    }
}
