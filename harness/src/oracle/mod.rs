//! Second oracles: judges that nobody on the project wrote. PostgreSQL
//! itself says whether a statement writes.

pub mod postgres;
