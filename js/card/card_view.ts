// One card's view state: what a card draws of its interrupt, worked out by the widget that
// holds it (the picker's reducer, the inbox's view of the opened call) and drawn by `card_dom.ts`.

import type { Decision } from "./summary";
import type { WireInterrupt } from "./types";

export type CardPhase = "open" | "pending" | "expired" | "decided";

export interface CardView {
  id: string;
  interrupt: WireInterrupt;
  /** Tool name as Python reads it, or the reason when it is not a tool approval. */
  title: string;
  message: string;
  /** The tool's arguments, each value as display text. */
  args: Array<[string, string]>;
  phase: CardPhase;
  /** Set once decided. */
  decision: Decision | null;
  /** Field errors keyed by JSON pointer ("" for the answer as a whole). */
  fieldErrors: Record<string, string[]>;
  /** A card-level problem to show above the buttons. */
  error: string;
  /** Milliseconds left, null without a deadline. */
  remaining: number | null;
  /** ES module source replacing the built-in form, if any. */
  renderer: string | null;
  /** What is known of an approved call that may have run, or null: it is settled, not answered. */
  doubt: string | null;
  /** Where the conversation's runs can be seen, as Python sent it (drawn as a link only when
   * http(s): `card_dom.ts`), or null. */
  runLink: string | null;
}
