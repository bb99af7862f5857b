import { afterEach, describe, expect, it, vi } from "vitest";
import { mountInbox } from "../../js/inbox/index";
import type { Item } from "../../js/inbox/protocol";
import { delta, type QuestionsModel, questionsModel } from "./http_model";

function item(n: number, extra: Partial<Item> = {}): Item {
  return {
    id: `k:${n}`,
    key: `INV-${n}`,
    tool: "transfer_funds",
    args: `amount=${100 * n}`,
    interrupt: {
      id: `int-${n}`,
      reason: "tool_call",
      responseSchema: { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] },
      metadata: { tool_name: "transfer_funds", tool_input: { amount: 100 * n } },
    },
    since: 1_000 + n,
    expiresAt: null,
    error: "",
    doubt: "",
    mayAnswer: true,
    where: { label: "pay.ipynb", path: "pay.ipynb", cellId: "c1", state: "running", source: "kernel", note: "" },
    askedBy: "ada",
    ...extra,
  };
}

interface Call {
  path: string;
  method: string;
  body: unknown;
  reply(status: number, body: unknown): void;
  fail(): void;
}

/** A Jupyter server in memory: each request waits until the test replies to it. */
class FakeServer {
  calls: Call[] = [];
  request = (path: string, init: RequestInit): Promise<Response> =>
    new Promise((resolve, reject) => {
      const body = typeof init.body === "string" ? JSON.parse(init.body) : undefined;
      this.calls.push({
        path,
        method: init.method ?? "GET",
        body,
        reply: (status, json) => resolve(new Response(JSON.stringify(json), { status })),
        fail: () => reject(new TypeError("Failed to fetch")),
      });
    });
  /** The oldest request not replied to yet, once it has been made. */
  async next(): Promise<Call> {
    await vi.waitFor(() => expect(this.calls.length).toBeGreaterThan(0));
    return this.calls.shift() as Call;
  }
}

const me = { name: "ada", roles: ["payments"] };
const settle = () => new Promise((r) => setTimeout(r, 0));

