// Pure transcript state: committed AG-UI messages plus the live events of the
// run in progress, reduced to what the view draws. No DOM here.

import { answererWords } from "../card";
import { asRecord, str } from "../json";
import type { WireEvent, WireMessage } from "./protocol";

export interface UserItem {
  kind: "user";
  id: string;
  text: string;
}

export interface AssistantItem {
  kind: "assistant";
  id: string;
  text: string;
  streaming: boolean;
  /** The type's name when the text is the agent's structured output (JSON), as the message's
   * `output_type` metadata says; absent for a plain reply. */
  outputType?: string;
}

export interface ToolItem {
  kind: "tool";
  /** The tool call id. */
  id: string;
  name: string;
  args: string;
  result: string | null;
  streaming: boolean;
  /** Who settled the call when an approval policy did ("Approved by policy: small transfers"),
   * and whether its result was replayed from an earlier answer (it did not run again). */
  settled?: string;
}

export type TranscriptItem = UserItem | AssistantItem | ToolItem;

export interface Transcript {
  items: readonly TranscriptItem[];
  /** The message of the last RUN_ERROR, for the status line. */
  error: string | null;
}

export const emptyTranscript: Transcript = { items: [], error: null };

/** Text of a message's content: a string, or the text parts of a content-part list. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) => {
      const p = asRecord(part);
      return p?.type === "text" ? str(p.text) : "";
    })
    .join("");
}

const POLICY_BY = "policy:";

/** An ISO instant as "2026-12-03 23:03:42 UTC", as the kernel words it; null if it is not one. */
function utcWords(at: unknown): string | null {
  const moment = typeof at === "string" ? new Date(at) : null;
  if (!moment || Number.isNaN(moment.getTime())) return null;
  return `${moment.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** "Replayed: ran on <when> (<who>), not run again." for a result that came from the ledger. */
function replayedWords(decision: unknown, ranAt: unknown, ranBy: unknown): string {
  const when = utcWords(ranAt);
  if (decision !== "approved" || when === null) return "Replayed: settled by an earlier answer, not run again.";
  const who = typeof ranBy === "string" && ranBy ? ` (${answererWords(ranBy)})` : "";
  return `Replayed: ran on ${when}${who}, not run again.`;
}

/** "Approved by policy: <rule>" for a result a policy settled, "Replayed: ..." for one an earlier
 * answer had settled (it did not run again), read from its metadata; else "". */
export function settledBy(metadata: unknown): string {
  const { by, decision, replayed, ran_at, ran_by } = asRecord(asRecord(metadata)?.interrupt) ?? {};
  if (replayed === true) return replayedWords(decision, ran_at, ran_by);
  if (typeof by !== "string" || !by.startsWith(POLICY_BY)) return "";
  return `${decision === "approved" ? "Approved" : "Denied"} by policy: ${by.slice(POLICY_BY.length)}`;
}

const toolItem = (id: string, name: string, args: string, streaming: boolean): ToolItem => ({
  kind: "tool",
  id,
  name,
  args,
  result: null,
  streaming,
});

/** The call with its result, who settled it when an approval policy did, and whether it was replayed. */
function withResult(tool: ToolItem, result: string, metadata: unknown): ToolItem {
  const settled = settledBy(metadata);
  return settled ? { ...tool, result, settled } : { ...tool, result };
}

/** Transcript items for a committed conversation. */
export function fromMessages(messages: readonly WireMessage[]): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  /** Where each call's item is, by call id (the latest call of an id takes its results). */
  const calls = new Map<unknown, number>();
  for (const m of messages) {
    if (m.role === "user") {
      items.push({ kind: "user", id: m.id, text: contentText(m.content) });
    } else if (m.role === "assistant") {
      const text = contentText(m.content);
      if (text) items.push(assistantItem(m.id, m.metadata, { text, streaming: false }));
      for (const call of m.toolCalls ?? []) {
        calls.set(call.id, items.length);
        items.push(toolItem(call.id, call.function.name, call.function.arguments, false));
      }
    } else if (m.role === "tool") {
      const text = m.error ? `Error: ${m.error}` : contentText(m.content);
      const index = calls.get(m.toolCallId);
      if (index !== undefined) items[index] = withResult(items[index] as ToolItem, text, m.metadata);
    }
  }
  return items;
}

function indexOf(items: readonly TranscriptItem[], id: string, kind: TranscriptItem["kind"]): number {
  return items.findIndex((it) => it.id === id && it.kind === kind);
}

/** The transcript with `item` at the end, unless it holds one of that kind and id already. */
function added(state: Transcript, item: TranscriptItem): Transcript {
  return indexOf(state.items, item.id, item.kind) >= 0 ? state : { ...state, items: [...state.items, item] };
}

function update<K extends TranscriptItem["kind"]>(
  state: Transcript,
  id: string,
  kind: K,
  change: (item: Extract<TranscriptItem, { kind: K }>) => TranscriptItem,
): Transcript {
  const index = indexOf(state.items, id, kind);
  if (index < 0) return state;
  const items = state.items.slice();
  items[index] = change(items[index] as Extract<TranscriptItem, { kind: K }>);
  return { ...state, items };
}

/** An assistant item, marked with the type of structured output when `metadata` names one. */
function assistantItem(id: string, metadata?: unknown, shown = { text: "", streaming: true }): AssistantItem {
  const outputType = asRecord(metadata)?.output_type;
  const item: AssistantItem = { kind: "assistant", id, ...shown };
  return typeof outputType === "string" && outputType ? { ...item, outputType } : item;
}

function appendText(state: Transcript, id: string, delta: string): Transcript {
  return update(added(state, assistantItem(id)), id, "assistant", (it) => ({ ...it, text: it.text + delta }));
}

/** One AG-UI event applied to the transcript. Unknown events leave it unchanged. */
export function reduce(state: Transcript, event: WireEvent): Transcript {
  const callId = str(event.toolCallId);
  switch (event.type) {
    case "RUN_STARTED":
      return { ...state, error: null };
    case "TEXT_MESSAGE_START":
      return added(state, assistantItem(str(event.messageId), event.metadata));
    case "TEXT_MESSAGE_CONTENT":
      return appendText(state, str(event.messageId), str(event.delta));
    case "TEXT_MESSAGE_CHUNK": {
      const last = [...state.items].reverse().find((it) => it.kind === "assistant");
      return appendText(state, str(event.messageId) || (last?.id ?? ""), str(event.delta));
    }
    case "TEXT_MESSAGE_END":
      return update(state, str(event.messageId), "assistant", (it) => ({ ...it, streaming: false }));
    case "TOOL_CALL_START":
      return added(state, toolItem(callId, str(event.toolCallName), "", true));
    case "TOOL_CALL_ARGS":
      return update(state, callId, "tool", (it) => ({ ...it, args: it.args + str(event.delta) }));
    case "TOOL_CALL_END":
      return update(state, callId, "tool", (it) => ({ ...it, streaming: false }));
    case "TOOL_CALL_RESULT":
      return update(state, callId, "tool", (it) => ({
        ...withResult(it, contentText(event.content), event.metadata),
        streaming: false,
      }));
    case "MESSAGES_SNAPSHOT": {
      const messages = Array.isArray(event.messages) ? (event.messages as WireMessage[]) : [];
      return { ...state, items: fromMessages(messages) };
    }
    case "RUN_FINISHED":
      return { ...state, items: state.items.map(settle) };
    case "RUN_ERROR":
      return { ...state, error: str(event.message), items: state.items.map(settle) };
    default:
      return state;
  }
}

function settle(item: TranscriptItem): TranscriptItem {
  return item.kind !== "user" && item.streaming ? { ...item, streaming: false } : item;
}

/** The transcript a view draws: the committed conversation, then the live run on top. */
export function transcriptOf(messages: readonly WireMessage[], live: readonly WireEvent[]): Transcript {
  return live.reduce(reduce, { ...emptyTranscript, items: fromMessages(messages) });
}
