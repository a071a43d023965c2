//! The projection target: two axis triples, one at least as dangerous as
//! the other on every axis (an absent axis is unknown, the most dangerous
//! value), projected in one batch. The more dangerous never gets the lower
//! band (RBV-PRJ-003), and outside the INTERPRETATION of hard-to-reverse ∧
//! not external each band is the proposal's projection (RBV-PRJ-001, with
//! unknown axes at their most dangerous value, RBV-PRJ-004).

use super::finding::{CaseDraft, Finding};
use super::property_manifest::project;
use super::reach::{fire, Tagged};
use super::req;
use super::subject::Subject;
use crate::verdict::FailKind;
use arbitrary::{Result, Unstructured};
use rbv_protocol::*;

type Axes = (Option<Reversibility>, Option<Scope>, Option<Trust>);

fn pick<T: Copy>(u: &mut Unstructured, all: &[T]) -> Result<Option<T>> {
    Ok(if u.ratio(1, 5)? {
        fire("projection", "unknown-axis");
        None
    } else {
        Some(*u.choose(all)?)
    })
}

/// Raises one axis of `a` (toward its most dangerous value, or unknown).
fn raise(u: &mut Unstructured, a: Axes) -> Result<Axes> {
    fn up<T: Copy + Ord>(u: &mut Unstructured, v: Option<T>, all: &[T]) -> Result<Option<T>> {
        let Some(v) = v else { return Ok(None) };
        let higher: Vec<T> = all.iter().copied().filter(|x| *x >= v).collect();
        Ok(if u.ratio(1, 4)? {
            None
        } else {
            Some(*u.choose(&higher)?)
        })
    }
    Ok((
        up(u, a.0, Reversibility::ALL)?,
        up(u, a.1, Scope::ALL)?,
        up(u, a.2, Trust::ALL)?,
    ))
}

fn effective(a: Axes) -> (Reversibility, Scope, Trust) {
    (
        a.0.unwrap_or(Reversibility::Irreversible),
        a.1.unwrap_or(Scope::External),
        a.2.unwrap_or(Trust::Untrusted),
    )
}

pub fn productions() -> Vec<Tagged> {
    vec![
        ("dominated-pair", &["RBV-PRJ-003"]),
        ("exact-projection", &["RBV-PRJ-001"]),
        ("unknown-axis", &["RBV-PRJ-004"]),
    ]
}

fn request(a: Axes) -> RequestBody {
    RequestBody::Project(ProjectRequest {
        reversibility: a.0,
        scope: a.1,
        trust: a.2,
    })
}

fn step(a: Axes, expect: &str) -> String {
    let mut parts = Vec::new();
    if let Some(r) = a.0 {
        parts.push(format!("reversibility: {}", r.as_str()));
    }
    if let Some(s) = a.1 {
        parts.push(format!("scope: {}", s.as_str()));
    }
    if let Some(t) = a.2 {
        parts.push(format!("trust: {}", t.as_str()));
    }
    format!(
        "  - project: {{{}}}\n    expect: {expect}\n",
        parts.join(", ")
    )
}

pub fn check(u: &mut Unstructured, subject: &mut dyn Subject) -> Result<Option<Finding>> {
    let low: Axes = (
        pick(u, Reversibility::ALL)?,
        pick(u, Scope::ALL)?,
        pick(u, Trust::ALL)?,
    );
    let high = raise(u, low)?;
    fire("projection", "dominated-pair");
    let session = subject.fresh_session();
    let answers = subject.call_batch(&session, vec![request(low), request(high)]);
    let bands: Vec<Band> = answers
        .into_iter()
        .filter_map(|a| match a {
            Ok(ResponseBody::Projection(p)) => Some(p.band),
            _ => None,
        })
        .collect();
    let [lo, hi] = bands[..] else {
        return Ok(None);
    };
    let finding = |requirement, kind, summary: String, steps: String| Finding {
        target: "projection",
        requirement,
        kind,
        summary,
        family: "dominated-pair".into(),
        payload: None,
        difference: String::new(),
        case: CaseDraft {
            area: "projection",
            title: "Projection of fuzzed axes".into(),
            tags: vec!["projection"],
            steps,
        },
    };
    if hi < lo {
        return Ok(Some(finding(
            req::PROJECTION_MONOTONE,
            FailKind::Under,
            format!("{high:?} projected to {hi}, below {lo} for the safer {low:?}"),
            step(low, &format!("{{band: {lo}}}"))
                + &step(high, &format!("{{band: {{at_least: {lo}}}}}")),
        )));
    }
    for (axes, got) in [(low, lo), (high, hi)] {
        let (r, s, t) = effective(axes);
        if r == Reversibility::HardToReverse && s != Scope::External {
            continue; // RBV-PRJ-002, a profile key.
        }
        fire("projection", "exact-projection");
        let want = project(r, s, t);
        if got != want {
            let kind = if got < want {
                FailKind::Under
            } else {
                FailKind::Over
            };
            return Ok(Some(finding(
                req::PROJECTION,
                kind,
                format!("{axes:?} projected to {got}; the proposal's projection is {want}"),
                step(axes, &format!("{{band: {want}}}")),
            )));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::driver::{drive, Options};

    /// A client that reads an unknown axis as its safest value, or (with
    /// `invert`) that swaps auto and escalate.
    struct Wrong {
        invert: bool,
    }

    impl Subject for Wrong {
        fn fresh_session(&mut self) -> String {
            "s".into()
        }
        fn call(
            &mut self,
            _: &str,
            body: RequestBody,
        ) -> std::result::Result<ResponseBody, String> {
            let RequestBody::Project(p) = body else {
                return Err("unexpected".into());
            };
            let band = project(
                p.reversibility.unwrap_or(Reversibility::Reversible),
                p.scope.unwrap_or(Scope::Local),
                p.trust.unwrap_or(Trust::Trusted),
            );
            let band = match (self.invert, band) {
                (true, Band::Auto) => Band::Escalate,
                (true, Band::Escalate) => Band::Auto,
                (_, b) => b,
            };
            Ok(ResponseBody::Projection(ProjectionResponse { band }))
        }
        fn claims(&self, _: Capability) -> bool {
            true
        }
        fn name(&self) -> String {
            "wrong".into()
        }
    }

    /// The requirements of the distinct findings of 2000 execs.
    fn found(invert: bool) -> Vec<&'static str> {
        let options = Options {
            max_execs: 2000,
            ..Options::default()
        };
        let target = &crate::fuzz::targets::PROJECTION;
        let outcome = drive(target, &mut Wrong { invert }, &options);
        outcome
            .found
            .iter()
            .map(|f| f.finding.requirement)
            .collect()
    }

    #[test]
    fn unknown_axes_read_as_safe_and_an_inverted_projection_are_found() {
        // Unknown read as safe is also not monotone: raising an axis to
        // unknown lowers the band.
        assert!(found(false).contains(&req::PROJECTION));
        assert!(found(true).contains(&req::PROJECTION_MONOTONE));
    }
}
