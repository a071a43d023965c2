//! The PostgreSQL oracle against a real throwaway cluster, and the
//! reference's SQL inspector checked against it. Skips LOUDLY where no
//! PostgreSQL server binaries exist (`.ci/run` installs them).

use arbitrary::Unstructured;
use rbv::fuzz::gen::{sql, Truth};
use rbv::fuzz::rng::SplitMix64;
use rbv::oracle::postgres::{find_binaries, Cluster};
use rbv_protocol::{Band, Capability};

fn cluster() -> Option<Cluster> {
    if let Err(e) = find_binaries() {
        eprintln!("\n*** SKIP: PostgreSQL oracle tests: {e} ***\n");
        return None;
    }
    Some(Cluster::start().expect("a throwaway cluster starts where the binaries exist"))
}

#[test]
fn postgres_labels_reads_writes_and_escapes() {
    let Some(pg) = cluster() else { return };
    let read = pg
        .judge("SELECT * FROM users WHERE note = 'DROP TABLE users'")
        .unwrap();
    assert_eq!(read.label, "ok");
    assert!(!read.confirms_write(), "{read:?}");
    let write = pg.judge("DELETE FROM users WHERE id = 1").unwrap();
    assert_eq!(write.label, "readonly_violation", "{write:?}");
    let nextval = pg.judge("SELECT nextval('seq')").unwrap();
    assert!(nextval.confirms_write(), "{nextval:?}");
    let escape = pg.judge("COMMIT; DROP TABLE users").unwrap();
    assert!(
        escape.escaped_readonly_txn && escape.confirms_write(),
        "{escape:?}"
    );
    // Each statement gets a fresh copy of the schema: the DROP above is gone.
    assert_eq!(pg.judge("SELECT count(*) FROM users").unwrap().label, "ok");
    assert_eq!(pg.judge("SELEC 1").unwrap().label, "syntax_error");
    assert!(
        pg.judge("SELECT 1;\n\\! touch /tmp/x").is_err(),
        "backslash commands are refused"
    );
}

/// Every statement the SQL generator builds as dangerous that PostgreSQL
/// confirms as a write must escalate in the reference; every statement it
/// builds as safe must run read-only in PostgreSQL. Two oracles, one truth.
#[test]
fn the_sql_generator_and_postgres_agree_and_the_reference_follows() {
    let Some(pg) = cluster() else { return };
    let mut subject = rbv::fuzz::InProcess::new(None);
    let target = rbv::fuzz::targets::by_name("sql_bypass").unwrap();
    assert!(target.needs.contains(&Capability::Sql));
    let (mut confirmed, mut safe) = (0, 0);
    for seed in 0..60u64 {
        let bytes = SplitMix64::new(seed).bytes(256);
        let input = sql::input(&mut Unstructured::new(&bytes)).unwrap();
        let finding = (target.check)(&mut Unstructured::new(&bytes), &mut subject).unwrap();
        assert!(finding.is_none(), "{}", finding.unwrap());
        if !input.is_postgres() {
            continue;
        }
        let labeled = input.labeled;
        let verdict = pg.judge(&labeled.text).unwrap();
        match labeled.truth {
            Truth::Safe(Band::Auto) => {
                assert!(
                    !verdict.confirms_write(),
                    "generated as safe, PostgreSQL saw a write: {labeled:?} {verdict:?}"
                );
                safe += 1;
            }
            Truth::Dangerous if verdict.confirms_write() => confirmed += 1,
            _ => {}
        }
    }
    eprintln!(
        "PostgreSQL confirmed {confirmed} generated writes; {safe} generated reads ran read-only"
    );
    assert!(confirmed > 10 && safe > 5);
}
