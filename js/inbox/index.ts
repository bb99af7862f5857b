// `mountInbox`: binds one inbox model to one element. It asks Python for the
// whole list once (`hello`), then folds in the deltas; answers go out as custom
// messages and each reply settles the card that sent it. The tab's title and
// desktop notifications are `notices.ts`'s.

import type { AnyModel } from "@anywidget/types";
import { type AnswerResultMessage, newViewId } from "../picker/protocol";
import type { ModuleLoader } from "../picker/renderers";
import { createNotices } from "./notices";
import {
  answerMessage,
  forgetMessage,
  type ItemResult,
  parseMessage,
  rememberMessage,
  settleMessage,
} from "./protocol";
import { type InboxEvent, type InboxState, initialState, type Rule, reduce, shown, viewOf } from "./state";
import { createInboxDom } from "./view";

export interface InboxModel {
  counts: Record<string, number>;
  remembered: Rule[];
  renderers: Record<string, string>;
  notify: boolean;
  /** Seconds after which an unanswered call is announced again; null: never. */
  remind_after?: number | null;
}

const TYPING = new Set(["INPUT", "TEXTAREA", "SELECT"]);

export function mountInbox(el: HTMLElement, model: AnyModel<InboxModel>, loader?: ModuleLoader): () => void {
  const viewId = newViewId();
  let state: InboxState = initialState(Date.now());
  const replies = new Map<string, (results: ItemResult[]) => void>();
  const notices = createNotices(() => model.get("notify") === true);
  let timer: ReturnType<typeof setInterval> | null = null;

  const send = (message: { requestId: string; type: string }, ids: string[]): Promise<ItemResult[]> => {
    const reply = new Promise<ItemResult[]>((resolve) => replies.set(message.requestId, resolve));
    if (ids.length) dispatch({ type: "sent", ids, requestId: message.requestId });
    model.send(message);
    return reply;
  };
  const answer = (ids: string[], status: "resolved" | "cancelled", payload: unknown) =>
    send(answerMessage(ids, status, payload, viewId), ids);
  const targets = (): string[] => {
    const picked = Object.keys(state.selected);
    return picked.length ? picked : state.cursor ? [state.cursor] : [];
  };
  const itemOf = (interruptId: string): string =>
    Object.values(state.items).find((i) => i.interrupt.id === interruptId && i.id === state.open)?.id ?? "";
  const firstResult = async (results: Promise<ItemResult[]>): Promise<AnswerResultMessage> => {
    const [result] = await results;
    return {
      type: "answer_result",
      requestId: "",
      ok: result?.ok ?? false,
      error: result?.error ?? "",
      errors: result?.errors ?? [],
    };
  };

  const dom = createInboxDom(
    el,
    {
      answer: (interruptId, status, payload) => firstResult(answer([itemOf(interruptId)], status, payload)),
      settle(interruptId, ran, output) {
        const id = itemOf(interruptId);
        return firstResult(send(settleMessage(id, ran, output, viewId), [id]));
      },
      checked() {},
      filter: (change) => dispatch({ type: "filter", ...change }),
      toggle: (id) => dispatch({ type: "toggle", id }),
      selectShown: (on) => dispatch({ type: "selectShown", on }),
      point: (id) => dispatch({ type: "point", id }),
      open: (id) => dispatch({ type: "open", id }),
      bulk(kind, reason) {
        const ids = Object.keys(state.selected);
        if (!ids.length) return;
        if (kind === "cancel") void answer(ids, "cancelled", null);
        else void answer(ids, "resolved", kind === "approve" ? { approved: true } : denial(reason));
      },
      remember: (id, field, op) => void send(rememberMessage(id, field, op, viewId), [id]),
      forget: (name) => model.send(forgetMessage(name)),
      notify: () => void globalThis.Notification?.requestPermission(),
      key(event) {
        if (TYPING.has((event.target as HTMLElement).tagName) || event.ctrlKey || event.metaKey || event.altKey) return;
        const k = event.key;
        if (k === "j" || k === "ArrowDown") dispatch({ type: "move", by: 1 });
        else if (k === "k" || k === "ArrowUp") dispatch({ type: "move", by: -1 });
        else if (k === "x" && state.cursor) dispatch({ type: "toggle", id: state.cursor });
        else if (k === "e" && state.cursor) dispatch({ type: "open", id: state.cursor });
        else if (k === "Escape") dispatch({ type: "open", id: null });
        else if (k === "a" && targets().length) void answer(targets(), "resolved", { approved: true });
        else if (k === "d" && targets().length) void answer(targets(), "resolved", { approved: false });
        else return;
        event.preventDefault();
      },
    },
    loader,
  );

  function dispatch(event: InboxEvent): void {
    const before = Object.keys(state.items);
    state = reduce(state, event);
    const view = viewOf(state);
    dom.update(view, state, model.get("renderers") ?? {}, model.get("notify") === true);
    if (view.ticking && timer === null) timer = setInterval(() => dispatch({ type: "tick", now: Date.now() }), 1000);
    if (!view.ticking && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
    notices.signal(before, view, state);
  }

  const onVisible = (): void => notices.signal(Object.keys(state.items), viewOf(state), state);
  const onTraits = (): void =>
    dispatch({ type: "counts", counts: model.get("counts") ?? {}, rules: model.get("remembered") ?? [] });
  const onReminders = (): void => {
    const seconds = model.get("remind_after");
    dispatch({ type: "reminders", remindAfterMs: typeof seconds === "number" ? seconds * 1000 : null });
  };
  const onCustom = (message: unknown): void => {
    const parsed = parseMessage(message);
    if (!parsed) return;
    if (parsed.type === "answer_result") {
      dispatch({ type: "reply", requestId: parsed.requestId, results: parsed.results });
      replies.get(parsed.requestId)?.(parsed.results);
      replies.delete(parsed.requestId);
    } else dispatch(parsed);
  };
  model.on("change:counts", onTraits);
  model.on("change:remembered", onTraits);
  model.on("change:remind_after", onReminders);
  model.on("msg:custom", onCustom);
  document.addEventListener("visibilitychange", onVisible);
  onTraits();
  onReminders();
  model.send({ type: "hello" });

  return () => {
    model.off("change:counts", onTraits);
    model.off("change:remembered", onTraits);
    model.off("change:remind_after", onReminders);
    model.off("msg:custom", onCustom);
    document.removeEventListener("visibilitychange", onVisible);
    if (timer !== null) clearInterval(timer);
    notices.restore();
    dom.destroy();
  };
}

function denial(reason: string): Record<string, unknown> {
  return reason.trim() ? { approved: false, reason: reason.trim() } : { approved: false };
}

export { shown };
