//! Generator reach: which requirements the generators can exercise.
//!
//! Every generator names its productions and tags each with the
//! requirement ids (cases/REQUIREMENTS.yaml) it exercises ([`Tagged`]), next
//! to the code that builds it; the code calls [`fire`] when it builds one.
//! [`measure`](super::reach_map::measure) runs every target from a seed with recording on and joins
//! what fired with the tags, so the map is checked against the code both
//! ways: a tag whose production never fires is stale, a production that
//! fires without a tag is unmapped, and a MUST requirement about inputs with
//! no production that fired is a hole. `rbv fuzz --reach` prints the map
//! (`reach_map`); this module is only the recorder, below the generators.

use std::cell::RefCell;
use std::collections::BTreeMap;

/// A production of a generator and the requirements it exercises.
pub type Tagged = (&'static str, &'static [&'static str]);

/// `(generator, production)`.
pub type Production = (&'static str, &'static str);

thread_local! {
    static FIRED: RefCell<Option<BTreeMap<Production, u64>>> = const { RefCell::new(None) };
}

/// Notes that `generator` built `production`. Free when nothing records.
pub fn fire(generator: &'static str, production: &'static str) {
    FIRED.with(|f| {
        if let Some(map) = f.borrow_mut().as_mut() {
            *map.entry((generator, production)).or_default() += 1;
        }
    });
}

/// Runs `f` with recording on; what fired, with counts.
pub fn record<T>(f: impl FnOnce() -> T) -> (T, BTreeMap<Production, u64>) {
    let outer = FIRED.with(|c| c.borrow_mut().replace(BTreeMap::new()));
    let out = f();
    let fired = FIRED.with(|c| std::mem::replace(&mut *c.borrow_mut(), outer));
    (out, fired.unwrap_or_default())
}

/// How many distinct productions the current recording has seen (0 when
/// nothing records).
pub fn fired_count() -> usize {
    FIRED.with(|f| f.borrow().as_ref().map_or(0, BTreeMap::len))
}
