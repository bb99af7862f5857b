// From the fields' raw values back to a payload, with the same checks Python makes (so most
// mistakes are caught before a round trip), and the denial an approval sends. Pure: no DOM.

import { str } from "../json";
import { DATE, isoToLocal, labelFor, localToIso, timeToIso } from "./dates";
import {
  type FieldSpec,
  type FormSpec,
  isDerivedLabel,
  leafFields,
  type RawValue,
  type RawValues,
} from "./schema_form";
import type { FieldError, JsonSchema } from "./types";

// ---- raw values ------------------------------------------------------------------------

function optionIndex(options: unknown[], value: unknown): number {
  return options.findIndex((o) => JSON.stringify(o) === JSON.stringify(value));
}

/** A control's starting value, from the schema's default. */
function initialValue({ control: c, default: d }: FieldSpec): RawValue {
  switch (c.kind) {
    case "boolean":
      return d === true;
    case "choice":
      return d === undefined ? "" : String(optionIndex(c.options, d));
    case "multi":
      return Array.isArray(d) ? d.map((v) => String(optionIndex(c.options, v))).filter((i) => i !== "-1") : [];
    case "datetime":
      return typeof d === "string" ? isoToLocal(d) : "";
    case "time":
      return typeof d === "string" ? d.slice(0, 5) : "";
    case "json":
      return d === undefined ? "" : JSON.stringify(d, null, 2);
    default:
      return d === undefined || d === null ? "" : String(d);
  }
}

/** The controls' starting values, from the schema's defaults. */
export function initialValues(fields: FieldSpec[]): RawValues {
  return Object.fromEntries(leafFields(fields).map((field) => [field.dataField, initialValue(field)]));
}

// ---- collecting and checking -----------------------------------------------------------

export interface Collected {
  payload: unknown;
  errors: FieldError[];
}

/** What one field holds: a value, or a problem with it; null when nothing was given. */
type Leaf = { value?: unknown; error?: string } | null;

function numberProblem(s: JsonSchema, integer: boolean, n: number): string | undefined {
  const { minimum: min, maximum: max, exclusiveMinimum: above, exclusiveMaximum: below } = s;
  if (integer && !Number.isInteger(n)) return "must be of type integer";
  if (min !== undefined && n < min) return `must be >= ${min}`;
  if (max !== undefined && n > max) return `must be <= ${max}`;
  if (above !== undefined && n <= above) return `must be > ${above}`;
  if (below !== undefined && n >= below) return `must be < ${below}`;
  return undefined;
}

const shortened = (text: string, limit = 120): string =>
  text.length <= limit ? text : `${text.slice(0, limit - 3)}...`;

/** Why a text failed `pattern`: the pattern, and the field's `examples` (JSON, at most three),
 * in Python's words (`pattern_problem` in `agui/answers.py`). */
export function patternProblem(pattern: string, examples: unknown): string {
  const said = `must match the pattern ${shortened(pattern)}`;
  if (!Array.isArray(examples) || examples.length === 0) return said;
  return `${said}, e.g. ${examples
    .slice(0, 3)
    .map((e) => shortened(JSON.stringify(e) ?? String(e)))
    .join(" or ")}`;
}

function textProblem(schema: JsonSchema, text: string): string | undefined {
  const { minLength: min, maxLength: max, pattern } = schema;
  if (min !== undefined && text.length < min) return `must be at least ${min} characters`;
  if (max !== undefined && text.length > max) return `must be at most ${max} characters`;
  if (pattern !== undefined) {
    try {
      if (!new RegExp(pattern, "u").test(text)) return patternProblem(pattern, schema.examples);
    } catch {
      return undefined; // a pattern the browser cannot read is left to Python
    }
  }
  return undefined;
}

