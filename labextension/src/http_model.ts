// The sidebar's model: the inbox's front end (js/inbox) drawn from the Jupyter server's list of
// questions instead of a kernel's widget. It implements what `mountInbox` uses of an anywidget
// model (get, on, off, send): `hello` starts a long poll of `GET interrupt-widget/questions`,
// whose first list is a snapshot and each change after it a delta; `answer` and `settle` become
// POSTs whose results return as the inbox's `answer_result`. "Always allow" rules live in a
// notebook's inbox, not here: `remember` and `forget` get a result saying so. The server knows
// who answers (its signed-in user); nothing here says who.

import type { InboxModel } from "../../js/inbox/index";
import type { Item, ItemResult } from "../../js/inbox/protocol";
import { asRecord, str } from "../../js/json";

/** One request to the Jupyter server, `path` relative to its base URL (ServerConnection in the
 * page, a fake in tests); rejects when the server cannot be reached. */
export type ServerRequest = (path: string, init: RequestInit) => Promise<Response>;

/** Who the server says answers here. */
export interface Me {
  name: string;
  roles: string[];
}

type Handler = (...args: unknown[]) => void;

export interface QuestionsModel {
  get<K extends keyof InboxModel>(key: K): InboxModel[K];
  on(event: string, handler: Handler): void;
  off(event?: string | null, handler?: Handler | null): void;
  send(content: unknown): void;
  /** Every question waiting on the server, as last heard ("change:items" when it changes). */
  items(): Item[];
  /** Who answers, once the server has said ("change:items" too). */
  me(): Me | null;
  /** Why the list cannot be read now, or "" ("change:problem" when it changes). */
  problem(): string;
  /** Answers these questions on the server (the notifications' Approve uses it too). */
  answer(ids: string[], status: "resolved" | "cancelled", payload: unknown): Promise<ItemResult[]>;
  /** Stops polling and forgets every listener. */
  dispose(): void;
}

export interface QuestionsOptions {
  request: ServerRequest;
  /** How long the server may hold one poll open, in seconds (the server caps it at 25). */
  waitSeconds?: number;
  /** The first pause after a failed poll and the longest, in ms; the pause doubles in between. */
  retryMs?: [number, number];
}

const ROUTE = "interrupt-widget/";
const RULES_HERE =
  "The sidebar answers one question at a time: 'always allow' rules are made in the notebook's own inbox.";

/** `ids` all refused with one message, as the inbox reads a refusal. */
export function refused(ids: string[], message: string): ItemResult[] {
  return (ids.length ? ids : [""]).map((id) => ({ id, ok: false, verdict: "", error: message, errors: [] }));
}

/** What changed from `before` to `after`: items new or different, and the ids that left. */
export function delta(before: Item[], after: Item[]): { upsert: Item[]; remove: string[] } {
  const old = new Map(before.map((i) => [i.id, JSON.stringify(i)]));
  const now = new Set(after.map((i) => i.id));
  return {
    upsert: after.filter((i) => old.get(i.id) !== JSON.stringify(i)),
    remove: [...old.keys()].filter((id) => !now.has(id)),
  };
}

/** The JSON of a reply, or a sentence saying why it is not the answer asked for. */
async function replyOf(response: Response): Promise<Record<string, unknown>> {
  const body = asRecord(await response.json().catch(() => null));
  if (response.ok && body) return body;
  const said = str(asRecord(body?.error)?.message);
  if (said) throw new Error(said);
  if (response.status === 404)
    throw new Error("This Jupyter server does not list questions: is the interrupt_widget.lab extension enabled?");
  throw new Error(`The Jupyter server answered ${response.status} ${response.statusText}.`);
}

/** The server's response, or an error saying it cannot be reached. */
async function reach(request: ServerRequest, path: string, signal: AbortSignal): Promise<Response> {
  try {
    return await request(path, { signal });
  } catch {
    throw new Error("Cannot reach the Jupyter server.");
  }
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((wake) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      wake();
    }
    signal.addEventListener("abort", done);
  });
}

/** Calls `handler` for each event by name, as a model's `on`/`off` do. */
function emitter() {
  const handlers = new Map<string, Set<Handler>>();
  return {
    on(event: string, handler: Handler): void {
      handlers.set(event, (handlers.get(event) ?? new Set()).add(handler));
    },
    off(event?: string | null, handler?: Handler | null): void {
      if (!event) handlers.clear();
      else if (!handler) handlers.delete(event);
      else handlers.get(event)?.delete(handler);
    },
    emit(event: string, ...args: unknown[]): void {
      for (const handler of [...(handlers.get(event) ?? [])]) handler(...args);
    },
  };
}

type Emitter = ReturnType<typeof emitter>;

/** The POSTs: answers and settles, each settling with per-item results (a failure refuses them
 * all, saying why); and the replies the inbox waits for, by its request's id. */
