// The inbox's pure core: Python's list and counts, and this view's filter,
// sort, selection and cursor, in; the rows to draw out.

import { approvalCount, type FieldError, formatRemaining, remainingMs } from "../card";
import { escalatedToMe, forMe, overdue } from "./people";
import type { Item, ItemResult } from "./protocol";

export type SortBy = "age" | "expiry";

export interface Rule {
  name: string;
  tool: string;
  settled: number;
}

export interface InboxState {
  items: Record<string, Item>;
  counts: Record<string, number>;
  rules: Rule[];
  tool: string;
  text: string;
  sort: SortBy;
  /** Only the calls this inbox's person may answer ("Waiting for me"). */
  mine: boolean;
  /** After how long an unanswered call is announced again (ms), or null: never. */
  remindAfterMs: number | null;
  selected: Record<string, true>;
  cursor: string | null;
  open: string | null;
  /** itemId -> the request this view sent for it, not replied to yet. */
  pending: Record<string, string>;
  /** itemId -> why this view's last answer to it was refused. */
  refused: Record<string, string>;
  /** itemId -> the fields Python refused in that answer. */
  fieldErrors: Record<string, FieldError[]>;
  now: number;
}

export type InboxEvent =
  | { type: "snapshot"; items: Item[] }
  | { type: "delta"; upsert: Item[]; remove: string[] }
  | { type: "counts"; counts: Record<string, number>; rules: Rule[] }
  | { type: "filter"; tool?: string; text?: string; sort?: SortBy; mine?: boolean }
  | { type: "reminders"; remindAfterMs: number | null }
  | { type: "toggle"; id: string }
  | { type: "selectShown"; on: boolean }
  | { type: "move"; by: number }
  | { type: "point"; id: string }
  | { type: "open"; id: string | null }
  | { type: "sent"; ids: string[]; requestId: string }
  | { type: "reply"; requestId: string; results: ItemResult[] }
  | { type: "tick"; now: number };

export interface RowView {
  item: Item;
  selected: boolean;
  current: boolean;
  pending: boolean;
  waited: string;
  /** "4:59", "expired", or "" without a deadline. */
  expiry: string;
  error: string;
  /** "Escalated to you", "Reminder: still waiting", or "". */
  note: string;
}

export interface InboxView {
  rows: RowView[];
  tools: string[];
  waiting: number;
  selected: number;
  countsLine: string;
  finished: number;
  total: number;
  open: Item | null;
  ticking: boolean;
  /** Calls escalated to this inbox's person. */
  escalatedToMe: number;
  /** Calls waiting longer than the reminder. */
  overdue: number;
}

export function initialState(now: number): InboxState {
  return {
    items: {},
    counts: {},
    rules: [],
    tool: "",
    text: "",
    sort: "age",
    mine: false,
    remindAfterMs: null,
    selected: {},
    cursor: null,
    open: null,
    pending: {},
    refused: {},
    fieldErrors: {},
    now,
  };
}

function keep<T>(record: Record<string, T>, alive: (id: string) => boolean): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([id]) => alive(id)));
}

/** Drop what points at items that are gone (answered, or their row finished). */
function pruned(state: InboxState): InboxState {
  const alive = (id: string): boolean => id in state.items;
  return {
    ...state,
    selected: keep(state.selected, alive),
    pending: keep(state.pending, alive),
    refused: keep(state.refused, alive),
    fieldErrors: keep(state.fieldErrors, alive),
    open: state.open && alive(state.open) ? state.open : null,
  };
}

export function shown(state: InboxState): Item[] {
  const text = state.text.trim().toLowerCase();
  const deadline = (item: Item): number => (item.expiresAt ? Date.parse(item.expiresAt) : Number.POSITIVE_INFINITY);
  return Object.values(state.items)
    .filter((item) => !state.tool || item.tool === state.tool)
    .filter((item) => !state.mine || forMe(item, state.now))
    .filter(
      (item) =>
        !text || `${item.tool} ${item.key} ${item.args} ${item.where?.label ?? ""}`.toLowerCase().includes(text),
    )
    .sort((a, b) =>
      state.sort === "expiry"
        ? deadline(a) - deadline(b) || a.since - b.since
        : a.since - b.since || (a.id < b.id ? -1 : 1),
    );
}

/** The events Python sends: the whole list, a change to it, the counts and remembered rules. */
type FromPython = Extract<InboxEvent, { type: "snapshot" | "delta" | "counts" }>;
/** What the person does in this view: filter, select, move the cursor, open a call. */
type FromPerson = Extract<InboxEvent, { type: "filter" | "toggle" | "selectShown" | "move" | "point" | "open" }>;
/** This view's requests: sent, then replied to. */
type FromRequests = Extract<InboxEvent, { type: "sent" | "reply" }>;

/** The state after one event: each family of events has its own reducer below. */
export function reduce(state: InboxState, event: InboxEvent): InboxState {
  switch (event.type) {
    case "tick":
      return { ...state, now: event.now };
    case "reminders":
      return { ...state, remindAfterMs: event.remindAfterMs };
    case "sent":
    case "reply":
      return fromRequests(state, event);
    case "snapshot":
    case "delta":
    case "counts":
      return fromPython(state, event);
    default:
      return fromPerson(state, event);
  }
}

