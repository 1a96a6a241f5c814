//! Tests of the cache files.

use std::io::Read as _;

use super::{
    CacheFileError, FIRST_READ, HEADER_BYTES, open_payload, read_cache_file, write_cache_file, write_cache_file_with,
    write_within,
};

#[test]
fn a_streamed_payload_is_whole_only_when_its_checksum_holds() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("one.listing");
    let payload: Vec<u8> = (0..300_000u32).flat_map(u32::to_le_bytes).collect();
    write_cache_file(&file, "key", &payload).unwrap_or_else(|e| panic!("{e}"));
    let read_all = |accept: &dyn Fn(&str) -> bool| {
        let mut stream = open_payload(&file, accept)?;
        let mut read = Vec::new();
        stream.read_to_end(&mut read)?;
        Ok::<_, CacheFileError>((read, stream.verify()))
    };
    let (read, whole) = read_all(&|key| key == "key").unwrap_or_else(|e| panic!("{e}"));
    assert!(whole);
    assert_eq!(read, payload);
    assert!(matches!(read_all(&|key| key == "other"), Err(CacheFileError::Other)));

    // A changed byte reads to the end and does not verify; a shorter or longer file
    // is refused before its payload is read.
    let written = std::fs::read(&file).unwrap_or_else(|e| panic!("{e}"));
    let mut flipped = written.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    std::fs::write(&file, &flipped).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(read_all(&|_| true), Ok((_, false))));
    for damaged in [
        written[..written.len() - 1].to_vec(),
        [written.as_slice(), b"x"].concat(),
    ] {
        std::fs::write(&file, &damaged).unwrap_or_else(|e| panic!("{e}"));
        assert!(matches!(read_all(&|_| true), Err(CacheFileError::Damaged(_))));
    }
}

#[test]
fn the_header_is_checked_first_and_a_long_key_still_reads() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("one.cache");
    write_cache_file(&file, "files abc", b"payload").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read_cache_file(&file, "files abc").ok(), Some(b"payload".to_vec()));
    assert!(matches!(
        read_cache_file(&file, "files abd"),
        Err(CacheFileError::Other)
    ));

    // Keys longer than the first read, and than the header's read: the header is
    // decided once it is whole, whatever its length, and so is the payload after it
    // (longer than the first read too).
    let payload = "p".repeat(3 * FIRST_READ as usize);
    for len in [
        FIRST_READ as usize - 60,
        FIRST_READ as usize + 10,
        HEADER_BYTES as usize + 10,
    ] {
        let long = "k".repeat(len);
        write_cache_file(&file, &long, payload.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            read_cache_file(&file, &long).ok(),
            Some(payload.clone().into_bytes()),
            "{len}"
        );
        assert!(matches!(read_cache_file(&file, "short"), Err(CacheFileError::Other)));
    }

    // A header cut short in a small file is damaged, as before.
    std::fs::write(&file, b"agent-skills cache\n2\n").unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(
        read_cache_file(&file, "files abc"),
        Err(CacheFileError::Damaged(_))
    ));
}

#[test]
fn a_payload_is_made_once_and_its_header_filled_in_after_it() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("one.cache");
    let calls = std::cell::Cell::new(0);
    let parts: Vec<Vec<u8>> = (0..50u8).map(|i| vec![i; usize::from(i) * 997]).collect();
    write_cache_file_with(&file, "key", &|sink| {
        calls.set(calls.get() + 1);
        parts.iter().for_each(|part| sink(part));
    })
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(calls.get(), 1);
    assert_eq!(read_cache_file(&file, "key").ok(), Some(parts.concat()));
    // The length line as it was reserved: twenty digits, then the checksum.
    let written = std::fs::read(&file).unwrap_or_else(|e| panic!("{e}"));
    let line = written.split(|&b| b == b'\n').nth(3).unwrap_or_default();
    let len = parts.concat().len();
    assert_eq!(&line[..21], format!("{len:020} ").as_bytes());
    assert_eq!(line.len(), 20 + 1 + 32);
    // A file written the earlier way, its length without leading zeros, still reads.
    let short = [
        &written[..written.len() - len - line.len() - 1],
        format!("{len}").as_bytes(),
        &line[20..],
        b"\n",
        &parts.concat(),
    ]
    .concat();
    std::fs::write(&file, &short).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read_cache_file(&file, "key").ok(), Some(parts.concat()));
}

#[test]
fn a_payload_over_the_limit_replaces_nothing_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let file = dir.path().join("one.cache");
    write_cache_file(&file, "key", b"the old payload").unwrap_or_else(|e| panic!("{e}"));
    let big = vec![7u8; 300];
    let refused = write_within(&file, "key", &|sink| big.chunks(100).for_each(&mut *sink), 250);
    assert!(matches!(refused, Err(e) if e.kind() == std::io::ErrorKind::InvalidData));
    assert_eq!(read_cache_file(&file, "key").ok(), Some(b"the old payload".to_vec()));
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap_or_else(|e| panic!("{e}"))
        .map(|e| e.map(|e| e.file_name()))
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(names, ["one.cache"]);
    // Within the limit, the same payload is written.
    write_within(&file, "key", &|sink| big.chunks(100).for_each(&mut *sink), 1000).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(read_cache_file(&file, "key").ok(), Some(big));
}
