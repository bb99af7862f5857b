// The chat widget's wire contract, described once in
// `interrupt_widget/widgets/wire/chat.schema.json` (Python: `chat_protocol.py`); js/wire.test.ts
// checks what this module builds and reads against it. Traits hold what a freshly drawn view
// needs; custom messages carry the stream (Python -> JS) and user actions (JS -> Python, never
// trait + save_changes).

import type { AttachedMessage } from "../attached";
import { newRequestId } from "../card";
import { asRecord } from "../json";

/** An AG-UI event as camelCase wire JSON. Only the fields the transcript reads are typed. */
export interface WireEvent {
  type: string;
  [field: string]: unknown;
}

/** An AG-UI message as camelCase wire JSON. */
export interface WireMessage {
  id: string;
  role: string;
  content?: unknown;
  toolCalls?: WireToolCall[];
  toolCallId?: string;
  error?: string;
  [field: string]: unknown;
}

export interface WireToolCall {
  id: string;
  type?: string;
  function: { name: string; arguments: string };
  [field: string]: unknown;
}

export type ChatStatus = "idle" | "running" | "waiting" | "done" | "cancelled" | "error";

/** Synced traits of the chat model. */
export interface ChatModel {
  kind: "chat";
  messages: WireMessage[];
  status: ChatStatus;
  status_line: string;
  picker: string | null;
  [trait: string]: unknown;
}

/** Python -> JS. */
export type ToFrontEnd =
  | { type: "events"; events: WireEvent[] }
  | { type: "catchup"; events: WireEvent[] }
  | { type: "prompt_result"; requestId: string; ok: boolean; error?: string };

/** JS -> Python. */
export type ToKernel =
  | { type: "prompt"; text: string; requestId: string }
  | { type: "stop" }
  | { type: "hello" }
  | AttachedMessage;

/** A person's message for the agent, with a request id unique on the page (the picker's). */
export function promptMessage(text: string): ToKernel {
  return { type: "prompt", text, requestId: newRequestId() };
}

export function isToFrontEnd(msg: unknown): msg is ToFrontEnd {
  const fields = asRecord(msg);
  if (fields?.type === "events" || fields?.type === "catchup") return Array.isArray(fields.events);
  return fields?.type === "prompt_result";
}
