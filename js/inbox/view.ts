// Draws `InboxView`: the counts and progress bar, the toolbar (filter, sort,
// bulk answers), the remembered rules, one line per waiting call, and the
// opened call's card, which is the picker's own (`picker/card_dom.ts`), so
// edits, custom renderers and suggested slots work as in a picker. Data goes in
// as text only: arguments and messages come from an agent.

import { h } from "../dom";
import { buildCard, type Card, type ViewActions } from "../picker/card_dom";
import type { ModuleLoader } from "../picker/renderers";
import type { CardView } from "../picker/state";
import type { Item } from "./protocol";
import type { InboxState, InboxView, RowView, SortBy } from "./state";

export interface InboxActions extends ViewActions {
  filter(change: { tool?: string; text?: string; sort?: SortBy; mine?: boolean }): void;
  toggle(id: string): void;
  selectShown(on: boolean): void;
  point(id: string): void;
  open(id: string | null): void;
  bulk(kind: "approve" | "deny" | "cancel", reason: string): void;
  remember(id: string, field: string | null, op: "eq" | "le"): void;
  forget(name: string): void;
  notify(): void;
  key(event: KeyboardEvent): void;
}

interface Line {
  root: HTMLElement;
  box: HTMLInputElement;
  cells: HTMLElement[];
  shown: string;
}

let mounts = 0;

function argsOf(item: Item): Array<[string, string]> {
  const input = item.interrupt.metadata?.tool_input;
  const record = typeof input === "object" && input !== null && !Array.isArray(input) ? input : {};
  return Object.entries(record).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]);
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

