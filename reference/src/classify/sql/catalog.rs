//! What the inspector knows about PostgreSQL's built-in names: functions
//! with effects, functions known to be read-only, operators and session
//! settings. Names are compared in their folded form (unquoted identifiers
//! lower-cased, quoted ones verbatim), as PostgreSQL resolves them.

use super::effect::Effect;
use rbv_protocol::SqlDialect;

mod dialects;
pub(super) use dialects::{pragma, PragmaKind};

/// What a function call does, as far as the catalog knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FunctionKind {
    /// A built-in without effects beyond its result.
    Pure,
    /// A built-in with an effect; `sensitive` marks access to credentials or
    /// server files (Rule-of-Two's second boolean).
    Effect {
        effect: Effect,
        sensitive: bool,
        what: &'static str,
    },
    /// Not in the catalog: a user-defined function, or a built-in not listed.
    Unlisted,
}

const fn effect(effect: Effect, what: &'static str) -> FunctionKind {
    FunctionKind::Effect {
        effect,
        sensitive: false,
        what,
    }
}

const fn sensitive(effect: Effect, what: &'static str) -> FunctionKind {
    FunctionKind::Effect {
        effect,
        sensitive: true,
        what,
    }
}

/// Classifies a function by its folded, unqualified name, among the
/// built-ins of `dialect`: a name built into another dialect only is a
/// user-defined function here.
pub(super) fn function(name: &str, dialect: SqlDialect) -> FunctionKind {
    let (effect, pure) = match dialect {
        SqlDialect::Postgresql => (with_effect(name), PURE),
        SqlDialect::Mysql => (dialects::mysql_effect(name), dialects::MYSQL_PURE),
        SqlDialect::Sqlite => (dialects::sqlite_effect(name), dialects::SQLITE_PURE),
    };
    if let Some(kind) = effect {
        return kind;
    }
    // Exact names only: a prefix (`make_`, `json_`) would also pass a
    // user-defined `make_table()`.
    if pure.contains(&name) {
        FunctionKind::Pure
    } else {
        FunctionKind::Unlisted
    }
}

fn with_effect(name: &str) -> Option<FunctionKind> {
    use Effect::*;
    let kind = match name {
        "nextval" | "setval" => effect(Write, "advances a sequence; never rolled back"),
        "txid_current" | "pg_current_xact_id" => effect(Write, "assigns a transaction id"),
        "set_config" => effect(
            Write,
            "changes a session setting (role, search_path, read-only mode…)",
        ),
        "pg_notify" => effect(Write, "sends a notification to other sessions"),
        "pg_sleep" | "pg_sleep_for" | "pg_sleep_until" => effect(
            Hold,
            "holds the connection, and every lock its transaction took, while it sleeps",
        ),
        "pg_terminate_backend" | "pg_cancel_backend" => {
            effect(Destroy, "ends or cancels another session's work")
        }
        "pg_reload_conf"
        | "pg_rotate_logfile"
        | "pg_switch_wal"
        | "pg_switch_xlog"
        | "pg_create_restore_point"
        | "pg_backup_start"
        | "pg_start_backup"
        | "pg_backup_stop"
        | "pg_stop_backup"
        | "pg_promote"
        | "pg_wal_replay_pause"
        | "pg_wal_replay_resume"
        | "pg_xlog_replay_pause"
        | "pg_xlog_replay_resume"
        | "pg_log_backend_memory_contexts"
        | "pg_import_system_collations"
        | "pg_logical_emit_message"
        | "pg_replication_slot_advance"
        | "pg_drop_replication_slot"
        | "pg_logical_slot_get_changes"
        | "pg_logical_slot_get_binary_changes" => effect(Write, "administers the server"),
        "lo_import" => sensitive(Write, "reads a server file into a large object"),
        "lo_export" => effect(External, "writes a large object to a server file"),
        "lo_unlink" => effect(Destroy, "deletes a large object"),
        "lowrite" | "loread" | "lo_creat" | "lo_open" | "lo_close" => {
            effect(Write, "uses large-object descriptors")
        }
        "pg_read_file" | "pg_read_binary_file" => {
            sensitive(ServerFiles, "reads the database host's files")
        }
        "pg_stat_file" => sensitive(SensitiveRead, "reads metadata of the database host's files"),
        "pg_file_write" | "pg_file_rename" | "pg_file_unlink" | "pg_file_sync" => {
            effect(External, "writes the database host's files")
        }
        // These run a query given as text, which the inspector cannot see.
        "query_to_xml"
        | "query_to_xmlschema"
        | "query_to_xml_and_xmlschema"
        | "cursor_to_xml"
        | "cursor_to_xmlschema"
        | "ts_stat"
        | "ts_rewrite" => effect(Unknown, "runs a query given as text"),
        _ => return with_effect_by_family(name),
    };
    Some(kind)
}

