//! `badge.svg`: a shields-style badge, `rbv | Core 98%`, colored by level;
//! `rbv | partial run: 12 of 900 cases` in gray for a partial run.
//! The percentage is the share of cases that ran and passed, rounded
//! down so that it reads 100% only when nothing failed.

use super::{escape, facts};
use crate::model::{Level, Report};

/// The badge's right-hand text.
pub fn message(report: &Report) -> String {
    let s = &report.summary;
    if let Some(partial) = facts::partial_label(report) {
        return partial;
    }
    let mut msg = match s.pass_rate.total {
        0 => format!("{} n/a", s.level),
        total => format!("{} {}%", s.level, s.pass_rate.held * 100 / total),
    };
    if facts::spawn_per_case(report) {
        msg.push_str(" · spawn-per-case");
    }
    if let Some(c) = &report.campaign {
        msg.push_str(&format!(" · {}", super::campaign::badge(c)));
    }
    msg
}

pub fn color(level: Level) -> &'static str {
    match level {
        Level::Precise => "#4c1",
        Level::Core => "#97ca00",
        Level::Safe => "#dfb317",
        Level::None => "#e05d44",
    }
}

/// The color of a partial run, which has no level.
pub const PARTIAL: &str = "#9f9f9f";

/// Approximate advance of a character in 11px Verdana, the badge font.
fn char_width(c: char) -> f64 {
    match c {
        ' ' | '.' | ',' | ':' | 'i' | 'l' | 'I' | '|' => 3.9,
        'f' | 'j' | 'r' | 't' => 4.6,
        '%' | 'm' | 'w' | 'M' | 'W' => 10.5,
        '0'..='9' => 7.0,
        'A'..='Z' => 7.5,
        _ => 6.6,
    }
}

fn text_width(text: &str) -> f64 {
    text.chars().map(char_width).sum()
}

/// The SVG document, through `text::xml` as a whole.
pub fn render(report: &Report) -> String {
    let label = "rbv";
    let msg = message(report);
    let lw = (text_width(label) + 10.0).round();
    let mw = (text_width(&msg) + 10.0).round();
    let w = lw + mw;
    // The badge shows the lowest level; its tooltip, what is certified.
    let title = match report.summary.certification.partial {
        Some(_) => format!("{label}: {msg}"),
        None => format!(
            "{label}: {msg} · {}",
            crate::certificate::levels(&report.summary.certification, &report.cases)
        ),
    };
    let (l, m, title) = (escape(label), escape(&msg), escape(&title));
    let col = if report.summary.certification.partial.is_some() {
        PARTIAL
    } else {
        color(report.summary.level)
    };
    let document = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="20" role="img" aria-label="{title}">
<title>{title}</title>
<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>
<clipPath id="r"><rect width="{w}" height="20" rx="3" fill="#fff"/></clipPath>
<g clip-path="url(#r)"><rect width="{lw}" height="20" fill="#555"/><rect x="{lw}" width="{mw}" height="20" fill="{col}"/><rect width="{w}" height="20" fill="url(#s)"/></g>
<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11">
<text x="{lx}" y="15" fill="#010101" fill-opacity=".3">{l}</text><text x="{lx}" y="14">{l}</text>
<text x="{mx}" y="15" fill="#010101" fill-opacity=".3">{m}</text><text x="{mx}" y="14">{m}</text>
</g>
</svg>
"##,
        lx = lw / 2.0,
        mx = lw + mw / 2.0,
    );
    crate::text::xml_document(document)
}
