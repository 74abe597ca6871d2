// The draft editor: a structured view (variables, messages, model / code) over the config JSON.
// The JSON textarea stays the single source of truth that the form posts.
(function () {
  const form = document.getElementById("draft-form");
  if (!form) return;
  const jsonField = document.getElementById("id_config_json");
  // Which kind's editor partial the page has (none: the JSON view only).
  const hasPrompt = Boolean(document.getElementById("prompt-card"));
  const hasCode = Boolean(document.getElementById("code-card"));
  const { ContentType } = window.Assay.vocabulary;
  const TYPES = Object.values(ContentType);
  // the page's language names the types; the code stays the option's value
  const TYPE_LABELS = window.Assay.vocabulary.content_type_labels || {};
  // what a {{placeholder}} can hold: text, or a conversation (rendered as its transcript)
  const inText = (v) => v.content_type === ContentType.TEXT || v.content_type === ContentType.CONVERSATION;
  let config;
  try { config = JSON.parse(jsonField.value); } catch (e) { return; } // JSON view only
  let lastTextarea = null;
  let codeEditor = null;

  const el = window.Assay.el;

  function sync() {
    if (codeEditor) config.source = codeEditor.getValue();
    jsonField.value = JSON.stringify(config, null, 2);
  }

  // ---- variables
  const varBody = document.querySelector("#variables-table tbody");
  function renderVariables() {
    varBody.replaceChildren();
    (config.input_variables || []).forEach((v, i) => {
      const type = el("select", { "aria-label": gettext("type"), onchange: (e) => { v.content_type = e.target.value; sync(); renderChips(); } },
        TYPES.map((t) => { const o = el("option", { value: t, text: TYPE_LABELS[t] || t }); if (t === v.content_type) o.selected = true; return o; }));
      const required = el("input", { type: "checkbox", "aria-label": gettext("required"), onchange: (e) => { v.required = e.target.checked; sync(); } });
      required.checked = v.required !== false;
      varBody.appendChild(el("tr", {}, [
        el("td", {}, [el("input", { type: "text", value: v.name || "", "aria-label": gettext("variable name"), class: "var-name",
          oninput: (e) => { v.name = e.target.value; sync(); renderChips(); } })]),
        el("td", {}, [type]), el("td", {}, [required]),
        el("td", {}, [el("input", { type: "text", value: v.description || "", "aria-label": gettext("description"),
          oninput: (e) => { v.description = e.target.value; sync(); } })]),
        el("td", {}, [el("button", { type: "button", class: "link danger", text: gettext("Remove"),
          onclick: () => { config.input_variables.splice(i, 1); sync(); renderVariables(); renderChips(); } })]),
      ]));
    });
  }
  document.getElementById("add-variable").addEventListener("click", () => {
    config.input_variables = config.input_variables || [];
    config.input_variables.push({ name: "", content_type: ContentType.TEXT, required: true, description: "" });
    sync(); renderVariables();
    varBody.querySelector("tr:last-child .var-name").focus();
  });

  // ---- LLM prompt
  function messageText(m) {
    if (typeof m.content === "string") return m.content;
    return m.content.filter((p) => p.type === "text").map((p) => p.text).join("\n");
  }
  function messageMedia(m) {
    return typeof m.content === "string" ? [] : m.content.filter((p) => p.type === "multi_part_variable").map((p) => p.variable);
  }
  function setMessage(m, text, media) {
    m.content = media.length ? [{ type: "text", text }, ...media.map((v) => ({ type: "multi_part_variable", variable: v }))] : text;
  }
  function renderChips() {
    const chips = document.getElementById("variable-chips");
    if (!chips) return;
    chips.replaceChildren(...(config.input_variables || []).filter((v) => v.name).map((v) =>
      el("button", { type: "button", class: "chip", text: inText(v) ? `{{${v.name}}}` : `📎 ${v.name}`,
        title: inText(v) ? gettext("Insert at cursor") : gettext("Attach to the focused message as a content part"),
        onclick: () => insertVariable(v) })));
    renderConversationOptions();
  }
  // Conversation variables: one may be sent as chat history; listed ones need tool results.
  function renderConversationOptions() {
    const box = document.getElementById("conversation-options");
    if (!box) return;
    const names = (config.input_variables || []).filter((v) => v.name && v.content_type === ContentType.CONVERSATION).map((v) => v.name);
    box.hidden = !names.length;
    const select = document.getElementById("chat-history");
    select.replaceChildren(el("option", { value: "", text: select.dataset.none }), ...names.map((n) => el("option", { value: n, text: n })));
    select.value = names.includes(config.chat_history_variable) ? config.chat_history_variable : "";
    const needs = config.needs_tool_results || [];
    document.getElementById("needs-tool-results").replaceChildren(...names.map((n) => {
      const check = el("input", { type: "checkbox", value: n, "aria-label": interpolate(gettext("%(name)s needs tool results"), { name: n }, true), onchange: () => toggleEvidence(n) });
      check.checked = needs.includes(n);
      return el("label", { class: "choice-inline" }, [check, document.createTextNode(` ${n}`)]);
    }));
  }
  function toggleEvidence(name) {
    const needs = new Set(config.needs_tool_results || []);
    if (needs.has(name)) needs.delete(name); else needs.add(name);
    if (needs.size) config.needs_tool_results = [...needs]; else delete config.needs_tool_results;
    sync();
  }
  function insertVariable(v) {
    const target = lastTextarea || document.querySelector("#messages textarea");
    if (!target) return;
    const index = Number(target.dataset.index);
    const message = config.messages[index];
    if (inText(v)) {
      const token = `{{${v.name}}}`;
      const start = target.selectionStart ?? target.value.length;
      target.value = target.value.slice(0, start) + token + target.value.slice(target.selectionEnd ?? start);
      target.selectionStart = target.selectionEnd = start + token.length;
      setMessage(message, target.value, messageMedia(message));
    } else if (!messageMedia(message).includes(v.name)) {
      setMessage(message, messageText(message), [...messageMedia(message), v.name]);
      renderMessages();
    }
    sync(); target.focus();
  }
  function renderMessages() {
    const box = document.getElementById("messages");
    box.replaceChildren();
    (config.messages || []).forEach((m, i) => {
      const role = el("select", { "aria-label": gettext("role"), onchange: (e) => { m.role = e.target.value; sync(); } },
        ["system", "user"].map((r) => { const o = el("option", { value: r, text: r }); if (r === m.role) o.selected = true; return o; }));
      const area = el("textarea", { rows: 8, class: "code message-text", "data-index": i, "aria-label": interpolate(gettext("message %(n)s"), { n: i + 1 }, true),
        onfocus: (e) => { lastTextarea = e.target; },
        oninput: (e) => { setMessage(m, e.target.value, messageMedia(m)); sync(); } });
      area.value = messageText(m);
      const media = messageMedia(m).map((name) => el("span", { class: "chip" }, [
        document.createTextNode(`📎 ${name} `),
        el("button", { type: "button", class: "link", text: "×", "aria-label": interpolate(gettext("detach %(name)s"), { name }, true),
          onclick: () => { setMessage(m, messageText(m), messageMedia(m).filter((x) => x !== name)); sync(); renderMessages(); } })]));
      box.appendChild(el("div", { class: "message" }, [
        el("div", { class: "row" }, [role, el("span", { class: "spacer" }), el("button", { type: "button", class: "link danger", text: gettext("Remove message"),
          onclick: () => { config.messages.splice(i, 1); sync(); renderMessages(); } })]),
        area, el("div", {}, media)]));
    });
  }

  function bindModel() {
    const providers = JSON.parse(document.getElementById("providers-data").textContent);
    const model = config.model = config.model || {};
    const select = document.getElementById("model-provider");
    select.replaceChildren(el("option", { value: "", text: gettext("— choose a provider —") }),
      ...providers.map((p) => el("option", { value: p.id, text: p.name })));
    select.value = model.provider_id || "";
    select.addEventListener("change", () => {
      const before = providers.find((p) => p.id === model.provider_id);
      model.provider_id = select.value || null;
      const chosen = providers.find((p) => p.id === select.value);
      // the new provider's default model, unless the user typed one of their own
      const typed = model.model && (!before || model.model !== before.default_model);
      if (chosen && !typed) { model.model = chosen.default_model; document.getElementById("model-name").value = model.model; }
      sync();
    });
    const bind = (id, key, parse) => {
      const input = document.getElementById(id);
      input.value = model[key] ?? "";
      input.addEventListener("input", () => { model[key] = parse(input.value); sync(); });
    };
    bind("model-name", "model", (v) => v);
    bind("model-temperature", "temperature", (v) => (v === "" ? 0 : Number(v)));
    bind("model-max-tokens", "max_tokens", (v) => (v === "" ? 1024 : Number(v)));
  }

  function bindCode() {
    const lang = document.getElementById("code-language");
    const source = document.getElementById("code-source");
    lang.value = config.language || "python";
    source.value = config.source || "";
    const bind = (id, key) => {
      const input = document.getElementById(id);
      input.value = config[key] ?? "";
      input.addEventListener("input", () => { config[key] = Number(input.value); sync(); });
    };
    bind("code-timeout", "timeout_s"); bind("code-memory", "memory_mb");
    if (window.CodeMirror) {
      codeEditor = CodeMirror.fromTextArea(source, { lineNumbers: true, indentUnit: 4, matchBrackets: true,
        mode: lang.value === "python" ? "python" : "javascript", extraKeys: { Tab: (cm) => cm.replaceSelection("    ") } });
      codeEditor.on("change", sync);
    } else {
      source.addEventListener("input", () => { config.source = source.value; sync(); });
    }
    const starters = JSON.parse(document.getElementById("code-starters").textContent);
    const showHelp = () => document.querySelectorAll(".code-help").forEach((p) => {
      p.hidden = p.dataset.language !== lang.value;
    });
    showHelp();
    lang.addEventListener("change", () => {
      const previous = config.language || "python";
      const current = codeEditor ? codeEditor.getValue() : source.value;
      const untouched = current.trim() === "" || current === starters[previous];
      // offer the other language's starter; ask first when the code was edited, and a
      // "no" undoes the switch: the code stays, so its language must too
      if (!untouched && !window.confirm(lang.dataset.confirm)) {
        lang.value = previous;
        return;
      }
      if (codeEditor) codeEditor.setValue(starters[lang.value]); else source.value = starters[lang.value];
      config.source = starters[lang.value];
      config.language = lang.value;
      if (codeEditor) codeEditor.setOption("mode", lang.value === "python" ? "python" : "javascript");
      showHelp();
      sync();
    });
  }

  // Editing the JSON directly re-renders the structured view.
  jsonField.addEventListener("change", () => {
    try { config = JSON.parse(jsonField.value); } catch (e) { return; }
    renderAll();
  });
  form.addEventListener("submit", sync);
  // leaving with unsaved changes asks first (the browser's own prompt)
  const saved = JSON.stringify(JSON.parse(jsonField.value));
  let submitting = false;
  form.addEventListener("submit", () => { submitting = true; });
  window.addEventListener("beforeunload", (event) => {
    sync();
    if (!submitting && JSON.stringify(config) !== saved) { event.preventDefault(); event.returnValue = ""; }
  });

  const history = document.getElementById("chat-history");
  if (history) history.addEventListener("change", () => {
    if (history.value) config.chat_history_variable = history.value; else delete config.chat_history_variable;
    sync();
  });

  function renderAll() {
    renderVariables(); renderChips();
    if (hasPrompt) { renderMessages(); bindModel(); }
  }
  renderAll();
  if (hasPrompt) {
    document.getElementById("add-message").addEventListener("click", () => {
      config.messages.push({ role: "user", content: "" }); sync(); renderMessages();
    });
  }
  if (hasCode) bindCode();
  const dialog = document.getElementById("submit-dialog");
  if (dialog && dialog.dataset.open) dialog.showModal();
})();
