"""The scorers of the metric catalogue: each calls its reference library and says the result.

A scorer takes the output, the reference (None for metrics without one) and the metric's
normalised options, and returns a `Scored`: a score in [0, 1], a short reason and the
library's raw numbers (`extra`), or an `error` (the row cannot be scored: unknown).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
import warnings
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

FUZZY_SCORERS = (
    "ratio",
    "partial_ratio",
    "token_sort_ratio",
    "token_set_ratio",
    "partial_token_sort_ratio",
    "WRatio",
    "QRatio",
)
BLEU_TOKENIZERS = ("13a", "intl", "zh", "char", "none")
SPLITS = ("space", "char")  # words split on whitespace, or every non-space character a token
REGEX_TIMEOUT_S = 1.0  # a pattern that backtracks for longer is an error, not a stuck worker
METEOR_UNAVAILABLE = (
    "METEOR is not available on this server: WordNet is not installed (the system package "
    "wordnet-base, or NLTK's wordnet corpus; see docs/design/evaluator-kinds.md)."
)
SYSTEM_WORDNET = Path("/usr/share/wordnet")  # Debian's wordnet-base: the WordNet 3.0 database
LEXNAMES = Path(__file__).with_name("wordnet-lexnames")


@dataclass
class Scored:
    score: float | None
    reason: str = ""
    extra: dict = field(default_factory=dict)
    error: str = ""


def failed(error: str) -> Scored:
    return Scored(None, error=error)


def binary(ok: bool, yes: str, no: str) -> Scored:
    return Scored(1.0 if ok else 0.0, yes if ok else no)


# --------------------------------------------------------------------------- strings


def exact_match(output: str, reference: str, options: dict) -> Scored:
    return binary(output == reference, "equals the reference", "differs from the reference")


def case_insensitive(output: str, reference: str, options: dict) -> Scored:
    same = output.casefold() == reference.casefold()
    return binary(same, "equals the reference ignoring case", "differs from the reference")


def not_equal(output: str, reference: str, options: dict) -> Scored:
    return binary(output != reference, "differs from the reference", "equals the reference")


def like(output: str, reference: str, options: dict) -> Scored:
    """OpenAI's `like`: the reference occurs in the output, case-sensitive."""
    return binary(reference in output, "contains the reference", "does not contain the reference")


def ilike(output: str, reference: str, options: dict) -> Scored:
    """OpenAI's `ilike`: the reference occurs in the output, ignoring case."""
    found = reference.casefold() in output.casefold()
    return binary(found, "contains the reference", "does not contain the reference")


def _cased(text: str, options: dict) -> str:
    return text if options.get("case_sensitive", True) else text.casefold()


def contains(output: str, reference: str, options: dict) -> Scored:
    found = _cased(reference, options) in _cased(output, options)
    return binary(found, "contains the reference", "does not contain the reference")


def starts_with(output: str, reference: str, options: dict) -> Scored:
    found = _cased(output, options).startswith(_cased(reference, options))
    return binary(found, "starts with the reference", "does not start with the reference")


def contains_any(output: str, reference: None, options: dict) -> Scored:
    text = _cased(output, options)
    found = [v for v in options["values"] if _cased(v, options) in text]
    return Scored(float(bool(found)), f"contains {len(found)} of the values", {"found": found})


def contains_all(output: str, reference: None, options: dict) -> Scored:
    text = _cased(output, options)
    missing = [v for v in options["values"] if _cased(v, options) not in text]
    reason = "contains every value" if not missing else f"misses {len(missing)} of the values"
    return Scored(float(not missing), reason, {"missing": missing})


def regex_match(output: str, reference: None, options: dict) -> Scored:
    """The pattern found anywhere in the output (a search, as JavaScript's `test`)."""
    import regex

    flags = regex.IGNORECASE if options["ignore_case"] else 0
    try:
        found = regex.search(options["pattern"], output, flags, timeout=REGEX_TIMEOUT_S)
    except TimeoutError:
        return failed(f"the pattern took longer than {REGEX_TIMEOUT_S:g} s on this output")
    return binary(found is not None, "the pattern matches", "the pattern does not match")


# --------------------------------------------------------------------------- similarity


