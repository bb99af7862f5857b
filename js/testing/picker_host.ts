// Shared by the picker's DOM tests: a fresh host element per test, mounted
// pickers cleaned up after it, and lookups that fail loudly.

import { afterEach, beforeEach, vi } from "vitest";
import type { WireInterrupt } from "../card";
import { mountPicker } from "../picker/index";
import type { FakePicker } from "./fake_model";

/** One gated call with a yes/no answer: `send_invoice` for ACME. */
export const SEND_INVOICE: WireInterrupt = {
  id: "i1",
  reason: "tool_call",
  message: "Allow send_invoice?",
  toolCallId: "c1",
  responseSchema: { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] },
  metadata: { tool_name: "send_invoice", tool_input: { customer: "ACME" } },
};

export interface PickerHost {
  /** The element the test's pickers are mounted in (new for each test). */
  readonly el: HTMLElement;
  /** Mount a picker on `model` in `el`; it is cleaned up after the test. */
  mount(model: FakePicker, options?: Parameters<typeof mountPicker>[2]): HTMLElement;
  /** Keep a cleanup to run after the test. */
  cleanupLater(fn: () => void): void;
}

/** Call once at the top of a test file: registers the per-test setup and teardown. */
export function pickerHost(): PickerHost {
  let el: HTMLElement | null = null;
  let cleanups: Array<() => void> = [];
  beforeEach(() => {
    el = document.createElement("div");
    document.body.appendChild(el);
  });
  afterEach(() => {
    for (const fn of cleanups) fn();
    cleanups = [];
    el?.remove();
    vi.useRealTimers();
  });
  const current = (): HTMLElement => {
    if (!el) throw new Error("no host element outside a test");
    return el;
  };
  return {
    get el() {
      return current();
    },
    mount(model, options = {}) {
      cleanups.push(mountPicker(current(), model.asModel(), options));
      return current();
    },
    cleanupLater(fn) {
      cleanups.push(fn);
    },
  };
}

/** The visible button named `name` inside `root`. */
export function buttonIn(root: ParentNode, name: string): HTMLButtonElement {
  const found = [...root.querySelectorAll("button")].find(
    (b) => b.textContent === name && !b.classList.contains("iw-hidden"),
  );
  if (!found) throw new Error(`no button ${name}`);
  return found;
}

/** The card of interrupt `id` inside `root`. */
export function cardIn(root: ParentNode, id: string): HTMLElement {
  const found = root.querySelector<HTMLElement>(`[data-interrupt-id="${id}"]`);
  if (!found) throw new Error(`no card ${id}`);
  return found;
}
