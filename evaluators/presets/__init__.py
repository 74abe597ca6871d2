"""The built-in preset catalogue, shipped as data files next to this module.

- ``llm/<slug>.json``: one LLM judge each, with its full config.
- ``pairwise/<slug>.json``: one pairwise judge each (two outputs, A or B), the same shape.
- ``code/<slug>.json``: a code check's manifest; its sources are ``code/<slug>.py`` and
  ``code/<slug>.js`` (the Coze Loop contract: ``exec_evaluation(turn)``). A line
  ``# include _part.py`` (``// include _part.js``) in a source stands for the shared part
  ``code/_part.py``, indented as the line: users and the sandbox get one self-contained source,
  the catalogue keeps one copy of each helper the checks share.
- ``metric/<slug>.json``: one metric evaluator each (`evaluators.kinds.metric`), its config
  whole: the metric, its options and where output and reference come from.
- ``locale``, in any of them: ``{"zh-hans": {name, description, inputs}}``, and for a judge
  also ``messages`` (its prompt in that language, the same roles and ``{{variables}}``) and
  ``variables`` (``{name: description}``), from which that language's config is built.

Pure Python (no Django): a migration or management command turns these into templates.
"""

from __future__ import annotations

import copy
import json
import re
from functools import cache
from pathlib import Path

from evaluators.config import validate_config

PRESETS_DIR = Path(__file__).resolve().parent
LANGUAGE_SUFFIXES = {"python": ".py", "javascript": ".js"}
SCORE_MEANINGS = ("quality", "risk")
META_KEYS = ("slug", "name", "kind", "description", "inputs", "score_meaning", "default_policy")
# "en" is the preset's own text; the others come from its ``locale`` entries.
PROMPT_LOCALES = ("en", "zh-hans")
LOCALE_TEXT_KEYS = ("name", "description", "inputs")
INCLUDE_LINE = re.compile(r"^(?P<indent>[ \t]*)(?:#|//) include (?P<part>_[\w-]+\.[a-z]+)$", re.M)


def load_presets() -> list[dict]:
    """Every preset, LLM judges first, then pairwise judges, code checks and metrics, each by
    slug.

    A preset has slug, name, kind, description, inputs, score_meaning, default_policy, tags and
    config (normalised by validate_config). Code presets also have ``configs``: one config per
    language (``config`` is the Python one). Callers get their own copies.
    """
    return copy.deepcopy(_load_all())


def get_preset(slug: str) -> dict:
    """The preset called ``slug``; KeyError when there is none."""
    for preset in _load_all():
        if preset["slug"] == slug:
            return copy.deepcopy(preset)
    raise KeyError(f"No preset {slug!r}.")


def preset_config(slug: str, language: str | None = None) -> dict:
    """The config to start an evaluator from preset ``slug`` (code: in ``language``)."""
    preset = get_preset(slug)
    if preset["kind"] == "code" and language is not None:
        if language not in preset["configs"]:
            raise KeyError(f"Preset {slug!r} has no {language!r} source.")
        return preset["configs"][language]
    return preset["config"]


@cache
def _load_all() -> tuple[dict, ...]:
    llm = [_llm_preset(path) for path in sorted((PRESETS_DIR / "llm").glob("*.json"))]
    pairwise = [
        _llm_preset(path, "pairwise") for path in sorted((PRESETS_DIR / "pairwise").glob("*.json"))
    ]
    code = [_code_preset(path) for path in sorted((PRESETS_DIR / "code").glob("*.json"))]
    metric = [_metric_preset(path) for path in sorted((PRESETS_DIR / "metric").glob("*.json"))]
    return tuple(llm + pairwise + code + metric)


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _meta(data: dict, path: Path, kind: str) -> dict:
    """The descriptive fields, checked so a bad data file fails loudly at load time."""
    missing = [key for key in META_KEYS if key not in data]
    if missing:
        raise ValueError(f"{path.name}: missing {', '.join(missing)}.")
    if data["slug"] != path.stem or data["kind"] != kind:
        raise ValueError(f"{path.name}: slug must match the file name and kind must be {kind}.")
    if data["score_meaning"] not in SCORE_MEANINGS:
        raise ValueError(f"{path.name}: score_meaning must be quality or risk.")
    _check_policy(data["default_policy"], path)
    meta = {key: data[key] for key in META_KEYS}
    meta["tags"] = list(data.get("tags", []))
    meta["locale"] = {lang: _locale_text(entry, path) for lang, entry in _locales(data, path)}
    return meta


