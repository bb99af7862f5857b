import { describe, expect, it, vi } from "vitest";
import type { JsonSchema, RendererProps, WireInterrupt } from "../card";
import { type FakePicker, pickerModel, replyTo } from "../testing/fake_model";
import { buttonIn, cardIn, pickerHost } from "../testing/picker_host";
import { mountPicker } from "./index";

function ask(id: string, schema: JsonSchema | undefined, extra: Partial<WireInterrupt> = {}): WireInterrupt {
  return { id, reason: "input_required", message: `question ${id}`, responseSchema: schema, ...extra };
}

const host = pickerHost();
const mount = (model: FakePicker, options: Parameters<typeof mountPicker>[2] = {}): void => {
  host.mount(model, options);
};
const cardOf = (id: string): HTMLElement => cardIn(host.el, id);

function labelText(control: Element): string {
  const id = control.getAttribute("id");
  const label = id ? host.el.querySelector(`label[for="${id}"]`) : control.closest("label");
  return label?.textContent ?? "";
}

describe("built-in forms", () => {
  const schema: JsonSchema = {
    type: "object",
    properties: {
      count: { type: "integer", minimum: 1, maximum: 5, description: "How many seats" },
      ok: { type: "boolean", title: "Send a reminder" },
      size: { enum: ["S", "M", "L"] },
      city: { enum: ["Oslo", "Lima", "Pune", "Kobe", "Nice"] },
      day: { type: "string", format: "date" },
      at: { type: "string", format: "time" },
      when: { type: "string", format: "date-time" },
      tags: { type: "array", items: { enum: ["red", "blue"] } },
      room: { type: "object", title: "Room", properties: { floor: { type: "integer" } } },
    },
    required: ["count"],
  };

  it("draws a labelled, described control for each schema type", () => {
    mount(pickerModel([ask("q", schema)]));
    const c = cardOf("q");
    const count = c.querySelector<HTMLInputElement>('[data-field="count"]');
    expect(count?.type).toBe("number");
    expect([count?.min, count?.max, count?.step]).toEqual(["1", "5", "1"]);
    expect(count?.getAttribute("aria-required")).toBe("true");
    expect(labelText(count as Element)).toBe("Count *");
    const described = count?.getAttribute("aria-describedby")?.split(" ") ?? [];
    expect(document.getElementById(described[0] ?? "")?.textContent).toBe("How many seats");
    const ok = c.querySelector<HTMLInputElement>('[data-field="ok"]');
    expect(ok?.type).toBe("checkbox");
    expect(labelText(ok as Element)).toBe("Send a reminder");
    const size = c.querySelector('[data-field="size"]');
    expect(size?.getAttribute("role")).toBe("radiogroup");
    expect(
      [...(size?.querySelectorAll("input[type=radio]") ?? [])].map((r) => r.closest("label")?.textContent),
    ).toEqual(["S", "M", "L"]);
    expect(c.querySelector('[data-field="city"]')?.tagName).toBe("SELECT");
    expect(c.querySelector<HTMLInputElement>('[data-field="day"]')?.type).toBe("date");
    expect(c.querySelector<HTMLInputElement>('[data-field="at"]')?.type).toBe("time");
    expect(c.querySelector<HTMLInputElement>('[data-field="when"]')?.type).toBe("datetime-local");
    expect(c.querySelectorAll('[data-field="tags"] input[type=checkbox]')).toHaveLength(2);
    expect(c.querySelector('[data-field="room"] legend')?.textContent).toBe("Room");
    expect(c.querySelector<HTMLInputElement>('[data-field="room.floor"]')?.type).toBe("number");
    buttonIn(c, "Submit");
    buttonIn(c, "Cancel");
  });

  it("checks bounds and required fields in the browser, inline, without sending", () => {
    const model = pickerModel([ask("q", schema)]);
    mount(model);
    const c = cardOf("q");
    const count = c.querySelector<HTMLInputElement>('[data-field="count"]');
    if (!count) throw new Error("no count");
    buttonIn(c, "Submit").click();
    expect(model.sent).toHaveLength(0);
    const errorOf = (input: Element): string =>
      document.getElementById(input.getAttribute("aria-describedby")?.split(" ").pop() ?? "")?.textContent ?? "";
    expect(errorOf(count)).toBe("Count is required.");
    expect(count.getAttribute("aria-invalid")).toBe("true");
    count.value = "9";
    buttonIn(c, "Submit").click();
    expect(errorOf(count)).toBe("Count must be <= 5.");
    expect(model.sent).toHaveLength(0);
    count.value = "2";
    const radio = c.querySelectorAll<HTMLInputElement>('[data-field="size"] input')[1];
    if (radio) radio.checked = true;
    buttonIn(c, "Submit").click();
    expect(errorOf(count)).toBe("");
    expect(model.sent.map((m) => m.payload)).toEqual([{ count: 2, ok: false, size: "M" }]);
  });

  it("submits on Enter, as a form does", () => {
    const model = pickerModel([ask("q", { type: "object", properties: { n: { type: "integer" } }, required: ["n"] })]);
    mount(model);
    const input = cardOf("q").querySelector<HTMLInputElement>('[data-field="n"]');
    if (!input) throw new Error("no input");
    input.value = "4";
    input.form?.requestSubmit();
    expect(model.sent.map((m) => m.payload)).toEqual([{ n: 4 }]);
  });

  it("asks a bare question with one field and sends the bare value", () => {
    const model = pickerModel([ask("q", { type: "string", title: "Your name" })]);
    mount(model);
    const input = cardOf("q").querySelector<HTMLInputElement>('[data-field="value"]');
    if (!input) throw new Error("no input");
    expect(labelText(input)).toBe("Your name *");
    input.value = "Ada";
    buttonIn(cardOf("q"), "Submit").click();
    expect(model.sent.map((m) => m.payload)).toEqual(["Ada"]);
  });
});

