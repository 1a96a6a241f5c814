//! [`NameIndex`]: finding a skill by name in a list of skills without a copy of every
//! name.

use std::hash::BuildHasher;

use foldhash::fast::RandomState;

use hashbrown::HashTable;

/// Positions in a list of named items (skills), found by name. It holds the positions
/// only and reads the names from the list, so indexing 100,000 skills costs 800 KB of
/// table, not 100,000 copies of their names (a `HashMap<String, usize>` allocated one
/// each, about 50 bytes with the allocator's share).
///
/// ```
/// use skills_core::NameIndex;
/// let names = vec!["web", "pdf"];
/// let mut index = NameIndex::with_capacity(names.len());
/// for i in 0..names.len() {
///     index.insert(i, |i| names[i]);
/// }
/// assert_eq!(index.get("pdf", |i| names[i]), Some(1));
/// assert_eq!(index.get("zip", |i| names[i]), None);
/// ```
#[derive(Debug, Clone, Default)]
pub struct NameIndex {
    table: HashTable<usize>,
    state: RandomState,
}

impl NameIndex {
    /// An empty index with room for `capacity` positions.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            table: HashTable::with_capacity(capacity),
            state: RandomState::default(),
        }
    }

    /// The position of `name`; `name_of` gives the name at a position.
    pub fn get<'a>(&self, name: &str, name_of: impl Fn(usize) -> &'a str) -> Option<usize> {
        let hash = self.state.hash_one(name);
        self.table.find(hash, |&i| name_of(i) == name).copied()
    }

    /// Adds `position` under its name (`name_of(position)`), replacing a position of the
    /// same name.
    pub fn insert<'a>(&mut self, position: usize, name_of: impl Fn(usize) -> &'a str) {
        let name = name_of(position);
        let hash = self.state.hash_one(name);
        let state = &self.state;
        match self
            .table
            .entry(hash, |&i| name_of(i) == name, |&i| state.hash_one(name_of(i)))
        {
            hashbrown::hash_table::Entry::Occupied(mut found) => *found.get_mut() = position,
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(position);
            }
        }
    }

    /// How many positions the index holds.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// Whether the index is empty.
    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}
