// The custom messages between the picker's views and Python, described once in
// `interrupt_widget/widgets/wire/picker.schema.json` (Python: `picker_protocol.py`); js/wire.test.ts
// checks what this module builds and reads against it. User actions go through `model.send`
// (never trait + save_changes: ipykernel 7.4 stalls a widget's later saves).

import type { AttachedMessage } from "../attached";
import { asRecord, str } from "../json";
import type { AnswerStatus, FieldError } from "./types";

/** View -> Python: one answer (or cancel) for one interrupt. */
export interface AnswerMessage {
  type: "answer";
  requestId: string;
  interruptId: string;
  status: AnswerStatus;
  payload: unknown;
  /** The view that sent it; Python records the answer as by `view:<viewId>`. */
  viewId?: string;
}

/** View -> Python: a person's word on a call in doubt (it ran, with its result; or it did not).
 * The picker names the call by `interruptId`, the inbox by its item's `id`: one definition. */
export type Settle<Target extends { interruptId: string } | { id: string }> = Target & {
  type: "settle";
  requestId: string;
  ran: boolean;
  output?: string;
  viewId?: string;
};

export type SettleMessage = Settle<{ interruptId: string }>;

/** JS -> Python: every message a picker's front end sends. */
export type ToKernel = AnswerMessage | SettleMessage | AttachedMessage;

/** Python -> every view: the verdict on one `AnswerMessage`. */
export interface AnswerResultMessage {
  type: "answer_result";
  requestId: string;
  ok: boolean;
  error: string;
  errors: FieldError[];
}

let sequence = 0;

const random = (): string => Math.random().toString(36).slice(2, 10);

/** An id for one mounted view (letters, digits and '-', as Python accepts). */
export const newViewId = (): string => `view-${random()}`;

/** A request id unique across the views of one page (the picker's and the inbox's). */
export function newRequestId(): string {
  sequence += 1;
  return `${Date.now().toString(36)}-${sequence}-${random()}`;
}

/** One answer from view `viewId`. */
export function answerMessage(
  interruptId: string,
  status: AnswerStatus,
  payload: unknown,
  viewId: string,
): AnswerMessage {
  return { type: "answer", requestId: newRequestId(), interruptId, status, payload, viewId };
}

/** One settle of `target` from view `viewId`: `output` is given only for a call that ran. */
export function settle<Target extends { interruptId: string } | { id: string }>(
  target: Target,
  ran: boolean,
  output: string | undefined,
  viewId: string,
): Settle<Target> {
  const message = { ...target, type: "settle" as const, requestId: newRequestId(), ran, viewId };
  return ran ? { ...message, output } : message;
}

/** The picker's settle: of interrupt `interruptId`. */
export const settleMessage = (interruptId: string, ran: boolean, output: string | undefined, viewId: string) =>
  settle({ interruptId }, ran, output, viewId);

function isFieldError(value: unknown): value is FieldError {
  const fields = asRecord(value);
  return typeof fields?.path === "string" && typeof fields.message === "string";
}

/** The reply in a custom message, or null when the message is something else. */
export function parseAnswerResult(message: unknown): AnswerResultMessage | null {
  const record = asRecord(message);
  if (record?.type !== "answer_result" || typeof record.requestId !== "string") return null;
  const errors = Array.isArray(record.errors) ? record.errors.filter(isFieldError) : [];
  return {
    type: "answer_result",
    requestId: record.requestId,
    ok: record.ok === true,
    error: str(record.error),
    errors,
  };
}
