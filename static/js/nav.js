// The top bar's menu button (narrow screens): it shows and hides the links it controls.
// The stylesheet keys on aria-expanded, so this only flips that attribute. Escape closes the
// menu (focus returns to the button), and so does a click outside the top bar.
(function () {
  const toggle = document.querySelector("[data-nav-toggle]");
  if (!toggle) return;
  const bar = toggle.closest("header") || document.body;
  const setOpen = (open) => toggle.setAttribute("aria-expanded", open ? "true" : "false");
  const isOpen = () => toggle.getAttribute("aria-expanded") === "true";
  toggle.addEventListener("click", () => setOpen(!isOpen()));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && isOpen()) {
      setOpen(false);
      toggle.focus();
    }
  });
  document.addEventListener("click", (event) => {
    if (isOpen() && !bar.contains(event.target)) setOpen(false);
  });
})();