def _locales(data: dict, path: Path) -> list[tuple[str, dict]]:
    locale = data.get("locale", {})
    unknown = sorted(set(locale) - set(PROMPT_LOCALES[1:]))
    if unknown:
        raise ValueError(f"{path.name}: unknown locale {', '.join(unknown)}.")
    return sorted(locale.items())


def _locale_text(entry: dict, path: Path) -> dict:
    """A locale's name, description and input notes: each a non-empty string when given."""
    text = {key: entry[key] for key in LOCALE_TEXT_KEYS if key in entry}
    if not all(isinstance(value, str) and value.strip() for value in text.values()):
        raise ValueError(f"{path.name}: locale name, description and inputs must be text.")
    return text


def _check_policy(policy: dict, path: Path) -> None:
    if policy == {"kind": "zero_tolerance"}:
        return
    threshold = policy.get("threshold")
    if policy.get("kind") != "threshold" or not isinstance(threshold, int | float):
        raise ValueError(f"{path.name}: default_policy must be threshold or zero_tolerance.")
    if not 0 <= threshold <= 1:
        raise ValueError(f"{path.name}: the threshold must lie in [0, 1].")


def _llm_preset(path: Path, kind: str = "llm") -> dict:
    """An LLM judge's preset, or a pairwise judge's (the same shape: one config)."""
    data = _read_json(path)
    preset = _meta(data, path, kind)
    preset["config"] = validate_config(kind, data["config"])
    for lang, entry in data.get("locale", {}).items():
        if "messages" in entry:
            config = _localized_config(data["config"], entry)
            preset["locale"][lang]["config"] = validate_config(kind, config)
    return preset


def _localized_config(config: dict, entry: dict) -> dict:
    """The judge with the locale's prompt and variable notes; model and keys stay the same."""
    notes = entry.get("variables", {})
    variables = [
        {**v, "description": notes.get(v["name"], v.get("description", ""))}
        for v in config["input_variables"]
    ]
    return {**config, "input_variables": variables, "messages": entry["messages"]}


def _metric_preset(path: Path) -> dict:
    """A metric's preset: one config, kept under ``configs["metric"]`` as the template's."""
    data = _read_json(path)
    preset = _meta(data, path, "metric")
    preset["config"] = validate_config("metric", data["config"])
    preset["configs"] = {"metric": preset["config"]}
    return preset


def _code_preset(path: Path) -> dict:
    data = _read_json(path)
    preset = _meta(data, path, "code")
    configs = {}
    for language, suffix in LANGUAGE_SUFFIXES.items():
        source = assembled_source(path.with_suffix(suffix))
        raw = {
            "input_variables": data["input_variables"],
            "language": language,
            "source": source,
            "timeout_s": data.get("timeout_s", 5.0),
            "memory_mb": data.get("memory_mb", 256),
        }
        configs[language] = validate_config("code", raw)
    preset["config"] = configs["python"]
    preset["configs"] = configs
    return preset


def assembled_source(path: Path) -> str:
    """The source in ``path`` with each include line replaced by its part (parts may include)."""

    def part(match: re.Match) -> str:
        if not match["part"].endswith(path.suffix):
            raise ValueError(f"{path.name}: {match['part']} is in another language.")
        text = assembled_source(path.parent / match["part"]).removesuffix("\n")
        lines = text.splitlines(keepends=True)
        return "".join(match["indent"] + line if line.strip() else line for line in lines)

    return INCLUDE_LINE.sub(part, path.read_text(encoding="utf-8"))
