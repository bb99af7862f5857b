import { describe, expect, it } from "vitest";
import type { WireInterrupt } from "../card";
import { type FakePicker, pickerModel, replyTo } from "../testing/fake_model";
import { buttonIn, cardIn, pickerHost } from "../testing/picker_host";
import { mountPicker } from "./index";

const MEETING_SCHEMA = {
  type: "object",
  properties: {
    approved: { type: "boolean" },
    chosen_time: { type: "string", format: "date-time" },
    chosen_label: { type: "string" },
  },
  required: ["approved"],
};

function meeting(id = "int-1", extra: Partial<WireInterrupt> = {}): WireInterrupt {
  return {
    id,
    reason: "tool_call",
    toolCallId: `call-${id}`,
    message: "Schedule a meeting about the roadmap?",
    responseSchema: MEETING_SCHEMA,
    metadata: { tool_name: "schedule_meeting", tool_input: { topic: "roadmap", attendee: "Ada" } },
    ...extra,
  };
}

const host = pickerHost();
const mount = (model: FakePicker): HTMLElement => host.mount(model);
const button = buttonIn;
const card = (id: string): HTMLElement => cardIn(host.el, id);

function field<T extends HTMLElement = HTMLInputElement>(root: ParentNode, name: string): T {
  const found = root.querySelector<T>(`[data-field="${name}"]`);
  if (!found) throw new Error(`no field ${name}`);
  return found;
}