function readLeaf(field: FieldSpec, raw: RawValue | undefined): Leaf {
  const { control: c, schema } = field;
  if (c.kind === "boolean") return { value: raw === true };
  if (c.kind === "multi") {
    const { minItems: min, maxItems: max } = schema;
    const chosen = (Array.isArray(raw) ? raw : []).map(Number).sort((a, b) => a - b);
    const values = chosen.map((i) => c.options[i]);
    if (values.length === 0 && !field.required) return null;
    if (min !== undefined && values.length < min) return { error: `choose at least ${min}` };
    if (max !== undefined && values.length > max) return { error: `choose at most ${max}` };
    return { value: values };
  }
  const text = str(raw);
  // Spaces are text a person typed, but no number, date or choice.
  if ((c.kind === "text" ? text : text.trim()) === "") return null;
  switch (c.kind) {
    case "text":
      return { value: text, error: textProblem(schema, text) };
    case "number": {
      const n = Number(text);
      return Number.isFinite(n)
        ? { value: n, error: numberProblem(schema, c.integer, n) }
        : { error: "must be a number" };
    }
    case "choice": {
      const index = Number(text);
      return index >= 0 && index < c.options.length ? { value: c.options[index] } : null;
    }
    case "datetime":
    case "date":
    case "time": {
      const value =
        c.kind === "datetime" ? localToIso(text) : c.kind === "time" ? timeToIso(text) : DATE.test(text) ? text : null;
      return value ? { value } : { error: `must be a valid ${c.kind === "datetime" ? "date-time" : c.kind}` };
    }
    default: // "json": a group is never read as one value
      try {
        return { value: JSON.parse(text) as unknown };
      } catch {
        return { error: "must be valid JSON" };
      }
  }
}

/** Whether the person gave anything in these fields: a value, a ticked box, a choice. */
function touched(fields: FieldSpec[], raw: RawValues): boolean {
  return leafFields(fields).some((field) => {
    const value = raw[field.dataField];
    return Array.isArray(value) ? value.length > 0 : value === true || (typeof value === "string" && value !== "");
  });
}

function collectObject(
  fields: FieldSpec[],
  raw: RawValues,
  errors: FieldError[],
  sparse = false,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const leaves = new Map<FieldSpec, Leaf>();
  for (const field of fields) {
    if (field.control.kind === "group") continue;
    let leaf = readLeaf(field, raw[field.dataField]);
    // Where a box left unticked would change something (an approval's optional
    // edits, an object that may be left out), it is no answer at all.
    const unticked = field.control.kind === "boolean" && leaf?.value === false && !field.required;
    if (sparse && unticked && field.default === undefined) leaf = null;
    leaves.set(field, leaf);
    if (leaf && !leaf.error) out[field.key] = leaf.value;
  }
  // A label derived from the chosen time counts as given, wherever it stands.
  deriveLabels(fields, out);
  for (const field of fields) {
    if (field.control.kind === "group") {
      // An optional object the person left empty is left out, with whatever it would require.
      if (!field.required && !touched(field.control.fields, raw)) continue;
      out[field.key] = collectObject(field.control.fields, raw, errors, sparse || !field.required);
      continue;
    }
    const leaf = leaves.get(field);
    if (leaf?.error) errors.push({ path: field.pointer, message: leaf.error });
    else if (field.required && out[field.key] === undefined) {
      errors.push({ path: field.pointer, message: "is required" });
    }
  }
  return out;
}

/** A `*label` text left empty beside a chosen date-time is filled with a readable label. */
function deriveLabels(fields: FieldSpec[], out: Record<string, unknown>): void {
  const when = fields.find((f) => f.control.kind === "datetime" && typeof out[f.key] === "string");
  if (!when) return;
  for (const field of fields) {
    if (isDerivedLabel(field) && out[field.key] === undefined) {
      out[field.key] = labelFor(out[when.key] as string);
    }
  }
}

/**
 * The payload for the form's current values and every problem found, in field
 * order. An approval form's payload is Approve's, `approved: true` first (Deny sends `denial()`).
 */
export function collect(spec: FormSpec, raw: RawValues): Collected {
  const errors: FieldError[] = [];
  // No schema: any answer fits; an empty object still counts as a resolved payload.
  if (!spec.hasSchema) return { payload: {}, errors };
  if (!spec.object) {
    const field = spec.fields[0];
    if (!field) return { payload: null, errors };
    const leaf = readLeaf(field, raw[field.dataField]);
    if (leaf?.error) errors.push({ path: "", message: leaf.error });
    else if (!leaf) errors.push({ path: "", message: "is required" });
    return { payload: leaf?.value ?? null, errors };
  }
  const body = collectObject(spec.fields, raw, errors, spec.approval);
  const payload = spec.approval ? { approved: true, ...body } : body;
  return { payload, errors };
}

/** Deny needs no other field: the tool will not run. A reason, when given, goes with it. */
export function denial(reason = ""): { approved: false; reason?: string } {
  const said = reason.trim();
  return said ? { approved: false, reason: said } : { approved: false };
}
