// The adjudication page's keys (static/js/score-keys.js), and n: the next waiting item.
(() => {
  const form = document.getElementById("adjudicate-form");
  if (!form) return;
  const next = document.getElementById("adjudicate-next");
  window.scoreFormKeys(form, { keys: next ? { n: () => next.click() } : {} });
})();
