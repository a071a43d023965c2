//! rayon where it can run. Its global pool is started here, on the first
//! call, so that a failure to start its threads (the process limit used
//! up, e.g. by an implementation's children) is an answer, not the panic
//! it would be on rayon's first use: the work then runs on the calling
//! thread, in the same order.

use rayon::prelude::*;
use std::sync::OnceLock;

/// Whether `map` runs on several threads: inside a rayon pool (one that
/// `ThreadPool::install` runs), or when rayon's global pool runs.
pub fn available() -> bool {
    static GLOBAL: OnceLock<bool> = OnceLock::new();
    rayon::current_thread_index().is_some()
        || *GLOBAL.get_or_init(|| match rayon::ThreadPoolBuilder::new().build_global() {
            Ok(()) => true,
            // Without a cause: it was started before, and runs. With one
            // (an I/O error), its threads could not start; rayon does not
            // try again.
            Err(e) => std::error::Error::source(&e).is_none(),
        })
}

/// `items.iter().map(f).collect()`, on rayon's threads when it can: the
/// results are in the order of `items` either way.
pub fn map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync + Send) -> Vec<R> {
    if available() {
        items.par_iter().map(f).collect()
    } else {
        items.iter().map(f).collect()
    }
}
