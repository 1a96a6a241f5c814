//! [`FieldMap`]: the small sorted map a skill's `metadata` and unknown frontmatter keys
//! are kept in.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A map from frontmatter keys to values, sorted by key, serialized as a JSON object.
///
/// A skill holds a few of these keys at most, and a library holds tens of thousands of
/// skills: a `BTreeMap` allocates a node for eleven entries (over 500 bytes) for the
/// first one, which made the maps the largest part of a real library in memory. This
/// holds exactly its entries, and keeps the map API a reader needs.
///
/// ```
/// use skills_core::FieldMap;
/// let map: FieldMap<String> = [("team".to_owned(), "infra".to_owned())].into_iter().collect();
/// assert_eq!(map.get("team").map(String::as_str), Some("infra"));
/// assert_eq!(serde_json::to_string(&map).unwrap(), r#"{"team":"infra"}"#);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct FieldMap<V>(Vec<(String, V)>);

impl<V> FieldMap<V> {
    /// An empty map (allocates nothing).
    pub const fn new() -> Self {
        Self(Vec::new())
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&V> {
        let at = self.0.binary_search_by(|(k, _)| k.as_str().cmp(key)).ok()?;
        Some(&self.0[at].1)
    }

    /// Whether `key` is in the map.
    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key` to `value`; the value it had before, if any.
    pub fn insert(&mut self, key: String, value: V) -> Option<V> {
        match self.0.binary_search_by(|(k, _)| k.as_str().cmp(&key)) {
            Ok(at) => Some(std::mem::replace(&mut self.0[at].1, value)),
            Err(at) => {
                self.0.insert(at, (key, value));
                None
            }
        }
    }

    /// Takes `key` out of the map.
    pub fn remove(&mut self, key: &str) -> Option<V> {
        let at = self.0.binary_search_by(|(k, _)| k.as_str().cmp(key)).ok()?;
        Some(self.0.remove(at).1)
    }

    /// How many keys the map holds.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the map is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The entries, in key order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&String, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// The keys, in order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &String> {
        self.0.iter().map(|(k, _)| k)
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
            return Self(entries);
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
        Self(kept)
    }
}

impl<V> From<std::collections::BTreeMap<String, V>> for FieldMap<V> {
    fn from(map: std::collections::BTreeMap<String, V>) -> Self {
        Self(map.into_iter().collect())
    }
}

impl<V> IntoIterator for FieldMap<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a, V> IntoIterator for &'a FieldMap<V> {
    type Item = (&'a String, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (String, V)>, fn(&'a (String, V)) -> (&'a String, &'a V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k, v))
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
