// The new-experiment page: only the chosen target kind's fields are shown, the external
// target's `assay run` command names the evalset and evaluators chosen on the page, and the
// simulated user's column pickers and app under test follow the choices.
(function () {
  "use strict";
  // Only the chosen kind's panel is shown: the radios named `name` choose among the elements
  // whose attribute `attr` names a kind (`fallback` while none is checked).
  function showChosen(name, attr, fallback) {
    const checked = document.querySelector('input[name="' + name + '"]:checked');
    const kind = checked ? checked.value : fallback;
    document.querySelectorAll("[" + attr + "]").forEach(function (panel) {
      panel.hidden = panel.getAttribute(attr) !== kind;
    });
  }
  function show() {
    showChosen("target_kind", "data-target-panel", "none");
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
  // The simulated user's app under test: only the chosen kind's fields (HTTP or prompt).
  function appPanels() {
    showChosen("su_app_kind", "data-app-panel", "http");
  }
  // The scenario's column pickers offer the chosen version's Text columns; with `pick` (the
  // page opened, or another set chosen) an unset picker takes the column named like it
  // (persona, goal, opening), never later: "none" stays a choice.
  function columnPickers(pick) {
    const data = document.getElementById("su-columns");
    const evalset = document.querySelector('[name="evalset_version"]');
    if (!data || !evalset) return;
    const columns = JSON.parse(data.textContent)[evalset.value] || [];
    document.querySelectorAll("select[data-column-picker]").forEach(function (select) {
      Array.prototype.forEach.call(select.options, function (option) {
        const offered = !option.value || columns.indexOf(option.value) >= 0;
        option.hidden = !offered;
        option.disabled = !offered;
      });
      const current = select.options[select.selectedIndex];
      if (current && current.value && current.disabled) select.value = "";
      if (pick && !select.value && columns.indexOf(select.dataset.columnPicker) >= 0) {
        select.value = select.dataset.columnPicker;
      }
    });
  }
  function refresh() {
    show();
    command();
    appPanels();
    columnPickers(false);
  }
  document.addEventListener("change", function (event) {
    if (event.target && event.target.name === "target_kind") show();
    if (event.target && /^(evalset_version|evaluator_versions)$/.test(event.target.name)) command();
    if (event.target && event.target.name === "su_app_kind") appPanels();
    if (event.target && event.target.name === "evalset_version") columnPickers(true);
  });
  document.addEventListener("DOMContentLoaded", function () {
    refresh();
    columnPickers(true);
  });
  document.addEventListener("htmx:afterSwap", refresh);
})();
