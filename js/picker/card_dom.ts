// One interrupt's card: title, message, arguments, the form its schema asks for
// (or a custom renderer), the buttons, and the read-only summary once decided.

import { h } from "../dom";
import { formatRemaining } from "./countdown";
import { buildField, type FieldDom, readValues } from "./field_dom";
import {
  type Change,
  changesOf,
  collect,
  denial,
  type FormSpec,
  formFromSchema,
  initialValues,
  leafFields,
  prefilled,
  proposalOf,
  type RawValues,
  withEditOnly,
} from "./form";
import type { AnswerResultMessage } from "./protocol";
import { loadRenderer, type ModuleLoader } from "./renderers";
import type { CardView } from "./state";
import type { AnswerStatus, FieldError } from "./types";

export interface ViewActions {
  /** Send an answer to Python; settles with its verdict. */
  answer(interruptId: string, status: AnswerStatus, payload: unknown): Promise<AnswerResultMessage>;
  /** Report problems the browser found before sending (empty list clears them). */
  checked(interruptId: string, errors: FieldError[]): void;
}

/** What a card needs from the picker that holds it. */
export interface CardContext {
  doc: Document;
  /** Unique to this card in the page: the ids of its title and fields start with it. */
  idPrefix: string;
  actions: ViewActions;
  loader?: ModuleLoader;
  /** False once the picker is gone: a renderer that loads late mounts nothing. */
  alive(): boolean;
}

export interface CardDom {
  root: HTMLElement;
  countdown: HTMLElement;
  form: HTMLFormElement;
  body: HTMLElement;
  custom: HTMLElement | null;
  cardError: HTMLElement;
  decision: HTMLElement;
  buttons: { primary: HTMLButtonElement; deny: HTMLButtonElement | null; cancel: HTMLButtonElement };
  fields: FieldDom[];
  spec: FormSpec;
  cleanup: Array<() => void>;
  lastDecision: string;
}

const CUSTOM_FAILED = "The custom renderer failed";

function head(doc: Document, card: CardView, titleId: string): [HTMLElement, HTMLElement] {
  const row = h(doc, "div", { class: "iw-head" });
  row.appendChild(h(doc, "h3", { class: "iw-title", id: titleId }, card.title));
  if (card.title !== card.interrupt.reason)
    row.appendChild(h(doc, "span", { class: "iw-reason" }, card.interrupt.reason));
  const countdown = h(doc, "span", { class: "iw-countdown", "aria-live": "off" });
  row.appendChild(countdown);
  return [row, countdown];
}

function argsTable(doc: Document, args: CardView["args"]): HTMLElement {
  const table = h(doc, "table", { class: "iw-args" });
  table.appendChild(h(doc, "caption", { class: "iw-hidden" }, "Arguments"));
  const body = h(doc, "tbody");
  for (const [name, value] of args) {
    const row = h(doc, "tr");
    row.append(h(doc, "th", { scope: "row" }, name), h(doc, "td", {}, value));
    body.appendChild(row);
  }
  table.appendChild(body);
  return table;
}

/** The optional reason beside Deny: one line is enough, and its label says what it is for. */
function denyReasonField(ctx: CardContext, spec: FormSpec, raw: RawValues, out: FieldDom[]): HTMLElement | null {
  const base = spec.denyReason;
  if (!base) return null;
  const control = base.control.kind === "text" ? { ...base.control, multiline: false } : base.control;
  const reasonSpec = { ...base, label: "Reason for denying (optional)", description: undefined, control };
  const field = buildField(ctx, reasonSpec, raw, out);
  field.classList.add("iw-deny-reason");
  return field;
}

function button(doc: Document, text: string, cls: string, type: "submit" | "button" = "button"): HTMLButtonElement {
  return h(doc, "button", { type, class: cls }, text);
}

