// The chat's DOM: transcript, inline picker slot, status line, prompt box, Stop.
// Every piece of agent or user text goes in as text nodes, never as HTML: the
// agent's replies through the Markdown renderer (markdown.ts), the rest as textContent.
// Its stylesheet is `style.css`, bundled beside widget.js and loaded by anywidget's `_css`.

import { button, h } from "../dom";
import { renderMarkdown } from "./markdown";
import type { ChatStatus } from "./protocol";
import type { Transcript, TranscriptItem } from "./transcript";

export interface ChatViewState {
  transcript: Transcript;
  status: ChatStatus;
  statusLine: string;
}

export interface ChatViewActions {
  prompt(text: string): void;
  stop(): void;
}

export interface ChatView {
  /** Where the inline picker mounts. */
  pickerSlot: HTMLElement;
  /** Show the picker right after the last of these tool calls (the ones it asks about). */
  anchorPicker(toolCallIds: readonly string[]): void;
  draw(state: ChatViewState): void;
  /** Show a refusal (e.g. a prompt sent while an interrupt is open) in the status line. */
  notice(text: string): void;
  destroy(): void;
}

function formatArgs(args: string): string {
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args; // still streaming, or not JSON: show it as it came
  }
}

/** Structured output (JSON) as text: its type's name, then the JSON indented, one field a line. */
function renderStructured(root: HTMLElement, outputType: string, json: string): void {
  root.replaceChildren(
    h("p", "iw-chat-output-type", outputType),
    h("pre", { class: "iw-chat-structured", "aria-label": `Structured output: ${outputType}` }, formatArgs(json)),
  );
}

/** One keyed DOM node per transcript item, patched in place as text streams in. */
interface ItemNode {
  node: HTMLElement;
  patch(item: TranscriptItem): void;
}

