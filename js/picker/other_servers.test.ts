// Interrupts as other AG-UI servers send them (tests/fixtures/other_servers.json,
// built from each server's own code): the picker offers what a person expects
// and sends what each schema wants. Python names each call (tests/test_other_servers.py
// checks the `calls` it sends for these interrupts); the card draws what it sent.

import { describe, expect, it } from "vitest";
import servers from "../../tests/fixtures/other_servers.json";
import type { JsonSchema, WireInterrupt } from "../card";
import { collect, denial, initialValues } from "../card/collect";
import { formFromSchema, type RawValues } from "../card/schema_form";
import { pickerModel } from "../testing/fake_model";
import { buttonIn, cardIn, pickerHost } from "../testing/picker_host";
import type { ToolCallOf } from "./types";

const interrupt = (name: keyof typeof servers): WireInterrupt => servers[name] as unknown as WireInterrupt;
const schemaOf = (name: keyof typeof servers): JsonSchema => interrupt(name).responseSchema as JsonSchema;
const ARGS = { amount: 250, recipient: "bob", urgent: true };
/** The `calls` Python sends for these interrupts (in a chat, for the bare one). */
const CALLS: Record<string, ToolCallOf> = {
  int_af_1: { name: "transfer_funds", arguments: ARGS },
  int_lg_1: { name: "delete_file" },
};

function approve(schema: JsonSchema, edits: RawValues = {}) {
  const spec = formFromSchema(schema);
  return collect(spec, { ...initialValues(spec.fields), ...edits });
}

describe("Microsoft Agent Framework's approval (approved or accepted through anyOf, optional editedArgs)", () => {
  const schema = schemaOf("agent_framework");

  it("is an approval with Approve and Deny, drawing neither `approved` nor its alias `accepted`", () => {
    const spec = formFromSchema(schema);
    expect(spec.approval).toBe(true);
    expect(spec.canDeny).toBe(true);
    expect(spec.fields.map((f) => f.key)).toEqual(["amount", "recipient", "urgent", "editedArgs"]);
    expect(spec.fields.every((f) => !f.required)).toBe(true);
  });

  it("sends only {approved: true} when the person edits nothing: no unticked box, no empty editedArgs", () => {
    expect(approve(schema)).toEqual({ payload: { approved: true }, errors: [] });
  });

  it("denies with {approved: false} and no reason field it would refuse", () => {
    expect(formFromSchema(schema).denyReason).toBeNull();
    expect(denial()).toEqual({ approved: false });
  });

  it("requires the fields inside editedArgs only once the person fills one of them", () => {
    const partial = approve(schema, { "editedArgs.amount": "300" });
    expect(partial.errors).toEqual([{ path: "/editedArgs/recipient", message: "is required" }]);
    const whole = approve(schema, { "editedArgs.amount": "300", "editedArgs.recipient": "carol" });
    expect(whole).toEqual({
      payload: { approved: true, editedArgs: { amount: 300, recipient: "carol", urgent: false } },
      errors: [],
    });
  });

  it("sends a single edited argument as its schema asks", () => {
    expect(approve(schema, { amount: "120" }).payload).toEqual({ approved: true, amount: 120 });
  });

  it("works the same when the alternatives are oneOf", () => {
    const { anyOf, ...rest } = schema;
    const spec = formFromSchema({ ...rest, oneOf: anyOf });
    expect(spec.approval).toBe(true);
    expect(spec.fields.map((f) => f.key)).not.toContain("accepted");
  });

  it("asks about a hosted tool with Approve and Deny alone", () => {
    const spec = formFromSchema(schemaOf("agent_framework_hosted"));
    expect(spec).toMatchObject({ approval: true, canDeny: true, fields: [] });
  });
});

it("takes Strands' schema as an approval", () => {
  expect(formFromSchema(schemaOf("strands")).approval).toBe(true);
});

describe("the card for another server's interrupt", () => {
  const host = pickerHost();

  it("titles Agent Framework's card with the tool and approves with what its schema wants", () => {
    const model = pickerModel([interrupt("agent_framework")], { calls: CALLS });
    host.mount(model);
    const card = cardIn(host.el, "int_af_1");
    expect(card.querySelector(".iw-title")?.textContent).toBe("transfer_funds");
    expect(card.querySelector(".iw-args")?.textContent).toContain("bob");
    expect(buttonIn(card, "Deny")).toBeTruthy();
    buttonIn(card, "Approve").click();
    expect(model.sent).toEqual([expect.objectContaining({ status: "resolved", payload: { approved: true } })]);
  });

  it("titles a card with the name Python gives its call", () => {
    host.mount(pickerModel([interrupt("bare")], { calls: CALLS }));
    expect(cardIn(host.el, "int_lg_1").querySelector(".iw-title")?.textContent).toBe("delete_file");
  });

  it("titles a card with the interrupt's reason when Python names no tool", () => {
    host.mount(pickerModel([interrupt("bare")]));
    expect(cardIn(host.el, "int_lg_1").querySelector(".iw-title")?.textContent).toBe("tool_call");
  });
});
