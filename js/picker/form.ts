// From a `response_schema` to form fields, and from the fields' raw values back
// to a payload with the same checks Python makes (so most mistakes are caught
// before a round trip). Pure: no DOM.

import { asRecord, str } from "../json";
import type { FieldError, JsonSchema } from "./types";

/** How a field is drawn and read; its bounds stay in the field's `schema`. */
export type Control =
  | { kind: "text"; multiline: boolean }
  | { kind: "number"; integer: boolean }
  | { kind: "boolean" }
  | { kind: "choice"; style: "radio" | "select"; options: unknown[] }
  | { kind: "datetime" | "date" | "time" }
  | { kind: "multi"; options: unknown[] }
  | { kind: "group"; fields: FieldSpec[] }
  | { kind: "json" };

export interface FieldSpec {
  /** Property name (empty for a non-object root schema). */
  key: string;
  /** JSON pointer of the value inside the payload, as Python reports errors. */
  pointer: string;
  /** Stable `data-field` name: the property path joined with dots ("value" for a bare root). */
  dataField: string;
  label: string;
  description?: string;
  required: boolean;
  default?: unknown;
  control: Control;
  /** The field's own schema node: its bounds, length and pattern. */
  schema: JsonSchema;
}

export interface FormSpec {
  /** A required boolean `approved`: drawn as Approve / Deny buttons, not a field. */
  approval: boolean;
  /** Whether `{"approved": false}` fits the schema; Deny is offered only then. */
  canDeny: boolean;
  /** True when the schema is an object whose properties are the fields. */
  object: boolean;
  /** False when there is no schema at all: any answer (sent as null) fits. */
  hasSchema: boolean;
  fields: FieldSpec[];
  /** The optional `reason` an approval schema declares: drawn beside Deny, sent with it. */
  denyReason: FieldSpec | null;
  /** The `editedArgs` group of an editable tool: the proposal as a form, sent in full when changed. */
  edit: FieldSpec | null;
}

/** Raw control values keyed by `dataField`: text, a checkbox, or chosen option indexes. */
export type RawValue = string | boolean | string[];
export type RawValues = Record<string, RawValue>;

const RADIO_MAX = 4;

export function humanize(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .trim();
  return words ? words.charAt(0).toUpperCase() + words.slice(1).toLowerCase() : "Answer";
}

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

function typeOf(schema: JsonSchema): string | undefined {
  const t = schema.type;
  if (Array.isArray(t)) return t.find((x) => x !== "null");
  return t;
}

function controlFor(schema: JsonSchema, path: string[]): Control {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    return { kind: "choice", style: schema.enum.length <= RADIO_MAX ? "radio" : "select", options: schema.enum };
  }
  const type = typeOf(schema);
  switch (type) {
    case "string":
      if (schema.format === "date-time") return { kind: "datetime" };
      if (schema.format === "date") return { kind: "date" };
      if (schema.format === "time") return { kind: "time" };
      return { kind: "text", multiline: (schema.maxLength ?? 0) > 200 };
    case "number":
    case "integer":
      return { kind: "number", integer: type === "integer" };
    case "boolean":
      return { kind: "boolean" };
    case "array": {
      const options = schema.items?.enum;
      if (Array.isArray(options) && options.length > 0) {
        return { kind: "multi", options };
      }
      return { kind: "json" };
    }
    case "object":
      if (schema.properties) return { kind: "group", fields: fieldsOf(schema, path) };
      return { kind: "json" };
    default:
      return { kind: "json" };
  }
}

function fieldsOf(schema: JsonSchema, path: string[], skip: string[] = [], alsoRequired: string[] = []): FieldSpec[] {
  const required = new Set([...(schema.required ?? []), ...alsoRequired]);
  const fields = Object.entries(schema.properties ?? {})
    .filter(([key]) => !skip.includes(key))
    .map(([key, child]) => fieldFor(key, child, [...path, key], required.has(key)));
  // A label the kit derives from the chosen time (deriveLabels) is never an empty field a person must fill.
  if (fields.some((f) => f.control.kind === "datetime")) {
    for (const f of fields.filter(isDerivedLabel)) {
      f.required = false;
      f.description ??= "Left empty, it is filled in from the time.";
    }
  }
  return fields;
}

