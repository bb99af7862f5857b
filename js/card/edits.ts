// An edit to a call's arguments, as the person's answer: the proposal as a form, the
// changed arguments, and AG-UI's `editedArgs` sent in full. Pure: no DOM.

import { asRecord } from "../json";
import { EDIT_KEY, type FieldSpec, type FormSpec } from "./schema_form";

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

/** The form without its edit fields: nothing to change, and Approve sends no `editedArgs`. */
export function withoutEdit(spec: FormSpec): FormSpec {
  const { edit } = spec;
  return edit ? { ...spec, fields: spec.fields.filter((f) => f !== edit), edit: null } : spec;
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
