"""A self-contained HTML report: one file, inline CSS and JavaScript, no external resource (a Content Security
Policy forbids any), readable offline.

The page is built in the browser, by vanilla JavaScript, from the report.json document embedded in
``<script type="application/json" id="report-data">`` (``render_json`` output with ``<``, ``>`` and ``&`` as
``\\u003c`` / ``\\u003e`` / ``\\u0026``, so no ``</script>`` in the data can end the element):

* a header: harness, result (exit code), start / finish, strictness, spec revisions, subjects;
* a tile per verdict with its count (a click shows only that verdict);
* filters: by verdict, by level, free-text search over requirement id and summary;
* the requirement × verdict matrix: a row per requirement (``tr.req-row.v-<verdict>[data-req-id]``), grouped by
  spec section, a column per verdict, a coloured mark in the column of the requirement's verdict;
* the stale baseline entries;
* per scenario that did not pass (fail, not-testable, error, timeout, warn), an expandable ``<details>`` with
  reason, evidence and the wire log as a table (t, role, direction, channel, summary, verdict, text, long texts
  shortened behind a "show all" toggle).

A ``<noscript>`` fallback, generated here in Python, lists every requirement with its level, section and
verdict, so the matrix content is in the file without JavaScript. All text is inserted as text (never as
markup); characters a page cannot show are ``\\uXXXX`` escapes, as in the other reports.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from simulator.results import RunRecord

from ._common import HARNESS_NAME, as_record, visible
from .json_report import render_json

__all__ = ["render_html", "embed_json"]


def embed_json(json_text: str) -> str:
    """JSON text made safe inside an HTML ``<script>`` element (no ``</script>``, no ``<!--``); JSON readers
    decode it to the same value."""
    return json_text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _t(text: str) -> str:
    return html.escape(visible(text), quote=True)


def _noscript(record: RunRecord) -> str:
    rows = "\n".join(
        f'<tr><td><code>{_t(r.id)}</code></td><td>{_t(r.level)}</td><td>{_t(f"{r.spec} {r.section}".strip())}</td>'
        f'<td class="v-{_t(r.verdict.value)}">{_t(r.verdict.value)}{" (baselined)" if r.baselined else ""}</td></tr>'
        for r in record.requirements
    )
    stale = "".join(f"<li><code>{_t(e)}</code></li>" for e in record.stale_baseline)
    return (
        "<noscript>\n"
        '<div class="noscript">\n'
        f"<h1>Conformance report: {_t(HARNESS_NAME)} {_t(record.harness_version)}</h1>\n"
        f"<p>Started {_t(record.started_at)}, finished {_t(record.finished_at)}; exit code {record.exit_code}."
        " The full report (filters, matrix, wire logs) needs JavaScript; the requirements and their verdicts:</p>\n"
        '<table class="noscript-matrix">\n'
        "<thead><tr><th>requirement</th><th>level</th><th>spec section</th><th>verdict</th></tr></thead>\n"
        f"<tbody>\n{rows}\n</tbody>\n</table>\n"
        + (f"<p>Stale baseline entries (they fail the run):</p><ul>{stale}</ul>\n" if stale else "")
        + "</div>\n</noscript>"
    )


_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)

_CSS = """
:root {
  --pass: #1a7f37; --fail: #cf222e; --warn: #9a6700; --review: #0969da; --not-applicable: #6e7781; --not-testable: #8250df;
  --error: #a0114e; --timeout: #bc4c00;
  --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --bg: #ffffff;
}
.v-pass { --v: var(--pass); } .v-fail { --v: var(--fail); } .v-warn { --v: var(--warn); }
.v-review { --v: var(--review); } .subjects { color: #6e7781; font-size: 85%; }
.v-not-applicable { --v: var(--not-applicable); } .v-not-testable { --v: var(--not-testable); }
.v-error { --v: var(--error); } .v-timeout { --v: var(--timeout); }
* { box-sizing: border-box; }
body { margin: 0; padding: 16px 24px 48px; color: var(--fg); background: var(--bg);
  font: 14px/1.45 system-ui, "Segoe UI", "Noto Sans", "DejaVu Sans", "Noto Sans CJK SC", sans-serif; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", "Noto Sans Mono CJK SC", monospace;
  font-size: 12.5px; }
pre { margin: 0; white-space: pre-wrap; word-break: break-word; }
h1 { font-size: 22px; margin: 0; }
h2 { font-size: 17px; margin: 28px 0 10px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
.top { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: baseline; border-bottom: 1px solid var(--line);
  padding-bottom: 12px; }
.top .sub { color: var(--muted); }
.result { font-weight: 700; padding: 2px 10px; border-radius: 12px; color: #fff; background: var(--fail); }
.result.ok { background: var(--pass); }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 12px 0 0; }
.meta dt { color: var(--muted); } .meta dd { margin: 0; }
table { border-collapse: collapse; }
.subjects td, .subjects th { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
.subjects th { background: var(--soft); }
.tiles { display: flex; flex-wrap: wrap; gap: 10px; margin-top: 16px; }
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
.matrix { width: 100%; }
.matrix th, .matrix td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left;
  vertical-align: top; }
.matrix thead th { position: sticky; top: 0; background: var(--bg); border-bottom: 2px solid var(--line); z-index: 1; }
.matrix th.vcol { text-align: center; color: var(--v); width: 76px; font-size: 12px; }
.matrix tr.group-row th { background: var(--soft); font-weight: 600; padding-top: 8px; }
.matrix tr.group-row .spec { color: var(--muted); font-weight: 400; }
.matrix td.cell { text-align: center; }
.matrix td.hit { color: var(--v); background: color-mix(in srgb, var(--v) 16%, transparent); font-weight: 700; }
.matrix td.rid { white-space: nowrap; }
.matrix td.summary { color: var(--fg); max-width: 640px; }
.tag { display: inline-block; font-size: 11px; padding: 0 5px; border-radius: 8px; border: 1px solid var(--muted);
  color: var(--muted); margin-left: 4px; }
.badge { display: inline-block; padding: 0 7px; border-radius: 9px; color: #fff; background: var(--v); font-size: 12px;
  font-weight: 600; }
details.scenario { border: 1px solid var(--line); border-left: 5px solid var(--v); border-radius: 6px; margin: 8px 0;
  background: var(--bg); }
details.scenario > summary { cursor: pointer; padding: 6px 10px; }
details.scenario > summary .feature { color: var(--muted); margin-left: 6px; }
details.scenario .body { padding: 4px 12px 12px; border-top: 1px solid var(--line); }
.wire { width: 100%; margin-top: 4px; }
.wire th, .wire td { border: 1px solid var(--line); padding: 3px 6px; text-align: left; vertical-align: top; }
.wire th { background: var(--soft); }
.wire td.t, .wire td.dir { white-space: nowrap; }
.wire td.t { text-align: right; }
.wire tr.dir-received td { background: #f3f8ff; } .wire tr.dir-note td { color: var(--muted); }
.wire td.text { width: 55%; }
button.toggle { margin-top: 3px; font: inherit; font-size: 12px; cursor: pointer; }
.evidence li { margin: 3px 0; }
.hidden { display: none !important; }
.empty { color: var(--muted); font-style: italic; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
.noscript-matrix td, .noscript-matrix th { border: 1px solid var(--line); padding: 2px 8px; }
"""

_JS = r"""
(function () {
  "use strict";
  var VERDICTS = ["pass", "fail", "warn", "review", "not-applicable", "not-testable", "error", "timeout"];
  var LABELS = {"pass": "pass", "fail": "fail", "warn": "warn", "review": "review", "not-applicable": "not applicable",
    "not-testable": "not testable", "error": "error", "timeout": "timeout"};
  var MARKS = {"pass": "\u2713", "fail": "\u2717", "warn": "!", "review": "R", "not-applicable": "\u2013", "not-testable": "?",
    "error": "E", "timeout": "T"};
  var FAILING = {"fail": true, "not-testable": true, "error": true, "timeout": true};
  var SHORT_CHARS = 240, SHORT_LINES = 6;

  var data = JSON.parse(document.getElementById("report-data").textContent);
  var app = document.getElementById("app");

  // The same escapes as the Python renderers: controls and lone surrogates shown as \uXXXX.
  var UNSAFE = new RegExp("[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\ufffe\\uffff]"
    + "|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]", "g");
  function visible(s) {
    return String(s == null ? "" : s).replace(UNSAFE, function (c) {
      return "\\u" + ("000" + c.charCodeAt(0).toString(16)).slice(-4);
    });
  }
  function h(tag, props, children) {
    var node = document.createElement(tag);
    Object.keys(props || {}).forEach(function (k) {
      var v = props[k];
      if (v == null || v === false) return;
      if (k === "class") node.className = v;
      else if (k === "text") node.textContent = visible(v);
      else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    });
    (children || []).forEach(function (c) {
      if (c == null) return;
      node.appendChild(typeof c === "string" ? document.createTextNode(visible(c)) : c);
    });
    return node;
  }
  function outcome(code) {
    if (data.interrupted) return "interrupted by " + data.interrupted + ": a partial report";
    return code === 0 ? "conformant" : code === 1 ? "non-conformant" : code === 3 ? "harness error"
      : "run did not complete";
  }
  function failsRun(verdict) { return FAILING[verdict] || (data.strict && verdict === "warn"); }
  var collator = new Intl.Collator(undefined, {numeric: true, sensitivity: "base"});

  // ---- header ---------------------------------------------------------------------------------------------
  var header = h("header", {class: "top"}, [
    h("h1", {text: "Conformance report"}),
    h("span", {class: "sub", text: data.harness.name + " " + data.harness.version}),
    h("span", {class: "result" + (data.exitCode === 0 ? " ok" : ""), id: "result",
      text: "exit code " + data.exitCode + " \u00b7 " + outcome(data.exitCode)}),
  ]);
  app.appendChild(header);
  var meta = h("dl", {class: "meta"});
  function metaRow(label, value) { meta.appendChild(h("dt", {text: label})); meta.appendChild(h("dd", {}, [value])); }
  var started = Date.parse(data.startedAt), finished = Date.parse(data.finishedAt);
  metaRow("Started", data.startedAt);
  metaRow("Finished", data.finishedAt + (isNaN(started) || isNaN(finished) ? ""
    : " (" + ((finished - started) / 1000).toFixed(1) + " s)"));
  metaRow("Strict", data.strict ? "yes: warn fails the run" : "no");
  metaRow("Requirements", data.requirements.length + " requirements, " + data.scenarios.length + " scenarios");
  Object.keys(data.specRevisions).sort().forEach(function (doc) {
    metaRow("Spec " + doc, h("code", {text: data.specRevisions[doc]}));
  });
  metaRow("Report", "report.json schema " + data.schemaVersion);
  app.appendChild(meta);
  if (data.subjects.length) {
    app.appendChild(h("h2", {text: "Subjects"}));
    app.appendChild(h("table", {class: "subjects"}, [
      h("thead", {}, [h("tr", {}, [h("th", {text: "role"}), h("th", {text: "target"}), h("th", {text: "identity"})])]),
      h("tbody", {}, data.subjects.map(function (s) {
        var identity = Object.keys(s.identity).length ? JSON.stringify(s.identity) : "";
        return h("tr", {}, [h("td", {text: s.role}), h("td", {}, [h("code", {text: s.target})]),
          h("td", {}, [h("code", {text: identity})])]);
      })),
    ]));
  }

  // ---- verdict tiles and filters --------------------------------------------------------------------------
  var state = {verdicts: {}, levels: {}, query: ""};
  VERDICTS.forEach(function (v) { state.verdicts[v] = true; });
  var levels = [];
  data.requirements.concat(data.scenarios).forEach(function (r) {
    if (r.level != null && levels.indexOf(r.level) < 0) levels.push(r.level);
  });
  var LEVEL_ORDER = ["must", "should", "may"];
  levels.sort(function (a, b) {
    var ia = LEVEL_ORDER.indexOf(a), ib = LEVEL_ORDER.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || collator.compare(a, b);
  });
  levels.forEach(function (l) { state.levels[l] = true; });

  app.appendChild(h("h2", {text: "Verdicts"}));
  var tiles = h("div", {class: "tiles", id: "counts"});
  var tileButtons = {};
  VERDICTS.forEach(function (v) {
    var n = data.summary.requirements[v];
    var tile = h("button", {type: "button", class: "tile v-" + v + (n ? "" : " zero"), "data-verdict": v,
      title: "show only " + LABELS[v], "aria-pressed": "false",
      onclick: function () { onlyVerdict(v); }}, [h("span", {class: "n", text: String(n)}), LABELS[v]]);
    tileButtons[v] = tile;
    tiles.appendChild(tile);
  });
  app.appendChild(tiles);

  var verdictBoxes = {}, levelBoxes = {};
  var search = h("input", {type: "search", id: "search", placeholder: "Search id or summary",
    "aria-label": "Search requirement id or summary", oninput: function () { state.query = search.value; apply(); }});
  var status = h("span", {class: "status", id: "filter-status"});
  var filters = h("div", {class: "filters", id: "filters"}, [
    h("fieldset", {}, [h("legend", {text: "Verdict"})].concat(VERDICTS.map(function (v) {
      var box = h("input", {type: "checkbox", checked: true, value: v,
        onchange: function () { state.verdicts[v] = box.checked; apply(); }});
      verdictBoxes[v] = box;
      return h("label", {class: "v-" + v}, [box, h("span", {class: "swatch"}), LABELS[v]]);
    }))),
    h("fieldset", {}, [h("legend", {text: "Level"})].concat(levels.map(function (l) {
      var box = h("input", {type: "checkbox", checked: true, value: l,
        onchange: function () { state.levels[l] = box.checked; apply(); }});
      levelBoxes[l] = box;
      return h("label", {}, [box, l]);
    }))),
    search,
    h("button", {type: "button", text: "Reset", onclick: function () { reset(); }}),
    status,
  ]);
  app.appendChild(filters);

  // ---- the requirement x verdict matrix -------------------------------------------------------------------
  var scenarioIndex = {};  // requirement id -> index of its first scenario shown below
  var shownScenarios = [];
  data.scenarios.forEach(function (s, i) {
    if (FAILING[s.verdict] || s.verdict === "warn" || s.verdict === "review") {
      shownScenarios.push(i);
      if (s.requirement != null && !(s.requirement in scenarioIndex)) scenarioIndex[s.requirement] = i;
    }
  });
  var stale = {};
  data.staleBaseline.forEach(function (e) { stale[e] = true; });

  app.appendChild(h("h2", {text: "Requirements"}));
  var groups = [], byKey = {};
  data.requirements.forEach(function (r) {
    var key = r.spec + "\u0000" + r.section;
    if (!byKey[key]) { byKey[key] = {spec: r.spec, section: r.section, reqs: []}; groups.push(byKey[key]); }
    byKey[key].reqs.push(r);
  });
  groups.sort(function (a, b) { return collator.compare(a.spec, b.spec) || collator.compare(a.section, b.section); });

  var tbody = h("tbody");
  var rows = [], groupRows = [];
  groups.forEach(function (g) {
    var groupRow = h("tr", {class: "group-row"}, [h("th", {colspan: String(3 + VERDICTS.length)}, [
      h("span", {text: g.section || "(no section)"}), " ", h("span", {class: "spec", text: "\u2014 " + g.spec}),
    ])]);
    groupRow._rows = [];
    groupRows.push(groupRow);
    tbody.appendChild(groupRow);
    g.reqs.forEach(function (r) {
      var idCell = h("td", {class: "rid"});
      if (r.id in scenarioIndex) {
        idCell.appendChild(h("a", {href: "#scenario-" + scenarioIndex[r.id], onclick: function () {
          var d = document.getElementById("scenario-" + scenarioIndex[r.id]); if (d) d.open = true; }},
          [h("code", {text: r.id})]));
      } else {
        idCell.appendChild(h("code", {text: r.id}));
      }
      if (r.baselined) idCell.appendChild(h("span", {class: "tag", text: "baselined"}));
      if (stale[r.id]) idCell.appendChild(h("span", {class: "tag", text: "stale baseline"}));
      var judged = (r.subjects || []).map(function (s) { return s.role + " " + s.target + ": " + s.verdict; });
      var row = h("tr", {class: "req-row v-" + r.verdict, "data-req-id": r.id, "data-verdict": r.verdict,
        "data-level": r.level}, [idCell, h("td", {text: r.level}), h("td", {class: "summary", title: visible(r.quote)},
          [r.summary, h("div", {class: "subjects", text: judged.length ? "judged: " + judged.join("; ")
            : "judged no subject"})])]);
      VERDICTS.forEach(function (v) {
        row.appendChild(v === r.verdict
          ? h("td", {class: "cell hit v-" + v, title: LABELS[v]}, [h("span", {class: "mark", text: MARKS[v]})])
          : h("td", {class: "cell"}));
      });
      row._search = (r.id + "\n" + r.summary).toLowerCase();
      groupRow._rows.push(row);
      rows.push(row);
      tbody.appendChild(row);
    });
  });
  var headRow = h("tr", {}, [h("th", {text: "Requirement"}), h("th", {text: "Level"}), h("th", {text: "Summary"})]);
  VERDICTS.forEach(function (v) { headRow.appendChild(h("th", {class: "vcol v-" + v, text: LABELS[v]})); });
  app.appendChild(h("table", {class: "matrix", id: "matrix"}, [h("thead", {}, [headRow]), tbody]));
  var emptyNote = h("p", {class: "empty hidden", text: "No requirement matches the filters."});
  app.appendChild(emptyNote);

  // ---- stale baseline -------------------------------------------------------------------------------------
  if (data.staleBaseline.length) {
    app.appendChild(h("h2", {text: "Stale baseline entries"}));
    app.appendChild(h("p", {text: "These entries of the expected-failures baseline pass now; "
      + "each fails the run until it is removed."}));
    app.appendChild(h("ul", {id: "stale"}, data.staleBaseline.map(function (e) {
      return h("li", {}, [h("code", {text: e})]);
    })));
  }

  // ---- scenarios that did not pass ------------------------------------------------------------------------
  app.appendChild(h("h2", {text: "Scenarios not passing (" + shownScenarios.length + ")"}));
  var details = [];
  if (!shownScenarios.length) app.appendChild(h("p", {class: "empty", text: "None."}));
  function longText(text) {
    var lines = text.split("\n");
    var short = lines.length > SHORT_LINES ? lines.slice(0, SHORT_LINES).join("\n") : text;
    if (short.length > SHORT_CHARS) short = short.slice(0, SHORT_CHARS);
    var pre = h("pre", {text: short === text ? text : short + "\u2026"});
    if (short === text) return [pre];
    var full = false;
    var button = h("button", {type: "button", class: "toggle", text: "show all (" + text.length + " characters)"});
    button.addEventListener("click", function () {
      full = !full;
      pre.textContent = visible(full ? text : short + "\u2026");
      button.textContent = full ? "show less" : "show all (" + text.length + " characters)";
    });
    return [pre, button];
  }
  function wireTable(events) {
    var arrows = {"sent": "sent \u2192", "received": "\u2190 received", "note": "note"};
    return h("table", {class: "wire"}, [
      h("thead", {}, [h("tr", {}, ["t", "role", "direction", "channel", "summary", "verdict", "text"].map(function (c) {
        return h("th", {text: c}); }))]),
      h("tbody", {}, events.map(function (e) {
        return h("tr", {class: "dir-" + e.direction}, [
          h("td", {class: "t mono", text: "+" + Number(e.t).toFixed(3)}), h("td", {text: e.role}),
          h("td", {class: "dir", text: arrows[e.direction] || e.direction}), h("td", {text: e.channel}),
          h("td", {}, [h("code", {text: e.summary})]),
          h("td", {}, [h("code", {text: e.verdict == null ? "" : e.verdict})]),
          h("td", {class: "text"}, longText(e.text)),
        ]);
      })),
    ]);
  }
  shownScenarios.forEach(function (i) {
    var s = data.scenarios[i];
    var body = h("div", {class: "body"});
    var dl = h("dl", {class: "meta"});
    function row(label, value) { dl.appendChild(h("dt", {text: label})); dl.appendChild(h("dd", {}, [value])); }
    row("Scenario", h("code", {text: s.nodeid}));
    row("Feature", s.feature);
    row("Requirement", (s.requirement || "\u2013") + (s.level ? " (" + s.level + ")" : ""));
    row("Verdict", s.verdict + (s.baselined ? " (baselined: expected, does not fail the run)"
      : failsRun(s.verdict) ? " (fails the run)" : ""));
    row("Duration", Number(s.durationSeconds).toFixed(3) + " s");
    row("Reason", h("pre", {text: s.reason || "\u2013"}));
    body.appendChild(dl);
    body.appendChild(h("h3", {text: "Evidence"}));
    body.appendChild(s.evidence.length
      ? h("ul", {class: "evidence"}, s.evidence.map(function (e) { return h("li", {}, [h("pre", {text: e})]); }))
      : h("p", {class: "empty", text: "None recorded."}));
    body.appendChild(h("h3", {text: "Wire log (" + s.wire.length + " events)"}));
    body.appendChild(s.wire.length ? wireTable(s.wire) : h("p", {class: "empty", text: "No wire events recorded."}));
    var d = h("details", {class: "scenario v-" + s.verdict, id: "scenario-" + i, "data-verdict": s.verdict,
      "data-level": s.level == null ? "" : s.level}, [
      h("summary", {}, [h("span", {class: "badge", text: LABELS[s.verdict]}), " ",
        h("code", {text: s.requirement || "\u2013"}), " ", s.name, h("span", {class: "feature", text: s.feature}),
        s.baselined ? h("span", {class: "tag", text: "baselined"}) : null]),
      body,
    ]);
    d._search = ((s.requirement || "") + "\n" + s.name + "\n" + s.reason).toLowerCase();
    details.push(d);
    app.appendChild(d);
  });
  app.appendChild(h("footer", {text: "Rendered in the browser from the report.json embedded in this file (schema "
    + data.schemaVersion + "); no network access."}));

  // ---- filtering ------------------------------------------------------------------------------------------
  function matches(node, verdict, level) {
    var q = state.query.trim().toLowerCase();
    return state.verdicts[verdict] && (level == null || level === "" || state.levels[level] !== false)
      && (!q || node._search.indexOf(q) >= 0);
  }
  function apply() {
    var shown = 0;
    rows.forEach(function (row) {
      var ok = matches(row, row.getAttribute("data-verdict"), row.getAttribute("data-level"));
      row.classList.toggle("hidden", !ok);
      if (ok) shown++;
    });
    groupRows.forEach(function (g) {
      g.classList.toggle("hidden", !g._rows.some(function (r) { return !r.classList.contains("hidden"); }));
    });
    details.forEach(function (d) {
      d.classList.toggle("hidden", !matches(d, d.getAttribute("data-verdict"), d.getAttribute("data-level")));
    });
    emptyNote.classList.toggle("hidden", shown > 0 || rows.length === 0);
    status.textContent = "showing " + shown + " of " + rows.length + " requirements";
    var only = VERDICTS.filter(function (v) { return state.verdicts[v]; });
    VERDICTS.forEach(function (v) {
      verdictBoxes[v].checked = state.verdicts[v];
      tileButtons[v].setAttribute("aria-pressed", only.length === 1 && only[0] === v ? "true" : "false");
    });
  }
  function onlyVerdict(v) {
    var only = VERDICTS.filter(function (x) { return state.verdicts[x]; });
    var already = only.length === 1 && only[0] === v;
    VERDICTS.forEach(function (x) { state.verdicts[x] = already || x === v; });
    apply();
  }
  function reset() {
    VERDICTS.forEach(function (v) { state.verdicts[v] = true; });
    levels.forEach(function (l) { state.levels[l] = true; levelBoxes[l].checked = true; });
    state.query = ""; search.value = "";
    apply();
  }
  apply();
  // A link to #scenario-N opens that scenario.
  function openFromHash() {
    var target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (target && target.tagName === "DETAILS") { target.open = true; target.scrollIntoView(); }
  }
  window.addEventListener("hashchange", openFromHash);
  openFromHash();
  document.documentElement.setAttribute("data-rendered", "true");
})();
"""


def render_html(record: RunRecord | Mapping[str, Any]) -> str:
    """The self-contained HTML report of a record (or a report.json dict)."""
    record = as_record(record)
    title = f"Conformance report: {HARNESS_NAME} {record.harness_version} ({record.started_at})"
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n'
        "<head>\n"
        '<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_t(title)}</title>\n"
        f"<style>{_CSS}</style>\n"
        "</head>\n"
        "<body>\n"
        f"{_noscript(record)}\n"
        '<main id="app"></main>\n'
        f'<script type="application/json" id="report-data">\n{embed_json(render_json(record))}</script>\n'
        f"<script>{_JS}</script>\n"
        "</body>\n"
        "</html>\n"
    )
