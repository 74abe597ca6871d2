"""The turn an evaluator receives, in Coze Loop's shape, built in one place.

    {"evaluate_dataset_fields": {name: content},
     "evaluate_target_output_fields": {name: content},
     "ext": {str: str}}

The debug panel and API also take a flat turn, `{"input": "…", "actual_output": "…"}`
(`turn_from_flat`), and nest it the same way.

Output-like names (`actual_output`, `output`, `trajectory`) and whatever came from the target
go to the target output fields; everything else to the dataset fields. Debug turns, test cases
and experiment rows all come from `turn_build`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from assay.vocabulary import CONTENT_FIELD, ContentType

DATASET = "evaluate_dataset_fields"
TARGET = "evaluate_target_output_fields"
GROUPS = (DATASET, TARGET)
KEYS = frozenset({DATASET, TARGET, "ext"})
OUTPUT_NAMES = frozenset({"actual_output", "output", "trajectory"})


def turn_build(
    contents: Mapping[str, dict], *, from_target: Iterable[str] = (), ext: Mapping | None = None
) -> dict:
    """The turn for `contents` ({variable: content}); `from_target` names variables the target
    produced, which go with the outputs whatever they are called."""
    targeted = set(from_target)
    turn: dict = {DATASET: {}, TARGET: {}, "ext": dict(ext or {})}
    for name, content in contents.items():
        group = TARGET if name in OUTPUT_NAMES or name in targeted else DATASET
        turn[group][name] = content
    return turn


def turn_from_flat(turn):
    """A turn typed flat, `{"input": "…", "actual_output": "…"}` (names straight to text or
    content objects, as other tools write them), in the nested shape; a nested turn, or
    anything that is not an object, comes back as it is for the validator to judge."""
    if not isinstance(turn, dict) or set(turn) & set(GROUPS):
        return turn
    text = ContentType.TEXT.value
    contents = {
        name: {"content_type": text, "text": value} if isinstance(value, str) else value
        for name, value in turn.items()
        if name != "ext"
    }
    built = turn_build(contents)
    built["ext"] = turn.get("ext", {})  # as given: the validator names a bad one
    return built


def turn_fields(turn: Mapping) -> dict:
    """Every variable of a turn, outputs and dataset fields together."""
    return {**(turn.get(DATASET) or {}), **(turn.get(TARGET) or {})}


def turn_output(turn: Mapping | None) -> str | None:
    """The text of the first output-side content (the answer being judged), if any."""
    for content in ((turn or {}).get(TARGET) or {}).values():
        if isinstance(content, dict):
            return content.get("text")
    return None


ALIASES = {"output": "actual_output", "actual_output": "output"}


def turn_from_row(config: dict, data: dict) -> dict:
    """A debug turn from an evalset row: each declared variable takes the same-named column
    (output-like names also accept `actual_output`/`output`)."""
    contents = {}
    for variable in config.get("input_variables") or []:
        name = variable["name"]
        content = data.get(name) or data.get(ALIASES.get(name, ""))
        if content is not None:
            contents[name] = content
    return turn_build(contents)


def sample_turn(config: dict) -> dict:
    """A turn pre-filled from the declared variables, for the debug panel's first run."""
    variables = config.get("input_variables") or []
    return turn_build({v["name"]: _sample_content(v["content_type"], v["name"]) for v in variables})


def _sample_content(content_type: str, name: str) -> dict:
    if content_type == "Text":
        return {"content_type": "Text", "text": f"example {name}"}
    if content_type == "Image":
        return {"content_type": "Image", "image": {"url": "https://example.com/image.png"}}
    if content_type == "Audio":
        return {
            "content_type": "Audio",
            "audio": {"url": "https://example.com/a.mp3", "format": "mp3"},
        }
    if content_type == ContentType.CONVERSATION:
        return {"content_type": content_type, CONTENT_FIELD[content_type]: _sample_messages(name)}
    return {"content_type": "MultiPart", "multi_part": [{"content_type": "Text", "text": name}]}


def _sample_messages(name: str) -> list[dict]:
    """A short conversation with a tool call and its result, to edit in the debug panel."""
    call = {"id": "call_1", "type": "function"}
    call["function"] = {"name": "get_weather", "arguments": '{"city": "Paris"}'}
    return [
        {"role": "user", "content": f"example {name}: what is the weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"temp_c": 18, "sky": "clear"}'},
        {"role": "assistant", "content": "It is 18 °C and clear in Paris."},
    ]


def for_pages() -> dict:
    """The shape for the debug panel's JavaScript (a JSON block on the page)."""
    return {"groups": list(GROUPS), "output_names": sorted(OUTPUT_NAMES)}
