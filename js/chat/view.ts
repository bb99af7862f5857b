// The chat's DOM: transcript, inline picker slot, status line, prompt box, Stop.
// Every piece of agent or user text goes in as text nodes, never as HTML: the
// agent's replies through the Markdown renderer (markdown.ts), the rest as textContent.
// Its stylesheet is `style.css`, bundled beside widget.js and loaded by anywidget's `_css`.

import { h } from "../dom";
import { renderMarkdown } from "./markdown";
import type { ChatStatus } from "./protocol";
import type { ToolItem, Transcript, TranscriptItem } from "./transcript";

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
  root: HTMLElement;
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

/** One keyed DOM node per transcript item, patched in place as text streams in. */
class ItemNode {
  readonly node: HTMLElement;
  private readonly body: HTMLElement;
  private readonly result: HTMLElement | null = null;
  private readonly settled: HTMLElement | null = null;
  private last: TranscriptItem | null = null;
  private text: string | null = null;

  constructor(doc: Document, item: TranscriptItem) {
    if (item.kind === "tool") {
      this.node = h(doc, "div", { class: "iw-chat-tool" });
      this.node.appendChild(h(doc, "span", { class: "iw-chat-role" }, `Tool call: ${item.name}`));
      this.body = h(doc, "pre", { class: "iw-chat-args", "aria-label": "Arguments" });
      this.result = h(doc, "pre", { class: "iw-chat-result", "aria-label": "Result" });
      // A call a policy settled: a read-only card line in place of a picker.
      this.settled = h(doc, "p", { class: "iw-chat-settled", role: "note" });
      this.node.append(this.settled, this.body, this.result);
    } else {
      this.node = h(doc, "div", { class: `iw-chat-msg iw-chat-${item.kind}` });
      this.node.appendChild(h(doc, "span", { class: "iw-chat-role" }, item.kind === "user" ? "You" : "Agent"));
      this.body = h(doc, "div", { class: "iw-chat-text" });
      this.node.appendChild(this.body);
    }
    this.node.dataset.itemId = item.id;
    this.node.dataset.kind = item.kind;
    this.patch(item);
  }

  patch(item: TranscriptItem): void {
    if (item === this.last) return;
    this.last = item;
    const streaming = item.kind !== "user" && item.streaming;
    this.node.classList.toggle("iw-chat-streaming", streaming);
    if (item.kind === "tool") {
      this.patchTool(item);
    } else if (this.text !== item.text) {
      this.text = item.text;
      // The agent's reply reads as Markdown (redrawn whole as it streams); the person's words as typed.
      if (item.kind === "assistant") renderMarkdown(this.body, item.text);
      else this.body.textContent = item.text;
    }
  }

  private patchTool(item: ToolItem): void {
    const args = item.streaming ? item.args : formatArgs(item.args);
    if (this.body.textContent !== args) this.body.textContent = args;
    if (this.settled) {
      const text = item.settled ?? "";
      this.settled.hidden = !text;
      if (this.settled.textContent !== text) this.settled.textContent = text;
    }
    if (this.result) {
      this.result.hidden = item.result === null;
      const text = item.result === null ? "" : `Result: ${item.result}`;
      if (this.result.textContent !== text) this.result.textContent = text;
    }
  }
}

export function createChatView(container: HTMLElement, actions: ChatViewActions): ChatView {
  const doc = container.ownerDocument;
  const root = h(doc, "div", { class: "iw-chat" });
  const log = h(doc, "div", { class: "iw-chat-log", role: "log", "aria-live": "polite", "aria-label": "Conversation" });
  const pickerSlot = h(doc, "div", { class: "iw-chat-picker" });
  const status = h(doc, "div", { class: "iw-chat-status", role: "status" });
  const form = h(doc, "form", { class: "iw-chat-prompt" });
  const input = h(doc, "textarea", {
    rows: "2",
    placeholder: "Message the agent (Enter to send, Shift+Enter for a new line)",
    "aria-label": "Message",
  });
  const send = h(doc, "button", { class: "iw-chat-send", type: "submit" }, "Send");
  const stop = h(doc, "button", { class: "iw-chat-stop", type: "button" }, "Stop");
  form.append(input, send, stop);
  root.append(log, status, form);
  log.appendChild(pickerSlot);
  container.appendChild(root);

  const nodes = new Map<string, ItemNode>();
  let noticeText = "";
  let current: ChatViewState | null = null;
  let anchors: readonly string[] = [];

  // The picker sits in the transcript after the call it asks about, so the
  // decision reads in order; at the end when no such call is drawn.
  const placePicker = (): void => {
    let after: Element | null = null;
    for (const id of anchors) {
      const node = nodes.get(`tool:${id}`)?.node;
      if (node && (!after || after.compareDocumentPosition(node) & Node.DOCUMENT_POSITION_FOLLOWING)) {
        after = node;
      }
    }
    if (after === null) {
      if (log.lastElementChild !== pickerSlot) log.appendChild(pickerSlot);
    } else if (after.nextElementSibling !== pickerSlot) {
      after.after(pickerSlot);
    }
  };

  const submit = (): void => {
    const text = input.value.trim();
    if (!text || send.disabled) return;
    input.value = "";
    actions.prompt(text);
  };
  const onSubmit = (e: Event): void => {
    e.preventDefault();
    submit();
  };
  const onKey = (e: KeyboardEvent): void => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
    }
  };
  const onStop = (): void => actions.stop();
  // The picker mounts after its model arrives and grows as it draws: keep its
  // buttons in view while the run waits for them, without scrolling the page.
  const revealPicker = (): void => {
    if (current?.status !== "waiting") return;
    const bottom = pickerSlot.offsetTop + pickerSlot.offsetHeight;
    if (bottom > log.scrollTop + log.clientHeight) log.scrollTop = bottom - log.clientHeight;
  };
  const pickerGrowth = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(revealPicker);
  pickerGrowth?.observe(pickerSlot);
  form.addEventListener("submit", onSubmit);
  input.addEventListener("keydown", onKey);
  stop.addEventListener("click", onStop);

  const drawStatus = (): void => {
    if (!current) return;
    const text = noticeText || current.statusLine || current.transcript.error || "";
    status.textContent = text;
    status.dataset.status = noticeText ? "error" : current.status;
  };

  return {
    root,
    pickerSlot,
    anchorPicker(toolCallIds: readonly string[]): void {
      anchors = toolCallIds;
      placePicker();
    },
    draw(state: ChatViewState): void {
      if (current && current.status !== state.status) noticeText = "";
      current = state;
      const seen = new Set<string>();
      let previous: Element | null = null;
      for (const item of state.transcript.items) {
        const key = `${item.kind}:${item.id}`;
        seen.add(key);
        let node = nodes.get(key);
        if (node) node.patch(item);
        else {
          node = new ItemNode(doc, item);
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
      form.removeEventListener("submit", onSubmit);
      input.removeEventListener("keydown", onKey);
      stop.removeEventListener("click", onStop);
      pickerGrowth?.disconnect();
      root.remove();
    },
  };
}
