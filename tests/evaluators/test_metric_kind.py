"""The `metric` kind: standard text metrics computed by their reference libraries.

Scores must equal the libraries' own on a fixed corpus (computed here by calling each library
the way its documentation shows), plus a few literal values from the libraries' documentation;
rows without an output or a reference are unknown; the policy's threshold decides; config
problems are named by field; an experiment runs a metric binding; the embedding cosine asks
the provider once per distinct text and then answers from the cache."""

import math

import pytest
import sacrebleu
from nltk.translate.gleu_score import sentence_gleu
from nltk.translate.meteor_score import meteor_score
from rapidfuzz import fuzz
from rapidfuzz.distance import Levenshtein
from rouge_score import rouge_scorer

from evaluators.config import ConfigError, validate_config
from evaluators.metrics.scores import wordnet_reader
from evaluators.runner import evaluator_run_batch
from experiments.models import Result
from tests.support.embeddings_server import EmbeddingsServer
from tests.support.factories import make_evalset_version, make_provider, qa_rows, run_inline

pytestmark = pytest.mark.django_db

# (output, reference): paraphrases, partial overlaps, reorderings, empty overlap, Chinese
CORPUS = [
    ("The cat sat on the mat.", "The cat sat on the mat."),
    ("The cat is on the mat.", "The cat sat on the mat."),
    ("A cat was sitting on a mat.", "The cat sat on the mat."),
    ("Paris is the capital of France.", "The capital of France is Paris."),
    ("The capital is Lyon.", "The capital is Paris."),
    (
        "It is a guide to action which ensures that the military always obeys the commands of the "
        "party",
        "It is a guide to action that ensures that the military will forever heed Party commands",
    ),
    ("quick brown fox", "The quick brown fox jumps over the lazy dog"),
    ("The quick brown dog jumps on the log.", "The quick brown fox jumps over the lazy dog"),
    ("dogs running quickly", "dog runs quick"),
    ("completely unrelated words here", "nothing in common at all"),
    ("42", "42"),
    ("forty two", "42"),
    ("Water boils at 100 degrees Celsius at sea level.", "At sea level water boils at 100 °C."),
    ("I think the answer is B", "B"),
    ("yes", "Yes"),
    ("the the the the the the the", "the cat is on the mat"),
    (
        "Einstein published the theory of relativity in 1905 and 1915.",
        "Einstein's special relativity appeared in 1905, general relativity in 1915.",
    ),
    ("巴黎是法国的首都。", "法国的首都是巴黎。"),
    ("今天天气很好", "今天天气不错"),
    ("北京", "上海"),
]

TEXT = {"content_type": "Text", "required": True}
VARIABLES = [{"name": "actual_output", **TEXT}, {"name": "reference_output", **TEXT}]
# a metric without a reference (or with a fixed one) reads the output alone
ALONE = {"input_variables": VARIABLES[:1], "reference_variable": None}


def metric_config(metric: str, **fields) -> dict:
    config = {
        "input_variables": VARIABLES,
        "metric": metric,
        "output_variable": "actual_output",
        "reference_variable": "reference_output",
        **fields,
    }
    return validate_config("metric", config)


def turn(output=None, reference=None) -> dict:
    dataset = (
        {}
        if reference is None
        else {"reference_output": {"content_type": "Text", "text": reference}}
    )
    target = {} if output is None else {"actual_output": {"content_type": "Text", "text": output}}
    return {"evaluate_dataset_fields": dataset, "evaluate_target_output_fields": target}


def run(workspace, config, turns, threshold=0.5):
    return evaluator_run_batch(
        workspace=workspace,
        kind="metric",
        config=config,
        turns=turns,
        policy={"kind": "threshold", "threshold": threshold},
        score_meaning="quality",
    )