describe("several interrupts", () => {
  it("answers them one by one and shows progress, each card its own decision", () => {
    const model = pickerModel([ask("a", undefined), ask("b", { type: "boolean" })]);
    mount(model);
    expect(host.el.querySelector(".iw-status")?.textContent).toBe("0 of 2 answered");
    buttonIn(cardOf("a"), "Cancel").click();
    replyTo(model);
    expect(host.el.querySelector(".iw-status")?.textContent).toBe("1 of 2 answered");
    expect(cardOf("a").querySelector(".iw-decision")?.textContent).toBe("Cancelled (in this view)");
    expect(buttonIn(cardOf("b"), "Submit").disabled).toBe(false);
    buttonIn(cardOf("b"), "Submit").click();
    replyTo(model, {}, "python");
    expect(cardOf("b").querySelector(".iw-decision")?.textContent).toBe("Answered Answer: false (from Python)");
    expect(host.el.querySelector(".iw-status")?.textContent).toBe("Answers sent.");
  });

  it("keeps views of one model apart: a reply settles only the view that asked", () => {
    const model = pickerModel([ask("a", undefined)]);
    mount(model);
    const second = document.createElement("div");
    document.body.appendChild(second);
    host.cleanupLater(mountPicker(second, model.asModel()));
    host.cleanupLater(() => second.remove());
    buttonIn(cardOf("a"), "Cancel").click();
    expect(buttonIn(cardOf("a"), "Cancel").disabled).toBe(true);
    expect(buttonIn(second, "Cancel").disabled).toBe(false);
    replyTo(model, { ok: false, error: "nope" });
    expect(cardOf("a").querySelector(".iw-card-error")?.textContent).toBe("nope");
    expect(second.querySelector(".iw-card-error")?.textContent).toBe("");
  });
});

