import type { JsonSchema } from "./types";

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

/** The answer field an approval schema declares for why a tool was denied. */
export const DENY_REASON = "reason";

/** The answer field that carries an edit: AG-UI's `editedArgs`, a full replacement of the arguments. */
export const EDIT_KEY = "editedArgs";

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

export const isDerivedLabel = (field: FieldSpec): boolean => field.control.kind === "text" && /label$/i.test(field.key);

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

/** Every leaf field (groups flattened), in display order. */
export function leafFields(fields: FieldSpec[]): FieldSpec[] {
  return fields.flatMap((f) => (f.control.kind === "group" ? leafFields(f.control.fields) : [f]));
}
