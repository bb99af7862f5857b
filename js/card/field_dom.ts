// One form field of a card: a labelled control (or a fieldset of them) built from
// a `FieldSpec`, with its description and error line, and reading it back.

import { type AttrMap, h } from "../dom";
import { str } from "../json";
import type { FieldSpec, RawValue, RawValues } from "./schema_form";

/** A drawn field: the controls its value is read from, and where its error goes. */
export interface FieldDom {
  spec: FieldSpec;
  controls: HTMLElement[];
  error: HTMLElement;
}

/** What every field of one card shares: a prefix unique to the card, for its ids. */
export interface FieldContext {
  idPrefix: string;
}

type SingleControl = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** The single control of a field that is neither a group nor a list of choices. */
function singleControl(field: FieldSpec, attrs: AttrMap): SingleControl {
  const { control: c, schema: s } = field;
  switch (c.kind) {
    case "choice":
      return h(
        "select",
        attrs,
        h("option", { value: "" }, field.required ? "Choose…" : "(none)"),
        ...c.options.map((option, index) => h("option", { value: index }, String(option))),
      );
    case "number": {
      const step = s.multipleOf ?? (c.integer ? 1 : "any");
      const [min, max] = [s.minimum ?? s.exclusiveMinimum, s.maximum ?? s.exclusiveMaximum];
      return h("input", { ...attrs, type: "number", step, min, max });
    }
    case "datetime":
    case "date":
    case "time":
      return h("input", { ...attrs, type: c.kind === "datetime" ? "datetime-local" : c.kind });
    case "json":
      return h("textarea", { ...attrs, rows: 4, spellcheck: "false" });
    default: {
      const maxlength = c.kind === "text" ? s.maxLength : undefined;
      return c.kind === "text" && c.multiline
        ? h("textarea", { ...attrs, rows: 3, maxlength })
        : h("input", { ...attrs, type: "text", maxlength });
    }
  }
}

/** Draws `field` (and, for a group, its children), appending each drawn leaf to `out`. */
export function buildField(ctx: FieldContext, field: FieldSpec, raw: RawValues, out: FieldDom[]): HTMLElement {
  const { control: c, dataField, label, required } = field;
  const id = `${ctx.idPrefix}-f-${dataField}`.replace(/[^A-Za-z0-9_-]/g, "_");
  const descId = `${id}-desc`;
  const errId = `${id}-err`;
  const desc = field.description ? h("p", { class: "iw-desc", id: descId }, field.description) : null;
  const mark = required && h("span", { class: "iw-req", "aria-hidden": "true" }, " *");
  const value = raw[dataField];

  if (c.kind === "group") {
    const children = c.fields.map((child) => buildField(ctx, child, raw, out));
    return h(
      "fieldset",
      { class: "iw-group", "data-field": dataField },
      h("legend", {}, label, mark),
      desc,
      ...children,
    );
  }

  const error = h("p", { class: "iw-field-error", id: errId, "aria-live": "polite" });
  let wrap: HTMLElement;
  let controls: HTMLElement[];
  if (c.kind === "multi" || (c.kind === "choice" && c.style === "radio")) {
    [wrap, controls] = optionInputs(field, id, c.options, c.kind === "choice", value, [mark, desc]);
  } else if (c.kind === "boolean") {
    const input = h("input", { type: "checkbox", id, "data-field": dataField });
    input.checked = value === true;
    wrap = h("div", "iw-field", h("label", { class: "iw-check", for: id }, input, label), desc);
    controls = [input];
  } else {
    const control = singleControl(field, {
      id,
      "data-field": dataField,
      "aria-required": required ? "true" : undefined,
    });
    control.value = str(value);
    wrap = h("div", "iw-field", h("label", { for: id }, label, mark), desc, control);
    controls = [control];
  }
  const describedBy = desc ? `${descId} ${errId}` : errId;
  for (const control of controls) control.setAttribute("aria-describedby", describedBy);
  wrap.append(error);
  out.push({ spec: field, controls, error });
  return wrap;
}

/**
 * One labelled input per option (radio for a choice, checkbox for several), its value the
 * option's index, in a fieldset; returns the fieldset and the inputs.
 */
function optionInputs(
  field: FieldSpec,
  id: string,
  options: unknown[],
  radio: boolean,
  value: RawValue | undefined,
  [mark, desc]: [HTMLElement | false, HTMLElement | null],
): [HTMLElement, HTMLInputElement[]] {
  const inputs = options.map((_, index) => {
    const input = h("input", { type: radio ? "radio" : "checkbox", name: radio ? id : undefined, value: index });
    input.checked = [value].flat().includes(String(index));
    return input;
  });
  const required = radio && field.required ? "true" : undefined;
  const group = { role: radio ? "radiogroup" : undefined, "aria-required": required };
  const wrap = h(
    "fieldset",
    { class: "iw-group", "data-field": field.dataField, ...group },
    h("legend", {}, field.label, mark),
    h("div", "iw-choices", ...inputs.map((input, i) => h("label", {}, input, String(options[i])))),
    desc,
  );
  return [wrap, inputs];
}

/** The raw value of each drawn field, keyed by its data field. */
export function readValues(fields: readonly FieldDom[]): RawValues {
  const raw: RawValues = {};
  for (const { spec, controls } of fields) {
    const c = spec.control;
    const inputs = controls as HTMLInputElement[];
    const checked = inputs.filter((x) => x.checked).map((x) => x.value);
    let value: RawValue;
    if (c.kind === "multi") value = checked;
    else if (c.kind === "choice" && c.style === "radio") value = checked[0] ?? "";
    else if (c.kind === "boolean") value = inputs[0]?.checked ?? false;
    else value = inputs[0]?.value ?? "";
    raw[spec.dataField] = value;
  }
  return raw;
}