fn with_effect_by_family(name: &str) -> Option<FunctionKind> {
    use Effect::*;
    let kind = if name.starts_with("pg_advisory") || name.starts_with("pg_try_advisory") {
        effect(
            Write,
            "takes or releases an advisory lock that outlives the statement",
        )
    } else if name.starts_with("dblink") {
        effect(External, "reaches another database server")
    } else if name.starts_with("lo_") {
        effect(Write, "changes large objects")
    } else if name.starts_with("pg_ls_") {
        sensitive(SensitiveRead, "lists the database host's directories")
    } else if name.starts_with("pg_stat_reset") || name.ends_with("_stat_statements_reset") {
        effect(Write, "resets server statistics")
    } else if (name.starts_with("pg_create_") || name.starts_with("pg_copy_"))
        && name.ends_with("_replication_slot")
    {
        effect(
            Write,
            "creates a replication slot that retains WAL on the server",
        )
    } else if name.starts_with("pg_replication_origin_") && !name.ends_with("_progress") {
        effect(Write, "changes replication origins")
    } else {
        return None;
    };
    Some(kind)
}

/// Built-ins known to have no effect beyond their result. A volatile
/// function without lasting effect (random, clock_timestamp) is pure here:
/// the gate is about effects, not determinism. Sleeping is not pure: it
/// holds a shared server's connection (`Hold`).
#[rustfmt::skip]
const PURE: &[&str] = &[
    // aggregates and window functions
    "count", "sum", "avg", "min", "max", "array_agg", "string_agg", "bool_and", "bool_or",
    "every", "bit_and", "bit_or", "bit_xor", "stddev", "stddev_pop", "stddev_samp", "variance",
    "var_pop", "var_samp", "corr", "covar_pop", "covar_samp", "regr_avgx", "regr_avgy",
    "regr_count", "regr_intercept", "regr_r2", "regr_slope", "regr_sxx", "regr_sxy", "regr_syy",
    "mode", "percentile_cont", "percentile_disc", "rank", "dense_rank", "percent_rank",
    "cume_dist", "row_number", "ntile", "lag", "lead", "first_value", "last_value", "nth_value",
    "range_agg", "range_intersect_agg", "grouping", "any_value",
    // conditionals and comparison
    "coalesce", "nullif", "greatest", "least", "num_nulls", "num_nonnulls",
    // strings
    "lower", "upper", "initcap", "length", "char_length", "character_length", "octet_length",
    "bit_length", "substr", "substring", "replace", "trim", "btrim", "ltrim", "rtrim", "lpad",
    "rpad", "left", "right", "reverse", "repeat", "concat", "concat_ws", "split_part", "strpos",
    "position", "overlay", "md5", "sha224", "sha256", "sha384", "sha512", "encode", "decode",
    "chr", "ascii", "quote_ident", "quote_literal", "quote_nullable", "translate", "to_hex",
    "format", "string_to_array", "string_to_table", "starts_with", "convert", "convert_from",
    "convert_to", "to_ascii", "unistr", "normalize", "textlen", "text", "like_escape",
    "similar_escape", "similar_to_escape", "parse_ident", "get_bit", "get_byte", "set_bit",
    "set_byte", "bit_count", "crc32", "crc32c", "casefold",
    // numbers
    "abs", "ceil", "ceiling", "floor", "round", "trunc", "sign", "sqrt", "cbrt", "exp", "ln",
    "log", "log10", "power", "pow", "mod", "div", "pi", "degrees", "radians", "sin", "cos",
    "tan", "cot", "asin", "acos", "atan", "atan2", "sind", "cosd", "tand", "cotd", "asind",
    "acosd", "atand", "atan2d", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "random",
    "random_normal", "width_bucket", "gcd", "lcm", "factorial", "scale", "min_scale",
    "trim_scale", "erf", "erfc", "generate_series", "generate_subscripts", "unnest",
    // dates and times
    "now", "current_date", "current_time", "current_timestamp", "localtime", "localtimestamp",
    "clock_timestamp", "statement_timestamp", "transaction_timestamp", "timeofday", "age",
    "extract", "to_char", "to_date", "to_timestamp", "to_number", "isfinite", "timezone",
    // arrays, ranges, rows, json
    "cardinality", "trim_array", "row", "row_to_json", "to_json", "to_jsonb", "isempty",
    "lower_inc", "upper_inc", "lower_inf", "upper_inf", "range_merge", "multirange",
    "int4range", "int8range", "numrange", "tsrange", "tstzrange", "daterange",
    // casts called as functions
    "int2", "int4", "int8", "float4", "float8", "numeric", "bool", "varchar", "bpchar", "date",
    "time", "timetz", "timestamp", "timestamptz", "interval", "bytea", "inet", "cidr", "point",
    "box", "circle", "line", "lseg", "path", "polygon", "money", "oid", "name", "regclass",
    // session and system information
    "current_user", "session_user", "user", "current_role", "current_catalog", "current_schema",
    "current_schemas", "current_database", "current_query", "version", "pg_backend_pid",
    "inet_client_addr", "inet_client_port", "inet_server_addr", "inet_server_port",
    "pg_postmaster_start_time", "pg_conf_load_time", "current_setting", "pg_my_temp_schema",
    "pg_typeof", "pg_column_size", "pg_column_compression", "pg_relation_size",
    "pg_table_size", "pg_indexes_size", "pg_total_relation_size", "pg_database_size",
    "pg_tablespace_size", "pg_relation_filenode", "pg_relation_filepath",
    "pg_tablespace_location", "pg_table_is_visible", "pg_type_is_visible",
    "pg_function_is_visible", "pg_opclass_is_visible", "pg_operator_is_visible",
    "pg_collation_is_visible", "pg_collation_for", "pg_encoding_to_char",
    "pg_char_to_encoding", "pg_describe_object", "pg_identify_object",
    "pg_identify_object_as_address", "pg_options_to_table", "pg_input_is_valid",
    "pg_input_error_info", "format_type", "obj_description", "col_description",
    "shobj_description", "currval", "lastval", "pg_sequence_last_value",
    "txid_current_if_assigned", "pg_current_xact_id_if_assigned", "txid_current_snapshot",
    "pg_current_snapshot", "txid_snapshot_xmin", "txid_snapshot_xmax", "txid_visible_in_snapshot",
    "pg_current_wal_lsn", "pg_last_wal_receive_lsn", "pg_last_wal_replay_lsn",
    "pg_partition_tree", "pg_partition_root", "pg_partition_ancestors", "pg_index_column_has_property",
    "pg_index_has_property", "pg_indexam_has_property", "pg_blocking_pids",
    "pg_safe_snapshot_blocking_pids", "pg_notification_queue_usage", "pg_listening_channels",
    "pg_jit_available", "pg_trigger_depth", "pg_settings_get_flags", "pg_tablespace_databases",
    "pg_timezone_names", "pg_timezone_abbrevs", "pg_is_in_recovery", "pg_is_wal_replay_paused",
    "pg_is_other_temp_schema", "pg_size_pretty", "pg_size_bytes",
    "to_regclass", "to_regtype", "to_regproc", "to_regprocedure", "to_regoper", "to_regoperator",
    "to_regnamespace", "to_regrole", "to_regcollation", "to_regtypemod",
    "has_any_column_privilege", "has_column_privilege", "has_database_privilege",
    "has_foreign_data_wrapper_privilege", "has_function_privilege", "has_language_privilege",
    "has_parameter_privilege", "has_schema_privilege", "has_sequence_privilege",
    "has_server_privilege", "has_table_privilege", "has_tablespace_privilege",
    "has_type_privilege", "pg_has_role",
    "pg_get_constraintdef", "pg_get_expr", "pg_get_functiondef", "pg_get_function_arguments",
    "pg_get_function_identity_arguments", "pg_get_function_result", "pg_get_indexdef",
    "pg_get_keywords", "pg_get_ruledef", "pg_get_serial_sequence", "pg_get_statisticsobjdef",
    "pg_get_triggerdef", "pg_get_userbyid", "pg_get_viewdef", "pg_get_object_address",
    "pg_get_partkeydef", "pg_get_partition_constraintdef", "pg_get_replica_identity_index",
    "pg_get_catalog_foreign_keys", "pg_get_backend_memory_contexts",
    "pg_get_shmem_allocations",
    // dates
    "date_trunc", "date_part", "date_bin", "date_add", "date_subtract", "make_date",
    "make_time", "make_timestamp", "make_timestamptz", "make_interval", "justify_days",
    "justify_hours", "justify_interval",
    // arrays
    "array_append", "array_cat", "array_dims", "array_fill", "array_length", "array_lower",
    "array_ndims", "array_position", "array_positions", "array_prepend", "array_remove",
    "array_replace", "array_to_json", "array_to_string", "array_upper", "array_sample",
    "array_shuffle", "array_to_tsvector",
    // regular expressions
    "regexp_count", "regexp_instr", "regexp_like", "regexp_match", "regexp_matches",
    "regexp_replace", "regexp_split_to_array", "regexp_split_to_table", "regexp_substr",
    // json
    "json_agg", "json_object_agg", "json_array_elements", "json_array_elements_text",
    "json_array_length", "json_build_array", "json_build_object", "json_each",
    "json_each_text", "json_extract_path", "json_extract_path_text", "json_object",
    "json_object_keys", "json_populate_record", "json_populate_recordset", "json_strip_nulls",
    "json_to_record", "json_to_recordset", "json_typeof", "json_scalar", "json_serialize",
    "json_array", "json_objectagg", "json_arrayagg",
    "jsonb_agg", "jsonb_object_agg", "jsonb_array_elements", "jsonb_array_elements_text",
    "jsonb_array_length", "jsonb_build_array", "jsonb_build_object", "jsonb_each",
    "jsonb_each_text", "jsonb_extract_path", "jsonb_extract_path_text", "jsonb_insert",
    "jsonb_object", "jsonb_object_keys", "jsonb_path_exists", "jsonb_path_exists_tz",
    "jsonb_path_match", "jsonb_path_match_tz", "jsonb_path_query", "jsonb_path_query_array",
    "jsonb_path_query_array_tz", "jsonb_path_query_first", "jsonb_path_query_first_tz",
    "jsonb_path_query_tz", "jsonb_populate_record", "jsonb_populate_recordset", "jsonb_pretty",
    "jsonb_set", "jsonb_set_lax", "jsonb_strip_nulls", "jsonb_to_record", "jsonb_to_recordset",
    "jsonb_typeof",
    // xml
    "xmlagg", "xmlcomment", "xmlconcat", "xmlelement", "xmlexists", "xmlforest", "xmlparse",
    "xmlpi", "xmlroot", "xmlserialize", "xmltext", "xml_is_well_formed",
    "xml_is_well_formed_content", "xml_is_well_formed_document", "xpath", "xpath_exists",
    // text search
    "to_tsvector", "to_tsquery", "plainto_tsquery", "phraseto_tsquery", "websearch_to_tsquery",
    "ts_rank", "ts_rank_cd", "ts_headline", "ts_debug", "ts_lexize", "ts_parse",
    "ts_token_type", "ts_filter", "ts_delete", "setweight", "strip", "numnode", "querytree",
    "tsvector_to_array", "get_current_ts_config", "tsquery_phrase",
];

