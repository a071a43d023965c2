//! Call-time inspection of sql operations. Until the real inspector lands this
//! module fails safe: everything is unknown, so everything escalates.

use super::Inspection;
use crate::mutant::Mutant;

/// Inspects one sql payload.
pub fn inspect(payload: &str, mutant: Option<Mutant>) -> Inspection {
    let _ = (payload, mutant);
    Inspection::unknown("sql inspection not implemented yet")
}
