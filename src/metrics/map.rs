//! A launch's metrics, stored by key number rather than in a string-keyed tree: every
//! canonical and derived key has a slot, so reading a metric is a hash of its name (or no
//! hash at all, by [`KeyId`]). A map holds a bit per slot and the values of the slots it
//! holds, packed in slot order: a traced launch's 21 values take about 220 bytes where a
//! value for every slot took 1,560 (a 300,000-launch trace held 1 GiB). It reads like
//! the `BTreeMap<&'static str, f64>` it replaced: iteration is in key-name order.

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
#[derive(Clone, Default)]
pub struct Metrics {
    present: [u64; WORDS],
    /// The values of the slots held, in slot order.
    values: Vec<f64>,
}

impl Metrics {
    pub fn new() -> Self {
        Self::default()
    }

    fn has(&self, id: KeyId) -> bool {
        let i = id.0 as usize;
        self.present[i / 64] & (1 << (i % 64)) != 0
    }

    /// Where slot `id`'s value is (or would go) in `values`: the slots held below it.
    fn rank(&self, id: KeyId) -> usize {
        let i = id.0 as usize;
        let below: u32 = self.present[..i / 64].iter().map(|w| w.count_ones()).sum();
        let within = (self.present[i / 64] & ((1u64 << (i % 64)) - 1)).count_ones();
        (below + within) as usize
    }

    pub(crate) fn get_id(&self, id: KeyId) -> Option<f64> {
        self.has(id).then(|| self.values[self.rank(id)])
    }

    pub fn get(&self, key: &str) -> Option<&f64> {
        let id = KeyId::of(key)?;
        self.has(id).then(|| &self.values[self.rank(id)])
    }

    pub fn contains_key(&self, key: &str) -> bool {
        KeyId::of(key).is_some_and(|id| self.has(id))
    }

    pub(crate) fn contains_id(&self, id: KeyId) -> bool {
        self.has(id)
    }

    /// Sets a slot; returns what it held.
    pub(crate) fn set(&mut self, id: KeyId, value: f64) -> Option<f64> {
        let at = self.rank(id);
        if self.has(id) {
            return Some(std::mem::replace(&mut self.values[at], value));
        }
        let i = id.0 as usize;
        self.present[i / 64] |= 1 << (i % 64);
        self.values.insert(at, value);
        None
    }

    /// Sets a key, which must be a canonical or derived one.
    pub fn insert(&mut self, key: &str, value: f64) -> Option<f64> {
        self.set(KeyId::known(key), value)
    }

    pub fn remove(&mut self, key: &str) -> Option<f64> {
        let id = KeyId::of(key)?;
        if !self.has(id) {
            return None;
        }
        let i = id.0 as usize;
        let old = self.values.remove(self.rank(id));
        self.present[i / 64] &= !(1 << (i % 64));
        Some(old)
    }

    pub(crate) fn key_set(&self) -> KeySet {
        KeySet(self.present)
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The keys held and their values, in the order of the keys' names.
    pub fn iter(&self) -> impl Iterator<Item = (&'static &'static str, &f64)> + '_ {
        table()
            .sorted
            .iter()
            .filter(|id| self.has(**id))
            .map(|id| (id.name_ref(), &self.values[self.rank(*id)]))
    }

    /// The slots held, in slot order, each with its value (faster than
    /// [`Metrics::iter`] when order does not matter).
    pub(crate) fn ids(&self) -> impl Iterator<Item = (KeyId, f64)> + '_ {
        self.slots().zip(self.values.iter().copied())
    }

    /// The slots held, in slot order.
    fn slots(&self) -> impl Iterator<Item = KeyId> + '_ {
        self.present.iter().enumerate().flat_map(|(w, &word)| {
            let mut bits = word;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let i = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    KeyId(i as u16)
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
        let slots: Vec<KeyId> = self.slots().collect();
        let mut kept = 0;
        for (id, at) in slots.into_iter().zip(0..) {
            let i = id.0 as usize;
            if keep(id.name(), &mut self.values[at]) {
                self.values[kept] = self.values[at];
                kept += 1;
            } else {
                self.present[i / 64] &= !(1 << (i % 64));
            }
        }
        self.values.truncate(kept);
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
        self.present == other.present && self.values == other.values
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

/// The packed map against the sorted map it stands for, over any sequence of edits.
#[cfg(test)]
mod properties {
    use std::collections::BTreeMap;

    use super::{DERIVED, KeyId, METRICS, Metrics};
    use proptest::prelude::{prop, prop_assert_eq, proptest};
    use proptest::prop_oneof;

    /// An edit: set slot `key` (an index into every key) to `value`, remove it, or keep
    /// only the values above `value`.
    #[derive(Debug, Clone)]
    enum Edit {
        Set(usize, f64),
        Remove(usize),
        RetainAbove(f64),
    }

    fn key(i: usize) -> &'static str {
        let all = METRICS.len() + DERIVED.len();
        KeyId::known(match i % all {
            i if i < METRICS.len() => METRICS[i].key,
            i => DERIVED[i - METRICS.len()].key,
        })
        .name()
    }

    fn edits() -> impl proptest::strategy::Strategy<Value = Vec<Edit>> {
        use proptest::strategy::Strategy;
        let edit = prop_oneof![
            4 => (0usize..400, -1e6f64..1e6).prop_map(|(k, v)| Edit::Set(k, v)),
            2 => (0usize..400).prop_map(Edit::Remove),
            1 => (-1e6f64..1e6).prop_map(Edit::RetainAbove),
        ];
        prop::collection::vec(edit, 0..120)
    }

    proptest! {
        #[test]
        fn edits_leave_what_a_sorted_map_holds(edits in edits()) {
            let (mut packed, mut sorted) = (Metrics::new(), BTreeMap::new());
            for edit in edits {
                match edit {
                    Edit::Set(k, v) => {
                        prop_assert_eq!(packed.insert(key(k), v), sorted.insert(key(k), v));
                    }
                    Edit::Remove(k) => prop_assert_eq!(packed.remove(key(k)), sorted.remove(key(k))),
                    Edit::RetainAbove(floor) => {
                        packed.retain(|_, v| *v > floor);
                        sorted.retain(|_, v| *v > floor);
                    }
                }
                let held: Vec<(&str, f64)> = packed.iter().map(|(k, v)| (*k, *v)).collect();
                let want: Vec<(&str, f64)> = sorted.iter().map(|(k, v)| (*k, *v)).collect();
                prop_assert_eq!(&held, &want);
                prop_assert_eq!(packed.len(), sorted.len());
                for (k, v) in &sorted {
                    prop_assert_eq!(packed.get(k), Some(v));
                    prop_assert_eq!(packed.get_id(KeyId::known(k)), Some(*v));
                }
                let mut by_slot: Vec<(&str, f64)> =
                    packed.ids().map(|(id, v)| (id.name(), v)).collect();
                by_slot.sort_by_key(|(k, _)| *k);
                prop_assert_eq!(by_slot, want);
            }
        }
    }
}
