# Equal: 1.0 when the output equals the reference, ignoring surrounding whitespace.


# include _field_text.py


def exec_evaluation(turn):
    # include _output_and_reference.py
    if output.strip() == reference.strip():
        return EvalOutput(score=1.0, reason="The output equals the reference.")
    return EvalOutput(score=0.0, reason="The output differs from the reference.")
