// One tab title for the whole page, however many inboxes would mark it. Each inbox tells
// its counts and how much of the page it speaks for (its rank): the JupyterLab sidebar lists
// every question on the server, a cell's inbox only its kernel's, so the sidebar's counts
// are shown when it is there; inboxes of equal rank list disjoint calls, and add up. Kept on
// `globalThis` under a registered symbol: the widget's bundle and the lab extension's load
// apart and still share it.

/** What one inbox would put before the title. */
export interface TitleCounts {
  waiting: number;
  escalatedToMe: number;
  overdue: number;
}

interface Keeper {
  /** The title as the page set it, without any mark. */
  base: string;
  /** The title last set here, or null when unmarked. */
  shown: string | null;
  marks: Map<symbol, TitleCounts & { rank: number }>;
}

const KEY = Symbol.for("interrupt-widget.page-title");

function keeper(): Keeper {
  const shared = globalThis as unknown as Record<symbol, Keeper | undefined>;
  shared[KEY] ??= { base: "", shown: null, marks: new Map() };
  return shared[KEY];
}

/** "2 waiting, 1 escalated to you", from the marks of the highest rank. */
function marked(marks: Keeper["marks"]): string | null {
  const all = [...marks.values()];
  if (!all.length) return null;
  const top = Math.max(...all.map((m) => m.rank));
  const sum = (key: keyof TitleCounts): number => all.filter((m) => m.rank === top).reduce((n, m) => n + m[key], 0);
  const escalated = sum("escalatedToMe");
  const overdue = sum("overdue");
  return [
    `${sum("waiting")} waiting`,
    ...(escalated ? [`${escalated} escalated to you`] : []),
    ...(overdue ? [`${overdue} overdue`] : []),
  ].join(", ");
}

function apply(): void {
  const k = keeper();
  // A title set by the page since (JupyterLab names the current tab) is the base from now on.
  if (k.shown === null || document.title !== k.shown) k.base = document.title;
  const text = marked(k.marks);
  if (text !== null) {
    k.shown = `(${text}) ${k.base}`;
    document.title = k.shown;
  } else {
    if (k.shown !== null && document.title === k.shown) document.title = k.base;
    k.shown = null;
  }
}

export interface PageTitle {
  /** This inbox would mark the title with these counts. */
  mark(counts: TitleCounts): void;
  /** This inbox has nothing to say in the title (any more). */
  clear(): void;
}

/** One inbox's say in the page's title; `rank`: how much of the page it speaks for. */
export function pageTitle(rank: number): PageTitle {
  const me = Symbol("inbox");
  return {
    mark(counts) {
      keeper().marks.set(me, { ...counts, rank });
      apply();
    },
    clear() {
      if (keeper().marks.delete(me)) apply();
    },
  };
}