function setText(el: HTMLElement, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

function itemNode(item: TranscriptItem): ItemNode {
  const tool = item.kind === "tool";
  const body = tool ? h("pre", { class: "iw-chat-args", "aria-label": "Arguments" }) : h("div", "iw-chat-text");
  const result = h("pre", { class: "iw-chat-result", "aria-label": "Result" });
  // A call a policy settled: a read-only card line in place of a picker.
  const settled = h("p", { class: "iw-chat-settled", role: "note" });
  const role = tool ? `Tool call: ${item.name}` : item.kind === "user" ? "You" : "Agent";
  const node = h(
    "div",
    {
      class: tool ? "iw-chat-tool" : `iw-chat-msg iw-chat-${item.kind}`,
      "data-item-id": item.id,
      "data-kind": item.kind,
    },
    h("span", "iw-chat-role", role),
    ...(tool ? [settled, body, result] : [body]),
  );
  let last: TranscriptItem | null = null;
  let text: string | null = null;
  const patch = (next: TranscriptItem): void => {
    if (next === last) return;
    last = next;
    node.classList.toggle("iw-chat-streaming", next.kind !== "user" && next.streaming);
    if (next.kind === "tool") {
      setText(body, next.streaming ? next.args : formatArgs(next.args));
      settled.hidden = !next.settled;
      setText(settled, next.settled ?? "");
      result.hidden = next.result === null;
      setText(result, next.result === null ? "" : `Result: ${next.result}`);
    } else if (text !== next.text) {
      text = next.text;
      // The agent's reply reads as Markdown (redrawn whole as it streams), its structured output
      // as indented JSON under the type's name; the person's words as typed.
      if (next.kind === "assistant" && next.outputType) renderStructured(body, next.outputType, next.text);
      else if (next.kind === "assistant") renderMarkdown(body, next.text);
      else body.textContent = next.text;
    }
  };
  patch(item);
  return { node, patch };
}

export function createChatView(container: HTMLElement, actions: ChatViewActions): ChatView {
  const pickerSlot = h("div", "iw-chat-picker");
  const log = h(
    "div",
    { class: "iw-chat-log", role: "log", "aria-live": "polite", "aria-label": "Conversation" },
    pickerSlot,
  );
  const status = h("div", { class: "iw-chat-status", role: "status" });
  const { form, send, stop } = promptBox(actions);
  const root = h("div", "iw-chat", log, status, form);
  container.appendChild(root);

  const nodes = new Map<string, ItemNode>();
  let noticeText = "";
  let current: ChatViewState | null = null;
  let anchors: readonly string[] = [];

  const placePicker = (): void => {
    const items = current?.transcript.items ?? [];
    placeAfterAskedCall(log, pickerSlot, items, anchors, (id) => nodes.get(`tool:${id}`)?.node);
  };
  const pickerGrowth = keepPickerInView(log, pickerSlot, () => current?.status === "waiting");

  const drawStatus = (): void => {
    if (!current) return;
    const text = noticeText || current.statusLine || current.transcript.error || "";
    status.textContent = text;
    status.dataset.status = noticeText ? "error" : current.status;
  };

  return {
    pickerSlot,
    anchorPicker(toolCallIds: readonly string[]): void {
      anchors = toolCallIds;
      placePicker();
    },
    draw(state: ChatViewState): void {
      if (current && current.status !== state.status) noticeText = "";
      current = state;
      drawItems(log, pickerSlot, nodes, state.transcript.items);
      placePicker();
      const busy = state.status === "running" || state.status === "waiting";
      send.disabled = busy;
      stop.disabled = !busy;
      root.dataset.status = state.status;
      drawStatus();
      log.scrollTop = log.scrollHeight;
    },
    notice(text: string): void {
      noticeText = text;
      drawStatus();
    },
    destroy(): void {
      pickerGrowth.disconnect();
      root.remove();
    },
  };
}

/** The prompt box: a text area that sends on Enter, Send and Stop. Its listeners go with it. */
function promptBox(actions: ChatViewActions): {
  form: HTMLFormElement;
  send: HTMLButtonElement;
  stop: HTMLButtonElement;
} {
  const submit = (e: Event): void => {
    e.preventDefault();
    const text = input.value.trim();
    if (!text || send.disabled) return;
    input.value = "";
    actions.prompt(text);
  };
  const input = h("textarea", {
    rows: 2,
    placeholder: "Message the agent (Enter to send, Shift+Enter for a new line)",
    "aria-label": "Message",
    onkeydown: (e) => {
      const key = e as KeyboardEvent;
      if (key.key === "Enter" && !key.shiftKey && !key.isComposing) submit(e);
    },
  });
  const send = button("Send", "iw-chat-send", undefined, "submit");
  const stop = button("Stop", "iw-chat-stop", () => actions.stop());
  const form = h("form", { class: "iw-chat-prompt", onsubmit: submit }, input, send, stop);
  return { form, send, stop };
}

/**
 * The transcript's items drawn into `log` in order, each node kept by its key and patched in
 * place (a streaming reply is not redrawn from scratch); the picker's slot is stepped over.
 */
function drawItems(
  log: HTMLElement,
  pickerSlot: HTMLElement,
  nodes: Map<string, ItemNode>,
  items: Transcript["items"],
): void {
  const seen = new Set<string>();
  let previous: Element | null = null;
  for (const item of items) {
    const key = `${item.kind}:${item.id}`;
    seen.add(key);
    let node = nodes.get(key);
    if (node) node.patch(item);
    else {
      node = itemNode(item);
      nodes.set(key, node);
    }
    let expected: Element | null = previous ? previous.nextElementSibling : log.firstElementChild;
    if (expected === pickerSlot) expected = pickerSlot.nextElementSibling;
    if (expected !== node.node) log.insertBefore(node.node, expected);
    previous = node.node;
  }
  for (const [key, node] of nodes) {
    if (!seen.has(key)) {
      node.node.remove();
      nodes.delete(key);
    }
  }
}

/**
 * The picker sits in the transcript after the call it asks about (the last one drawn), so the
 * decision reads in order; at the end when no such call is drawn.
 */
function placeAfterAskedCall(
  log: HTMLElement,
  pickerSlot: HTMLElement,
  items: Transcript["items"],
  anchors: readonly string[],
  nodeOf: (toolCallId: string) => Element | undefined,
): void {
  const asked = items.filter((it) => it.kind === "tool" && anchors.includes(it.id));
  const last = asked[asked.length - 1];
  const after = last && nodeOf(last.id);
  if (!after) {
    if (log.lastElementChild !== pickerSlot) log.appendChild(pickerSlot);
  } else if (after.nextElementSibling !== pickerSlot) {
    after.after(pickerSlot);
  }
}

/**
 * The picker mounts after its model arrives and grows as it draws: keep its buttons in view
 * while the run waits for them, without scrolling the page. Returns the observer to disconnect.
 */
function keepPickerInView(log: HTMLElement, pickerSlot: HTMLElement, waiting: () => boolean): ResizeObserver {
  const observer = new ResizeObserver(() => {
    if (!waiting()) return;
    const bottom = pickerSlot.offsetTop + pickerSlot.offsetHeight;
    if (bottom > log.scrollTop + log.clientHeight) log.scrollTop = bottom - log.clientHeight;
  });
  observer.observe(pickerSlot);
  return observer;
}
