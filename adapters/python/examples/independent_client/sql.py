"""Statement-level SQL inspection (PROTOCOL.md §10.6 "SQL", proposal §4.3).

Our own lexer, not a regex over the text: a word is a keyword only when it
is outside literals, quoted identifiers, comments and dollar quotes, so that
`SELECT 'DROP TABLE x'` is a read and `SELECT 1; DROP TABLE x` is not.
Each dialect is lexed as its server would read it; where a server setting
changes the reading (MySQL's NO_BACKSLASH_ESCAPES), every reading is
classified and the most dangerous one wins, because the client cannot know
the server's mode.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .verdict import Finding

DIALECTS = ("postgresql", "mysql", "sqlite")


class Unparseable(Exception):
    """The text cannot be lexed: an unterminated literal or comment."""


@dataclass
class Token:
    kind: str  # "word", "qident", "string", "number", "punct", "param"
    text: str

    @property
    def upper(self) -> str:
        return self.text.upper() if self.kind == "word" else ""


@dataclass
class Lexer:
    text: str
    dialect: str
    backslash_escapes: bool
    tokens: list[Token] = field(default_factory=list)

    def run(self) -> list[Token]:
        self._lex(self.text)
        return self.tokens

    def _lex(self, s: str) -> None:
        i, n = 0, len(s)
        while i < n:
            c = s[i]
            if c.isspace():
                i += 1
            elif s.startswith("--", i):
                j = s.find("\n", i)
                i = n if j < 0 else j + 1
            elif c == "#" and self.dialect == "mysql":
                j = s.find("\n", i)
                i = n if j < 0 else j + 1
            elif s.startswith("/*", i):
                i = self._block_comment(s, i)
            elif c == "'" or (c == '"' and self.dialect == "mysql"):
                i = self._string(s, i + 1, c, self.backslash_escapes and self.dialect == "mysql")
            elif c in "eE" and i + 1 < n and s[i + 1] == "'" and self.dialect == "postgresql":
                i = self._string(s, i + 2, "'", True)
            elif c == '"' or c == "`" or (c == "[" and self.dialect == "sqlite"):
                close = {'"': '"', "`": "`", "[": "]"}[c]
                j = i + 1
                while True:
                    k = s.find(close, j)
                    if k < 0:
                        raise Unparseable(f"unterminated quoted identifier at offset {i}")
                    if close != "]" and s.startswith(close * 2, k):
                        j = k + 2
                        continue
                    break
                self.tokens.append(Token("qident", s[i + 1:k]))
                i = k + 1
            elif c == "$" and self.dialect == "postgresql":
                i = self._dollar(s, i)
            elif c.isdigit() or (c == "." and i + 1 < n and s[i + 1].isdigit()):
                j = i
                while j < n and (s[j].isalnum() or s[j] in "._"):
                    j += 1
                self.tokens.append(Token("number", s[i:j]))
                i = j
            elif c.isalpha() or c == "_" or ord(c) > 127:
                j = i
                while j < n and (s[j].isalnum() or s[j] in "_$" or ord(s[j]) > 127):
                    j += 1
                self.tokens.append(Token("word", s[i:j]))
                i = j
            else:
                self.tokens.append(Token("punct", c))
                i += 1

    def _string(self, s: str, i: int, quote: str, backslash: bool) -> int:
        start = i
        while i < len(s):
            c = s[i]
            if backslash and c == "\\":
                i += 2
                continue
            if c == quote:
                if i + 1 < len(s) and s[i + 1] == quote:
                    i += 2
                    continue
                self.tokens.append(Token("string", s[start:i]))
                return i + 1
            i += 1
        raise Unparseable(f"unterminated string literal at offset {start - 1}")

    def _block_comment(self, s: str, i: int) -> int:
        # MySQL runs the text of an executable comment: /*! … */, /*!50000 … */,
        # MariaDB's /*M! … */ (any case of M). Its body is code, lexed in place.
        if self.dialect == "mysql":
            j = i + 2
            if j < len(s) and s[j] in "mM" and s.startswith("!", j + 1):
                j += 1
            if s.startswith("!", j):
                j += 1
                while j < len(s) and s[j].isdigit():
                    j += 1
                end = s.find("*/", j)
                if end < 0:
                    raise Unparseable("unterminated executable comment")
                self._lex(s[j:end])
                return end + 2
        nests = self.dialect == "postgresql"
        depth, j = 1, i + 2
        while depth:
            if j >= len(s):
                raise Unparseable(f"unterminated block comment at offset {i}")
            if s.startswith("*/", j):
                depth -= 1
                j += 2
            elif nests and s.startswith("/*", j):
                depth += 1
                j += 2
            else:
                j += 1
        return j

    def _dollar(self, s: str, i: int) -> int:
        j = i + 1
        if j < len(s) and s[j].isdigit():
            while j < len(s) and s[j].isdigit():
                j += 1
            self.tokens.append(Token("param", s[i:j]))
            return j
        while j < len(s) and (s[j].isalnum() or s[j] == "_") and not (j == i + 1 and s[j].isdigit()):
            j += 1
        if j < len(s) and s[j] == "$":
            tag = s[i:j + 1]
            end = s.find(tag, j + 1)
            if end < 0:
                raise Unparseable(f"unterminated dollar quote {tag}")
            self.tokens.append(Token("string", s[j + 1:end]))
            return end + len(tag)
        self.tokens.append(Token("punct", "$"))
        return i + 1


def split_statements(tokens: list[Token]) -> list[list[Token]]:
    out: list[list[Token]] = [[]]
    depth = 0
    for t in tokens:
        if t.kind == "punct" and t.text == "(":
            depth += 1
        elif t.kind == "punct" and t.text == ")":
            depth -= 1
            if depth < 0:
                raise Unparseable("unbalanced parentheses")
        if t.kind == "punct" and t.text == ";" and depth == 0:
            out.append([])
        else:
            out[-1].append(t)
    if depth != 0:
        raise Unparseable("unbalanced parentheses")
    return [stmt for stmt in out if stmt]


READ_HEADS = {"SELECT", "WITH", "VALUES", "TABLE", "SHOW", "EXPLAIN", "DESCRIBE", "DESC", "FETCH", "MOVE", "CLOSE"}
# Session housekeeping: nothing a later session or the data can see.
HARMLESS_HEADS = {"SAVEPOINT", "RELEASE", "DEALLOCATE", "UNLISTEN"}
# Session settings that change how fast or in which form results come, never
# what a statement means, who runs it or whether it may write.
HARMLESS_SETTINGS = {
    "statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout", "work_mem", "maintenance_work_mem",
    "application_name", "timezone", "time", "datestyle", "intervalstyle", "extra_float_digits", "random_page_cost",
    "seq_page_cost", "cpu_tuple_cost", "effective_cache_size", "jit", "max_parallel_workers_per_gather",
    "transaction", "session", "default_transaction_isolation", "geqo", "from_collapse_limit",
    "join_collapse_limit", "plan_cache_mode", "temp_buffers", "track_io_timing", "lc_messages", "lc_monetary",
    "lc_numeric", "lc_time", "local", "deadlock_timeout", "cursor_tuple_fraction", "default_statistics_target",
}
# Anywhere in a read, these words mean a write hides inside it (a
# data-modifying CTE, a subquery, an EXPLAIN ANALYZE target).
WRITE_WORDS = {
    "INSERT", "UPDATE", "DELETE", "MERGE", "TRUNCATE", "DROP", "CREATE", "ALTER", "GRANT", "REVOKE",
    "COPY", "CALL", "DO", "REPLACE", "INTO", "LOCK", "UPSERT", "ATTACH", "DETACH", "VACUUM",
    "REINDEX", "CLUSTER", "REFRESH", "EXECUTE", "PREPARE", "SET", "RENAME", "COMMENT", "IMPORT",
    "LOAD", "HANDLER", "OUTFILE", "DUMPFILE", "SHARE",
}
# Functions that only compute a value from their arguments, per dialect.
# Any other function may be user-defined, and a user-defined function can
# do anything: its call escalates (`SELECT archive_orders(2025)`).
PURE_COMMON = {
    "lower", "upper", "length", "char_length", "character_length", "octet_length", "bit_length", "substr",
    "substring", "trim", "ltrim", "rtrim", "replace", "concat", "coalesce", "nullif", "greatest", "least",
    "count", "sum", "avg", "min", "max", "abs", "ceil", "ceiling", "floor", "round", "trunc", "mod", "power",
    "sqrt", "exp", "ln", "log", "log10", "sign", "pi", "sin", "cos", "tan", "degrees", "radians", "md5",
    "hex", "cast", "convert", "extract", "position", "instr", "left", "right", "lpad", "rpad", "repeat",
    "reverse", "ascii", "char", "chr", "date", "time", "now", "row_number", "rank", "dense_rank", "lag", "lead",
    "first_value", "last_value", "nth_value", "ntile", "cume_dist", "percent_rank", "random", "json_extract",
    "json_object", "json_array", "group_concat", "ifnull", "strftime", "datetime", "typeof", "quote", "printf",
    "total", "unicode", "julianday", "iif", "glob", "like", "json", "json_group_array", "json_group_object",
    "format", "translate", "sha1", "sha2", "date_format", "datediff", "curdate", "curtime", "unix_timestamp",
    "from_unixtime", "date_add", "date_sub", "if", "isnull", "locate", "substring_index", "last_insert_id",
    "found_rows", "database", "uuid", "unhex", "concat_ws", "timestampdiff", "str_to_date", "year", "month",
    "day", "hour", "minute", "second", "week", "weekday", "dayofweek", "dayofmonth", "dayofyear", "quarter",
    "json_unquote", "json_contains", "json_length", "json_keys", "json_valid", "json_type", "field",
    "find_in_set", "elt", "space", "strcmp", "bin", "oct", "conv", "crc32", "to_base64", "from_base64",
    "changes", "last_insert_rowid", "sqlite_version", "likelihood", "likely", "unlikely", "zeroblob",
    "randomblob", "soundex", "version", "stddev", "variance", "stddev_pop", "stddev_samp", "var_pop",
    "var_samp", "bool_and", "bool_or", "every", "bit_and", "bit_or", "bit_xor", "json_arrayagg", "json_objectagg",
    "regexp_replace", "regexp_like", "regexp_substr", "regexp_instr", "current_date", "current_time",
    "current_timestamp", "localtime", "localtimestamp", "utc_timestamp", "utc_date", "utc_time", "sysdate",
    "schema", "connection_id", "row_count", "charset", "collation", "coercibility", "timestamp", "interval",
}
PURE_POSTGRESQL = PURE_COMMON | {
    "btrim", "strpos", "split_part", "initcap", "encode", "decode", "to_char", "to_date", "to_timestamp",
    "to_number", "date_trunc", "date_part", "age", "make_date", "make_time", "make_timestamp", "make_interval",
    "array_agg", "string_agg", "json_agg", "jsonb_agg", "json_build_object", "jsonb_build_object",
    "json_build_array", "jsonb_build_array", "json_object_agg", "jsonb_object_agg", "percentile_cont",
    "percentile_disc", "mode", "div", "gcd", "lcm", "scale", "cbrt", "generate_series", "unnest", "array_length",
    "array_to_string", "string_to_array", "cardinality", "array_position", "array_positions", "array_remove",
    "array_append", "array_prepend", "array_cat", "array_upper", "array_lower", "array_dims", "jsonb_array_elements",
    "json_array_elements", "jsonb_array_elements_text", "json_array_elements_text", "jsonb_each", "json_each",
    "jsonb_each_text", "json_each_text", "jsonb_extract_path", "json_extract_path", "jsonb_extract_path_text",
    "json_extract_path_text", "to_json", "to_jsonb", "jsonb_set", "jsonb_insert", "jsonb_pretty", "row_to_json",
    "array_to_json", "jsonb_typeof", "json_typeof", "jsonb_array_length", "json_array_length", "jsonb_object_keys",
    "json_object_keys", "jsonb_strip_nulls", "json_strip_nulls", "jsonb_path_query", "jsonb_path_exists",
    "regexp_matches", "regexp_match", "regexp_split_to_table", "regexp_split_to_array", "regexp_count",
    "current_database", "current_schema", "current_schemas", "pg_backend_pid", "pg_typeof", "pg_size_pretty",
    "pg_database_size", "pg_relation_size", "pg_total_relation_size", "pg_table_size", "pg_indexes_size",
    "has_table_privilege", "has_schema_privilege", "has_database_privilege", "has_column_privilege",
    "format_type", "obj_description", "col_description", "pg_get_viewdef", "pg_get_indexdef",
    "pg_get_constraintdef", "pg_get_functiondef", "pg_get_userbyid", "pg_get_expr", "pg_get_triggerdef",
    "quote_ident", "quote_literal", "quote_nullable", "gen_random_uuid", "clock_timestamp", "statement_timestamp",
    "transaction_timestamp", "timeofday", "isfinite", "justify_days", "justify_hours", "justify_interval",
    "starts_with", "to_hex", "width_bucket", "cot", "asin", "acos", "atan", "atan2", "overlay", "bit_count",
    "pg_postmaster_start_time", "pg_is_in_recovery", "inet_server_addr", "inet_client_addr", "pg_encoding_to_char",
    "array_fill", "numrange", "int4range", "int8range", "daterange", "tsrange", "tstzrange", "lower_inc",
    "upper_inc", "isempty", "to_tsvector", "to_tsquery", "plainto_tsquery", "websearch_to_tsquery", "ts_rank",
    "ts_headline", "setweight", "similarity", "sha224", "sha256", "sha384", "sha512", "digest", "currval",
    "lastval", "txid_current_if_assigned", "pg_current_wal_lsn", "pg_last_wal_receive_lsn", "num_nonnulls",
    "num_nulls", "jsonb_path_query_array", "jsonb_path_query_first", "json_populate_record", "jsonb_populate_record",
    "jsonb_to_record", "json_to_record", "jsonb_to_recordset", "json_to_recordset", "row", "grouping", "array",
    "pg_column_size", "pg_get_serial_sequence", "string_to_table", "trim_array", "array_sample", "array_shuffle",
    "any_value", "date_bin", "sign", "factorial", "erf", "random_normal", "to_regclass", "to_regtype",
}
PURE_SQLITE = PURE_COMMON | {
    "pragma_table_info", "pragma_table_xinfo", "pragma_index_list", "pragma_index_info", "pragma_index_xinfo",
    "pragma_foreign_key_list", "pragma_database_list", "pragma_collation_list", "pragma_function_list",
    "pragma_table_list", "json_each", "json_tree", "json_array_length", "json_type", "json_valid", "json_quote",
    "json_insert", "json_replace", "json_set", "json_remove", "json_patch", "substring", "sqlite_source_id",
    "unixepoch", "timediff", "octet_length", "format", "concat_ws", "string_agg", "median", "generate_series",
}
PURE = {"postgresql": PURE_POSTGRESQL, "mysql": PURE_COMMON, "sqlite": PURE_SQLITE}
# Reads that hold a server resource: a prompt-worthy, not an irreversible, cost.
RESOURCE_FUNCTIONS = {"pg_sleep", "pg_sleep_for", "pg_sleep_until", "sleep", "benchmark"}
# Functions whose call has an effect although it reads like a value.
SIDE_EFFECT_FUNCTIONS = {
    "nextval", "setval", "pg_terminate_backend", "pg_cancel_backend", "dblink_exec", "dblink",
    "pg_reload_conf", "pg_rotate_logfile", "set_config", "pg_advisory_lock", "pg_switch_wal",
    "pg_read_file", "pg_read_binary_file", "pg_ls_dir", "load_file", "sys_exec", "load_extension",
}
# Words that are followed by `(` without naming a function.
NOT_FUNCTIONS = {
    "IN", "VALUES", "AS", "EXISTS", "ANY", "ALL", "SOME", "OVER", "FILTER", "USING", "ON", "FROM", "JOIN",
    "WHERE", "AND", "OR", "NOT", "SELECT", "WITH", "LATERAL", "ARRAY", "ROW", "CASE", "WHEN", "THEN", "ELSE",
    "BY", "SET", "INTO", "TABLE", "RETURNING", "ROLLUP", "CUBE", "SETS", "WITHIN", "PARTITION", "ROWS", "RANGE",
    "DECIMAL", "NUMERIC", "VARCHAR", "CHAR", "CHARACTER", "TIMESTAMP", "TIME", "BIT", "FLOAT", "INT", "INTEGER",
    "BIGINT", "SMALLINT", "TINYINT", "VARBINARY", "BINARY", "ENUM", "DATETIME", "LIMIT", "OFFSET", "FETCH",
    "HAVING", "UNION", "INTERSECT", "EXCEPT", "DISTINCT", "IS", "LIKE", "ILIKE", "BETWEEN", "CURSOR", "FOR",
    "DEFAULT", "PRIMARY", "KEY", "REFERENCES", "CHECK", "UNIQUE", "INDEX", "EXPLAIN", "ANALYZE", "TABLESAMPLE",
    "BERNOULLI", "SYSTEM", "ORDINALITY", "COLUMNS", "RECURSIVE", "MATERIALIZED", "WINDOW", "GROUP", "ORDER",
    "GROUPING", "INTERVAL", "VARYING", "PRECISION", "DOUBLE", "REAL", "MATCH", "AGAINST", "ESCAPE", "IF",
}
DANGLING = {"WHERE", "AND", "OR", "NOT", "FROM", "JOIN", "ON", "BY", "SET", "VALUES", "INTO", "HAVING", "LIMIT",
            "OFFSET", "UNION", "AS", "IN", "LIKE", "BETWEEN", "IS", "WITH", "CASE", "WHEN", "THEN", "ELSE", "ORDER",
            "GROUP", "DISTINCT", "INTERSECT", "EXCEPT", "SELECT"}
CREDENTIAL_TABLES = {"pg_authid", "pg_shadow", "pg_user_mapping", "pg_user_mappings", "pg_hba_file_rules",
                     "pg_ident_file_mappings", "pg_auth_members", "user_privileges", "sqlite_master_credentials"}


def _is_punct(t: Token, text: str) -> bool:
    return t.kind == "punct" and t.text == text


def _is_func_call(stmt: list[Token], i: int) -> bool:
    return i + 1 < len(stmt) and _is_punct(stmt[i + 1], "(")


def _after_paren(stmt: list[Token], i: int) -> Token | None:
    """The token after the parenthesis that opens at i."""
    depth = 0
    for j in range(i, len(stmt)):
        if _is_punct(stmt[j], "("):
            depth += 1
        elif _is_punct(stmt[j], ")"):
            depth -= 1
            if depth == 0:
                return stmt[j + 1] if j + 1 < len(stmt) else None
    return None


def _functions(stmt: list[Token], dialect: str) -> Finding | None:
    """What the functions a statement calls do, when that is more than compute."""
    result: Finding | None = None
    for i, t in enumerate(stmt):
        if _is_punct(t, "(") and i > 0 and stmt[i - 1].upper == "OPERATOR":
            return Finding.write("sql: OPERATOR(…) may name a user-defined operator")
        if t.kind not in ("word", "qident") or not _is_func_call(stmt, i):
            continue
        if t.kind == "word" and t.upper in NOT_FUNCTIONS:
            continue
        prev = stmt[i - 1] if i > 0 else None
        if prev is not None and prev.upper in ("AS", "TABLE", "INTO", "PREPARE", "VIEW", "FUNCTION", "PROCEDURE",
                                               "TRIGGER", "TYPE", "EXECUTE", "DEALLOCATE"):
            continue
        after = _after_paren(stmt, i + 1)
        if after is not None and after.upper == "AS" and (prev is None or prev.upper in ("WITH", "RECURSIVE", ",")
                                                          or _is_punct(prev, ",")):
            continue  # a CTE's column list
        name = t.text.lower() if t.kind == "word" else t.text
        schema = None
        if prev is not None and _is_punct(prev, ".") and i >= 2:
            schema = stmt[i - 2].text.lower()
        if schema is not None and schema not in ("pg_catalog",):
            return Finding.write(f"sql: {schema}.{name}() is a user-defined function", )
        if t.kind == "qident":
            return Finding.write(f"sql: quoted function name {name!r} is not a builtin")
        if name in SIDE_EFFECT_FUNCTIONS or name.startswith("lo_") or name.startswith("pg_replication_origin"):
            return Finding.write(f"sql: side-effecting function {name}()")
        if name in RESOURCE_FUNCTIONS:
            f = Finding("soft-ack", reasons=[f"sql: {name}() holds a server resource"])
            result = f if result is None else result.combine(f)
            continue
        if name not in PURE[dialect]:
            return Finding.write(f"sql: {name}() is not a known builtin: it may do anything")
    return result


def _name(t: Token) -> str:
    """An identifier as the server folds it: unquoted to lower case."""
    return t.text if t.kind == "qident" else t.text.lower()


MYSQL_GRANT_TABLES = {"user", "db", "global_priv", "proxies_priv", "tables_priv", "columns_priv", "procs_priv",
                      "role_edges", "default_roles", "password_history", "host"}


def _credential_read(stmt: list[Token]) -> bool:
    low = [t.text.lower() if t.kind in ("word", "qident") else ("." if _is_punct(t, ".") else "") for t in stmt]
    for i, w in enumerate(low):
        if w in CREDENTIAL_TABLES:
            return True
        if w == "mysql" and i + 2 < len(low) and low[i + 1] == "." and low[i + 2] in MYSQL_GRANT_TABLES:
            return True
    return False


def classify_statement(stmt: list[Token], dialect: str, prepared: dict[str, Finding]) -> Finding:
    words = [t.upper for t in stmt]
    head = words[0] or stmt[0].text
    last = stmt[-1]
    if len(stmt) > 1 and head != "SET" and (last.upper in DANGLING or (last.kind == "punct" and last.text in ",=<>+-/.(")):
        raise Unparseable(f"statement ends in {last.text!r}")
    if head == "PREPARE" and "AS" in words:
        at = words.index("AS")
        inner = classify_statement(stmt[at + 1:], dialect, prepared) if at + 1 < len(stmt) else None
        if inner is None:
            raise Unparseable("PREPARE without a statement")
        if len(stmt) > 1:
            prepared[_name(stmt[1])] = inner
        return Finding(inner.band, inner.state_change, inner.sensitive, False,
                       ["sql: PREPARE runs nothing yet"] if inner.band == "auto" else inner.reasons)
    if head == "EXECUTE" and len(stmt) > 1 and dialect == "postgresql":
        known = prepared.get(_name(stmt[1]))
        if known is not None:
            return known
        return Finding.write("sql: EXECUTE of a statement prepared elsewhere")
    sensitive = head != "EXPLAIN" and _credential_read(stmt)
    funcs = _functions(stmt, dialect) if head != "PRAGMA" else None
    if funcs is not None and funcs.band == "escalate":
        return Finding(funcs.band, True, sensitive, False, funcs.reasons)
    base = _classify_head(stmt, words, head, dialect, sensitive)
    return base.combine(funcs) if funcs is not None else base


def _classify_head(stmt: list[Token], words: list[str], head: str, dialect: str, sensitive: bool) -> Finding:
    if head in HARMLESS_HEADS:
        return Finding.read(f"sql: {head} is session housekeeping")
    if head in ("RESET", "DISCARD"):
        what = stmt[1].text.lower() if len(stmt) > 1 else ""
        if (head == "DISCARD" and what in ("plans", "sequences")) or (head == "RESET" and (
                what in HARMLESS_SETTINGS or what.startswith("enable_")) and what not in ("session", "local")):
            return Finding.read(f"sql: {head} {what} is session housekeeping")
        return Finding.write(f"sql: {head} {what} may change who or what the session is")
    if head in ("BEGIN", "START"):
        if "WRITE" in words or (dialect == "sqlite" and ("IMMEDIATE" in words or "EXCLUSIVE" in words)):
            return Finding.write(f"sql: {head} opens a writing transaction")
        return Finding.read(f"sql: {head} opens a transaction")
    if head == "SET":
        rest = words[1:]
        if "WRITE" in rest or "ROLE" in rest[:2] or "AUTHORIZATION" in rest[:3]:
            return Finding.write("sql: SET changes who or what the session may write")
        if "READ" in rest and "ONLY" in rest and ("TRANSACTION" in rest or "CHARACTERISTICS" in rest):
            return Finding.read("sql: SET makes transactions read-only")
        names = [t.text.lower() for t in stmt[1:] if t.kind in ("word", "qident")]
        i = 0
        while i < len(names) and names[i] in ("session", "local"):
            i += 1
        name = names[i] if i < len(names) else ""
        dotted = len(stmt) > 2 + i and _is_punct(stmt[2 + i], ".")
        if name == "default_transaction_read_only" or name == "transaction_read_only":
            if any(w in ("ON", "TRUE") for w in words) or any(t.kind == "number" and t.text == "1" for t in stmt) \
                    or any(t.kind == "string" and t.text.lower() in ("on", "true", "1") for t in stmt):
                return Finding.read("sql: SET makes the session read-only")
            return Finding.write("sql: SET lets the session write")
        if not dotted and (name in HARMLESS_SETTINGS or name.startswith("enable_")):
            return Finding.read(f"sql: SET {name} is a session setting")
        return Finding.write(f"sql: SET {name or '…'} may change what later statements mean")
    if head == "LISTEN":
        return Finding("soft-ack", reasons=["sql: LISTEN holds a server resource"])
    if head == "(":
        head = next((w for w in words if w), "")
    if head == "EXPLAIN":
        analyze = "ANALYZE" in words[1:4] or "ANALYSE" in words[1:4] or _explain_option_analyze(stmt)
        hidden = [w for w in words[1:] if w in WRITE_WORDS - {"SET", "SHARE"}]
        if analyze and hidden:
            return Finding.write(f"sql: EXPLAIN ANALYZE runs a write ({hidden[0]})", sensitive=sensitive)
        if analyze and "UPDATE" in words:
            return Finding.write("sql: EXPLAIN ANALYZE runs a locking read", sensitive=sensitive)
        return Finding.read("sql: EXPLAIN without running a write", sensitive=sensitive)
    if head == "DECLARE" and "CURSOR" in words:
        f = _classify_read_body(stmt[words.index("CURSOR") + 1:], "DECLARE CURSOR", sensitive)
        if "HOLD" in words[:words.index("CURSOR") + 3] and "WITHOUT" not in words[:words.index("CURSOR") + 3]:
            f = f.combine(Finding("soft-ack", reasons=["sql: WITH HOLD keeps the cursor past the transaction"]))
        return f
    if head in ("SHOW", "DESCRIBE", "DESC", "FETCH", "MOVE", "CLOSE"):
        return Finding.read(f"sql: {head} is a read", sensitive=sensitive)
    if head == "PRAGMA" and dialect == "sqlite":
        name = next((t.text.lower() for t in stmt[1:] if t.kind in ("word", "qident") and t.text != "."), "")
        if len(stmt) > 2 and stmt[2].kind == "punct" and stmt[2].text == ".":
            name = stmt[3].text.lower() if len(stmt) > 3 else ""
        queries = {"table_info", "table_xinfo", "index_info", "index_list", "index_xinfo", "foreign_key_list",
                   "database_list", "collation_list", "function_list", "pragma_list", "module_list", "compile_options",
                   "integrity_check", "quick_check", "foreign_key_check", "table_list"}
        has_value = any(t.kind == "punct" and t.text in ("=", "(") for t in stmt)
        if name in queries or (not has_value and name not in ("optimize", "wal_checkpoint", "incremental_vacuum",
                                                              "shrink_memory", "vacuum")):
            return Finding.read("sql: PRAGMA query", sensitive=sensitive)
        return Finding.write("sql: PRAGMA changes the database or its connection")
    if head == "COPY":
        if "FROM" in words:
            return Finding.write("sql: COPY FROM loads data")
        to = words.index("TO") if "TO" in words else -1
        if to >= 0 and to + 1 < len(stmt) and stmt[to + 1].upper == "STDOUT":
            return _classify_read_body(stmt[1:to], "COPY TO STDOUT", sensitive)
        return Finding.write("sql: COPY TO a file or program")
    if head in READ_HEADS:
        return _classify_read_body(stmt, head, sensitive)
    return Finding.write(f"sql: {head!r} is not a read", sensitive=sensitive)


def _explain_option_analyze(stmt: list[Token]) -> bool:
    if len(stmt) > 1 and stmt[1].kind == "punct" and stmt[1].text == "(":
        depth = 0
        for t in stmt[1:]:
            if t.kind == "punct" and t.text == "(":
                depth += 1
            elif t.kind == "punct" and t.text == ")":
                depth -= 1
                if depth == 0:
                    break
            elif t.upper in ("ANALYZE", "ANALYSE"):
                return True
    return False


def _classify_read_body(stmt: list[Token], head: str, sensitive: bool) -> Finding:
    for i, t in enumerate(stmt):
        w = t.upper
        if w in WRITE_WORDS:
            if w == "SET" and i > 0 and stmt[i - 1].upper in ("CHARACTER", "CHAR"):
                continue
            if w == "SHARE" and not (i > 0 and stmt[i - 1].upper in ("FOR", "KEY")):
                continue
            if w == "REPLACE" and _is_func_call(stmt, i):
                continue  # the string function replace(…)
            if w == "INTO" and i > 0 and stmt[i - 1].upper == "INSERT":
                continue
            return Finding.write(f"sql: {head} with {w} is not a pure read", sensitive=sensitive)
    return Finding.read(f"sql: read-only {head}", sensitive=sensitive)


def classify_sql(text: object, dialect: object) -> Finding:
    if dialect is None:
        dialect = "postgresql"
    if dialect not in DIALECTS:
        return Finding.write(f"sql: unknown dialect {dialect!r}: fail safe")
    if not isinstance(text, str):
        return Finding.write("sql: `arguments.sql` is not a string")
    # MySQL reads backslashes in strings as escapes unless the server runs
    # with NO_BACKSLASH_ESCAPES: the client cannot know, so both readings
    # that parse are judged, and the worse one wins.
    readings = [True, False] if dialect == "mysql" else [False]
    worst: Finding | None = None
    failure: str | None = None
    for backslash in readings:
        try:
            tokens = Lexer(text, str(dialect), backslash).run()
            stmts = split_statements(tokens)
            if not stmts:
                raise Unparseable("no statement")
            prepared: dict[str, Finding] = {}
            found: Finding | None = None
            for stmt in stmts:
                f = classify_statement(stmt, str(dialect), prepared)
                found = f if found is None else found.combine(f)
        except Unparseable as e:
            failure = failure or str(e)
            continue
        assert found is not None
        worst = found if worst is None else worst.combine(found)
    if worst is None:
        return Finding.write(f"sql: unparseable ({failure}): fail safe")
    return worst
