//! The stylesheet and script inlined into every HTML page: the pages are
//! single files that load nothing.

pub const CSS: &str = r#"
:root { --pass:#2e7d32; --fail:#c62828; --over:#ef6c00; --skip:#757575; --error:#6a1b9a; --known:#8d6e63; --bg:#fafafa; --line:#ddd; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #222; background: var(--bg); }
header, main > section, nav { padding: 12px 24px; }
header { background: #263238; color: #eceff1; }
header h1 { margin: 0 0 8px; font-size: 20px; font-weight: 600; }
header .meta { margin: 4px 0; font-size: 12px; color: #b0bec5; }
header code { color: #eceff1; }
.level { display: inline-block; padding: 2px 10px; border-radius: 4px; font-weight: 700; color: #fff; }
.level-precise { background: #4c1; } .level-core { background: #97ca00; }
.level-safe { background: #dfb317; } .level-none { background: #e05d44; }
.level-partial { background: #9f9f9f; } .level-not-claimed, .level-untested { background: #bbb; color: #333; }
.scores { display: flex; gap: 24px; margin: 10px 0; padding: 0; }
.scores div { background: #37474f; padding: 6px 12px; border-radius: 4px; }
.scores dt { font-size: 11px; text-transform: uppercase; color: #b0bec5; }
.scores dd { margin: 0; font-size: 20px; font-weight: 700; }
.scores dd.sub { font-size: 11px; font-weight: 400; color: #b0bec5; }
.alert { background: #ffebee; color: #b71c1c; border-left: 4px solid #c62828; padding: 6px 12px; margin: 8px 0; }
nav { position: sticky; top: 0; background: #eceff1; border-bottom: 1px solid var(--line); display: flex; gap: 18px; align-items: center; z-index: 1; }
table { border-collapse: collapse; width: 100%; background: #fff; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f5f5f5; font-weight: 600; }
td > code, td > a > code { white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.zero { color: #bbb; }
.verdict { display: inline-block; min-width: 5em; padding: 0 6px; border-radius: 3px; color: #fff; font-size: 12px; text-align: center; }
.v-pass { background: var(--pass); } .v-under, .v-mismatch, .v-fail, .v-stale { background: var(--fail); }
.v-over { background: var(--over); } .v-skip, .v-not_applicable, .v-untested { background: var(--skip); }
.v-partial { background: var(--over); }
.v-crash, .v-timeout, .v-garbage, .v-protocol, .v-error { background: var(--error); } .v-known { background: var(--known); }
.tag { display: inline-block; padding: 0 4px; margin-right: 2px; border: 1px solid var(--line); border-radius: 3px; font-size: 11px; color: #555; }
.tag.interp { border-color: #ef6c00; color: #ef6c00; }
details.area { margin: 8px 0; }
details.area > summary, details.failure > summary { cursor: pointer; padding: 4px 0; }
details.failure { background: #fff; border: 1px solid var(--line); border-left: 4px solid var(--fail); margin: 8px 0; padding: 4px 12px; }
details.failure.k-over { border-left-color: var(--over); }
details.failure.k-error { border-left-color: var(--error); }
pre { background: #f6f8fa; border: 1px solid var(--line); padding: 8px; overflow: auto; white-space: pre-wrap; word-break: break-word; margin: 4px 0 10px; }
pre.diff .add { color: #1b5e20; background: #e8f5e9; display: block; }
pre.diff .del { color: #b71c1c; background: #ffebee; display: block; }
pre.diff .hunk { color: #6a1b9a; display: block; }
h2 { font-size: 17px; margin: 12px 0 6px; }
h4 { margin: 8px 0 2px; font-size: 12px; text-transform: uppercase; color: #555; }
.hidden { display: none !important; }
td.cell-disagree { background: #fff8e1; }
"#;

/// Filters by verdict and by area: rows and failure blocks carry
/// `data-status` (pass, fail, error, skip, known, stale), `data-verdict`
/// (the label) and `data-area`. A fragment `#verdict=V&area=A` presets them.
pub const JS: &str = r#"
(function () {
  var verdict = document.getElementById('filter-verdict');
  var area = document.getElementById('filter-area');
  var counter = document.getElementById('filter-count');
  if (!verdict || !area) { return; }
  function matches(el) {
    var v = verdict.value, a = area.value;
    var okV = v === 'all' || el.dataset.status === v || el.dataset.verdict === v;
    var okA = a === 'all' || el.dataset.area === a;
    return okV && okA;
  }
  function apply() {
    var shown = 0;
    document.querySelectorAll('tr.case').forEach(function (el) {
      var ok = matches(el);
      el.classList.toggle('hidden', !ok);
      if (ok) { shown += 1; }
    });
    document.querySelectorAll('details.failure').forEach(function (el) {
      el.classList.toggle('hidden', !matches(el));
    });
    document.querySelectorAll('details.area').forEach(function (el) {
      el.classList.toggle('hidden', el.querySelectorAll('tr.case:not(.hidden)').length === 0);
    });
    counter.textContent = shown + ' case' + (shown === 1 ? '' : 's') + ' shown';
  }
  // `report.html#verdict=under&area=sql` opens with those filters set.
  location.hash.replace(/^#/, '').split('&').forEach(function (pair) {
    var kv = pair.split('=');
    if (kv.length !== 2) { return; }
    var value = decodeURIComponent(kv[1]);
    if (kv[0] === 'verdict') { verdict.value = value; }
    if (kv[0] === 'area') { area.value = value; }
  });
  verdict.addEventListener('change', apply);
  area.addEventListener('change', apply);
  apply();
})();
"#;
