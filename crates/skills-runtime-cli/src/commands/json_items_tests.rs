//! Tests of the JSON list writers.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::json;

use super::*;

/// What the formatter writes for `value`, after the two spaces its line opens with.
fn value_item(value: &serde_json::Value) -> String {
    let mut out = b"  ".to_vec();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, ListItemFormatter::at(1));
    value.serialize(&mut serializer).unwrap_or_else(|e| panic!("{e}"));
    String::from_utf8(out).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn an_item_reads_as_in_a_pretty_printed_list() {
    let values = [
        json!({"name": "web", "tags": ["a", "b"], "metadata": {}, "none": [], "nested": {"x": [1, {"y": null}]}}),
        json!({}),
        json!([]),
        json!("text with \"quotes\"\nand a line break"),
        json!([[], {}, [1, [2]], {"k": {"j": []}}]),
    ];
    for value in values {
        let list = serde_json::to_string_pretty(&json!([value])).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(list, format!("[\n{}\n]", value_item(&value)), "{value}");
    }
}

#[derive(Serialize)]
struct Item {
    name: String,
    tags: Vec<&'static str>,
    empty: Vec<u8>,
    nested: BTreeMap<&'static str, Option<u32>>,
}

fn item(i: usize) -> Item {
    Item {
        name: format!("skill-{i}: \"quoted\"\nand a line break"),
        tags: if i % 2 == 0 { vec!["a", "b"] } else { Vec::new() },
        empty: Vec::new(),
        nested: BTreeMap::from([("x", Some(i as u32)), ("y", None)]),
    }
}

/// Item `i`, written by `serde_json`.
fn serde_item(i: usize, out: &mut Vec<u8>) -> serde_json::Result<()> {
    super::serde_item(out, &item(i))
}

#[test]
fn json_items_are_written_as_serde_json_writes_the_list() {
    // None, one, one batch and a bit, an odd number of batches (the last one this
    // thread's, with none from the helper after it), an even number with a short
    // last one.
    for n in [0, 1, BATCH + 3, 2 * BATCH + 1, 5 * BATCH + 1] {
        let mut ours = Vec::new();
        write_json_items(&mut ours, n, serde_item).unwrap();
        let mut theirs = serde_json::to_vec_pretty(&(0..n).map(item).collect::<Vec<_>>()).unwrap();
        theirs.push(b'\n');
        assert_eq!(
            String::from_utf8(ours).unwrap(),
            String::from_utf8(theirs).unwrap(),
            "{n} items"
        );
    }
}

/// A writer that takes `left` bytes, then fails as a closed pipe does.
struct Closing {
    left: usize,
}

impl std::io::Write for Closing {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.left == 0 {
            return Err(std::io::ErrorKind::BrokenPipe.into());
        }
        let taken = buf.len().min(self.left);
        self.left -= taken;
        Ok(taken)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// An item that fails to serialize when its index is `bad`.
struct Failing {
    i: usize,
    bad: usize,
}

impl Serialize for Failing {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.i == self.bad {
            return Err(serde::ser::Error::custom("no such item"));
        }
        serializer.serialize_u64(self.i as u64)
    }
}

#[test]
fn a_failed_write_or_item_stops_the_output_with_an_error() {
    let n = 7 * BATCH + 5;
    // A pipe closed in the first batch, in a batch the other thread formats, and
    // near the end: an error each time, and no thread left waiting.
    let whole = {
        let mut whole = Vec::new();
        write_json_items(&mut whole, n, serde_item).unwrap();
        whole.len()
    };
    for left in [0, 10, whole / 3, whole - 3] {
        let failed = write_json_items(&mut Closing { left }, n, serde_item);
        assert!(failed.is_err(), "{left} bytes");
    }
    // An item that cannot be written, in a batch of either thread.
    for bad in [0, BATCH + 1, 4 * BATCH, n - 1] {
        let mut out = Vec::new();
        let failed = write_json_items(&mut out, n, |i, out| super::serde_item(out, &Failing { i, bad }));
        let message = failed.unwrap_err().to_string();
        assert!(message.contains("no such item"), "{bad}: {message}");
    }
}
