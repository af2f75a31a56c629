use super::lines::{is_stopped, LineEnd, LineReader, WatchedFile};
use super::replace::{part_path, process_is_gone};
use super::scratch::Scratch;
use super::*;
use std::io::{Read, Write};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

#[test]
fn an_output_that_is_an_input_by_any_spelling_or_link_is_refused() {
    let scratch = Scratch::new("files-distinct");
    let db = scratch.file("x.db");
    std::fs::write(&db, b"data").unwrap();
    let dotted = scratch.0.join(".").join("x.db");
    let link = scratch.file("link.db");
    std::os::unix::fs::symlink(&db, &link).unwrap();
    let hard = scratch.file("hard.db");
    std::fs::hard_link(&db, &hard).unwrap();
    for other in [&db, &dotted, &link, &hard] {
        let error = check_distinct(&[
            NamedPath::written("--db", &db),
            NamedPath::written("--certificate", other),
        ])
        .unwrap_err();
        assert_eq!(error.second.0, "--certificate");
        assert!(error.to_string().contains("same file"), "{error}");
    }
    // A new file spelled two ways is one file too.
    let new = scratch.file("new.cert");
    let new_dotted = scratch.0.join(".").join("new.cert");
    assert!(check_distinct(&[
        NamedPath::read("--file", &new),
        NamedPath::written("--certificate", &new_dotted),
    ])
    .is_err());
    // Two inputs may be one file; distinct files are fine.
    assert!(check_distinct(&[NamedPath::read("a", &db), NamedPath::read("b", &link)]).is_ok());
    assert!(check_distinct(&[
        NamedPath::written("--db", &db),
        NamedPath::written("--certificate", &new),
    ])
    .is_ok());
}

#[test]
fn a_file_named_in_a_directory_is_found_there_by_identity() {
    let scratch = Scratch::new("files-in-directory");
    let input = scratch.file("line-3.cert");
    std::fs::write(&input, b"x").unwrap();
    let is_line = |name: &str| name.starts_with("line-");
    assert!(is_in_directory(&input, &scratch.0, is_line));
    assert!(is_in_directory(&input, &scratch.0.join("."), is_line));
    assert!(!is_in_directory(&input, &scratch.0, |_| false));
    assert!(!is_in_directory(&input, Path::new("/"), is_line));
    // A file yet to be made there is there too.
    assert!(is_in_directory(
        &scratch.file("line-9.cert"),
        &scratch.0,
        is_line
    ));
}

#[test]
fn a_replacement_changes_the_target_only_when_committed() {
    let scratch = Scratch::new("files-replace");
    let target = scratch.file("out.cert");
    std::fs::write(&target, b"old").unwrap();
    let mut replacement = Replacement::create(&target).unwrap();
    replacement.write_all(b"half").unwrap();
    drop(replacement);
    assert_eq!(std::fs::read(&target).unwrap(), b"old");
    assert!(!part_path(&target, std::process::id()).exists());

    let mut replacement = Replacement::create(&target).unwrap();
    replacement.write_all(b"new").unwrap();
    replacement.commit().unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), b"new");
    assert!(!part_path(&target, std::process::id()).exists());

    // Through a link: the file it leads to is replaced, the link stays.
    let link = scratch.file("link.cert");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let mut replacement = Replacement::create(&link).unwrap();
    replacement.write_all(b"linked").unwrap();
    replacement.commit().unwrap();
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(&target).unwrap(), b"linked");
}

/// The number of a process that has ended.
fn gone_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    assert!(process_is_gone(pid));
    pid
}

#[test]
fn parts_of_processes_that_are_gone_are_removed_and_others_kept() {
    let scratch = Scratch::new("files-stale");
    let target = scratch.file("campaign.db.table");
    let stale = part_path(&target, gone_pid());
    let live = part_path(&target, 1);
    let other = scratch.file("campaign.db.table.part-notanumber");
    for file in [&stale, &live, &other] {
        std::fs::write(file, b"part").unwrap();
    }
    assert!(!process_is_gone(std::process::id()));
    remove_stale_parts(&target);
    assert!(!stale.exists());
    assert!(live.exists(), "process 1 lives");
    assert!(other.exists());
}

