// One wire contract, the TypeScript side. The messages between Python and each widget are
// described once, as JSON Schema shipped in the package (src/interrupt_widget/widgets/wire/);
// tests/widgets/test_wire_contract.py checks Python against them on the same shared examples
// (tests/fixtures/wire/<widget>/<name>.json). Here: Ajv gives each example its verdict, the
// TypeScript readers read every valid message from Python in full, and what the views and
// builders send fits the schema. Ajv is a dev dependency, used by this file only: nothing
// the bundles import loads it.

/// <reference types="vite/client" />

import Ajv2020 from "ajv/dist/2020";
import { build } from "esbuild";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { attachedMessage, initialize } from "./attached";
import { mountChat } from "./chat/index";
import { type ChatModel, isToFrontEnd, promptMessage } from "./chat/protocol";
import { type InboxModel, mountInbox } from "./inbox/index";
import {
  forgetMessage,
  answerMessage as inboxAnswer,
  settleMessage as inboxSettle,
  parseMessage,
  rememberMessage,
} from "./inbox/protocol";
import { mountPicker } from "./picker/index";
import { answerMessage, parseAnswerResult, settleMessage } from "./picker/protocol";
import type { PickerModel } from "./picker/types";
import { FakeModel } from "./testing/fake_model";

const WIDGETS = ["chat", "picker", "inbox"] as const;
type Widget = (typeof WIDGETS)[number];
const ENTRIES = ["toPython", "toFrontEnd", "traits"] as const;
type Entry = (typeof ENTRIES)[number];
interface Example {
  about: string;
  entry: Entry;
  valid: boolean;
  value: unknown;
}

const schemas = import.meta.glob<object>("../src/interrupt_widget/widgets/wire/*.schema.json", {
  eager: true,
  import: "default",
});
const fixtures = import.meta.glob<Example>("../tests/fixtures/wire/*/*.json", { eager: true, import: "default" });

const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
for (const schema of Object.values(schemas)) ajv.addSchema(schema);

function validator(widget: Widget, entry: Entry) {
  const found = ajv.getSchema(`urn:interrupt-widget:wire:${widget}#/$defs/${entry}`);
  if (!found) throw new Error(`no ${entry} in the ${widget} schema`);
  return found;
}

/** The schema's complaints about `value` as the wire carries it (JSON: undefined fields dropped). */
function problems(widget: Widget, entry: Entry, value: unknown): string {
  const check = validator(widget, entry);
  return check(JSON.parse(JSON.stringify(value))) ? "" : ajv.errorsText(check.errors);
}

const examples: Array<[Widget, string, Example]> = Object.entries(fixtures)
  .map(([path, fixture]): [Widget, string, Example] => {
    const [widget, name] = path.split("/").slice(-2) as [Widget, string];
    return [widget, name.replace(/\.json$/, ""), fixture];
  })
  .sort(([a, x], [b, y]) => a.localeCompare(b) || x.localeCompare(y));
const example = (widget: Widget, name: string): Example => {
  const found = examples.find(([w, n]) => w === widget && n === name);
  if (!found) throw new Error(`no example ${widget}/${name}`);
  return found[2];
};
const valid = (widget: Widget, entry: Entry): unknown[] =>
  examples.filter(([w, , e]) => w === widget && e.entry === entry && e.valid).map(([, , e]) => e.value);

