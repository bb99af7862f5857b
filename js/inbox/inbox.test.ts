import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeModel } from "../testing/fake_model";
import { type InboxControls, type InboxModel, mountInbox } from "./index";
import type { Item } from "./protocol";
import { initialState, reduce, shown, viewOf } from "./state";

/** An inbox's model with its traits' first values. */
const inboxModel = (): FakeModel<InboxModel> =>
  new FakeModel<InboxModel>({ counts: {}, remembered: [], renderers: {}, notify: false });

function item(n: number, tool = "transfer_funds", extra: Partial<Item> = {}): Item {
  const amount = 100 * n;
  return {
    id: `0:INV-${n}:approve-call_${n}`,
    key: `INV-${n}`,
    tool,
    args: `amount=${amount}, to_account="ACME-${n}"`,
    interrupt: {
      id: `approve-call_${n}`,
      reason: "tool_call",
      message: `Run ${tool}?`,
      responseSchema: { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] },
      metadata: { tool_name: tool, tool_input: { amount, to_account: `ACME-${n}` } },
    },
    since: 1_000 + n,
    expiresAt: null,
    error: "",
    ...extra,
  };
}

describe("the inbox's state", () => {
  it("filters by tool and text, sorts by age or expiry, and selects what is shown", () => {
    let s = reduce(initialState(5_000), {
      type: "snapshot",
      items: [
        item(1),
        item(2, "check_balance"),
        item(3, "transfer_funds", { expiresAt: new Date(2_000).toISOString() }),
      ],
    });
    expect(shown(s).map((i) => i.key)).toEqual(["INV-1", "INV-2", "INV-3"]);
    s = reduce(s, { type: "filter", sort: "expiry" });
    expect(shown(s)[0]?.key).toBe("INV-3");
    s = reduce(s, { type: "filter", tool: "transfer_funds", text: "acme-1" });
    expect(shown(s).map((i) => i.key)).toEqual(["INV-1"]);
    s = reduce(s, { type: "selectShown", on: true });
    expect(Object.keys(s.selected)).toEqual([item(1).id]);
    const view = viewOf(reduce(s, { type: "filter", tool: "", text: "" }));
    expect(view.rows.find((r) => r.item.key === "INV-3")?.expiry).toBe("expired");
  });

  it("filters by the notebook a question waits in", () => {
    const where = (label: string) => ({
      label,
      path: label,
      cellId: null,
      state: "running" as const,
      source: "kernel" as const,
      note: "",
    });
    const s = reduce(initialState(0), {
      type: "snapshot",
      items: [
        item(1, "transfer_funds", { where: where("team/pay.ipynb") }),
        item(2, "transfer_funds", { where: where("ops/other.ipynb") }),
      ],
    });
    expect(shown(reduce(s, { type: "filter", text: "pay.ipynb" })).map((i) => i.key)).toEqual(["INV-1"]);
  });

  it("moves the cursor to the next call when the one under it is answered", () => {
    let s = reduce(initialState(0), { type: "snapshot", items: [item(1), item(2), item(3)] });
    s = reduce(s, { type: "move", by: 1 });
    s = reduce(s, { type: "move", by: 1 });
    expect(s.cursor).toBe(item(2).id);
    s = reduce(s, { type: "delta", upsert: [], remove: [item(2).id] });
    expect(s.cursor).toBe(item(3).id);
  });

  it("counts rows per status and the finished share for the progress bar", () => {
    const s = reduce(initialState(0), {
      type: "counts",
      counts: { waiting: 2, running: 1, done: 6, failed: 1, total: 10 },
      rules: [],
    });
    const view = viewOf(s);
    expect(view.countsLine).toBe("2 waiting · 1 running · 6 done · 1 failed");
    expect([view.finished, view.total]).toEqual([7, 10]);
  });
});

