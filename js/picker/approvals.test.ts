import { describe, expect, it } from "vitest";
import type { WireInterrupt } from "../card";
import { approvalsOf, clockTime } from "../card/approvals";
import { pickerModel, replyTo } from "../testing/fake_model";
import { buttonIn, cardIn, pickerHost } from "../testing/picker_host";

const UTC = "UTC";

function needing(approvals: Record<string, unknown>): WireInterrupt {
  return {
    id: "send",
    reason: "tool_call",
    message: "send_money(amount=5000, to=Bob)",
    toolCallId: "call-1",
    responseSchema: { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] },
    metadata: {
      tool_name: "send_money",
      tool_input: { amount: 5000, to: "Bob" },
      approvals: { needed: 2, given: [], denied: [], may_answer: [], started_by: "carl", ...approvals },
    },
  };
}

const ANN = { name: "ann", roles: ["finance"], approved: true, at: "2030-01-07T10:02:00Z" };

describe("the approvals a call needs, as text", () => {
  it("says how many approved, who and when, and who may still answer", () => {
    const shown = approvalsOf(needing({ given: [ANN], may_answer: ["finance"] }).metadata, UTC);
    expect(shown?.progress).toBe("1 of 2 approvals: ann approved 10:02");
    expect(shown?.who).toBe("May still answer: finance (not carl, ann)");
    expect(shown?.escalation).toBe("");
  });

  it("reads an empty may_answer as anyone, but for who started the run and who answered", () => {
    const shown = approvalsOf(needing({ given: [ANN], may_answer: [] }).metadata, UTC);
    expect(shown?.who).toBe("Anyone may still answer (not carl, ann)");
  });

  it("says where an unanswered question escalates, and when it has", () => {
    const later = approvalsOf(
      needing({ escalated_to: ["cfo"], escalates_at: "2030-01-07T11:00:00Z", escalated: false }).metadata,
      UTC,
    );
    expect(later?.escalation).toBe("Escalates to cfo at 11:00");
    expect(later?.progress).toBe("0 of 2 approvals");
    const moved = approvalsOf(needing({ escalated_to: ["cfo"], escalated: true }).metadata, UTC);
    expect(moved?.escalation).toBe("Escalated to cfo");
  });

  it("shows nothing for a call no rule about people covers, and keeps odd times as text", () => {
    expect(approvalsOf({ tool_name: "send_money" })).toBeNull();
    expect(approvalsOf(undefined)).toBeNull();
    expect(clockTime("not a time")).toBe("not a time");
  });
});

describe("the card of a call that needs several people", () => {
  const host = pickerHost();

  it("draws the approvals as text, never as HTML", () => {
    const sly = { ...ANN, name: "<img src=x onerror=alert(1)>" };
    host.mount(pickerModel([needing({ given: [sly], may_answer: ["<b>finance</b>"] })]));
    const card = cardIn(host.el, "send");
    const box = card.querySelector(".iw-approvals");
    expect(box?.querySelector("img, b")).toBeNull();
    expect(box?.querySelector(".iw-approvals-progress")?.textContent).toMatch(
      /^1 of 2 approvals: <img src=x onerror=alert\(1\)> approved \d\d:\d\d$/,
    );
    expect(box?.textContent).toContain("May still answer: <b>finance</b>");
  });

  it("shows Python's refusal of someone who may not answer on the card", () => {
    const model = pickerModel([needing({ given: [ANN] })]);
    host.mount(model);
    const card = cardIn(host.el, "send");
    buttonIn(card, "Approve").click();
    expect(model.sent[0]?.status).toBe("resolved");
    replyTo(model, { ok: false, error: "send_money: ann already approved at 2030-01-07T10:02:00Z" });
    expect(card.querySelector(".iw-card-error")?.textContent).toContain("ann already approved");
  });

  it("redraws the approvals when the same question is asked again with a new vote", () => {
    const model = pickerModel([needing({})]);
    host.mount(model);
    const progress = () => cardIn(host.el, "send").querySelector(".iw-approvals-progress")?.textContent;
    expect(progress()).toBe("0 of 2 approvals");
    model.set("interrupts", [needing({ given: [ANN] })]);
    expect(progress()).toMatch(/^1 of 2 approvals: ann approved \d\d:\d\d$/);
  });

  // The schema of an editable tool: the approver may change the amount.
  const editable = (approvals: Record<string, unknown>): WireInterrupt => ({
    ...needing(approvals),
    responseSchema: {
      type: "object",
      properties: {
        approved: { type: "boolean" },
        editedArgs: { type: "object", properties: { amount: { type: "number" }, to: { type: "string" } } },
      },
      required: ["approved"],
    },
  });

  it("offers no edit on a call that needs several approvals, so Approve sends the call as proposed", () => {
    const model = pickerModel([editable({ needed: 2 })]);
    host.mount(model);
    const card = cardIn(host.el, "send");
    expect(card.querySelector("[data-field^='editedArgs']")).toBeNull();
    expect(card.querySelector(".iw-changes")).toBeNull();
    buttonIn(card, "Approve").click();
    expect(model.sent[0]?.payload).toEqual({ approved: true });
  });

  it("keeps the edit on an editable call one approval settles", () => {
    host.mount(pickerModel([editable({ needed: 1 })]));
    const amount = cardIn(host.el, "send").querySelector<HTMLInputElement>("[data-field='editedArgs.amount']");
    expect(amount?.value).toBe("5000");
  });

  it("draws nothing extra for an ordinary approval", () => {
    const plain = needing({});
    plain.metadata = { tool_name: "send_money", tool_input: { amount: 5 } };
    host.mount(pickerModel([plain]));
    expect(cardIn(host.el, "send").querySelector(".iw-approvals")?.classList.contains("iw-hidden")).toBe(true);
    expect(cardIn(host.el, "send").querySelector(".iw-approvals")?.textContent).toBe("");
  });
});
