import { describe, expect, it } from "vitest";
import { type FakePicker, pickerModel } from "../testing/fake_model";
import { buttonIn, cardIn, pickerHost, SEND_INVOICE } from "../testing/picker_host";

const call = SEND_INVOICE;
const KNOWN = "Approved in the widget at 2026-12-03 23:03:42 UTC. <img src=x onerror=alert(1)>";

const host = pickerHost();
const card = (): HTMLElement => cardIn(host.el, "i1");
const doubtOf = (): HTMLElement => card().querySelector(".iw-doubt") as HTMLElement;

function inDoubt(): FakePicker {
  const model = pickerModel([call], { doubts: { i1: KNOWN } });
  host.mount(model);
  return model;
}

describe("a call in doubt", () => {
  it("shows what is known as text, in place of the form", () => {
    inDoubt();
    expect(doubtOf().classList.contains("iw-hidden")).toBe(false);
    expect(card().querySelector("form")?.classList.contains("iw-hidden")).toBe(true);
    expect(doubtOf().textContent).toContain(KNOWN);
    expect(doubtOf().querySelector("img")).toBeNull();
  });

  it("records a result only once it is given and confirmed", () => {
    const model = inDoubt();
    buttonIn(card(), "It ran: record this result").click();
    expect(model.sent).toEqual([]);
    const confirm = buttonIn(card(), "Confirm: record this result");
    confirm.click();
    expect(model.sent).toEqual([]);
    expect(doubtOf().textContent).toContain("Say what the call returned.");
    const output = card().querySelector("textarea") as HTMLTextAreaElement;
    output.value = "INV-7 <b>sent</b>";
    output.dispatchEvent(new Event("input"));
    expect(doubtOf().textContent).not.toContain("Say what the call returned.");
    confirm.click();
    expect(model.sent).toEqual([
      expect.objectContaining({ type: "settle", interruptId: "i1", ran: true, output: "INV-7 <b>sent</b>" }),
    ]);
    expect(card().getAttribute("data-phase")).toBe("pending");
  });

  it("runs it now only after the confirmation, and Back sends nothing", () => {
    const model = inDoubt();
    buttonIn(card(), "It did not run: run it now").click();
    buttonIn(card(), "Back").click();
    expect(model.sent).toEqual([]);
    buttonIn(card(), "It did not run: run it now").click();
    expect(card().querySelector("textarea")?.closest("label")?.classList.contains("iw-hidden")).toBe(true);
    buttonIn(card(), "Confirm: run it now").click();
    const [sent] = model.sent as unknown as Array<Record<string, unknown>>;
    expect(sent).toMatchObject({ type: "settle", interruptId: "i1", ran: false });
    expect(sent && "output" in sent).toBe(false);
  });

  it("shows Python's refusal in the card, and the summary once settled", () => {
    const model = inDoubt();
    buttonIn(card(), "It did not run: run it now").click();
    buttonIn(card(), "Confirm: run it now").click();
    const [sent] = model.sent;
    model.emit("msg:custom", {
      type: "answer_result",
      requestId: sent?.requestId,
      ok: false,
      error: "send_invoice: the call ledger is unavailable",
      errors: [],
    });
    expect(doubtOf().textContent).toContain("the call ledger is unavailable");
    model.set("answers", {
      i1: {
        status: "resolved",
        payload: { approved: true },
        by: "python",
        at: "2026-12-03T23:04:00Z",
        settled: "not_run",
      },
    });
    model.set("doubts", {});
    expect(doubtOf().classList.contains("iw-hidden")).toBe(true);
    expect(card().querySelector(".iw-decision")?.textContent).toContain("It had not run: running it now");
  });
});
