// The review page's keys (static/js/score-keys.js), and s: the skip box with its reason.
(() => {
  const form = document.getElementById("review-form");
  if (!form) return;
  const skipBox = document.getElementById("skip-box");
  window.scoreFormKeys(form, {
    keys: {
      s: () => {
        skipBox.open = true;
        document.getElementById("skip-reason").focus();
      },
    },
    ignore: (target) => skipBox.contains(target) && target.tagName !== "SUMMARY",
  });
})();
