def name_list(value):
    """Tool names from a list, a JSON list, or comma/newline separated text; no duplicates."""
    items = value if isinstance(value, list) else None
    text = "" if items is not None else str(value or "").strip()
    if items is None and text.startswith("["):
        try:
            items = json.loads(text)
        except ValueError:
            items = None
    if not isinstance(items, list):
        items = re.split(r"[,\n]", text)
    names = []
    for item in items:
        name = item.strip() if isinstance(item, str) else ""
        if name and name not in names:
            names.append(name)
    return names
