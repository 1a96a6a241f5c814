//! Tests of the YAML reader.

use proptest::prelude::*;

use super::*;

fn scalar(text: &str, kind: ScalarKind) -> Yaml<'_> {
    Yaml::Scalar(Scalar {
        text: text.into(),
        kind,
    })
}

fn check(src: &str, expected: Yaml<'_>) {
    assert_eq!(parse(src), Ok(expected), "source: {src:?}");
}

fn check_err(src: &str, needle: &str) {
    let shown: String = src.chars().take(80).collect();
    let err = parse(src).expect_err(&shown).to_string();
    assert!(err.contains(needle), "{shown:?}: {err:?} lacks {needle:?}");
}

#[test]
fn scalars_keep_their_text_and_resolve_core_schema_types() {
    use ScalarKind::*;
    for (src, text, kind) in [
        ("1.10", "1.10", Float),
        ("007", "007", Int),
        ("0x1F", "0x1F", Int),
        ("-3", "-3", Int),
        ("1e3", "1e3", Float),
        (".5", ".5", Float),
        (".inf", ".inf", Float),
        ("true", "true", Bool),
        ("False", "False", Bool),
        ("yes", "yes", Str),
        ("'1.10'", "1.10", Str),
        ("\"true\"", "true", Str),
        ("!!str 12", "12", Str),
        ("1.2.3", "1.2.3", Str),
        ("hello world", "hello world", Str),
    ] {
        check(src, scalar(text, kind));
    }
    for src in ["", "~", "null", "NULL", "!!null x"] {
        check(src, Yaml::Null);
    }
}

#[test]
fn collections_nest_in_source_order() {
    check(
        "b: [1, x]\na:\n  k: v\n",
        Yaml::Map(vec![
            (
                scalar("b", ScalarKind::Str),
                Yaml::Seq(vec![scalar("1", ScalarKind::Int), scalar("x", ScalarKind::Str)]),
            ),
            (
                scalar("a", ScalarKind::Str),
                Yaml::Map(vec![(scalar("k", ScalarKind::Str), scalar("v", ScalarKind::Str))]),
            ),
        ]),
    );
}

#[test]
fn aliases_expand_to_their_anchor() {
    check(
        "a: &x [1]\nb: *x\n",
        Yaml::Map(vec![
            (
                scalar("a", ScalarKind::Str),
                Yaml::Seq(vec![scalar("1", ScalarKind::Int)]),
            ),
            (
                scalar("b", ScalarKind::Str),
                Yaml::Seq(vec![scalar("1", ScalarKind::Int)]),
            ),
        ]),
    );
}

#[test]
fn alias_bomb_is_refused() {
    let mut src = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    let mut prev = 'a';
    for name in 'b'..='j' {
        src.push_str(&format!(
            "{name}: &{name} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
        ));
        prev = name;
    }
    check_err(&src, "repetition limit exceeded");
}

#[test]
fn deep_nesting_is_refused() {
    let src = format!("{}{}", "[".repeat(100), "]".repeat(100));
    check_err(&src, "nesting deeper than");
    // Deeper still, the parser's own recursion guard answers first.
    let src = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(parse(&src).is_err());
}

#[test]
fn duplicate_keys_and_syntax_errors_are_errors() {
    let read = parse_lenient("a: 1\nb: 2\na: 3\n").unwrap();
    assert_eq!(read.duplicates, ["a"]);
    let Yaml::Map(entries) = read.yaml else {
        panic!("a mapping")
    };
    let keys: Vec<String> = entries.iter().map(|(k, _)| k.to_text()).collect();
    assert_eq!(keys, ["b", "a"], "the last `a` is kept");
    assert_eq!(entries[1].1.to_text(), "3");
    check_err("a: [1, 2\n", "");
    check_err("a: *nope\n", "");
}

