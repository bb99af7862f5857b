// An in-memory AnyModel for the picker's tests: traits, change events, and a
// record of what the view sends; `reply` plays Python's answer_result. Like
// Python for the kit's own interrupts, it names each call from `metadata.tool_name`
// and `tool_input`; a test of other servers' interrupts passes Python's `calls`.

import type { AnyModel } from "@anywidget/types";
import type { AnswerResultMessage, WireInterrupt } from "../card";
import type { AnswerMessage } from "../picker/protocol";
import type { PickerModel, ToolCallOf } from "../picker/types";

type Handler = (...args: unknown[]) => void;

function kitCalls(interrupts: WireInterrupt[]): Record<string, ToolCallOf> {
  const calls: Record<string, ToolCallOf> = {};
  for (const { id, metadata } of interrupts) {
    const name = metadata?.tool_name;
    if (typeof name === "string") calls[id] = { name, arguments: metadata?.tool_input };
  }
  return calls;
}

export class FakeModel {
  state: PickerModel;
  sent: AnswerMessage[] = [];
  private handlers = new Map<string, Set<Handler>>();

  constructor(interrupts: WireInterrupt[], extra: Partial<PickerModel> = {}) {
    this.state = {
      kind: "picker",
      interrupts,
      answers: {},
      status: "waiting",
      error: "",
      errors: {},
      renderers: {},
      calls: kitCalls(interrupts),
      doubts: {},
      run_link: "",
      ...extra,
    };
  }

  get<K extends keyof PickerModel>(key: K): PickerModel[K] {
    return this.state[key];
  }

  set<K extends keyof PickerModel>(key: K, value: PickerModel[K]): void {
    this.state = { ...this.state, [key]: value };
    this.emit(`change:${String(key)}`);
  }

  on(event: string, handler: Handler): void {
    if (!this.handlers.has(event)) this.handlers.set(event, new Set());
    this.handlers.get(event)?.add(handler);
  }

  off(event?: string | null, handler?: Handler | null): void {
    if (event && handler) this.handlers.get(event)?.delete(handler);
    else if (event) this.handlers.delete(event);
    else this.handlers.clear();
  }

  emit(event: string, ...args: unknown[]): void {
    for (const handler of [...(this.handlers.get(event) ?? [])]) handler(...args);
  }

  send(content: unknown): void {
    this.sent.push(content as AnswerMessage);
  }

  save_changes(): void {
    throw new Error("the picker must not save_changes: user actions go through model.send");
  }

  widget_manager = {
    get_model: (): Promise<never> => Promise.reject(new Error("no widget manager in tests")),
  };

  /** Python's reply to the last request (and, when ok, the recorded answer). */
  reply(result: Partial<AnswerResultMessage> = {}, answeredBy?: string): void {
    const request = this.sent[this.sent.length - 1];
    if (!request) throw new Error("nothing was sent");
    const by = answeredBy ?? (request.viewId ? `view:${request.viewId}` : "user");
    const ok = result.ok ?? true;
    if (ok) {
      const answers = {
        ...this.state.answers,
        [request.interruptId]: { status: request.status, payload: request.payload, by, at: "2026-12-02T10:00:00Z" },
      };
      this.set("answers", answers);
      if (Object.keys(answers).length === this.state.interrupts.length) this.set("status", "submitted");
    }
    this.emit("msg:custom", {
      type: "answer_result",
      requestId: request.requestId,
      ok,
      error: "",
      errors: [],
      ...result,
    });
  }

  listeners(): number {
    let n = 0;
    for (const set of this.handlers.values()) n += set.size;
    return n;
  }

  asModel(): AnyModel<PickerModel> {
    return this as unknown as AnyModel<PickerModel>;
  }
}
