// One interrupt's card: title, message, arguments, the form its schema asks for
// (or a custom renderer) and the buttons. The picker adds the read-only summary once
// decided (`js/picker/view.ts`); the inbox lets an answered call go.

import { button, h, hide, outLink } from "../dom";
import { str } from "../json";
import { approvalsOf, needsSeveral } from "./approvals";
import type { CardView } from "./card_view";
import { collect, denial, initialValues } from "./collect";
import { formatRemaining } from "./countdown";
import { type Change, changesOf, prefilled, proposalOf, withEdit, withoutEdit } from "./edits";
import { buildField, type FieldDom, readValues } from "./field_dom";
import type { AnswerResultMessage } from "./protocol";
import { loadRenderer, type ModuleLoader } from "./renderers";
import { type FormSpec, formFromSchema, type RawValues } from "./schema_form";
import type { AnswerStatus, FieldError, WireInterrupt } from "./types";

export interface ViewActions {
  /** Send an answer to Python; settles with its verdict. */
  answer(interruptId: string, status: AnswerStatus, payload: unknown): Promise<AnswerResultMessage>;
  /** Report problems the browser found before sending (empty list clears them). */
  checked(interruptId: string, errors: FieldError[]): void;
  /** Send a person's word on a call in doubt: it ran (with its result) or it did not. */
  settle(interruptId: string, ran: boolean, output?: string): Promise<AnswerResultMessage>;
}

/** What a card needs from the widget that holds it (a picker, or an inbox). */
export interface CardContext {
  /** Unique to this card in the page: the ids of its title and fields start with it. */
  idPrefix: string;
  actions: ViewActions;
  loader?: ModuleLoader;
  /** False once the card is gone (its picker unmounted, or another call opened in the inbox): a renderer
   * that loads late mounts nothing. */
  alive(): boolean;
}

/** A drawn card, redrawn in place from each new view of its interrupt. */
export interface Card {
  root: HTMLElement;
  update(card: CardView, closed: boolean): void;
  /** Runs the custom renderer's cleanup and takes the card out of the page. */
  destroy(): void;
}

const CUSTOM_FAILED = "The custom renderer failed";

