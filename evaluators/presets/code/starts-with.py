# Starts with: 1.0 when the output begins with the reference (leading whitespace in the output
# and whitespace around the reference are ignored).


# include _field_text.py


def exec_evaluation(turn):
    # include _output_and_reference.py
    prefix = reference.strip()
    if prefix == "":
        return EvalOutput(score=None, reason="Cannot tell: the reference prefix is empty.")
    if output.lstrip().startswith(prefix):
        return EvalOutput(score=1.0, reason="The output starts with the reference.")
    return EvalOutput(score=0.0, reason="The output does not start with the reference.")
