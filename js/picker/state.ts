// The picker's pure core: model traits and view events in, view state out.

import {
  type AnswerRecord,
  type AnswerResultMessage,
  type CardPhase,
  type CardView,
  decisionOf,
  type FieldError,
  remainingMs,
  type WireInterrupt,
} from "../card";
import { asRecord } from "../json";
import type { PickerModel, PickerStatus } from "./types";

export type ModelState = Pick<
  PickerModel,
  "interrupts" | "answers" | "status" | "error" | "errors" | "renderers" | "calls" | "doubts" | "run_link"
>;

export interface PickerState {
  model: ModelState;
  /** interruptId -> requestId of the answer this view sent and Python has not replied to. */
  pending: Record<string, string>;
  /** Problems found (in the browser or in Python's reply) with this view's last attempt. */
  refusals: Record<string, { error: string; errors: FieldError[] }>;
  now: number;
  /** This view's id, sent with its answers (recorded as by `view:<id>`). */
  viewId?: string;
  /** interruptId -> requestId of this view's answer that another view's answer overtook. */
  overruled: Record<string, string>;
}

export type PickerEvent =
  | { type: "model"; model: ModelState }
  | { type: "checked"; interruptId: string; errors: FieldError[] }
  | { type: "sent"; interruptId: string; requestId: string }
  | { type: "reply"; reply: AnswerResultMessage }
  | { type: "tick"; now: number };

export interface PickerView {
  status: PickerStatus;
  /** Read-only summary: the answers went out (or it failed). */
  closed: boolean;
  error: string;
  cards: CardView[];
  /** True while some open card counts down. */
  ticking: boolean;
  /** "2 of 3 answered", for the header. */
  progress: string;
}

export function initialState(model: ModelState, now: number, viewId?: string): PickerState {
  return { model, pending: {}, refusals: {}, now, viewId, overruled: {} };
}

/** True when `record` was given by someone other than this view. */
function byOther(state: PickerState, record: AnswerRecord | undefined): boolean {
  return record !== undefined && (state.viewId === undefined || record.by !== `view:${state.viewId}`);
}

/** `record` without `key`, or with it set to `value`. */
function put<T>(record: Record<string, T>, key: string, value?: T): Record<string, T> {
  const { [key]: _gone, ...rest } = record;
  return value === undefined ? rest : { ...rest, [key]: value };
}

/** The request id and interrupt of this view's request `requestId` in `sent`, if it is there. */
const sentAs = (sent: Record<string, string>, requestId: string): string | undefined =>
  Object.keys(sent).find((id) => sent[id] === requestId);

export function reduce(state: PickerState, event: PickerEvent): PickerState {
  let { pending, refusals, overruled } = state;
  switch (event.type) {
    case "model":
      // An answer recorded (by anyone) settles this view's pending request for it; one
      // recorded by another view while this view's was on its way overrules this view.
      for (const [id, record] of Object.entries(event.model.answers)) {
        const mine = pending[id];
        if (mine && byOther(state, record)) overruled = put(overruled, id, mine);
        pending = put(pending, id);
        refusals = put(refusals, id);
      }
      return { ...state, model: event.model, pending, refusals, overruled };
    case "checked": {
      const { interruptId: id, errors } = event;
      return { ...state, refusals: put(refusals, id, errors.length ? { error: "", errors } : undefined) };
    }
    case "sent":
      return {
        ...state,
        pending: put(pending, event.interruptId, event.requestId),
        refusals: put(refusals, event.interruptId),
      };
    case "reply": {
      const { requestId, ok } = event.reply;
      const id = sentAs(pending, requestId);
      if (id === undefined) {
        // Python recorded this view's answer after all (the record names someone else).
        const taken = sentAs(overruled, requestId);
        return taken !== undefined && ok ? { ...state, overruled: put(overruled, taken) } : state;
      }
      pending = put(pending, id);
      if (ok) return { ...state, pending };
      if (byOther(state, state.model.answers[id]))
        return { ...state, pending, overruled: put(overruled, id, requestId) };
      return {
        ...state,
        pending,
        refusals: put(refusals, id, { error: event.reply.error, errors: event.reply.errors }),
      };
    }
    case "tick":
      return { ...state, now: event.now };
  }
}

/** Rows from parsed arguments, when Python sent none (a number JSON.parse rounded shows rounded). */
function argsOf(args: unknown): Array<[string, string]> {
  return Object.entries(asRecord(args) ?? {}).map(([key, value]): [string, string] => [
    key,
    typeof value === "string" ? value : JSON.stringify(value),
  ]);
}

function groupErrors(errors: FieldError[]): Record<string, string[]> {
  const grouped: Record<string, string[]> = {};
  for (const { path, message } of errors) grouped[path] = [...(grouped[path] ?? []), message];
  return grouped;
}

function cardOf(state: PickerState, interrupt: WireInterrupt): CardView {
  const { model } = state;
  const { id } = interrupt;
  const record: AnswerRecord | undefined = model.answers[id];
  const remaining = remainingMs(interrupt.expiresAt, state.now);
  const refusal = state.refusals[id];
  let phase: CardPhase = "open";
  if (record) phase = "decided";
  else if (state.pending[id]) phase = "pending";
  else if (remaining !== null && remaining <= 0) phase = "expired";
  // A decided card draws neither its form nor its doubt (card_dom.ts), so their errors stay as they are.
  const errors = refusal?.errors ?? model.errors[id] ?? [];
  const call = model.calls[id];
  const title = call?.name ?? interrupt.reason;
  return {
    id,
    interrupt,
    title,
    message: interrupt.message ?? "",
    args: call?.shown ?? argsOf(call?.arguments),
    phase,
    decision: record
      ? {
          ...decisionOf(record, state.viewId, call?.arguments ?? interrupt.metadata?.tool_input),
          elsewhere: Boolean(state.overruled[id]),
        }
      : null,
    fieldErrors: groupErrors(errors),
    error: refusal?.error ?? "",
    remaining,
    renderer: model.renderers[title] ?? model.renderers[interrupt.reason] ?? null,
    doubt: model.doubts?.[id] ?? null,
    runLink: model.run_link || null,
  };
}

export function viewOf(state: PickerState): PickerView {
  const { model } = state;
  const cards = model.interrupts.map((i) => cardOf(state, i));
  const closed = model.status !== "waiting";
  const answered = cards.filter((c) => c.phase === "decided").length;
  return {
    status: model.status,
    closed,
    error: model.error,
    cards,
    ticking: !closed && cards.some((c) => c.remaining !== null && c.phase !== "decided"),
    progress: cards.length > 1 ? `${answered} of ${cards.length} answered` : "",
  };
}