describe("the mounted inbox", () => {
  let el: HTMLElement;
  let cleanup: () => void = () => {};
  beforeEach(() => {
    el = document.createElement("div");
    document.body.append(el);
  });
  afterEach(() => {
    cleanup();
    el.remove();
  });

  function mount(items: Item[]): FakeModel<InboxModel> {
    const model = inboxModel();
    cleanup = mountInbox(el, model.asModel());
    expect(model.sent[0]).toEqual({ type: "hello" });
    model.emit("msg:custom", { type: "snapshot", items });
    return model;
  }
  const lines = (): string[] =>
    [...el.querySelectorAll(".iw-item")].map((n) => n.querySelector(".iw-key")?.textContent ?? "");
  const button = (name: string): HTMLButtonElement => {
    const found = [...el.querySelectorAll("button")].find((b) => b.textContent === name);
    if (!found) throw new Error(`no button ${name}`);
    return found;
  };

  it("keeps a line the filter hides and shows the same one again, until its call leaves", () => {
    const model = mount([item(1), item(2)]);
    const first = el.querySelector(".iw-item");
    const filter = el.querySelector<HTMLInputElement>('input[type="search"]');
    if (!filter || !first) throw new Error("no filter or line");
    const type = (text: string): void => {
      filter.value = text;
      filter.dispatchEvent(new Event("input"));
    };
    type("INV-2");
    expect(lines()).toEqual(["INV-2"]);
    type("");
    expect(el.querySelector(".iw-item")).toBe(first);
    model.emit("msg:custom", { type: "delta", upsert: [], remove: [item(1).id] });
    model.emit("msg:custom", { type: "delta", upsert: [item(1)], remove: [] });
    expect(lines()).toEqual(["INV-1", "INV-2"]);
    expect(el.querySelector(".iw-item")).not.toBe(first);
  });

  it("lists each call as text, filters, and approves the selected ones in one message", () => {
    const model = mount([item(1), item(2), item(3, "check_balance")]);
    expect(lines()).toEqual(["INV-1", "INV-2", "INV-3"]);
    expect(el.querySelector(".iw-args")?.textContent).toBe('amount=100, to_account="ACME-1"');
    const filter = el.querySelector<HTMLInputElement>('input[type="search"]');
    if (!filter) throw new Error("no filter");
    filter.value = "transfer";
    filter.dispatchEvent(new Event("input"));
    expect(lines()).toEqual(["INV-1", "INV-2"]);
    expect(button("Approve selected").disabled).toBe(true);
    const all = el.querySelector<HTMLInputElement>('input[aria-label="Select shown"]');
    all?.click();
    button("Approve selected").click();
    expect(model.last()).toMatchObject({
      type: "answer",
      ids: [item(1).id, item(2).id],
      status: "resolved",
      payload: { approved: true },
    });
    model.emit("msg:custom", {
      type: "answer_result",
      requestId: model.last().requestId,
      results: [
        { id: item(1).id, ok: true, verdict: "approved", error: "", errors: [] },
        { id: item(2).id, ok: false, verdict: "", error: "transfer_funds: ticket is required", errors: [] },
      ],
    });
    model.emit("msg:custom", { type: "delta", upsert: [], remove: [item(1).id] });
    expect(lines()).toEqual(["INV-2"]);
    expect(el.querySelector(".iw-row-error")?.textContent).toBe("transfer_funds: ticket is required");
  });

  it("denies the selection with one reason", () => {
    const model = mount([item(1), item(2)]);
    for (const box of el.querySelectorAll<HTMLInputElement>('.iw-item input[type="checkbox"]')) box.click();
    const reason = el.querySelector<HTMLInputElement>('input[aria-label="Deny reason"]');
    if (!reason) throw new Error("no reason");
    reason.value = "duplicate";
    button("Deny selected").click();
    expect(model.last()).toMatchObject({
      ids: [item(1).id, item(2).id],
      payload: { approved: false, reason: "duplicate" },
    });
  });

  it("moves with j/k, approves with a, denies with d, selects with x and opens a card with e", () => {
    const model = mount([item(1), item(2), item(3)]);
    const list = el.querySelector<HTMLElement>(".iw-list");
    const key = (k: string): void => {
      list?.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
    };
    key("j");
    key("a");
    expect(model.last()).toMatchObject({ ids: [item(1).id], payload: { approved: true } });
    key("ArrowDown");
    key("d");
    expect(model.last()).toMatchObject({ ids: [item(2).id], payload: { approved: false } });
    key("j");
    key("x");
    expect(el.querySelector(".iw-current input")).toHaveProperty("checked", true);
    key("e");
    const card = el.querySelector(".iw-card");
    expect(card?.querySelector(".iw-title")?.textContent).toBe("transfer_funds");
    const cardApprove = [...(card?.querySelectorAll("button") ?? [])].find((b) => b.textContent === "Approve");
    cardApprove?.click();
    expect(model.last()).toMatchObject({ ids: [item(3).id], status: "resolved", payload: { approved: true } });
    model.emit("msg:custom", {
      type: "answer_result",
      requestId: model.last().requestId,
      results: [{ id: item(3).id, ok: false, verdict: "", error: "expired", errors: [] }],
    });
    const choice = el.querySelector<HTMLSelectElement>('select[aria-label="Calls like this"]');
    expect([...(choice?.options ?? [])].map((o) => o.text)).toEqual([
      "every transfer_funds call",
      "amount = 300",
      "amount ≤ 300",
      "to_account = ACME-3",
    ]);
    if (choice) choice.value = "2";
    button("Approve, and the same for calls like this").click();
    expect(model.last()).toMatchObject({ type: "remember", id: item(3).id, field: "amount", op: "le" });
  });

  it("scrolls only its list, only when the cursor moves: a redraw leaves the page where the person put it", () => {
    const intoView = vi.spyOn(HTMLElement.prototype, "scrollIntoView");
    const rects = vi.spyOn(HTMLElement.prototype, "getBoundingClientRect").mockImplementation(function (
      this: HTMLElement,
    ) {
      // The list shows 0..100; each line is 40 high, the third one from 80 to 120.
      if (this.classList.contains("iw-list")) return new DOMRect(0, 0, 300, 100);
      const at = [...(this.parentElement?.children ?? [])].indexOf(this);
      return new DOMRect(0, 40 * at - (this.parentElement?.scrollTop ?? 0), 300, 40);
    });
    try {
      const model = mount([item(1), item(2), item(3)]);
      const list = el.querySelector<HTMLElement>(".iw-list");
      if (!list) throw new Error("no list");
      const key = (k: string): void => {
        list.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
      };
      key("j");
      key("j");
      key("j");
      expect(list.scrollTop).toBe(20);
      list.scrollTop = 0; // the person scrolls the list back up
      model.emit("msg:custom", { type: "delta", upsert: [item(4)], remove: [] });
      key("e");
      expect(list.scrollTop).toBe(0);
      expect(intoView).not.toHaveBeenCalled();
    } finally {
      rects.mockRestore();
      intoView.mockRestore();
    }
  });

  it("shows a call opened while the filter hides it once the filter no longer does, and scrolls nothing before", () => {
    const rects = vi.spyOn(HTMLElement.prototype, "getBoundingClientRect").mockImplementation(function (
      this: HTMLElement,
    ) {
      // The list shows 0..100 of the page from 200 down; each line is 40 high. A line no list
      // holds has no box (all zero), as in a browser.
      if (this.classList.contains("iw-list")) return new DOMRect(0, 200, 300, 100);
      if (!this.parentElement) return new DOMRect(0, 0, 0, 0);
      const at = [...this.parentElement.children].indexOf(this);
      return new DOMRect(0, 200 + 40 * at - this.parentElement.scrollTop, 300, 40);
    });
    try {
      const model = inboxModel();
      let controls: InboxControls | undefined;
      cleanup = mountInbox(el, model.asModel(), { controls: (c) => (controls = c) });
      model.emit("msg:custom", { type: "snapshot", items: [item(1), item(2), item(3), item(4)] });
      const list = el.querySelector<HTMLElement>(".iw-list");
      const filter = el.querySelector<HTMLInputElement>('input[type="search"]');
      if (!list || !filter || !controls) throw new Error("no list, filter or controls");
      const type = (text: string): void => {
        filter.value = text;
        filter.dispatchEvent(new Event("input"));
      };
      type("INV-1");
      list.scrollTop = 0;
      expect(controls.focus(item(4).id)).toBe(true); // say, from a notification
      expect(list.scrollTop).toBe(0); // its line is not drawn: nothing to scroll to
      type("");
      expect(lines()).toEqual(["INV-1", "INV-2", "INV-3", "INV-4"]);
      expect(list.scrollTop).toBe(60); // the fourth line, 120..160, shown at the list's foot
    } finally {
      rects.mockRestore();
    }
  });

  it("counts what waits in the tab's title while the page is hidden, and restores it", () => {
    document.title = "Notebook";
    const hidden = Object.getOwnPropertyDescriptor(Document.prototype, "hidden");
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    try {
      const model = mount([item(1)]);
      expect(document.title).toBe("(1 waiting) Notebook");
      model.emit("msg:custom", { type: "delta", upsert: [item(2)], remove: [] });
      expect(document.title).toBe("(2 waiting) Notebook");
      model.emit("msg:custom", { type: "delta", upsert: [], remove: [item(1).id, item(2).id] });
      expect(document.title).toBe("Notebook");
    } finally {
      if (hidden) Object.defineProperty(document, "hidden", hidden);
      else delete (document as { hidden?: boolean }).hidden;
    }
  });

  it("does not count a call whose kernel stopped: it is listed, but waits for no one", () => {
    document.title = "Notebook";
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    try {
      const where = { label: "old.ipynb", path: "old.ipynb", cellId: null, source: "kernel" as const };
      const closed = { ...item(1), where: { ...where, state: "closed" as const, note: "its notebook is closed" } };
      const running = { ...item(2), where: { ...where, state: "running" as const, note: "" } };
      const model = mount([closed]);
      expect(lines()).toEqual(["INV-1"]);
      expect(el.querySelector(".iw-item")?.classList.contains("iw-closed")).toBe(true);
      expect(document.title).toBe("Notebook");
      model.emit("msg:custom", { type: "delta", upsert: [running], remove: [] });
      expect(document.title).toBe("(1 waiting) Notebook");
      model.emit("msg:custom", { type: "delta", upsert: [], remove: [running.id] });
      expect(document.title).toBe("Notebook");
    } finally {
      delete (document as { hidden?: boolean }).hidden;
    }
  });

  it("marks the title while a call escalated to this person waits, even with the page in view", () => {
    document.title = "Notebook";
    const escalated = item(4, "transfer_funds", { mayAnswer: false, escalatesToMe: true });
    escalated.interrupt.metadata = {
      ...escalated.interrupt.metadata,
      approvals: { needed: 2, given: [], escalated: true, escalated_to: ["cfo"] },
    };
    const model = mount([item(1, "transfer_funds", { mayAnswer: false }), escalated]);
    expect(document.title).toBe("(2 waiting, 1 escalated to you) Notebook");
    const note = el.querySelector(".iw-escalated .iw-row-note");
    expect(note?.textContent).toBe("Escalated to you");
    const mine = el.querySelector<HTMLInputElement>('input[aria-label="Waiting for me"]');
    mine?.click();
    expect(lines()).toEqual(["INV-4"]);
    model.emit("msg:custom", { type: "delta", upsert: [], remove: [escalated.id] });
    expect(document.title).toBe("Notebook");
  });

  it("names the tool of a new call in a notification, when asked for and allowed", () => {
    const shown: Array<[string, NotificationOptions | undefined]> = [];
    class FakeNotification {
      static permission = "granted";
      static requestPermission = (): Promise<string> => Promise.resolve("granted");
      constructor(title: string, options?: NotificationOptions) {
        shown.push([title, options]);
      }
    }
    const real = Object.getOwnPropertyDescriptor(globalThis, "Notification");
    Object.defineProperty(globalThis, "Notification", { configurable: true, value: FakeNotification });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => true });
    try {
      const model = mount([]);
      model.emit("msg:custom", { type: "delta", upsert: [item(1)], remove: [] });
      expect(shown).toEqual([]); // not asked for
      model.set("notify", true);
      model.emit("msg:custom", { type: "delta", upsert: [item(2, "refund")], remove: [] });
      expect(shown).toEqual([["1 new call waiting", { body: "refund (INV-2)" }]]);
    } finally {
      delete (document as { hidden?: boolean }).hidden;
      if (real) Object.defineProperty(globalThis, "Notification", real);
      else delete (globalThis as { Notification?: unknown }).Notification;
    }
  });

  it("shows a call in doubt on its card, and settles it only once the answer is confirmed", () => {
    const known = "Approved by user at 2026-12-03T23:00:00Z. It may have run.";
    const model = mount([item(1, "send_invoice", { doubt: known })]);
    expect(el.querySelector(".iw-item.iw-in-doubt .iw-expiry")?.textContent).toBe("May have run");
    const list = el.querySelector<HTMLElement>(".iw-list");
    for (const k of ["j", "e"]) list?.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
    const card = el.querySelector(".iw-card");
    const doubt = card?.querySelector(".iw-doubt");
    expect(doubt?.classList.contains("iw-hidden")).toBe(false);
    expect(doubt?.querySelector("strong")?.textContent).toBe("May have run");
    expect(doubt?.querySelector(".iw-doubt-known")?.textContent).toBe(known);
    const sent = model.sent.length;
    button("It ran: record this result").click();
    button("Confirm: record this result").click(); // no result given: asked for, nothing sent
    expect(model.sent.length).toBe(sent);
    button("Back").click();
    button("It did not run: run it now").click();
    expect(model.sent.length).toBe(sent); // not before the confirmation
    button("Confirm: run it now").click();
    expect(model.last()).toMatchObject({ type: "settle", id: item(1).id, ran: false });
    expect(model.last()).not.toHaveProperty("output");
    model.emit("msg:custom", {
      type: "answer_result",
      requestId: model.last().requestId,
      results: [{ id: item(1).id, ok: false, verdict: "", error: "send_invoice: not in doubt any more", errors: [] }],
    });
    expect(card?.textContent).toContain("not in doubt any more");
    button("Back").click();
    button("It ran: record this result").click();
    const output = card?.querySelector("textarea");
    if (!output) throw new Error("no result field");
    output.value = "<b>INV-7</b> sent";
    button("Confirm: record this result").click();
    expect(model.last()).toMatchObject({ type: "settle", id: item(1).id, ran: true, output: "<b>INV-7</b> sent" });
    expect(typeof model.last().viewId).toBe("string");
  });

  it("links an opened card to its conversation's runs, and only to an http(s) URL", () => {
    const ui = "https://temporal.example/namespaces/default/workflows?query=WorkflowId%3D%22INV-1%22";
    mount([item(1, "transfer_funds", { runLink: ui }), item(2, "transfer_funds", { runLink: "javascript:alert(1)" })]);
    const list = el.querySelector<HTMLElement>(".iw-list");
    const open = (keys: string[]): HTMLElement | null => {
      for (const k of keys) list?.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
      return el.querySelector<HTMLElement>(".iw-card .iw-run-link");
    };
    const first = open(["j", "e"]);
    expect(first?.querySelector("a")?.getAttribute("href")).toBe(ui);
    expect(first?.querySelector("a")?.getAttribute("rel")).toContain("noopener");
    const second = open(["Escape", "j", "e"]);
    expect(el.querySelector(".iw-card")?.getAttribute("data-interrupt-id")).toBe(item(2).interrupt.id);
    expect(second?.querySelector("a, [href]")).toBeNull();
  });

  it("draws the counts and progress, filters by tool, cancels, opens and closes, and forgets a rule", () => {
    const model = mount([item(1), item(2), item(3, "check_balance")]);
    model.set("counts", { waiting: 2, done: 1, total: 4 });
    expect(el.querySelector(".iw-counts")?.textContent).toBe("2 waiting · 1 done");
    const progress = el.querySelector<HTMLElement>(".iw-progress");
    expect([progress?.getAttribute("aria-valuenow"), progress?.getAttribute("aria-valuemax")]).toEqual(["1", "4"]);
    expect(el.querySelector<HTMLElement>(".iw-bar")?.style.width).toBe("25%");
    const tool = el.querySelector<HTMLSelectElement>('select[aria-label="Tool"]');
    if (!tool) throw new Error("no tool filter");
    expect([...tool.options].map((o) => o.text)).toEqual(["All tools", "check_balance", "transfer_funds"]);
    tool.value = "check_balance";
    tool.dispatchEvent(new Event("change"));
    expect(lines()).toEqual(["INV-3"]);
    tool.value = "";
    tool.dispatchEvent(new Event("change"));
    const box = el.querySelector<HTMLInputElement>('.iw-item input[type="checkbox"]');
    const sent = model.sent.length;
    box?.dispatchEvent(new KeyboardEvent("keydown", { key: "a", bubbles: true })); // a key typed into a box
    expect(model.sent.length).toBe(sent);
    box?.click();
    button("Cancel selected").click();
    expect(model.last()).toMatchObject({ type: "answer", ids: [item(1).id], status: "cancelled", payload: null });
    el.querySelector<HTMLButtonElement>(".iw-item .iw-open")?.click();
    expect(el.querySelector(".iw-card .iw-title")?.textContent).toBe("transfer_funds");
    button("Close").click();
    expect(el.querySelector(".iw-card")).toBeNull();
    model.set("remembered", [{ name: "transfer_funds amount<=300", tool: "transfer_funds", settled: 2 }]);
    expect(el.querySelector(".iw-rules li")?.textContent).toBe(
      "Rule: approve transfer_funds amount<=300 (settled 2) Remove",
    );
    button("Remove").click();
    expect(model.last()).toMatchObject({ type: "forget", name: "transfer_funds amount<=300" });
  });

  it("announces an overdue call once as the clock ticks, and unmounting restores the title and stops", () => {
    const shown: string[] = [];
    const real = Object.getOwnPropertyDescriptor(globalThis, "Notification");
    Object.defineProperty(globalThis, "Notification", {
      configurable: true,
      value: class {
        static permission = "granted";
        constructor(title: string) {
          shown.push(title);
        }
      },
    });
    vi.useFakeTimers({ now: 2_000 });
    document.title = "Notebook";
    try {
      const model = inboxModel();
      model.state = { ...model.state, notify: true, remind_after: 5 };
      const unmount = mountInbox(el, model.asModel());
      model.emit("msg:custom", { type: "snapshot", items: [item(1)] }); // waiting since 1_001
      expect(document.title).toBe("Notebook");
      vi.advanceTimersByTime(5_000);
      expect(document.title).toBe("(1 waiting, 1 overdue) Notebook");
      expect(el.querySelector(".iw-row-note")?.textContent).toBe("Reminder: still waiting");
      vi.advanceTimersByTime(3_000);
      expect(shown).toEqual(["1 call still waiting for you"]);
      unmount();
      expect(document.title).toBe("Notebook");
      expect(el.children.length).toBe(0);
      expect(vi.getTimerCount()).toBe(0);
      model.emit("msg:custom", { type: "delta", upsert: [item(2)], remove: [] });
      expect(el.children.length).toBe(0);
    } finally {
      vi.useRealTimers();
      if (real) Object.defineProperty(globalThis, "Notification", real);
      else delete (globalThis as { Notification?: unknown }).Notification;
    }
  });

  it("says where each call waits and who asked: a link when the host opens notebooks, as text", () => {
    const opened: unknown[] = [];
    const where = {
      label: "notebooks/<b>pay</b>.ipynb",
      path: "notebooks/pay.ipynb",
      cellId: "cell-7",
      state: "closed" as const,
      source: "kernel" as const,
      note: "its notebook is closed: answering cannot resume its run",
    };
    const remote = { ...where, label: "temporal pay-42", path: null, cellId: null, state: "remote" as const, note: "" };
    const items = [
      item(1, "transfer_funds", { where, askedBy: "ada" }),
      item(2, "transfer_funds", { where: remote, askedBy: null }),
      item(3),
    ];
    const model = inboxModel();
    let controls: InboxControls | undefined;
    cleanup = mountInbox(el, model.asModel(), {
      open: (w) => opened.push(w),
      rules: false,
      controls: (c) => {
        controls = c;
      },
    });
    model.emit("msg:custom", { type: "snapshot", items });
    const places = [...el.querySelectorAll<HTMLElement>(".iw-where")];
    expect(places.map((p) => p.textContent)).toEqual([
      "notebooks/<b>pay</b>.ipynb · its notebook is closed: answering cannot resume its run · asked by ada",
      "temporal pay-42",
      "",
    ]);
    expect(el.querySelector("b")).toBeNull();
    expect(places.map((p) => p.classList.contains("iw-hidden"))).toEqual([false, false, true]);
    expect(places[1]?.querySelector("button")).toBeNull(); // no path: nothing to open
    places[0]?.querySelector("button")?.click();
    expect(opened).toEqual([where]);
    expect(controls?.focus("nope")).toBe(false);
    expect(controls?.focus(item(2).id)).toBe(true);
    expect(el.querySelector(".iw-card")).not.toBeNull();
    expect(el.querySelector(".iw-current .iw-key")?.textContent).toBe("INV-2");
    expect(button("Close")).toBeDefined();
    expect(el.querySelector('select[aria-label="Calls like this"]')).toBeNull(); // rules: false
  });

  it("draws a place as text when the host cannot open notebooks", () => {
    const where = { label: "nb.ipynb", path: "nb.ipynb", cellId: null, state: "running", source: "kernel", note: "" };
    mount([item(1, "transfer_funds", { where: where as Item["where"] })]);
    expect(el.querySelector(".iw-where")?.textContent).toBe("nb.ipynb");
    expect(el.querySelector(".iw-where button")).toBeNull();
  });

  it("draws agent text as text, never as markup", () => {
    mount([item(1, "<img src=x onerror=alert(1)>")]);
    expect(el.querySelector("img")).toBeNull();
    expect(el.querySelector(".iw-tool")?.textContent).toBe("<img src=x onerror=alert(1)>");
  });
});
