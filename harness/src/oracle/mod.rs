//! Second oracles: judges that nobody on the project wrote. PostgreSQL
//! itself says whether a statement writes; the URL parsers that agents'
//! tools use say which host a URL names.

pub mod postgres;
pub mod url;
