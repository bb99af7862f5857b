// `mountInbox`: binds one inbox model to one element. It asks Python for the
// whole list once (`hello`), then folds in the deltas; answers go out as custom
// messages and each reply settles the card that sent it. While the page is
// hidden, the tab's title counts what waits, and an opted-in notification names
// the tool of each new call.

import type { AnyModel } from "@anywidget/types";
import { type AnswerResultMessage, denial, type ModuleLoader, newViewId } from "../card";
import { listen, replies, ticker } from "../model_binding";
import { createNotices } from "./notices";
import {
  answerMessage,
  forgetMessage,
  type ItemResult,
  parseMessage,
  rememberMessage,
  settleMessage,
  type Where,
} from "./protocol";
import { type InboxEvent, type InboxState, initialState, type Rule, reduce, shown, viewOf } from "./state";
import { createInboxDom, type InboxActions } from "./view";

export interface InboxModel {
  counts: Record<string, number>;
  remembered: Rule[];
  renderers: Record<string, string>;
  notify: boolean;
  /** Seconds after which an unanswered call is announced again; null: never. */
  remind_after?: number | null;
}

const TYPING = new Set(["INPUT", "TEXTAREA", "SELECT"]);

/** What the parts of one mounted inbox share: its model, this view's id, the state and how to change it. */
interface Mounted {
  model: AnyModel<InboxModel>;
  viewId: string;
  state(): InboxState;
  dispatch(event: InboxEvent): void;
}

/** Sends a request for these items and resolves with Python's reply to it. */
type Send = (message: { requestId: string; type: string }, ids: string[]) => Promise<ItemResult[]>;
/** Answers these items at once. */
type Answer = (ids: string[], status: "resolved" | "cancelled", payload: unknown) => Promise<ItemResult[]>;

/** What a host page may add to a mounted inbox (the JupyterLab sidebar does; a widget does not). */
export interface InboxOptions {
  /** Imports a custom renderer's module (tests give their own). */
  loader?: ModuleLoader;
  /** Opens where a call waits (`item.where` with a path): a call's place becomes a link. */
  open?(where: Where): void;
  /** Offer "Approve, and the same for calls like this" (the rules Python keeps); default true. */
  rules?: boolean;
  /** Receives what the host may do to the mounted inbox. */
  controls?(controls: InboxControls): void;
  /** How much of the page this inbox speaks for in the tab's title: the sidebar, listing every
   * question on the server, outranks a cell's inbox (0, the default); see page_title.ts. */
  titleRank?: number;
}

/** What a host may do to a mounted inbox. */
export interface InboxControls {
  /** Opens call `id` and puts the cursor on it; false when no such call waits here. */
  focus(id: string): boolean;
}

/** Binds one inbox model to one element; returns what unmounts it. */
export function mountInbox(el: HTMLElement, model: AnyModel<InboxModel>, options: InboxOptions = {}): () => void {
  const viewId = newViewId();
  let state: InboxState = initialState(Date.now());
  const notifying = (): boolean => model.get("notify") === true;
  const signals = createNotices(notifying, options.titleRank);
  const clock = ticker(() => dispatch({ type: "tick", now: Date.now() }));
  const waiting = replies<ItemResult[]>();
  const inbox: Mounted = { model, viewId, state: () => state, dispatch };
  const send: Send = (message, ids) => {
    const reply = waiting.wait(message.requestId);
    if (ids.length) dispatch({ type: "sent", ids, requestId: message.requestId });
    model.send(message);
    return reply;
  };
  const actions = inboxActions(inbox, send);
  const dom = createInboxDom(
    el,
    { ...actions, openWhere: options.open, remember: options.rules === false ? undefined : actions.remember },
    options.loader,
  );
  options.controls?.({
    focus: (id) => {
      if (!(id in state.items)) return false;
      dispatch({ type: "open", id });
      return true;
    },
  });

  function dispatch(event: InboxEvent): void {
    const before = Object.keys(state.items);
    state = reduce(state, event);
    const view = viewOf(state);
    dom.update(view, state, model.get("renderers") ?? {}, notifying());
    clock(view.ticking);
    signals.signal(before, view, state);
  }

  const onVisible = (): void => signals.signal(Object.keys(state.items), viewOf(state), state);
  const settled = (requestId: string, results: ItemResult[]): void => {
    dispatch({ type: "reply", requestId, results });
    waiting.settle(requestId, results);
  };
  const stop = follow(inbox, settled, onVisible);
  return () => {
    stop();
    clock(false);
    signals.restore();
    dom.destroy();
  };
}

