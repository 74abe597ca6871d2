// The metric kind's editor (templates/evaluators/kinds/_metric.html): its fields write the
// metric's keys into the config JSON, which stays the single source of truth; a "change" event
// on it lets the shared editor (evaluator-editor.js) pick the new config up.
(function () {
  const card = document.getElementById("metric-card");
  const jsonField = document.getElementById("id_config_json");
  if (!card || !jsonField) return;
  const catalogue = Object.fromEntries(
    JSON.parse(document.getElementById("metric-catalogue").textContent).map((m) => [m.name, m]));
  const metricSelect = document.getElementById("metric-name");
  const schemaError = document.getElementById("metric-schema-error");

  function read() { try { return JSON.parse(jsonField.value); } catch (e) { return null; } }
  function write(config) {
    jsonField.value = JSON.stringify(config, null, 2);
    jsonField.dispatchEvent(new Event("change"));
  }
  function update(change) { const config = read(); if (config) { change(config); write(config); } }
  const visible = (node) => !node.closest("[data-for]") || !node.closest("[data-for]").hidden;

  function optionValue(input) {
    if (input.type === "checkbox") return input.checked;
    if (input.dataset.lines !== undefined) return input.value.split("\n").map((v) => v.trim()).filter(Boolean);
    if (input.dataset.number !== undefined) return input.value === "" ? undefined : Number(input.value);
    if (input.dataset.json !== undefined) return JSON.parse(input.value || "{}");
    return input.value === "" && input.dataset.option === "provider_id" ? null : input.value;
  }
  function showOption(input, value) {
    if (input.type === "checkbox") input.checked = Boolean(value);
    else if (input.dataset.lines !== undefined) input.value = (value || []).join("\n");
    else if (input.dataset.json !== undefined) input.value = value ? JSON.stringify(value, null, 2) : "";
    else input.value = value ?? "";
  }

  function render() {
    const config = read();
    if (!config) return;
    const metric = catalogue[config.metric] || catalogue.exact_match;
    metricSelect.value = metric.name;
    document.getElementById("metric-output").value = config.output_variable || "";
    document.getElementById("metric-reference").value = config.reference_variable || "";
    document.getElementById("metric-value").value = config.reference_value ?? "";
    document.getElementById("metric-negate").checked = Boolean(config.negate);
    card.querySelectorAll("[data-reference]").forEach((n) => { n.hidden = !metric.needs_reference; });
    card.querySelectorAll("[data-for]").forEach((n) => { n.hidden = !n.dataset.for.split(" ").includes(metric.name); });
    const options = { ...metric.defaults, ...(config.options || {}) };
    card.querySelectorAll("[data-option]").forEach((input) => {
      if (visible(input) && document.activeElement !== input) showOption(input, options[input.dataset.option]);
    });
  }

  metricSelect.addEventListener("change", () => update((config) => {
    const metric = catalogue[metricSelect.value];
    config.metric = metric.name;
    config.options = {}; // another metric's options would be unknown fields
    if (!metric.needs_reference) { config.reference_variable = null; config.reference_value = null; }
    else if (!config.reference_variable && config.reference_value == null) config.reference_variable = "reference_output";
  }));
  const text = (id, key, empty) => document.getElementById(id).addEventListener("input", (e) =>
    update((config) => { config[key] = e.target.value === "" ? empty : e.target.value; }));
  text("metric-output", "output_variable", "");
  text("metric-reference", "reference_variable", null);
  text("metric-value", "reference_value", null);
  document.getElementById("metric-negate").addEventListener("change", (e) => update((config) => { config.negate = e.target.checked; }));
  card.querySelectorAll("[data-option]").forEach((input) => {
    const event = input.type === "checkbox" || input.tagName === "SELECT" ? "change" : "input";
    input.addEventListener(event, () => {
      let value;
      try { value = optionValue(input); schemaError.textContent = ""; } catch (e) {
        schemaError.textContent = gettext("Not valid JSON yet."); return;
      }
      update((config) => {
        config.options = config.options || {};
        if (value === undefined) delete config.options[input.dataset.option];
        else config.options[input.dataset.option] = value;
      });
    });
  });
  jsonField.addEventListener("change", render);
  render();
})();
