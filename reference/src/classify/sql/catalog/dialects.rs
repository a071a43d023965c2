//! The built-ins of MySQL and SQLite that the inspector knows: functions
//! with effects, functions known to be read-only, SQLite's pragmas and
//! MySQL's credential tables. As for PostgreSQL, any other function is a
//! user-defined one and escalates under the allow-list policy.

use super::super::effect::Effect;
use super::{effect, sensitive, FunctionKind};

pub(in super::super) fn mysql_effect(name: &str) -> Option<FunctionKind> {
    use Effect::*;
    Some(match name {
        "sleep" | "benchmark" => effect(
            Hold,
            "holds the connection, and every lock its transaction took, while it runs",
        ),
        "get_lock" | "release_lock" | "release_all_locks" => effect(
            Write,
            "takes or releases a named lock that outlives the statement",
        ),
        "load_file" => sensitive(ServerFiles, "reads the database host's files"),
        // lib_mysqludf_sys, the user-defined functions intrusion kits install.
        "sys_exec" | "sys_eval" => effect(External, "runs a shell command on the database host"),
        "master_pos_wait" | "source_pos_wait" | "wait_for_executed_gtid_set" => {
            effect(Hold, "waits on replication while holding the connection")
        }
        "last_insert_id" => effect(Write, "with an argument, sets the session's insert id"),
        "uuid_short" => effect(Write, "advances the server's counter"),
        _ => return None,
    })
}

/// MySQL built-ins without effects beyond their result.
#[rustfmt::skip]
pub(in super::super) const MYSQL_PURE: &[&str] = &[
    // aggregates and windows
    "count", "sum", "avg", "min", "max", "group_concat", "bit_and", "bit_or", "bit_xor", "std",
    "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp", "json_arrayagg",
    "json_objectagg", "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile",
    "lag", "lead", "first_value", "last_value", "nth_value", "any_value",
    // conditionals
    "coalesce", "ifnull", "nullif", "if", "greatest", "least", "isnull", "interval",
    // strings
    "lower", "upper", "lcase", "ucase", "length", "char_length", "character_length",
    "octet_length", "bit_length", "substr", "substring", "substring_index", "mid", "replace",
    "trim", "ltrim", "rtrim", "lpad", "rpad", "left", "right", "reverse", "repeat", "concat",
    "concat_ws", "locate", "instr", "position", "field", "find_in_set", "format", "hex", "unhex",
    "md5", "sha", "sha1", "sha2", "to_base64", "from_base64", "ascii", "ord", "char", "space",
    "strcmp", "soundex", "quote", "elt", "make_set", "export_set", "weight_string",
    // numbers
    "abs", "ceil", "ceiling", "floor", "round", "truncate", "sign", "sqrt", "exp", "ln", "log",
    "log2", "log10", "pow", "power", "mod", "pi", "degrees", "radians", "sin", "cos", "tan",
    "cot", "asin", "acos", "atan", "atan2", "rand", "crc32", "conv", "bin", "oct",
    // dates and times
    "now", "curdate", "curtime", "current_date", "current_time", "current_timestamp",
    "localtime", "localtimestamp", "sysdate", "utc_date", "utc_time", "utc_timestamp",
    "unix_timestamp", "from_unixtime", "date", "time", "year", "month", "day", "dayofmonth",
    "dayofweek", "dayofyear", "weekday", "week", "weekofyear", "yearweek", "hour", "minute",
    "second", "microsecond", "quarter", "monthname", "dayname", "date_format", "time_format",
    "str_to_date", "date_add", "date_sub", "adddate", "subdate", "addtime", "subtime",
    "datediff", "timediff", "timestampdiff", "timestampadd", "extract", "last_day", "makedate",
    "maketime", "period_add", "period_diff", "to_days", "from_days", "to_seconds",
    "sec_to_time", "time_to_sec", "convert_tz", "get_format",
    // json
    "json_extract", "json_unquote", "json_object", "json_array", "json_contains",
    "json_contains_path", "json_keys", "json_length", "json_type", "json_valid", "json_search",
    "json_depth", "json_pretty", "json_quote", "json_set", "json_insert", "json_replace",
    "json_remove", "json_merge_patch", "json_merge_preserve", "json_table", "json_value",
    "json_overlaps", "member_of",
    // session and system information
    "database", "schema", "user", "current_user", "session_user", "system_user", "version",
    "connection_id", "found_rows", "row_count", "charset", "collation", "coercibility", "uuid",
    "regexp_like", "regexp_instr", "regexp_replace", "regexp_substr", "inet_aton", "inet_ntoa",
    "inet6_aton", "inet6_ntoa", "is_ipv4", "is_ipv6", "bin_to_uuid", "uuid_to_bin", "is_uuid",
    "cast", "convert",
];

/// MySQL's grant tables, which hold password hashes.
pub(in super::super) const MYSQL_CREDENTIAL_TABLES: &[&str] =
    &["user", "global_priv", "db", "proxies_priv"];

