// Draws `PickerView` into the DOM: one card per interrupt (`card_dom.ts`, its
// fields in `field_dom.ts`) under a status line. Every piece of data goes in
// through textContent / attributes (never innerHTML): messages, arguments and
// labels come from an agent and are untrusted.

import { h } from "../dom";
import { buildCard, type Card, type ViewActions } from "./card_dom";
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
  mountCount += 1;
  const prefix = `iw${mountCount}`;
  const status = h("div", { class: "iw-status", role: "status", "aria-live": "polite" });
  const root = h("div", { class: "iw-picker", role: "region", "aria-label": "Questions from the agent" }, status);
  el.appendChild(root);
  const cards = new Map<string, Card>();
  let cardCount = 0;
  let destroyed = false;
  const alive = (): boolean => !destroyed;

  return {
    update(view: PickerView): void {
      if (destroyed) return;
      const shown = new Set(view.cards.map((c) => c.id));
      for (const [id, card] of cards) {
        if (shown.has(id)) continue;
        card.destroy();
        cards.delete(id);
      }
      for (const cardView of view.cards) {
        let card = cards.get(cardView.id);
        if (!card) {
          cardCount += 1;
          const ctx = { idPrefix: `${prefix}-${cardCount}`, actions, loader: options.loader, alive };
          card = buildCard(ctx, cardView);
          cards.set(cardView.id, card);
          root.appendChild(card.root);
        }
        card.update(cardView, view.closed);
      }
      status.textContent = statusText(view);
      status.classList.toggle("iw-bad", view.status === "error" || (view.status === "waiting" && view.error !== ""));
    },
    destroy(): void {
      destroyed = true;
      for (const card of cards.values()) card.destroy();
      root.remove();
    },
  };
}
