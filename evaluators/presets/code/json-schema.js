// JSON schema: 1.0 when the output is JSON that satisfies a schema. The schema comes from
// ext.json_schema when set, else from the reference. Supported keywords (a small subset of
// JSON Schema): type (a name or a list of names), required, properties, items, enum.

// include _field_text.js

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function hasType(value, name) {
  switch (name) {
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "number":
      return typeof value === "number";
    case "integer":
      return Number.isInteger(value);
    default:
      return false;
  }
}

function same(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length &&
      a.every((item, index) => same(item, b[index]));
  }
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a).sort();
    const other = Object.keys(b).sort();
    return JSON.stringify(keys) === JSON.stringify(other) && keys.every((key) => same(a[key], b[key]));
  }
  return a === b;
}

function check(value, schema, path, errors) {
  if (!isObject(schema)) {
    return;
  }
  if (schema.type !== undefined) {
    const names = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!names.some((name) => hasType(value, name))) {
      errors.push(path + ": expected " + names.map(String).join(" or "));
      return;
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => same(value, option))) {
    errors.push(path + ": not one of the allowed values " + JSON.stringify(schema.enum));
  }
  if (isObject(value)) {
    checkObject(value, schema, path, errors);
  }
  if (Array.isArray(value) && isObject(schema.items)) {
    value.forEach((item, index) => check(item, schema.items, path + "[" + index + "]", errors));
  }
}

function checkObject(value, schema, path, errors) {
  for (const key of schema.required || []) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) {
      errors.push(path + ": missing required property " + JSON.stringify(key));
    }
  }
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const key of Object.keys(properties)) {
    if (Object.prototype.hasOwnProperty.call(value, key)) {
      check(value[key], properties[key], path + "." + key, errors);
    }
  }
}

function exec_evaluation(turn) {
  const output = fieldText(turn, "evaluate_target_output_fields", "actual_output");
  const schemaText = (turn.ext || {}).json_schema ||
    fieldText(turn, "evaluate_dataset_fields", "reference_output");
  if (output === null || !schemaText) {
    return { score: null, reason: "Cannot tell: the output or the schema is missing." };
  }
  let schema;
  try {
    schema = JSON.parse(schemaText);
  } catch (e) {
    return { score: null, reason: "Cannot tell: the schema is not valid JSON: " + e.message };
  }
  if (!isObject(schema)) {
    return { score: null, reason: "Cannot tell: the schema is not a JSON object." };
  }
  let value;
  try {
    value = JSON.parse(output);
  } catch (e) {
    return { score: 0.0, reason: "The output is not valid JSON: " + e.message };
  }
  const errors = [];
  check(value, schema, "$", errors);
  if (errors.length > 0) {
    return { score: 0.0, reason: "Schema violations: " + errors.slice(0, 5).join("; ") };
  }
  return { score: 1.0, reason: "The output satisfies the schema." };
}
