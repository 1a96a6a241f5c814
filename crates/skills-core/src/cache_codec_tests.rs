//! The codec's tests for a skill's frontmatter keys beyond the specification, which it
//! reads back kept as bytes (decoded when first read).

use super::*;

/// The encoding of a skill named `web` whose `extra` is the encoding `extra` (`u32 count
/// (str key value)*`), written by hand.
fn skill_with(extra: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    put_opt(&mut out, None);
    put_str(&mut out, "web");
    put_str(&mut out, "Browse");
    put_opt(&mut out, None);
    put_opt(&mut out, None);
    put_len(&mut out, 0);
    put_len(&mut out, 0);
    out.extend_from_slice(extra);
    put_opt(&mut out, None);
    out
}

fn read(bytes: &[u8]) -> Option<SkillMetadata> {
    let mut reader = Reader { bytes };
    let skill = reader.skill("/s/web/SKILL.md")?;
    reader.bytes.is_empty().then_some(skill)
}

fn text(value: &str) -> FrontmatterValue {
    FrontmatterValue::Text(value.to_owned())
}

#[test]
fn extra_keys_read_back_kept_and_are_written_again_as_they_were_read() {
    let mut skill = SkillMetadata::new("web", "Browse", "/s/web/SKILL.md");
    let owner = FieldMap::from_iter([("team".to_owned(), text("x"))]);
    skill.extra = FieldMap::from_iter([
        (
            "tags".to_owned(),
            FrontmatterValue::List(vec![text("a"), FrontmatterValue::Null]),
        ),
        ("owner".to_owned(), FrontmatterValue::Map(owner)),
        ("version".to_owned(), text("1.10")),
    ]);
    let mut bytes = Vec::new();
    put_skill(&mut bytes, &skill, "/s/web/SKILL.md");

    let back = read(&bytes).unwrap_or_else(|| panic!("the skill reads back"));
    assert!(back.extra.kept_bytes().is_some(), "kept as bytes");
    let mut again = Vec::new();
    put_skill(&mut again, &back, "/s/web/SKILL.md");
    assert_eq!(again, bytes);
    assert!(!back.extra.is_decoded(), "written again without being decoded");
    assert_eq!(back.extra.len(), 3);
    assert_eq!(back, skill);
    assert_eq!(back.extra.get("version"), Some(&text("1.10")));
}

#[test]
fn extra_keys_out_of_order_or_twice_read_back_as_a_map() {
    let mut extra = Vec::new();
    put_len(&mut extra, 3);
    for (key, value) in [("b", "1"), ("a", "2"), ("b", "3")] {
        put_str(&mut extra, key);
        put_value(&mut extra, &text(value));
    }
    let back = read(&skill_with(&extra)).unwrap_or_else(|| panic!("the skill reads back"));
    assert_eq!(back.extra.keys().collect::<Vec<_>>(), ["a", "b"]);
    assert_eq!(back.extra.get("a"), Some(&text("2")));
    assert_eq!(back.extra.get("b"), Some(&text("3")));
}

#[test]
fn damaged_extra_keys_fail_the_read_not_a_later_lookup() {
    let good = {
        let mut extra = Vec::new();
        put_len(&mut extra, 1);
        put_str(&mut extra, "k");
        put_value(&mut extra, &FrontmatterValue::List(vec![text("v")]));
        extra
    };
    assert!(read(&skill_with(&good)).is_some());
    // Text that is UTF-8 and not ASCII, in a key, in a value and in a nested map (its
    // strings checked one by one), and a string of 200 bytes (a length byte past ASCII).
    let mut beyond_ascii = Vec::new();
    put_len(&mut beyond_ascii, 2);
    put_str(&mut beyond_ascii, "autor");
    put_value(&mut beyond_ascii, &text(&"é".repeat(100)));
    put_str(&mut beyond_ascii, "ключ");
    put_value(
        &mut beyond_ascii,
        &FrontmatterValue::Map([("中文".to_owned(), text("値"))].into_iter().collect()),
    );
    let skill = read(&skill_with(&beyond_ascii)).unwrap_or_else(|| panic!("refused"));
    assert_eq!(skill.extra.get("autor"), Some(&text(&"é".repeat(100))));
    // A tag that is no value's, a length past the end, text that is not UTF-8.
    let mut bad_tag = good.clone();
    let at = bad_tag.len() - 11;
    assert_eq!(bad_tag[at], 2, "the list's tag");
    bad_tag[at] = 9;
    let mut long = good.clone();
    let end = long.len();
    long[end - 4] = 0xff;
    let mut not_utf8 = good.clone();
    let end = not_utf8.len();
    not_utf8[end - 1] = 0xff;
    for damaged in [bad_tag, long, not_utf8] {
        assert!(read(&skill_with(&damaged)).is_none(), "{damaged:?}");
    }
    // Lists nested deeper than any frontmatter: refused, without exhausting the stack.
    let mut deep = Vec::new();
    put_len(&mut deep, 1);
    put_str(&mut deep, "k");
    for _ in 0..100_000 {
        deep.push(2);
        put_len(&mut deep, 1);
    }
    deep.push(0);
    assert!(read(&skill_with(&deep)).is_none());
}

#[test]
fn a_string_reads_back_only_when_it_is_utf8() {
    let samples: [&[u8]; 9] = [
        b"",
        b"plain-ascii-name",
        "é, 中文 and 😀".as_bytes(),
        b"\xff",
        b"abc\xc3",
        b"\xed\xa0\x80",
        b"ascii until the last byte, well under sixty-four of them\x80",
        &[b'a'; 63],
        &[b'a'; 200],
    ];
    // And short byte strings of any bytes, mostly ASCII.
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut random = Vec::new();
    for n in 0..5_000 {
        let mut bytes = Vec::new();
        for _ in 0..n % 70 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let byte = (state >> 24) as u8;
            bytes.push(if state % 16 == 0 { byte } else { byte & 0x7f });
        }
        random.push(bytes);
    }
    for bytes in samples.iter().copied().chain(random.iter().map(Vec::as_slice)) {
        let mut encoded = Vec::new();
        put_len(&mut encoded, bytes.len());
        encoded.extend_from_slice(bytes);
        let mut reader = Reader { bytes: &encoded };
        assert_eq!(reader.str(), std::str::from_utf8(bytes).ok(), "{bytes:?}");
    }
}