def scores(workspace, metric, pairs=CORPUS, **fields):
    outcomes = run(workspace, metric_config(metric, **fields), [turn(o, r) for o, r in pairs])
    assert all(o.status == "success" for o in outcomes), [o.error for o in outcomes]
    return [o.score for o in outcomes]


# --------------------------------------------------------------------------- equal to the libraries


def test_bleu_is_sacrebleus_sentence_bleu(workspace):
    expected = [min(sacrebleu.sentence_bleu(o, [r]).score / 100, 1) for o, r in CORPUS]
    assert scores(workspace, "bleu") == expected
    zh = [min(sacrebleu.sentence_bleu(o, [r], tokenize="zh").score / 100, 1) for o, r in CORPUS]
    assert scores(workspace, "bleu", options={"tokenize": "zh"}) == zh
    assert zh[-3] > 0 and expected[-3] != zh[-3]  # Chinese needs its own tokenizer


@pytest.mark.parametrize("n", ["1", "2", "3", "4", "5", "L"])
def test_rouge_is_rouge_scores(workspace, n):
    kind = f"rouge{n}"
    scorer = rouge_scorer.RougeScorer([kind])
    expected = [scorer.score(r, o)[kind].fmeasure for o, r in CORPUS]
    assert scores(workspace, f"rouge_{n.lower()}") == expected
    stemmed = rouge_scorer.RougeScorer([kind], use_stemmer=True)
    recall = [stemmed.score(r, o)[kind].recall for o, r in CORPUS]
    options = {"use_stemmer": True, "measure": "recall"}
    assert scores(workspace, f"rouge_{n.lower()}", options=options) == recall


@pytest.mark.parametrize("scorer", ["ratio", "partial_ratio", "token_set_ratio", "WRatio"])
def test_fuzzy_match_is_rapidfuzz(workspace, scorer):
    expected = [getattr(fuzz, scorer)(o, r) / 100 for o, r in CORPUS]
    assert scores(workspace, "fuzzy_match", options={"scorer": scorer}) == expected


def test_gleu_is_nltks_sentence_gleu(workspace):
    expected = [sentence_gleu([r.split()], o.split()) for o, r in CORPUS]
    assert scores(workspace, "gleu") == expected
    chars = [sentence_gleu([list(r.replace(" ", ""))], list(o.replace(" ", ""))) for o, r in CORPUS]
    assert scores(workspace, "gleu", options={"tokenize": "char"}) == pytest.approx(chars)


def test_meteor_is_nltks_on_wordnet(workspace):
    # WordNet comes from the system package (CI installs wordnet-base) or NLTK's own corpus
    wordnet = wordnet_reader()
    assert wordnet is not None and wordnet.get_version() == "3.0"
    expected = [meteor_score([r.split()], o.split(), wordnet=wordnet) for o, r in CORPUS]
    assert scores(workspace, "meteor") == expected
    # nltk.translate.meteor_score's docstring: three references, 0.6944 — the same WordNet
    refs = [
        "It is a guide to action that ensures that the military will forever heed Party commands",
        "It is the guiding principle which guarantees the military forces always being under the "
        "command of the Party",
        "It is the practical guide for the army always to heed the directions of the party",
    ]
    hyp = "It is a guide to action which ensures that the military always obeys the commands of "
    hyp += "the party"
    documented = meteor_score([r.split() for r in refs], hyp.split(), wordnet=wordnet)
    assert round(documented, 4) == 0.6944
    # a synonym counts: "car" meets "auto" through WordNet (car.n.01), "pear" meets nothing
    pairs = [
        ("she drove the car", "she drove the auto"),
        ("she drove the pear", "she drove the auto"),
    ]
    assert scores(workspace, "meteor", pairs) == [0.9921875, 0.7361111111111112]


def test_levenshtein_passes_within_the_distance(workspace):
    expected = [float(Levenshtein.distance(o, r) <= 3) for o, r in CORPUS]
    assert scores(workspace, "levenshtein", options={"max_distance": 3}) == expected


