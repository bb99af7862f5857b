// The custom messages between the picker's views and Python, described once in
// `interrupt_widget/widgets/wire/picker.schema.json` (Python: `picker_protocol.py`); js/wire.test.ts
// checks what this module builds and reads against it. User actions go through `model.send`
// (never trait + save_changes: ipykernel 7.4 stalls a widget's later saves).

import type { AttachedMessage } from "../attached";
import {
  type AnswerResultMessage,
  type AnswerStatus,
  type FieldError,
  newRequestId,
  type Settle,
  settle,
} from "../card";
import { asRecord, str } from "../json";

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

export type SettleMessage = Settle<{ interruptId: string }>;

/** JS -> Python: every message a picker's front end sends. */
export type ToKernel = AnswerMessage | SettleMessage | AttachedMessage;

/** One answer from view `viewId`. */
export function answerMessage(
  interruptId: string,
  status: AnswerStatus,
  payload: unknown,
  viewId: string,
): AnswerMessage {
  return { type: "answer", requestId: newRequestId(), interruptId, status, payload, viewId };
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