export function buildCard(ctx: CardContext, card: CardView): CardDom {
  const { doc, actions } = ctx;
  const titleId = `${ctx.idPrefix}-title`;
  const root = h(doc, "section", { class: "iw-card", "data-interrupt-id": card.id, "aria-labelledby": titleId });
  const [headRow, countdown] = head(doc, card, titleId);
  root.appendChild(headRow);
  if (card.message) root.appendChild(h(doc, "p", { class: "iw-message" }, card.message));
  if (card.args.length) root.appendChild(argsTable(doc, card.args));

  const proposal = proposalOf(card.interrupt.metadata?.tool_input);
  const spec = prefilled(formFromSchema(card.interrupt.responseSchema), proposal);
  const form = h(doc, "form", { class: "iw-form", novalidate: "", "aria-labelledby": titleId });
  const body = h(doc, "div", { class: "iw-fields" });
  const fields: FieldDom[] = [];
  const raw = initialValues(spec.fields);
  for (const field of spec.fields) body.appendChild(buildField(ctx, field, raw, fields));
  form.appendChild(body);
  const reasonDom: FieldDom[] = [];
  const reason = denyReasonField(ctx, spec, raw, reasonDom);
  if (reason) form.appendChild(reason);
  fields.push(...reasonDom);
  // What an edit changes, kept in view beside Approve so nobody approves a change unseen.
  const changes = h(doc, "p", { class: "iw-changes iw-hidden", "aria-live": "polite" });
  if (spec.edit) form.appendChild(changes);
  const cardError = h(doc, "p", { class: "iw-card-error", role: "alert" });
  const buttonRow = h(doc, "div", { class: "iw-actions" });
  const primary = button(doc, spec.approval ? "Approve" : "Submit", "iw-primary", "submit");
  const deny = spec.canDeny ? button(doc, "Deny", "iw-danger") : null;
  const cancel = button(doc, "Cancel", "");
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
  form.addEventListener("submit", (event: Event) => {
    event.preventDefault();
    if (primary.disabled) return;
    const result = collect(spec, readValues(fields), { approved: true });
    actions.checked(card.id, result.errors);
    if (result.errors.length === 0) send("resolved", withEditOnly(spec, result.payload, proposal));
    else focusFirstError(dom, result.errors);
  });
  if (spec.edit) {
    const showChanges = (): void => {
      const result = collect(spec, readValues(fields), { approved: true });
      drawChanges(doc, changes, changesOf(spec, result.payload, proposal));
      primary.textContent = changes.classList.contains("iw-hidden") ? "Approve" : "Approve with changes";
    };
    form.addEventListener("input", showChanges);
    form.addEventListener("change", showChanges);
  }
  deny?.addEventListener("click", () => {
    const said = reasonDom[0] ? readValues(reasonDom)[reasonDom[0].spec.dataField] : "";
    send("resolved", denial(typeof said === "string" ? said : ""));
  });
  cancel.addEventListener("click", () => send("cancelled", null));

  if (card.renderer) mountCustom(ctx, dom, card);
  return dom;
}

/** "Changes: Amount 5000 → 2500", as text (the values are the agent's and the person's). */
function drawChanges(doc: Document, into: HTMLElement, found: Change[]): void {
  into.replaceChildren();
  into.classList.toggle("iw-hidden", found.length === 0);
  if (found.length === 0) return;
  into.appendChild(h(doc, "span", { class: "iw-changes-title" }, "Changes:"));
  for (const change of found) {
    const from = change.from === undefined ? "(none)" : JSON.stringify(change.from);
    into.append(
      doc.createTextNode(" "),
      h(
        doc,
        "span",
        { class: "iw-change", "data-arg": change.key },
        `${change.label} ${from} → ${JSON.stringify(change.to)}`,
      ),
    );
  }
}

function showBuiltIn(dom: CardDom, shown: boolean): void {
  dom.body.classList.toggle("iw-hidden", !shown);
  dom.form.querySelector(".iw-deny-reason")?.classList.toggle("iw-hidden", !shown);
  dom.buttons.primary.classList.toggle("iw-hidden", !shown);
  dom.buttons.deny?.classList.toggle("iw-hidden", !shown);
}

function mountCustom(ctx: CardContext, dom: CardDom, card: CardView): void {
  const host = h(ctx.doc, "div", { class: "iw-custom" });
  dom.form.insertBefore(host, dom.body);
  showBuiltIn(dom, false);
  dom.custom = host;
  loadRenderer(card.renderer ?? "", ctx.loader)
    .then(async (render) => {
      if (!ctx.alive()) return;
      const cleanup = await render({
        interrupt: card.interrupt,
        el: host,
        resolve: (payload) => ctx.actions.answer(card.id, "resolved", payload),
        cancel: () => ctx.actions.answer(card.id, "cancelled", null),
        showForm: () => showBuiltIn(dom, true),
      });
      if (typeof cleanup === "function") dom.cleanup.push(cleanup);
    })
    .catch((err: unknown) => {
      // Fall back to the built-in form, and say why.
      host.remove();
      dom.custom = null;
      showBuiltIn(dom, true);
      dom.cardError.textContent = `${CUSTOM_FAILED}: ${err instanceof Error ? err.message : String(err)}`;
    });
}

