// Draws `PickerView` into the DOM. Every piece of data goes in through
// textContent / attributes (never innerHTML): messages, arguments and labels
// come from an agent and are untrusted.

import { formatRemaining } from "./countdown";
import {
  collect,
  denial,
  formFromSchema,
  initialValues,
  leafFields,
  type FieldSpec,
  type FormSpec,
  type RawValue,
  type RawValues,
} from "./form";
import type { AnswerResultMessage } from "./protocol";
import { loadRenderer, type ModuleLoader } from "./renderers";
import type { CardView, PickerView } from "./state";
import type { AnswerStatus, FieldError } from "./types";

export interface ViewActions {
  /** Send an answer to Python; settles with its verdict. */
  answer(interruptId: string, status: AnswerStatus, payload: unknown): Promise<AnswerResultMessage>;
  /** Report problems the browser found before sending (empty list clears them). */
  checked(interruptId: string, errors: FieldError[]): void;
}

export interface PickerDom {
  update(view: PickerView): void;
  destroy(): void;
}

let mountCount = 0;

type Attrs = Record<string, string>;

function h<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  attrs: Attrs = {},
  text?: string,
): HTMLElementTagNameMap[K] {
  const el = doc.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  if (text !== undefined) el.textContent = text;
  return el;
}

interface FieldDom {
  spec: FieldSpec;
  controls: HTMLElement[];
  error: HTMLElement;
}

interface CardDom {
  root: HTMLElement;
  countdown: HTMLElement;
  form: HTMLFormElement;
  body: HTMLElement;
  custom: HTMLElement | null;
  cardError: HTMLElement;
  decision: HTMLElement;
  buttons: { primary: HTMLButtonElement | null; deny: HTMLButtonElement | null; cancel: HTMLButtonElement };
  fields: FieldDom[];
  spec: FormSpec;
  cleanup: Array<() => void>;
  lastDecision: string;
}

