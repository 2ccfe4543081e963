"""The HTML report's stylesheet (inline: the page's Content Security Policy allows no external resource).

Fonts are the reader's own (none embedded): each stack names Latin faces first, then the common Simplified
Chinese faces of every platform (Noto Sans CJK SC / Source Han Sans SC on Linux, PingFang SC on macOS, Microsoft
YaHei on Windows, WenQuanYi as the old Linux fallback), so the spec quotes, which are Chinese, never fall back to
boxes where the system has any CJK face; text holding CJK characters carries ``lang="zh"``.
"""

from __future__ import annotations

__all__ = ["CSS", "CJK_FONTS", "SANS_STACK", "MONO_STACK"]

#: Simplified Chinese faces, most specific first.
CJK_FONTS = '"Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Hiragino Sans GB", "Microsoft YaHei", ' \
    '"WenQuanYi Micro Hei"'
SANS_STACK = f'system-ui, "Segoe UI", "Noto Sans", "DejaVu Sans", {CJK_FONTS}, sans-serif'
MONO_STACK = (
    'ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", "Noto Sans Mono CJK SC", "Sarasa Mono SC", '
    f'{CJK_FONTS}, "WenQuanYi Zen Hei Mono", monospace'
)

CSS = """
:root {
  --pass: #1a7f37; --fail: #cf222e; --warn: #9a6700; --review: #0969da; --not-applicable: #6e7781;
  --not-testable: #8250df; --error: #a0114e; --timeout: #bc4c00;
  --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --bg: #ffffff;
  --sans: %(sans)s;
  --mono: %(mono)s;
}
.v-pass { --v: var(--pass); } .v-fail { --v: var(--fail); } .v-warn { --v: var(--warn); }
.v-review { --v: var(--review); } .v-not-applicable { --v: var(--not-applicable); }
.v-not-testable { --v: var(--not-testable); } .v-error { --v: var(--error); } .v-timeout { --v: var(--timeout); }
.k-conformant { --k: var(--pass); } .k-not-conformant { --k: var(--fail); } .k-error { --k: var(--error); }
.k-interrupted { --k: var(--timeout); } .k-incomplete { --k: var(--muted); }
* { box-sizing: border-box; }
html { background: var(--bg); }
body { margin: 0 auto; max-width: 1360px; padding: 16px 24px 48px; color: var(--fg);
  font: 14px/1.45 var(--sans); }
code, pre, kbd, .mono { font-family: var(--mono); font-size: 12.5px; }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; }
h1 { font-size: 15px; font-weight: 600; margin: 0; color: var(--muted); }
h2 { font-size: 19px; margin: 30px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 18px 0 8px; }
h4 { font-size: 14px; margin: 10px 0 4px; }
a { color: var(--review); }
table { border-collapse: collapse; }
.muted { color: var(--muted); }
.empty { color: var(--muted); font-style: italic; }
.hidden { display: none !important; }

/* ---- masthead: the verdict first ---- */
.masthead { border: 1px solid var(--line); border-left: 10px solid var(--k); border-radius: 8px; padding: 14px 20px;
  background: color-mix(in srgb, var(--k) 6%%, var(--bg)); }
.verdict { font-size: 40px; line-height: 1.1; font-weight: 800; letter-spacing: .02em; color: var(--k);
  margin: 6px 0 4px; }
.overall-line { font-size: 15px; margin: 0 0 10px; }
/* ---- grades: a line per spec, the families as chips ---- */
.g-green { --g: var(--pass); } .g-yellow { --g: var(--warn); } .g-red { --g: var(--fail); }
.grades { margin: 4px 0 8px; }
.grade { margin: 2px 0; }
.grade .chip { display: inline-block; min-width: 48px; text-align: center; border-radius: 10px; padding: 0 8px;
  color: #fff; background: var(--g); font-size: 12px; font-weight: 700; }
.family-grades { display: flex; flex-wrap: wrap; gap: 4px 6px; margin: 6px 0 0; padding: 0; list-style: none; }
.family-grades li { border: 1px solid var(--g); border-radius: 10px; padding: 0 8px; font-size: 12px;
  background: color-mix(in srgb, var(--g) 10%%, var(--bg)); }
.family-grades .dot { display: inline-block; width: 8px; height: 8px; border-radius: 50%%; background: var(--g);
  margin-right: 5px; }
.jump { display: flex; flex-wrap: wrap; gap: 6px 14px; margin: 8px 0 4px; }
.jump a { text-decoration: none; border: 1px solid var(--line); border-radius: 14px; padding: 2px 10px;
  background: var(--bg); color: var(--fg); }
.jump a .n { font-weight: 700; }
.jump a.alert { border-color: var(--fail); color: var(--fail); }
.next-steps { margin-top: 12px; }
.next-steps h3 { margin: 0 0 4px; font-size: 12px; text-transform: uppercase; letter-spacing: .05em; color: var(--muted); }
.next-steps ol { margin: 0; padding-left: 22px; }
.next-steps li { margin: 2px 0 6px; overflow-wrap: anywhere; }
.next-steps .step-reqs { font-size: 12px; }
.meta dd code { white-space: pre-wrap; overflow-wrap: anywhere; }
.facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(300px, 1fr)); gap: 12px 28px; margin-top: 12px; }
.revisions { margin-top: 12px; }
.facts h3, .revisions h3 { margin: 0 0 4px; font-size: 12px; text-transform: uppercase; letter-spacing: .05em;
  color: var(--muted); }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; }
.meta dt { color: var(--muted); } .meta dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
.plain td, .plain th { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top;
  background: var(--bg); }
.plain th { background: var(--soft); font-weight: 600; }
.plain td.digest { color: var(--muted); white-space: nowrap; }
.identity { margin: 0; padding: 0; list-style: none; }
.banner { margin: 10px 0 0; padding: 6px 12px; border-radius: 6px; background: #fff8c5; border: 1px solid #d4a72c; }

/* ---- per spec x level ---- */
.specs { width: 100%%; }
.specs th, .specs td { border-bottom: 1px solid var(--line); padding: 3px 8px; text-align: right; }
.specs thead th { font-size: 12px; color: var(--v, var(--muted)); border-bottom: 2px solid var(--line);
  white-space: nowrap; }
.specs th.spec, .specs td.level, .specs thead th.left { text-align: left; }
.specs th.spec { vertical-align: top; font-weight: 600; border-right: 1px solid var(--line); max-width: 360px; }
.specs th.spec .rev { display: block; font-weight: 400; color: var(--muted); font-size: 12px; }
.specs tbody { border-top: 2px solid var(--line); }
.specs td.count { font-variant-numeric: tabular-nums; min-width: 64px; }
.specs td.count.zero { color: #c4cad1; }
.specs td.count.hit { color: var(--v); font-weight: 700; background: color-mix(in srgb, var(--v) 12%%, transparent); }
.specs td.total { font-weight: 600; }
.specs tr.empty-level td { color: #c4cad1; }
.specs tfoot td, .specs tfoot th { border-top: 2px solid var(--line); font-weight: 700; }

/* ---- needs attention ---- */
.group-title { display: flex; gap: 10px; align-items: baseline; }
.group-title .note { font-weight: 400; color: var(--muted); font-size: 13px; }
.card { border: 1px solid var(--line); border-left: 6px solid var(--v); border-radius: 8px; margin: 10px 0 16px;
  background: var(--bg); }
.card-head { padding: 8px 14px; background: color-mix(in srgb, var(--v) 7%%, var(--bg));
  border-bottom: 1px solid var(--line); border-radius: 0 8px 0 0; }
.card-head .id { font-size: 14px; font-weight: 700; }
.card-head .summary { display: block; margin-top: 2px; }
.card-body { padding: 8px 14px 12px; }
.card-body > .meta { margin: 4px 0 8px; }
.badge { display: inline-block; padding: 0 8px; border-radius: 9px; color: #fff; background: var(--v); font-size: 12px;
  font-weight: 600; vertical-align: 1px; }
.tag { display: inline-block; font-size: 11px; padding: 0 6px; border-radius: 8px; border: 1px solid var(--muted);
  color: var(--muted); margin-left: 4px; vertical-align: 1px; }
.tag.fails { border-color: var(--fail); color: var(--fail); }
.reason { background: var(--soft); border-radius: 4px; padding: 4px 8px; }
.clause { margin: 8px 0; padding: 8px 14px; border-left: 4px solid var(--line); background: var(--soft);
  border-radius: 0 6px 6px 0; }
.clause blockquote { margin: 0; font-size: 15px; line-height: 1.6; white-space: pre-wrap; }
.clause figcaption { margin-top: 4px; color: var(--muted); font-size: 12px; }
.scenario { border-top: 1px dashed var(--line); margin-top: 10px; padding-top: 6px; }
.scenario h4 .feature { color: var(--muted); font-weight: 400; margin-left: 6px; font-size: 12px; }
.evidence { margin: 4px 0; padding-left: 20px; } .evidence li { margin: 3px 0; }
.gherkin { margin: 6px 0; }
.gherkin .title { color: var(--muted); font-size: 12px; margin: 0 0 2px; }
.steps { list-style: none; margin: 0; padding: 0; font-family: var(--mono); font-size: 12.5px; }
.steps li { padding: 1px 0 1px 24px; position: relative; }
.steps li .st { position: absolute; left: 4px; font-weight: 700; }
.steps li .kw { font-weight: 700; }
.steps li .when { color: var(--muted); margin-left: 8px; font-size: 11px; }
.steps li.st-passed .st { color: var(--pass); } .steps li.st-failed { background: #ffebe9; }
.steps li.st-failed .st { color: var(--fail); } .steps li.st-skipped { color: var(--muted); }
.steps li.st-pending { background: #ddf4ff; } .steps li.st-pending .st { color: var(--review); }
.steps li.st-undefined .st { color: var(--warn); }
.steps .step-error { color: var(--fail); margin: 2px 0 4px; }
.steps li.st-pending .step-error, .steps li.st-skipped .step-error { color: var(--muted); }
details.wire-log { margin: 8px 0 0; border: 1px solid var(--line); border-radius: 6px; }
details.wire-log > summary { cursor: pointer; padding: 4px 10px; background: var(--soft); border-radius: 6px; }
details.wire-log[open] > summary { border-bottom: 1px solid var(--line); border-radius: 6px 6px 0 0; }
.reproduce { margin-top: 10px; }
.reproduce pre { background: #0d1117; color: #e6edf3; padding: 8px 12px; border-radius: 6px; }
.stale li { margin: 2px 0; }

/* ---- wire log table ---- */
.wire { width: 100%%; }
.wire th, .wire td { border: 1px solid var(--line); padding: 3px 6px; text-align: left; vertical-align: top; }
.wire th { background: var(--soft); }
.wire td.t, .wire td.dir { white-space: nowrap; }
.wire td.t { text-align: right; }
.wire tr.dir-received td { background: #f3f8ff; } .wire tr.dir-note td { color: var(--muted); }
.wire td.text { width: 55%%; }
button.toggle { margin-top: 3px; font: inherit; font-size: 12px; cursor: pointer; }

/* ---- not applicable ---- */
.na { width: 100%%; }
.na td, .na th { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
.na th { font-size: 12px; color: var(--muted); }
.na td.rid { white-space: nowrap; }

/* ---- falsifiability ---- */
.falsifiability .meta { margin-top: 4px; }

/* ---- the full matrix ---- */
.tiles { display: flex; flex-wrap: wrap; gap: 10px; margin-top: 8px; }
.tile { min-width: 112px; padding: 8px 12px; border: 1px solid var(--line); border-top: 5px solid var(--v);
  border-radius: 6px; background: var(--bg); cursor: pointer; text-align: left; font: inherit; color: inherit; }
.tile .n { display: block; font-size: 24px; font-weight: 700; color: var(--v); }
.tile.zero { opacity: .55; }
.tile[aria-pressed="true"] { outline: 2px solid var(--v); }
.filters { display: flex; flex-wrap: wrap; gap: 8px 20px; align-items: center; margin: 16px 0 8px; padding: 8px 12px;
  background: var(--soft); border: 1px solid var(--line); border-radius: 6px; }
.filters fieldset { border: 0; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 10px;
  align-items: center; }
.filters legend { float: left; font-weight: 600; margin-right: 4px; padding: 0; }
.filters label { white-space: nowrap; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; background: var(--v);
  margin-right: 3px; }
.filters input[type=search] { width: 260px; padding: 3px 6px; font: inherit; }
.status { color: var(--muted); }
.matrix { width: 100%%; }
.matrix th, .matrix td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left;
  vertical-align: top; }
.matrix thead th { position: sticky; top: 0; background: var(--bg); border-bottom: 2px solid var(--line); z-index: 1; }
.matrix th.vcol { text-align: center; color: var(--v); width: 76px; font-size: 12px; }
.matrix tr.group-row th { background: var(--soft); font-weight: 600; padding-top: 8px; }
.matrix tr.group-row .spec { color: var(--muted); font-weight: 400; }
.matrix td.cell { text-align: center; }
.matrix td.hit { color: var(--v); background: color-mix(in srgb, var(--v) 16%%, transparent); font-weight: 700; }
.matrix td.rid { white-space: nowrap; }
.matrix td.summary { color: var(--fg); max-width: 640px; }
.matrix .subjects, .matrix .also { color: var(--muted); font-size: 85%%; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }

/* ---- without JavaScript ---- */
.noscript td, .noscript th { border: 1px solid var(--line); padding: 2px 8px; text-align: left; }
.noscript .verdict { color: var(--k); }
.noscript blockquote { margin: 6px 0; padding: 4px 12px; border-left: 4px solid var(--line); background: var(--soft); }
.noscript-card { border-top: 1px solid var(--line); margin-top: 8px; }
@media print { .filters, .tiles, button.toggle { display: none; } details.wire-log { break-inside: avoid; } }
""" % {"sans": SANS_STACK, "mono": MONO_STACK}