export function createInboxDom(el: HTMLElement, actions: InboxActions, loader?: ModuleLoader) {
  const prefix = `iw-inbox-${++mounts}`;
  const counts = h("span", "iw-counts");
  const bar = h("div", "iw-bar");
  const progress = h("div", { class: "iw-progress", role: "progressbar", "aria-valuemin": 0 }, bar);
  const tool = h("select", { "aria-label": "Tool" });
  const text = h("input", { type: "search", placeholder: "Filter", "aria-label": "Filter" });
  const sort = h("select", { "aria-label": "Sort" }, h("option", { value: "age" }, "Oldest first"));
  sort.append(h("option", { value: "expiry" }, "Expiring first"));
  const all = h("input", { type: "checkbox", "aria-label": "Select shown" });
  const mine = h("input", { type: "checkbox", "aria-label": "Waiting for me" });
  const reason = h("input", { type: "text", placeholder: "Reason for denying", "aria-label": "Deny reason" });
  const button = (label: string, cls = ""): HTMLButtonElement => h("button", { type: "button", class: cls }, label);
  const approve = button("Approve selected", "iw-primary");
  const deny = button("Deny selected", "iw-danger");
  const cancel = button("Cancel selected");
  const notify = button("Notify me");
  const rules = h("ul", "iw-rules");
  const list = h("div", { class: "iw-list", role: "listbox", tabindex: 0, "aria-label": "Waiting calls" });
  const empty = h("p", "iw-empty", "Nothing waits for an answer.");
  const cardHost = h("div", "iw-opened");
  const root = h(
    "div",
    "iw-inbox",
    h("div", "iw-inbox-head", counts, progress),
    h(
      "div",
      "iw-toolbar",
      tool,
      text,
      sort,
      h("label", {}, mine, " Waiting for me"),
      h("label", {}, all, " Select shown"),
      approve,
      reason,
      deny,
      cancel,
      notify,
    ),
    rules,
    empty,
    list,
    cardHost,
  );
  el.append(root);

  tool.addEventListener("change", () => actions.filter({ tool: tool.value }));
  text.addEventListener("input", () => actions.filter({ text: text.value }));
  sort.addEventListener("change", () => actions.filter({ sort: sort.value as SortBy }));
  all.addEventListener("change", () => actions.selectShown(all.checked));
  mine.addEventListener("change", () => actions.filter({ mine: mine.checked }));
  approve.addEventListener("click", () => actions.bulk("approve", ""));
  deny.addEventListener("click", () => actions.bulk("deny", reason.value));
  cancel.addEventListener("click", () => actions.bulk("cancel", ""));
  notify.addEventListener("click", () => actions.notify());
  list.addEventListener("keydown", (event) => actions.key(event));

  const lines = new Map<string, Line>();
  const line = (item: Item): Line => {
    const found = lines.get(item.id);
    if (found) return found;
    const box = h("input", { type: "checkbox", "aria-label": `Select ${item.key}` });
    const open = button("Open", "iw-open");
    const cells = ["iw-tool", "iw-args", "iw-key", "iw-waited", "iw-expiry", "iw-row-note", "iw-row-error"].map((c) =>
      h("span", c),
    );
    const made: Line = {
      root: h("div", { class: "iw-item", role: "option", "data-id": item.id }),
      box,
      cells,
      shown: "",
    };
    made.root.append(box, ...cells, open);
    box.addEventListener("change", () => actions.toggle(item.id));
    open.addEventListener("click", () => actions.open(item.id));
    made.root.addEventListener("click", (e) => {
      if (e.target !== box && e.target !== open) actions.point(item.id);
    });
    lines.set(item.id, made);
    return made;
  };
  const drawLine = (row: RowView): HTMLElement => {
    const found = line(row.item);
    // A call in doubt has no deadline: what it waits for is a person's word on whether it ran.
    const expiry = row.item.doubt ? "May have run" : row.expiry;
    const values = [row.item.tool, row.item.args, row.item.key, row.waited, expiry, row.note, row.error];
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
    }
    return found.root;
  };

  let card: Card | null = null;
  let cardFor = "";
  let shownTools = "";
  let shownRules = "";

  return {
    update(view: InboxView, state: InboxState, renderers: Record<string, string>, notifying: boolean): void {
      notify.classList.toggle("iw-hidden", !notifying);
      counts.textContent = `${view.countsLine}${view.selected ? ` · ${view.selected} selected` : ""}`;
      bar.style.width = view.total ? `${(100 * view.finished) / view.total}%` : "0%";
      progress.setAttribute("aria-valuemax", String(view.total));
      progress.setAttribute("aria-valuenow", String(view.finished));
      const tools = view.tools.join("\u0000");
      if (tools !== shownTools) {
        shownTools = tools;
        tool.replaceChildren(
          h("option", { value: "" }, "All tools"),
          ...view.tools.map((t) => h("option", { value: t }, t)),
        );
        tool.value = state.tool;
      }
      const ruleKey = JSON.stringify(state.rules);
      if (ruleKey !== shownRules) {
        shownRules = ruleKey;
        rules.replaceChildren(
          ...state.rules.map((r) => {
            const remove = button("Remove");
            remove.addEventListener("click", () => actions.forget(r.name));
            return h("li", {}, `Rule: approve ${r.name} (settled ${r.settled}) `, remove);
          }),
        );
      }
      for (const b of [approve, deny, cancel]) b.disabled = view.selected === 0;
      all.checked = view.selected > 0 && view.selected === view.rows.length;
      empty.classList.toggle("iw-hidden", view.rows.length > 0);
      const drawn = view.rows.map(drawLine);
      const alive = new Set(view.rows.map((r) => r.item.id));
      for (const id of lines.keys()) if (!alive.has(id)) lines.delete(id);
      if (drawn.length !== list.children.length || drawn.some((node, i) => list.children[i] !== node)) {
        list.replaceChildren(...drawn);
      }
      lines.get(state.cursor ?? "")?.root.scrollIntoView?.({ block: "nearest" });

      const opened = view.open;
      if (!opened || cardFor !== opened.id) {
        card?.destroy();
        card = null;
        cardFor = "";
        cardHost.replaceChildren();
      }
      if (opened) {
        const current = cardOf(opened, state, renderers);
        if (!card) {
          cardFor = opened.id;
          card = buildCard(
            { idPrefix: `${prefix}-card`, actions, loader, alive: () => cardFor === opened.id },
            current,
          );
          const choice = h("select", { "aria-label": "Calls like this" });
          const choices = rememberChoices(opened);
          choices.forEach(([label], i) => {
            choice.append(h("option", { value: i }, label));
          });
          const remember = button("Approve, and the same for calls like this");
          remember.addEventListener("click", () => {
            const [, field, op] = choices[Number(choice.value)] ?? [];
            actions.remember(opened.id, field ?? null, op ?? "eq");
          });
          const close = button("Close");
          close.addEventListener("click", () => actions.open(null));
          cardHost.append(card.root, h("div", "iw-remember", remember, " ", choice, " ", close));
        }
        card.update(current, false);
      }
    },
    destroy(): void {
      card?.destroy();
      root.remove();
    },
  };
}
