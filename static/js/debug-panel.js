// The debug panel: edit 1–10 turns (form or JSON view), run the editor's draft on them,
// keep a turn as a test case, run the tests. Results come back as server-rendered HTML.
(function () {
  const panel = document.getElementById("debug-panel");
  if (!panel) return;
  // The turn's shape comes from evaluators/turns.py, rendered into the page.
  const shape = JSON.parse(document.getElementById("turn-shape").textContent);
  const TARGET_NAMES = shape.output_names;
  const GROUPS = shape.groups;
  const { ContentType, content_fields: FIELDS } = window.Assay.vocabulary;
  // a type by its label in the page's language (the code stays in the JSON view)
  const typeLabel = (t) => (window.Assay.vocabulary.content_type_labels || {})[t] || t;
  const csrf = () => document.querySelector("[name=csrfmiddlewaretoken]").value;
  let turns = JSON.parse(document.getElementById("sample-turns").textContent);
  let current = 0;
  let view = "form";

  const el = window.Assay.el;
  function editorConfig() {
    try { return JSON.parse(document.getElementById("id_config_json").value); } catch (e) { return null; }
  }
  function variables() { return (editorConfig() || {}).input_variables || []; }
  function findContent(turn, name) {
    for (const g of GROUPS) if (turn[g] && turn[g][name]) return [g, turn[g][name]];
    return [TARGET_NAMES.includes(name) ? GROUPS[1] : GROUPS[0], null];
  }
  // A flat turn ({"input": "…", "actual_output": "…"}) nested as the server does it
  // (evaluators/turns.py turn_from_flat), so the form view shows what will run.
  function nested(turn) {
    if (!turn || typeof turn !== "object" || Array.isArray(turn) || GROUPS.some((g) => g in turn)) return turn;
    const out = { [GROUPS[0]]: {}, [GROUPS[1]]: {}, ext: turn.ext || {} };
    for (const [name, value] of Object.entries(turn)) {
      if (name === "ext") continue;
      const content = typeof value === "string" ? { content_type: ContentType.TEXT, text: value } : value;
      out[TARGET_NAMES.includes(name) ? GROUPS[1] : GROUPS[0]][name] = content;
    }
    return out;
  }
  function setContent(turn, name, content) {
    const [group] = findContent(turn, name);
    turn[group] = turn[group] || {};
    turn[group][name] = content;
  }

  async function post(url, data) {
    const body = new FormData();
    for (const [k, v] of Object.entries(data)) body.append(k, v);
    const response = await fetch(url, { method: "POST", body, headers: { "X-CSRFToken": csrf() }, credentials: "same-origin" });
    return { ok: response.ok, status: response.status, text: await response.text(), response };
  }

  function renderTabs() {
    const tabs = document.getElementById("turn-tabs");
    tabs.replaceChildren(...turns.map((_, i) => el("button", { type: "button", role: "tab", class: i === current ? "chip active" : "chip",
      "aria-selected": String(i === current), text: interpolate(gettext("Turn %(n)s"), { n: i + 1 }, true), onclick: () => { current = i; render(); } })));
    if (turns.length < 10) tabs.appendChild(el("button", { type: "button", class: "link", id: "add-turn", text: gettext("+ turn"),
      onclick: () => { turns.push(JSON.parse(JSON.stringify(turns[current]))); current = turns.length - 1; render(); } }));
    if (turns.length > 1) tabs.appendChild(el("button", { type: "button", class: "link danger", text: gettext("remove"),
      onclick: () => { turns.splice(current, 1); current = Math.max(0, current - 1); render(); } }));
  }

  function renderForm() {
    const box = document.getElementById("turn-form");
    const turn = turns[current];
    box.replaceChildren(...variables().filter((v) => v.name).map((v) => {
      const [, content] = findContent(turn, v.name);
      const id = `turn-var-${v.name}`;
      let input;
      if (v.content_type === ContentType.TEXT) {
        input = el("textarea", { id, rows: 3, "data-variable": v.name,
          oninput: (e) => { setContent(turn, v.name, { content_type: ContentType.TEXT, text: e.target.value }); syncJson(); } });
        input.value = content && content.text != null ? content.text : "";
      } else if (v.content_type === ContentType.IMAGE || v.content_type === ContentType.AUDIO) {
        const media = content && (content.image || content.audio);
        input = el("div", {}, [
          el("input", { type: "file", id, accept: v.content_type === ContentType.IMAGE ? "image/*" : "audio/*", onchange: (e) => upload(e.target, v.name) }),
          el("small", { class: "muted", text: media ? interpolate(gettext("current: %(name)s"), { name: media.name || media.uri || media.url }, true) : gettext("no file yet") })]);
      } else if (v.content_type === ContentType.CONVERSATION) {
        // a conversation is edited as its JSON array of messages (OpenAI's chat shape)
        const key = FIELDS[ContentType.CONVERSATION];
        input = el("textarea", { id, rows: 8, class: "code", "data-variable": v.name, oninput: (e) => {
          try { setContent(turn, v.name, { content_type: ContentType.CONVERSATION, [key]: JSON.parse(e.target.value) }); syncJson(); } catch (err) { /* wait for valid JSON */ } } });
        input.value = JSON.stringify(content && content[key] ? content[key] : [], null, 1);
      } else {
        input = el("textarea", { id, rows: 3, class: "code", oninput: (e) => {
          try { setContent(turn, v.name, JSON.parse(e.target.value)); syncJson(); } catch (err) { /* wait for valid JSON */ } } });
        input.value = JSON.stringify(content || { content_type: "MultiPart", multi_part: [] });
      }
      return el("div", { class: "field" }, [el("label", { for: id, text: interpolate(v.required === false ? gettext("%(name)s (%(type)s, optional)") : gettext("%(name)s (%(type)s)"), { name: v.name, type: typeLabel(v.content_type) }, true) }), input]);
    }));
  }

  async function upload(input, name) {
    const body = new FormData();
    body.append("file", input.files[0]);
    const response = await fetch(panel.dataset.uploadUrl, { method: "POST", body, headers: { "X-CSRFToken": csrf() } });
    if (!response.ok) { document.getElementById("turn-json-error").textContent = await response.text(); return; }
    setContent(turns[current], name, await response.json());
    render();
  }

  function syncJson() { document.getElementById("turn-json").value = JSON.stringify(turns, null, 2); }
  document.getElementById("turn-json").addEventListener("input", (e) => {
    const error = document.getElementById("turn-json-error");
    try {
      const parsed = JSON.parse(e.target.value);
      if (!Array.isArray(parsed) || !parsed.length) throw new Error("a list of 1 to 10 turns");
      turns = parsed.map(nested); current = Math.min(current, turns.length - 1); error.textContent = ""; renderTabs();
    } catch (err) { error.textContent = `JSON: ${err.message}`; }
  });

  function setView(next) {
    view = next;
    document.getElementById("turn-form").hidden = view !== "form";
    document.getElementById("turn-json").hidden = view !== "json";
    document.getElementById("view-form").setAttribute("aria-pressed", String(view === "form"));
    document.getElementById("view-json").setAttribute("aria-pressed", String(view === "json"));
    render();
  }
  document.getElementById("view-form").addEventListener("click", () => setView("form"));
  document.getElementById("view-json").addEventListener("click", () => setView("json"));

  function render() { renderTabs(); if (view === "form") renderForm(); syncJson(); }

  // The buttons are htmx requests (see detail.html); this adds what only the page knows —
  // the turns being edited and the editor's unsaved config — to each one's parameters.
  const PARAMETERS = {
    run: () => ({ turns: JSON.stringify(turns), config: JSON.stringify(editorConfig()) }),
    save: () => ({ name: document.getElementById("test-name").value,
                   expected: document.getElementById("test-expected").value,
                   turn: JSON.stringify(turns[current]) }),
    tests: () => ({ config: JSON.stringify(editorConfig()) }),
    "submit-tests": () => ({ box: "submit" }),  // the saved draft's tests, in the submit dialog
  };
  document.body.addEventListener("htmx:configRequest", (event) => {
    const role = event.detail.elt.dataset.debug;
    if (!role) return;
    if (role === "submit-tests" && !document.querySelector("#tests-table tbody tr")) {
      event.preventDefault();  // no test cases: nothing to run before submitting
      document.getElementById("submit-tests").replaceChildren();
      return;
    }
    Object.assign(event.detail.parameters, PARAMETERS[role]());
  });
  document.body.addEventListener("htmx:beforeRequest", (event) => {
    if (event.detail.elt.dataset.debug === "run") {
      document.getElementById("debug-results").replaceChildren(el("p", { class: "muted", text: gettext("Running…") }));
    }
  });
  const picker = document.getElementById("pick-rows");
  if (picker) {
    let sets = [];
    const setSelect = document.getElementById("pick-evalset");
    const versionSelect = document.getElementById("pick-version");
    const fillVersions = () => {
      const chosen = sets.find((x) => x.id === setSelect.value);
      versionSelect.replaceChildren(...(chosen ? chosen.versions : []).map((v) => el("option", { value: v, text: v })));
    };
    picker.addEventListener("toggle", async () => {
      if (!picker.open || sets.length) return;
      sets = (await (await fetch(picker.dataset.evalsetsUrl, { credentials: "same-origin" })).json()).evalsets;
      setSelect.replaceChildren(...sets.map((x) => el("option", { value: x.id, text: x.name })));
      fillVersions();
    });
    setSelect.addEventListener("change", fillVersions);
    document.getElementById("pick-load").addEventListener("click", async () => {
      const params = new URLSearchParams({ evalset: setSelect.value, version: versionSelect.value,
        limit: document.getElementById("pick-limit").value });
      const answer = await post(`${picker.dataset.rowsUrl}?${params}`, { config: JSON.stringify(editorConfig()) });
      if (!answer.ok) { document.getElementById("turn-json-error").textContent = gettext("Could not load rows."); return; }
      const loaded = JSON.parse(answer.text).turns;
      if (loaded.length) { turns = loaded; current = 0; render(); }
    });
  }
  render();
})();
