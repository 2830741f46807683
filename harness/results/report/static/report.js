// Client-side filters for the index; the page is complete without this script.
(function () {
  "use strict";
  var dims = ["suite", "profile", "environment", "case", "mode"];
  var form = document.getElementById("filters");
  if (!form) { return; }
  function wanted() {
    var w = {};
    dims.concat(["verdict"]).forEach(function (d) { w[d] = form.elements[d].value; });
    return w;
  }
  function apply() {
    var w = wanted();
    document.querySelectorAll("tr.cell-row").forEach(function (row) {
      var show = dims.every(function (d) { return !w[d] || row.dataset[d] === w[d]; });
      var verdicts = row.dataset.verdicts.split(" ");
      if (w.verdict && verdicts.indexOf(w.verdict) < 0) { show = false; }
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
