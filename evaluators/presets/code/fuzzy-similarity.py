# Fuzzy similarity: the similarity of the output to the reference, from 0.0 to 1.0, as
# difflib's SequenceMatcher ratio of the stripped texts. (The JavaScript version uses a
# Levenshtein ratio, so the two agree at 0 and 1 but may differ in between.)
import difflib


# include _field_text.py


def exec_evaluation(turn):
    # include _output_and_reference.py
    ratio = difflib.SequenceMatcher(None, output.strip(), reference.strip()).ratio()
    return EvalOutput(score=ratio, reason="Similarity ratio " + str(round(ratio, 3)) + ".")