def fuzzy(output: str, reference: str, options: dict) -> Scored:
    """rapidfuzz's scorer (0-100) divided by 100."""
    from rapidfuzz import fuzz, utils

    scorer = getattr(fuzz, options["scorer"])
    processor = utils.default_process if options["preprocess"] else None
    value = scorer(output, reference, processor=processor)
    return Scored(value / 100, f"{options['scorer']} {value:.1f}", {"rapidfuzz": value})


def levenshtein(output: str, reference: str, options: dict) -> Scored:
    """promptfoo's `levenshtein`: passes (1) when the edit distance is at most max_distance."""
    from rapidfuzz.distance import Levenshtein

    distance = Levenshtein.distance(output, reference)
    ok = distance <= options["max_distance"]
    return Scored(float(ok), f"edit distance {distance}", {"distance": distance})


def bleu(output: str, reference: str, options: dict) -> Scored:
    """sacrebleu's sentence BLEU (0-100) divided by 100."""
    import sacrebleu

    result = sacrebleu.sentence_bleu(
        output,
        [reference],
        smooth_method=options["smooth_method"],
        tokenize=options["tokenize"],
        lowercase=options["lowercase"],
    )
    # sacrebleu's 100 can come out as 100.00000000000004: a score stays within [0, 1]
    value = min(result.score / 100, 1.0)
    return Scored(value, f"BLEU {result.score:.2f}", {"sacrebleu": result.score})


def tokens(text: str, how: str) -> list[str]:
    """Words split on whitespace, or every non-space character (Chinese has no spaces)."""
    return text.split() if how == "space" else [c for c in text if not c.isspace()]


def gleu(output: str, reference: str, options: dict) -> Scored:
    """NLTK's sentence GLEU (Google BLEU) on the tokens."""
    from nltk.translate.gleu_score import sentence_gleu

    how = options["tokenize"]
    value = sentence_gleu([tokens(reference, how)], tokens(output, how))
    return Scored(value, f"GLEU {value:.4f}", {"nltk": value})


def meteor(output: str, reference: str, options: dict) -> Scored:
    """NLTK's METEOR (exact, stem and WordNet synonym matches) on the tokens."""
    from nltk.translate.meteor_score import meteor_score

    wordnet = wordnet_reader()
    if wordnet is None:
        return failed(METEOR_UNAVAILABLE)
    how = options["tokenize"]
    value = meteor_score([tokens(reference, how)], tokens(output, how), wordnet=wordnet)
    return Scored(value, f"METEOR {value:.4f}", {"nltk": value})


@cache
def wordnet_reader():
    """NLTK's WordNet, loaded once: its own corpus when installed, else the WordNet 3.0 database
    of the system package (Debian's `wordnet-base`); None when neither is there."""
    from nltk.corpus import wordnet

    try:
        wordnet.ensure_loaded()
        return wordnet
    except LookupError:
        pass
    return _system_wordnet()


def _system_wordnet():
    """The system's WordNet files read by NLTK's own reader. NLTK reads only under its data
    path and wants a `lexnames` table the package leaves out (a fixed list of WordNet 3.0's 45
    lexicographer files, shipped beside this module): the files are copied once (about 30 MB)
    into a corpus folder in the temporary directory, which is added to NLTK's path."""
    import nltk

    if not (SYSTEM_WORDNET / "data.noun").is_file():
        return None
    root = Path(tempfile.gettempdir()) / "assay-nltk-data"
    corpus = root / "corpora" / "wordnet"
    corpus.mkdir(parents=True, exist_ok=True)
    for source in [*SYSTEM_WORDNET.iterdir(), LEXNAMES]:
        target = corpus / source.name.removeprefix("wordnet-")
        if not target.exists():  # copied, not linked: NLTK refuses a file outside its root
            part = target.with_suffix(f".{os.getpid()}.part")
            shutil.copyfile(source, part)
            part.replace(target)  # whole or absent, whichever process gets there first
    if str(root) not in nltk.data.path:
        nltk.data.path.append(str(root))
    with warnings.catch_warnings():  # "multilingual functions are not available": not used
        warnings.simplefilter("ignore", UserWarning)
        return _reader_class()(str(corpus), None)