/** Folds in Python's list, its deltas and its counts. */
function fromPython(state: InboxState, event: FromPython): InboxState {
  switch (event.type) {
    case "snapshot":
      return pruned({ ...state, items: Object.fromEntries(event.items.map((i) => [i.id, i])) });
    case "delta": {
      const items = { ...state.items };
      for (const id of event.remove) delete items[id];
      for (const item of event.upsert) items[item.id] = item;
      let cursor = state.cursor;
      if (cursor && !(cursor in items)) {
        // The row under the cursor was answered: move to the one that followed it.
        const before = shown(state).map((i) => i.id);
        const after = before.slice(before.indexOf(cursor) + 1).find((id) => id in items);
        const rest = shown({ ...state, items });
        cursor = after ?? rest[rest.length - 1]?.id ?? null;
      }
      return pruned({ ...state, items, cursor });
    }
    case "counts":
      return { ...state, counts: event.counts, rules: event.rules };
  }
}

/** Folds in what the person does: the filter, the selection, the cursor and the opened call. */
function fromPerson(state: InboxState, event: FromPerson): InboxState {
  switch (event.type) {
    case "filter":
      return { ...state, ...Object.fromEntries(Object.entries(event).filter(([k]) => k !== "type")) };
    case "toggle": {
      const selected = { ...state.selected };
      if (selected[event.id]) delete selected[event.id];
      else selected[event.id] = true;
      return { ...state, selected };
    }
    case "selectShown":
      return {
        ...state,
        selected: event.on ? Object.fromEntries(shown(state).map((i) => [i.id, true as const])) : {},
      };
    case "move": {
      const ids = shown(state).map((i) => i.id);
      if (!ids.length) return state;
      const at = state.cursor ? ids.indexOf(state.cursor) : -1;
      const next = Math.min(ids.length - 1, Math.max(0, at + event.by));
      return { ...state, cursor: ids[at < 0 ? 0 : next] ?? null };
    }
    case "point":
      return { ...state, cursor: event.id };
    case "open":
      return { ...state, open: event.id, cursor: event.id ?? state.cursor };
  }
}

/** Marks the calls a request was sent for as pending, and a reply's refusals beside them. */
function fromRequests(state: InboxState, event: FromRequests): InboxState {
  switch (event.type) {
    case "sent": {
      const pending = { ...state.pending };
      for (const id of event.ids) pending[id] = event.requestId;
      const others = (id: string): boolean => !event.ids.includes(id);
      return { ...state, pending, refused: keep(state.refused, others), fieldErrors: keep(state.fieldErrors, others) };
    }
    case "reply": {
      const pending = keep(state.pending, (id) => state.pending[id] !== event.requestId);
      const refused = { ...state.refused };
      const fieldErrors = { ...state.fieldErrors };
      for (const r of event.results) {
        if (!r.ok && r.id) {
          refused[r.id] = r.error;
          fieldErrors[r.id] = r.errors;
        }
      }
      return { ...state, pending, refused, fieldErrors };
    }
  }
}

const FINISHED = ["done", "failed", "cancelled"];
const LINE = ["waiting", "running", "pending", "done", "failed", "cancelled"];

export function viewOf(state: InboxState): InboxView {
  const list = shown(state);
  const rows = list.map((item): RowView => {
    const left = remainingMs(item.expiresAt ?? undefined, state.now);
    return {
      item,
      selected: Boolean(state.selected[item.id]),
      current: state.cursor === item.id,
      pending: item.id in state.pending,
      waited: formatRemaining(Math.max(0, state.now - item.since)),
      expiry: left === null ? "" : left > 0 ? formatRemaining(left) : "expired",
      error: state.refused[item.id] || item.error,
      note: noteOf(item, state),
    };
  });
  const all = Object.values(state.items);
  const count = (name: string): number => state.counts[name] ?? 0;
  return {
    rows,
    tools: [...new Set(Object.values(state.items).map((i) => i.tool))].sort(),
    // A call whose kernel stopped is listed (so a person learns why) but waits for no one.
    waiting: all.filter((i) => i.where?.state !== "closed").length,
    selected: Object.keys(state.selected).length,
    countsLine: LINE.filter((s) => count(s))
      .map((s) => `${count(s)} ${s}`)
      .join(" · "),
    finished: FINISHED.reduce((n, s) => n + count(s), 0),
    total: count("total"),
    open: state.open ? (state.items[state.open] ?? null) : null,
    ticking: Object.keys(state.items).length > 0,
    escalatedToMe: all.filter((i) => escalatedToMe(i, state.now)).length,
    overdue: all.filter((i) => overdue(i, state.now, state.remindAfterMs)).length,
  };
}

function noteOf(item: Item, state: InboxState): string {
  if (escalatedToMe(item, state.now)) return "Escalated to you";
  if (!forMe(item, state.now)) return "Not yours to answer: its rules ask for someone else";
  if (overdue(item, state.now, state.remindAfterMs)) return "Reminder: still waiting";
  return approvalCount(item.interrupt.metadata);
}
