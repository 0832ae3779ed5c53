//! A launch's metrics, stored by key number rather than in a string-keyed tree: every
//! canonical and derived key has a slot, so reading a metric is a hash of its name (or no
//! hash at all, by [`KeyId`]) and a launch's map makes no allocation. It reads like the
//! `BTreeMap<&'static str, f64>` it replaced: iteration is in key-name order.

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{DERIVED, METRICS};

/// Slots in a map: more than the canonical and derived keys together (checked when the
/// key table is built).
const CAPACITY: usize = 192;
const WORDS: usize = CAPACITY.div_ceil(64);

/// A canonical or derived key's slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyId(u16);

struct KeyTable {
    names: Vec<&'static str>,
    by_name: HashMap<&'static str, KeyId, rustc_hash::FxBuildHasher>,
    /// Slots in the order of their names, for iteration.
    sorted: Vec<KeyId>,
}

fn table() -> &'static KeyTable {
    static TABLE: OnceLock<KeyTable> = OnceLock::new();
    TABLE.get_or_init(|| {
        let names: Vec<&'static str> = METRICS
            .iter()
            .map(|m| m.key)
            .chain(DERIVED.iter().map(|d| d.key))
            .collect();
        assert!(
            names.len() <= CAPACITY,
            "{} metric keys: raise metrics::map::CAPACITY",
            names.len()
        );
        let mut by_name = HashMap::with_hasher(rustc_hash::FxBuildHasher);
        for (i, name) in names.iter().enumerate() {
            let first = by_name.insert(*name, KeyId(i as u16)).is_none();
            assert!(first, "metric key `{name}` is defined twice");
        }
        let mut sorted: Vec<KeyId> = (0..names.len()).map(|i| KeyId(i as u16)).collect();
        sorted.sort_by_key(|id| names[id.0 as usize]);
        KeyTable {
            names,
            by_name,
            sorted,
        }
    })
}

impl KeyId {
    /// The slot of a canonical or derived key; `None` for any other name.
    pub fn of(name: &str) -> Option<KeyId> {
        table().by_name.get(name).copied()
    }

    /// As [`KeyId::of`], for a name the code spells out: an unknown one is a bug.
    pub fn known(name: &str) -> KeyId {
        KeyId::of(name).unwrap_or_else(|| panic!("`{name}` is not a metric key"))
    }

    /// The slot of `METRICS[index]`: canonical keys take the first slots, in order.
    pub(super) fn of_metric(index: usize) -> KeyId {
        debug_assert_eq!(table().names[index], METRICS[index].key);
        KeyId(index as u16)
    }

    pub fn name(self) -> &'static str {
        table().names[self.0 as usize]
    }

    fn name_ref(self) -> &'static &'static str {
        &table().names[self.0 as usize]
    }
}

/// Which slots a map holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeySet([u64; WORDS]);

impl KeySet {
    pub fn union(self, other: KeySet) -> KeySet {
        KeySet(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }
}

/// A launch's canonical and derived metrics.
#[derive(Clone)]
pub struct Metrics {
    present: [u64; WORDS],
    values: [f64; CAPACITY],
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            present: [0; WORDS],
            values: [0.0; CAPACITY],
        }
    }
}

impl Metrics {
    pub fn new() -> Self {
        Self::default()
    }

    fn has(&self, id: KeyId) -> bool {
        let i = id.0 as usize;
        self.present[i / 64] & (1 << (i % 64)) != 0
    }

    pub(crate) fn get_id(&self, id: KeyId) -> Option<f64> {
        self.has(id).then(|| self.values[id.0 as usize])
    }

    pub fn get(&self, key: &str) -> Option<&f64> {
        let id = KeyId::of(key)?;
        self.has(id).then(|| &self.values[id.0 as usize])
    }

    pub fn contains_key(&self, key: &str) -> bool {
        KeyId::of(key).is_some_and(|id| self.has(id))
    }

    pub(crate) fn contains_id(&self, id: KeyId) -> bool {
        self.has(id)
    }

    /// Sets a slot; returns what it held.
    pub(crate) fn set(&mut self, id: KeyId, value: f64) -> Option<f64> {
        let old = self.get_id(id);
        let i = id.0 as usize;
        self.present[i / 64] |= 1 << (i % 64);
        self.values[i] = value;
        old
    }

    /// Sets a key, which must be a canonical or derived one.
    pub fn insert(&mut self, key: &str, value: f64) -> Option<f64> {
        self.set(KeyId::known(key), value)
    }

    pub fn remove(&mut self, key: &str) -> Option<f64> {
        let id = KeyId::of(key)?;
        let old = self.get_id(id);
        let i = id.0 as usize;
        self.present[i / 64] &= !(1 << (i % 64));
        old
    }

    pub(crate) fn key_set(&self) -> KeySet {
        KeySet(self.present)
    }

    pub fn len(&self) -> usize {
        self.present.iter().map(|w| w.count_ones() as usize).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.present.iter().all(|w| *w == 0)
    }