#[test]
fn repeated_keys_are_found_in_small_and_large_mappings_alike() {
    // Keys are searched in place up to `LINEAR_KEYS`, then kept in a set built from
    // those before: a repeat on either side of that line is found.
    for keys in [3, LINEAR_KEYS - 1, LINEAR_KEYS, LINEAR_KEYS + 1, 40] {
        let mut src: String = (0..keys).map(|i| format!("k{i}: {i}\n")).collect();
        src.push_str("k1: last\n");
        src.push_str(&format!("k{}: again\n", keys - 1));
        let read = parse_lenient(&src).unwrap();
        assert_eq!(
            read.duplicates,
            ["k1".to_owned(), format!("k{}", keys - 1)],
            "{keys} keys"
        );
        let Yaml::Map(entries) = read.yaml else {
            panic!("a mapping")
        };
        assert_eq!(entries.len(), keys, "{keys} keys");
        assert_eq!(value_of(&Yaml::Map(entries.clone()), "k1"), "last");
        let unique: std::collections::HashSet<String> = entries.iter().map(|(k, _)| k.to_text()).collect();
        assert_eq!(unique.len(), keys, "{keys} keys: each once");
    }
}

#[test]
fn collections_render_as_flow_text() {
    let node = parse("{a: [1, 'x y', 'true', ''], b: ~, c: 'k: v'}").unwrap();
    assert_eq!(node.to_text(), r#"{a: [1, x y, "true", ""], b: null, c: "k: v"}"#);
    assert_eq!(parse("1.10").unwrap().to_text(), "1.10");
    assert_eq!(Yaml::Null.to_text(), "");
}

/// The document read leniently, with its repair notes.
fn forgiven(src: &str) -> (Yaml<'_>, Vec<String>) {
    let read = parse_lenient(src).unwrap_or_else(|e| panic!("{src:?}: {e}"));
    assert!(read.duplicates.is_empty());
    (read.yaml, read.repairs)
}

fn value_of(yaml: &Yaml<'_>, key: &str) -> String {
    let Yaml::Map(entries) = yaml else { panic!("a mapping") };
    entries
        .iter()
        .find(|(k, _)| k.to_text() == key)
        .map(|(_, v)| v.to_text())
        .unwrap()
}

#[test]
fn under_indented_quoted_continuations_read_as_libyaml_reads_them() {
    for src in [
        "d: \"This is a long\ndescription that continues\"\nn: x\n",
        "d: 'This is a long\ndescription that continues'\nn: x\n",
    ] {
        let (yaml, repairs) = forgiven(src);
        assert_eq!(value_of(&yaml, "d"), "This is a long description that continues");
        assert_eq!(value_of(&yaml, "n"), "x");
        assert_eq!(repairs.len(), 1, "{repairs:?}");
        assert!(repairs[0].starts_with("line 1: the continuation lines"), "{repairs:?}");
    }
    // Nested: indented past the nested key, not the top level.
    let (yaml, _) = forgiven("m:\n  k: \"one\n two\"\n");
    assert_eq!(value_of(&yaml, "m"), "{k: one two}");
}

#[test]
fn surrogate_pair_escapes_decode_to_their_character() {
    let (yaml, repairs) = forgiven("icon: \"\\ud83d\\udcb0 and \\u00e9\"\nlone: \"a\\ud83d\"\n");
    assert_eq!(value_of(&yaml, "icon"), "\u{1f4b0} and \u{e9}");
    assert_eq!(value_of(&yaml, "lone"), "a\u{fffd}");
    assert_eq!(repairs.len(), 2, "{repairs:?}");
    assert!(
        repairs[1].starts_with("line 2: a JSON-style surrogate-pair"),
        "{repairs:?}"
    );
    // In a plain or single-quoted value the text stays as written.
    let (yaml, repairs) = forgiven("a: \\ud83d\\udcb0\nb: '\\ud83d'\n");
    assert_eq!(value_of(&yaml, "a"), "\\ud83d\\udcb0");
    assert_eq!(value_of(&yaml, "b"), "\\ud83d");
    assert!(repairs.is_empty());
}

#[test]
fn flow_collections_closed_at_column_zero_read_as_libyaml_reads_them() {
    let (yaml, repairs) = forgiven("m: {\n\"a\": \"b\",\n  c: [1,\n2\n]\n}\nn: x\n");
    assert_eq!(value_of(&yaml, "m"), "{a: b, c: [1, 2]}");
    assert_eq!(value_of(&yaml, "n"), "x");
    assert!(
        !repairs.is_empty() && repairs.iter().all(|r| r.contains("inside `[...]`")),
        "{repairs:?}"
    );
    // A block mapping under-indented is no flow collection: still an error.
    check_err("m:\n  a: 1\n b: 2\n", "");
}

#[test]
fn byte_order_marks_inside_the_frontmatter_are_dropped() {
    let (yaml, repairs) = forgiven("a: \u{feff}hello\nb: \u{feff}\"q\"\n");
    assert_eq!(value_of(&yaml, "a"), "hello");
    assert_eq!(value_of(&yaml, "b"), "q");
    assert_eq!(repairs.len(), 2, "{repairs:?}");
}

#[test]
fn repairs_are_bounded_and_the_first_error_is_the_answer() {
    // A flow collection 81 columns short of its key needs more repairs than allowed:
    // the answer is the parser's first error.
    let nested: String = (0..40).map(|i| format!("{}k{i}:\n", "  ".repeat(i))).collect();
    let deep = format!("{nested}{}k: {{\n}}\n", "  ".repeat(40));
    let err = parse(&deep).unwrap_err().to_string();
    assert!(err.contains("invalid indentation") && err.contains("line 42"), "{err}");
    let near = format!("{nested}{}k: {{\n{}}}\n", "  ".repeat(40), " ".repeat(30));
    assert!(parse(&near).is_ok(), "51 repairs are within the bound");
    // Unknown escapes are errors in libyaml too.
    check_err("a: \"\\d\"\n", "unknown escape");
}

// The common shape (`yaml_simple`) against the general parser.

/// Both readers on `src`: `None` when the common shape refuses it.
fn both(src: &str) -> Option<(Yaml<'_>, Yaml<'_>)> {
    let simple = parse_simple(src)?;
    let general = parse_general(src).unwrap_or_else(|e| panic!("{src:?} was read here but is invalid: {e}"));
    Some((simple.expect("built"), general))
}

#[test]
fn the_common_shapes_are_read_here_as_the_general_parser_reads_them() {
    for src in [
        "name: web\ndescription: Browse the web, fast.",
        "name: web\n\n# a comment\ndescription: 'quoted: yes # not a comment'\nlicense: \"MIT\"",
        "name: web\nmetadata:\n  version: 1.10\n  author: me\n  empty:\nallowed-tools:\n- Read\n- 'Bash(git status:*)'",
        "name: web\nallowed-tools:\n    - a\n\n    - b\nnext: ~",
        "name: web\ndescription:\nlicense: C#, a:b, 100%",
        "name: web\nname: again\nx: true\n0x1F: int key",
        "name: web\n  continued here\n\n   and after a break\nnext: x",
        "description:\n  React patterns that scale.\n  Use when refactoring.\nlicense: MIT",
        "d: |\n  line one\n    indented # kept\n\n  after: empty\n\nnext: 1",
        "d: |-\n  a\n  b\n",
        "d: >\n  folded\n  lines\n\n\n  para two\n\nlicense: MIT",
        "d: >-\n    deep\n    text",
        "name: 'it''s'",
        "description: 'Builds a playbook for ransomware   \n  attacks; it''s ''quoted''\n\n    after a break  '\nlicense: MIT",
        "description: 'opens\n  # not a comment: x'\n",
        "description: \"Double quoted\n  over two lines\"\nname: web",
        "d: '\n  first line empty'",
        "d: \"two '' quotes\n  stay two ''\"",
        "tools: [Read, Write, Bash(git status)]\nempty: []\nspaced: [ a ,b ]\nkinds: [1, true, ~, 1.10, é]",
        "metadata:\n  mcp: [rube]\n  none: [ ]\nname: web",
        "tools: [a, 'b', \"c\"]\nmore: [a, b,]\nnest: [a, [b, []], {}]\nm: {a: 1, 'b': 'it''s'}",
        "a:\n  b:\n    c: 1\n    d:\n      - x\n  e: [1]\nf: 2",
        "metadata: {\"openclaw\":{\"emoji\":\"\u{1f41b}\",\"requires\":{\"bins\":[\"python3\"],\"env\":[]}}}",
        "metadata:\n  {\n    \"openclaw\":\n      {\n        \"install\":\n          [\n            { \"id\": \"x\", \"bins\": [\"curl\"] },\n          ],\n      },\n  }\nname: web",
        "metadata:\n  clawdbot:\n    requires:\n      env:\n      - A\n      - B\n      bins: [\"bw\",\n        \"jq\"]\n    always: false\nname: web",
        "m: {a: true,\n  b: 1.5\n  }",
        "d: \"tab\\t \\u00e9 \\U0001f4b0 \\x41 \\\\ \\\" \\/ \\N \\_ \\0\"\nm: {\"e\": \"\\U0001f4b0\", \"q\": [\"a\\tb\\\\c\"]}",
        // Every escape YAML has, each against the general parser's reading.
        r#"e: "\a\b\v\f\r\e\L\P\ x\n\xe9\u00E9""#,
        r#"e: "\a \b \v \f \r \e \L \P \  \n \xe9 \u00E9 \U0001F4B0""#,
        "install:\n  - id: brew\n    kind: brew\n    bins: [gh]\n    extra:\n      a: 1\n  -   id: x\n      list:\n      - y\n  - plain\nother: 1",
        "install:\n- id: a\n  n: {\"k\": 1,\n    \"j\": 2}\n- id: b\nname: web",
    ] {
        let (simple, general) = both(src).unwrap_or_else(|| panic!("{src:?} has the common shape"));
        assert_eq!(simple, general, "{src:?}");
    }
}

/// Values: mostly ones the common shape reads, some it must refuse or read exactly.
fn value() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "hello world",
        "Use for A, B and C.",
        "C#",
        "a:b",
        "100%",
        "x,y]",
        "é ü",
        "~",
        "null",
        "1.10",
        "yes",
        "true",
        "0x1F",
        "'q: # x'",
        "\"d e\"",
        "''",
        "\"\"",
        "",
        "a: b",
        "x #c",
        "'it''s'",
        "\"a\\nb\"",
        "- item",
        "-",
        "[a, b]",
        "[]",
        "[ ]",
        "[Read]",
        "[ a ,b ]",
        "[a, b,]",
        "[a,,b]",
        "[a, [b]]",
        "[a: b]",
        "[a, 'b']",
        "[C#, x]",
        "[a] x",
        "[a, b",
        "[1, true, ~, null]",
        "[é, ü]",
        "[-a]",
        "{a: 1}",
        "{\"a\":\"b\"}",
        "{\"a\":{\"b\":[\"c\", 1, true]}}",
        "[\"x\", 'y', '']",
        "{a: 1, b: [x], 'c': {}}",
        "{a: }",
        "{a:1}",
        "{\"a\" : 1}",
        "[\"a\" \"b\"]",
        "[a, b ,]",
        "{a: b,}",
        "[[], [[x]]]",
        "{a: b: c}",
        "[a]]",
        "{\"a\":\"b\\\"\"}",
        "{\"a\": \"é: #x\"}",
        "{a: [b}",
        "{x: 1, x: 2}",
        "\"a\\tb\"",
        "\"\\U0001f4b0 \\u00e9\"",
        "\"\\ud83d\\udcb0\"",
        "\"\\q\"",
        "\"a\\\"b\"",
        "\"a\\\"",
        "{\"a\": \"\\x41\\\"\"}",
        "&a x",
        "*a",
        "!t x",
        "|",
        ">",
        "\u{feff}x",
        "\u{85}",
        "a :",
        "%x",
        "@x",
        "`x",
        "#c",
        "\"open",
        "'a' b",
        "'opens here",
        "'opens and '' goes on",
        "\"opens here",
        "closes'",
        "closes'' here'",
        "'",
        "still open ''",
        "closes\" here",
        "it'' goes on\"",
        "ends\"",
        "x' y",
        "?x",
        ":x",
        "a\tb",
        "x\r",
        "--- x",
    ])
}

