//! Database clients: statements are SQL in the client's dialect, meta-
//! commands are code, the rest is judged as any program's.

use super::tests::{auto, escalate};

#[test]
fn reads_in_the_clients_dialect_are_auto() {
    auto(&[
        "sqlite3 app.db .tables",
        "sqlite3 app.db '.schema users' 'SELECT count(*) FROM users'",
        "sqlite3 -header -csv app.db 'SELECT id FROM t'",
        "sqlite3 --json app.db 'PRAGMA table_info(users)'",
        "psql -X -At -v ON_ERROR_STOP=1 -c 'SELECT 1' -c '\\dt+' app",
        "psql -h localhost -p 5433 -U app -d app_dev -c 'SELECT now()'",
        "psql --command='SELECT 1' --host=/var/run/postgresql",
        "psql postgresql://app@localhost:5432/app -c '\\d users'",
        "psql -f - <<< 'SELECT 1'",
        "mysql -uapp -N -e 'SHOW TABLES' shop",
        "mariadb --execute 'SELECT 1' --host 127.0.0.1",
        "psql -l",
        "mysql --version",
    ]);
}

#[test]
fn writes_and_unreadable_statements_escalate() {
    escalate(&[
        "sqlite3 app.db 'UPDATE users SET admin = 1'",
        "sqlite3 app.db",
        "sqlite3 app.db < x.sql",
        "cat x.sql | sqlite3 app.db",
        "psql -c 'select 1' -c 'drop table t'",
        "psql -f x.sql",
        "psql",
        "mysql -e 'DELETE FROM t'",
        "mysql -e 'select 1' --init-command='DROP TABLE t'",
        "sqlite3 app.db \"$Q\"",
        "duckdb app.duckdb 'SELECT 1'",
    ]);
}

#[test]
fn meta_commands_other_than_printing_ones_escalate() {
    escalate(&[
        "sqlite3 app.db '.shell id'",
        "sqlite3 app.db '.sh id'",
        "sqlite3 app.db '.once out.txt' .dump",
        "sqlite3 app.db $'.tables\\n.system id'",
        "sqlite3 -cmd '.load ./x' app.db .tables",
        "psql -c '\\! id'",
        "psql -c '\\dt `id`'",
        "psql -c '\\copy t to x.csv'",
        "psql -f - <<'EOF'\nSELECT 1 \\g /tmp/x\nEOF",
        "mysql -e 'system id'",
        "mysql -e 'select 1; source x.sql'",
    ]);
}

#[test]
fn options_and_servers_are_judged() {
    escalate(&[
        "sqlite3 -init x.sql app.db .tables",
        "sqlite3 -frob app.db .tables",
        "psql --frob -c 'select 1'",
        "psql -o /etc/x -c 'select 1'",
        "psql -o '|sh' -c 'select 1'",
        "psql -h db.example -c 'select 1'",
        "psql 'host=db.example' -c 'select 1'",
        "psql 'postgres://db.example/app' -c 'select 1'",
        "psql -v PROMPT1=x -c 'select 1'",
        "mysql --defaults-file=x.cnf -e 'select 1'",
        "mysql -h db.example -e 'select 1'",
        "sqlite3 app.db .dump > /etc/x",
    ]);
}