describe("the meeting scheduler", () => {
  it("shows the message, the tool and its arguments as text", () => {
    mount(pickerModel([meeting()]));
    const c = card("int-1");
    expect(c.querySelector("h3")?.textContent).toBe("schedule_meeting");
    expect(c.querySelector(".iw-message")?.textContent).toBe("Schedule a meeting about the roadmap?");
    const rows = [...c.querySelectorAll(".iw-args tr")].map((r) => [...r.children].map((x) => x.textContent));
    expect(rows).toEqual([
      ["topic", "roadmap"],
      ["attendee", "Ada"],
    ]);
    expect(field(c, "chosen_time").type).toBe("datetime-local");
    expect(c.querySelector('[data-field="approved"]')).toBeNull();
    expect(button(c, "Approve").type).toBe("submit");
    button(c, "Deny");
    button(c, "Cancel");
  });

  it("approves with the chosen time in ISO 8601 with the browser's offset, and a derived label", () => {
    const model = pickerModel([meeting()]);
    mount(model);
    const c = card("int-1");
    field(c, "chosen_time").value = "2026-12-08T10:30";
    button(c, "Approve").click();
    expect(model.sent).toHaveLength(1);
    const sent = model.sent[0];
    expect(sent?.type).toBe("answer");
    expect(sent?.status).toBe("resolved");
    const payload = sent?.payload as Record<string, string>;
    expect(payload.approved).toBe(true);
    const offset = -new Date(2026, 11, 8, 10, 30).getTimezoneOffset();
    const sign = offset >= 0 ? "+" : "-";
    const hh = String(Math.floor(Math.abs(offset) / 60)).padStart(2, "0");
    const mm = String(Math.abs(offset) % 60).padStart(2, "0");
    expect(payload.chosen_time).toBe(`2026-12-08T10:30:00${sign}${hh}:${mm}`);
    expect(new Date(payload.chosen_time ?? "").getTime()).toBe(new Date(2026, 11, 8, 10, 30).getTime());
    expect(payload.chosen_label).toMatch(/10:30|10.30/);
  });

  it("keeps a label the user typed", () => {
    const model = pickerModel([meeting()]);
    mount(model);
    const c = card("int-1");
    field(c, "chosen_time").value = "2026-12-08T10:30";
    field(c, "chosen_label").value = "Tue morning";
    button(c, "Approve").click();
    expect((model.sent[0]?.payload as Record<string, unknown> | undefined)?.chosen_label).toBe("Tue morning");
  });

  it("denies with {approved: false} alone, whatever the other fields hold", () => {
    const model = pickerModel([meeting()]);
    mount(model);
    field(card("int-1"), "chosen_time").value = "garbage";
    button(card("int-1"), "Deny").click();
    expect(model.sent.map((m) => [m.status, m.payload])).toEqual([["resolved", { approved: false }]]);
  });

  it("denies with the reason typed beside Deny, sent as text, and approves without it", () => {
    const withReason = meeting("int-1", {
      responseSchema: {
        ...MEETING_SCHEMA,
        properties: { ...MEETING_SCHEMA.properties, reason: { type: "string", maxLength: 1000 } },
      },
    });
    const model = pickerModel([withReason]);
    mount(model);
    const c = card("int-1");
    const reason = field<HTMLInputElement | HTMLTextAreaElement>(c, "reason");
    expect(c.querySelector(".iw-deny-reason label")?.textContent).toContain("Reason for denying");
    reason.value = "  <img src=x onerror=alert(1)> Alice is away ";
    button(c, "Deny").click();
    expect(model.sent.map((m) => m.payload)).toEqual([
      { approved: false, reason: "<img src=x onerror=alert(1)> Alice is away" },
    ]);
    expect(c.querySelector("img")).toBeNull();
    replyTo(model);
    expect(c.querySelector(".iw-decision")?.textContent).toContain(
      "Reason: <img src=x onerror=alert(1)> Alice is away",
    );
    expect(c.querySelector("img")).toBeNull();

    const other = pickerModel([withReason]);
    host.el.replaceChildren();
    mount(other);
    field(card("int-1"), "reason").value = "never mind";
    field(card("int-1"), "chosen_time").value = "2026-12-08T10:30";
    button(card("int-1"), "Approve").click();
    expect(other.sent[0]?.payload).not.toHaveProperty("reason");
  });

  it("cancels with status cancelled and no payload", () => {
    const model = pickerModel([meeting()]);
    mount(model);
    button(card("int-1"), "Cancel").click();
    expect(model.sent.map((m) => [m.interruptId, m.status, m.payload])).toEqual([["int-1", "cancelled", null]]);
  });

  it("sends once on a double click, then shows the read-only summary", () => {
    const model = pickerModel([meeting()]);
    mount(model);
    const c = card("int-1");
    field(c, "chosen_time").value = "2026-12-08T10:30";
    field(c, "chosen_label").value = "Tue 10:30";
    const approve = button(c, "Approve");
    approve.click();
    approve.click();
    expect(model.sent).toHaveLength(1);
    expect(approve.disabled).toBe(true);
    replyTo(model);
    const summary = c.querySelector(".iw-decision");
    expect(summary?.classList.contains("iw-hidden")).toBe(false);
    expect(summary?.textContent).toContain("Approved");
    expect(summary?.textContent).toContain("Chosen label: Tue 10:30");
    expect(c.querySelector("form")?.classList.contains("iw-hidden")).toBe(true);
    expect(host.el.querySelector(".iw-status")?.textContent).toBe("Answers sent.");
  });

  it("shows Python's refusal beside the field and lets the user try again", () => {
    const model = pickerModel([meeting()]);
    mount(model);
    const c = card("int-1");
    field(c, "chosen_time").value = "2026-12-08T10:30";
    button(c, "Approve").click();
    replyTo(model, {
      ok: false,
      error: "schedule_meeting: /chosen_time: must be in the future",
      errors: [{ path: "/chosen_time", message: "must be in the future" }],
    });
    const time = field(c, "chosen_time");
    expect(time.getAttribute("aria-invalid")).toBe("true");
    const errorId = time.getAttribute("aria-describedby")?.split(" ").pop() ?? "";
    expect(document.getElementById(errorId)?.textContent).toBe("Chosen time must be in the future.");
    expect(button(c, "Approve").disabled).toBe(false);
    button(c, "Approve").click();
    expect(model.sent).toHaveLength(2);
  });

  it("names the pattern and the schema's examples under a text that does not match, as text", () => {
    const schema = {
      type: "object",
      properties: {
        approved: { type: "boolean" },
        table: { type: "string", pattern: "^[a-z_]+$", examples: ["invoices", "old_rows", "a", "b"] },
        note: { type: "string", pattern: "^<b>x</b>$" },
      },
      required: ["approved", "table"],
    };
    const model = pickerModel([meeting("int-1", { responseSchema: schema })]);
    mount(model);
    const c = card("int-1");
    field(c, "table").value = "DROP TABLE x;";
    field(c, "note").value = "y";
    button(c, "Approve").click();
    expect(model.sent).toHaveLength(0); // refused before anything is sent
    const errorOf = (name: string): string | null | undefined => {
      const id = field(c, name).getAttribute("aria-describedby")?.split(" ").pop() ?? "";
      return document.getElementById(id)?.textContent;
    };
    expect(errorOf("table")).toBe('Table must match the pattern ^[a-z_]+$, e.g. "invoices" or "old_rows" or "a".');
    expect(errorOf("note")).toBe("Note must match the pattern ^<b>x</b>$.");
    expect(c.querySelector(".iw-field-error b")).toBeNull(); // the pattern stays text

    // Python's refusal of the same (an answer sent around the form) reads the same there.
    field(c, "table").value = "invoices";
    field(c, "note").value = "<b>x</b>";
    button(c, "Approve").click();
    expect(model.sent).toHaveLength(1);
    const said = 'must match the pattern ^[a-z_]+$, e.g. "invoices" or "old_rows" or "a"';
    replyTo(model, { ok: false, error: `t: /table: ${said}`, errors: [{ path: "/table", message: said }] });
    expect(errorOf("table")).toBe(`Table ${said}.`);
  });

  it("draws a saved summary with no kernel: answers and status alone", () => {
    const model = pickerModel([meeting()], {
      status: "submitted",
      answers: {
        "int-1": {
          status: "resolved",
          payload: { approved: false },
          by: "responder:deny_all",
          at: "2026-12-02T10:00:00Z",
        },
      },
    });
    mount(model);
    const c = card("int-1");
    expect(c.querySelector(".iw-decision")?.textContent).toBe("Denied (by responder deny_all)");
    expect(c.querySelector("form")?.classList.contains("iw-hidden")).toBe(true);
  });

  it("never saves traits: every action is a custom message", () => {
    const model = pickerModel([meeting()]);
    mount(model);
    button(card("int-1"), "Cancel").click();
    expect(model.sent).toHaveLength(1); // save_changes would have thrown
  });

  it("removes its listeners and DOM on cleanup", () => {
    const model = pickerModel([meeting()]);
    const cleanup = mountPicker(host.el, model.asModel());
    expect(model.listeners()).toBeGreaterThan(0);
    cleanup();
    expect(model.listeners()).toBe(0);
    expect(host.el.querySelector(".iw-picker")).toBeNull();
  });
});
