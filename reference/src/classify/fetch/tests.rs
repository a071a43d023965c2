use super::*;
use crate::mutant::Mutant;
use rbv_protocol::{Reversibility, Scope, Trust};

fn axes(url: &str, method: &str) -> (Reversibility, Scope, Trust, bool) {
    let i = inspect(url, method, None);
    (i.reversibility, i.scope, i.trust, i.changes_state)
}

const AUTO: (Reversibility, Scope, Trust) =
    (Reversibility::Reversible, Scope::Local, Trust::Trusted);
const UNTRUSTED_READ: (Reversibility, Scope, Trust) =
    (Reversibility::Reversible, Scope::Local, Trust::Untrusted);

fn three(url: &str, method: &str) -> (Reversibility, Scope, Trust) {
    let (r, s, t, _) = axes(url, method);
    (r, s, t)
}

fn escalates(i: &Inspection) -> bool {
    i.reversibility == Reversibility::Irreversible || i.scope == Scope::External
}

#[test]
fn safe_methods_of_loopback_are_auto() {
    for url in [
        "http://localhost:3000/api",
        "http://127.0.0.1/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
    ] {
        for method in ["GET", "get", "HEAD", "Options"] {
            assert_eq!(
                axes(url, method),
                (AUTO.0, AUTO.1, AUTO.2, false),
                "{method} {url}"
            );
        }
    }
}

#[test]
fn get_of_a_remote_host_is_an_untrusted_read() {
    for url in [
        "https://example.com/",
        "http://localhost.evil.com/",
        "http://localhost@evil.com/",
        "http://evil.com/?127.0.0.1",
        "http://evil.com#@127.0.0.1",
        "http://127.0.0.1.nip.io/",
        "http://0.0.0.0:8080/",
        "http://[::]/",
        "ftp://ftp.example.org/pub/file.txt",
    ] {
        let i = inspect(url, "GET", None);
        assert_eq!((i.reversibility, i.scope, i.trust), UNTRUSTED_READ, "{url}");
        assert!(!i.changes_state, "{url}");
    }
}

#[test]
fn writes_to_a_remote_host_escalate() {
    for method in [
        "POST", "put", "Patch", "DELETE", "PROPFIND", "TRACE", "CONNECT", "", "G ET",
    ] {
        let i = inspect("https://api.example.com/v1/items", method, None);
        assert_eq!(i.scope, Scope::External, "{method}");
        assert!(i.changes_state && escalates(&i), "{method}");
    }
}

#[test]
fn writes_to_loopback_are_hard_to_reverse_local_state_changes() {
    for method in ["POST", "delete", "PUT", "MKCOL"] {
        let i = inspect("http://localhost:8080/items/1", method, None);
        assert_eq!(
            (i.reversibility, i.scope, i.trust),
            (Reversibility::HardToReverse, Scope::Local, Trust::Trusted),
            "{method}"
        );
        assert!(i.changes_state, "{method}");
    }
    let m = Some(Mutant::InfrastructureBlind);
    assert_eq!(
        three("http://localhost:8080/items/1", "POST"),
        (Reversibility::HardToReverse, Scope::Local, Trust::Trusted)
    );
    let i = inspect("http://localhost:8080/items/1", "POST", m);
    assert_eq!((i.reversibility, i.scope, i.trust), AUTO);
}

#[test]
fn credentials_in_a_url_touch_sensitive_data_wherever_they_go() {
    for url in [
        "https://user:secret@example.com/",
        "https://ghp_token@github.com/acme/app.git",
        "https://:secret@example.com/",
        "http://user:pw@localhost/",
        "http://admin:admin@192.168.1.1/",
    ] {
        assert!(inspect(url, "GET", None).touches_sensitive, "{url}");
        assert!(
            !inspect(url, "GET", Some(Mutant::UserinfoBlind)).touches_sensitive
                || url.contains("192.168"),
            "{url}"
        );
    }
    for url in [
        "https://example.com/",
        "https://@example.com/",
        "https://:@example.com/",
        "https://medium.com/@alice/post",
        "https://example.com/?to=a@b.example",
        "https://example.com/#user:pw@host",
        "http://localhost/",
    ] {
        assert!(!inspect(url, "GET", None).touches_sensitive, "{url}");
    }
    // Loopback with credentials stays auto on its own.
    assert_eq!(three("http://user:pw@localhost/", "GET"), AUTO);
}

#[test]
fn the_machines_own_infrastructure() {
    for url in [
        "http://169.254.169.254/latest/meta-data/iam/security-credentials/",
        "http://2852039166/",
        "http://[fd00:ec2::254]/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://evil.com\\@169.254.169.254/",
    ] {
        let i = inspect(url, "GET", None);
        assert!(
            escalates(&i) && i.touches_sensitive && !i.changes_state,
            "{url}"
        );
        let blind = inspect(url, "GET", Some(Mutant::InfrastructureBlind));
        assert_eq!(
            (blind.reversibility, blind.scope, blind.trust),
            UNTRUSTED_READ,
            "{url}"
        );
    }
    for url in [
        "http://10.1.2.3:8080/",
        "http://[fd12::1]/",
        "http://100.64.1.1/",
        "http://ci.internal/",
    ] {
        let i = inspect(url, "GET", None);
        assert_eq!(
            (i.reversibility, i.scope, i.trust),
            (
                Reversibility::Reversible,
                Scope::SharedRemote,
                Trust::Untrusted
            ),
            "{url}"
        );
        assert!(i.touches_sensitive, "{url}");
        assert!(escalates(&inspect(url, "POST", None)), "{url}");
    }
}