const isDerivedLabel = (field: FieldSpec): boolean => field.control.kind === "text" && /label$/i.test(field.key);

function fieldFor(key: string, schema: JsonSchema, path: string[], required: boolean): FieldSpec {
  return {
    key,
    pointer: path.map((p) => `/${escapePointer(p)}`).join(""),
    dataField: path.length ? path.join(".") : "value",
    label: schema.title ?? humanize(key),
    description: schema.description,
    required,
    default: schema.default,
    control: controlFor(schema, path),
    schema,
  };
}

const isBoolean = (schema: JsonSchema | undefined): boolean => schema !== undefined && typeOf(schema) === "boolean";

/** The alternatives of `anyOf` / `oneOf`, where other servers put what they require. */
const branchesOf = (schema: JsonSchema): JsonSchema[] => [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])];

/**
 * `approved` is required outright (the kit's schemas, Strands) or by one of the
 * alternatives (Microsoft Agent Framework: `approved` or its alias `accepted`).
 */
function requiresApproved(schema: JsonSchema): boolean {
  if ((schema.required ?? []).includes("approved")) return true;
  return branchesOf(schema).some((branch) => (branch.required ?? []).includes("approved"));
}

/** Booleans another alternative requires instead of `approved`: aliases the buttons answer for. */
function aliasesOf(schema: JsonSchema): string[] {
  const required = branchesOf(schema).flatMap((branch) => branch.required ?? []);
  return required.filter((key) => key !== "approved" && isBoolean(schema.properties?.[key]));
}

/** The form without a schema; the others start from it. */
const NO_SCHEMA: FormSpec = {
  approval: false,
  canDeny: false,
  object: false,
  hasSchema: false,
  fields: [],
  denyReason: null,
  edit: null,
};

/** The form for an interrupt's `response_schema`. */
export function formFromSchema(schema: JsonSchema | undefined | null): FormSpec {
  if (!schema || typeof schema !== "object") return { ...NO_SCHEMA };
  if (typeOf(schema) === "object" || schema.properties) {
    const approval = isBoolean(schema.properties?.approved) && requiresApproved(schema);
    // Approve is the only path that sends the tool's fields, so what the schema
    // requires `if` approved is simply required in the form.
    const whenApproved =
      approval && schema.if?.properties?.approved?.const === true ? (schema.then?.required ?? []) : [];
    const reasonSchema = approval ? schema.properties?.[DENY_REASON] : undefined;
    const denyReason =
      reasonSchema && typeOf(reasonSchema) === "string" && !whenApproved.includes(DENY_REASON)
        ? fieldFor(DENY_REASON, reasonSchema, [DENY_REASON], false)
        : null;
    const skip = approval ? ["approved", ...aliasesOf(schema), ...(denyReason ? [DENY_REASON] : [])] : [];
    const fields = fieldsOf(schema, [], skip, whenApproved);
    // A hand-written schema may require a field unconditionally; a Deny button
    // that the answer check must refuse would only frustrate.
    const canDeny = approval && (schema.required ?? []).every((key) => key === "approved");
    const editField = approval ? fields.find((f) => f.key === EDIT_KEY && f.control.kind === "group") : undefined;
    return { approval, canDeny, object: true, hasSchema: true, fields, denyReason, edit: editField ?? null };
  }
  return { ...NO_SCHEMA, hasSchema: true, fields: [fieldFor("", schema, [], true)] };
}

/** The answer field that carries an edit: AG-UI's `editedArgs`, a full replacement of the arguments. */
export const EDIT_KEY = "editedArgs";

type Proposal = Record<string, unknown>;

/** The proposed arguments, when the interrupt's `tool_input` is an object. */
export function proposalOf(toolInput: unknown): Proposal | null {
  return asRecord(toolInput) ?? null;
}

/**
 * The form with its edit fields starting from the proposal instead of the schema's defaults;
 * `readOnly` parameters are not drawn (the arguments table shows them) and go as proposed.
 */
