// Client-side filters for the index; the page is complete without this script.
(function () {
  "use strict";
  // Each filter matches a row's latest attempt: its own fields, its verdict, a check it failed.
  var dims = ["suite", "profile", "environment", "product", "case", "mode"];
  var form = document.getElementById("filters");
  if (!form) { return; }
  function wanted() {
    var w = {};
    dims.concat(["verdict", "check"]).forEach(function (d) { w[d] = form.elements[d].value; });
    return w;
  }
  function apply() {
    var w = wanted();
    document.querySelectorAll("tr.cell-row").forEach(function (row) {
      var show = dims.every(function (d) { return !w[d] || row.dataset[d] === w[d]; });
      if (w.verdict && row.dataset.latest !== w.verdict) { show = false; }
      if (w.check && row.dataset.check.split(" ").indexOf(w.check) < 0) { show = false; }
      row.classList.toggle("hidden", !show);
      row.querySelectorAll(".chip").forEach(function (chip) {
        chip.classList.toggle("dim", !!w.verdict && chip.dataset.verdict !== w.verdict);
      });
    });
    recount();
  }
  function recount() {
    document.querySelectorAll("[data-count]").forEach(function (cell) { cell.textContent = "0"; });
    document.querySelectorAll("#matrix tr.cell-row:not(.hidden)").forEach(function (row) {
      bump(row.dataset.mode, "latest", row.dataset.latest);
      row.querySelectorAll(".chip").forEach(function (chip) { bump(row.dataset.mode, "all", chip.dataset.verdict); });
    });
  }
  function bump(mode, kind, verdict) {
    var cell = document.querySelector('[data-count="' + mode + "/" + kind + "/" + verdict + '"]');
    if (cell) { cell.textContent = String(Number(cell.textContent) + 1); }
  }
  form.addEventListener("change", apply);
  form.addEventListener("reset", function () { setTimeout(apply, 0); });
})();