function answering(request: ServerRequest, signal: AbortSignal, events: Emitter) {
  const post = async (path: string, body: unknown): Promise<ItemResult[]> => {
    const init = { method: "POST", body: JSON.stringify(body), signal };
    const reply = await replyOf(await request(`${ROUTE}${path}`, init));
    return Array.isArray(reply.results) ? (reply.results as ItemResult[]) : [];
  };
  const settled = (ids: string[], sent: Promise<ItemResult[]>): Promise<ItemResult[]> =>
    sent.catch((e: unknown) => refused(ids, e instanceof Error ? e.message : String(e)));
  const answer: QuestionsModel["answer"] = (ids, status, payload) =>
    settled(ids, post("answer", { ids, status, payload }));
  const reply = (requestId: unknown, results: ItemResult[]): void =>
    events.emit("msg:custom", { type: "answer_result", requestId, results });
  /** Answers one of the inbox's requests (not its hello). */
  const handle = async (m: Record<string, unknown>): Promise<void> => {
    const ids = Array.isArray(m.ids) ? m.ids.map(str) : [str(m.id)];
    if (m.type === "answer") return reply(m.requestId, await answer(ids, m.status as "resolved", m.payload));
    if (m.type === "settle") {
      const body = { id: str(m.id), ran: m.ran === true, ...(typeof m.output === "string" && { output: m.output }) };
      return reply(m.requestId, await settled(ids, post("settle", body)));
    }
    if (m.type === "remember" || m.type === "forget") reply(m.requestId, refused(ids.filter(Boolean), RULES_HERE));
  };
  return { answer, handle };
}

/** The list: read once, then one long poll after another, each change told as the inbox's
 * snapshot or delta; a failure is told as the problem and tried again after a growing pause. */
function following(options: QuestionsOptions, signal: AbortSignal, events: Emitter) {
  const { request, waitSeconds = 25, retryMs = [1000, 30_000] } = options;
  const state = { items: [] as Item[], me: null as Me | null, problem: "", rev: -1, polling: false, listed: false };
  const setProblem = (problem: string): void => {
    if (problem === state.problem) return;
    state.problem = problem;
    events.emit("change:problem");
  };
  const take = (list: Record<string, unknown>): void => {
    const items = (Array.isArray(list.items) ? list.items : []) as Item[];
    const me = asRecord(list.me);
    state.me = me ? { name: str(me.name), roles: Array.isArray(me.roles) ? me.roles.map(str) : [] } : null;
    const change = delta(state.items, items);
    const first = !state.listed;
    state.items = items;
    state.listed = true;
    if (first) events.emit("msg:custom", { type: "snapshot", items });
    else if (change.upsert.length || change.remove.length) events.emit("msg:custom", { type: "delta", ...change });
    events.emit("change:counts");
    events.emit("change:items");
  };
  const poll = async (): Promise<void> => {
    state.polling = true;
    let pause = retryMs[0];
    while (!signal.aborted) {
      const query = state.rev < 0 ? "" : `?rev=${state.rev}&wait=${waitSeconds}`;
      try {
        const list = await replyOf(await reach(request, `${ROUTE}questions${query}`, signal));
        if (signal.aborted) return;
        state.rev = typeof list.rev === "number" ? list.rev : -1;
        if (list.unchanged !== true) take(list);
        setProblem("");
        pause = retryMs[0];
      } catch (e) {
        if (signal.aborted) return;
        setProblem(`${e instanceof Error ? e.message : e} Trying again in ${Math.round(pause / 1000)} s.`);
        await sleep(pause, signal);
        pause = Math.min(pause * 2, retryMs[1]);
      }
    }
  };
  /** A view's hello: the list as last read (if read yet), and the polling started once. */
  const hello = (): void => {
    if (state.listed) queueMicrotask(() => events.emit("msg:custom", { type: "snapshot", items: state.items }));
    if (!state.polling) void poll();
  };
  return { state, hello };
}

/** The sidebar's model of the server's questions; nothing is asked before the inbox's hello. */
export function questionsModel(options: QuestionsOptions): QuestionsModel {
  const events = emitter();
  const stopped = new AbortController();
  const list = following(options, stopped.signal, events);
  const { answer, handle } = answering(options.request, stopped.signal, events);
  const traits: InboxModel = { counts: {}, remembered: [], renderers: {}, notify: true, remind_after: null };
  return {
    get: (key) => (key === "counts" ? { waiting: list.state.items.length } : traits[key]) as never,
    on: events.on,
    off: events.off,
    send(content): void {
      const message = asRecord(content) ?? {};
      if (message.type === "hello") list.hello();
      else void handle(message);
    },
    items: () => list.state.items,
    me: () => list.state.me,
    problem: () => list.state.problem,
    answer,
    dispose(): void {
      stopped.abort();
      events.off();
    },
  };
}