def test_literal_values_from_the_libraries_documentation(workspace):
    # nltk.translate.gleu_score.sentence_gleu's docstring: 0.4393..., 0.1206..., 0.0909...
    ref = "It is a guide to action that ensures that the military will forever heed Party commands"
    hyp1 = (
        "It is a guide to action which ensures that the military always obeys the commands of "
        "the party"
    )
    hyp2 = "It is to insure the troops forever hearing the activity guidebook that party direct"
    pairs = [(hyp1, ref), (hyp2, ref), ("the the the the the the the", "the cat is on the mat")]
    gleu = scores(workspace, "gleu", pairs)
    assert [math.floor(g * 10_000) / 10_000 for g in gleu] == [0.4393, 0.1206, 0.0909]
    # rapidfuzz's docstrings: ratio 96.55172413793103, partial_ratio 100
    pair = [("this is a test", "this is a test!")]
    assert scores(workspace, "fuzzy_match", pair) == [0.9655172413793103]
    assert scores(workspace, "fuzzy_match", pair, options={"scorer": "partial_ratio"}) == [1.0]
    # rouge-score's README example, stemmed: 6 shared unigrams of 8 predicted and 9 reference
    pair = [
        ("The quick brown dog jumps on the log.", "The quick brown fox jumps over the lazy dog")
    ]
    rouge1 = scores(workspace, "rouge_1", pair, options={"use_stemmer": True})
    assert rouge1 == [pytest.approx(2 * 0.75 * (6 / 9) / (0.75 + 6 / 9))]
    assert scores(workspace, "bleu", [("The dog bit the man.", "The dog bit the man.")]) == [1.0]


# --------------------------------------------------------------------------- strings and structure


def test_string_checks_follow_openais_operations(workspace):
    pairs = [
        ("Paris", "Paris"),
        ("paris", "Paris"),
        ("It is Paris.", "Paris"),
        ("It is PARIS", "paris"),
    ]
    assert scores(workspace, "exact_match", pairs) == [1, 0, 0, 0]
    assert scores(workspace, "case_insensitive_match", pairs) == [1, 1, 0, 0]
    assert scores(workspace, "not_equal", pairs) == [0, 1, 1, 1]
    assert scores(workspace, "like", pairs) == [1, 0, 1, 0]  # a case-sensitive substring
    assert scores(workspace, "ilike", pairs) == [1, 1, 1, 1]  # ignoring case
    assert scores(workspace, "starts_with", pairs) == [1, 0, 0, 0]
    assert scores(workspace, "contains", pairs, options={"case_sensitive": False}) == [1, 1, 1, 1]
    assert scores(workspace, "contains", pairs, negate=True) == [0, 1, 0, 1]


def test_metrics_without_a_reference(workspace):
    pairs = [
        ('{"a": 1}', None),
        ("not json", None),
        ('{"a": "x"}', None),
        ("The answer is 42.", None),
    ]
    none = ALONE
    assert scores(workspace, "json_valid", pairs, **none) == [1, 0, 1, 0]
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
    outcomes = run(
        workspace,
        metric_config("json_schema", options={"schema": schema}, **none),
        [turn(o) for o, _ in pairs],
    )
    assert [o.score for o in outcomes] == [1, 0, 0, 0]
    assert outcomes[2].reason == "a: 'x' is not of type 'integer'"
    values = {"values": ["42", "forty-two"]}
    assert scores(workspace, "contains_any", pairs, options=values, **none) == [0, 0, 0, 1]
    assert scores(workspace, "contains_all", pairs, options=values, **none) == [0, 0, 0, 0]
    assert scores(workspace, "contains_json", pairs, **none) == [1, 0, 1, 0]
    embedded = [('Here: {"a": 1} and [2]', None), ('{broken {"a": "x"}', None)]
    assert scores(workspace, "contains_json", embedded, **none) == [1, 1]
    typed = {"schema": schema}
    assert scores(workspace, "contains_json", embedded, options=typed, **none) == [1, 0]
    regex = {"pattern": r"\b\d+\b"}
    assert scores(workspace, "regex", pairs, options=regex, **none) == [1, 0, 0, 1]


