// Draws `PickerView` into the DOM: one card per interrupt (`card_dom.ts`, its
// fields in `field_dom.ts`) under a status line. Every piece of data goes in
// through textContent / attributes (never innerHTML): messages, arguments and
// labels come from an agent and are untrusted.

import { h } from "../dom";
import { buildCard, type CardDom, updateCard, type ViewActions } from "./card_dom";
import type { ModuleLoader } from "./renderers";
import type { PickerView } from "./state";

export type { ViewActions } from "./card_dom";

export interface PickerDom {
  update(view: PickerView): void;
  destroy(): void;
}

let mountCount = 0;

function statusText(view: PickerView): string {
  if (view.status === "error") return view.error ? `Error: ${view.error}` : "Error";
  if (view.status === "submitted") return "Answers sent.";
  if (view.status === "expired") return "Expired: no answer was given in time.";
  return [view.error, view.progress].filter(Boolean).join(" · ");
}

export function createPickerDom(
  el: HTMLElement,
  actions: ViewActions,
  options: { loader?: ModuleLoader } = {},
): PickerDom {
  const doc = el.ownerDocument;
  mountCount += 1;
  const prefix = `iw${mountCount}`;
  const root = h(doc, "div", { class: "iw-picker", role: "region", "aria-label": "Questions from the agent" });
  const status = h(doc, "div", { class: "iw-status", role: "status", "aria-live": "polite" });
  root.appendChild(status);
  el.appendChild(root);
  const cards = new Map<string, CardDom>();
  let cardCount = 0;
  let destroyed = false;
  const alive = (): boolean => !destroyed;

  const removeCard = (id: string, dom: CardDom): void => {
    for (const fn of dom.cleanup) fn();
    dom.root.remove();
    cards.delete(id);
  };

  return {
    update(view: PickerView): void {
      if (destroyed) return;
      const shown = new Set(view.cards.map((c) => c.id));
      for (const [id, dom] of cards) if (!shown.has(id)) removeCard(id, dom);
      for (const card of view.cards) {
        let dom = cards.get(card.id);
        if (!dom) {
          cardCount += 1;
          const ctx = { doc, idPrefix: `${prefix}-${cardCount}`, actions, loader: options.loader, alive };
          dom = buildCard(ctx, card);
          cards.set(card.id, dom);
          root.appendChild(dom.root);
        }
        updateCard(doc, dom, card, view.closed);
      }
      status.textContent = statusText(view);
      status.classList.toggle("iw-bad", view.status === "error" || (view.status === "waiting" && view.error !== ""));
    },
    destroy(): void {
      destroyed = true;
      for (const dom of cards.values()) for (const fn of dom.cleanup) fn();
      root.remove();
    },
  };
}
