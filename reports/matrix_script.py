r"""The implementation matrix page's script (reports/matrix_html.py): the filters over the table that the page
already holds, generated in Python; with scripts off the page shows every row and no filter.

It unhides the filter form (``form#filters``: a checkbox per spec, level and verdict, "only where they differ", a
reset button, a status line) and, on every change, hides each ``tr.req-row`` whose spec or level is unchecked, or
none of whose judged verdicts (``data-verdicts``) is checked, or that does not differ when only differing rows are
asked for; it dims the cells whose verdict is unchecked, hides the family and spec heading rows left without a
shown row, and says how many rows it shows. When done it sets ``data-rendered="true"`` on ``<html>`` (what a test
waits for). The script holds no ``</`` and no ``<!--``, so it cannot end its element early.
"""

from __future__ import annotations

__all__ = ["MATRIX_JS"]

MATRIX_JS = r"""
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var rows = Array.prototype.slice.call(document.querySelectorAll("tr.req-row"));
  var heads = Array.prototype.slice.call(document.querySelectorAll("tr.family-row, tr.spec-row"));
  var status = document.getElementById("filter-status");
  var empty = document.getElementById("empty-note");
  function checked(name) {
    var on = {};
    form.querySelectorAll("input[name='" + name + "']").forEach(function (box) { on[box.value] = box.checked; });
    return on;
  }
  function apply() {
    var specs = checked("spec"), levels = checked("level"), verdicts = checked("verdict");
    var differOnly = document.getElementById("only-differing").checked;
    var shown = 0, shownBy = {};
    rows.forEach(function (row) {
      var judged = row.getAttribute("data-verdicts").split(" ").filter(Boolean);
      var ok = specs[row.getAttribute("data-spec")] !== false && levels[row.getAttribute("data-level")] !== false
        && judged.some(function (v) { return verdicts[v]; })
        && (!differOnly || row.getAttribute("data-differs") === "true");
      row.hidden = !ok;
      row.querySelectorAll("td.cell").forEach(function (cell) {
        var v = cell.getAttribute("data-verdict");
        cell.classList.toggle("dim", v !== "not-judged" && !verdicts[v]);
      });
      if (ok) {
        shown++;
        shownBy["spec:" + row.getAttribute("data-spec")] = true;
        shownBy["family:" + row.getAttribute("data-spec") + ":" + row.getAttribute("data-family")] = true;
      }
    });
    heads.forEach(function (head) {
      var key = head.classList.contains("spec-row") ? "spec:" + head.getAttribute("data-spec")
        : "family:" + head.getAttribute("data-spec") + ":" + head.getAttribute("data-family");
      head.hidden = !shownBy[key];
    });
    empty.hidden = shown > 0;
    status.textContent = "showing " + shown + " of " + rows.length + " requirements";
  }
  form.addEventListener("change", apply);
  form.addEventListener("reset", function () { setTimeout(apply, 0); });
  form.hidden = false;
  apply();
  document.documentElement.setAttribute("data-rendered", "true");
})();
"""
