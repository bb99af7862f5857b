// The custom messages between the inbox's views and Python, described once in
// `interrupt_widget/widgets/wire/inbox.schema.json` (Python: `inbox_protocol.py`); js/wire.test.ts
// checks what this module builds and reads against it. The list arrives as a snapshot (after
// this view's `hello`) and then as deltas; answers go out by `model.send`.

import type { AttachedMessage } from "../attached";
import { type AnswerStatus, type FieldError, newRequestId, settle, type WireInterrupt } from "../card";
import { asRecord, str } from "../json";

/** Where a waiting call lives, as a server-wide view (the JupyterLab sidebar) names it. */
export interface Where {
  /** "notebooks/pay.ipynb", "kernel 1a2b3c4d", "temporal pay-42". */
  label: string;
  /** The notebook's path on the server, when the call belongs to one. */
  path: string | null;
  /** The id of the cell that asked, in that notebook. */
  cellId: string | null;
  state: "running" | "closed" | "remote";
  source: "kernel" | "temporal" | "served";
  /** What the person should know before answering ("its notebook is closed: ..."), or "". */
  note: string;
}

/** One waiting call. */
export interface Item {
  id: string;
  key: string;
  tool: string;
  /** The arguments as one compact line. */
  args: string;
  interrupt: WireInterrupt;
  /** When its row began to wait, in milliseconds since the epoch. */
  since: number;
  expiresAt: string | null;
  /** Why the last answer to it was refused, or "". */
  error: string;
  /** What is known of an approved call that may have run (settled, not answered), or "". */
  doubt?: string;
  /** Where its conversation's runs can be seen (a Temporal Web UI), when known. */
  runLink?: string;
  /** Whether the inbox's person may answer it now (Python reads the call's rules about people). */
  mayAnswer?: boolean;
  /** Whether its question escalates (or has) to the inbox's person. */
  escalatesToMe?: boolean;
  /** Where it waits (a server-wide view only). */
  where?: Where;
  /** Who asked: the person whose run it is, when known (a server-wide view only). */
  askedBy?: string | null;
}

export interface ItemResult {
  id: string;
  ok: boolean;
  verdict: string;
  error: string;
  errors: FieldError[];
}

export type FromPython =
  | { type: "snapshot"; items: Item[] }
  | { type: "delta"; upsert: Item[]; remove: string[] }
  | { type: "answer_result"; requestId: string; results: ItemResult[] };

export function answerMessage(ids: string[], status: AnswerStatus, payload: unknown, viewId: string) {
  return { type: "answer", requestId: newRequestId(), ids, status, payload, viewId };
}

/** A person's word on item `id`'s call in doubt: it ran (`output`, its result) or it did not. */
export const settleMessage = (id: string, ran: boolean, output: string | undefined, viewId: string) =>
  settle({ id }, ran, output, viewId);

export function rememberMessage(id: string, field: string | null, op: "eq" | "le", viewId: string) {
  return { type: "remember", requestId: newRequestId(), id, field, op, viewId };
}

export const forgetMessage = (name: string) => ({ type: "forget", requestId: newRequestId(), name });

/** JS -> Python: every message an inbox's front end sends. */
export type ToKernel =
  | { type: "hello" }
  | AttachedMessage
  | ReturnType<typeof answerMessage>
  | ReturnType<typeof settleMessage>
  | ReturnType<typeof rememberMessage>
  | ReturnType<typeof forgetMessage>;

function isItem(value: unknown): value is Item {
  const r = asRecord(value);
  return typeof r?.id === "string" && typeof r.key === "string" && asRecord(r.interrupt) !== undefined;
}

function result(value: unknown): ItemResult {
  const r = asRecord(value) ?? {};
  const errors = Array.isArray(r.errors) ? (r.errors as FieldError[]) : [];
  return { id: str(r.id), ok: r.ok === true, verdict: str(r.verdict), error: str(r.error), errors };
}

/** The message from Python, or null when it is not one of the inbox's. */
export function parseMessage(message: unknown): FromPython | null {
  const r = asRecord(message);
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  if (r?.type === "snapshot") return { type: "snapshot", items: list(r.items).filter(isItem) };
  if (r?.type === "delta") {
    const remove = list(r.remove).filter((v): v is string => typeof v === "string");
    return { type: "delta", upsert: list(r.upsert).filter(isItem), remove };
  }
  if (r?.type === "answer_result" && typeof r.requestId === "string") {
    return { type: "answer_result", requestId: r.requestId, results: list(r.results).map(result) };
  }
  return null;
}
