// New evaluator: picking a template proposes its name, so one click and "Create" is enough.
document.querySelectorAll("#new-evaluator input[name=source]").forEach((radio) => {
  radio.addEventListener("change", () => {
    const name = document.getElementById("id_name");
    if (radio.dataset.name && (!name.value || name.dataset.auto === "1")) {
      name.value = radio.dataset.name;
      name.dataset.auto = "1";
    }
  });
});
