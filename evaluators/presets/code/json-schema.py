# JSON schema: 1.0 when the output is JSON that satisfies a schema. The schema comes from
# ext["json_schema"] when set, else from the reference. Supported keywords (a small subset of
# JSON Schema): type (a name or a list of names), required, properties, items, enum.
import json
import math


# include _field_text.py


def reject_constant(name):
    raise ValueError(name + " is not valid JSON")


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def has_type(value, name):
    """Whether value is an instance of the JSON Schema type called name."""
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "number":
        return is_number(value)
    if name == "integer":
        return is_number(value) and math.isfinite(value) and value == math.floor(value)
    return False


def same(a, b):
    """JSON equality: true stays apart from 1, and 1 equals 1.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if is_number(a) or is_number(b):
        return is_number(a) and is_number(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return False
        for index in range(len(a)):
            if not same(a[index], b[index]):
                return False
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        if len(a) != len(b):
            return False
        for key in a:
            if key not in b or not same(a[key], b[key]):
                return False
        return True
    return a == b


def check(value, schema, path, errors):
    """Append a message to errors for every way value breaks schema."""
    if not isinstance(schema, dict):
        return
    expected = schema.get("type")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        if not [name for name in names if has_type(value, name)]:
            errors.append(path + ": expected " + " or ".join(str(name) for name in names))
            return
    options = schema.get("enum")
    if isinstance(options, list) and not [option for option in options if same(value, option)]:
        errors.append(path + ": not one of the allowed values " + json.dumps(options))
    if isinstance(value, dict):
        check_object(value, schema, path, errors)
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, dict):
        for index in range(len(value)):
            check(value[index], items, path + "[" + str(index) + "]", errors)


def check_object(value, schema, path, errors):
    for key in schema.get("required") or []:
        if key not in value:
            errors.append(path + ": missing required property " + json.dumps(key))
    properties = schema.get("properties") or {}
    for key in properties:
        if key in value:
            check(value[key], properties[key], path + "." + key, errors)


def exec_evaluation(turn):
    output = field_text(turn, "evaluate_target_output_fields", "actual_output")
    schema_text = (turn.get("ext") or {}).get("json_schema") or field_text(
        turn, "evaluate_dataset_fields", "reference_output"
    )
    if output is None or not schema_text:
        return EvalOutput(score=None, reason="Cannot tell: the output or the schema is missing.")
    try:
        schema = json.loads(schema_text, parse_constant=reject_constant)
    except ValueError as exc:
        return EvalOutput(
            score=None, reason="Cannot tell: the schema is not valid JSON: " + str(exc)
        )
    if not isinstance(schema, dict):
        return EvalOutput(score=None, reason="Cannot tell: the schema is not a JSON object.")
    try:
        value = json.loads(output, parse_constant=reject_constant)
    except ValueError as exc:
        return EvalOutput(score=0.0, reason="The output is not valid JSON: " + str(exc))
    errors = []
    check(value, schema, "$", errors)
    if errors:
        return EvalOutput(score=0.0, reason="Schema violations: " + "; ".join(errors[:5]))
    return EvalOutput(score=1.0, reason="The output satisfies the schema.")
