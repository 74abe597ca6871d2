// The new-pairwise-run page: the baseline (A) is never offered in list B, and the mapping
// shows only the variables of the chosen judge.
(function () {
  "use strict";
  function hideBaseline() {
    const baseline = document.querySelector("[data-pairwise-baseline]");
    if (!baseline) return;
    document.querySelectorAll("[data-other]").forEach(function (label) {
      const isBaseline = label.dataset.other === baseline.value;
      const box = label.querySelector("input");
      label.hidden = isBaseline;
      box.disabled = isBaseline;
      if (isBaseline) box.checked = false;
    });
  }
  function showJudgeRows() {
    const judge = document.querySelector("[data-pairwise-judge]");
    if (!judge) return;
    document.querySelectorAll("#pairwise-mapping tr[data-judges]").forEach(function (row) {
      const mine = row.dataset.judges.split(" ").indexOf(judge.value) !== -1;
      row.hidden = !mine;
      row.querySelector("select").disabled = !mine;
    });
  }
  document.addEventListener("change", function (event) {
    if (!event.target) return;
    if (event.target.matches("[data-pairwise-baseline]")) hideBaseline();
    if (event.target.matches("[data-pairwise-judge]")) showJudgeRows();
  });
  document.addEventListener("DOMContentLoaded", function () {
    hideBaseline();
    showJudgeRows();
  });
})();
