//! The URL-parser oracle, live: the readers start, read as the committed
//! labels say, and confirm a carve-out that another parser reads otherwise.
//! Parsers this machine lacks are skipped LOUDLY (the labels are committed
//! data; no other test needs node, Python, libcurl or Go).

use rbv::oracle::url::Parsers;

#[test]
fn the_parsers_read_as_the_committed_labels() {
    let mut parsers = match Parsers::start() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("WARNING: SKIPPED: no URL parser could be started: {e}");
            return;
        }
    };
    for (name, why) in &parsers.missing {
        eprintln!("WARNING: URL parser {name} SKIPPED: {why}");
    }
    let differential = parsers.read("http://127.0.0.1\\@evil.com/", None).unwrap();
    if let Some(w) = differential.0.get("whatwg") {
        assert_eq!(w.host.as_deref(), Some("127.0.0.1"));
    }
    if let Some(u) = differential.0.get("urllib") {
        assert_eq!(u.host.as_deref(), Some("evil.com"));
        assert!(differential
            .confirms(true)
            .is_some_and(|why| why.contains("urllib reads `evil.com`")));
    }
    let plain = parsers.read("http://localhost:8080/", None).unwrap();
    assert!(plain.all_loopback(), "{plain:?}");
    assert_eq!(plain.confirms(true), None);

    // Where this machine has the parser versions the labels were made with,
    // they read every labeled URL as the labels say.
    let provenance: serde_json::Value = serde_json::from_str(include_str!(
        "../../../corpora/real-world/url-parsers.provenance.json"
    ))
    .unwrap();
    let versions = parsers.versions();
    let same: Vec<&String> = versions
        .iter()
        .filter(|(n, v)| provenance["parsers"][n.as_str()] == v.as_str())
        .map(|(n, _)| n)
        .collect();
    let labels = include_str!("../../../corpora/real-world/url-parsers.jsonl");
    for line in labels.lines().take(300) {
        let record: serde_json::Value = serde_json::from_str(line).unwrap();
        let url = record["url"].as_str().unwrap();
        let readings = parsers.read(url, record["base"].as_str()).unwrap();
        for name in &same {
            let got = &readings.0[name.as_str()];
            let want = &record["readings"][name.as_str()];
            assert_eq!(
                (got.ok, got.host.as_deref()),
                (want["ok"].as_bool().unwrap(), want["host"].as_str()),
                "{name} on {url:?}"
            );
        }
    }
    eprintln!("labels re-read by {same:?}");
}
