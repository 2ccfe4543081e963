r"""The HTML report's script: vanilla JavaScript that builds the page from the two JSON documents embedded in it,
``report-data`` (report.json with only the scenarios the page shows: ``html.page_document``) and ``report-view``
(``html_view.page_view``: the overall verdict, the per-spec table, the attention list, the not-applicable reasons,
all worked out in Python). A member report.json leaves out because it is empty (a scenario's evidence or wire log)
reads as empty.

What it builds, top to bottom:

* the masthead: the overall verdict in large capitals (coloured by its kind) and ``RunRecord.overall()``'s line,
  the grades (``#grades``: a ``div.grade.g-<colour>`` per spec with its colour, passing count and reason, then the
  families as ``ul.family-grades`` chips, each reason in its title; simulator/verdicts/grades.py), the run's facts (start, finish, strictness, exit code, what was selected, the baseline and reviews that judged
  it, the command that repeats it), the subjects with their targets and identities, "Next steps" (``#next-steps``:
  the causes of what did not pass, the one blocking most requirements first, each with its action and
  requirements: simulator/verdicts/causes.py), links to the sections below with their counts, the spec revisions;
* ``#by-spec``: one table, a block of rows per spec (must, should, may), a column per verdict;
* ``#attention``: a card per requirement needing attention (``article.card[data-req-id][data-verdict]``): verdict,
  level, subjects, reason, the other non-passing verdicts of its scenarios ("Also", when any), the quoted spec
  clause as text with spec and section, each scenario that did not pass
  (reason, evidence, Gherkin steps with their statuses, the wire log in a collapsed ``<details class="wire-log">``
  when it has events),
  and how to reproduce (``pre.reproduce-command``); then the stale baseline entries;
* ``#not-applicable``: each not-applicable requirement with its reason;
* ``#falsifiability``: only when report.json carries a ``falsifiability`` object (a later schema may add it);
* ``#limits``: only when report.json carries measurements (``limits``, 1.3: the robustness profile);
* ``#all-requirements``: verdict tiles, filters (verdict, level, search) and the requirement × verdict matrix
  (``tr.req-row.v-<verdict>[data-req-id][data-verdict]``, a ``td.cell`` per verdict, ``hit`` in the verdict's;
  under the summary the subjects judged and, when any, a ``div.also`` line of the other non-passing verdicts);
* ``#other-scenarios``: scenarios that did not pass and belong to no listed requirement, if any.

All text is inserted as text (``textContent``), never as markup; characters a page cannot show become ``\uXXXX``
escapes (``visible``, as in Python); text holding CJK characters gets ``lang="zh"``. The script holds no ``</``
and no ``<!--``, so it cannot end its element early.
"""

from __future__ import annotations

__all__ = ["JS"]

