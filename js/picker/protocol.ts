// The custom messages between the picker's views and Python; mirrors
// `interrupt_widget/picker_protocol.py`. User actions go through `model.send`
// (never trait + save_changes: ipykernel 7.4 stalls a widget's later saves).

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

/** Python -> every view: the verdict on one `AnswerMessage`. */
export interface AnswerResultMessage {
  type: "answer_result";
  requestId: string;
  ok: boolean;
  error: string;
  errors: FieldError[];
}

let sequence = 0;

/** A request id unique across the views of one page. */
export function newRequestId(): string {
  sequence += 1;
  const random = Math.random().toString(36).slice(2, 10);
  return `${Date.now().toString(36)}-${sequence}-${random}`;
}

/** An id for one mounted view (letters, digits and '-', as Python accepts). */
export function newViewId(): string {
  return `view-${Math.random().toString(36).slice(2, 10)}`;
}

export function answerMessage(
  interruptId: string,
  status: AnswerStatus,
  payload: unknown,
  requestId: string = newRequestId(),
  viewId?: string,
): AnswerMessage {
  const message: AnswerMessage = {
    type: "answer",
    requestId,
    interruptId,
    status,
    payload: status === "cancelled" ? null : payload,
  };
  return viewId === undefined ? message : { ...message, viewId };
}

function isFieldError(value: unknown): value is FieldError {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.path === "string" && typeof record.message === "string";
}

/** The reply in a custom message, or null when the message is something else. */
export function parseAnswerResult(message: unknown): AnswerResultMessage | null {
  if (typeof message !== "object" || message === null) return null;
  const record = message as Record<string, unknown>;
  if (record.type !== "answer_result" || typeof record.requestId !== "string") return null;
  const errors = Array.isArray(record.errors) ? record.errors.filter(isFieldError) : [];
  return {
    type: "answer_result",
    requestId: record.requestId,
    ok: record.ok === true,
    error: typeof record.error === "string" ? record.error : "",
    errors,
  };
}