export function prefilled(spec: FormSpec, proposal: Proposal | null): FormSpec {
  const edit = spec.edit;
  if (edit?.control.kind !== "group" || !proposal) return spec;
  const children = edit.control.fields
    .filter((f) => f.schema.readOnly !== true)
    .map((f) => (f.key in proposal ? { ...f, default: proposal[f.key] } : f));
  const filled: FieldSpec = { ...edit, control: { kind: "group", fields: children } };
  return { ...spec, fields: spec.fields.map((f) => (f === edit ? filled : f)), edit: filled };
}

/** One changed argument: its label, the proposed value and the edited one. */
export interface Change {
  key: string;
  label: string;
  from: unknown;
  to: unknown;
}

/** The arguments an edit changes, in form order (unchanged ones are not part of the edit). */
export function changesOf(spec: FormSpec, payload: unknown, proposal: Proposal | null): Change[] {
  const edit = spec.edit;
  const values = asRecord(asRecord(payload)?.[EDIT_KEY]);
  if (edit?.control.kind !== "group" || !values) return [];
  return edit.control.fields
    .filter((f) => f.key in values && JSON.stringify(values[f.key]) !== JSON.stringify(proposal?.[f.key]))
    .map((f) => ({ key: f.key, label: f.label, from: proposal?.[f.key], to: values[f.key] }));
}

/**
 * The payload with `editedArgs` the proposal with the person's changes, in full (AG-UI's
 * `editedArgs` replaces the arguments), or without it when nothing changed.
 */
export function withEdit(spec: FormSpec, payload: unknown, proposal: Proposal | null): unknown {
  const fields = asRecord(payload);
  if (!spec.edit || !fields) return payload;
  const { [EDIT_KEY]: _all, ...rest } = fields;
  const changes = changesOf(spec, payload, proposal);
  if (changes.length === 0) return rest;
  return { ...rest, [EDIT_KEY]: { ...proposal, ...Object.fromEntries(changes.map((c) => [c.key, c.to])) } };
}

/** Every leaf field (groups flattened), in display order. */
export function leafFields(fields: FieldSpec[]): FieldSpec[] {
  return fields.flatMap((f) => (f.control.kind === "group" ? leafFields(f.control.fields) : [f]));
}

// ---- date and time values --------------------------------------------------------------

const pad = (n: number): string => String(Math.trunc(n)).padStart(2, "0");

function offsetOf(date: Date): string {
  const minutes = -date.getTimezoneOffset();
  const sign = minutes >= 0 ? "+" : "-";
  const abs = Math.abs(minutes);
  return `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const LOCAL_DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/;

/** A `datetime-local` value as an ISO 8601 instant with the browser's offset, or null. */
export function localToIso(value: string): string | null {
  const m = LOCAL_DATETIME.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(y, mo - 1, d, h, mi, s);
  if (Number.isNaN(date.getTime()) || date.getMonth() !== mo - 1 || date.getDate() !== d) return null;
  // The digits as given (the pattern fixed their widths), whole seconds, the offset at that time.
  return `${value.slice(0, 16)}:${m[6] ?? "00"}${offsetOf(date)}`;
}

/** An ISO instant as a `datetime-local` value in the browser's zone ("" when unreadable). */
export function isoToLocal(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return "";
  // The local wall-clock time is the instant moved by the zone's offset, read as UTC.
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** A `time` input value ("HH:MM[:SS]") as an RFC 3339 full-time with today's offset. */
export function timeToIso(value: string, today: Date = new Date()): string | null {
  const m = /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return null;
  return `${m[1]}:${m[2]}:${m[3] ?? "00"}${offsetOf(today)}`;
}

/** A short human label for an instant, e.g. "Tue 2 Dec, 10:00". */
export function labelFor(iso: string, locale?: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(locale, {
    weekday: "short",
    day: "numeric",
    month: "short",
    hour: "2-digit",
    minute: "2-digit",
  });
}

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
    case "json":
      try {
        return { value: JSON.parse(text) as unknown };
      } catch {
        return { error: "must be valid JSON" };
      }
    default:
      return null;
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

/** The answer field an approval schema declares for why a tool was denied. */
export const DENY_REASON = "reason";

/** Deny needs no other field: the tool will not run. A reason, when given, goes with it. */
export function denial(reason = ""): { approved: false; reason?: string } {
  const said = reason.trim();
  return said ? { approved: false, reason: said } : { approved: false };
}