/** What the inbox's elements do: answers go to Python, the rest changes this view's state. */
function inboxActions(inbox: Mounted, send: Send): InboxActions {
  const { model, viewId, dispatch } = inbox;
  const answer: Answer = (ids, status, payload) => send(answerMessage(ids, status, payload, viewId), ids);
  return {
    answer: (interruptId, status, payload) =>
      firstResult(answer([openedItem(inbox.state(), interruptId)], status, payload)),
    settle(interruptId, ran, output) {
      const id = openedItem(inbox.state(), interruptId);
      return firstResult(send(settleMessage(id, ran, output, viewId), [id]));
    },
    checked() {},
    filter: (change) => dispatch({ type: "filter", ...change }),
    toggle: (id) => dispatch({ type: "toggle", id }),
    selectShown: (on) => dispatch({ type: "selectShown", on }),
    point: (id) => dispatch({ type: "point", id }),
    open: (id) => dispatch({ type: "open", id }),
    bulk(kind, reason) {
      const ids = Object.keys(inbox.state().selected);
      if (!ids.length) return;
      if (kind === "cancel") void answer(ids, "cancelled", null);
      else void answer(ids, "resolved", kind === "approve" ? { approved: true } : denial(reason));
    },
    remember: (id, field, op) => void send(rememberMessage(id, field, op, viewId), [id]),
    forget: (name) => model.send(forgetMessage(name)),
    notify: () => void globalThis.Notification?.requestPermission(),
    key: keyHandler(inbox, answer),
  };
}

/** The list's keys: j/k or the arrows move, x selects, e opens, Escape closes, a/d approve or deny. */
function keyHandler(inbox: Mounted, answer: Answer): (event: KeyboardEvent) => void {
  return (event) => {
    if (TYPING.has((event.target as HTMLElement).tagName) || event.ctrlKey || event.metaKey || event.altKey) return;
    const { dispatch } = inbox;
    const state = inbox.state();
    // The selected calls, or else the one under the cursor.
    const picked = Object.keys(state.selected);
    const targets = picked.length ? picked : state.cursor ? [state.cursor] : [];
    const k = event.key;
    if (k === "j" || k === "ArrowDown") dispatch({ type: "move", by: 1 });
    else if (k === "k" || k === "ArrowUp") dispatch({ type: "move", by: -1 });
    else if (k === "x" && state.cursor) dispatch({ type: "toggle", id: state.cursor });
    else if (k === "e" && state.cursor) dispatch({ type: "open", id: state.cursor });
    else if (k === "Escape") dispatch({ type: "open", id: null });
    else if (k === "a" && targets.length) void answer(targets, "resolved", { approved: true });
    else if (k === "d" && targets.length) void answer(targets, "resolved", { approved: false });
    else return;
    event.preventDefault();
  };
}

/** The item whose opened card holds this interrupt ("" when none does). */
function openedItem(state: InboxState, interruptId: string): string {
  return Object.values(state.items).find((i) => i.interrupt.id === interruptId && i.id === state.open)?.id ?? "";
}

/** The reply to a card's answer, as the picker's card reads it: the first item's result. */
async function firstResult(results: Promise<ItemResult[]>): Promise<AnswerResultMessage> {
  const { ok = false, error = "", errors = [] } = (await results)[0] ?? {};
  return { type: "answer_result", requestId: "", ok, error, errors };
}

/** Follows the model's traits, Python's messages and the page's visibility, then asks Python
 * for the whole list (`hello`); returns what stops following. */
function follow(
  inbox: Mounted,
  settled: (requestId: string, results: ItemResult[]) => void,
  onVisible: () => void,
): () => void {
  const { model, dispatch } = inbox;
  const onTraits = (): void =>
    dispatch({ type: "counts", counts: model.get("counts") ?? {}, rules: model.get("remembered") ?? [] });
  const onReminders = (): void => {
    const seconds = model.get("remind_after");
    dispatch({ type: "reminders", remindAfterMs: typeof seconds === "number" ? seconds * 1000 : null });
  };
  const onCustom = (message: unknown): void => {
    const parsed = parseMessage(message);
    if (!parsed) return;
    if (parsed.type === "answer_result") settled(parsed.requestId, parsed.results);
    else dispatch(parsed);
  };
  const stop = listen(model, [
    ["change:counts", onTraits],
    ["change:remembered", onTraits],
    ["change:remind_after", onReminders],
    ["msg:custom", onCustom],
  ]);
  document.addEventListener("visibilitychange", onVisible);
  onTraits();
  onReminders();
  model.send({ type: "hello" });
  return () => {
    stop();
    document.removeEventListener("visibilitychange", onVisible);
  };
}

export { shown };