def test_numeric_closeness(workspace):
    pairs = [("3.14159", "3.14"), ("3.2", "3.14"), ("100", "101"), ("n/a", "3")]
    assert scores(workspace, "numeric", pairs, options={"abs_tol": 0.01}) == [1, 0, 0, 0]
    assert scores(workspace, "numeric", pairs, options={"rel_tol": 0.02}) == [1, 1, 1, 0]


def test_a_reference_that_is_not_a_number_is_an_error_not_a_fail(workspace):
    outcomes = run(workspace, metric_config("numeric"), [turn("3", "three")])
    assert outcomes[0].status == "error" and outcomes[0].verdict == "unknown"
    assert "not a number" in outcomes[0].error


def test_a_pattern_that_backtracks_forever_is_stopped(workspace):
    config = metric_config("regex", **ALONE, options={"pattern": r"(a|aa)+$"})
    outcomes = run(workspace, config, [turn("a" * 40 + "b")])
    assert outcomes[0].status == "error" and "longer than" in outcomes[0].error


# --------------------------------------------------------------------------- tri-state and policy


def test_no_output_or_no_reference_is_unknown(workspace):
    optional = [{**v, "required": False} for v in VARIABLES]
    config = metric_config("bleu", input_variables=optional)
    outcomes = run(
        workspace,
        config,
        [turn(None, "Paris"), turn("Paris", None), turn("", "x"), turn("Paris", "Paris")],
    )
    assert [o.verdict for o in outcomes] == ["unknown", "unknown", "unknown", "pass"]
    assert [o.status for o in outcomes[:3]] == ["skipped"] * 3
    assert "no output" in outcomes[0].error and "no reference" in outcomes[1].error


def test_a_fixed_reference_value(workspace):
    config = metric_config("ilike", **ALONE, reference_value="paris")
    outcomes = run(workspace, config, [turn("It is Paris"), turn("It is Lyon")])
    assert [o.verdict for o in outcomes] == ["pass", "fail"]


def test_the_threshold_decides_score_at_or_above_passes(workspace):
    config = metric_config("fuzzy_match")
    rows = [turn("abcd", "abcd"), turn("abcd", "abce"), turn("abcd", "wxyz")]
    assert [o.score for o in run(workspace, config, rows)] == [1.0, 0.75, 0.0]
    assert [o.verdict for o in run(workspace, config, rows, threshold=0.75)] == [
        "pass",
        "pass",
        "fail",
    ]
    assert [o.verdict for o in run(workspace, config, rows, threshold=0.8)] == [
        "pass",
        "fail",
        "fail",
    ]


# --------------------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "fields, path",
    [
        ({"metric": "blue"}, "metric"),
        ({"output_variable": "1st"}, "output_variable"),
        ({"metric": "regex", "options": {"pattern": "("}}, "options.pattern"),
        ({"metric": "regex"}, "options.pattern"),
        ({"metric": "json_schema", "options": {"schema": {"type": "nah"}}}, "options.schema"),
        ({"metric": "bleu", "options": {"tokenize": "klingon"}}, "options.tokenize"),
        ({"metric": "bleu", "options": {"smoothing": "exp"}}, "options.smoothing"),
        ({"metric": "levenshtein", "options": {"max_distance": -1}}, "options.max_distance"),
        ({"metric": "numeric", "options": {"abs_tol": "0.1"}}, "options.abs_tol"),
        ({"metric": "contains_all", "options": {"values": []}}, "options.values"),
        ({"negate": "yes"}, "negate"),
        ({"reference_value": 3}, "reference_value"),
        ({"reference_value": "x" * 10_001}, "reference_value"),
    ],
)
def test_config_problems_are_named_by_field(fields, path):
    with pytest.raises(ConfigError) as raised:
        metric_config(**{"metric": "exact_match", **fields})
    assert path in raised.value.errors, raised.value.errors


