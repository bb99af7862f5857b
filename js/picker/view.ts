// Draws `PickerView` into the DOM: one card per interrupt (`card_dom.ts`, its
// fields in `field_dom.ts`) under a status line. Every piece of data goes in
// through textContent / attributes (never innerHTML): messages, arguments and
// labels come from an agent and are untrusted.

import { buildCard, type Card, type CardView, type ModuleLoader, type ViewActions } from "../card";
import { h } from "../dom";
import type { PickerView } from "./state";

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
          card = withDecision(buildCard(ctx, cardView));
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

/**
 * The card with the read-only summary of its saved answer under it, drawn again only when it
 * changes. Only the picker shows a decided card: the inbox lets an answered call go.
 */
function withDecision(card: Card): Card {
  const decision = h("div", { class: "iw-decision iw-hidden", tabindex: -1 });
  card.root.append(decision);
  let shown = "";
  return {
    ...card,
    update(view: CardView, closed: boolean): void {
      card.update(view, closed);
      const { decision: d } = view;
      const key = d ? JSON.stringify(d) : "";
      if (key === shown) return;
      shown = key;
      const parts = d
        ? [
            // The person clicked here too: say that their answer was not the one taken.
            ...(d.elsewhere ? [h("span", "iw-elsewhere", "Answered elsewhere:")] : []),
            h("span", `iw-verdict iw-${d.tone}`, d.verdict),
            ...d.details.map(([label, value]) => h("span", "iw-detail", `${label}: ${value}`)),
            h("span", "iw-by", `(${d.by})`),
          ]
        : [];
      // Spaces between the parts, so the summary reads as a sentence when copied or spoken.
      decision.replaceChildren(...parts.flatMap((part, i) => (i ? [" ", part] : [part])));
      const hadFocus = card.root.contains(document.activeElement);
      decision.classList.toggle("iw-hidden", !d);
      if (d && hadFocus) decision.focus();
    },
  };
}
