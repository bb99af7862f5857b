// The picker's pure core: model traits and view events in, view state out.

import { asRecord } from "../json";
import { remainingMs } from "./countdown";
import type { AnswerResultMessage } from "./protocol";
import { type Decision, decisionOf } from "./summary";
import type { AnswerRecord, FieldError, PickerModel, PickerStatus, WireInterrupt } from "./types";

export type ModelState = Pick<
  PickerModel,
  "interrupts" | "answers" | "status" | "error" | "errors" | "renderers" | "calls" | "doubts"
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

export type CardPhase = "open" | "pending" | "expired" | "decided";

export interface CardView {
  id: string;
  interrupt: WireInterrupt;
  /** Tool name as Python reads it, or the reason when it is not a tool approval. */
  title: string;
  message: string;
  /** The tool's arguments, each value as display text. */
  args: Array<[string, string]>;
  phase: CardPhase;
  /** Set once decided. */
  decision: Decision | null;
  /** Field errors keyed by JSON pointer ("" for the answer as a whole). */
  fieldErrors: Record<string, string[]>;
  /** A card-level problem to show above the buttons. */
  error: string;
  /** Milliseconds left, null without a deadline. */
  remaining: number | null;
  /** ES module source replacing the built-in form, if any. */
  renderer: string | null;
  /** What is known of an approved call that may have run, or null: it is settled, not answered. */
  doubt: string | null;
}

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

function without<T>(record: Record<string, T>, key: string): Record<string, T> {
  const copy = { ...record };
  delete copy[key];
  return copy;
}

export function reduce(state: PickerState, event: PickerEvent): PickerState {
  switch (event.type) {
    case "model": {
      // An answer recorded (by anyone) settles this view's pending request for it; one
      // recorded by another view while this view's was on its way overrules this view.
      let pending = state.pending;
      let refusals = state.refusals;
      let overruled = state.overruled;
      for (const [id, record] of Object.entries(event.model.answers)) {
        const mine = pending[id];
        if (mine && byOther(state, record)) overruled = { ...overruled, [id]: mine };
        pending = without(pending, id);
        refusals = without(refusals, id);
      }
      return { ...state, model: event.model, pending, refusals, overruled };
    }
    case "checked":
      return event.errors.length
        ? { ...state, refusals: { ...state.refusals, [event.interruptId]: { error: "", errors: event.errors } } }
        : { ...state, refusals: without(state.refusals, event.interruptId) };
    case "sent":
      return {
        ...state,
        pending: { ...state.pending, [event.interruptId]: event.requestId },
        refusals: without(state.refusals, event.interruptId),
      };
    case "reply": {
      const requestId = event.reply.requestId;
      const entry = Object.entries(state.pending).find(([, sent]) => sent === requestId);
      if (!entry) {
        // Python recorded this view's answer after all (the record names someone else).
        const taken = Object.entries(state.overruled).find(([, sent]) => sent === requestId);
        if (taken && event.reply.ok) return { ...state, overruled: without(state.overruled, taken[0]) };
        return state; // another view's request
      }
      const [id] = entry;
      const pending = without(state.pending, id);
      if (event.reply.ok) return { ...state, pending };
      if (byOther(state, state.model.answers[id])) {
        return { ...state, pending, overruled: { ...state.overruled, [id]: requestId } };
      }
      const refusal = { error: event.reply.error, errors: event.reply.errors };
      return { ...state, pending, refusals: { ...state.refusals, [id]: refusal } };
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
  const errors = phase === "decided" ? [] : (refusal?.errors ?? model.errors[id] ?? []);
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
    error: phase === "decided" ? "" : (refusal?.error ?? ""),
    remaining,
    renderer: model.renderers[title] ?? model.renderers[interrupt.reason] ?? null,
    doubt: record ? null : (model.doubts?.[id] ?? null),
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
