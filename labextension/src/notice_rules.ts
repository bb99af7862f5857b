// Which questions the sidebar announces in JupyterLab's notifications, when, and with which
// actions: pure, so it is tested without a page (notifications.ts shows what this decides).
// Announced: a question that starts waiting for this person, one escalated to them, and one
// whose deadline is less than a minute away. Never a question they may not answer. "Approve"
// is offered only where one click can be the whole answer: they may answer, nothing is in
// doubt, and the question's answer schema requires nothing but `approved`.

import { escalatedToMe, escalatesAt, forMe } from "../../js/inbox/people";
import type { Item } from "../../js/inbox/protocol";
import { asRecord } from "../../js/json";

/** How long before its deadline a question is announced again. */
export const DEADLINE_WARNING_MS = 60_000;
/** More new questions than this at once make one notice, not one each. */
export const MANY = 3;

export interface Notice {
  kind: "waiting" | "escalated" | "deadline" | "many";
  /** The question it is about (null for "many"). */
  itemId: string | null;
  message: string;
  type: "info" | "warning";
  /** Whether its "Approve" answers `{"approved": true}` (its "Open" is always there). */
  approve: boolean;
  /** Closes by itself after this many ms, or stays until dismissed. */
  autoClose: number | false;
}

/** What has been announced, per question id. */
export interface NoticeMemory {
  waiting: Record<string, true>;
  escalated: Record<string, true>;
  deadline: Record<string, true>;
}

export const noMemory = (): NoticeMemory => ({ waiting: {}, escalated: {}, deadline: {} });

/** Whether `{"approved": true}` alone would be a whole answer the person may give now. */
export function oneClickApproval(item: Item, now: number): boolean {
  const schema = asRecord(item.interrupt.responseSchema);
  const required = Array.isArray(schema?.required) ? schema.required : [];
  const approved = asRecord(asRecord(schema?.properties)?.approved);
  const expired = item.expiresAt !== null && Date.parse(item.expiresAt) <= now;
  return (
    forMe(item, now) &&
    !item.doubt &&
    !expired &&
    approved?.type === "boolean" &&
    required.length === 1 &&
    required[0] === "approved"
  );
}

/** "transfer_funds (INV-1) · notebooks/pay.ipynb · asked by ada · its notebook is closed: ..." */
function named(item: Item): string {
  const parts = [`${item.tool} (${item.key})`, item.where?.label, item.askedBy && `asked by ${item.askedBy}`];
  return [...parts, item.where?.note].filter(Boolean).join(" · ");
}

const leftMs = (item: Item, now: number): number | null =>
  item.expiresAt === null ? null : Date.parse(item.expiresAt) - now;
const soon = (left: number | null): boolean => left !== null && left > 0 && left <= DEADLINE_WARNING_MS;

/** The notice one question calls for now, if any, marking in `next` what it announces. */
function noticeFor(item: Item, memory: NoticeMemory, next: NoticeMemory, now: number): Notice | null {
  const id = item.id;
  const left = leftMs(item, now);
  const approve = oneClickApproval(item, now);
  const hurry = soon(left) ? " It expires in less than a minute." : "";
  const notice = (kind: Notice["kind"], message: string, urgent: boolean): Notice => ({
    kind,
    itemId: id,
    message,
    type: urgent ? "warning" : "info",
    approve,
    autoClose: urgent ? false : 10_000,
  });
  if (soon(left)) next.deadline[id] = true;
  if (escalatedToMe(item, now) && !memory.escalated[id]) {
    next.escalated[id] = next.waiting[id] = true;
    return notice("escalated", `Escalated to you: ${named(item)}.${hurry}`, true);
  }
  if (!memory.waiting[id]) {
    next.waiting[id] = true;
    return notice("waiting", `Waiting for your answer: ${named(item)}.${hurry}`, Boolean(hurry));
  }
  if (soon(left) && !memory.deadline[id])
    return notice("deadline", `Less than a minute left to answer ${named(item)}.`, true);
  return null;
}

/** The notices `items` call for at `now`, given what was announced before; the memory after,
 * and the questions gone since (their notices may go too). */
export function decide(
  memory: NoticeMemory,
  items: Item[],
  now: number,
): { notices: Notice[]; memory: NoticeMemory; gone: string[] } {
  const alive = new Set(items.map((i) => i.id));
  const keep = (seen: Record<string, true>): Record<string, true> =>
    Object.fromEntries(
      Object.keys(seen)
        .filter((id) => alive.has(id))
        .map((id) => [id, true as const]),
    );
  const next = { waiting: keep(memory.waiting), escalated: keep(memory.escalated), deadline: keep(memory.deadline) };
  const gone = Object.keys(memory.waiting).filter((id) => !alive.has(id));
  const found = items.filter((i) => forMe(i, now)).map((i) => noticeFor(i, memory, next, now));
  const notices = found.filter((n): n is Notice => n !== null);
  const fresh = notices.filter((n) => n.kind === "waiting");
  const urgent = notices.filter((n) => n.kind !== "waiting");
  if (fresh.length <= MANY) return { notices: [...urgent, ...fresh], memory: next, gone };
  const message = `${fresh.length} questions are waiting for your answer.`;
  const many: Notice = { kind: "many", itemId: null, message, type: "info", approve: false, autoClose: 10_000 };
  return { notices: [...urgent, many], memory: next, gone };
}

/** In how many ms a question may next call for a notice (a deadline nearing, an escalation
 * falling due), or null when none will without a change to the list. */
export function nextCheck(memory: NoticeMemory, items: Item[], now: number): number | null {
  const times: number[] = [];
  for (const item of items) {
    const left = leftMs(item, now);
    const mine = forMe(item, now);
    if (mine && left !== null && left > 0 && !memory.deadline[item.id]) times.push(left - DEADLINE_WARNING_MS);
    const at = item.escalatesToMe ? escalatesAt(item) : null;
    if (at !== null && !memory.escalated[item.id]) times.push(at - now);
  }
  return times.length ? Math.max(0, Math.min(...times)) : null;
}