export function createPickerDom(
  el: HTMLElement,
  actions: ViewActions,
  options: { loader?: ModuleLoader } = {},
): PickerDom {
  const doc = el.ownerDocument;
  mountCount += 1;
  const prefix = `iw${mountCount}`;
  const root = h(doc, "div", { class: "iw-picker", role: "region", "aria-label": "Questions from the agent" });
  const status = h(doc, "div", { class: "iw-status", role: "status", "aria-live": "polite" });
  root.appendChild(status);
  el.appendChild(root);
  const cards = new Map<string, CardDom>();
  let cardCount = 0;
  let destroyed = false;

  function fieldId(card: string, field: FieldSpec): string {
    return `${prefix}-${card}-${field.dataField}`.replace(/[^A-Za-z0-9_-]/g, "_");
  }

  function describe(control: HTMLElement, ids: string[]): void {
    control.setAttribute("aria-describedby", ids.join(" "));
  }

  /** One labelled input per option (radio or checkbox), its value the option's index. */
  function choices(
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

  function buildField(cardKey: string, field: FieldSpec, raw: RawValues, out: FieldDom[]): HTMLElement {
    const c = field.control;
    const id = fieldId(cardKey, field);
    const descId = `${id}-desc`;
    const errId = `${id}-err`;
    const error = h(doc, "p", { class: "iw-field-error", id: errId, "aria-live": "polite" });
    const desc = field.description ? h(doc, "p", { class: "iw-desc", id: descId }, field.description) : null;
    const describedBy = desc ? [descId, errId] : [errId];
    const labelText = (label: HTMLElement): void => {
      label.appendChild(doc.createTextNode(field.label));
      if (field.required && c.kind !== "boolean") {
        label.appendChild(h(doc, "span", { class: "iw-req", "aria-hidden": "true" }, " *"));
      }
    };

    if (c.kind === "group") {
      const fieldset = h(doc, "fieldset", { class: "iw-group", "data-field": field.dataField });
      const legend = h(doc, "legend");
      labelText(legend);
      fieldset.appendChild(legend);
      if (desc) fieldset.appendChild(desc);
      for (const child of c.fields) fieldset.appendChild(buildField(cardKey, child, raw, out));
      return fieldset;
    }

    if (c.kind === "choice" && c.style === "radio") {
      const fieldset = h(doc, "fieldset", { class: "iw-group", "data-field": field.dataField, role: "radiogroup" });
      const legend = h(doc, "legend");
      labelText(legend);
      fieldset.appendChild(legend);
      if (field.required) fieldset.setAttribute("aria-required", "true");
      const [list, controls] = choices(c.options, { type: "radio", name: id }, describedBy, (index) => raw[field.dataField] === index);
      fieldset.append(list);
      if (desc) fieldset.appendChild(desc);
      fieldset.appendChild(error);
      out.push({ spec: field, controls, error });
      return fieldset;
    }

    if (c.kind === "multi") {
      const fieldset = h(doc, "fieldset", { class: "iw-group", "data-field": field.dataField });
      const legend = h(doc, "legend");
      labelText(legend);
      fieldset.appendChild(legend);
      const chosen = raw[field.dataField];
      const [list, controls] = choices(c.options, { type: "checkbox" }, describedBy, (index) => Array.isArray(chosen) && chosen.includes(index));
      fieldset.append(list);
      if (desc) fieldset.appendChild(desc);
      fieldset.appendChild(error);
      out.push({ spec: field, controls, error });
      return fieldset;
    }

    const wrap = h(doc, "div", { class: "iw-field" });
    let control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
    const value = raw[field.dataField];
    switch (c.kind) {
      case "boolean": {
        const input = h(doc, "input", { type: "checkbox", id });
        input.checked = value === true;
        const label = h(doc, "label", { class: "iw-check", for: id });
        label.append(input, doc.createTextNode(field.label));
        control = input;
        control.setAttribute("data-field", field.dataField);
        describe(control, describedBy);
        wrap.appendChild(label);
        if (desc) wrap.appendChild(desc);
        wrap.appendChild(error);
        out.push({ spec: field, controls: [control], error });
        return wrap;
      }
      case "choice": {
        const select = h(doc, "select", { id });
        select.appendChild(h(doc, "option", { value: "" }, field.required ? "Choose…" : "(none)"));
        c.options.forEach((option, index) => select.appendChild(h(doc, "option", { value: String(index) }, String(option))));
        select.value = typeof value === "string" ? value : "";
        control = select;
        break;
      }
      case "number": {
        const input = h(doc, "input", { type: "number", id, step: c.step !== undefined ? String(c.step) : c.integer ? "1" : "any" });
        const min = c.minimum ?? c.exclusiveMinimum;
        const max = c.maximum ?? c.exclusiveMaximum;
        if (min !== undefined) input.setAttribute("min", String(min));
        if (max !== undefined) input.setAttribute("max", String(max));
        input.value = typeof value === "string" ? value : "";
        control = input;
        break;
      }
      case "datetime":
      case "date":
      case "time": {
        const type = c.kind === "datetime" ? "datetime-local" : c.kind;
        const input = h(doc, "input", { type, id });
        input.value = typeof value === "string" ? value : "";
        control = input;
        break;
      }
      case "json": {
        const area = h(doc, "textarea", { id, rows: "4", spellcheck: "false" });
        area.value = typeof value === "string" ? value : "";
        control = area;
        break;
      }
      default: {
        const text = c.kind === "text" && c.multiline ? h(doc, "textarea", { id, rows: "3" }) : h(doc, "input", { type: "text", id });
        if (c.kind === "text" && c.maxLength !== undefined) text.setAttribute("maxlength", String(c.maxLength));
        text.value = typeof value === "string" ? value : "";
        control = text;
      }
    }
    control.setAttribute("data-field", field.dataField);
    if (field.required) control.setAttribute("aria-required", "true");
    describe(control, describedBy);
    const label = h(doc, "label", { for: id });
    labelText(label);
    wrap.appendChild(label);
    if (desc) wrap.appendChild(desc);
    wrap.append(control, error);
    out.push({ spec: field, controls: [control], error });
    return wrap;
  }

  function readValues(fields: FieldDom[]): RawValues {
    const raw: RawValues = {};
    for (const { spec, controls } of fields) {
      const c = spec.control;
      let value: RawValue;
      if (c.kind === "multi") {
        value = controls.filter((x) => (x as HTMLInputElement).checked).map((x) => (x as HTMLInputElement).value);
      } else if (c.kind === "choice" && c.style === "radio") {
        value = (controls.find((x) => (x as HTMLInputElement).checked) as HTMLInputElement | undefined)?.value ?? "";
      } else if (c.kind === "boolean") {
        value = (controls[0] as HTMLInputElement).checked;
      } else {
        value = (controls[0] as HTMLInputElement).value;
      }
      raw[spec.dataField] = value;
    }
    return raw;
  }

  function button(text: string, cls: string, type: "submit" | "button" = "button"): HTMLButtonElement {
    return h(doc, "button", { type, class: cls }, text);
  }

  function buildCard(card: CardView): CardDom {
    cardCount += 1;
    const key = String(cardCount);
    const titleId = `${prefix}-c${key}-title`;
    const root = h(doc, "section", { class: "iw-card", "data-interrupt-id": card.id, "aria-labelledby": titleId });
    const head = h(doc, "div", { class: "iw-head" });
    head.appendChild(h(doc, "h3", { class: "iw-title", id: titleId }, card.title));
    if (card.title !== card.interrupt.reason) head.appendChild(h(doc, "span", { class: "iw-reason" }, card.interrupt.reason));
    const countdown = h(doc, "span", { class: "iw-countdown", "aria-live": "off" });
    head.appendChild(countdown);
    root.appendChild(head);
    if (card.message) root.appendChild(h(doc, "p", { class: "iw-message" }, card.message));
    if (card.args.length) {
      const table = h(doc, "table", { class: "iw-args" });
      table.appendChild(h(doc, "caption", { class: "iw-hidden" }, "Arguments"));
      const body = h(doc, "tbody");
      for (const [name, value] of card.args) {
        const row = h(doc, "tr");
        row.append(h(doc, "th", { scope: "row" }, name), h(doc, "td", {}, value));
        body.appendChild(row);
      }
      table.appendChild(body);
      root.appendChild(table);
    }

    const spec = formFromSchema(card.interrupt.responseSchema);
    const form = h(doc, "form", { class: "iw-form", novalidate: "", "aria-labelledby": titleId });
    const body = h(doc, "div", { class: "iw-fields" });
    const fields: FieldDom[] = [];
    const raw = initialValues(spec.fields);
    for (const field of spec.fields) body.appendChild(buildField(key, field, raw, fields));
    form.appendChild(body);
    const reasonDom: FieldDom[] = [];
    if (spec.denyReason) {
      // One line is enough beside a button, and the label already says what it is for.
      const base = spec.denyReason;
      const control = base.control.kind === "text" ? { ...base.control, multiline: false } : base.control;
      const reasonSpec = { ...base, label: "Reason for denying (optional)", description: undefined, control };
      const reasonField = buildField(key, reasonSpec, raw, reasonDom);
      reasonField.classList.add("iw-deny-reason");
      form.appendChild(reasonField);
      fields.push(...reasonDom);
    }
    const cardError = h(doc, "p", { class: "iw-card-error", role: "alert" });
    const buttonRow = h(doc, "div", { class: "iw-actions" });
    const primary = spec.approval ? button("Approve", "iw-primary", "submit") : button("Submit", "iw-primary", "submit");
    const deny = spec.canDeny ? button("Deny", "iw-danger") : null;
    const cancel = button("Cancel", "");
    buttonRow.append(...[primary, deny, cancel].filter((b): b is HTMLButtonElement => b !== null));
    form.append(cardError, buttonRow);
    root.appendChild(form);
    const decision = h(doc, "div", { class: "iw-decision iw-hidden", tabindex: "-1" });
    root.appendChild(decision);

    const dom: CardDom = {
      root,
      countdown,
      form,
      body,
      custom: null,
      cardError,
      decision,
      buttons: { primary, deny, cancel },
      fields,
      spec,
      cleanup: [],
      lastDecision: "",
    };

    const send = (status: AnswerStatus, payload: unknown): void => {
      void actions.answer(card.id, status, payload);
    };
    const onSubmit = (event: Event): void => {
      event.preventDefault();
      if (primary.disabled) return;
      const result = collect(spec, readValues(fields), { approved: true });
      actions.checked(card.id, result.errors);
      if (result.errors.length === 0) send("resolved", result.payload);
      else focusFirstError(dom, result.errors);
    };
    form.addEventListener("submit", onSubmit);
    deny?.addEventListener("click", () => {
      const said = reasonDom[0] ? readValues(reasonDom)[reasonDom[0].spec.dataField] : "";
      send("resolved", denial(typeof said === "string" ? said : ""));
    });
    cancel.addEventListener("click", () => send("cancelled", null));

    if (card.renderer) mountCustom(dom, card);
    return dom;
  }

  function mountCustom(dom: CardDom, card: CardView): void {
    const host = h(doc, "div", { class: "iw-custom" });
    dom.form.insertBefore(host, dom.body);
    dom.body.classList.add("iw-hidden");
    dom.buttons.primary?.classList.add("iw-hidden");
    dom.buttons.deny?.classList.add("iw-hidden");
    dom.custom = host;
    loadRenderer(card.renderer ?? "", options.loader)
      .then(async (render) => {
        if (destroyed) return;
        const cleanup = await render({
          interrupt: card.interrupt,
          el: host,
          resolve: (payload) => actions.answer(card.id, "resolved", payload),
          cancel: () => actions.answer(card.id, "cancelled", null),
        });
        if (typeof cleanup === "function") dom.cleanup.push(cleanup);
      })
      .catch((err: unknown) => {
        // Fall back to the built-in form, and say why.
        host.remove();
        dom.custom = null;
        dom.body.classList.remove("iw-hidden");
        dom.buttons.primary?.classList.remove("iw-hidden");
        dom.buttons.deny?.classList.remove("iw-hidden");
        dom.cardError.textContent = `The custom renderer failed: ${err instanceof Error ? err.message : String(err)}`;
      });
  }

  function focusFirstError(dom: CardDom, errors: FieldError[]): void {
    const first = errors[0];
    const field = dom.fields.find((f) => f.spec.pointer === first?.path);
    field?.controls[0]?.focus();
  }

  function updateCard(dom: CardDom, card: CardView, closed: boolean): void {
    const decided = card.phase === "decided";
    dom.root.classList.toggle("iw-decided", decided);
    dom.root.setAttribute("data-phase", card.phase);
    dom.form.classList.toggle("iw-hidden", decided || closed);
    const editable = card.phase === "open" && !closed;
    for (const field of dom.fields) for (const c of field.controls) (c as HTMLInputElement).disabled = !editable;
    if (dom.buttons.primary) dom.buttons.primary.disabled = !editable;
    if (dom.buttons.deny) dom.buttons.deny.disabled = !editable;
    dom.buttons.cancel.disabled = !(card.phase === "open" || card.phase === "expired") || closed;
    dom.form.setAttribute("aria-busy", card.phase === "pending" ? "true" : "false");

    // Countdown.
    if (decided || closed || card.remaining === null) dom.countdown.textContent = "";
    else if (card.remaining <= 0) dom.countdown.textContent = "Expired: it can only be cancelled";
    else dom.countdown.textContent = `Expires in ${formatRemaining(card.remaining)}`;

    // Errors beside fields; anything without a field goes above the buttons.
    const unplaced: string[] = [];
    const placed = [...leafFields(dom.spec.fields), ...(dom.spec.denyReason ? [dom.spec.denyReason] : [])];
    const known = new Set(placed.map((f) => f.pointer));
    for (const [path, messages] of Object.entries(card.fieldErrors)) {
      if (!known.has(path)) unplaced.push(...messages.map((m) => (path ? `${path}: ${m}` : m)));
    }
    for (const field of dom.fields) {
      const messages = card.fieldErrors[field.spec.pointer] ?? [];
      const text = messages.map((m) => `${field.spec.label} ${m}.`).join(" ");
      field.error.textContent = text;
      for (const c of field.controls) c.setAttribute("aria-invalid", messages.length ? "true" : "false");
    }
    const errorText = [card.error && unplaced.length === 0 ? card.error : "", ...unplaced].filter(Boolean).join(" ");
    if (!dom.cardError.textContent?.startsWith("The custom renderer failed") || errorText) {
      dom.cardError.textContent = errorText;
    }

    // Read-only summary, drawn from the saved answer.
    const key = card.decision ? JSON.stringify(card.decision) : "";
    if (key !== dom.lastDecision) {
      dom.lastDecision = key;
      dom.decision.replaceChildren();
      if (card.decision) {
        const d = card.decision;
        const parts = [
          h(doc, "span", { class: `iw-verdict iw-${d.tone}` }, d.verdict),
          ...d.details.map(([label, value]) => h(doc, "span", { class: "iw-detail" }, `${label}: ${value}`)),
          h(doc, "span", { class: "iw-by" }, `(${d.by})`),
        ];
        // Spaces between the parts, so the summary reads as a sentence when copied or spoken.
        parts.forEach((part, i) => dom.decision.append(...(i ? [doc.createTextNode(" "), part] : [part])));
        const hadFocus = dom.root.contains(doc.activeElement);
        dom.decision.classList.remove("iw-hidden");
        if (hadFocus) dom.decision.focus();
      } else {
        dom.decision.classList.add("iw-hidden");
      }
    }
  }

  function statusText(view: PickerView): string {
    if (view.status === "error") return view.error ? `Error: ${view.error}` : "Error";
    if (view.status === "submitted") return "Answers sent.";
    if (view.status === "expired") return "Expired: no answer was given in time.";
    return [view.error, view.progress].filter(Boolean).join(" · ");
  }

  return {
    update(view: PickerView): void {
      if (destroyed) return;
      const shown = new Set(view.cards.map((c) => c.id));
      for (const [id, dom] of cards) {
        if (shown.has(id)) continue;
        for (const fn of dom.cleanup) fn();
        dom.root.remove();
        cards.delete(id);
      }
      for (const card of view.cards) {
        let dom = cards.get(card.id);
        if (!dom) {
          dom = buildCard(card);
          cards.set(card.id, dom);
          root.appendChild(dom.root);
        }
        updateCard(dom, card, view.closed);
      }
      status.textContent = statusText(view);
      status.classList.toggle("iw-bad", view.status === "error" || (view.status === "waiting" && view.error !== ""));
    },
    destroy(): void {
      destroyed = true;
      for (const dom of cards.values()) for (const fn of dom.cleanup) fn();
      root.remove();
    },
  };
}