def _reader_class():
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    class WordNet30(WordNetCorpusReader):
        """NLTK's reader on the WordNet 3.0 files themselves: it maps other versions' synsets
        onto 3.0 for the multilingual OMW data (through the sense index, which the package
        leaves out); this is 3.0, so there is nothing to map."""

        def map_wn(self, version="wordnet"):
            return None

    return WordNet30


class _CharTokenizer:
    """rouge-score's tokenizer interface over characters: its own drops non-ASCII text."""

    def tokenize(self, text: str) -> list[str]:
        return tokens(text.lower(), "char")


def rouge(rouge_type: str):
    """A scorer of one ROUGE type (rouge-score's): its F-measure, precision or recall."""

    def score(output: str, reference: str, options: dict) -> Scored:
        scorer = _rouge_scorer(rouge_type, options["use_stemmer"], options["tokenize"])
        # rouge-score's argument order is (target, prediction): the reference first
        result = scorer.score(reference, output)[rouge_type]
        value = getattr(result, options["measure"])
        extra = {name: getattr(result, name) for name in ("precision", "recall", "fmeasure")}
        return Scored(value, f"{rouge_type} {options['measure']} {value:.4f}", extra)

    return score


@cache
def _rouge_scorer(rouge_type: str, use_stemmer: bool, tokenize: str):
    from rouge_score import rouge_scorer

    tokenizer = _CharTokenizer() if tokenize == "char" else None
    return rouge_scorer.RougeScorer([rouge_type], use_stemmer=use_stemmer, tokenizer=tokenizer)


# --------------------------------------------------------------------------- structure


def _parsed(output: str):
    try:
        return json.loads(output), ""
    except ValueError as exc:
        return None, f"not valid JSON: {exc}"


def json_valid(output: str, reference: None, options: dict) -> Scored:
    _, problem = _parsed(output)
    return Scored(0.0, problem) if problem else Scored(1.0, "valid JSON")


def json_schema_match(output: str, reference: None, options: dict) -> Scored:
    """The output parses as JSON and the schema accepts it (jsonschema's best error said)."""
    import jsonschema

    value, problem = _parsed(output)
    if problem:
        return Scored(0.0, problem)
    schema = options["schema"]
    validator = jsonschema.validators.validator_for(schema)(schema)
    error = jsonschema.exceptions.best_match(validator.iter_errors(value))
    if error is None:
        return Scored(1.0, "matches the schema")
    where = "/".join(str(p) for p in error.absolute_path) or "(root)"
    return Scored(0.0, f"{where}: {error.message}")


def contains_json(output: str, reference: None, options: dict) -> Scored:
    """promptfoo's `contains-json`: some object or array inside the output parses (and, with a
    schema, the schema accepts one of them)."""
    schema = options.get("schema")
    found = list(_embedded_json(output))
    if not found:
        return Scored(0.0, "no JSON in the output")
    if schema is None:
        return Scored(1.0, "contains JSON")
    import jsonschema

    validator = jsonschema.validators.validator_for(schema)(schema)
    ok = any(validator.is_valid(value) for value in found)
    return binary(ok, "contains JSON the schema accepts", "no JSON in it matches the schema")


def _embedded_json(text: str):
    """Each JSON object or array that starts somewhere in `text` (the outermost ones)."""
    decoder, at = json.JSONDecoder(), 0
    while (starts := [i for i in (text.find("{", at), text.find("[", at)) if i >= 0]) != []:
        start = min(starts)
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            at = start + 1
            continue
        yield value
        at = end


def _number(text: str) -> float | None:
    try:
        value = float(text.strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def numeric(output: str, reference: str, options: dict) -> Scored:
    """1 when the output's number is within abs_tol or rel_tol of the reference's."""
    expected = _number(reference)
    if expected is None:
        return failed(f"the reference {reference[:40]!r} is not a number")
    got = _number(output)
    if got is None:
        return Scored(0.0, f"the output {output[:40]!r} is not a number")
    close = math.isclose(got, expected, rel_tol=options["rel_tol"], abs_tol=options["abs_tol"])
    return Scored(float(close), f"{got:g} vs {expected:g}", {"difference": abs(got - expected)})


def cosine(a: list[float], b: list[float]) -> float:
    """The cosine of two vectors (0 when either is all zeros)."""
    import numpy as np

    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    norm = float(np.linalg.norm(x) * np.linalg.norm(y))
    return float(x @ y) / norm if norm else 0.0
