# Fuzzy similarity: the similarity of the output to the reference, from 0.0 to 1.0, as
# difflib's SequenceMatcher ratio of the stripped texts. (The JavaScript version uses a
# Levenshtein ratio, so the two agree at 0 and 1 but may differ in between.)
import difflib


def field_text(turn, group, name):
    """The text of a Text field, or None when the field is missing."""
    content = (turn.get(group) or {}).get(name) or {}
    text = content.get("text")
    return text if isinstance(text, str) else None


def exec_evaluation(turn):
    output = field_text(turn, "evaluate_target_output_fields", "actual_output")
    reference = field_text(turn, "evaluate_dataset_fields", "reference_output")
    if output is None or reference is None:
        return EvalOutput(
            score=None, reason="Cannot tell: actual_output or reference_output text is missing."
        )
    ratio = difflib.SequenceMatcher(None, output.strip(), reference.strip()).ratio()
    return EvalOutput(score=ratio, reason="Similarity ratio " + str(round(ratio, 3)) + ".")
