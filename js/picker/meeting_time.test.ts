/// <reference types="vite/client" />
// The meeting-time renderer shipped with the package, mounted through the real picker.
import { afterEach, describe, expect, it, vi } from "vitest";
import * as meetingTime from "../../src/interrupt_widget/widgets/renderers/meeting_time.js";
import SOURCE from "../../src/interrupt_widget/widgets/renderers/meeting_time.js?raw";
import type { WireInterrupt } from "../card";
import { type FakePicker, pickerModel, replyTo } from "../testing/fake_model";
import { mountPicker } from "./index";

const SCHEMA = {
  type: "object",
  properties: {
    approved: { type: "boolean" },
    chosen_time: { type: "string", format: "date-time" },
    chosen_label: { type: "string" },
  },
  required: ["approved"],
};

// As the quickstart sends it (`approval_schema(MEETING_RESPONSE_SCHEMA)`): time and label required if approved.
const KIT_SCHEMA = {
  ...SCHEMA,
  properties: { ...SCHEMA.properties, reason: { type: "string", title: "Reason", maxLength: 1000 } },
  if: { properties: { approved: { const: true } }, required: ["approved"] },
  // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then
  then: { required: ["chosen_time", "chosen_label"] },
};

function meeting(toolInput: Record<string, unknown> = { topic: "roadmap" }): WireInterrupt {
  return {
    id: "m",
    reason: "tool_call",
    responseSchema: SCHEMA,
    metadata: { tool_name: "schedule_meeting", tool_input: toolInput },
  };
}

let cleanup: (() => void) | null = null;
afterEach(() => {
  cleanup?.();
  cleanup = null;
  document.body.replaceChildren();
});

async function mounted(interrupt: WireInterrupt): Promise<{ model: FakePicker; el: HTMLElement }> {
  const el = document.createElement("div");
  document.body.appendChild(el);
  const model = pickerModel([interrupt], { renderers: { schedule_meeting: SOURCE } });
  cleanup = mountPicker(el, model.asModel(), { loader: async (source) => (source === SOURCE ? meetingTime : null) });
  await vi.waitFor(() => expect(el.querySelector('[aria-label="Suggested meeting times"]')).not.toBeNull());
  return { model, el };
}

describe("the meeting-time renderer", () => {
  it("offers the next weekdays at 10:00 and 14:00, skipping the weekend", () => {
    const friday = new Date(2026, 11, 4, 16, 0);
    const slots = meetingTime.suggestedSlots(meeting(), friday);
    expect(slots).toHaveLength(6);
    const days = slots.map((s) => new Date(s.iso));
    expect(days.map((d) => [d.getDate(), d.getHours()])).toEqual([
      [7, 10],
      [7, 14],
      [8, 10],
      [8, 14],
      [9, 10],
      [9, 14],
    ]);
    expect(slots[0]?.iso).toMatch(/^2026-12-07T10:00:00[+-]\d{2}:\d{2}$/);
  });

  it("uses the agent's suggested times when given", () => {
    const slots = meetingTime.suggestedSlots(meeting({ suggested_times: ["2026-12-08T09:00:00Z", "nonsense"] }));
    expect(slots.map((s) => new Date(s.iso).toISOString())).toEqual(["2026-12-08T09:00:00.000Z"]);
  });

  it("approves with one click on a slot and shows a refusal", async () => {
    const { model, el } = await mounted(meeting({ suggested_times: ["2026-12-08T09:00:00Z"] }));
    const slot = el.querySelector<HTMLButtonElement>('[aria-label="Suggested meeting times"] button');
    slot?.click();
    expect(model.sent).toHaveLength(1);
    const payload = model.sent[0]?.payload as Record<string, unknown>;
    expect(payload.approved).toBe(true);
    expect(new Date(String(payload.chosen_time)).toISOString()).toBe("2026-12-08T09:00:00.000Z");
    expect(payload.chosen_label).toBe(slot?.textContent);
    expect(slot?.disabled).toBe(true);
    replyTo(model, { ok: false, error: "schedule_meeting: /chosen_time: must be in the future" });
    await vi.waitFor(() =>
      expect(el.querySelector(".iw-custom [role=status]")?.textContent).toContain("must be in the future"),
    );
    expect(slot?.disabled).toBe(false);
  });

  it("sends {approved: false} from Don't schedule", async () => {
    const { model, el } = await mounted(meeting());
    [...el.querySelectorAll("button")].find((b) => b.textContent === "Don't schedule")?.click();
    expect(model.sent.map((m) => m.payload)).toEqual([{ approved: false }]);
  });

  it("opens the general form one click away, without a required label to fill", async () => {
    const { model, el } = await mounted({ ...meeting(), responseSchema: KIT_SCHEMA });
    const form = el.querySelector(".iw-fields") as HTMLElement;
    const reason = el.querySelector(".iw-deny-reason") as HTMLElement;
    expect(form.classList.contains("iw-hidden")).toBe(true);
    expect(reason.classList.contains("iw-hidden")).toBe(true);
    const other = [...el.querySelectorAll("button")].find((b) => b.textContent === "Another time…");
    other?.click();
    expect(form.classList.contains("iw-hidden")).toBe(false);
    expect(reason.classList.contains("iw-hidden")).toBe(false);
    expect(other?.isConnected).toBe(false);
    const label = el.querySelector<HTMLInputElement>('[data-field="chosen_label"]');
    expect(label?.getAttribute("aria-required")).toBeNull();
    const time = el.querySelector<HTMLInputElement>('[data-field="chosen_time"]');
    if (!time) throw new Error("no time field");
    time.value = "2030-01-08T10:00";
    [...el.querySelectorAll("button")].find((b) => b.textContent === "Approve")?.click();
    const payload = model.sent[0]?.payload as Record<string, unknown>;
    expect(payload.approved).toBe(true);
    expect(String(payload.chosen_time)).toMatch(/^2030-01-08T10:00:00[+-]\d{2}:\d{2}$/);
    expect(typeof payload.chosen_label).toBe("string");
  });
});
