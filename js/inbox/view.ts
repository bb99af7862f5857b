// Draws `InboxView`: the counts and progress bar, the toolbar (filter, sort,
// bulk answers), the remembered rules, one line per waiting call, and the
// opened call's card, which is the picker's too (`js/card/`), so
// edits, custom renderers and suggested slots work as in a picker. Data goes in
// as text only: arguments and messages come from an agent.

import { buildCard, type Card, type CardView, type ModuleLoader, type ViewActions } from "../card";
import { button, h, hide } from "../dom";
import { asRecord } from "../json";
import type { Item, Where } from "./protocol";
import type { InboxState, InboxView, RowView, SortBy } from "./state";

export interface InboxActions extends ViewActions {
  filter(change: { tool?: string; text?: string; sort?: SortBy; mine?: boolean }): void;
  toggle(id: string): void;
  selectShown(on: boolean): void;
  point(id: string): void;
  open(id: string | null): void;
  bulk(kind: "approve" | "deny" | "cancel", reason: string): void;
  /** Approve a call and remember the choice for calls like it (absent: not offered here). */
  remember?(id: string, field: string | null, op: "eq" | "le"): void;
  forget(name: string): void;
  notify(): void;
  key(event: KeyboardEvent): void;
  /** Opens where a call waits (its notebook, at its cell), when the host can. */
  openWhere?(where: Where): void;
}

interface Line {
  root: HTMLElement;
  box: HTMLInputElement;
  cells: HTMLElement[];
  /** Where the call waits and who asked (a server-wide view's items only). */
  where: HTMLElement;
  shown: string;
  /** The where and askedBy last drawn. */
  place: string;
}

let mounts = 0;

function argsOf(item: Item): Array<[string, string]> {
  const input = asRecord(item.interrupt.metadata?.tool_input) ?? {};
  return Object.entries(input).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]);
}

/** The picker's card for one waiting call, as this view last heard of it. */
export function cardOf(item: Item, state: InboxState, renderers: Record<string, string>): CardView {
  const expires = item.expiresAt ? Date.parse(item.expiresAt) - state.now : null;
  const grouped: Record<string, string[]> = {};
  for (const e of state.fieldErrors[item.id] ?? []) grouped[e.path] = [...(grouped[e.path] ?? []), e.message];
  return {
    id: item.interrupt.id,
    interrupt: item.interrupt,
    title: item.tool,
    message: item.interrupt.message ?? "",
    args: argsOf(item),
    phase: item.id in state.pending ? "pending" : expires !== null && expires <= 0 ? "expired" : "open",
    decision: null,
    fieldErrors: grouped,
    error: state.refused[item.id] || item.error,
    remaining: expires,
    renderer: renderers[item.tool] ?? renderers[item.interrupt.reason] ?? null,
    doubt: item.doubt || null,
    runLink: item.runLink || null,
  };
}

/** "Approve, and the same for calls like this": any call to the tool, or one argument's value. */
function rememberChoices(item: Item): Array<[string, string | null, "eq" | "le"]> {
  const choices: Array<[string, string | null, "eq" | "le"]> = [[`every ${item.tool} call`, null, "eq"]];
  for (const [name, value] of argsOf(item)) {
    choices.push([`${name} = ${value}`, name, "eq"]);
    if (!Number.isNaN(Number(value)) && value.trim() !== "") choices.push([`${name} ≤ ${value}`, name, "le"]);
  }
  return choices;
}

/** The inbox's elements, redrawn in place from each new view of its state. */
export interface InboxDom {
  update(view: InboxView, state: InboxState, renderers: Record<string, string>, notifying: boolean): void;
  destroy(): void;
}

