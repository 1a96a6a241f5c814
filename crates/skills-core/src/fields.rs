//! [`FieldMap`]: the small sorted map a skill's `metadata` and unknown frontmatter keys
//! are kept in.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::OnceLock;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A map from frontmatter keys to values, sorted by key, serialized as a JSON object.
///
/// A skill holds a few of these keys at most, and a library holds tens of thousands of
/// skills: a `BTreeMap` allocates a node for eleven entries (over 500 bytes) for the
/// first one, which made the maps the largest part of a real library in memory. This
/// holds exactly its entries, and keeps the map API a reader needs. A map read back from
/// the persistent cache may hold the bytes it was read from instead, decoded the first
/// time it is read: it answers, compares and serializes the same either way.
///
/// ```
/// use skills_core::FieldMap;
/// let map: FieldMap<String> = [("team".to_owned(), "infra".to_owned())].into_iter().collect();
/// assert_eq!(map.get("team").map(String::as_str), Some("infra"));
/// assert_eq!(serde_json::to_string(&map).unwrap(), r#"{"team":"infra"}"#);
/// ```
pub struct FieldMap<V>(Entries<V>);

/// What a [`FieldMap`] holds; as small as a vector (24 bytes).
enum Entries<V> {
    Held(Vec<(String, V)>),
    Kept(Box<Kept<V>>),
}

/// The entries of a [`FieldMap`] as the bytes a cache kept them in, decoded the first
/// time they are read. A warm start reads back every skill's unknown frontmatter keys
/// from the cache although listing, loading and prompting never look at them (about
/// twenty allocations a skill in a real 2,800-skill library): kept as bytes, they cost
/// one.
struct Kept<V> {
    /// An encoding that `decode` was checked to read whole.
    bytes: Box<[u8]>,
    decode: Decoder<V>,
    entries: OnceLock<Vec<(String, V)>>,
}

/// Reads a kept map's entries from its bytes; `None` if they are not such an encoding.
pub(crate) type Decoder<V> = fn(&[u8]) -> Option<Vec<(String, V)>>;

impl<V> Kept<V> {
    fn entries(&self) -> &[(String, V)] {
        self.entries.get_or_init(|| self.decoded())
    }

    fn decoded(&self) -> Vec<(String, V)> {
        // The bytes were read whole when the map was made from them, so this is whole;
        // were it not, the map would be empty, never a panic.
        (self.decode)(&self.bytes).unwrap_or_default()
    }
}

impl<V> FieldMap<V> {
    /// An empty map (allocates nothing).
    pub const fn new() -> Self {
        Self(Entries::Held(Vec::new()))
    }

    /// The map that `decode` reads from `bytes`, decoded when first read. `decode` must
    /// give sorted, unique keys from `bytes`, and must have read them whole once already.
    pub(crate) fn kept(bytes: Box<[u8]>, decode: Decoder<V>) -> Self {
        Self(Entries::Kept(Box::new(Kept {
            bytes,
            decode,
            entries: OnceLock::new(),
        })))
    }

    /// Whether entries kept as bytes were decoded (or the map never was kept).
    #[cfg(test)]
    pub(crate) fn is_decoded(&self) -> bool {
        match &self.0 {
            Entries::Held(_) => true,
            Entries::Kept(kept) => kept.entries.get().is_some(),
        }
    }

    /// The bytes the map was made from by [`kept`](Self::kept), while it has not changed.
    pub(crate) fn kept_bytes(&self) -> Option<&[u8]> {
        match &self.0 {
            Entries::Held(_) => None,
            Entries::Kept(kept) => Some(&kept.bytes),
        }
    }

    /// The entries, in key order.
    fn entries(&self) -> &[(String, V)] {
        match &self.0 {
            Entries::Held(entries) => entries,
            Entries::Kept(kept) => kept.entries(),
        }
    }

    /// Applies `change` to the entries, decoded first if they were kept as bytes (which
    /// are then forgotten).
    fn change<R>(&mut self, change: impl FnOnce(&mut Vec<(String, V)>) -> R) -> R {
        let mut entries = match std::mem::replace(&mut self.0, Entries::Held(Vec::new())) {
            Entries::Held(entries) => entries,
            Entries::Kept(mut kept) => kept.entries.take().unwrap_or_else(|| kept.decoded()),
        };
        let answer = change(&mut entries);
        self.0 = Entries::Held(entries);
        answer
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        let entries = self.entries();
        let at = entries.binary_search_by(|(k, _)| k.as_str().cmp(key)).ok()?;
        Some(&entries[at].1)
    }