function argsTable(args: CardView["args"]): HTMLElement {
  return h(
    "table",
    "iw-args",
    h("caption", "iw-hidden", "Arguments"),
    h("tbody", {}, ...args.map(([name, value]) => h("tr", {}, h("th", { scope: "row" }, name), h("td", {}, value)))),
  );
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

/** "Changes: Amount 5000 → 2500", as text (the values are the agent's and the person's). */
function drawChanges(into: HTMLElement, found: Change[]): void {
  hide(into, found.length === 0);
  into.replaceChildren(
    ...(found.length ? [h("span", "iw-changes-title", "Changes:")] : []),
    ...found.flatMap((change) => {
      const from = change.from === undefined ? "(none)" : JSON.stringify(change.from);
      const text = `${change.label} ${from} → ${JSON.stringify(change.to)}`;
      return [" ", h("span", { class: "iw-change", "data-arg": change.key }, text)];
    }),
  );
}

/** A part of the card, redrawn from each view; `done` once nothing is left to answer here
 * (the call was decided, or the picker closed). */
interface Part {
  root: HTMLElement;
  update(card: CardView, done: boolean): void;
}

const ASK: Record<"ran" | "not", [string, string]> = {
  ran: [
    "Record this text as the call's result? The tool will not run; the agent reads it.",
    "Confirm: record this result",
  ],
  not: ["Run the call now? Only if you checked that it did not run, or it may happen twice.", "Confirm: run it now"],
};

/** A call that may have run: what is known, and two answers that each ask to be confirmed. */
function doubtPart(ctx: CardContext, id: string): Part {
  let said: boolean | null = null;
  const choose = (choice: boolean | null): void => {
    said = choice;
    hide(choices, choice !== null);
    hide(confirming, choice === null);
    hide(result, choice !== true);
    [question.textContent, confirm.textContent] = choice ? ASK.ran : ASK.not;
    problem.textContent = "";
    (choice === null ? ran : choice ? output : confirm).focus();
  };
  const known = h("p", "iw-doubt-known");
  const ran = button("It ran: record this result", "", () => choose(true));
  const notRun = button("It did not run: run it now", "", () => choose(false));
  const choices = h("div", "iw-actions", ran, notRun);
  const problem = h("p", { class: "iw-card-error", role: "alert" });
  const output = h("textarea", {
    id: `${ctx.idPrefix}-result`,
    rows: 3,
    oninput: () => {
      problem.textContent = "";
    },
  });
  const result = h("label", { class: "iw-field", for: output.id }, "What the call returned", output);
  const question = h("p", "iw-doubt-ask");
  const confirm = button("", "iw-primary", () => {
    if (said === null) return;
    if (said && !output.value.trim()) problem.textContent = "Say what the call returned.";
    else void ctx.actions.settle(id, said, said ? output.value : undefined);
  });
  const back = button("Back", "", () => choose(null));
  const confirming = h("div", "iw-hidden", result, question, problem, h("div", "iw-actions", confirm, back));
  const root = h(
    "div",
    { class: "iw-doubt", role: "group", "aria-label": "This call may have run" },
    h("strong", {}, "May have run"),
    known,
    choices,
    confirming,
  );
  return {
    root,
    update(view: CardView, done: boolean): void {
      hide(root, !view.doubt || done);
      known.textContent = view.doubt ?? "";
      for (const b of [ran, notRun, confirm, back]) b.disabled = view.phase === "pending";
      const refused = [view.error, ...(view.fieldErrors[""] ?? [])].find(Boolean);
      if (refused) problem.textContent = refused;
    },
  };
}

/** Who has approved a call that needs several people, and who may still answer (as text),
 * redrawn from each new view: a partial approval asks again under the same interrupt id. */
function approvalsPart(): Part & { root: HTMLElement } {
  const root = h("div", { class: "iw-approvals iw-hidden", role: "group", "aria-label": "Approvals" });
  let drawn = "";
  return {
    root,
    update(view: CardView): void {
      const shown = approvalsOf(view.interrupt.metadata);
      const lines = shown ? [shown.progress, shown.denials, shown.who, shown.escalation].filter(Boolean) : [];
      const key = lines.join("\n");
      if (key === drawn) return;
      drawn = key;
      hide(root, lines.length === 0);
      root.replaceChildren(
        ...lines.map((line, i) => h("p", i === 0 ? "iw-approvals-progress" : "iw-approvals-line", line)),
      );
    },
  };
}

/** "Open in Temporal": the conversation's runs where they are kept, redrawn when the link changes. */
function runLinkPart(): Part {
  const root = h("span", "iw-run-link iw-hidden");
  let drawn: string | null = null;
  return {
    root,
    update({ runLink }: CardView): void {
      if (runLink === drawn) return;
      drawn = runLink;
      hide(root, runLink === null);
      root.replaceChildren(...(runLink === null ? [] : [outLink("Open in Temporal", runLink)]));
    },
  };
}

function countdownText(card: CardView, done: boolean): string {
  if (done || card.remaining === null) return "";
  if (card.remaining <= 0) return "Expired: it can only be cancelled";
  return `Expires in ${formatRemaining(card.remaining)}`;
}

export function buildCard(ctx: CardContext, card: CardView): Card {
  const { id, interrupt } = card;
  const titleId = `${ctx.idPrefix}-title`;
  const countdown = h("span", { class: "iw-countdown", "aria-live": "off" });
  const approvals = approvalsPart();
  const answer = answerForm(ctx, card, titleId);
  const doubt = doubtPart(ctx, id);
  const link = runLinkPart();
  const root = h(
    "section",
    { class: "iw-card", "data-interrupt-id": id, "aria-labelledby": titleId },
    h(
      "div",
      "iw-head",
      h("h3", { class: "iw-title", id: titleId }, card.title),
      card.title !== interrupt.reason && h("span", "iw-reason", interrupt.reason),
      link.root,
      countdown,
    ),
    card.message && h("p", "iw-message", card.message),
    card.args.length > 0 && argsTable(card.args),
    approvals.root,
    answer.form,
    doubt.root,
  );
  const cleanup: Array<() => void> = [];
  if (card.renderer) mountRenderer(ctx, card, answer, cleanup);

  return {
    root,
    update(view: CardView, closed: boolean): void {
      const { phase } = view;
      const decided = phase === "decided";
      root.classList.toggle("iw-decided", decided);
      root.setAttribute("data-phase", phase);
      for (const part of [answer, doubt, approvals, link]) part.update(view, decided || closed);
      countdown.textContent = countdownText(view, decided || closed);
    },
    destroy(): void {
      for (const fn of cleanup) fn();
      root.remove();
    },
  };
}

/** The answer form of a card: its fields, the deny reason, Approve / Deny / Cancel. */
interface AnswerForm {
  form: HTMLFormElement;
  body: HTMLElement;
  cardError: HTMLElement;
  /** Shows or hides the built-in form (a custom renderer draws its own). */
  showBuiltIn(shown: boolean): void;
  update(card: CardView, done: boolean): void;
}

/** The form for an interrupt's schema, and the arguments it proposes: an edit starts from them,
 * except on a call several people must approve, which offers no edit at all. */
function formOf(interrupt: WireInterrupt): [FormSpec, Record<string, unknown> | null] {
  const proposal = proposalOf(interrupt.metadata?.tool_input);
  const asked = formFromSchema(interrupt.responseSchema);
  return [needsSeveral(interrupt.metadata) ? withoutEdit(asked) : prefilled(asked, proposal), proposal];
}

/** Approve (Submit for a plain question), Deny with its reason where the schema allows it, Cancel. */
function answerButtons(
  spec: FormSpec,
  reasonDom: FieldDom[],
  send: (status: AnswerStatus, payload: unknown) => void,
): [HTMLButtonElement, HTMLButtonElement | false, HTMLButtonElement] {
  const deny = () => {
    const [said] = Object.values(readValues(reasonDom)); // the reason's text, when it is drawn
    send("resolved", denial(str(said)));
  };
  return [
    button(spec.approval ? "Approve" : "Submit", "iw-primary", undefined, "submit"),
    spec.canDeny && button("Deny", "iw-danger", deny),
    button("Cancel", "", () => send("cancelled", null)),
  ];
}

/**
 * The form built from the interrupt's response schema, with an editable call's fields
 * starting from the proposal; submitting checks the fields as Python will and sends the
 * answer, with an edit in full, through the card's actions.
 */
function answerForm(ctx: CardContext, card: CardView, titleId: string): AnswerForm {
  const { actions } = ctx;
  const { id, interrupt } = card;
  const [spec, proposal] = formOf(interrupt);
  const raw = initialValues(spec.fields);
  const fields: FieldDom[] = [];
  const body = h("div", "iw-fields", ...spec.fields.map((field) => buildField(ctx, field, raw, fields)));
  const reasonDom: FieldDom[] = [];
  const reason = denyReasonField(ctx, spec, raw, reasonDom);
  fields.push(...reasonDom);
  const send = (status: AnswerStatus, payload: unknown): void => void actions.answer(id, status, payload);
  const collected = () => collect(spec, readValues(fields));
  // What an edit changes, kept in view beside Approve so nobody approves a change unseen.
  const changes = h("p", { class: "iw-changes iw-hidden", "aria-live": "polite" });
  const showChanges = (): void => {
    drawChanges(changes, changesOf(spec, collected().payload, proposal));
    primary.textContent = changes.classList.contains("iw-hidden") ? "Approve" : "Approve with changes";
  };
  const cardError = h("p", { class: "iw-card-error", role: "alert" });
  const [primary, deny, cancel] = answerButtons(spec, reasonDom, send);
  const edits = spec.edit ? showChanges : undefined;
  const form = h(
    "form",
    {
      class: "iw-form",
      novalidate: "",
      "aria-labelledby": titleId,
      onsubmit: (event) => {
        event.preventDefault();
        if (primary.disabled) return;
        const { payload, errors } = collected();
        actions.checked(id, errors);
        if (errors.length === 0) send("resolved", withEdit(spec, payload, proposal));
        else fields.find((f) => f.spec.pointer === errors[0]?.path)?.controls[0]?.focus();
      },
      oninput: edits,
      onchange: edits,
    },
    body,
    reason,
    spec.edit && changes,
    cardError,
    h("div", "iw-actions", primary, deny, cancel),
  );
  const drawErrors = errorDrawer(fields, cardError);
  return {
    form,
    body,
    cardError,
    showBuiltIn(shown) {
      for (const el of [body, reason, primary, deny]) if (el) hide(el, !shown);
    },
    update(view, done) {
      lockForm(view, done, form, fields, [primary, deny, cancel]);
      drawErrors(view);
    },
  };
}

/** Hides the form once it has nothing to ask, and disables what cannot be answered now. */
function lockForm(
  { phase, doubt }: CardView,
  done: boolean,
  form: HTMLFormElement,
  fields: FieldDom[],
  [primary, deny, cancel]: [HTMLButtonElement, HTMLButtonElement | false, HTMLButtonElement],
): void {
  const locked = phase !== "open" || done;
  hide(form, done || doubt !== null);
  for (const field of fields) for (const c of field.controls) (c as HTMLInputElement).disabled = locked;
  primary.disabled = locked;
  if (deny) deny.disabled = locked;
  cancel.disabled = done || !(phase === "open" || phase === "expired");
  form.setAttribute("aria-busy", String(phase === "pending"));
}

/** A custom renderer drawn in place of the built-in form; on failure, the form comes back and says why. */
function mountRenderer(ctx: CardContext, card: CardView, answer: AnswerForm, cleanup: Array<() => void>): void {
  const { actions } = ctx;
  const { id, interrupt, renderer } = card;
  if (!renderer) return;
  const host = h("div", "iw-custom");
  answer.form.insertBefore(host, answer.body);
  answer.showBuiltIn(false);
  loadRenderer(renderer, ctx.loader)
    .then(async (render) => {
      if (!ctx.alive()) return;
      const done = await render({
        interrupt,
        el: host,
        resolve: (payload) => actions.answer(id, "resolved", payload),
        cancel: () => actions.answer(id, "cancelled", null),
        showForm: () => answer.showBuiltIn(true),
      });
      if (typeof done === "function") cleanup.push(done);
    })
    .catch((err: unknown) => {
      host.remove();
      answer.showBuiltIn(true);
      answer.cardError.textContent = `${CUSTOM_FAILED}: ${err instanceof Error ? err.message : String(err)}`;
    });
}

/** Draws a view's errors beside their fields; errors for any other path go above the buttons. */
function errorDrawer(fields: FieldDom[], cardError: HTMLElement): (view: CardView) => void {
  const placed = new Set(fields.map((f) => f.spec.pointer));
  return (view) => {
    const unplaced: string[] = [];
    for (const [path, messages] of Object.entries(view.fieldErrors)) {
      if (!placed.has(path)) unplaced.push(...messages.map((m) => (path ? `${path}: ${m}` : m)));
    }
    for (const { spec: field, controls, error } of fields) {
      const messages = view.fieldErrors[field.pointer] ?? [];
      error.textContent = messages.map((m) => `${field.label} ${m}.`).join(" ");
      for (const c of controls) c.setAttribute("aria-invalid", String(messages.length > 0));
    }
    const text = [unplaced.length ? "" : view.error, ...unplaced].filter(Boolean).join(" ");
    // A renderer's failure stays in view until there is something else to say.
    if (!cardError.textContent?.startsWith(CUSTOM_FAILED) || text) cardError.textContent = text;
  };
}