/** Draws the inbox into `el` from its parts, head to opened card, each redrawing its own share. */
export function createInboxDom(el: HTMLElement, actions: InboxActions, loader?: ModuleLoader): InboxDom {
  const opened = openedPane(`iw-inbox-${++mounts}`, actions, loader);
  const head = countsHead();
  const toolbar = toolbarOf(actions);
  const rules = rulesList(actions);
  const rows = rowList(actions);
  const root = h("div", "iw-inbox", head.root, toolbar.root, rules.root, rows.empty, rows.list, opened.root);
  el.append(root);
  return {
    update(view, state, renderers, notifying): void {
      head.draw(view);
      toolbar.draw(view, state, notifying);
      rules.draw(state);
      rows.draw(view, state);
      opened.draw(view.open, state, renderers);
    },
    destroy(): void {
      opened.destroy();
      root.remove();
    },
  };
}

/** The counts line and the progress bar of finished calls. */
function countsHead(): { root: HTMLElement; draw(view: InboxView): void } {
  const counts = h("span", "iw-counts");
  const bar = h("div", "iw-bar");
  const progress = h("div", { class: "iw-progress", role: "progressbar", "aria-valuemin": 0 }, bar);
  return {
    root: h("div", "iw-inbox-head", counts, progress),
    draw(view): void {
      counts.textContent = `${view.countsLine}${view.selected ? ` · ${view.selected} selected` : ""}`;
      bar.style.width = view.total ? `${(100 * view.finished) / view.total}%` : "0%";
      progress.setAttribute("aria-valuemax", String(view.total));
      progress.setAttribute("aria-valuenow", String(view.finished));
    },
  };
}

/** The toolbar: the filters, the bulk answers and "Notify me" (shown while notifying is on). */
function toolbarOf(actions: InboxActions): {
  root: HTMLElement;
  draw(view: InboxView, state: InboxState, notifying: boolean): void;
} {
  const filters = filterControls(actions);
  const bulk = bulkAnswers(actions);
  const notify = button("Notify me", "", () => actions.notify());
  return {
    root: h("div", "iw-toolbar", ...filters.nodes, ...bulk.nodes, notify),
    draw(view, state, notifying): void {
      hide(notify, !notifying);
      filters.draw(view, state);
      bulk.draw(view);
    },
  };
}

/** The tool, text and "Waiting for me" filters and the sort; the tool list follows the calls. */
function filterControls(actions: InboxActions): {
  nodes: HTMLElement[];
  draw(view: InboxView, state: InboxState): void;
} {
  const tool = h("select", { "aria-label": "Tool", onchange: () => actions.filter({ tool: tool.value }) });
  const text = h("input", {
    type: "search",
    placeholder: "Filter",
    "aria-label": "Filter",
    oninput: () => actions.filter({ text: text.value }),
  });
  const sort = h(
    "select",
    { "aria-label": "Sort", onchange: () => actions.filter({ sort: sort.value as SortBy }) },
    h("option", { value: "age" }, "Oldest first"),
    h("option", { value: "expiry" }, "Expiring first"),
  );
  const mine = h("input", {
    type: "checkbox",
    "aria-label": "Waiting for me",
    onchange: () => actions.filter({ mine: mine.checked }),
  });
  let shownTools = "";
  return {
    nodes: [tool, text, sort, h("label", {}, mine, " Waiting for me")],
    draw(view, state): void {
      const tools = view.tools.join("\u0000");
      if (tools === shownTools) return;
      shownTools = tools;
      tool.replaceChildren(
        h("option", { value: "" }, "All tools"),
        ...view.tools.map((t) => h("option", { value: t }, t)),
      );
      tool.value = state.tool;
    },
  };
}

/** "Select shown", and Approve / Deny (with its reason) / Cancel for the selected calls. */
function bulkAnswers(actions: InboxActions): { nodes: HTMLElement[]; draw(view: InboxView): void } {
  const all = h("input", {
    type: "checkbox",
    "aria-label": "Select shown",
    onchange: () => actions.selectShown(all.checked),
  });
  const reason = h("input", { type: "text", placeholder: "Reason for denying", "aria-label": "Deny reason" });
  const approve = button("Approve selected", "iw-primary", () => actions.bulk("approve", ""));
  const deny = button("Deny selected", "iw-danger", () => actions.bulk("deny", reason.value));
  const cancel = button("Cancel selected", "", () => actions.bulk("cancel", ""));
  return {
    nodes: [h("label", {}, all, " Select shown"), approve, reason, deny, cancel],
    draw(view): void {
      for (const b of [approve, deny, cancel]) b.disabled = view.selected === 0;
      all.checked = view.selected > 0 && view.selected === view.rows.length;
    },
  };
}