describe("two views answering at once", () => {
  it("tells the view whose answer came second that it was answered elsewhere, and how", () => {
    const model = pickerModel([ask("a", undefined)]);
    mount(model);
    const second = document.createElement("div");
    document.body.appendChild(second);
    host.cleanupLater(mountPicker(second, model.asModel()));
    host.cleanupLater(() => second.remove());
    buttonIn(cardOf("a"), "Cancel").click(); // the first tab
    buttonIn(cardIn(second, "a"), "Cancel").click(); // the second, before any reply
    const [first, late] = model.sent;
    expect(first?.viewId).toMatch(/^view-/);
    expect(late?.viewId).toMatch(/^view-/);
    expect(late?.viewId).not.toBe(first?.viewId);
    // Python records the first answer, then refuses the second.
    const record = {
      status: "cancelled" as const,
      payload: null,
      by: `view:${first?.viewId}`,
      at: "2026-12-02T10:00:00Z",
    };
    model.set("answers", { a: record });
    model.set("status", "submitted");
    for (const [request, ok] of [
      [first, true],
      [late, false],
    ] as const) {
      model.emit("msg:custom", {
        type: "answer_result",
        requestId: request?.requestId,
        ok,
        error: ok ? "" : "already answered elsewhere",
        errors: [],
      });
    }
    expect(cardOf("a").querySelector(".iw-decision")?.textContent).toBe("Cancelled (in this view)");
    expect(cardIn(second, "a").querySelector(".iw-decision")?.textContent).toBe(
      "Answered elsewhere: Cancelled (in another view)",
    );
    expect(cardIn(second, "a").querySelector(".iw-card-error")?.textContent).toBe("");
  });

  it("says so too when the refusal arrives before the winning answer", () => {
    const model = pickerModel([ask("a", undefined)]);
    mount(model);
    buttonIn(cardOf("a"), "Cancel").click();
    const [mine] = model.sent;
    model.set("answers", {
      a: { status: "resolved", payload: { approved: false }, by: "view:other", at: "2026-12-02T10:00:00Z" },
    });
    model.emit("msg:custom", {
      type: "answer_result",
      requestId: mine?.requestId,
      ok: false,
      error: "late",
      errors: [],
    });
    expect(cardOf("a").querySelector(".iw-decision")?.textContent).toContain("Answered elsewhere:");
  });
});

describe("a model whose interrupts change", () => {
  it("drops the cards of interrupts that are gone and adds the new ones", () => {
    const model = pickerModel([ask("a", undefined), ask("b", undefined)]);
    mount(model);
    model.set("interrupts", [ask("b", undefined), ask("c", undefined)]);
    const ids = [...host.el.querySelectorAll("[data-interrupt-id]")].map((c) => c.getAttribute("data-interrupt-id"));
    expect(ids).toEqual(["b", "c"]);
    expect(new Set([...host.el.querySelectorAll("[id]")].map((n) => n.id)).size).toBe(
      host.el.querySelectorAll("[id]").length,
    );
  });
});

