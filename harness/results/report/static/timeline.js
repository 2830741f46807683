// The timeline's lane toggles, problems-only filter and arrow keys. Inline on the page, no modules, no fetch:
// the rows are already there, so hiding is one class on the section per lane and the shown count is summed
// from the per-lane counts, never from the rows (a toggle costs the same at 10,000 events as at 10). Whether a
// row is shown is read from the classes, never from its layout: the blocks off screen are not laid out.
(function () {
  "use strict";
  var section = document.getElementById("timeline");
  if (!section) { return; }
  var form = section.querySelector(".tl-controls");
  var counts = JSON.parse(document.getElementById("tl-counts").textContent);
  var shown = document.getElementById("tl-shown");
  var blocks = section.querySelectorAll("ol.tl-block");
  var blockCounts = null;  // per block, its rows by lane and its problems by lane: made at the first toggle
  form.hidden = false;
  function countBlocks() {
    blockCounts = [];
    blocks.forEach(function (block) {
      var rows = {}, problems = {};
      for (var row = block.firstElementChild; row; row = row.nextElementSibling) {
        var lane = row.getAttribute("data-lane");
        rows[lane] = (rows[lane] || 0) + 1;
        if (row.classList.contains("problem")) { problems[lane] = (problems[lane] || 0) + 1; }
      }
      blockCounts.push({ rows: rows, problems: problems });
    });
  }
  // Counted while the reviewer reads, so the first toggle does not pay for it.
  (window.requestIdleCallback || function (work) { return setTimeout(work, 200); })(function () {
    if (!blockCounts) { countBlocks(); }
  });
  function isShown(row) {
    return !section.classList.contains("hide-" + row.getAttribute("data-lane")) &&
      (!section.classList.contains("problems-only") || row.classList.contains("problem"));
  }
  function update() {
    var problemsOnly = form.elements.problems.checked;
    var on = {};
    var total = 0;
    section.classList.toggle("problems-only", problemsOnly);
    counts.forEach(function (lane) {
      on[lane.lane] = form.elements["lane-" + lane.lane].checked;
      section.classList.toggle("hide-" + lane.lane, !on[lane.lane]);
      if (on[lane.lane]) { total += problemsOnly ? lane.problems : lane.events; }
    });
    shown.textContent = String(total);
    // A block off screen keeps the height it is assumed to have: make it the rows it now shows, so the page's
    // length (and where a link lands) follows the filter before the block is ever laid out.
    if (!blockCounts) { countBlocks(); }
    blocks.forEach(function (block, index) {
      var by = problemsOnly ? blockCounts[index].problems : blockCounts[index].rows;
      var rows = 0;
      for (var lane in by) { if (on[lane]) { rows += by[lane]; } }
      block.style.containIntrinsicSize = (rows * 24) + "px";
    });
  }
  form.addEventListener("change", update);
  function reveal() {
    var target = location.hash && document.getElementById(location.hash.slice(1));
    if (target && target.classList.contains("ev") && !isShown(target)) {
      form.reset();
      update();
      target.scrollIntoView();
    }
  }
  window.addEventListener("hashchange", reveal);
  reveal();
  function neighbour(row, step) {
    var next = step > 0 ? row.nextElementSibling : row.previousElementSibling;
    if (next) { return next; }
    var block = step > 0 ? row.parentElement.nextElementSibling : row.parentElement.previousElementSibling;
    if (!block || !block.classList.contains("tl-block")) { return null; }
    return step > 0 ? block.firstElementChild : block.lastElementChild;
  }
  section.querySelector(".tl-rows").addEventListener("keydown", function (event) {
    var step = { ArrowDown: 1, ArrowUp: -1, j: 1, k: -1 }[event.key];
    var row = event.target.closest && event.target.closest("li.ev");
    if (!step || !row) { return; }
    var next = neighbour(row, step);
    while (next && !isShown(next)) { next = neighbour(next, step); }
    if (next) { event.preventDefault(); next.firstElementChild.focus(); }
  });
}());
