//! The common-shape reader's own tests: what it refuses, and its printable check.

#[test]
fn printable_bytes_agree_with_printable_characters() {
    for c in (0..=0x10ffff).filter_map(char::from_u32) {
        let text = format!("a{c}b");
        let expected = c == '\n' || super::printable(c);
        assert_eq!(super::all_printable(&text), expected, "U+{:04X}", c as u32);
    }
}

#[test]
fn the_chunked_check_finds_a_refused_character_anywhere() {
    // Past, at and across the edges of its 32-byte chunks, and in what is left after
    // them; a character of several bytes also straddles an edge. Each text is checked
    // against the character-by-character rule.
    let refused = [
        '\t', '\r', '\u{7f}', '\u{85}', '\u{9f}', '\u{2028}', '\u{2029}', '\u{feff}', '\u{fffe}', '\u{ffff}',
    ];
    let kept = ['\u{a0}', 'é', '—', '“', '→', '中', '\u{fffd}', '🦀'];
    for len in [0, 1, 31, 32, 33, 63, 64, 65, 70, 100] {
        let line: String = (0..len).map(|i| if i % 9 == 8 { '\n' } else { 'a' }).collect();
        assert!(super::all_printable(&line), "{len} bytes");
        for at in 0..=len {
            for c in refused.iter().chain(&kept) {
                let mut text = line.clone();
                text.insert(at, *c);
                let expected = text.chars().all(|c| c == '\n' || super::printable(c));
                assert_eq!(expected, kept.contains(c), "{c:?}");
                assert_eq!(super::all_printable(&text), expected, "{c:?} at {at} of {len}");
            }
        }
    }
}

#[test]
fn anything_else_is_left_to_the_general_parser() {
    for src in [
        "",
        "# only a comment",
        "name: web # a comment",
        "name: web\n  continued: no",
        "name: web\n  # not a continuation",
        "d:\n  text\n  - x: y",
        "d: |+\n  kept\n",
        "d: |2\n  x",
        "d: | # c\n  x",
        "d: |\n\n  leading empty",
        "d: |\n  x\n     \n  y",
        "d: >\n  a\n    more indented",
        "d: |\nnot indented",
        "d: |\n    deep\n  shallower",
        "name: 'open\nnot indented'",
        "name: 'open\n  closed' and more",
        "name: \"open\n  \\t escaped\"",
        "name: \"open\n  no close",
        "name: \"open",
        "tools: [a,, b]",
        "tools: [a: b]",
        "tools: [a, b] # c",
        "tools: [a, b",
        "tools: [-a]",
        "d: \"\\ud83d\\udcb0\"",
        "d: \"\\q\"",
        "d: \"\\UFFFFFFFF\"",
        "d: \"\\x4\"",
        "d: \"a\\\"",
        "d: \"a\"b\"",
        "m: [\"a\\\"\"]",
        "m:\n  - a: 1\n   b: 2",
        "m:\n  - a: 1\n      b: 2",
        "m:\n  -\n    a: 1",
        "m: {a: , b: 1}",
        "m: {a}",
        "m: {a:1}",
        "m: {\"a\" : 1}",
        "m: {[a]: b}",
        "m: [\"a\" \"b\"]",
        "m: [\"open\n  close\"]",
        "m: {\n\"a\": 1}",
        "m: {\n  \"a\": 1\n\n  }",
        "m:\n  n: {\n  }",
        "m: [a\n  b]",
        "m: [https://x]",
        "m: [a] x",
        "m:\n  n:\n    x\n    y",
        "m:\n  n: |\n    x",
        "tools:\n  - [a]",
        "a: &x 1\nb: *x",
        "a: !tag x",
        "a: b: c",
        "a:b",
        "key : v",
        "a:\n  - b\n  -   \n",
        "a:\n  b: 1\n c: 2",
        "a:\n  # note\n  b: 1",
        "a: x\n- b",
        "a: \u{feff}x",
        "a: x\u{2028}y",
        "a: x\u{85}",
        "a:\tb",
        "a: b\r\n",
        "---\na: b",
        "a: -b",
        "a: `x`",
        "- a\n- b",
    ] {
        assert!(super::events(src).is_none(), "{src:?} is not the common shape");
    }
}