function focusFirstError(dom: CardDom, errors: FieldError[]): void {
  const first = errors[0];
  const field = dom.fields.find((f) => f.spec.pointer === first?.path);
  field?.controls[0]?.focus();
}

function updateControls(dom: CardDom, card: CardView, closed: boolean): void {
  const editable = card.phase === "open" && !closed;
  for (const field of dom.fields) for (const c of field.controls) (c as HTMLInputElement).disabled = !editable;
  dom.buttons.primary.disabled = !editable;
  if (dom.buttons.deny) dom.buttons.deny.disabled = !editable;
  dom.buttons.cancel.disabled = !(card.phase === "open" || card.phase === "expired") || closed;
  dom.form.setAttribute("aria-busy", card.phase === "pending" ? "true" : "false");
}

function countdownText(card: CardView, closed: boolean): string {
  if (card.phase === "decided" || closed || card.remaining === null) return "";
  if (card.remaining <= 0) return "Expired: it can only be cancelled";
  return `Expires in ${formatRemaining(card.remaining)}`;
}

/** Errors beside fields; anything without a field goes above the buttons. */
function updateErrors(dom: CardDom, card: CardView): void {
  const unplaced: string[] = [];
  const placed = [...leafFields(dom.spec.fields), ...(dom.spec.denyReason ? [dom.spec.denyReason] : [])];
  const known = new Set(placed.map((f) => f.pointer));
  for (const [path, messages] of Object.entries(card.fieldErrors)) {
    if (!known.has(path)) unplaced.push(...messages.map((m) => (path ? `${path}: ${m}` : m)));
  }
  for (const field of dom.fields) {
    const messages = card.fieldErrors[field.spec.pointer] ?? [];
    field.error.textContent = messages.map((m) => `${field.spec.label} ${m}.`).join(" ");
    for (const c of field.controls) c.setAttribute("aria-invalid", messages.length ? "true" : "false");
  }
  const errorText = [card.error && unplaced.length === 0 ? card.error : "", ...unplaced].filter(Boolean).join(" ");
  if (!dom.cardError.textContent?.startsWith(CUSTOM_FAILED) || errorText) dom.cardError.textContent = errorText;
}

/** The read-only summary, drawn from the saved answer. */
function updateDecision(doc: Document, dom: CardDom, card: CardView): void {
  const key = card.decision ? JSON.stringify(card.decision) : "";
  if (key === dom.lastDecision) return;
  dom.lastDecision = key;
  dom.decision.replaceChildren();
  const d = card.decision;
  if (!d) {
    dom.decision.classList.add("iw-hidden");
    return;
  }
  const parts = [
    // The person clicked here too: say that their answer was not the one taken.
    ...(d.elsewhere ? [h(doc, "span", { class: "iw-elsewhere" }, "Answered elsewhere:")] : []),
    h(doc, "span", { class: `iw-verdict iw-${d.tone}` }, d.verdict),
    ...d.details.map(([label, value]) => h(doc, "span", { class: "iw-detail" }, `${label}: ${value}`)),
    h(doc, "span", { class: "iw-by" }, `(${d.by})`),
  ];
  // Spaces between the parts, so the summary reads as a sentence when copied or spoken.
  parts.forEach((part, i) => {
    dom.decision.append(...(i ? [doc.createTextNode(" "), part] : [part]));
  });
  const hadFocus = dom.root.contains(doc.activeElement);
  dom.decision.classList.remove("iw-hidden");
  if (hadFocus) dom.decision.focus();
}

export function updateCard(doc: Document, dom: CardDom, card: CardView, closed: boolean): void {
  const decided = card.phase === "decided";
  dom.root.classList.toggle("iw-decided", decided);
  dom.root.setAttribute("data-phase", card.phase);
  dom.form.classList.toggle("iw-hidden", decided || closed);
  updateControls(dom, card, closed);
  dom.countdown.textContent = countdownText(card, closed);
  updateErrors(dom, card);
  updateDecision(doc, dom, card);
}