/** The remembered rules, each with a Remove button (redrawn only when they change). */
function rulesList(actions: InboxActions): { root: HTMLElement; draw(state: InboxState): void } {
  const root = h("ul", "iw-rules");
  let shownRules = "";
  return {
    root,
    draw(state): void {
      const ruleKey = JSON.stringify(state.rules);
      if (ruleKey === shownRules) return;
      shownRules = ruleKey;
      root.replaceChildren(
        ...state.rules.map((r) => {
          const remove = button("Remove", "", () => actions.forget(r.name));
          return h("li", {}, `Rule: approve ${r.name} (settled ${r.settled}) `, remove);
        }),
      );
    },
  };
}

/** One line per shown call, kept by id and patched in place; the keys move through it. */
function rowList(actions: InboxActions): {
  list: HTMLElement;
  empty: HTMLElement;
  draw(view: InboxView, state: InboxState): void;
} {
  const list = h("div", {
    class: "iw-list",
    role: "listbox",
    tabindex: 0,
    "aria-label": "Waiting calls",
    onkeydown: (event) => actions.key(event as KeyboardEvent),
  });
  const empty = h("p", "iw-empty", "Nothing waits for an answer.");
  const lines = new Map<string, Line>();
  let scrolledTo: string | null = null;
  const lineOf = (item: Item): Line => {
    const made = lines.get(item.id) ?? newLine(item, actions);
    lines.set(item.id, made);
    return made;
  };
  return {
    list,
    empty,
    draw(view, state): void {
      hide(empty, view.rows.length > 0);
      const drawn = view.rows.map((row) => drawLine(lineOf(row.item), row, actions));
      // A line filtered out is kept while its call waits: clearing the filter draws it again
      // as it was, rather than building every line anew.
      for (const id of lines.keys()) if (!(id in state.items)) lines.delete(id);
      if (drawn.length !== list.children.length || drawn.some((node, i) => list.children[i] !== node)) {
        list.replaceChildren(...drawn);
      }
      // Only a moved cursor scrolls, and only the list: a redraw each second must not pull the
      // page back to the list while a person reads the opened card below it.
      // A cursor on a line the filter hides is shown once a redraw draws its line again.
      const line = lines.get(state.cursor ?? "");
      const drawnLine = line !== undefined && line.root.parentElement === list ? line : undefined;
      if (drawnLine && state.cursor !== scrolledTo) showWithin(list, drawnLine.root);
      scrolledTo = drawnLine ? state.cursor : null;
    },
  };
}

/** Scrolls `list` just enough to show `row`, and no element around it. */
function showWithin(list: HTMLElement, row: HTMLElement): void {
  const box = list.getBoundingClientRect();
  const at = row.getBoundingClientRect();
  if (at.top < box.top) list.scrollTop -= box.top - at.top;
  else if (at.bottom > box.bottom) list.scrollTop += Math.min(at.bottom - box.bottom, at.top - box.top);
}

/** A call's line: its checkbox, its cells and Open; a click elsewhere on it moves the cursor there. */
function newLine(item: Item, actions: InboxActions): Line {
  const box = h("input", {
    type: "checkbox",
    "aria-label": `Select ${item.key}`,
    onchange: () => actions.toggle(item.id),
  });
  const open = button("Open", "iw-open", () => actions.open(item.id));
  const cells = ["iw-tool", "iw-args", "iw-key", "iw-waited", "iw-expiry", "iw-row-note", "iw-row-error"].map((c) =>
    h("span", c),
  );
  const onclick = (e: Event): void => {
    if (e.target !== box && e.target !== open) actions.point(item.id);
  };
  const where = h("div", "iw-where");
  const root = h("div", { class: "iw-item", role: "option", "data-id": item.id, onclick }, box, ...cells, open, where);
  return { root, box, cells, where, shown: "", place: "" };
}