    /// Whether `key` is in the map.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key` to `value`; the value it had before, if any.
    pub fn insert(&mut self, key: String, value: V) -> Option<V> {
        self.change(
            |entries| match entries.binary_search_by(|(k, _)| k.as_str().cmp(&key)) {
                Ok(at) => Some(std::mem::replace(&mut entries[at].1, value)),
                Err(at) => {
                    entries.insert(at, (key, value));
                    None
                }
            },
        )
    }

    /// Takes `key` out of the map.
    pub fn remove(&mut self, key: &str) -> Option<V> {
        self.change(|entries| {
            let at = entries.binary_search_by(|(k, _)| k.as_str().cmp(key)).ok()?;
            Some(entries.remove(at).1)
        })
    }

    /// How many keys the map holds.
    pub fn len(&self) -> usize {
        self.entries().len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }

    /// The entries, in key order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&String, &V)> {
        self.entries().iter().map(|(k, v)| (k, v))
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &String> {
        self.entries().iter().map(|(k, _)| k)
    }
}

impl<V: Clone> Clone for FieldMap<V> {
    fn clone(&self) -> Self {
        Self(match &self.0 {
            Entries::Held(entries) => Entries::Held(entries.clone()),
            Entries::Kept(kept) => Entries::Kept(Box::new(Kept {
                bytes: kept.bytes.clone(),
                decode: kept.decode,
                entries: kept.entries.clone(),
            })),
        })
    }
}

impl<V: PartialEq> PartialEq for FieldMap<V> {
    fn eq(&self, other: &Self) -> bool {
        self.entries() == other.entries()
    }
}

impl<V: Eq> Eq for FieldMap<V> {}

impl<V: Hash> Hash for FieldMap<V> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.entries().hash(state);
    }
}

impl<V> Default for FieldMap<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V: fmt::Debug> fmt::Debug for FieldMap<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// Later entries win over earlier ones with the same key, as in a YAML mapping read by
/// PyYAML.
impl<V> FromIterator<(String, V)> for FieldMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> Self {
        let mut entries: Vec<(String, V)> = iter.into_iter().collect();
        // Entries already in order with no key twice (a map decoded from the cache, or
        // taken from a `BTreeMap`) are the map as they are: a skill read back from the
        // cache made two vectors per map before.
        if entries.windows(2).all(|pair| pair[0].0 < pair[1].0) {
            entries.shrink_to_fit();
            return Self(Entries::Held(entries));
        }
        // Stable: equal keys keep their order, so the last of them is the one to keep.
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        let mut kept: Vec<(String, V)> = Vec::with_capacity(entries.len());
        for entry in entries {
            match kept.last_mut() {
                Some(last) if last.0 == entry.0 => *last = entry,
                _ => kept.push(entry),
            }
        }
        kept.shrink_to_fit();
        Self(Entries::Held(kept))
    }
}

impl<V> From<std::collections::BTreeMap<String, V>> for FieldMap<V> {
    fn from(map: std::collections::BTreeMap<String, V>) -> Self {
        Self(Entries::Held(map.into_iter().collect()))
    }
}

impl<V> IntoIterator for FieldMap<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;

    fn into_iter(mut self) -> Self::IntoIter {
        self.change(std::mem::take).into_iter()
    }
}

impl<'a, V> IntoIterator for &'a FieldMap<V> {
    type Item = (&'a String, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (String, V)>, fn(&'a (String, V)) -> (&'a String, &'a V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.entries().iter().map(|(k, v)| (k, v))
    }
}