describe("the schemas", () => {
  it("compile strictly, one per widget and the common parts, and stay out of the bundles", async () => {
    expect(Object.keys(schemas).map((path) => path.split("/").pop())).toEqual([
      "chat.schema.json",
      "common.schema.json",
      "inbox.schema.json",
      "picker.schema.json",
    ]);
    for (const widget of WIDGETS) for (const entry of ENTRIES) expect(validator(widget, entry)).toBeTypeOf("function");
    const bundled = await build({
      entryPoints: ["js/widget.ts", "js/inbox/widget.ts"],
      bundle: true,
      format: "esm",
      outdir: "unused",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    const inputs = Object.keys(bundled.metafile.inputs);
    expect(inputs.some((path) => path.includes("js/picker/protocol.ts"))).toBe(true);
    expect(inputs.filter((path) => /node_modules\/ajv|wire\.test|schema\.json/.test(path))).toEqual([]);
  }, 30_000);
});

describe("the shared examples", () => {
  it("are many, of every widget and every entry, valid and not", () => {
    for (const widget of WIDGETS) {
      for (const entry of ENTRIES) {
        const of = examples.filter(([w, , e]) => w === widget && e.entry === entry);
        expect(
          of.some(([, , e]) => e.valid),
          `${widget} ${entry}`,
        ).toBe(true);
        expect(
          of.some(([, , e]) => !e.valid),
          `${widget} ${entry}`,
        ).toBe(true);
      }
    }
  });

  it.each(examples)("%s/%s gets its verdict from the schema", (widget, _name, { entry, valid, value }) => {
    expect(problems(widget, entry, value) === "").toBe(valid);
  });
});

/** What only the served loader (Python's `widgets/_bundle.py`, plain JS) sends and reads, never
 * a view: its code request and the kernel's reply. The browser suite clicks a widget drawn
 * that way (tests/e2e/test_lab_saved_notebook.py). */
const LOADER_KINDS = ["widget_code"];
const forViews = (message: unknown): boolean => !LOADER_KINDS.includes(String((message as { type?: unknown }).type));

describe("what TypeScript reads from Python", () => {
  it("reads every valid message in full", () => {
    for (const message of valid("chat", "toFrontEnd").filter(forViews)) expect(isToFrontEnd(message)).toBe(true);
    for (const message of valid("picker", "toFrontEnd").filter(forViews))
      expect(parseAnswerResult(message)).toEqual(message);
    for (const message of valid("inbox", "toFrontEnd").filter(forViews)) expect(parseMessage(message)).toEqual(message);
  });

  it("a view passes over the kernel's copy of the widget's code, which is the loader's", () => {
    const [code] = valid("chat", "toFrontEnd").filter((m) => !forViews(m));
    expect(isToFrontEnd(code)).toBe(false);
    expect(parseAnswerResult(code)).toBeNull();
    expect(parseMessage(code)).toBeNull();
  });

  it("reads any example without throwing, taking what it can", () => {
    // The readers are defensive, the schema exact: Python's side is checked against the
    // schema by pytest, so a bad message here only has to leave the view standing.
    for (const [widget, , { value }] of examples.filter(([, , e]) => e.entry === "toFrontEnd")) {
      if (widget === "chat") isToFrontEnd(value);
      else if (widget === "picker") parseAnswerResult(value);
      else parseMessage(value);
    }
  });
});

interface Kind {
  $ref?: string;
  properties?: { type?: { const?: string } };
}

/** The `type` of the message a definition describes, through `$ref`s (`from` resolves a `#`). */
function typeOf(from: string, ref: string): string {
  const uri = ref.startsWith("#") ? `${from}${ref}` : ref;
  const kind = ajv.getSchema(uri)?.schema as Kind | undefined;
  const own = kind?.properties?.type?.const;
  if (own !== undefined || !kind?.$ref) return String(own);
  return typeOf(uri.split("#")[0] ?? "", kind.$ref);
}

/** Every `type` a view or builder sent, per widget, to compare with the schema's kinds. */
const sentTypes: Record<Widget, Set<string>> = { chat: new Set(), picker: new Set(), inbox: new Set() };

function expectFits(widget: Widget, messages: unknown[]): void {
  for (const message of messages) {
    expect(problems(widget, "toPython", message), JSON.stringify(message)).toBe("");
    sentTypes[widget].add(String((message as { type?: unknown }).type));
  }
}

/** A custom renderer's module that never loads: the built-in form stays. */
const never = (): Promise<never> => new Promise(() => {});

const button = (el: ParentNode, name: string): HTMLButtonElement => {
  const found = [...el.querySelectorAll("button")].find((b) => b.textContent === name);
  if (!found) throw new Error(`no button ${name}`);
  return found;
};

describe("what TypeScript sends to Python", () => {
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

  it("builds every message of its protocols as the schemas describe", () => {
    expectFits("picker", [
      answerMessage("int-1", "resolved", { approved: true, chosen_label: "Tue 8 Dec" }, "view-a"),
      answerMessage("int-1", "cancelled", null, "view-a"),
      settleMessage("int-1", true, "Scheduled.", "view-a"),
      settleMessage("int-1", false, undefined, "view-a"),
    ]);
    expectFits("inbox", [
      inboxAnswer(["0:INV-1:int-1", "1:INV-2:int-2"], "resolved", { approved: false, reason: "dup" }, "view-b"),
      inboxAnswer(["0:INV-1:int-1"], "cancelled", null, "view-b"),
      inboxSettle("0:INV-1:int-1", true, "Sent.", "view-b"),
      inboxSettle("0:INV-1:int-1", false, undefined, "view-b"),
      rememberMessage("0:INV-1:int-1", "amount", "le", "view-b"),
      rememberMessage("0:INV-1:int-1", null, "eq", "view-b"),
      forgetMessage("transfer_funds amount <= 100.0"),
    ]);
    expectFits("chat", [promptMessage("Book a call with Ada"), promptMessage("")]);
    for (const widget of WIDGETS) {
      const model = new FakeModel({});
      initialize({ model: model.asModel() }); // anywidget's initialize: every widget announces itself
      expectFits(widget, [...model.sent, attachedMessage()]);
    }
  });

  it("a chat's view sends hello, a prompt and stop as the schema describes", () => {
    const model = new FakeModel(example("chat", "traits_done").value as ChatModel);
    cleanup = mountChat(el, model.asModel());
    const input = el.querySelector("textarea");
    if (!input) throw new Error("no prompt box");
    input.value = "And move it to Wednesday";
    input.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", bubbles: true }));
    model.set("status", "running");
    el.querySelector<HTMLButtonElement>(".iw-chat-stop")?.click();
    expect(model.sent.map((m) => (m as { type: string }).type)).toEqual(["hello", "prompt", "stop"]);
    expectFits("chat", model.sent);
  });

  it("a picker's view sends answers as the schema describes, and draws every valid traits example", () => {
    for (const traits of valid("picker", "traits")) {
      const model = new FakeModel(traits as PickerModel);
      const unmount = mountPicker(el, model.asModel(), { loader: never });
      const ids = [...el.querySelectorAll<HTMLElement>("[data-interrupt-id]")].map((c) => c.dataset.interruptId);
      expect(ids).toEqual((traits as PickerModel).interrupts.map((i) => i.id));
      unmount();
      el.replaceChildren();
    }
    const model = new FakeModel(example("picker", "traits_waiting").value as PickerModel);
    cleanup = mountPicker(el, model.asModel());
    button(el, "Approve").click();
    button(el, "Cancel").click();
    expect(model.sent.length).toBeGreaterThan(0);
    expectFits("picker", model.sent);
  });

  it("a picker's view settles a call in doubt as the schema describes", () => {
    const model = new FakeModel(example("picker", "traits_in_doubt").value as PickerModel);
    cleanup = mountPicker(el, model.asModel(), { loader: never });
    button(el, "It did not run: run it now").click();
    button(el, "Confirm: run it now").click();
    expect(model.sent).toMatchObject([{ type: "settle", interruptId: "int-1", ran: false }]);
    expectFits("picker", model.sent);
  });

  it("an inbox's view sends hello, answers and rules as the schema describes", () => {
    const model = new FakeModel(example("inbox", "traits").value as InboxModel);
    cleanup = mountInbox(el, model.asModel());
    model.emit("msg:custom", example("inbox", "snapshot").value);
    model.emit("msg:custom", example("inbox", "delta").value);
    el.querySelector<HTMLInputElement>('input[aria-label="Select shown"]')?.click();
    button(el, "Approve selected").click();
    const list = el.querySelector<HTMLElement>(".iw-list");
    const key = (k: string) => list?.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true }));
    key("j");
    key("d");
    key("e");
    button(el, "Approve, and the same for calls like this").click();
    button(el, "Remove").click();
    expect(new Set(model.sent.map((m) => (m as { type: string }).type))).toEqual(
      new Set(["hello", "answer", "remember", "forget"]),
    );
    expectFits("inbox", model.sent);
  });

  it("sends every kind of message the schemas describe for it, and no other", () => {
    for (const widget of WIDGETS) {
      const { oneOf } = validator(widget, "toPython").schema as { oneOf: Array<{ $ref: string }> };
      const kinds = oneOf
        .map(({ $ref }) => typeOf(`urn:interrupt-widget:wire:${widget}`, $ref))
        .filter((kind) => !LOADER_KINDS.includes(kind));
      expect([...sentTypes[widget]].sort(), widget).toEqual(kinds.sort());
    }
  });
});
