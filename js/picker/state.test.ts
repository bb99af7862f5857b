import { describe, expect, it } from "vitest";
import { decisionOf, formatRemaining } from "../card";
import { labelFor } from "../card/dates";
import { initialState, type ModelState, reduce, viewOf } from "./state";

const model = (extra: Partial<ModelState> = {}): ModelState => ({
  interrupts: [
    {
      id: "a",
      reason: "tool_call",
      expiresAt: "2026-12-02T10:00:10Z",
      metadata: { tool_name: "pay", tool_input: { amount: 5, to: { iban: "X" } } },
    },
    { id: "b", reason: "input_required" },
  ],
  answers: {},
  status: "waiting",
  error: "",
  errors: {},
  renderers: {},
  calls: { a: { name: "pay", arguments: { amount: 5, to: { iban: "X" } } } },
  doubts: {},
  run_link: "",
  ...extra,
});
const T0 = Date.parse("2026-12-02T10:00:00Z");

describe("the reducer", () => {
  it("derives cards: Python's title and arguments (as text), the reason without a call, deadline", () => {
    const view = viewOf(initialState(model(), T0));
    expect(view.cards.map((c) => [c.title, c.phase, c.remaining])).toEqual([
      ["pay", "open", 10_000],
      ["input_required", "open", null],
    ]);
    expect(view.cards[0]?.args).toEqual([
      ["amount", "5"],
      ["to", '{"iban":"X"}'],
    ]);
    expect(view.ticking).toBe(true);
    expect(view.progress).toBe("0 of 2 answered");
  });

  it("shows Python's rows when it sends them: a large integer JSON.parse would round keeps its digits", () => {
    const shown: Array<[string, string]> = [["account", "9007199254740993"]];
    const calls = { a: { name: "pay", arguments: { account: 9007199254740992 }, shown } };
    const view = viewOf(initialState(model({ calls }), T0));
    expect(view.cards[0]?.args).toEqual([["account", "9007199254740993"]]);
  });

  it("tracks this view's request until its reply, ignoring other views' replies", () => {
    let state = reduce(initialState(model(), T0), { type: "sent", interruptId: "a", requestId: "r1" });
    expect(viewOf(state).cards[0]?.phase).toBe("pending");
    const other = { type: "answer_result" as const, requestId: "r9", ok: false, error: "x", errors: [] };
    expect(reduce(state, { type: "reply", reply: other })).toBe(state);
    state = reduce(state, {
      type: "reply",
      reply: {
        type: "answer_result",
        requestId: "r1",
        ok: false,
        error: "bad",
        errors: [{ path: "/n", message: "must be >= 1" }],
      },
    });
    const card = viewOf(state).cards[0];
    expect([card?.phase, card?.error, card?.fieldErrors]).toEqual(["open", "bad", { "/n": ["must be >= 1"] }]);
  });

  it("shows Python's field errors from the model until this view checks again", () => {
    let state = initialState(model({ errors: { b: [{ path: "", message: "is required" }] } }), T0);
    expect(viewOf(state).cards[1]?.fieldErrors).toEqual({ "": ["is required"] });
    state = reduce(state, { type: "checked", interruptId: "b", errors: [{ path: "", message: "must be >= 2" }] });
    expect(viewOf(state).cards[1]?.fieldErrors).toEqual({ "": ["must be >= 2"] });
  });

  it("settles a pending request when the answer lands in the model, whoever sent it", () => {
    let state = reduce(initialState(model(), T0), { type: "sent", interruptId: "b", requestId: "r1" });
    state = reduce(state, {
      type: "model",
      model: model({ answers: { b: { status: "cancelled", payload: null, by: "python", at: "" } } }),
    });
    expect(state.pending).toEqual({});
    expect(viewOf(state).cards[1]?.phase).toBe("decided");
  });

  it("expires a card when the clock passes its deadline, and stops ticking once closed", () => {
    const state = reduce(initialState(model(), T0), { type: "tick", now: T0 + 10_000 });
    expect(viewOf(state).cards[0]?.phase).toBe("expired");
    const closed = reduce(state, { type: "model", model: model({ status: "submitted" }) });
    expect(viewOf(closed).ticking).toBe(false);
    expect(viewOf(closed).closed).toBe(true);
  });

  it("picks a custom renderer by tool name first, then by reason", () => {
    const view = viewOf(initialState(model({ renderers: { pay: "P", input_required: "Q", tool_call: "T" } }), T0));
    expect(view.cards.map((c) => c.renderer)).toEqual(["P", "Q"]);
  });
});

describe("decisions", () => {
  it("reads each kind of answer", () => {
    const at = "";
    expect(decisionOf({ status: "cancelled", payload: null, by: "expiry", at })).toMatchObject({
      verdict: "Expired",
      by: "time ran out",
    });
    expect(decisionOf({ status: "cancelled", payload: null, by: "user", at })).toMatchObject({
      verdict: "Cancelled",
      by: "in the widget",
    });
    expect(
      decisionOf({ status: "resolved", payload: { approved: false }, by: "responder:deny_all", at }),
    ).toMatchObject({
      verdict: "Denied",
      by: "by responder deny_all",
    });
    expect(decisionOf({ status: "resolved", payload: { n: 2 }, by: "python", at })).toEqual({
      verdict: "Answered",
      tone: "ok",
      details: [["N", "2"]],
      by: "from Python",
    });
  });

  it("says who answered in the kernel's words, and this view or another apart", () => {
    const said = (by: string) => decisionOf({ status: "resolved", payload: null, by, at: "" }, "v1").by;
    expect(said("policy:small transfers")).toBe("by policy small transfers");
    expect(said("view:v1")).toBe("in this view");
    expect(said("view:v2")).toBe("in another view");
    expect(said("expiry")).toBe("time ran out");
    expect(said("ops")).toBe("by ops");
  });

  it("shows a chosen time in local time, and a label that repeats it only once", () => {
    const time = "2026-12-08T10:30:00+01:00";
    const derived = decisionOf({
      status: "resolved",
      payload: { approved: true, chosen_time: time, chosen_label: labelFor(time) },
      by: "user",
      at: "",
    });
    expect(derived.details).toEqual([["Chosen time", labelFor(time)]]);
    const typed = decisionOf({
      status: "resolved",
      payload: { approved: true, chosen_time: time, chosen_label: "Tue morning" },
      by: "user",
      at: "",
    });
    expect(typed.details).toEqual([
      ["Chosen time", labelFor(time)],
      ["Chosen label", "Tue morning"],
    ]);
  });
});

describe("formatRemaining", () => {
  it("rounds up to the second", () => {
    expect([
      formatRemaining(0),
      formatRemaining(1),
      formatRemaining(59_001),
      formatRemaining(3_600_000),
      formatRemaining(90_061_000),
    ]).toEqual(["0:00", "0:01", "1:00", "1:00:00", "1 d 1:01:01"]);
  });
});
