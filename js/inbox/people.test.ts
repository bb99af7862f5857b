import { describe, expect, it } from "vitest";
import { escalatedToMe, forMe, overdue } from "./people";
import type { Item } from "./protocol";
import { initialState, reduce, shown, viewOf } from "./state";

const ESCALATES = Date.parse("2030-01-07T10:00:00Z");

function call(n: number, extra: Partial<Item> = {}, approvals: Record<string, unknown> | null = null): Item {
  return {
    id: `0:T-${n}:approve-call_${n}`,
    key: `T-${n}`,
    tool: "transfer_funds",
    args: `amount=${5000 + n}`,
    interrupt: {
      id: `approve-call_${n}`,
      reason: "tool_call",
      metadata: {
        tool_name: "transfer_funds",
        ...(approvals ? { approvals: { needed: 2, given: [], ...approvals } } : {}),
      },
    },
    since: ESCALATES - 3_600_000,
    expiresAt: null,
    error: "",
    ...extra,
  };
}

describe("who a waiting call is for", () => {
  const plain = call(1);
  const notMine = call(2, { mayAnswer: false }, { roles: ["finance"] });
  const toMe = call(
    3,
    { mayAnswer: false, escalatesToMe: true },
    { escalated_to: ["cfo"], escalates_at: "2030-01-07T10:00:00Z" },
  );

  it("a call no rule about people covers is anyone's; a call held back from this person is not", () => {
    expect(forMe(plain, ESCALATES)).toBe(true);
    expect(forMe(notMine, ESCALATES)).toBe(false);
  });

  it("a call escalated to this person becomes theirs when its time comes", () => {
    expect(escalatedToMe(toMe, ESCALATES - 1)).toBe(false);
    expect(forMe(toMe, ESCALATES - 1)).toBe(false);
    expect(escalatedToMe(toMe, ESCALATES)).toBe(true);
    expect(forMe(toMe, ESCALATES)).toBe(true);
  });

  it("a call is overdue once it waited the reminder's time, never without a reminder", () => {
    expect(overdue(plain, plain.since + 59_999, 60_000)).toBe(false);
    expect(overdue(plain, plain.since + 60_000, 60_000)).toBe(true);
    expect(overdue(plain, plain.since + 1e9, null)).toBe(false);
  });

  it("'Waiting for me' lists only this person's calls; escalated and overdue calls say so", () => {
    let s = reduce(initialState(ESCALATES - 1), { type: "snapshot", items: [plain, notMine, toMe] });
    s = reduce(s, { type: "filter", mine: true });
    expect(shown(s).map((i) => i.key)).toEqual(["T-1"]);
    s = reduce(s, { type: "tick", now: ESCALATES });
    expect(shown(s).map((i) => i.key)).toEqual(["T-1", "T-3"]);
    s = reduce(s, { type: "reminders", remindAfterMs: 30 * 60_000 });
    const view = viewOf(s);
    expect(view.rows.map((r) => r.note)).toEqual(["Reminder: still waiting", "Escalated to you"]);
    expect([view.escalatedToMe, view.overdue]).toEqual([1, 3]);
    s = reduce(s, { type: "filter", mine: false });
    expect(shown(s)).toHaveLength(3);
  });

  it("a call that needs several approvals says how far it got on its line; one that needs one says nothing", () => {
    const two = call(4, {}, { given: [{ name: "carol", at: "2030-01-07T09:00:00Z" }] });
    const s = reduce(initialState(ESCALATES - 1), { type: "snapshot", items: [plain, two] });
    expect(viewOf(s).rows.map((r) => r.note)).toEqual(["", "1 of 2 approvals"]);
  });
});