/** Where the call waits (a link to its notebook when the host can open it), what to know about
 * that, and who asked; all as text. */
function whereOf(item: Item, actions: InboxActions): Array<string | Node> {
  const { where, askedBy } = item;
  const open = actions.openWhere;
  const place = where && (where.path && open ? button(where.label, "iw-where-link", () => open(where)) : where.label);
  const note = where?.note && h("span", "iw-where-note", where.note);
  const asked = askedBy && `asked by ${askedBy}`;
  const parts = [place, note, asked].filter((p): p is string | HTMLElement => Boolean(p));
  return parts.flatMap((p, i) => (i ? [" · ", p] : [p]));
}

/** Patches a line from its row, touching the DOM only when something shown changed. */
function drawLine(found: Line, row: RowView, actions: InboxActions): HTMLElement {
  // A call in doubt has no deadline: what it waits for is a person's word on whether it ran.
  const expiry = row.item.doubt ? "May have run" : row.expiry;
  const values = [row.item.tool, row.item.args, row.item.key, row.waited, expiry, row.note, row.error];
  const place = JSON.stringify([row.item.where, row.item.askedBy]);
  if (place !== found.place) {
    found.place = place;
    found.where.replaceChildren(...whereOf(row.item, actions));
    hide(found.where, !found.where.childNodes.length);
  }
  const key = [...values, row.selected, row.current, row.pending].join("\u0000");
  if (key !== found.shown) {
    found.shown = key;
    values.forEach((v, i) => {
      const cell = found.cells[i];
      if (cell && cell.textContent !== v) cell.textContent = v;
    });
    found.box.checked = row.selected;
    found.root.setAttribute("aria-selected", String(row.current));
    found.root.classList.toggle("iw-current", row.current);
    found.root.classList.toggle("iw-pending", row.pending);
    found.root.classList.toggle("iw-refused", Boolean(row.error));
    found.root.classList.toggle("iw-in-doubt", Boolean(row.item.doubt));
    found.root.classList.toggle("iw-escalated", row.note === "Escalated to you");
    found.root.classList.toggle("iw-closed", row.item.where?.state === "closed");
  }
  return found.root;
}

/** The opened call: the picker's card, built once per opened call and updated in place after. */
function openedPane(
  prefix: string,
  actions: InboxActions,
  loader?: ModuleLoader,
): {
  root: HTMLElement;
  draw(opened: Item | null, state: InboxState, renderers: Record<string, string>): void;
  destroy(): void;
} {
  const root = h("div", "iw-opened");
  let card: Card | null = null;
  let cardFor = "";
  return {
    root,
    draw(opened, state, renderers): void {
      if (!opened || cardFor !== opened.id) {
        card?.destroy();
        card = null;
        cardFor = "";
        root.replaceChildren();
      }
      if (!opened) return;
      const current = cardOf(opened, state, renderers);
      if (!card) {
        cardFor = opened.id;
        card = buildCard({ idPrefix: `${prefix}-card`, actions, loader, alive: () => cardFor === opened.id }, current);
        root.append(card.root, rememberBar(opened, actions));
      }
      card.update(current, false);
    },
    destroy(): void {
      card?.destroy();
    },
  };
}

/** Under the opened card: approve it and remember the choice for calls like it, and Close. */
function rememberBar(opened: Item, actions: InboxActions): HTMLElement {
  const close = button("Close", "", () => actions.open(null));
  const remembering = actions.remember;
  if (!remembering) return h("div", "iw-remember", close);
  const choice = h("select", { "aria-label": "Calls like this" });
  const choices = rememberChoices(opened);
  choices.forEach(([label], i) => {
    choice.append(h("option", { value: i }, label));
  });
  const remember = button("Approve, and the same for calls like this", "", () => {
    const [, field, op] = choices[Number(choice.value)] ?? [];
    remembering(opened.id, field ?? null, op ?? "eq");
  });
  return h("div", "iw-remember", remember, " ", choice, " ", close);
}