/// The operator spellings of PostgreSQL's catalog (pg_operator). Any other
/// symbol is a user-defined operator, that is, a user-defined function.
#[rustfmt::skip]
const BUILTIN_OPERATORS: &[&str] = &[
    "!", "!!", "!~", "!~*", "!~~", "!~~*", "#", "##", "#-", "#<", "#<=", "#<>", "#=", "#>",
    "#>=", "#>>", "%", "&", "&&", "&<", "&<|", "&>", "*", "*<", "*<=", "*<>", "*=", "*>", "*>=",
    "+", "-", "->", "->>", "-|-", "/", "<", "<->", "<<", "<<=", "<<|", "<=", "<>", "<@", "<^",
    "=", ">", ">=", ">>", ">>=", ">^", "?", "?#", "?&", "?-", "?-|", "?|", "?||", "@", "@-@",
    "@>", "@?", "@@", "@@@", "^", "^@", "|", "|&>", "|/", "|>>", "||", "||/", "~", "~*", "~<=~",
    "~<~", "~=", "~>=~", "~>~", "~~", "~~*", "!=",
];

pub(super) fn builtin_operator(op: &str) -> bool {
    BUILTIN_OPERATORS.contains(&op)
}

/// Session settings whose change affects only performance, display or
/// timeouts of the session that makes it. Anything else (role,
/// search_path, read-only mode, string lexing, encoding, replication
/// role, logging) changes what later statements do or how they are read.
#[rustfmt::skip]
const HARMLESS_SETTINGS: &[&str] = &[
    "client_min_messages", "datestyle", "intervalstyle", "timezone", "time zone",
    "extra_float_digits", "bytea_output", "xmlbinary", "xmloption", "lc_monetary", "lc_numeric",
    "lc_time", "lc_messages", "application_name", "statement_timeout", "lock_timeout",
    "idle_in_transaction_session_timeout", "idle_session_timeout", "transaction_timeout",
    "seq_page_cost", "random_page_cost", "cpu_tuple_cost", "cpu_index_tuple_cost",
    "cpu_operator_cost", "parallel_setup_cost", "parallel_tuple_cost",
    "min_parallel_table_scan_size", "min_parallel_index_scan_size", "effective_cache_size",
    "max_parallel_workers_per_gather", "parallel_leader_participation", "force_parallel_mode",
    "debug_parallel_query", "plan_cache_mode", "constraint_exclusion", "cursor_tuple_fraction",
    "from_collapse_limit", "join_collapse_limit", "work_mem", "hash_mem_multiplier",
    "maintenance_work_mem", "default_statistics_target", "compute_query_id", "jit",
    "jit_above_cost", "jit_inline_above_cost", "jit_optimize_above_cost", "geqo",
    "geqo_threshold", "geqo_effort", "geqo_seed", "default_transaction_isolation",
    "transaction_isolation", "default_transaction_deferrable", "transaction_deferrable",
    "gin_fuzzy_search_limit", "effective_io_concurrency", "recursive_worktable_factor",
];

/// Settings that make the session safer when turned on.
pub(super) const READ_ONLY_SETTINGS: &[&str] =
    &["default_transaction_read_only", "transaction_read_only"];

/// A dotted name is an extension's or the application's own setting, read
/// by its code or by row-level security policies: never harmless.
pub(super) fn harmless_setting(name: &str) -> bool {
    HARMLESS_SETTINGS.contains(&name) || (name.starts_with("enable_") && !name.contains('.'))
}

/// Catalog relations that hold credentials.
const CREDENTIAL_RELATIONS: &[&str] = &[
    "pg_authid",
    "pg_shadow",
    "pg_user_mapping",
    "pg_user_mappings",
    "pg_hba_file_rules",
    "pg_ident_file_mappings",
];

/// Whether a relation (its folded name parts) holds credentials.
pub(super) fn credential_relation(parts: &[String], dialect: SqlDialect) -> bool {
    match (dialect, parts) {
        (SqlDialect::Mysql, [schema, table]) if schema == "mysql" => {
            dialects::MYSQL_CREDENTIAL_TABLES.contains(&table.as_str())
        }
        (SqlDialect::Postgresql, [.., last]) => CREDENTIAL_RELATIONS.contains(&last.as_str()),
        _ => false,
    }
}