fn key() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "name",
        "description",
        "metadata",
        "a.b",
        "x-y",
        "_k",
        "true",
        "1",
        "name",
        "-x",
        "k ",
        "é",
        "",
    ])
}

/// One top-level entry: `key: value`, `key:` with a nested mapping or list at some
/// indent, or a blank, comment or stray line.
fn entry() -> impl Strategy<Value = String> {
    let indent = prop::sample::select(vec![0usize, 1, 2, 2, 4]);
    let items = prop::collection::vec((key(), value()), 1..4);
    let header = prop::sample::select(vec!["|", "|-", ">", ">-", "|+", ">2"]);
    (0u8..15, key(), value(), indent, items, header).prop_map(|(form, key, value, indent, items, header)| {
        let pad = " ".repeat(indent);
        // Indents that vary from line to line, and empty lines between.
        let lines = |first: &str| -> Vec<String> {
            let mut out = vec![first.to_owned()];
            for (n, (_, v)) in items.iter().enumerate() {
                out.push(match n % 3 {
                    0 => format!("{pad}{v}"),
                    1 => format!("{pad}  {v}"),
                    _ => format!("\n{pad}{v}"),
                });
            }
            out
        };
        // `key:` and one block of lines below it, one per item.
        let under_key = |line: &dyn Fn(&str, &str) -> String| {
            let lines: Vec<_> = items.iter().map(|(k, v)| line(k, v)).collect();
            format!("{key}:\n{}", lines.join("\n"))
        };
        match form {
            8 => format!("{key}: {header}\n{}", lines(&format!("{pad}{value}")).join("\n")),
            9 => format!("{key}: {value}\n{}", lines(&format!("{pad}{value}")).join("\n")),
            10 => format!("{key}:\n{}", lines(&format!("{pad}{value}")).join("\n")),
            0..=2 => format!("{key}: {value}"),
            3 => under_key(&|k, v| format!("{pad}{k}: {v}")),
            4 => under_key(&|_, v| format!("{pad}- {v}")),
            5 => format!("{key}:"),
            // A flow mapping over lines, its closer at some indent.
            11 => {
                let lines: Vec<_> = items.iter().map(|(k, v)| format!("{pad} {k}: {v},")).collect();
                format!("{key}: {{\n{}\n{pad}}}", lines.join("\n"))
            }
            // Mappings nested two levels, a list at its key's column.
            12 => under_key(&|k, v| format!("{pad}{k}:\n{pad}  {k}: {v}\n{pad}  list:\n{pad}  - {v}\n{pad}  {k}:")),
            // A list of mappings, the first key on the item's line.
            14 => under_key(&|k, v| format!("{pad}- {k}: {v}\n{pad}  {k}:\n{pad}  - {v}\n{pad}  x: {value}")),
            // A flow collection on the line below its key.
            13 => format!("{key}:\n{pad}{value}"),
            6 => format!("{pad}#{value}"),
            _ => format!("{pad}{value}"),
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]
    #[test]
    fn what_is_read_here_reads_the_same_in_the_general_parser(lines in prop::collection::vec(entry(), 1..6)) {
        let src = lines.join("\n");
        if let Some((simple, general)) = both(&src) {
            prop_assert_eq!(simple, general, "{:?}", src);
        }
    }
}

#[test]
fn the_events_vector_is_reused_between_texts() {
    // The thread's emptied vector becomes the next text's events in place (`relabel`),
    // and each parse through it reads what the general parser reads.
    let text = "name: web\ndescription: Search\n";
    let expected = parse_general(text).unwrap();
    let kept = || EVENTS.with_borrow(|kept| (kept.as_ptr() as usize, kept.capacity(), kept.len()));
    let (yaml, _) = parse_events(text).map_err(|f| f.error).unwrap();
    assert_eq!(yaml, expected);
    let first = kept();
    assert!(
        first.1 > 0 && first.2 == 0,
        "the thread keeps its emptied vector: {first:?}"
    );
    // The next parse takes that vector and gives it back: the same allocation.
    let (yaml, _) = parse_events(text).map_err(|f| f.error).unwrap();
    assert_eq!(yaml, expected);
    assert_eq!(kept(), first);
    // A frontmatter of thousands of lines reads as well, and its vector is not kept.
    let long: String = (0..2_000).map(|i| format!("k{i}: v\n")).collect();
    let (yaml, _) = parse_events(&long).map_err(|f| f.error).unwrap();
    assert!(matches!(yaml, Yaml::Map(entries) if entries.len() == 2_000));
    assert_eq!(kept().1, 0);
}
