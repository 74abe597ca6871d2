// The score config form: show only the parts the chosen kind uses (the server ignores the
// others anyway); without this script every part shows, each named by its kind.
(function () {
  "use strict";
  function showParts() {
    const kind = document.querySelector("[data-config-kind]");
    if (!kind) return;
    document.querySelectorAll(".config-kind-part[data-kinds]").forEach(function (part) {
      part.hidden = part.dataset.kinds.split(" ").indexOf(kind.value) === -1;
    });
  }
  document.addEventListener("change", function (event) {
    if (event.target && event.target.matches("[data-config-kind]")) showParts();
  });
  document.addEventListener("DOMContentLoaded", showParts);
})();
