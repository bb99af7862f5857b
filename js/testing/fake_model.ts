// The one in-memory anywidget model every test mounts a view on: traits with their
// `change:<name>` events, the custom messages a view sends (recorded in `sent`) and those
// Python sends it (`custom`), the other models its widget manager hands out (a chat's
// picker), and no `save_changes`: user actions travel as custom messages.
// `pickerModel` fills a picker's traits as Python does, and `replyTo` plays Python's
// answer_result to the picker's last request.

import type { AnyModel } from "@anywidget/types";
import type { AnswerResultMessage, WireInterrupt } from "../card";
import type { AnswerMessage } from "../picker/protocol";
import type { PickerModel, ToolCallOf } from "../picker/types";

type Handler = (...args: unknown[]) => void;

export class FakeModel<T extends object = Record<string, unknown>, Sent = Record<string, unknown>> {
  /** What the views sent, oldest first. */
  sent: Sent[] = [];
  /** The models `widget_manager.get_model` hands out, by id. */
  readonly others = new Map<string, FakeModel<object, unknown>>();
  private handlers = new Map<string, Set<Handler>>();

  constructor(public state: T) {}

  get<K extends keyof T>(key: K): T[K] {
    return this.state[key];
  }

  set<K extends keyof T>(key: K, value: T[K]): void {
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

  /** Records `content` as the comm carries it: as JSON (a field left undefined is dropped). */
  send(content: unknown): void {
    this.sent.push(JSON.parse(JSON.stringify(content)) as Sent);
  }

  save_changes(): void {
    throw new Error("user actions must travel as custom messages (model.send), never save_changes");
  }

  widget_manager = {
    get_model: (id: string): Promise<FakeModel<object, unknown>> => {
      const found = this.others.get(id);
      return found ? Promise.resolve(found) : Promise.reject(new Error(`no model ${id}`));
    },
  };

  /** A custom message from Python to the views (with its buffers, none here). */
  custom(message: unknown): void {
    this.emit("msg:custom", message, []);
  }

  /** The last message sent. */
  last(): Sent {
    const found = this.sent[this.sent.length - 1];
    if (found === undefined) throw new Error("nothing was sent");
    return found;
  }

  /** How many handlers are registered: 0 once every view let go. */
  listeners(): number {
    let n = 0;
    for (const set of this.handlers.values()) n += set.size;
    return n;
  }

  asModel(): AnyModel<T> {
    return this as unknown as AnyModel<T>;
  }
}

export type FakePicker = FakeModel<PickerModel, AnswerMessage>;

/** Like Python for the kit's own interrupts: each call named from `metadata.tool_name` and `tool_input`. */
function kitCalls(interrupts: WireInterrupt[]): Record<string, ToolCallOf> {
  const calls: Record<string, ToolCallOf> = {};
  for (const { id, metadata } of interrupts) {
    const name = metadata?.tool_name;
    if (typeof name === "string") calls[id] = { name, arguments: metadata?.tool_input };
  }
  return calls;
}

/** A picker's model asking `interrupts`; a test of other servers' interrupts passes Python's `calls`. */
export function pickerModel(interrupts: WireInterrupt[], extra: Partial<PickerModel> = {}): FakePicker {
  return new FakeModel<PickerModel, AnswerMessage>({
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
  });
}

/** Python's reply to the picker's last request (and, when ok, the recorded answer). */
export function replyTo(model: FakePicker, result: Partial<AnswerResultMessage> = {}, answeredBy?: string): void {
  const request = model.last();
  const by = answeredBy ?? (request.viewId ? `view:${request.viewId}` : "user");
  const ok = result.ok ?? true;
  if (ok) {
    const answers = {
      ...model.state.answers,
      [request.interruptId]: { status: request.status, payload: request.payload, by, at: "2026-12-02T10:00:00Z" },
    };
    model.set("answers", answers);
    if (Object.keys(answers).length === model.state.interrupts.length) model.set("status", "submitted");
  }
  model.custom({ type: "answer_result", requestId: request.requestId, ok, error: "", errors: [], ...result });
}