describe("the sidebar's model of the server's questions", () => {
  let model: QuestionsModel | undefined;
  let unmount: () => void = () => {};
  afterEach(() => {
    unmount();
    model?.dispose();
    vi.useRealTimers();
    document.body.replaceChildren();
  });

  function mounted(server: FakeServer): HTMLElement {
    model = questionsModel({ request: server.request, waitSeconds: 25, retryMs: [1000, 4000] });
    const el = document.createElement("div");
    document.body.append(el);
    unmount = mountInbox(el, model as never, { rules: false });
    return el;
  }
  const keys = (el: HTMLElement): string[] =>
    [...el.querySelectorAll(".iw-item .iw-key")].map((n) => n.textContent ?? "");

  it("asks for nothing before the inbox's hello, then lists the questions and waits for changes", async () => {
    const server = new FakeServer();
    model = questionsModel({ request: server.request });
    expect(server.calls).toEqual([]);
    model.dispose();
    const el = mounted(server);
    const first = await server.next();
    expect([first.method, first.path]).toEqual(["GET", "interrupt-widget/questions"]);
    first.reply(200, { rev: 3, me, items: [item(1), item(2)] });
    const poll = await server.next();
    expect(poll.path).toBe("interrupt-widget/questions?rev=3&wait=25");
    expect(keys(el)).toEqual(["INV-1", "INV-2"]);
    expect(model?.me()).toEqual(me);
    expect(el.querySelector(".iw-counts")?.textContent).toBe("2 waiting");
    expect(el.querySelector(".iw-where")?.textContent).toBe("pay.ipynb · asked by ada");
    poll.reply(200, { rev: 3, unchanged: true });
    const again = await server.next();
    expect(again.path).toBe("interrupt-widget/questions?rev=3&wait=25");
    again.reply(200, { rev: 4, me, items: [item(2, { error: "refused" }), item(3)] });
    await server.next();
    expect(keys(el)).toEqual(["INV-2", "INV-3"]);
    expect(el.querySelector(".iw-row-error")?.textContent).toBe("refused");
  });

  it("tells what changed as a delta: new or different items, and the ids that left", () => {
    const changed = item(2, { error: "no" });
    expect(delta([item(1), item(2)], [changed, item(3)])).toEqual({ upsert: [changed, item(3)], remove: ["k:1"] });
    expect(delta([item(1)], [item(1)])).toEqual({ upsert: [], remove: [] });
  });

  it("posts an answer and hands the server's verdict back to the inbox", async () => {
    const server = new FakeServer();
    const el = mounted(server);
    (await server.next()).reply(200, { rev: 1, me, items: [item(1), item(2)] });
    await server.next(); // the long poll, left open
    el.querySelector<HTMLInputElement>('input[aria-label="Select shown"]')?.click();
    [...el.querySelectorAll("button")].find((b) => b.textContent === "Approve selected")?.click();
    const post = await server.next();
    expect([post.method, post.path, post.body]).toEqual([
      "POST",
      "interrupt-widget/answer",
      { ids: ["k:1", "k:2"], status: "resolved", payload: { approved: true } },
    ]);
    expect(el.querySelectorAll(".iw-pending")).toHaveLength(2);
    post.reply(200, {
      results: [
        { id: "k:1", ok: true, verdict: "approved", error: "", errors: [] },
        { id: "k:2", ok: false, verdict: "", error: "ada may not approve this one", errors: [] },
      ],
    });
    await vi.waitFor(() => expect(el.querySelectorAll(".iw-pending")).toHaveLength(0));
    expect(el.querySelector('[data-id="k:2"] .iw-row-error')?.textContent).toBe("ada may not approve this one");
  });

  it("answers settle with a POST, refuses 'always allow', and reads a 4xx error as each item's refusal", async () => {
    const server = new FakeServer();
    mounted(server);
    (await server.next()).reply(200, { rev: 1, me, items: [item(1)] });
    await server.next();
    const replies: unknown[] = [];
    model?.on("msg:custom", (m) => replies.push(m));
    model?.send({ type: "settle", requestId: "r1", id: "k:1", ran: true, output: "Sent.", viewId: "v" });
    const post = await server.next();
    expect([post.path, post.body]).toEqual(["interrupt-widget/settle", { id: "k:1", ran: true, output: "Sent." }]);
    post.reply(409, { error: { code: "not_in_doubt", message: "k:1 is not in doubt" } });
    model?.send({ type: "remember", requestId: "r2", id: "k:1", field: null, op: "eq" });
    await vi.waitFor(() => expect(replies).toHaveLength(2));
    expect(replies).toEqual([
      expect.objectContaining({ type: "answer_result", requestId: "r2" }),
      {
        type: "answer_result",
        requestId: "r1",
        results: [{ id: "k:1", ok: false, verdict: "", error: "k:1 is not in doubt", errors: [] }],
      },
    ]);
    expect(JSON.stringify(replies[0])).toContain("'always allow' rules are made in the notebook's own inbox");
  });

  it("shows why when the server cannot be reached, backs off, and recovers", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const server = new FakeServer();
    mounted(server);
    const problems: string[] = [];
    model?.on("change:problem", () => problems.push(model?.problem() ?? ""));
    (await server.next()).fail();
    await vi.waitFor(() => expect(problems).toEqual(["Cannot reach the Jupyter server. Trying again in 1 s."]));
    expect(server.calls).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000);
    (await server.next()).reply(404, {});
    await vi.waitFor(() => expect(problems).toHaveLength(2));
    expect(problems[1]).toMatch(/does not list questions.*Trying again in 2 s\.$/);
    await vi.advanceTimersByTimeAsync(2000);
    (await server.next()).reply(200, { rev: 1, me, items: [item(1)] });
    await vi.waitFor(() => expect(model?.problem()).toBe(""));
    expect(model?.items().map((i) => i.id)).toEqual(["k:1"]);
  });

  it("stops polling once disposed, its open poll ignored", async () => {
    const server = new FakeServer();
    const el = mounted(server);
    (await server.next()).reply(200, { rev: 1, me, items: [item(1)] });
    const open = await server.next();
    model?.dispose();
    open.reply(200, { rev: 2, me, items: [] });
    await settle();
    await settle();
    expect(server.calls).toEqual([]);
    expect(keys(el)).toEqual(["INV-1"]);
  });
});
