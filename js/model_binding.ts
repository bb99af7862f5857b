// What the picker's, the inbox's and the chat's views each do with their anywidget model:
// follow its events, tick once a second while a clock is shown, and wait for Python's reply
// to each request by the request's id.

import type { AnyModel } from "@anywidget/types";

/** A listener of one model event: a custom message's content, or nothing for a trait's change. */
type Handler = (message: unknown) => void;

/** Listens to the model's events by name ("change:status", "msg:custom"); returns what stops it. */
export function listen(model: Pick<AnyModel, "on" | "off">, handlers: Array<[string, Handler]>): () => void {
  for (const [name, handler] of handlers) model.on(name, handler);
  return () => {
    for (const [name, handler] of handlers) model.off(name, handler);
  };
}

/** A clock that calls `tick` every second while it follows `true`, and stops on `false`. */
export function ticker(tick: () => void): (ticking: boolean) => void {
  let timer: ReturnType<typeof setInterval> | undefined;
  return (ticking) => {
    if (ticking) timer ??= setInterval(tick, 1000);
    else {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** Requests sent and not replied to yet: `wait` is the promise of a reply, `settle` keeps it. */
export function replies<Reply>(): {
  wait(requestId: string): Promise<Reply>;
  settle(requestId: string, reply: Reply): void;
} {
  const waiting = new Map<string, (reply: Reply) => void>();
  return {
    wait: (requestId) => new Promise((resolve) => waiting.set(requestId, resolve)),
    settle(requestId, reply) {
      waiting.get(requestId)?.(reply);
      waiting.delete(requestId);
    },
  };
}