describe("countdown", () => {
  it("counts down each second, then allows only Cancel", () => {
    vi.useFakeTimers();
    const start = Date.parse("2026-12-02T10:00:00Z");
    vi.setSystemTime(start);
    const model = pickerModel([ask("q", { type: "string" }, { expiresAt: "2026-12-02T10:01:05Z" })]);
    mount(model);
    const countdown = (): string => cardOf("q").querySelector(".iw-countdown")?.textContent ?? "";
    expect(countdown()).toBe("Expires in 1:05");
    vi.advanceTimersByTime(1000);
    expect(countdown()).toBe("Expires in 1:04");
    vi.advanceTimersByTime(64_000);
    expect(countdown()).toBe("Expired: it can only be cancelled");
    expect(buttonIn(cardOf("q"), "Submit").disabled).toBe(true);
    expect(cardOf("q").querySelector<HTMLInputElement>('[data-field="value"]')?.disabled).toBe(true);
    const cancel = buttonIn(cardOf("q"), "Cancel");
    expect(cancel.disabled).toBe(false);
    // Python cancels it when the time runs out; the view then stops ticking.
    model.set("answers", { q: { status: "cancelled", payload: null, by: "expiry", at: "2026-12-02T10:01:05Z" } });
    model.set("status", "expired");
    expect(countdown()).toBe("");
    expect(cardOf("q").querySelector(".iw-decision")?.textContent).toBe("Expired (time ran out)");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("formats hours", () => {
    vi.useFakeTimers();
    vi.setSystemTime(Date.parse("2026-12-02T10:00:00Z"));
    mount(pickerModel([ask("q", undefined, { expiresAt: "2026-12-02T12:00:30+01:00" })]));
    expect(cardOf("q").querySelector(".iw-countdown")?.textContent).toBe("Expires in 1:00:30");
  });
});

describe("untrusted text", () => {
  const HOSTILE = [
    "<script>window.__pwned = 1</script>",
    '<img src=x onerror="window.__pwned = 1">',
    '<a href="javascript:window.__pwned=1">click me</a>',
    "javascript:window.__pwned=1",
    '"><svg onload=window.__pwned=1>',
  ];

  it("renders every hostile string as plain text, never as markup", () => {
    const [script, img, link, js, svg] = HOSTILE as [string, string, string, string, string];
    const model = pickerModel([
      {
        id: svg,
        reason: img,
        message: script,
        responseSchema: {
          type: "object",
          title: link,
          properties: {
            approved: { type: "boolean" },
            [img]: { type: "string", title: svg, description: script },
            pick: { enum: [js, link] },
          },
          required: ["approved"],
        },
        metadata: { tool_name: link, tool_input: { [script]: img, nested: { html: svg } } },
      },
    ]);
    mount(model);
    expect(host.el.querySelectorAll("script, img, a, svg, iframe")).toHaveLength(0);
    for (const node of host.el.querySelectorAll("*")) {
      for (const attr of node.getAttributeNames()) expect(attr.startsWith("on")).toBe(false);
    }
    const text = host.el.textContent ?? "";
    for (const s of [script, img, link, js, svg]) expect(text).toContain(s);
    expect((window as unknown as Record<string, unknown>).__pwned).toBeUndefined();
    // The summary, drawn from a hostile payload, is text too.
    model.set("answers", { [svg]: { status: "resolved", payload: { approved: true, note: img }, by: script, at: "" } });
    model.set("status", "submitted");
    expect(host.el.querySelectorAll("script, img, a, svg")).toHaveLength(0);
    expect(host.el.querySelector(".iw-decision")?.textContent).toContain(img);
  });
});

describe("custom renderers", () => {
  it("replaces the form for its tool and answers through resolve", async () => {
    const calls: RendererProps[] = [];
    const loader = async (source: string): Promise<unknown> => {
      expect(source).toBe("export function render() {}");
      return {
        render(props: RendererProps) {
          calls.push(props);
          const b = document.createElement("button");
          b.textContent = "Tuesday 10:00";
          b.addEventListener("click", () => void props.resolve({ approved: true, chosen_label: "Tue 10:00" }));
          props.el.appendChild(b);
          return () => props.el.replaceChildren();
        },
      };
    };
    const model = pickerModel(
      [
        {
          id: "m",
          reason: "tool_call",
          responseSchema: { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] },
          metadata: { tool_name: "schedule_meeting" },
        },
      ],
      { renderers: { schedule_meeting: "export function render() {}" } },
    );
    mount(model, { loader });
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    const c = cardOf("m");
    expect(calls[0]?.interrupt.id).toBe("m");
    expect(c.querySelector(".iw-fields")?.classList.contains("iw-hidden")).toBe(true);
    buttonIn(c, "Cancel"); // the built-in Cancel stays
    expect(() => buttonIn(c, "Approve")).toThrow();
    buttonIn(c, "Tuesday 10:00").click();
    expect(model.sent.map((m) => m.payload)).toEqual([{ approved: true, chosen_label: "Tue 10:00" }]);
    const verdict = calls[0]?.resolve({ approved: false });
    replyTo(model);
    await expect(verdict).resolves.toMatchObject({ ok: true });
  });

  it("falls back to the built-in form and says why when the module is broken", async () => {
    const loader = async (): Promise<unknown> => ({ nothing: true });
    const model = pickerModel([ask("q", { type: "string" })], { renderers: { input_required: "broken" } });
    mount(model, { loader });
    await vi.waitFor(() =>
      expect(cardOf("q").querySelector(".iw-card-error")?.textContent).toContain("custom renderer failed"),
    );
    expect(buttonIn(cardOf("q"), "Submit").classList.contains("iw-hidden")).toBe(false);
  });
});

describe("theme", () => {
  it("injects no stylesheet at run time: anywidget's _css loads widget.css (see bundle.test.ts)", () => {
    mount(pickerModel([ask("a", undefined)]));
    expect(document.querySelectorAll("style")).toHaveLength(0); // nothing injected at run time
  });
});