JS = r"""
(function () {
  "use strict";
  var VERDICTS = ["pass", "fail", "warn", "review", "not-applicable", "not-testable", "error", "timeout"];
  var LABELS = {"pass": "pass", "fail": "fail", "warn": "warn", "review": "review", "not-applicable": "not applicable",
    "not-testable": "not testable", "error": "error", "timeout": "timeout"};
  var MARKS = {"pass": "\u2713", "fail": "\u2717", "warn": "!", "review": "R", "not-applicable": "\u2013",
    "not-testable": "?", "error": "E", "timeout": "T"};
  var STEP_MARKS = {"passed": "\u2713", "failed": "\u2717", "skipped": "\u2013", "pending": "?", "undefined": "\u2205"};
  var FAILING = {"fail": true, "not-testable": true, "error": true, "timeout": true};
  var SHORT_CHARS = 240, SHORT_LINES = 6;

  var data = JSON.parse(document.getElementById("report-data").textContent);
  var view = JSON.parse(document.getElementById("report-view").textContent);
  var app = document.getElementById("app");

  // The same escapes as the Python renderers: controls and lone surrogates shown as \uXXXX.
  var UNSAFE = new RegExp("[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f\\ufffe\\uffff]"
    + "|[\\ud800-\\udbff](?![\\udc00-\\udfff])|(?<![\\ud800-\\udbff])[\\udc00-\\udfff]", "g");
  // CJK text is marked lang="zh" (CJK in reports/html_noscript.py).
  var HAN = /[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]/;
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
      else if (k === "text") {
        node.textContent = visible(v);
        if (!("lang" in props) && HAN.test(node.textContent)) node.setAttribute("lang", "zh");
      }
      else if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? "" : String(v));
    });
    (children || []).forEach(function (c) {
      if (c == null) return;
      if (typeof c !== "string") node.appendChild(c);
      else node.appendChild(HAN.test(c) ? h("span", {text: c}) : document.createTextNode(visible(c)));
    });
    return node;
  }
  function plural(n, one, many) { return n + " " + (n === 1 ? one : (many || one + "s")); }
  function failsRun(verdict) { return FAILING[verdict] || (data.strict && verdict === "warn"); }
  var collator = new Intl.Collator(undefined, {numeric: true, sensitivity: "base"});
  var reqById = {};
  data.requirements.forEach(function (r) { reqById[r.id] = r; });
  var cardIds = {};
  view.attention.forEach(function (item) { cardIds[item.id] = true; });

  // ---- masthead: the verdict first -----------------------------------------------------------------------
  var overall = view.overall;
  var mast = h("header", {class: "masthead k-" + overall.kind, id: "masthead"}, [
    h("h1", {text: "Conformance report \u00b7 " + data.harness.name + " " + data.harness.version}),
    h("div", {class: "verdict", id: "overall-verdict", "data-kind": overall.kind, text: overall.verdict}),
    h("p", {class: "overall-line", id: "overall-line", text: overall.line}),
  ]);
  if (data.interrupted) {
    mast.appendChild(h("p", {class: "banner", text: "Interrupted by " + data.interrupted + ": a partial report; "
      + "the scenarios the run did not reach are absent, so nothing here is a verdict on the subject."}));
  }
  if (data.grades && data.grades.length) {
    var grades = h("section", {class: "grades", id: "grades", "aria-label": "grades"});
    data.grades.forEach(function (g) {
      if (g.scope !== "spec") return;
      grades.appendChild(h("div", {class: "grade g-" + g.colour, "data-scope": g.scope, "data-name": g.name,
        "data-colour": g.colour}, [h("span", {class: "chip", text: g.colour}), " ", h("code", {text: g.name}), " ",
        h("span", {class: "muted", text: view.gradeMessages[g.scope + "-" + g.name]}), " ", h("span", {class: "grade-reason", text: g.reason})]));
    });
    var families = data.grades.filter(function (g) { return g.scope === "family"; });
    if (families.length) {
      grades.appendChild(h("ul", {class: "family-grades", "aria-label": "feature families"}, families.map(function (g) {
        return h("li", {class: "g-" + g.colour, "data-scope": g.scope, "data-name": g.name, "data-colour": g.colour,
          title: g.colour + ": " + g.reason}, [h("span", {class: "dot", "aria-hidden": "true"}), g.title]);
      })));
    }
    mast.appendChild(grades);
  }
  var nFails = view.attention.filter(function (i) { return i.group === "fails"; }).length;
  var jump = h("nav", {class: "jump", "aria-label": "sections"});
  function jumpLink(href, label, n, alert) {
    jump.appendChild(h("a", {href: href, class: alert ? "alert" : null},
      [label + " ", h("span", {class: "n", text: String(n)})]));
  }
  jumpLink("#next-steps", "Next steps", view.nextSteps.length, false);
  jumpLink("#attention", "Needs attention", view.attention.length, nFails > 0);
  if (data.staleBaseline.length) jumpLink("#stale", "Stale baseline", data.staleBaseline.length, true);
  jumpLink("#not-applicable", "Not applicable", view.notApplicable.length, false);
  jumpLink("#by-spec", "Specs", view.specs.length, false);
  jumpLink("#all-requirements", "All requirements", data.requirements.length, false);

  var facts = h("div", {class: "facts"});
  var run = h("dl", {class: "meta", id: "run-facts"});
  function fact(label, value) { run.appendChild(h("dt", {text: label})); run.appendChild(h("dd", {}, [value])); }
  var started = Date.parse(data.startedAt), finished = Date.parse(data.finishedAt);
  fact("Started", data.startedAt);
  fact("Finished", data.finishedAt + (isNaN(started) || isNaN(finished) ? ""
    : " (" + ((finished - started) / 1000).toFixed(1) + " s)"));
  fact("Strict", data.strict ? "yes: warn fails the run" : "no: warn does not fail the run");
  fact("Exit code", String(data.exitCode));
  fact("Ran", plural(data.requirements.length, "requirement") + ", " + plural(data.summary.scenarios, "scenario"));
  fact("Selected", view.selection);
  fact("Judged with", view.judgedWith);
  fact("Command", view.command ? h("code", {text: view.command}) : h("span", {class: "empty", text: "not recorded"}));
  facts.appendChild(h("section", {}, [h("h3", {text: "Run"}), run]));

  function identityList(identity) {
    var keys = Object.keys(identity || {}).filter(function (k) { return identity[k] != null; }).sort();
    if (!keys.length) return h("span", {class: "empty", text: "said nothing about itself"});
    return h("ul", {class: "identity"}, keys.map(function (k) {
      var v = identity[k];
      return h("li", {}, [h("span", {class: "muted", text: k + ": "}),
        typeof v === "string" ? v : h("code", {text: JSON.stringify(v)})]);
    }));
  }
  facts.appendChild(h("section", {}, [h("h3", {text: "Subjects"}), data.subjects.length
    ? h("table", {class: "plain", id: "subjects"}, [
      h("thead", {}, [h("tr", {}, [h("th", {text: "role"}), h("th", {text: "target"}), h("th", {text: "identity"})])]),
      h("tbody", {}, data.subjects.map(function (s) {
        return h("tr", {}, [h("td", {text: s.role}), h("td", {}, [h("code", {text: s.target})]),
          h("td", {}, [identityList(s.identity)])]);
      }))])
    : h("p", {class: "empty", text: "No subject recorded."})]));
  mast.appendChild(facts);

  // ---- Next steps: the causes of what did not pass, the one blocking most first -------------------------------
  var next = h("section", {class: "next-steps", id: "next-steps"}, [h("h3", {class: "facts-title", text: "Next steps"})]);
  if (!view.nextSteps.length) {
    next.appendChild(h("p", {class: "empty", text: "Nothing to do: every requirement passed or is not applicable."}));
  } else {
    next.appendChild(h("ol", {}, view.nextSteps.map(function (step) {
      var ids = step.requirements;
      var shown = ids.slice(0, 6).map(function (id) {
        return cardIds[id] ? h("a", {href: "#req-" + id}, [h("code", {text: id})]) : h("code", {text: id});
      });
      var list = [];
      shown.forEach(function (node, i) { if (i) list.push(", "); list.push(node); });
      if (ids.length > shown.length) list.push(" and " + (ids.length - shown.length) + " more");
      return h("li", {class: "step v-" + step.verdict, "data-cause": step.cause.kind, "data-count": String(step.count)}, [
        h("span", {class: "badge", text: LABELS[step.verdict]}), " ", h("span", {class: "step-action", text: step.action}),
        h("div", {class: "step-reqs muted"}, list)]);
    })));
  }
  mast.appendChild(next);
  mast.appendChild(jump);

  var docs = Object.keys(data.specRevisions).sort(collator.compare);
  if (docs.length) {
    mast.appendChild(h("section", {class: "revisions"}, [h("h3", {class: "facts-title", text: "Spec revisions"}),
      h("table", {class: "plain", id: "spec-revisions"}, [
        h("thead", {}, [h("tr", {}, ["document", "title", "revision", "digest"].map(function (c) {
          return h("th", {text: c}); }))]),
        h("tbody", {}, docs.map(function (doc) {
          // "<title> · <revision> · sha256:<digest>[ (the copy at … differs)]"; older reports: the revision alone.
          var parts = String(data.specRevisions[doc]).split(" \u00b7 ");
          var digest = parts.length > 1 && /^sha256:/.test(parts[parts.length - 1]) ? parts.pop() : "";
          var title = parts.length > 1 ? parts.shift() : "";
          var revision = parts.join(" \u00b7 ");
          return h("tr", {"data-spec": doc}, [h("td", {}, [h("code", {text: doc})]), h("td", {text: title}),
            h("td", {text: revision}), h("td", {class: "digest mono", text: digest})]);
        })),
      ])]));
  }
  app.appendChild(mast);

  // ---- per spec x level ----------------------------------------------------------------------------------
  var bySpec = h("section", {id: "by-spec"}, [h("h2", {text: "By spec and level"})]);
  if (!view.specs.length) {
    bySpec.appendChild(h("p", {class: "empty", text: "No requirement recorded."}));
  } else {
    var specHead = h("tr", {}, [h("th", {class: "left", text: "spec"}), h("th", {class: "left", text: "level"})]);
    VERDICTS.forEach(function (v) { specHead.appendChild(h("th", {class: "v-" + v, text: LABELS[v]})); });
    specHead.appendChild(h("th", {text: "total"}));
    var specTable = h("table", {class: "specs", id: "spec-summary"}, [h("thead", {}, [specHead])]);
    var grand = {};
    VERDICTS.forEach(function (v) { grand[v] = 0; });
    view.specs.forEach(function (t) {
      var tbody = h("tbody", {"data-spec": t.spec});
      t.rows.forEach(function (row, i) {
        var tr = h("tr", {"data-level": row.level, class: row.total ? null : "empty-level"});
        if (i === 0) {
          var rev = t.revision ? String(t.revision).split(" \u00b7 ")[0] : "";
          tr.appendChild(h("th", {class: "spec", rowspan: String(t.rows.length), scope: "rowgroup"}, [
            h("code", {text: t.spec}), h("span", {class: "rev", text: rev}),
            h("span", {class: "rev", text: plural(t.total, "requirement")})]));
        }
        tr.appendChild(h("td", {class: "level", text: row.level}));
        VERDICTS.forEach(function (v) {
          var n = row.counts[v];
          grand[v] += n;
          tr.appendChild(h("td", {class: "count v-" + v + (n ? " hit" : " zero"), "data-verdict": v, text: String(n)}));
        });
        tr.appendChild(h("td", {class: "total", text: String(row.total)}));
        tbody.appendChild(tr);
      });
      specTable.appendChild(tbody);
    });
    var foot = h("tr", {}, [h("th", {class: "spec", colspan: "2", text: "all specs"})]);
    VERDICTS.forEach(function (v) {
      foot.appendChild(h("td", {class: "count v-" + v + (grand[v] ? " hit" : " zero"), "data-verdict": v,
        text: String(grand[v])}));
    });
    foot.appendChild(h("td", {class: "total", text: String(data.requirements.length)}));
    specTable.appendChild(h("tfoot", {}, [foot]));
    bySpec.appendChild(specTable);
  }

  // ---- scenario blocks (cards and "other scenarios") ------------------------------------------------------
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
  function gherkinSteps(g) {
    return h("div", {class: "gherkin"}, [
      h("p", {class: "title", text: "Gherkin: " + g.feature + " \u00b7 scenario at line " + g.line}),
      h("ol", {class: "steps"}, g.steps.map(function (st) {
        return h("li", {class: "step st-" + st.status, "data-status": st.status}, [
          h("span", {class: "st", title: st.status, text: STEP_MARKS[st.status] || "\u00b7"}),
          h("span", {class: "kw", text: st.keyword}), " ", h("span", {class: "step-text", text: st.text}),
          h("span", {class: "when", text: st.status + (st.durationSeconds ? " \u00b7 "
            + Number(st.durationSeconds).toFixed(3) + " s" : "")}),
          st.error ? h("pre", {class: "step-error", text: st.error}) : null,
        ]);
      })),
    ]);
  }
  var scenarioAt = {};  // report.json index -> scenario: the page's data holds only those it shows (view.shown)
  view.shown.forEach(function (n, k) { scenarioAt[n] = data.scenarios[k]; });
  function scenarioBlock(i, cardReason) {
    var s = scenarioAt[i];
    var evidence = s.evidence || [], wire = s.wire || [];  // report.json leaves out a member that is empty
    var block = h("section", {class: "scenario v-" + s.verdict, id: "scenario-" + i, "data-verdict": s.verdict,
      "data-scenario": s.nodeid}, [
      h("h4", {}, [h("span", {class: "badge", text: LABELS[s.verdict]}), " ", h("span", {text: s.name || s.nodeid}),
        h("span", {class: "feature", text: s.feature}),
        s.baselined ? h("span", {class: "tag", text: "baselined"}) : null]),
    ]);
    var dl = h("dl", {class: "meta"});
    function row(label, value) { dl.appendChild(h("dt", {text: label})); dl.appendChild(h("dd", {}, [value])); }
    row("Scenario", h("code", {text: s.nodeid}));
    if (s.subject) row("Subject", s.subject.role + " " + s.subject.target);
    row("Verdict", LABELS[s.verdict] + (s.baselined ? " (baselined: expected, does not fail the run)"
      : failsRun(s.verdict) ? " (fails the run)" : "") + " \u00b7 " + Number(s.durationSeconds).toFixed(3) + " s");
    if (s.reason && s.reason !== cardReason) row("Reason", h("pre", {class: "reason", text: s.reason}));
    if (s.review) {
      row("Reviewed", s.review.decision + " by " + s.review.who + " on " + s.review.date
        + (s.review.note ? ": " + s.review.note : ""));
    }
    block.appendChild(dl);
    if (evidence.length) {
      block.appendChild(h("div", {class: "muted", text: "Evidence"}));
      block.appendChild(h("ul", {class: "evidence"}, evidence.map(function (e) {
        return h("li", {}, [h("pre", {text: e})]); })));
    }
    if (s.gherkin && s.gherkin.steps) block.appendChild(gherkinSteps(s.gherkin));
    block.appendChild(wire.length ? h("details", {class: "wire-log", "data-events": String(wire.length)}, [
      h("summary", {text: "Wire log (" + plural(wire.length, "event") + ")"}), wireTable(wire)])
      : h("p", {class: "empty", text: "No wire events recorded."}));
    return block;
  }

  // ---- needs attention -----------------------------------------------------------------------------------
  var attention = h("section", {id: "attention"}, [h("h2", {text: "Needs attention (" + view.attention.length + ")"})]);
  if (!view.attention.length) {
    attention.appendChild(h("p", {class: "empty", text: "Nothing: every requirement passed or is not applicable."}));
  }
  var GROUP_NOTES = {"fails": "these make the run non-conformant",
    "baselined": "known failures listed in the expected-failures baseline",
    "review": "only a reader can judge these; they neither pass nor fail the run until --reviews settles them",
    "warn": "should requirements not met; they fail the run only with --strict"};
  function card(item) {
    var r = reqById[item.id];
    var head = h("header", {class: "card-head"}, [
      h("span", {class: "badge", text: LABELS[r.verdict]}), " ", h("code", {class: "id", text: r.id}),
      h("span", {class: "tag", text: r.level}),
      item.group === "fails" ? h("span", {class: "tag fails", text: "fails the run"}) : null,
      r.baselined ? h("span", {class: "tag", text: "baselined"}) : null,
      h("span", {class: "summary", text: r.summary}),
    ]);
    var body = h("div", {class: "card-body"});
    var dl = h("dl", {class: "meta"});
    var judged = (r.subjects || []).map(function (s) { return s.role + " " + s.target + ": " + LABELS[s.verdict]; });
    dl.appendChild(h("dt", {text: "Subjects"}));
    dl.appendChild(h("dd", {text: judged.length ? judged.join("; ") : "none judged (so never a pass)"}));
    dl.appendChild(h("dt", {text: "Reason"}));
    dl.appendChild(h("dd", {}, [item.reason ? h("pre", {class: "reason", text: item.reason})
      : h("span", {class: "empty", text: "none recorded"})]));
    if (item.also) {
      dl.appendChild(h("dt", {text: "Also"}));
      dl.appendChild(h("dd", {class: "also", text: item.also}));
    }
    body.appendChild(dl);
    body.appendChild(h("figure", {class: "clause"}, [
      h("blockquote", {class: "quote", text: r.quote}),
      h("figcaption", {text: "\u2014 " + (r.spec + " " + r.section).trim() + " (" + r.level + ")"}),
    ]));
    item.scenarios.forEach(function (i) { body.appendChild(scenarioBlock(i, item.reason)); });
    if (!item.scenarios.length) {
      body.appendChild(h("p", {class: "empty", text: "No scenario of this requirement ran."}));
    }
    if (item.passed) {
      body.appendChild(h("p", {class: "muted",
        text: plural(item.passed, "other scenario") + " of this requirement passed."}));
    }
    body.appendChild(h("div", {class: "reproduce"}, [
      h("h4", {text: "How to reproduce"}),
      item.reproduce != null ? h("pre", {class: "reproduce-command"}, [h("code", {text: item.reproduce})])
        : h("p", {class: "reproduce-command empty", text: "The run's command is not recorded in this report "
          + "(report.json before 1.2): rerun it with the same options and --req " + r.id + "."}),
    ]));
    return h("article", {class: "card v-" + r.verdict, id: "req-" + r.id, "data-req-id": r.id,
      "data-verdict": r.verdict, "data-group": item.group}, [head, body]);
  }
  var lastGroup = null;
  var titles = {};
  view.attentionGroups.forEach(function (g) { titles[g.group] = g.title; });
  function counted(group) { return view.attention.filter(function (i) { return i.group === group; }).length; }
  function staleList() {
    if (!data.staleBaseline.length) return;
    attention.appendChild(h("h3", {class: "group-title", id: "stale"}, [
      "Stale baseline entries (" + data.staleBaseline.length + ")",
      h("span", {class: "note", text: "they pass now; each fails the run until it is removed from the baseline"})]));
    attention.appendChild(h("ul", {class: "stale"}, data.staleBaseline.map(function (e) {
      var r = reqById[e];
      return h("li", {}, [h("code", {text: e}),
        r ? " (" + r.level + ", now " + LABELS[r.verdict] + "): " + r.summary : ""]);
    })));
  }
  var staleShown = false;
  view.attention.forEach(function (item) {
    if (item.group !== lastGroup) {
      if (lastGroup === "fails") { staleList(); staleShown = true; }
      lastGroup = item.group;
      attention.appendChild(h("h3", {class: "group-title", "data-group": item.group}, [
        titles[item.group] + " (" + counted(item.group) + ")",
        h("span", {class: "note", text: GROUP_NOTES[item.group]})]));
    }
    attention.appendChild(card(item));
  });
  if (!staleShown) staleList();

  // ---- not applicable ------------------------------------------------------------------------------------
  var na = h("section", {id: "not-applicable"}, [
    h("h2", {text: "Not applicable (" + view.notApplicable.length + ")"})]);
  if (!view.notApplicable.length) {
    na.appendChild(h("p", {class: "empty", text: "None: every requirement applied to the subjects."}));
  } else {
    na.appendChild(h("p", {class: "muted", text: "The subject declared the capability these depend on absent; "
      + "they neither pass nor fail the run."}));
    na.appendChild(h("table", {class: "na"}, [
      h("thead", {}, [h("tr", {}, ["requirement", "level", "spec section", "summary", "reason"].map(function (c) {
        return h("th", {text: c}); }))]),
      h("tbody", {}, view.notApplicable.map(function (item) {
        var r = reqById[item.id];
        return h("tr", {class: "na-row", "data-req-id": r.id}, [
          h("td", {class: "rid"}, [h("code", {text: r.id})]), h("td", {text: r.level}),
          h("td", {text: (r.spec + " " + r.section).trim()}), h("td", {text: r.summary}),
          h("td", {class: "na-reason", text: item.reason || "no reason recorded"}),
        ]);
      })),
    ]));
  }

  // ---- falsifiability (only when report.json carries it) -------------------------------------------------
  function valueNode(v) {
    if (v == null) return h("span", {class: "empty", text: "\u2013"});
    if (Array.isArray(v)) return h("ul", {}, v.map(function (x) { return h("li", {}, [valueNode(x)]); }));
    if (typeof v === "object") {
      var dl = h("dl", {class: "meta"});
      Object.keys(v).forEach(function (k) {
        dl.appendChild(h("dt", {text: k}));
        dl.appendChild(h("dd", {}, [valueNode(v[k])]));
      });
      return dl;
    }
    return h("span", {text: String(v)});
  }
  function falsifiabilityTable(f) {
    // The figure of simulator/verdicts/falsifiability.py: rows per family and level, with the ids not proven yet.
    var pct = function (n, t) { return t ? Math.round(100 * n / t) + "%" : "\u2013"; };
    return h("div", {}, [
      h("p", {text: f.proven + " of " + f.total + " requirements of this run (" + pct(f.proven, f.total) + ") have a "
        + "committed case that proves they can fail (" + f.source + ")."}),
      h("table", {class: "falsifiability-table"}, [
        h("thead", {}, [h("tr", {}, ["family", "level", "proven", "total", "share", "not proven yet"].map(
          function (t) { return h("th", {text: t}); }))]),
        h("tbody", {}, f.rows.map(function (r) {
          return h("tr", {"data-family": r.family, "data-level": r.level}, [
            h("td", {text: r.family}), h("td", {text: r.level}), h("td", {class: "num", text: String(r.proven)}),
            h("td", {class: "num", text: String(r.total)}), h("td", {class: "num", text: pct(r.proven, r.total)}),
            h("td", {}, [r.unproven.length ? h("details", {}, [
              h("summary", {text: r.unproven.length + " requirement" + (r.unproven.length === 1 ? "" : "s")}),
              h("code", {text: r.unproven.join(" ")})]) : h("span", {text: "\u2013"})]),
          ]);
        })),
      ]),
    ]);
  }
  var falsifiability = null;
  if (data.falsifiability != null && typeof data.falsifiability === "object") {
    var fig = data.falsifiability;
    falsifiability = h("section", {id: "falsifiability", class: "falsifiability"}, [h("h2", {text: "Falsifiability"}),
      Array.isArray(fig.rows) ? falsifiabilityTable(fig) : valueNode(fig)]);
  }

  // ---- limits (only when report.json carries measurements: the robustness profile) --------------------
  var limits = null;
  if (Array.isArray(data.limits) && data.limits.length) {
    limits = h("section", {id: "limits", class: "limits"}, [h("h2", {text: "Limits"}),
      h("p", {text: "What the robustness profile measured of each subject (measurements, not verdicts)."}),
      h("table", {class: "limits-table"}, [
        h("thead", {}, [h("tr", {}, ["subject", "measured", "value", "how", "requirement"].map(
          function (t) { return h("th", {text: t}); }))]),
        h("tbody", {}, data.limits.map(function (r) {
          return h("tr", {"data-role": r.role}, [
            h("td", {text: r.role ? r.role + " (" + r.target + ")" : "\u2013"}), h("td", {text: r.name}),
            h("td", {class: "num", text: Number(r.value).toLocaleString("en-US") + " " + r.unit}),
            h("td", {text: r.note || "\u2013"}), h("td", {text: r.requirement || "\u2013"})]);
        })),
      ]),
    ]);
  }

  // ---- the full requirement x verdict matrix -------------------------------------------------------------
  var all = h("section", {id: "all-requirements"}, [
    h("h2", {text: "All requirements (" + data.requirements.length + ")"})]);
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
  all.appendChild(tiles);

  var verdictBoxes = {}, levelBoxes = {};
  var search = h("input", {type: "search", id: "search", placeholder: "Search id or summary",
    "aria-label": "Search requirement id or summary", oninput: function () { state.query = search.value; apply(); }});
  var status = h("span", {class: "status", id: "filter-status"});
  all.appendChild(h("div", {class: "filters", id: "filters"}, [
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
  ]));

  var stale = {};
  data.staleBaseline.forEach(function (e) { stale[e] = true; });
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
      idCell.appendChild(cardIds[r.id] ? h("a", {href: "#req-" + r.id}, [h("code", {text: r.id})])
        : h("code", {text: r.id}));
      if (r.baselined) idCell.appendChild(h("span", {class: "tag", text: "baselined"}));
      if (stale[r.id]) idCell.appendChild(h("span", {class: "tag", text: "stale baseline"}));
      var judged = (r.subjects || []).map(function (s) { return s.role + " " + s.target + ": " + s.verdict; });
      var row = h("tr", {class: "req-row v-" + r.verdict, "data-req-id": r.id, "data-verdict": r.verdict,
        "data-level": r.level}, [idCell, h("td", {text: r.level}), h("td", {class: "summary", title: visible(r.quote)},
          [r.summary, h("div", {class: "subjects", text: judged.length ? "judged: " + judged.join("; ")
            : "judged no subject"}), view.also[r.id] ? h("div", {class: "also", text: view.also[r.id]}) : null])]);
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
  all.appendChild(h("table", {class: "matrix", id: "matrix"}, [h("thead", {}, [headRow]), tbody]));
  var emptyNote = h("p", {class: "empty hidden", text: "No requirement matches the filters."});
  all.appendChild(emptyNote);

  // ---- scenarios not passing outside the requirements listed ---------------------------------------------
  var others = null;
  if (view.otherScenarios.length) {
    others = h("section", {id: "other-scenarios"}, [
      h("h2", {text: "Other scenarios not passing (" + view.otherScenarios.length + ")"}),
      h("p", {class: "muted", text: "These scenarios name no requirement of this report."})]);
    view.otherScenarios.forEach(function (i) { others.appendChild(scenarioBlock(i, null)); });
  }

  [bySpec, attention, na, falsifiability, limits, all, others].forEach(function (s) { if (s) app.appendChild(s); });
  app.appendChild(h("footer", {text: "Rendered in the browser from the report.json embedded in this file (schema "
    + data.schemaVersion + "; of its scenarios, those shown here); no network access."}));

  // ---- filtering -----------------------------------------------------------------------------------------
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
  // A link to #scenario-N or #req-ID shows it (opening the wire log of a scenario asked for by name).
  function openFromHash() {
    var target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
    if (!target) return;
    if (target.tagName === "DETAILS") target.open = true;
    target.scrollIntoView();
  }
  window.addEventListener("hashchange", openFromHash);
  openFromHash();
  document.documentElement.setAttribute("data-rendered", "true");
})();
"""
