import { describe, expect, it } from "vitest";

import type { WireEvent, WireMessage } from "./protocol";
import { contentText, emptyTranscript, fromMessages, reduce, transcriptOf } from "./transcript";

const run = (events: WireEvent[]) => events.reduce(reduce, emptyTranscript);

describe("fromMessages", () => {
  it("draws user and assistant text and attaches tool results to their calls", () => {
    const messages: WireMessage[] = [
      { id: "u1", role: "user", content: "Book a call" },
      {
        id: "a1",
        role: "assistant",
        toolCalls: [
          { id: "c1", type: "function", function: { name: "schedule_meeting", arguments: '{"topic":"Q3"}' } },
        ],
      },
      { id: "t1", role: "tool", toolCallId: "c1", content: "Scheduled for Tue 10:00" },
      { id: "a2", role: "assistant", content: "Done." },
      { id: "s1", role: "system", content: "hidden" },
    ];
    expect(fromMessages(messages)).toEqual([
      { kind: "user", id: "u1", text: "Book a call" },
      {
        kind: "tool",
        id: "c1",
        name: "schedule_meeting",
        args: '{"topic":"Q3"}',
        result: "Scheduled for Tue 10:00",
        streaming: false,
      },
      { kind: "assistant", id: "a2", text: "Done.", streaming: false },
    ]);
  });

  it("reads text parts of a content list", () => {
    expect(contentText([{ type: "text", text: "a" }, { type: "image" }, { type: "text", text: "b" }])).toBe("ab");
    expect(contentText(42)).toBe("");
  });
});

describe("reduce", () => {
  it("streams text into one assistant item and settles it at the end", () => {
    const t = run([
      { type: "RUN_STARTED", threadId: "t", runId: "r" },
      { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "Hel" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "lo" },
    ]);
    expect(t.items).toEqual([{ kind: "assistant", id: "m", text: "Hello", streaming: true }]);
    const done = [
      { type: "TEXT_MESSAGE_END", messageId: "m" },
      { type: "RUN_FINISHED", threadId: "t", runId: "r" },
    ].reduce(reduce, t);
    expect(done.items[0]).toMatchObject({ text: "Hello", streaming: false });
  });

  it("marks structured output by the type its message's metadata names, live and committed", () => {
    const json = '{"summary":"sent 80.0 to Carol","calls":1}';
    const live = run([
      { type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant", metadata: { output_type: "Receipt" } },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: json },
      { type: "TEXT_MESSAGE_END", messageId: "m" },
    ]);
    const committed = fromMessages([
      { id: "m", role: "assistant", content: json, metadata: { output_type: "Receipt" } },
      { id: "n", role: "assistant", content: "plain", metadata: { output_type: 42 } },
    ]);
    const structured = { kind: "assistant", id: "m", text: json, streaming: false, outputType: "Receipt" };
    expect(live.items).toEqual([structured]);
    expect(committed).toEqual([structured, { kind: "assistant", id: "n", text: "plain", streaming: false }]);
  });

  it("builds a tool call from its args and result", () => {
    const t = run([
      { type: "TOOL_CALL_START", toolCallId: "c", toolCallName: "pay" },
      { type: "TOOL_CALL_ARGS", toolCallId: "c", delta: '{"amount":' },
      { type: "TOOL_CALL_ARGS", toolCallId: "c", delta: "120}" },
      { type: "TOOL_CALL_END", toolCallId: "c" },
      { type: "TOOL_CALL_RESULT", toolCallId: "c", messageId: "x", content: "paid" },
    ]);
    expect(t.items).toEqual([
      { kind: "tool", id: "c", name: "pay", args: '{"amount":120}', result: "paid", streaming: false },
    ]);
  });

  it("keeps the message of RUN_ERROR for the status line, until the next run starts", () => {
    const failed = run([
      { type: "TEXT_MESSAGE_START", messageId: "m" },
      { type: "RUN_ERROR", message: "model exploded" },
    ]);
    expect(failed.error).toBe("model exploded");
    expect(reduce(failed, { type: "RUN_STARTED", threadId: "t", runId: "r2" }).error).toBeNull();
    expect(failed.items[0]).toMatchObject({ streaming: false });
  });

  it("lets a messages snapshot replace what streamed, without duplicates", () => {
    const t = transcriptOf(
      [{ id: "u", role: "user", content: "hi" }],
      [
        { type: "TEXT_MESSAGE_START", messageId: "m" },
        { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "Hi!" },
        { type: "TEXT_MESSAGE_END", messageId: "m" },
        {
          type: "MESSAGES_SNAPSHOT",
          messages: [
            { id: "u", role: "user", content: "hi" },
            { id: "m", role: "assistant", content: "Hi!" },
          ],
        },
      ],
    );
    expect(t.items.map((i) => `${i.kind}:${i.id}`)).toEqual(["user:u", "assistant:m"]);
  });

  it("ignores events it does not know and content for unknown calls", () => {
    const t = run([
      { type: "STATE_DELTA", delta: [] },
      { type: "TOOL_CALL_ARGS", toolCallId: "nope", delta: "x" },
    ]);
    expect(t).toEqual(emptyTranscript);
  });
});
