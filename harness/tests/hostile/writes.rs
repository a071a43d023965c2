//! placeholder

use super::*;
