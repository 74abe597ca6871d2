// The new-experiment page: only the chosen target kind's fields are shown, and the external
// target's `assay run` command names the evalset and evaluators chosen on the page.
(function () {
  "use strict";
  function show() {
    const checked = document.querySelector('input[name="target_kind"]:checked');
    const kind = checked ? checked.value : "none";
    document.querySelectorAll("[data-target-panel]").forEach(function (panel) {
      panel.hidden = panel.dataset.targetPanel !== kind;
    });
  }
  // One POSIX shell word: single quotes, a quote inside closed and reopened.
  function quote(text) {
    return "'" + String(text).replace(/'/g, "'\\''") + "'";
  }
  function command() {
    const code = document.querySelector("[data-external-command]");
    const data = document.getElementById("external-refs");
    if (!code || !data) return;
    const refs = JSON.parse(data.textContent);
    const evalset = document.querySelector('[name="evalset_version"]');
    const words = ["assay run", "--task " + refs.task];
    const set = evalset && refs.evalsets[evalset.value];
    if (set) words.push("--evalset " + quote(set));
    const chosen = document.querySelectorAll('input[name="evaluator_versions"]:checked');
    chosen.forEach(function (box) {
      if (refs.evaluators[box.value]) words.push("--evaluator " + quote(refs.evaluators[box.value]));
    });
    if (!chosen.length) words.push("--evaluator " + quote("<" + code.dataset.none + ">"));
    code.textContent = words.join(" \\\n  ");
  }
  function refresh() {
    show();
    command();
  }
  document.addEventListener("change", function (event) {
    if (event.target && event.target.name === "target_kind") show();
    if (event.target && /^(evalset_version|evaluator_versions)$/.test(event.target.name)) command();
  });
  document.addEventListener("DOMContentLoaded", refresh);
  document.addEventListener("htmx:afterSwap", refresh);
})();
