// Evalset pages: reopen a dialog the server marked (a commit that failed validation).
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("dialog[data-open-on-load]").forEach((d) => d.showModal());
});
