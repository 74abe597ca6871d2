// Copy buttons: <button data-copy="#selector" data-copied="Copied"> copies that element's text
// (the clipboard API where the page may use it, else the text is selected for Ctrl+C).
(function () {
  "use strict";
  if (window.assayCopy) return; // included by more than one panel
  window.assayCopy = true;
  function select(node) {
    const range = document.createRange();
    range.selectNodeContents(node);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  function done(button) {
    const label = button.dataset.label || button.textContent;
    button.dataset.label = label;
    button.textContent = button.dataset.copied || label;
    button.classList.add("copied");
    setTimeout(function () {
      button.textContent = label;
      button.classList.remove("copied");
    }, 2000);
  }
  document.addEventListener("click", function (event) {
    const button = event.target.closest ? event.target.closest("[data-copy]") : null;
    if (!button) return;
    const node = document.querySelector(button.dataset.copy);
    if (!node) return;
    select(node);
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(node.textContent).then(function () { done(button); },
        function () { done(button); });
    } else {
      try { document.execCommand("copy"); } catch (e) { /* the text stays selected */ }
      done(button);
    }
  });
})();
