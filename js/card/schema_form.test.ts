import { describe, expect, it } from "vitest";
import { collect, denial, initialValues } from "./collect";
import { isoToLocal, localToIso, timeToIso } from "./dates";
import { type Control, formFromSchema } from "./schema_form";
import type { JsonSchema } from "./types";

function only(schema: JsonSchema): Control {
  const field = formFromSchema({ type: "object", properties: { x: schema } }).fields[0];
  if (!field) throw new Error("no field");
  return field.control;
}

describe("formFromSchema", () => {
  it("maps each schema type to a control", () => {
    expect(only({ type: "string" })).toEqual({ kind: "text", multiline: false });
    expect(only({ type: "string", maxLength: 1000 })).toEqual({ kind: "text", multiline: true });
    expect(only({ type: "integer", minimum: 1, maximum: 9 })).toEqual({ kind: "number", integer: true });
    expect(only({ type: "number", exclusiveMaximum: 1 })).toEqual({ kind: "number", integer: false });
    expect(only({ type: "boolean" })).toEqual({ kind: "boolean" });
    expect(only({ type: "string", enum: ["a", "b"] })).toEqual({ kind: "choice", style: "radio", options: ["a", "b"] });
    expect(only({ enum: [1, 2, 3, 4, 5] })).toMatchObject({ kind: "choice", style: "select" });
    expect(only({ type: "string", format: "date-time" })).toEqual({ kind: "datetime" });
    expect(only({ type: "string", format: "date" })).toEqual({ kind: "date" });
    expect(only({ type: "string", format: "time" })).toEqual({ kind: "time" });
    expect(only({ type: "array", items: { enum: ["x", "y"] } })).toMatchObject({ kind: "multi", options: ["x", "y"] });
    expect(only({ type: "array", items: { type: "number" } })).toEqual({ kind: "json" });
    expect(only({ type: ["string", "null"] })).toMatchObject({ kind: "text" });
    const group = only({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
    expect(group.kind).toBe("group");
    if (group.kind === "group") {
      expect(group.fields[0]).toMatchObject({
        key: "city",
        pointer: "/x/city",
        dataField: "x.city",
        required: true,
        label: "City",
      });
    }
  });

  it("turns a required approved boolean into an approval form without an approved field", () => {
    const spec = formFromSchema({
      type: "object",
      properties: { approved: { type: "boolean" }, note: { type: "string", title: "Why?", description: "optional" } },
      required: ["approved"],
    });
    expect(spec.approval).toBe(true);
    expect(spec.fields.map((f) => [f.key, f.label, f.description])).toEqual([["note", "Why?", "optional"]]);
    expect(spec.denyReason).toBeNull();
    expect(spec.canDeny).toBe(true);
    const strict = formFromSchema({
      type: "object",
      properties: { approved: { type: "boolean" }, note: { type: "string" } },
      required: ["approved", "note"],
    });
    expect(strict.approval).toBe(true);
    expect(strict.canDeny).toBe(false);
    expect(formFromSchema({ type: "object", properties: { approved: { type: "boolean" } } }).approval).toBe(false);
  });

  it("draws an approval schema's optional reason beside Deny, not among the fields", () => {
    const spec = formFromSchema({
      type: "object",
      properties: {
        approved: { type: "boolean" },
        reason: { type: "string", maxLength: 10 },
        seats: { type: "integer" },
      },
      required: ["approved"],
    });
    expect(spec.fields.map((f) => f.key)).toEqual(["seats"]);
    expect(spec.denyReason).toMatchObject({ key: "reason", pointer: "/reason", required: false });
    expect(denial("  Alice is away  ")).toEqual({ approved: false, reason: "Alice is away" });
    expect(denial("   ")).toEqual({ approved: false });
  });

  it("handles a bare root schema and no schema", () => {
    const root = formFromSchema({ type: "integer", minimum: 0 });
    expect(root.object).toBe(false);
    expect(root.fields[0]).toMatchObject({ pointer: "", dataField: "value" });
    expect(formFromSchema(undefined)).toEqual({
      approval: false,
      canDeny: false,
      object: false,
      hasSchema: false,
      fields: [],
      denyReason: null,
      edit: null,
    });
  });

  it("starts from the schema's defaults", () => {
    const spec = formFromSchema({
      type: "object",
      properties: {
        n: { type: "integer", default: 3 },
        on: { type: "boolean", default: true },
        pick: { enum: ["a", "b"], default: "b" },
        many: { type: "array", items: { enum: ["x", "y", "z"] }, default: ["z", "x"] },
        note: { type: "string", default: "hello" },
      },
    });
    expect(initialValues(spec.fields)).toEqual({ n: "3", on: true, pick: "1", many: ["2", "0"], note: "hello" });
  });
});

describe("collect", () => {
  const schema: JsonSchema = {
    type: "object",
    properties: {
      count: { type: "integer", minimum: 1, maximum: 5 },
      ratio: { type: "number", exclusiveMinimum: 0 },
      name: { type: "string", minLength: 2, maxLength: 4, pattern: "^[a-z]+$" },
      color: { enum: ["red", "green"] },
      tags: { type: "array", items: { enum: ["a", "b", "c"] }, minItems: 1 },
      day: { type: "string", format: "date" },
      address: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      extra: { type: "array", items: { type: "number" } },
    },
    required: ["count", "name", "address"],
  };
  const spec = formFromSchema(schema);

  it("builds a typed payload and leaves empty optional fields out", () => {
    const result = collect(spec, {
      count: "3",
      ratio: "",
      name: "abc",
      color: "1",
      tags: ["2", "0"],
      day: "2026-12-08",
      "address.city": "Oslo",
      extra: "[1, 2.5]",
    });
    expect(result.errors).toEqual([]);
    expect(result.payload).toEqual({
      count: 3,
      name: "abc",
      color: "green",
      tags: ["a", "c"],
      day: "2026-12-08",
      address: { city: "Oslo" },
      extra: [1, 2.5],
    });
  });

  it("reports every problem with Python's wording and JSON pointers", () => {
    const result = collect(spec, { count: "7", ratio: "0", name: "ABCDE", tags: [], extra: "[1,", "address.city": "" });
    expect(result.errors).toEqual([
      { path: "/count", message: "must be <= 5" },
      { path: "/ratio", message: "must be > 0" },
      { path: "/name", message: "must be at most 4 characters" },
      { path: "/address/city", message: "is required" },
      { path: "/extra", message: "must be valid JSON" },
    ]);
    expect(collect(spec, { count: "1.5", name: "" }).errors.slice(0, 2)).toEqual([
      { path: "/count", message: "must be of type integer" },
      { path: "/name", message: "is required" },
    ]);
    expect(collect(spec, { count: "1", name: "ab1", "address.city": "x" }).errors).toEqual([
      { path: "/name", message: "must match the pattern ^[a-z]+$" },
    ]);
  });

  it("checks a bare root value", () => {
    const root = formFromSchema({ type: "integer", maximum: 10 });
    expect(collect(root, { value: "4" })).toEqual({ payload: 4, errors: [] });
    expect(collect(root, { value: "40" }).errors).toEqual([{ path: "", message: "must be <= 10" }]);
    expect(collect(root, { value: "" }).errors).toEqual([{ path: "", message: "is required" }]);
  });

  it("adds approved to an approval form", () => {
    const approval = formFromSchema({
      type: "object",
      properties: { approved: { type: "boolean" } },
      required: ["approved"],
    });
    expect(collect(approval, {}).payload).toEqual({ approved: true });
  });
});

describe("date and time values", () => {
  it("round-trips a datetime-local value through ISO 8601 with the local offset", () => {
    const iso = localToIso("2026-03-29T02:30:15");
    expect(iso).toMatch(/^2026-03-29T0\d:30:15[+-]\d{2}:\d{2}$/);
    expect(isoToLocal(localToIso("2026-12-08T10:30") ?? "")).toBe("2026-12-08T10:30");
    expect(localToIso("2026-02-30T10:00")).toBeNull();
    expect(localToIso("tomorrow")).toBeNull();
    expect(isoToLocal("nonsense")).toBe("");
  });

  it("gives a time the offset JSON schema's time format needs", () => {
    expect(timeToIso("09:05")).toMatch(/^09:05:00[+-]\d{2}:\d{2}$/);
    expect(timeToIso("9am")).toBeNull();
  });
});

describe("the kit's approval schema with fields required only when approved", () => {
  // As `interrupts.with_response_schema` builds it for the meeting scheduler.
  const meeting: JsonSchema = {
    type: "object",
    properties: {
      approved: { type: "boolean" },
      chosen_time: { type: "string", format: "date-time" },
      chosen_label: { type: "string", minLength: 1 },
    },
    required: ["approved"],
    if: { properties: { approved: { const: true } }, required: ["approved"] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then
    then: { required: ["chosen_time", "chosen_label"] },
  };

  it("requires the time before Approve, and derives the label from it: never a required empty field", () => {
    const spec = formFromSchema(meeting);
    expect(spec.approval).toBe(true);
    expect(spec.fields.map((f) => [f.key, f.required])).toEqual([
      ["chosen_time", true],
      ["chosen_label", false],
    ]);
    expect(spec.fields[1]?.description).toBe("Left empty, it is filled in from the time.");
    expect(collect(spec, {}).errors).toEqual([{ path: "/chosen_time", message: "is required" }]);
    const picked = collect(spec, { chosen_time: "2026-12-03T10:30" });
    expect(picked.errors).toEqual([]);
    expect(picked.payload).toMatchObject({ approved: true, chosen_time: localToIso("2026-12-03T10:30") });
    expect(typeof (picked.payload as Record<string, unknown>).chosen_label).toBe("string");
  });
});