def test_submit_checks_name_the_reference_and_variables(api):
    created = api.post("/api/v1/evaluators/", {"name": "BLEU", "kind": "metric"}, format="json")
    assert created.status_code == 201, created.content
    url = f"/api/v1/evaluators/{created.json()['id']}/"
    bad = api.patch(
        url,
        {
            "config": {
                "input_variables": VARIABLES,
                "metric": "bleu",
                "output_variable": "actual_output",
                "options": {"tokenize": "x"},
            }
        },
        format="json",
    )
    assert bad.status_code == 400 and "config.options.tokenize" in bad.json()["error"]["details"]
    config = {
        "input_variables": VARIABLES,
        "metric": "bleu",
        "output_variable": "answer",
        "reference_variable": "reference_output",
        "reference_value": "Paris",
    }
    assert api.patch(url, {"config": config}, format="json").status_code == 200
    refused = api.post(f"{url}versions/", {"version": "1.0.0"}, format="json")
    details = refused.json()["error"]["details"]
    assert refused.status_code == 400 and {
        "config.output_variable",
        "config.reference_variable",
    } <= set(details), details


# --------------------------------------------------------------------------- debug and experiments


def test_the_debug_api_runs_a_draft_on_test_rows(api):
    created = api.post("/api/v1/evaluators/", {"name": "Exact", "kind": "metric"}, format="json")
    evaluator_id = created.json()["id"]
    turns = [turn("Paris", "Paris"), turn("Lyon", "Paris")]
    debugged = api.post(f"/api/v1/evaluators/{evaluator_id}/debug", {"turns": turns}, format="json")
    assert debugged.status_code == 200, debugged.content
    assert [r["verdict"] for r in debugged.json()["results"]] == ["pass", "fail"]


def test_an_experiment_runs_a_metric_binding(workspace, user):
    from evaluators import services as evaluator_services

    evaluator = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name="Contains", kind="metric"
    )
    config = {**evaluator.draft_config, "metric": "contains"}
    evaluator = evaluator_services.evaluator_update_draft(
        evaluator=evaluator, user=user, config=config
    )
    version = evaluator_services.evaluator_submit_version(
        evaluator=evaluator, user=user, version="1.0.0"
    )
    evalset = make_evalset_version(workspace=workspace, user=user, rows=qa_rows(10))
    experiment = run_inline(
        workspace=workspace, user=user, version=evalset, evaluator_version=version
    )
    assert experiment.status == "completed"
    results = Result.objects.filter(experiment=experiment).order_by("item__position")
    assert [r.verdict for r in results] == ["pass", "fail"] * 5
    assert [r.score for r in results] == [1.0, 0.0] * 5


# --------------------------------------------------------------------------- embeddings


def test_embedding_cosine_asks_once_per_distinct_text_then_uses_the_cache(workspace):
    vectors = {"cat": [1.0, 0.0], "kitten": [0.8, 0.6], "car": [0.0, 1.0], "feline": [0.6, 0.8]}
    with EmbeddingsServer(vectors) as server:
        provider = make_provider(workspace=workspace, server=server)
        options = {"provider_id": str(provider.public_id), "model": "text-embedding-3-small"}
        config = metric_config("embedding_cosine", options=options)
        rows = [
            turn("kitten", "cat"),
            turn("car", "cat"),
            turn("feline", "kitten"),
            turn("cat", "cat"),
        ]
        outcomes = run(workspace, config, rows)
        assert [o.score for o in outcomes] == pytest.approx([0.8, 0.0, 0.96, 1.0])
        assert [o.verdict for o in outcomes] == ["pass", "fail", "pass", "pass"]
        asked = [text for request in server.inputs for text in request]
        assert sorted(asked) == ["car", "cat", "feline", "kitten"]  # each distinct text once
        again = run(workspace, config, rows + [turn("car", "feline")])
        assert [o.score for o in again][:4] == [o.score for o in outcomes]
        assert len(server.inputs) == 1  # everything came from the cache
        assert server.headers[0]["Authorization"] == "Bearer sk-test-assay-0123456789"


