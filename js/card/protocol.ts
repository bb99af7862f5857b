// What the card's messages share, in the picker's protocol and the inbox's alike (each
// described in `interrupt_widget/widgets/wire/`): the ids a view gives itself and its requests,
// a settle of a call in doubt, and the verdict a card waits for after answering.

import type { FieldError } from "./types";

let sequence = 0;

const random = (): string => Math.random().toString(36).slice(2, 10);

/** An id for one mounted view (letters, digits and '-', as Python accepts). */
export const newViewId = (): string => `view-${random()}`;

/** A request id unique across the views of one page (the picker's and the inbox's). */
export function newRequestId(): string {
  sequence += 1;
  return `${Date.now().toString(36)}-${sequence}-${random()}`;
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

/** Python -> a view: the verdict on one answer or settle a card sent (the inbox reads it out of
 * its own reply, which answers several calls at once). */
export interface AnswerResultMessage {
  type: "answer_result";
  requestId: string;
  ok: boolean;
  error: string;
  errors: FieldError[];
}
