import { describe, expect, it } from "vitest";
import type { Item } from "../../js/inbox/protocol";
import { decide, type NoticeMemory, nextCheck, noMemory, oneClickApproval } from "./notice_rules";

const NOW = Date.parse("2030-01-07T10:00:00Z");
const at = (ms: number): string => new Date(NOW + ms).toISOString();
const APPROVE_ONLY = { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] };

function item(n: number, extra: Partial<Item> = {}, approvals: Record<string, unknown> | null = null): Item {
  return {
    id: `k:${n}`,
    key: `INV-${n}`,
    tool: "transfer_funds",
    args: "",
    interrupt: {
      id: `int-${n}`,
      reason: "tool_call",
      responseSchema: APPROVE_ONLY,
      metadata: { tool_name: "transfer_funds", ...(approvals && { approvals }) },
    },
    since: NOW - 1000,
    expiresAt: null,
    error: "",
    doubt: "",
    mayAnswer: true,
    ...extra,
  };
}

/** The notices of one pass, as (kind, id, approve) triples, and the memory after it. */
function pass(memory: NoticeMemory, items: Item[], now = NOW) {
  const { notices, memory: after, gone } = decide(memory, items, now);
  return { seen: notices.map((n) => [n.kind, n.itemId, n.approve]), notices, after, gone };
}

describe("which questions the sidebar announces", () => {
  it("announces a question once when it starts waiting for this person, never one they may not answer", () => {
    const first = pass(noMemory(), [item(1), item(2, { mayAnswer: false })]);
    expect(first.seen).toEqual([["waiting", "k:1", true]]);
    expect(first.notices[0]).toMatchObject({ type: "info", autoClose: 10_000 });
    expect(pass(first.after, [item(1), item(2, { mayAnswer: false })]).seen).toEqual([]);
    // The other one turns answerable (a second approver's turn): it starts waiting for them now.
    expect(pass(first.after, [item(1), item(2)]).seen).toEqual([["waiting", "k:2", true]]);
  });

  it("names the question, where it waits, who asked, and what to know", () => {
    const where = {
      label: "notebooks/pay.ipynb",
      path: "notebooks/pay.ipynb",
      cellId: null,
      state: "closed" as const,
      source: "kernel" as const,
      note: "its notebook is closed: answering cannot resume its run",
    };
    const [notice] = pass(noMemory(), [item(1, { where, askedBy: "bob" })]).notices;
    expect(notice?.message).toBe(
      "Waiting for your answer: transfer_funds (INV-1) · notebooks/pay.ipynb · asked by bob · " +
        "its notebook is closed: answering cannot resume its run.",
    );
  });

  it("makes one notice of many new questions, and forgets those gone", () => {
    const many = [1, 2, 3, 4].map((n) => item(n));
    const first = pass(noMemory(), many);
    expect(first.seen).toEqual([["many", null, false]]);
    expect(first.notices[0]?.message).toBe("4 questions are waiting for your answer.");
    const later = pass(first.after, many.slice(1));
    expect([later.seen, later.gone]).toEqual([[], ["k:1"]]);
  });

  it("announces an escalation to this person when it falls due, and the next check wakes for it", () => {
    const escalating = item(1, { mayAnswer: false, escalatesToMe: true }, { escalates_at: at(30_000) });
    const before = pass(noMemory(), [escalating]);
    expect(before.seen).toEqual([]);
    expect(nextCheck(before.after, [escalating], NOW)).toBe(30_000);
    const due = pass(before.after, [escalating], NOW + 30_000);
    expect(due.seen).toEqual([["escalated", "k:1", true]]);
    expect(due.notices[0]).toMatchObject({ type: "warning", autoClose: false });
    expect(due.notices[0]?.message).toBe("Escalated to you: transfer_funds (INV-1).");
    expect(pass(due.after, [escalating], NOW + 31_000).seen).toEqual([]);
    expect(nextCheck(due.after, [escalating], NOW + 31_000)).toBeNull();
    // Escalated already when first seen (`escalated: true`): one notice, the escalation.
    const escalated = item(2, { mayAnswer: false, escalatesToMe: true }, { escalated: true });
    expect(pass(noMemory(), [escalated]).seen).toEqual([["escalated", "k:2", true]]);
  });

  it("warns about a minute before the deadline, once, and not for someone else's question", () => {
    const expiring = item(1, { expiresAt: at(5 * 60_000) });
    const others = item(2, { expiresAt: at(61_000), mayAnswer: false });
    const first = pass(noMemory(), [expiring, others]);
    expect(first.seen).toEqual([["waiting", "k:1", true]]);
    expect(nextCheck(first.after, [expiring, others], NOW)).toBe(4 * 60_000);
    const later = NOW + 4 * 60_000 + 1;
    const warned = pass(first.after, [expiring, others], later);
    expect(warned.seen).toEqual([["deadline", "k:1", true]]);
    expect(warned.notices[0]?.message).toBe("Less than a minute left to answer transfer_funds (INV-1).");
    expect(pass(warned.after, [expiring, others], later + 1000).seen).toEqual([]);
    expect(nextCheck(warned.after, [expiring, others], later + 1000)).toBeNull();
  });

  it("says so in the first notice of a question that arrives with less than a minute left", () => {
    const [notice] = pass(noMemory(), [item(1, { expiresAt: at(40_000) })]).notices;
    expect(notice).toMatchObject({ kind: "waiting", type: "warning", autoClose: false });
    expect(notice?.message).toMatch(/It expires in less than a minute\.$/);
  });
});

describe("one-click approval", () => {
  it("is offered only when approved alone answers, nothing is in doubt, and this person may answer", () => {
    expect(oneClickApproval(item(1), NOW)).toBe(true);
    const meeting = {
      ...APPROVE_ONLY,
      properties: { ...APPROVE_ONLY.properties, chosen_time: { type: "string" } },
      required: ["approved", "chosen_time"],
    };
    const withSchema = (schema: Record<string, unknown>) =>
      item(1, { interrupt: { ...item(1).interrupt, responseSchema: schema } });
    expect(oneClickApproval(withSchema(meeting), NOW)).toBe(false);
    expect(oneClickApproval(withSchema({ type: "object", properties: { text: { type: "string" } } }), NOW)).toBe(false);
    expect(oneClickApproval(withSchema({}), NOW)).toBe(false);
    expect(oneClickApproval(item(1, { doubt: "it may have run" }), NOW)).toBe(false);
    expect(oneClickApproval(item(1, { mayAnswer: false }), NOW)).toBe(false);
    expect(oneClickApproval(item(1, { expiresAt: at(-1) }), NOW)).toBe(false);
  });
});
