// What an inbox says outside itself: the tab's title counts what waits while the page is
// hidden, and what is escalated to this person or overdue even while it is in view; an
// opted-in desktop notification names each new call, and each call escalated or overdue,
// once.

import { pageTitle } from "./page_title";
import { escalatedToMe, overdue } from "./people";
import type { Item } from "./protocol";
import type { InboxState, InboxView } from "./state";

export interface Notices {
  /** Mark the title and notify for `state`, given the item ids there were `before`. */
  signal(before: string[], view: InboxView, state: InboxState): void;
  /** Give the tab its own title back. */
  restore(): void;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n > 1 ? many : one}`;
}

/** `notifying()` says whether the person asked for desktop notifications; `titleRank`: how
 * much of the page this inbox speaks for in the tab's title (see page_title.ts). */
export function createNotices(notifying: () => boolean, titleRank = 0): Notices {
  const title = pageTitle(titleRank);
  /** Calls already announced as escalated or overdue, so each is announced once. */
  const announced = new Set<string>();

  const announce = (heading: string, items: Item[]): void => {
    const N = globalThis.Notification;
    const first = items[0];
    if (!first || !notifying() || N?.permission !== "granted") return;
    new N(heading, { body: `${first.tool} (${first.key})` });
  };
  const due = (state: InboxState): Item[] => {
    const found = Object.values(state.items).filter(
      (i) => !announced.has(i.id) && (escalatedToMe(i, state.now) || overdue(i, state.now, state.remindAfterMs)),
    );
    for (const i of found) announced.add(i.id);
    return found;
  };

  return {
    signal(before, view, state) {
      if (typeof document === "undefined") return;
      if (!((document.hidden && view.waiting > 0) || view.escalatedToMe + view.overdue > 0)) {
        title.clear();
        return;
      }
      title.mark(view);
      const fresh = Object.values(state.items).filter((i) => !before.includes(i.id));
      announce(`${plural(fresh.length, "new call", "new calls")} waiting`, fresh);
      const again = due(state);
      announce(`${plural(again.length, "call", "calls")} still waiting for you`, again);
    },
    restore: () => title.clear(),
  };
}
