// The timeline's lane toggles, problems-only filter and arrow keys. Inline on the page, no modules, no fetch:
// the rows are already there, so hiding is one class on the section per lane and the shown count is summed
// from the per-lane counts, never from the rows (a toggle costs the same at 10,000 events as at 10).
(function () {
  "use strict";
  var section = document.getElementById("timeline");
  if (!section) { return; }
  var form = section.querySelector(".tl-controls");
  var counts = JSON.parse(document.getElementById("tl-counts").textContent);
  var shown = document.getElementById("tl-shown");
  form.hidden = false;
  function update() {
    var problemsOnly = form.elements.problems.checked;
    var total = 0;
    section.classList.toggle("problems-only", problemsOnly);
    counts.forEach(function (lane) {
      var on = form.elements["lane-" + lane.lane].checked;
      section.classList.toggle("hide-" + lane.lane, !on);
      if (on) { total += problemsOnly ? lane.problems : lane.events; }
    });
    shown.textContent = String(total);
  }
  form.addEventListener("change", update);
  function reveal() {
    var target = location.hash && document.getElementById(location.hash.slice(1));
    if (target && target.classList.contains("ev") && target.offsetParent === null) {
      form.reset();
      update();
      target.scrollIntoView();
    }
  }
  window.addEventListener("hashchange", reveal);
  reveal();
  var body = section.querySelector("ol.tl-rows");
  body.addEventListener("keydown", function (event) {
    var step = { ArrowDown: 1, ArrowUp: -1, j: 1, k: -1 }[event.key];
    var row = event.target.closest && event.target.closest("li.ev");
    if (!step || !row) { return; }
    var next = step > 0 ? row.nextElementSibling : row.previousElementSibling;
    while (next && next.offsetParent === null) { next = step > 0 ? next.nextElementSibling : next.previousElementSibling; }
    if (next) { event.preventDefault(); next.querySelector("a.tl-n").focus(); }
  });
}());
