// Import map step: a field's new-column name and type show only while "New column" is chosen
// (they are still sent; the server reads them only for new columns).
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("[data-mapping-row]").forEach((row) => {
    const target = row.querySelector("select[name^='map_']");
    const box = row.querySelector("[data-new-column]");
    if (!target || !box) return;
    const sync = () => {
      box.hidden = target.value !== "__new__";
    };
    target.addEventListener("change", sync);
    sync();
  });
});