/// Every line of `input`, the rest of a line too long read past.
fn lines_of(input: &[u8], limit: usize) -> Vec<(Vec<u8>, LineEnd)> {
    let mut reader = LineReader::new(input, limit);
    let mut line = Vec::new();
    let mut out = Vec::new();
    while let Some(end) = reader.read_line(&mut line).unwrap() {
        out.push((line.clone(), end));
        if end == LineEnd::TooLong {
            reader.skip_line(usize::MAX).unwrap();
        }
    }
    out
}

#[test]
fn lines_are_cut_at_the_limit_and_a_leading_byte_order_mark_is_skipped() {
    let long = [b'a'; 100];
    let mut input = b"\xEF\xBB\xBFfirst\n".to_vec();
    input.extend_from_slice(&long);
    input.extend_from_slice(b"\n\xEF\xBB\xBFthird\nlast");
    let lines = lines_of(&input, 10);
    assert_eq!(
        lines,
        vec![
            (b"first".to_vec(), LineEnd::Whole),
            (vec![b'a'; 10], LineEnd::TooLong),
            (b"\xEF\xBB\xBFthird".to_vec(), LineEnd::Whole),
            (b"last".to_vec(), LineEnd::Whole),
        ]
    );
    // One byte over the limit, its newline read: the next line is the next line.
    assert_eq!(
        lines_of(b"0123456789X\nnext\n", 10),
        vec![
            (b"0123456789".to_vec(), LineEnd::TooLong),
            (b"next".to_vec(), LineEnd::Whole)
        ]
    );
    // Exactly at the limit is whole; a line that never ends is not read for ever.
    assert_eq!(
        lines_of(b"0123456789\n", 10),
        vec![(b"0123456789".to_vec(), LineEnd::Whole)]
    );
    let mut endless = LineReader::new(std::io::BufReader::new(std::io::repeat(b'z')), 10);
    let mut line = Vec::new();
    assert_eq!(
        endless.read_line(&mut line).unwrap(),
        Some(LineEnd::TooLong)
    );
    assert_eq!(line, vec![b'z'; 10]);
    assert_eq!(lines_of(b"", 10), vec![]);
    assert_eq!(lines_of(b"\n", 10), vec![(vec![], LineEnd::Whole)]);
}

#[test]
fn a_watched_file_reads_a_file_whole_and_names_what_is_missing() {
    let scratch = Scratch::new("files-watched");
    let path = scratch.file("data");
    let bytes: Vec<u8> = (0..1_000_000u32).map(|i| i as u8).collect();
    std::fs::write(&path, &bytes).unwrap();
    let never = AtomicBool::new(false);
    let mut read = Vec::new();
    WatchedFile::open(&path, &never, None)
        .unwrap()
        .read_to_end(&mut read)
        .unwrap();
    assert_eq!(read, bytes);
    let missing = WatchedFile::open(&scratch.file("missing"), &never, None).err();
    assert_eq!(missing.unwrap().kind(), std::io::ErrorKind::NotFound);
}

#[test]
fn a_fifo_nobody_writes_stops_at_the_deadline_and_at_the_flag() {
    let scratch = Scratch::new("files-fifo");
    let fifo = scratch.file("fifo");
    let name = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid C string; mkfifo touches nothing else.
    assert_eq!(unsafe { libc::mkfifo(name.as_ptr(), 0o600) }, 0);
    let never = AtomicBool::new(false);
    let began = Instant::now();
    let error = WatchedFile::open(&fifo, &never, Some(began + Duration::from_millis(200)))
        .err()
        .expect("stopped");
    assert!(is_stopped(&error), "{error}");
    assert!(began.elapsed() < Duration::from_secs(2));
    let raised = AtomicBool::new(true);
    let error = WatchedFile::open(&fifo, &raised, None)
        .err()
        .expect("stopped");
    assert!(is_stopped(&error), "{error}");
    // Let the blocked reading threads go. A writer's open without O_NONBLOCK would wait for a
    // reader, and one writer may release both waiting readers at once, leaving the second
    // open waiting for ever (it hung a CI run); a non-blocking open returns at once either way.
    for _ in 0..2 {
        use std::os::unix::fs::OpenOptionsExt;
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo);
    }
}
