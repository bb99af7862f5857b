// One form field of a card: a labelled control (or a fieldset of them) built from
// a `FieldSpec`, with its description and error line, and reading it back.

import { h } from "../dom";
import type { FieldSpec, RawValue, RawValues } from "./form";

/** A drawn field: the controls its value is read from, and where its error goes. */
export interface FieldDom {
  spec: FieldSpec;
  controls: HTMLElement[];
  error: HTMLElement;
}

/** What every field of one card shares: the document and a prefix unique to the card. */
export interface FieldContext {
  doc: Document;
  idPrefix: string;
}

function describe(control: HTMLElement, ids: string[]): void {
  control.setAttribute("aria-describedby", ids.join(" "));
}

/** One labelled input per option (radio or checkbox), its value the option's index. */
function choices(
  doc: Document,
  options: readonly unknown[],
  attrs: Record<string, string>,
  describedBy: string[],
  isChecked: (index: string) => boolean,
): [HTMLElement, HTMLElement[]] {
  const list = h(doc, "div", { class: "iw-choices" });
  const controls: HTMLElement[] = [];
  options.forEach((option, index) => {
    const label = h(doc, "label");
    const input = h(doc, "input", { ...attrs, value: String(index) });
    input.checked = isChecked(String(index));
    describe(input, describedBy);
    label.append(input, doc.createTextNode(String(option)));
    list.appendChild(label);
    controls.push(input);
  });
  return [list, controls];
}

/** The single control of a field that is neither a group nor a list of choices. */
function singleControl(
  doc: Document,
  field: FieldSpec,
  id: string,
  value: RawValue | undefined,
): HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement {
  const c = field.control;
  const text = typeof value === "string" ? value : "";
  switch (c.kind) {
    case "choice": {
      const select = h(doc, "select", { id });
      select.appendChild(h(doc, "option", { value: "" }, field.required ? "Choose…" : "(none)"));
      c.options.forEach((option, index) => {
        select.appendChild(h(doc, "option", { value: String(index) }, String(option)));
      });
      select.value = text;
      return select;
    }
    case "number": {
      const step = c.step !== undefined ? String(c.step) : c.integer ? "1" : "any";
      const input = h(doc, "input", { type: "number", id, step });
      const min = c.minimum ?? c.exclusiveMinimum;
      const max = c.maximum ?? c.exclusiveMaximum;
      if (min !== undefined) input.setAttribute("min", String(min));
      if (max !== undefined) input.setAttribute("max", String(max));
      input.value = text;
      return input;
    }
    case "datetime":
    case "date":
    case "time": {
      const input = h(doc, "input", { type: c.kind === "datetime" ? "datetime-local" : c.kind, id });
      input.value = text;
      return input;
    }
    case "json": {
      const area = h(doc, "textarea", { id, rows: "4", spellcheck: "false" });
      area.value = text;
      return area;
    }
    default: {
      const multiline = c.kind === "text" && c.multiline;
      const input = multiline ? h(doc, "textarea", { id, rows: "3" }) : h(doc, "input", { type: "text", id });
      if (c.kind === "text" && c.maxLength !== undefined) input.setAttribute("maxlength", String(c.maxLength));
      input.value = text;
      return input;
    }
  }
}

/** Draws `field` (and, for a group, its children), appending each drawn leaf to `out`. */
export function buildField(ctx: FieldContext, field: FieldSpec, raw: RawValues, out: FieldDom[]): HTMLElement {
  const { doc } = ctx;
  const c = field.control;
  const id = `${ctx.idPrefix}-f-${field.dataField}`.replace(/[^A-Za-z0-9_-]/g, "_");
  const descId = `${id}-desc`;
  const errId = `${id}-err`;
  const error = h(doc, "p", { class: "iw-field-error", id: errId, "aria-live": "polite" });
  const desc = field.description ? h(doc, "p", { class: "iw-desc", id: descId }, field.description) : null;
  const describedBy = desc ? [descId, errId] : [errId];
  const labelText = (label: HTMLElement): HTMLElement => {
    label.appendChild(doc.createTextNode(field.label));
    if (field.required && c.kind !== "boolean") {
      label.appendChild(h(doc, "span", { class: "iw-req", "aria-hidden": "true" }, " *"));
    }
    return label;
  };

  if (c.kind === "group" || c.kind === "multi" || (c.kind === "choice" && c.style === "radio")) {
    const fieldset = h(doc, "fieldset", { class: "iw-group", "data-field": field.dataField });
    fieldset.appendChild(labelText(h(doc, "legend")));
    if (c.kind === "group") {
      if (desc) fieldset.appendChild(desc);
      for (const child of c.fields) fieldset.appendChild(buildField(ctx, child, raw, out));
      return fieldset;
    }
    const chosen = raw[field.dataField];
    const [list, controls] =
      c.kind === "multi"
        ? choices(doc, c.options, { type: "checkbox" }, describedBy, (i) => Array.isArray(chosen) && chosen.includes(i))
        : choices(doc, c.options, { type: "radio", name: id }, describedBy, (i) => chosen === i);
    if (c.kind === "choice") {
      fieldset.setAttribute("role", "radiogroup");
      if (field.required) fieldset.setAttribute("aria-required", "true");
    }
    fieldset.append(list);
    if (desc) fieldset.appendChild(desc);
    fieldset.appendChild(error);
    out.push({ spec: field, controls, error });
    return fieldset;
  }

  const wrap = h(doc, "div", { class: "iw-field" });
  if (c.kind === "boolean") {
    const input = h(doc, "input", { type: "checkbox", id, "data-field": field.dataField });
    input.checked = raw[field.dataField] === true;
    describe(input, describedBy);
    const label = h(doc, "label", { class: "iw-check", for: id });
    label.append(input, doc.createTextNode(field.label));
    wrap.appendChild(label);
    if (desc) wrap.appendChild(desc);
    wrap.appendChild(error);
    out.push({ spec: field, controls: [input], error });
    return wrap;
  }
  const control = singleControl(doc, field, id, raw[field.dataField]);
  control.setAttribute("data-field", field.dataField);
  if (field.required) control.setAttribute("aria-required", "true");
  describe(control, describedBy);
  wrap.appendChild(labelText(h(doc, "label", { for: id })));
  if (desc) wrap.appendChild(desc);
  wrap.append(control, error);
  out.push({ spec: field, controls: [control], error });
  return wrap;
}

/** The raw value of each drawn field, keyed by its data field. */
export function readValues(fields: readonly FieldDom[]): RawValues {
  const raw: RawValues = {};
  for (const { spec, controls } of fields) {
    const c = spec.control;
    const inputs = controls as HTMLInputElement[];
    let value: RawValue;
    if (c.kind === "multi") value = inputs.filter((x) => x.checked).map((x) => x.value);
    else if (c.kind === "choice" && c.style === "radio") value = inputs.find((x) => x.checked)?.value ?? "";
    else if (c.kind === "boolean") value = inputs[0]?.checked ?? false;
    else value = inputs[0]?.value ?? "";
    raw[spec.dataField] = value;
  }
  return raw;
}