    /// The keys held and their values, in the order of the keys' names.
    pub fn iter(&self) -> impl Iterator<Item = (&'static &'static str, &f64)> + '_ {
        table()
            .sorted
            .iter()
            .filter(|id| self.has(**id))
            .map(|id| (id.name_ref(), &self.values[id.0 as usize]))
    }

    /// The slots held, in slot order (faster than [`Metrics::iter`] when order does not
    /// matter).
    pub(crate) fn ids(&self) -> impl Iterator<Item = (KeyId, f64)> + '_ {
        self.present.iter().enumerate().flat_map(move |(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let i = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    (KeyId(i as u16), self.values[i])
                })
            })
        })
    }

    pub fn keys(&self) -> impl Iterator<Item = &'static &'static str> + '_ {
        self.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &f64> + '_ {
        self.iter().map(|(_, v)| v)
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&'static str, &mut f64) -> bool) {
        for w in 0..WORDS {
            let mut bits = self.present[w];
            while bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if !keep(KeyId(i as u16).name(), &mut self.values[i]) {
                    self.present[w] &= !(1 << (i % 64));
                }
            }
        }
    }
}

impl std::ops::Index<&str> for Metrics {
    type Output = f64;
    fn index(&self, key: &str) -> &f64 {
        self.get(key)
            .unwrap_or_else(|| panic!("the launch has no `{key}`"))
    }
}

impl PartialEq for Metrics {
    fn eq(&self, other: &Self) -> bool {
        self.present == other.present && self.ids().all(|(id, v)| other.values[id.0 as usize] == v)
    }
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<'a> IntoIterator for &'a Metrics {
    type Item = (&'static &'static str, &'a f64);
    type IntoIter = Box<dyn Iterator<Item = Self::Item> + 'a>;
    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl<K: AsRef<str>> FromIterator<(K, f64)> for Metrics {
    fn from_iter<I: IntoIterator<Item = (K, f64)>>(iter: I) -> Self {
        let mut m = Metrics::new();
        m.extend(iter);
        m
    }
}

impl<K: AsRef<str>> Extend<(K, f64)> for Metrics {
    fn extend<I: IntoIterator<Item = (K, f64)>>(&mut self, iter: I) {
        for (k, v) in iter {
            self.insert(k.as_ref(), v);
        }
    }
}

impl serde::Serialize for Metrics {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.iter())
    }
}

// Reading and writing the derived keys (`derived`, `occupancy`), by slot.

/// A key by its slot, or by a name held in a table.
pub(super) trait Slot: Copy {
    fn slot(self) -> KeyId;
}

impl Slot for KeyId {
    fn slot(self) -> KeyId {
        self
    }
}

impl Slot for &str {
    fn slot(self) -> KeyId {
        KeyId::known(self)
    }
}

impl Slot for &&str {
    fn slot(self) -> KeyId {
        KeyId::known(self)
    }
}

/// A key's value, by its slot or its name.
pub(super) fn get(m: &Metrics, k: impl Slot) -> Option<f64> {
    m.get_id(k.slot())
}

/// Sets a derived key unless the export had it; a non-finite value is no value.
pub(super) fn put(m: &mut Metrics, k: impl Slot, v: Option<f64>) {
    if let Some(v) = v.filter(|v| v.is_finite()) {
        let k = k.slot();
        if !m.contains_id(k) {
            m.set(k, v);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_like_the_sorted_map_it_replaced() {
        let mut m = Metrics::new();
        assert!(m.is_empty());
        assert_eq!(m.insert("sectors_ld", 8.0), None);
        assert_eq!(m.insert("duration_ns", 2.0), None);
        assert_eq!(m.insert("sectors_ld", 9.0), Some(8.0));
        assert_eq!(m.get("sectors_ld"), Some(&9.0));
        assert_eq!(m.get("sectors_st"), None);
        assert_eq!(m.get("no such key"), None);
        assert_eq!(m.len(), 2);
        let keys: Vec<_> = m.keys().copied().collect();
        assert_eq!(keys, ["duration_ns", "sectors_ld"]);
        assert_eq!(m.remove("duration_ns"), Some(2.0));
        assert!(!m.contains_key("duration_ns"));
        let same: Metrics = [("sectors_ld", 9.0)].into_iter().collect();
        assert_eq!(m, same);
        assert_eq!(format!("{m:?}"), r#"{"sectors_ld": 9.0}"#);
    }

    #[test]
    fn every_key_has_a_slot() {
        for name in METRICS
            .iter()
            .map(|m| m.key)
            .chain(DERIVED.iter().map(|d| d.key))
        {
            assert_eq!(KeyId::known(name).name(), name);
        }
    }

    #[test]
    fn ids_walk_every_held_slot() {
        let m: Metrics = [
            ("sectors_ld", 1.0),
            ("duration_ns", 2.0),
            ("sectors_st", 3.0),
        ]
        .into_iter()
        .collect();
        let mut got: Vec<_> = m.ids().map(|(id, v)| (id.name(), v)).collect();
        got.sort_by(|a, b| a.0.cmp(b.0));
        let want: Vec<_> = m.iter().map(|(k, v)| (*k, *v)).collect();
        assert_eq!(got, want);
    }
}