def test_a_provider_failure_is_every_rows_error_without_the_key(workspace):
    with EmbeddingsServer(fail_with=500) as server:
        provider = make_provider(workspace=workspace, server=server)
        options = {"provider_id": str(provider.public_id), "model": "embed-fail"}
        outcomes = run(
            workspace,
            metric_config("embedding_cosine", options=options),
            [turn("a", "b"), turn("c", "d")],
        )
    assert [o.status for o in outcomes] == ["error", "error"]
    assert "HTTP 500" in outcomes[0].error and "sk-test" not in outcomes[0].error
    assert [o.verdict for o in outcomes] == ["unknown", "unknown"]


@pytest.mark.parametrize(
    "slug", ["metric-exact-match", "metric-bleu", "metric-rouge-l", "metric-fuzzy-match"]
)
def test_metric_presets_start_evaluators_that_submit_and_run(workspace, user, slug):
    from evaluators import services as evaluator_services
    from evaluators.models import EvaluatorTemplate
    from evaluators.presets.sync import templates_sync

    templates_sync()
    template = EvaluatorTemplate.objects.get(slug=slug)
    evaluator = evaluator_services.evaluator_create_from_template(
        workspace=workspace, user=user, template=template, prompt_locale="zh-hans"
    )
    assert evaluator.kind == "metric" and evaluator.name == template.locale["zh-hans"]["name"]
    version = evaluator_services.evaluator_submit_version(
        evaluator=evaluator, user=user, version="1.0.0"
    )
    outcomes = run(workspace, version.config, [turn("Paris", "Paris")])
    assert outcomes[0].verdict == "pass"


def test_the_json_schema_preset_reads_the_output_alone(workspace, user):
    from evaluators.presets import preset_config

    config = preset_config("metric-json-schema")
    outcomes = run(workspace, config, [turn('{"answer": "Paris"}'), turn('{"answer": 1}')])
    assert [o.verdict for o in outcomes] == ["pass", "fail"]


def test_an_online_rule_scores_live_spans_with_a_metric(workspace, user):
    from datetime import timedelta

    from django.utils import timezone

    from evaluators import services as evaluator_services
    from online.kind import online_run_inline
    from online.models import OnlineOutcome
    from online.services import online_rule_create, online_sweep
    from tests.online.support import MAPPING, llm_span, store

    evaluator = evaluator_services.evaluator_create(
        workspace=workspace, user=user, name="ROUGE-L", kind="metric"
    )
    config = {**evaluator.draft_config, "metric": "rouge_l"}
    evaluator = evaluator_services.evaluator_update_draft(
        evaluator=evaluator, user=user, config=config
    )
    version = evaluator_services.evaluator_submit_version(
        evaluator=evaluator, user=user, version="1.0.0"
    )
    rule = online_rule_create(
        workspace=workspace,
        user=user,
        fields={"name": "overlap", "filter": {"field": "kind", "op": "eq", "value": "llm"}},
        evaluators=[{"evaluator_version": version, "mapping": MAPPING}],
    )
    now = timezone.now()
    answers = [("The capital is Paris", "The capital is Paris"), ("Lyon", "The capital is Paris")]
    store([llm_span(workspace, output=o, expected=e) for o, e in answers])
    run = online_sweep(rule_id=rule.pk, now=now + timedelta(minutes=1))
    online_run_inline(run_id=run.pk)
    scored = sorted(OnlineOutcome.objects.filter(rule=rule).values_list("verdict", "score"))
    assert scored == [("fail", 0.0), ("pass", 1.0)]
