// The new-experiment page: only the chosen target kind's fields are shown.
(function () {
  "use strict";
  function show() {
    const checked = document.querySelector('input[name="target_kind"]:checked');
    const kind = checked ? checked.value : "none";
    document.querySelectorAll("[data-target-panel]").forEach(function (panel) {
      panel.hidden = panel.dataset.targetPanel !== kind;
    });
  }
  document.addEventListener("change", function (event) {
    if (event.target && event.target.name === "target_kind") show();
  });
  document.addEventListener("DOMContentLoaded", show);
  document.addEventListener("htmx:afterSwap", show);
})();