#[test]
fn lines_are_what_splitting_at_line_breaks_gives() {
    for src in [
        "",
        "\n",
        "a",
        "a\n",
        "\na",
        "a\nb",
        "a\n\nb\n",
        "name: x\ndescription: y\n",
        "\n\n\n",
        "é\nü",
    ] {
        let ours: Vec<&str> = crate::yaml_lines::lines(src).collect();
        let split: Vec<&str> = src.split('\n').collect();
        assert_eq!(ours, split, "{src:?}");
    }
}

/// What `key_line` answered when it split at the first colon first.
fn key_line_by_split(line: &str) -> Option<(&str, &str)> {
    let (key, rest) = line.split_once(':')?;
    let first = key.bytes().next()?;
    let key_ok = key.len() <= super::MAX_KEY
        && (first.is_ascii_alphanumeric() || first == b'_')
        && key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
    if !key_ok || !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    Some((key, rest.trim_matches(' ')))
}

#[test]
fn a_key_line_is_read_as_splitting_at_the_first_colon_reads_it() {
    let long = "k".repeat(super::MAX_KEY);
    let longer = "k".repeat(super::MAX_KEY + 1);
    let mut lines = vec![
        String::new(),
        ":".into(),
        ": x".into(),
        "name".into(),
        "name:".into(),
        "name: x".into(),
        "name:x".into(),
        "name:  x  ".into(),
        "na me: x".into(),
        "x-team.v2_1: yes: no".into(),
        "-name: x".into(),
        ".name: x".into(),
        "_name: x".into(),
        "9: x".into(),
        "é: x".into(),
        "name : x".into(),
        "url: http://x".into(),
        "  name: x".into(),
        "name\t: x".into(),
    ];
    for key in [&long, &longer] {
        lines.push(format!("{key}: x"));
        lines.push(format!("{key}:"));
        lines.push(key.clone());
    }
    for line in &lines {
        assert_eq!(super::key_line(line), key_line_by_split(line), "{line:?}");
    }
}

#[test]
fn a_double_quoted_value_without_escapes_or_quotes_is_borrowed() {
    use crate::yaml_lines::unescape;
    use std::borrow::Cow;
    assert!(matches!(unescape("plain text"), Some(Cow::Borrowed("plain text"))));
    assert_eq!(unescape(r"a\tb").as_deref(), Some("a\tb"));
    assert_eq!(unescape(r#"a"b"#), None);
    assert_eq!(unescape(r#"a\"b"#).as_deref(), Some("a\"b"));
}

#[test]
fn the_tree_borrows_the_scalars_it_did_not_change() {
    use std::borrow::Cow;

    use crate::yaml::{Yaml, parse};

    // Keys and one-line values are slices of the document; a folded value and an
    // escaped one are texts of their own. (A repaired document's tree is its own by
    // its type: `Yaml::into_owned` gives `Yaml<'static>`.)
    let src = "name: web-research\ndescription: >\n  Finds\n  things\nlicense: \"MIT\\t2\"\nmodel: 'x'\n";
    let Ok(Yaml::Map(entries)) = parse(src) else {
        panic!("not a mapping");
    };
    let within = |text: &str| src.as_bytes().as_ptr_range().contains(&text.as_ptr());
    let mut borrowed = Vec::new();
    for node in entries.iter().flat_map(|(k, v)| [k, v]) {
        let Yaml::Scalar(scalar) = node else {
            panic!("not a scalar: {node:?}");
        };
        if let Cow::Borrowed(text) = scalar.text {
            assert!(within(text), "{text:?} borrowed from elsewhere");
            borrowed.push(text);
        }
    }
    assert_eq!(
        borrowed,
        ["name", "web-research", "description", "license", "model", "x"]
    );
}