impl<V: Serialize> Serialize for FieldMap<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.iter())
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for FieldMap<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        std::collections::BTreeMap::<String, V>::deserialize(deserializer).map(Self::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_stay_sorted_and_unique_and_the_last_duplicate_wins() {
        let mut map: FieldMap<u32> = [("b".into(), 1), ("a".into(), 2), ("b".into(), 3)]
            .into_iter()
            .collect();
        assert_eq!(map.keys().collect::<Vec<_>>(), ["a", "b"]);
        assert_eq!(map.get("b"), Some(&3));
        assert_eq!(map.insert("c".into(), 4), None);
        assert_eq!(map.insert("a".into(), 5), Some(2));
        assert_eq!(map.remove("b"), Some(3));
        assert_eq!(map.remove("b"), None);
        assert_eq!(format!("{map:?}"), r#"{"a": 5, "c": 4}"#);
        assert!(map.contains_key("c") && !map.contains_key("z"));
        // In order already, a key twice: still one entry, the last value.
        let ordered: FieldMap<u32> = [("a".into(), 1), ("b".into(), 2), ("b".into(), 3)]
            .into_iter()
            .collect();
        assert_eq!(format!("{ordered:?}"), r#"{"a": 1, "b": 3}"#);
        assert_eq!(map.len(), 2);
    }

    /// `key=value` pairs split at `;`: a decoder for a kept map in these tests.
    fn pairs(bytes: &[u8]) -> Option<Vec<(String, String)>> {
        let text = std::str::from_utf8(bytes).ok()?;
        let pair = |p: &str| p.split_once('=').map(|(k, v)| (k.to_owned(), v.to_owned()));
        text.split(';').map(pair).collect()
    }

    fn kept(text: &str) -> FieldMap<String> {
        FieldMap::kept(text.as_bytes().into(), pairs)
    }

    #[test]
    fn a_kept_map_reads_as_the_map_it_holds_and_is_decoded_once_read() {
        let held: FieldMap<String> = [("a".into(), "1".into()), ("b".into(), "2".into())]
            .into_iter()
            .collect();
        let map = kept("a=1;b=2");
        assert_eq!(map.kept_bytes(), Some(&b"a=1;b=2"[..]));
        assert!(!map.is_decoded());
        assert_eq!(map.get("b").map(String::as_str), Some("2"));
        assert!(map.is_decoded());
        assert_eq!((map.len(), map.is_empty()), (2, false));
        assert_eq!(map, held);
        assert_eq!(format!("{map:?}"), format!("{held:?}"));
        assert_eq!(serde_json::to_string(&map).unwrap(), r#"{"a":"1","b":"2"}"#);
        assert_eq!(map.keys().collect::<Vec<_>>(), ["a", "b"]);
        use std::hash::BuildHasher as _;
        let state = std::collections::hash_map::RandomState::new();
        assert_eq!(state.hash_one(&map), state.hash_one(&held));
        assert_eq!(map.clone(), held);
        let entries = |m: FieldMap<String>| m.into_iter().collect::<Vec<_>>();
        assert_eq!(entries(kept("a=1;b=2").clone()), entries(held.clone()));
        assert_eq!((&map).into_iter().count(), 2);

        // A change makes it an ordinary map, the bytes forgotten.
        let mut changed = kept("a=1;b=2");
        assert_eq!(changed.insert("c".into(), "3".into()), None);
        assert_eq!(changed.kept_bytes(), None);
        assert_eq!(changed.len(), 3);
        let mut removed = kept("a=1;b=2");
        assert_eq!(removed.remove("a"), Some("1".to_owned()));
        assert_eq!(removed.keys().collect::<Vec<_>>(), ["b"]);

        // As small as a vector: a library holds two maps a skill, and values nest maps.
        assert_eq!(size_of::<FieldMap<String>>(), size_of::<Vec<String>>());

        // Bytes that do not decode: an empty map, no panic.
        let broken = kept("no pair");
        assert!(broken.is_empty() && broken.iter().next().is_none());
    }

    #[test]
    fn it_serializes_as_an_object_and_back() {
        let map: FieldMap<String> = [("z".into(), "1".into()), ("a".into(), "2".into())]
            .into_iter()
            .collect();
        let json = serde_json::to_string(&map).unwrap();
        assert_eq!(json, r#"{"a":"2","z":"1"}"#);
        assert_eq!(serde_json::from_str::<FieldMap<String>>(&json).unwrap(), map);
        assert!(serde_json::from_str::<FieldMap<String>>("[1]").is_err());
    }
}
