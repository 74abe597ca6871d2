// The keys of a score form (the review and adjudication pages), on top of a form that works
// without them: 1-9 pick a label of the highlighted config (then move to the next one), j / k
// move between configs, Enter submits (Ctrl/Cmd+Enter inside a text). A page adds its own
// keys (`keys`: key -> action) and says where keys belong to its other controls (`ignore`).
window.scoreFormKeys = (form, { keys = {}, ignore = () => false } = {}) => {
  const fields = Array.from(form.querySelectorAll("[data-score-field]"));
  let current = 0;

  function typing(target) {
    return target.matches?.("textarea, input[type=text], input[type=number], input:not([type])");
  }

  function focusField(index) {
    if (!fields.length) return;
    current = Math.max(0, Math.min(fields.length - 1, index));
    fields.forEach((field, i) => field.classList.toggle("focused", i === current));
    const field = fields[current];
    const input = field.querySelector("input[type=number], textarea");
    (input || field).focus({ preventScroll: false });
    field.scrollIntoView({ block: "nearest" });
  }

  function choose(digit) {
    const radios = fields[current]?.querySelectorAll("input[type=radio]") || [];
    const radio = radios[digit - 1];
    if (!radio) return;
    radio.checked = true;
    if (current < fields.length - 1) focusField(current + 1);
  }

  fields.forEach((field, i) => field.addEventListener("focusin", () => {
    current = i;
    fields.forEach((f, j) => f.classList.toggle("focused", j === i));
  }));

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.isComposing) return;
    const target = event.target;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && form.contains(target)) {
      event.preventDefault();
      form.requestSubmit();
      return;
    }
    if (event.ctrlKey || event.metaKey) return;
    if (target.type === "number" && (event.key === "j" || event.key === "k")) {
      event.preventDefault(); // not a number's key: move between configs from here too
      focusField(current + (event.key === "j" ? 1 : -1));
      return;
    }
    if (typing(target)) {
      if (event.key === "Escape") { target.blur(); fields[current]?.focus(); }
      if (event.key === "Enter" && target.type === "number") { event.preventDefault(); form.requestSubmit(); }
      return;
    }
    if (ignore(target)) return;
    if (/^[1-9]$/.test(event.key)) { event.preventDefault(); choose(Number(event.key)); }
    else if (event.key === "j") { event.preventDefault(); focusField(current + 1); }
    else if (event.key === "k") { event.preventDefault(); focusField(current - 1); }
    else if (keys[event.key]) { event.preventDefault(); keys[event.key](); }
    else if (event.key === "Enter" && !target.matches?.("button, a, summary")) {
      event.preventDefault();
      form.requestSubmit();
    }
  });

  const firstError = form.querySelector(".score-field .error");
  focusField(firstError ? fields.indexOf(firstError.closest("[data-score-field]")) : 0);
};
