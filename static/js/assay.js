// Small page helpers. No framework: htmx does the partial updates.
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
