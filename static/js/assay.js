// Small page helpers. No framework: htmx does the partial updates.
window.Assay = {
  // The shared words (verdicts, content types…), rendered by base.html from assay.vocabulary.
  get vocabulary() {
    const block = document.getElementById("assay-vocabulary");
    return block ? JSON.parse(block.textContent) : {};
  },
  // Build an element: attrs "text" sets textContent, "on<event>" adds a listener, the rest are
  // attributes. Text always goes in as text, never as HTML.
  el(tag, attrs = {}, children = []) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (k === "text") node.textContent = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    children.forEach((c) => node.appendChild(c));
    return node;
  },
};
// Our 4xx partials say what is wrong (a form with its errors): show them like any answer.
if (window.htmx) {
  window.htmx.config.responseHandling = [
    { code: "204", swap: false },
    { code: "[23]..", swap: true },
    { code: "4..", swap: true, error: true },
    { code: "...", swap: false, error: true },
  ];
}
document.addEventListener("keydown", (event) => {
  // Ctrl/Cmd+Enter clicks the element marked as the page's primary run action.
  if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
    const target = document.querySelector("[data-run-shortcut]");
    if (target) { event.preventDefault(); target.click(); }
  }
});
document.addEventListener("click", (event) => {
  const opener = event.target.closest("[data-open-dialog]");
  if (opener) { document.getElementById(opener.dataset.openDialog)?.showModal(); }
  const closer = event.target.closest("[data-close-dialog]");
  if (closer) { closer.closest("dialog")?.close(); }
});
// Page glue behind data attributes (the CSP allows no inline handlers):
// data-autosubmit submits its form on change; data-confirm asks before a form is sent;
// data-close-drawer removes the drawer it sits in.
document.addEventListener("change", (event) => {
  if (event.target.matches("[data-autosubmit]")) event.target.form?.requestSubmit();
});
document.addEventListener("submit", (event) => {
  const message = event.target.dataset?.confirm;
  if (message && !window.confirm(message)) event.preventDefault();
});
document.addEventListener("click", (event) => {
  const closer = event.target.closest("[data-close-drawer]");
  if (closer) closer.closest(".drawer")?.remove();
});
// data-row-opens on a table row: a click anywhere on it (not on its own links, buttons or
// fields, nor the end of a text selection) or Enter on the focused row clicks the element the
// attribute names inside it: the results grid's whole row opens the row's drawer.
const ROW_OWN_CONTROLS = "a, button, input, select, textarea, summary, label, details";
document.addEventListener("click", (event) => {
  const row = event.target.closest("tr[data-row-opens]");
  if (!row || event.target.closest(ROW_OWN_CONTROLS)) return;
  if (String(window.getSelection ? window.getSelection() : "")) return;
  row.querySelector(row.dataset.rowOpens)?.click();
});
document.addEventListener("keydown", (event) => {
  const row = event.target;
  if (event.key !== "Enter" || !row.matches?.("tr[data-row-opens]")) return;
  event.preventDefault();
  row.querySelector(row.dataset.rowOpens)?.click();
});
