// Who a waiting call is for: whether this inbox's person may answer it, whether it has
// escalated to them, and whether it has waited past the reminder. Python decides the
// person's part (`mayAnswer`, `escalatesToMe`, from the call's rules about people); the
// time's part is read here, as the clock ticks.

import { asRecord } from "../json";
import type { Item } from "./protocol";

/** When the call's question escalates (ms since the epoch), or null when it never does. */
export function escalatesAt(item: Item): number | null {
  const approvals = asRecord(item.interrupt.metadata?.approvals);
  if (approvals?.escalated === true) return Number.NEGATIVE_INFINITY;
  const at = typeof approvals?.escalates_at === "string" ? Date.parse(approvals.escalates_at) : Number.NaN;
  return Number.isNaN(at) ? null : at;
}

/** Whether the call has escalated to this inbox's person by `now`. */
export function escalatedToMe(item: Item, now: number): boolean {
  const at = escalatesAt(item);
  return item.escalatesToMe === true && at !== null && now >= at;
}

/** Whether this inbox's person may answer the call now (a call no rule about people covers:
 * anyone may). */
export function forMe(item: Item, now: number): boolean {
  return item.mayAnswer !== false || escalatedToMe(item, now);
}

/** Whether the call has waited `remindAfterMs` or more (never, without a reminder). */
export function overdue(item: Item, now: number, remindAfterMs: number | null): boolean {
  return remindAfterMs !== null && now - item.since >= remindAfterMs;
}