pub(in super::super) fn sqlite_effect(name: &str) -> Option<FunctionKind> {
    use Effect::*;
    Some(match name {
        "load_extension" => effect(External, "loads native code into the database process"),
        // The sqlite3 shell's fileio functions, also loadable as an extension.
        "readfile" => sensitive(ServerFiles, "reads the host's files"),
        "writefile" | "edit" => effect(External, "writes the host's files or runs an editor"),
        "fts3_tokenizer" => effect(
            External,
            "registers a tokenizer by pointer: native code the text chooses",
        ),
        _ => return None,
    })
}

/// SQLite built-ins without effects beyond their result, and the
/// table-valued functions of the read pragmas.
#[rustfmt::skip]
pub(in super::super) const SQLITE_PURE: &[&str] = &[
    "count", "sum", "total", "avg", "min", "max", "group_concat", "string_agg", "row_number",
    "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead", "first_value",
    "last_value", "nth_value", "coalesce", "ifnull", "nullif", "iif", "if", "abs", "char", "glob",
    "hex", "unhex", "instr", "length", "octet_length", "like", "likelihood", "likely",
    "unlikely", "lower", "upper", "ltrim", "rtrim", "trim", "printf", "format", "quote",
    "random", "randomblob", "replace", "round", "sign", "soundex", "substr", "substring",
    "typeof", "subtype", "unicode", "zeroblob", "concat", "concat_ws", "changes",
    "total_changes", "last_insert_rowid", "sqlite_version", "sqlite_source_id",
    "sqlite_compileoption_get", "sqlite_compileoption_used", "date", "time", "datetime",
    "julianday", "unixepoch", "strftime", "timediff", "json", "jsonb", "json_array",
    "json_array_length", "json_extract", "json_insert", "json_object", "json_patch",
    "json_remove", "json_replace", "json_set", "json_type", "json_valid", "json_quote",
    "json_group_array", "json_group_object", "json_each", "json_tree", "json_error_position",
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos", "cosh",
    "degrees", "exp", "floor", "ln", "log", "log10", "log2", "mod", "pi", "pow", "power",
    "radians", "sin", "sinh", "sqrt", "tan", "tanh", "trunc", "generate_series",
    "pragma_table_info", "pragma_table_xinfo", "pragma_index_list", "pragma_index_info",
    "pragma_index_xinfo", "pragma_foreign_key_list", "pragma_database_list",
    "pragma_table_list", "pragma_function_list", "pragma_collation_list",
    "pragma_compile_options", "pragma_module_list", "pragma_pragma_list",
];

/// What a SQLite `PRAGMA` statement does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(in super::super) enum PragmaKind {
    Read,
    Write,
    /// Not a pragma the inspector knows: fails safe.
    Unlisted,
}

/// Pragmas that report a setting or the schema when given no value. With a
/// value most of them change the setting (`PRAGMA journal_mode = OFF`,
/// `PRAGMA writable_schema = 1`).
#[rustfmt::skip]
const READ_PRAGMAS: &[&str] = &[
    "application_id", "auto_vacuum", "automatic_index", "busy_timeout", "cache_size",
    "cache_spill", "cell_size_check", "checkpoint_fullfsync", "collation_list",
    "compile_options", "data_version", "database_list", "defer_foreign_keys", "encoding",
    "foreign_key_check", "foreign_key_list", "foreign_keys", "freelist_count", "fullfsync",
    "function_list", "hard_heap_limit", "ignore_check_constraints", "index_info", "index_list",
    "index_xinfo", "integrity_check", "journal_mode", "journal_size_limit",
    "legacy_alter_table", "locking_mode", "max_page_count", "mmap_size", "module_list",
    "page_count", "page_size", "pragma_list", "query_only", "quick_check", "read_uncommitted",
    "recursive_triggers", "reverse_unordered_selects", "schema_version", "secure_delete",
    "soft_heap_limit", "synchronous", "table_info", "table_list", "table_xinfo", "temp_store",
    "threads", "trusted_schema", "user_version", "wal_autocheckpoint", "writable_schema",
];

/// Read pragmas whose argument in parentheses names what to report on (a
/// table, an index, a row limit), not a new value.
const ARGUMENT_READ_PRAGMAS: &[&str] = &[
    "table_info",
    "table_xinfo",
    "index_info",
    "index_list",
    "index_xinfo",
    "foreign_key_list",
    "foreign_key_check",
    "integrity_check",
    "quick_check",
    "table_list",
];

/// Judges `PRAGMA name`, `PRAGMA name(value)` (`is_eq` false) or
/// `PRAGMA name = value`. Pragmas that act without a value (`optimize`,
/// `wal_checkpoint`, `incremental_vacuum`, `shrink_memory`) are not reads.
pub(in super::super) fn pragma(name: &str, has_value: bool, is_eq: bool) -> PragmaKind {
    let read = READ_PRAGMAS.contains(&name);
    match (has_value, is_eq) {
        (false, _) if read => PragmaKind::Read,
        (true, false) if ARGUMENT_READ_PRAGMAS.contains(&name) => PragmaKind::Read,
        (true, _) if read => PragmaKind::Write,
        _ => PragmaKind::Unlisted,
    }
}