#[test]
fn loopback_is_carved_out_only_where_every_parser_agrees() {
    for url in [
        "http://2130706433/",
        "http://127.1/",
        "http://0x7f.1/",
        "http://local%68ost/",
        "http:\\\\127.0.0.1\\status",
        "http://127.0.0.1\\@evil.com/",
    ] {
        assert_eq!(three(url, "GET"), UNTRUSTED_READ, "{url}");
        let m = inspect(url, "GET", Some(Mutant::WhatwgOnlyHost));
        assert_eq!(
            (m.reversibility, m.scope, m.trust),
            AUTO,
            "{url} under the mutant"
        );
    }
    let i = inspect("http://127.0.0.1\\@evil.com/", "GET", None);
    assert!(
        i.reasons.iter().any(|r| r.contains("`evil.com`")),
        "{:?}",
        i.reasons
    );
}

#[test]
fn unparseable_urls_fail_safe() {
    for url in [
        "",
        "not a url",
        "/relative/path",
        "http://",
        "http://exa mple.com/",
        "http://[::1/",
    ] {
        let i = inspect(url, "GET", None);
        assert!(escalates(&i) && i.changes_state, "{url:?}");
    }
}

#[test]
fn only_http_and_https_are_carved_out_and_no_other_scheme_is_auto() {
    let file = inspect("file:///home/u/.ssh/id_rsa", "GET", None);
    assert_eq!((file.reversibility, file.scope, file.trust), UNTRUSTED_READ);
    assert!(file.touches_sensitive && !file.changes_state);
    assert_eq!(three("file://localhost/etc/passwd", "GET"), UNTRUSTED_READ);
    assert!(escalates(&inspect(
        "file://fileserver/share/x",
        "GET",
        None
    )));
    assert!(escalates(&inspect("file:///tmp/x", "PUT", None)));
    assert_eq!(three("data:text/plain,hello", "GET"), UNTRUSTED_READ);
    assert_eq!(three("DATA:text/plain;base64,aGk=", "POST"), UNTRUSTED_READ);
    assert_eq!(three("ftp://127.0.0.1/pub/x", "GET"), UNTRUSTED_READ);
    assert!(escalates(&inspect("ftp://localhost/upload", "PUT", None)));
    for url in [
        "gopher://127.0.0.1:6379/_FLUSHALL",
        "gopher://example.com/",
        "javascript:alert(1)",
        "mailto:a@example.com",
        "blob:https://example.com/uuid",
        "chrome://settings",
        "x-unknown://localhost/",
        "wss://chat.example.com/",
        "ws://localhost:9000/",
    ] {
        assert!(escalates(&inspect(url, "GET", None)), "{url}");
    }
}

#[test]
fn the_substring_mutant_carves_out_lookalikes() {
    let m = Some(Mutant::SubstringLoopback);
    for url in [
        "http://localhost.evil.com/",
        "http://evil.com/?127.0.0.1",
        "http://localhost@evil.com/",
    ] {
        let i = inspect(url, "POST", m);
        assert!(!escalates(&i), "{url} under the mutant");
        assert!(
            escalates(&inspect(url, "POST", None)),
            "{url} under the reference"
        );
    }
    // It loses the precision of parsing, too.
    assert_eq!(three("http://[0:0:0:0:0:0:0:1]/", "GET"), AUTO);
    assert_eq!(
        inspect("http://[0:0:0:0:0:0:0:1]/", "GET", m).trust,
        Trust::Untrusted
    );
}

#[test]
fn a_safe_method_with_a_body_sends_data() {
    for (url, method) in [
        ("https://api.example.com/search", "GET"),
        ("https://api.example.com/search", "head"),
        ("http://10.0.0.5/", "OPTIONS"),
    ] {
        let i = inspect_call(url, method, true, None);
        assert!(escalates(&i) && i.changes_state, "{method} {url}: {i:?}");
    }
    let local = inspect_call("http://localhost:3000/api", "GET", true, None);
    assert_eq!(local.reversibility, Reversibility::HardToReverse);
    assert!(local.changes_state);
    let plain = inspect_call("https://api.example.com/search", "GET", false, None);
    assert_eq!(
        three("https://api.example.com/search", "GET"),
        UNTRUSTED_READ
    );
    assert!(!plain.changes_state);
}

#[test]
fn cluster_internal_and_wildcard_names_are_judged_by_where_they_resolve() {
    for url in [
        "https://kubernetes.default.svc/api/v1/secrets",
        "http://argocd-server.argocd.svc/api/v1/session",
        "http://kubernetes.default/",
        "http://prometheus:9090/api/v1/query",
        "http://10.1.2.3.nip.io/",
    ] {
        let i = inspect(url, "GET", None);
        assert_eq!(i.scope, Scope::SharedRemote, "{url}");
        assert!(i.touches_sensitive, "{url}");
    }
    for url in [
        "http://169.254.169.254.nip.io/latest/meta-data/",
        "http://169-254-169-254.sslip.io/",
    ] {
        let i = inspect(url, "GET", None);
        assert_eq!(i.reversibility, Reversibility::Irreversible, "{url}");
    }
    assert_eq!(three("http://127.0.0.1.nip.io/", "GET"), UNTRUSTED_READ);
}
