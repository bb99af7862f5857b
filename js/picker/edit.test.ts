import { describe, expect, it } from "vitest";
import type { JsonSchema, WireInterrupt } from "../card";
import { changesOf, prefilled, withEdit } from "../card/edits";
import { formFromSchema } from "../card/schema_form";
import { pickerModel, replyTo } from "../testing/fake_model";
import { buttonIn, cardIn, pickerHost } from "../testing/picker_host";

// The answer schema the adapter builds for `editable(transfer_funds, fields=("amount", "memo"))`.
const schema: JsonSchema = {
  type: "object",
  properties: {
    approved: { type: "boolean" },
    reason: { type: "string", maxLength: 1000 },
    editedArgs: {
      type: "object",
      title: "Arguments",
      properties: {
        amount: { type: "number", title: "Amount" },
        to_account: { type: "string", readOnly: true },
        memo: { type: "string", title: "Memo" },
      },
      required: ["amount", "to_account", "memo"],
      additionalProperties: false,
    },
  },
  required: ["approved"],
};

const proposal = { amount: 5000, to_account: "ACME-1", memo: "rent" };

function transfer(toolInput: unknown = proposal): WireInterrupt {
  return {
    id: "approve-c1",
    reason: "tool_call",
    toolCallId: "c1",
    message: "Allow transfer_funds?",
    responseSchema: schema,
    metadata: { tool_name: "transfer_funds", tool_input: toolInput },
  };
}

const host = pickerHost();

function field(name: string): HTMLInputElement {
  const input = cardIn(host.el, "approve-c1").querySelector<HTMLInputElement>(`[data-field="editedArgs.${name}"]`);
  if (!input) throw new Error(`no field ${name}`);
  return input;
}

function type(input: HTMLInputElement, value: string): void {
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

describe("the edit form of an editable tool", () => {
  it("is prefilled with the proposal, and only the editable fields are offered (readOnly ones are not)", () => {
    host.mount(pickerModel([transfer()]));
    expect(field("amount").value).toBe("5000");
    expect(field("memo").value).toBe("rent");
    const card = cardIn(host.el, "approve-c1");
    expect(card.querySelector('[data-field="editedArgs.to_account"]')).toBeNull();
    expect(card.querySelector(".iw-changes")?.classList.contains("iw-hidden")).toBe(true);
  });

  it("shows what changed before Approve, and sends editedArgs in full: the proposal with the changes", () => {
    const model = pickerModel([transfer()]);
    host.mount(model);
    type(field("amount"), "2500");
    const card = cardIn(host.el, "approve-c1");
    const changes = card.querySelector(".iw-changes");
    expect(changes?.classList.contains("iw-hidden")).toBe(false);
    expect(changes?.textContent).toBe("Changes: Amount 5000 → 2500");
    buttonIn(card, "Approve with changes").click();
    expect(model.sent.map((m) => m.payload)).toEqual([
      { approved: true, editedArgs: { amount: 2500, to_account: "ACME-1", memo: "rent" } },
    ]);
  });

  it("an untouched form approves the proposal as it stands", () => {
    const model = pickerModel([transfer()]);
    host.mount(model);
    type(field("memo"), "rent"); // typed again, unchanged
    buttonIn(cardIn(host.el, "approve-c1"), "Approve").click();
    expect(model.sent.map((m) => m.payload)).toEqual([{ approved: true }]);
  });

  it("a change back to the proposal is no change", () => {
    host.mount(pickerModel([transfer()]));
    type(field("amount"), "10");
    type(field("amount"), "5000");
    expect(cardIn(host.el, "approve-c1").querySelector(".iw-changes")?.classList.contains("iw-hidden")).toBe(true);
  });

  it("a denial carries no edit", () => {
    const model = pickerModel([transfer()]);
    host.mount(model);
    type(field("amount"), "1");
    buttonIn(cardIn(host.el, "approve-c1"), "Deny").click();
    expect(model.sent.map((m) => m.payload)).toEqual([{ approved: false }]);
  });

  it("hostile proposals are shown as text, never markup", () => {
    const hostile = { amount: 1, to_account: "x", memo: "<img src=x onerror=alert(1)>" };
    host.mount(pickerModel([transfer(hostile)]));
    expect(field("memo").value).toBe("<img src=x onerror=alert(1)>");
    type(field("memo"), "<b>bold</b>");
    const card = cardIn(host.el, "approve-c1");
    expect(card.querySelector("img, b")).toBeNull();
    expect(card.querySelector(".iw-change")?.textContent).toContain("<b>bold</b>");
  });

  it("the summary names what was edited", () => {
    const model = pickerModel([transfer()]);
    host.mount(model);
    type(field("amount"), "2500");
    buttonIn(cardIn(host.el, "approve-c1"), "Approve with changes").click();
    replyTo(model);
    const summary = cardIn(host.el, "approve-c1").querySelector(".iw-decision")?.textContent ?? "";
    expect(summary).toContain("Edited: amount 2500");
    expect(summary).not.toContain("ACME-1"); // the arguments left as proposed are not called edits
  });
});

describe("edit helpers", () => {
  const spec = prefilled(formFromSchema(schema), proposal);

  it("finds the edit group only in an approval schema", () => {
    expect(spec.edit?.key).toBe("editedArgs");
    const question = formFromSchema({
      type: "object",
      properties: { editedArgs: schema.properties?.editedArgs ?? {} },
    });
    expect(question.edit).toBeNull();
  });

  it("names the changed arguments, and sends them over the whole proposal", () => {
    const payload = { approved: true, editedArgs: { amount: 5000, memo: "March rent" } };
    expect(changesOf(spec, payload, proposal).map((c) => [c.key, c.from, c.to])).toEqual([
      ["memo", "rent", "March rent"],
    ]);
    expect(withEdit(spec, payload, proposal)).toEqual({
      approved: true,
      editedArgs: { amount: 5000, to_account: "ACME-1", memo: "March rent" },
    });
    expect(withEdit(spec, { approved: true, editedArgs: { amount: 5000 } }, proposal)).toEqual({ approved: true });
  });

  it("leaves a schema without an edit group alone", () => {
    const plain = formFromSchema({
      type: "object",
      properties: { approved: { type: "boolean" } },
      required: ["approved"],
    });
    expect(prefilled(plain, proposal)).toBe(plain);
    expect(withEdit(plain, { approved: true }, proposal)).toEqual({ approved: true });
  });
});
