// Which tool an interrupt asks about, and with which arguments, as a person
// expects to read it whatever server sent it (mirrors `tool_name` and
// `tool_arguments` in interrupts.py).

import { asRecord } from "../json";
import type { WireInterrupt } from "./types";

/** A tool call's name by its id, from the conversation's messages (the chat knows them). */
export type CallNames = (toolCallId: string) => string | undefined;

/** Calls a framework makes to ask for a confirmation: they name the asking, not the tool. */
const CONFIRMATION_CALLS = new Set(["adk_request_confirmation", "confirm_changes"]);

const text = (value: unknown): string | undefined => (typeof value === "string" && value ? value : undefined);

/**
 * The call a framework describes in its own metadata: Microsoft Agent Framework's
 * `agent_framework.function_call`, Google ADK's `adk.originalFunctionCall`.
 */
function frameworkCall(metadata: Record<string, unknown>): { name?: string; args?: unknown } {
  const af = asRecord(asRecord(metadata.agent_framework)?.function_call);
  if (af) return { name: text(af.name), args: af.arguments };
  const adk = asRecord(asRecord(metadata.adk)?.originalFunctionCall);
  if (adk) return { name: text(adk.name), args: adk.args };
  return {};
}

/** `metadata.tool_name`, else the call `toolCallId` points at, else the framework's metadata, else the reason. */
export function toolNameOf(interrupt: WireInterrupt, callNames?: CallNames): string {
  const metadata = interrupt.metadata ?? {};
  const named = text(metadata.tool_name);
  if (named) return named;
  const called = interrupt.toolCallId ? callNames?.(interrupt.toolCallId) : undefined;
  if (called && !CONFIRMATION_CALLS.has(called)) return called;
  return frameworkCall(metadata).name ?? called ?? interrupt.reason;
}

/** The call's arguments: `metadata.tool_input`, else the framework's metadata. */
export function toolArgsOf(interrupt: WireInterrupt): unknown {
  const metadata = interrupt.metadata ?? {};
  return metadata.tool_input ?? frameworkCall(metadata).args;
}
