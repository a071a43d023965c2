use super::*;
use serde_json::json;

#[test]
fn the_default_is_rbvs_recommended_reading() {
    let p = Profile::default();
    assert_eq!(p.permissions_placement(), Placement::Both);
    assert_eq!(p.rule_of_two_threshold(), 2);
    assert_eq!(p.hard_to_reverse_local(), Band::Escalate);
    assert_eq!(p.undeclared_opaque_band(), Band::Escalate);
    assert_eq!(
        Value::from(serde_json::Map::from_iter(p.to_handshake_map())),
        json!({"permissions_placement": "both", "rule_of_two_threshold": 2,
               "hard_to_reverse_local": "escalate", "undeclared_opaque_band": "escalate"})
    );
}

#[test]
fn every_allowed_value_of_every_key_is_set_and_reported() {
    for (key, values) in KEYS {
        for value in values {
            let mut p = Profile::default();
            p.set(key, value).unwrap();
            let reported = &p.to_handshake_map()[key];
            let expected = match key {
                RULE_OF_TWO_THRESHOLD => json!(value.parse::<u8>().unwrap()),
                _ => json!(value),
            };
            assert_eq!(reported, &expected, "{key}={value}");
            // The other keys keep their defaults.
            for (other, v) in Profile::default().to_handshake_map() {
                if other != key {
                    assert_eq!(
                        p.to_handshake_map()[&other],
                        v,
                        "{key}={value} moved {other}"
                    );
                }
            }
        }
    }
}

#[test]
fn the_accessors_follow_set() {
    let mut p = Profile::default();
    p.set("permissions_placement", "top-level").unwrap();
    assert_eq!(p.permissions_placement(), Placement::TopLevel);
    p.set("permissions_placement", "extension").unwrap();
    assert_eq!(p.permissions_placement(), Placement::Extension);
    p.set("rule_of_two_threshold", "3").unwrap();
    assert_eq!(p.rule_of_two_threshold(), 3);
    p.set("hard_to_reverse_local", "soft-ack").unwrap();
    assert_eq!(p.hard_to_reverse_local(), Band::SoftAck);
    for (value, band) in [
        ("auto", Band::Auto),
        ("soft-ack", Band::SoftAck),
        ("escalate", Band::Escalate),
    ] {
        p.set("undeclared_opaque_band", value).unwrap();
        assert_eq!(p.undeclared_opaque_band(), band);
    }
}

#[test]
fn unknown_keys_and_values_are_refused_naming_the_allowed_ones() {
    let mut p = Profile::default();
    let e = p.set("threshold", "2").unwrap_err();
    assert!(
        e.contains("unknown profile key") && e.contains("rule_of_two_threshold"),
        "{e}"
    );
    for (key, value, allowed) in [
        ("rule_of_two_threshold", "1", "2, 3"),
        ("rule_of_two_threshold", "02", "2, 3"),
        ("hard_to_reverse_local", "auto", "escalate, soft-ack"),
        ("hard_to_reverse_local", "Soft-Ack", "escalate, soft-ack"),
        (
            "undeclared_opaque_band",
            "soft_ack",
            "auto, soft-ack, escalate",
        ),
        (
            "permissions_placement",
            "toplevel",
            "top-level, extension, both",
        ),
    ] {
        let e = p.set(key, value).unwrap_err();
        assert!(
            e.contains(allowed) && e.contains(value),
            "{key}={value}: {e}"
        );
    }
    assert_eq!(p, Profile::default(), "a refused value changes nothing");
}

#[test]
fn json_values_and_assignments_are_accepted() {
    let mut p = Profile::default();
    p.set_value("rule_of_two_threshold", &json!(3)).unwrap();
    p.set_value("undeclared_opaque_band", &json!("auto"))
        .unwrap();
    assert_eq!(p.rule_of_two_threshold(), 3);
    assert_eq!(p.undeclared_opaque_band(), Band::Auto);
    assert!(p.set_value("rule_of_two_threshold", &json!(true)).is_err());
    assert!(p.set_value("rule_of_two_threshold", &json!(2.5)).is_err());

    let mut q = Profile::default();
    q.apply("hard_to_reverse_local=soft-ack").unwrap();
    q.apply("permissions_placement = extension").unwrap();
    assert_eq!(q.hard_to_reverse_local(), Band::SoftAck);
    assert_eq!(q.permissions_placement(), Placement::Extension);
    assert!(q
        .apply("hard_to_reverse_local")
        .unwrap_err()
        .contains("KEY=VALUE"));
    assert!(q.apply("nope=1").is_err());
}

#[test]
fn display_round_trips_through_apply() {
    let mut p = Profile::default();
    p.set("permissions_placement", "top-level").unwrap();
    p.set("rule_of_two_threshold", "3").unwrap();
    p.set("undeclared_opaque_band", "soft-ack").unwrap();
    let text = p.to_string();
    let mut q = Profile::default();
    for assignment in text.split(' ') {
        q.apply(assignment).unwrap();
    }
    assert_eq!(p, q, "{text}");
}

#[test]
fn a_cases_conditions_build_a_profile() {
    let conditions: BTreeMap<String, Value> = [
        ("permissions_placement".to_owned(), json!("extension")),
        ("undeclared_opaque_band".to_owned(), json!("auto")),
        ("rule_of_two_threshold".to_owned(), json!(3)),
    ]
    .into();
    let p = Profile::from_values(&conditions).unwrap();
    assert_eq!(p.permissions_placement(), Placement::Extension);
    assert_eq!(p.undeclared_opaque_band(), Band::Auto);
    assert_eq!(p.rule_of_two_threshold(), 3);
    assert_eq!(p.hard_to_reverse_local(), Band::Escalate);
    assert_eq!(
        Profile::from_values(&BTreeMap::<String, Value>::new()).unwrap(),
        Profile::default()
    );
    let bad: BTreeMap<String, Value> = [("rule_of_two_threshold".to_owned(), json!("two"))].into();
    assert!(Profile::from_values(&bad)
        .unwrap_err()
        .contains("values: 2, 3"));
}
