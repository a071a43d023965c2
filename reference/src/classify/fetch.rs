//! Call-time inspection of fetch operations. Until the real inspector lands this
//! module fails safe: everything is unknown, so everything escalates.

use super::Inspection;
use crate::mutant::Mutant;

/// Inspects one fetch: its URL and HTTP method (`GET` when the caller gave none).
pub fn inspect(url: &str, method: &str, mutant: Option<Mutant>) -> Inspection {
    let _ = (url, method, mutant);
    Inspection::unknown("fetch inspection not implemented yet")
}
