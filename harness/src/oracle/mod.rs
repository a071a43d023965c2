//! Second oracles: judges that nobody on the project wrote. PostgreSQL
//! itself says whether a statement writes; the URL parsers that agents'
//! tools use say which host a URL names; bash, in a sandbox, shows which
//! programs a shell line runs and which files it changes.

pub mod postgres;
pub mod shell;
pub mod url;
