// Interrupts as other AG-UI servers send them (tests/fixtures/other_servers.json,
// built from each server's own code): the picker offers what a person expects
// and sends what each schema wants.

import { describe, expect, it } from "vitest";
import servers from "../../tests/fixtures/other_servers.json";
import { FakeModel } from "./fake_model";
import { collect, denial, formFromSchema, initialValues, type RawValues } from "./form";
import { buttonIn, cardIn, pickerHost } from "./test_host";
import { toolArgsOf, toolNameOf } from "./tool";
import type { JsonSchema, WireInterrupt } from "./types";

const interrupt = (name: keyof typeof servers): WireInterrupt => servers[name] as unknown as WireInterrupt;
const schemaOf = (name: keyof typeof servers): JsonSchema => interrupt(name).responseSchema as JsonSchema;
const callNames = (id: string): string | undefined => {
  for (const message of servers.messages)
    for (const call of message.toolCalls ?? []) if (call.id === id) return call.function.name;
  return undefined;
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

  it("is named from the framework's metadata, and shows the call's arguments", () => {
    expect(toolNameOf(interrupt("agent_framework"))).toBe("transfer_funds");
    expect(toolNameOf(interrupt("agent_framework_hosted"))).toBe("web_search");
    expect(toolArgsOf(interrupt("agent_framework"))).toEqual({ amount: 250, recipient: "bob", urgent: true });
  });
});

describe("naming the tool", () => {
  it("reads metadata.tool_name first (Strands, the kit itself)", () => {
    expect(toolNameOf(interrupt("strands"), callNames)).toBe("transfer_funds");
    expect(formFromSchema(schemaOf("strands")).approval).toBe(true);
  });

  it("else the tool call toolCallId points at in the conversation", () => {
    expect(toolNameOf(interrupt("bare"), callNames)).toBe("delete_file");
    expect(toolNameOf(interrupt("bare"))).toBe("tool_call"); // outside a chat: the reason
  });

  it("passes over a framework's confirmation call to the call it confirms (Google ADK)", () => {
    expect(callNames(interrupt("adk").toolCallId ?? "")).toBe("adk_request_confirmation");
    expect(toolNameOf(interrupt("adk"), callNames)).toBe("transfer_funds");
    expect(toolArgsOf(interrupt("adk"))).toEqual({ amount: 250, recipient: "bob", urgent: true });
  });
});

describe("the card for another server's interrupt", () => {
  const host = pickerHost();

  it("titles Agent Framework's card with the tool and approves with what its schema wants", () => {
    const model = new FakeModel([interrupt("agent_framework")]);
    host.mount(model);
    const card = cardIn(host.el, "int_af_1");
    expect(card.querySelector(".iw-title")?.textContent).toBe("transfer_funds");
    expect(card.querySelector(".iw-args")?.textContent).toContain("bob");
    expect(buttonIn(card, "Deny")).toBeTruthy();
    buttonIn(card, "Approve").click();
    expect(model.sent).toEqual([expect.objectContaining({ status: "resolved", payload: { approved: true } })]);
  });

  it("names the tool from the chat's conversation when the server did not", () => {
    host.mount(new FakeModel([interrupt("bare")]), { callNames });
    expect(cardIn(host.el, "int_lg_1").querySelector(".iw-title")?.textContent).toBe("delete_file");
  });
});
