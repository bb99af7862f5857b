import type { AnyModel } from "@anywidget/types";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import { FakeModel } from "../testing/fake_model";
import { mountChat, pickerModelId } from "./index";
import type { ChatModel, ToKernel } from "./protocol";

const HOSTILE = [
  "<script>window.__pwned = 1</script>",
  '<img src=x onerror="window.__pwned = 1">',
  '<a href="javascript:window.__pwned=1">click</a>',
];

type FakeChat = FakeModel<Record<string, unknown>, ToKernel>;

function chatModel(extra: Record<string, unknown> = {}): FakeChat {
  return new FakeModel<Record<string, unknown>, ToKernel>({
    kind: "chat",
    messages: [],
    status: "idle",
    status_line: "",
    picker: null,
    ...extra,
  });
}

function mount(model: FakeChat, options = {}): { el: HTMLElement; cleanup: () => void } {
  const el = document.createElement("div");
  document.body.appendChild(el);
  const cleanup = mountChat(el, model as unknown as AnyModel<ChatModel>, options);
  return { el, cleanup };
}

const texts = (el: HTMLElement) => [...el.querySelectorAll<HTMLElement>(".iw-chat-text")].map((n) => n.textContent);

describe("mountChat", () => {
  beforeEach(() => {
    document.body.replaceChildren();
  });
  afterEach(() => {
    delete (window as unknown as { __pwned?: number }).__pwned;
  });

  it("says hello so a view opened mid-run catches up, and draws committed messages", () => {
    const model = chatModel({ messages: [{ id: "u", role: "user", content: "hi" }] });
    const { el } = mount(model);
    expect(model.sent).toEqual([{ type: "hello" }]);
    expect(texts(el)).toEqual(["hi"]);
  });

  it("streams batches, and a catch-up replaces the live run instead of doubling it", () => {
    const model = chatModel({ status: "running" });
    const { el } = mount(model);
    const batch = [
      { type: "RUN_STARTED", threadId: "t", runId: "r" },
      { type: "TEXT_MESSAGE_START", messageId: "m" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "Hello " },
    ];
    model.custom({ type: "events", events: batch });
    model.custom({ type: "events", events: [{ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "world" }] });
    expect(texts(el)).toEqual(["Hello world"]);
    const node = el.querySelector(".iw-chat-assistant");
    model.custom({
      type: "catchup",
      events: [...batch, { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "world!" }],
    });
    expect(texts(el)).toEqual(["Hello world!"]);
    expect(el.querySelector(".iw-chat-assistant")).toBe(node); // patched in place, not redrawn
  });

  it("renders hostile agent text, tool args and results as plain text", () => {
    const model = chatModel();
    const { el } = mount(model);
    const [a, b, c] = HOSTILE as [string, string, string];
    model.set("messages", [{ id: "u", role: "user", content: a }]);
    model.custom({
      type: "events",
      events: [
        { type: "TEXT_MESSAGE_START", messageId: "m" },
        { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: b },
        { type: "TOOL_CALL_START", toolCallId: "c", toolCallName: c },
        { type: "TOOL_CALL_ARGS", toolCallId: "c", delta: JSON.stringify({ topic: a }) },
        { type: "TOOL_CALL_END", toolCallId: "c" },
        { type: "TOOL_CALL_RESULT", toolCallId: "c", messageId: "x", content: c },
        { type: "RUN_ERROR", message: b },
      ],
    });
    model.set("status_line", c);
    expect(el.querySelectorAll("script, img, a").length).toBe(0);
    expect(texts(el)).toEqual([a, b]);
    expect(el.textContent).toContain(`Tool call: ${c}`);
    expect(el.querySelector(".iw-chat-args")?.textContent).toContain(JSON.stringify(a));
    expect(el.querySelector(".iw-chat-result")?.textContent).toBe(`Result: ${c}`);
    expect(el.querySelector(".iw-chat-status")?.textContent).toBe(c);
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });

  it("lays out structured output as indented JSON under its type's name, as text", () => {
    const model = chatModel();
    const { el } = mount(model);
    const hostile = HOSTILE[0] as string;
    model.set("messages", [
      {
        id: "m",
        role: "assistant",
        content: JSON.stringify({ summary: hostile, calls: 1 }),
        metadata: { output_type: "Receipt" },
      },
    ]);
    const shown = el.querySelector<HTMLElement>(".iw-chat-structured");
    expect(shown?.getAttribute("aria-label")).toBe("Structured output: Receipt");
    expect(shown?.textContent).toBe(JSON.stringify({ summary: hostile, calls: 1 }, null, 2));
    expect(el.querySelector(".iw-chat-output-type")?.textContent).toBe("Receipt");
    expect(el.querySelectorAll("script").length).toBe(0);
  });

  it("sends the prompt on Enter as a custom message, keeps Shift+Enter for new lines", () => {
    const model = chatModel();
    const { el } = mount(model);
    const input = el.querySelector("textarea") as HTMLTextAreaElement;
    input.value = "line one";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", shiftKey: true, bubbles: true }));
    expect(model.sent).toHaveLength(1);
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    expect(model.sent[1]).toMatchObject({ type: "prompt", text: "line one" });
    expect(input.value).toBe("");
  });

  it("offers Stop only while a run is going, and sends stop", () => {
    const model = chatModel();
    const { el } = mount(model);
    const stop = el.querySelector<HTMLButtonElement>(".iw-chat-stop");
    const send = el.querySelector<HTMLButtonElement>(".iw-chat-send");
    expect(stop?.disabled).toBe(true);
    model.set("status", "running");
    expect(stop?.disabled).toBe(false);
    expect(send?.disabled).toBe(true);
    stop?.click();
    expect(model.sent[model.sent.length - 1]).toEqual({ type: "stop" });
  });

  it("shows a refused prompt in the status line", () => {
    const model = chatModel({ status: "waiting" });
    const { el } = mount(model);
    model.custom({ type: "prompt_result", requestId: "p", ok: false, error: "Answer the open interrupt first" });
    const status = el.querySelector<HTMLElement>(".iw-chat-status");
    expect(status?.textContent).toBe("Answer the open interrupt first");
    expect(status?.dataset.status).toBe("error");
  });

  it("mounts the inline picker bound to the picker's own model and unmounts it", async () => {
    const model = chatModel();
    const picker = new FakeModel({ kind: "picker" });
    model.others.set("abc", picker);
    const unmount = vi.fn();
    const mountPicker = vi.fn((el: HTMLElement, m: AnyModel) => {
      el.textContent = `picker for ${String(m.get("kind"))}`;
      return unmount;
    });
    const { el, cleanup } = mount(model, { mountPicker });
    model.set("picker", "IPY_MODEL_abc");
    await vi.waitFor(() => expect(mountPicker).toHaveBeenCalledTimes(1));
    expect(mountPicker.mock.calls[0]?.[1]).toBe(picker);
    expect(el.querySelector(".iw-chat-picker")?.textContent).toBe("picker for picker");
    model.set("picker", null);
    expect(unmount).toHaveBeenCalledTimes(1);
    cleanup();
    expect(model.listeners()).toBe(0);
    expect(el.children.length).toBe(0);
  });

  it("places the picker after the tool call it asks about, and later text below it", async () => {
    const model = chatModel({
      messages: [
        { id: "u", role: "user", content: "book it" },
        { id: "a", role: "assistant", toolCalls: [{ id: "c", function: { name: "book", arguments: "{}" } }] },
      ],
    });
    model.others.set(
      "p",
      new FakeModel({ kind: "picker", interrupts: [{ id: "i", reason: "tool_call", toolCallId: "c" }] }),
    );
    const mountPicker = vi.fn((slot: HTMLElement) => {
      slot.textContent = "PICKER";
    });
    const { el } = mount(model, { mountPicker });
    model.set("picker", "IPY_MODEL_p");
    await vi.waitFor(() => expect(mountPicker).toHaveBeenCalled());
    model.custom({
      type: "events",
      events: [
        { type: "TOOL_CALL_RESULT", toolCallId: "c", messageId: "r", content: "booked" },
        { type: "TEXT_MESSAGE_START", messageId: "m" },
        { type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "Done." },
      ],
    });
    const order = [...(el.querySelector(".iw-chat-log")?.children ?? [])].map((n) =>
      n.classList.contains("iw-chat-picker") ? "picker" : (n as HTMLElement).dataset.kind,
    );
    expect(order).toEqual(["user", "tool", "picker", "assistant"]);
  });

  it("re-anchors the one picker when Python resets it for the next question", async () => {
    const call = (id: string) => ({
      id: `a-${id}`,
      role: "assistant",
      toolCalls: [{ id, function: { name: "book", arguments: "{}" } }],
    });
    const model = chatModel({ messages: [{ id: "u", role: "user", content: "book two" }, call("c1"), call("c2")] });
    const picker = new FakeModel({ kind: "picker", interrupts: [{ id: "i1", reason: "tool_call", toolCallId: "c1" }] });
    model.others.set("p", picker);
    const unmount = vi.fn();
    const mountPicker = vi.fn((slot: HTMLElement) => {
      slot.textContent = "PICKER";
      return unmount;
    });
    const { el, cleanup } = mount(model, { mountPicker });
    model.set("picker", "IPY_MODEL_p");
    await vi.waitFor(() => expect(mountPicker).toHaveBeenCalled());
    const anchoredAfter = () => el.querySelector(".iw-chat-picker")?.previousElementSibling as HTMLElement | null;
    expect(anchoredAfter()?.dataset.itemId).toBe("c1");

    picker.set("interrupts", [{ id: "i2", reason: "tool_call", toolCallId: "c2" }]);
    expect(anchoredAfter()?.dataset.itemId).toBe("c2");
    expect(mountPicker).toHaveBeenCalledTimes(1); // the same mount redraws itself

    cleanup();
    expect(unmount).toHaveBeenCalledTimes(1);
    expect(picker.listeners()).toBe(0);
  });

  it("reads widget references", () => {
    expect(pickerModelId("IPY_MODEL_x1")).toBe("x1");
    expect(pickerModelId(null)).toBeNull();
  });

  it("shows a call a policy settled as a read-only card naming the rule, live and committed", () => {
    const model = chatModel({ status: "running" });
    const { el } = mount(model);
    const rule = "<img src=x onerror=window.__pwned=1> small transfers";
    model.custom({
      type: "events",
      events: [
        { type: "TOOL_CALL_START", toolCallId: "c", toolCallName: "transfer_funds" },
        { type: "TOOL_CALL_ARGS", toolCallId: "c", delta: '{"amount": 40}' },
        { type: "TOOL_CALL_END", toolCallId: "c" },
        {
          type: "TOOL_CALL_RESULT",
          toolCallId: "c",
          messageId: "result-c",
          content: "Sent 40.00",
          metadata: { interrupt: { id: "approve-c", decision: "approved", by: `policy:${rule}` } },
        },
      ],
    });
    const card = el.querySelector<HTMLElement>(".iw-chat-settled");
    expect(card?.hidden).toBe(false);
    expect(card?.textContent).toBe(`Approved by policy: ${rule}`);
    expect(el.querySelector(".iw-chat-tool img")).toBeNull();
    expect(el.querySelector(".iw-chat-tool button")).toBeNull(); // nothing to answer
    model.set("messages", [
      {
        id: "a",
        role: "assistant",
        toolCalls: [{ id: "d", type: "function", function: { name: "transfer_funds", arguments: "{}" } }],
      },
      {
        id: "result-d",
        role: "tool",
        toolCallId: "d",
        content: "Not run: denied",
        metadata: { interrupt: { id: "approve-d", decision: "denied", by: "policy:blocked accounts" } },
      },
    ]);
    expect(el.querySelector(".iw-chat-settled")?.textContent).toBe("Denied by policy: blocked accounts");
  });

  it("a call a person answered has no policy card", () => {
    const model = chatModel({
      messages: [
        { id: "a", role: "assistant", toolCalls: [{ id: "d", function: { name: "t", arguments: "{}" } }] },
        {
          id: "r",
          role: "tool",
          toolCallId: "d",
          content: "ok",
          metadata: { interrupt: { id: "i", decision: "approved" } },
        },
      ],
    });
    const { el } = mount(model);
    expect(el.querySelector<HTMLElement>(".iw-chat-settled")?.hidden).toBe(true);
  });

  it("says when a replayed call ran and who approved it, as the ledger recorded", () => {
    const model = chatModel({ status: "done" });
    const { el } = mount(model);
    const marker = (extra: Record<string, unknown>) => ({
      interrupt: { id: "i", decision: "approved", replayed: true, ran_with: {}, ...extra },
    });
    const result = (metadata: unknown) => [
      { id: "a", role: "assistant", toolCalls: [{ id: "c", function: { name: "t", arguments: "{}" } }] },
      { id: "r", role: "tool", toolCallId: "c", content: "<b>Done</b>", metadata },
    ];
    const note = () => el.querySelector(".iw-chat-settled")?.textContent;
    model.set("messages", result(marker({ ran_at: "2026-12-03T23:03:42.5Z", ran_by: "responder:approve_all" })));
    expect(note()).toBe("Replayed: ran on 2026-12-03 23:03:42 UTC (by responder approve_all), not run again.");
    model.set("messages", result(marker({ ran_at: "2026-12-03T23:03:42+01:00", ran_by: "view:abc" })));
    expect(note()).toBe("Replayed: ran on 2026-12-03 22:03:42 UTC (in the widget), not run again.");
    model.set("messages", result(marker({ ran_at: "2026-12-03T23:03:42Z" })));
    expect(note()).toBe("Replayed: ran on 2026-12-03 23:03:42 UTC, not run again.");
    model.set("messages", result(marker({ ran_at: "<img src=x onerror=alert(1)>", ran_by: "<b>me</b>" })));
    expect(note()).toBe("Replayed: settled by an earlier answer, not run again.");
    expect(el.querySelector("b, img")).toBeNull(); // untrusted text stays text
  });

  it("marks a replayed result: the call had already run and did not run again", () => {
    const model = chatModel({ status: "running" });
    const { el } = mount(model);
    model.custom({
      type: "events",
      events: [
        { type: "TOOL_CALL_START", toolCallId: "c", toolCallName: "schedule_meeting" },
        { type: "TOOL_CALL_END", toolCallId: "c" },
        {
          type: "TOOL_CALL_RESULT",
          toolCallId: "c",
          messageId: "result-c",
          content: "Scheduled",
          metadata: { interrupt: { id: "i", decision: "approved", replayed: true, ran_with: {} } },
        },
      ],
    });
    const note = el.querySelector<HTMLElement>(".iw-chat-settled");
    expect(note?.hidden).toBe(false);
    expect(note?.textContent).toBe("Replayed: settled by an earlier answer, not run again.");
    model.set("messages", [
      { id: "a", role: "assistant", toolCalls: [{ id: "d", function: { name: "t", arguments: "{}" } }] },
      {
        id: "r",
        role: "tool",
        toolCallId: "d",
        content: "Not run",
        metadata: { interrupt: { id: "j", decision: "denied", replayed: true } },
      },
    ]);
    expect(el.querySelector(".iw-chat-settled")?.textContent).toBe(
      "Replayed: settled by an earlier answer, not run again.",
    );
  });
});
