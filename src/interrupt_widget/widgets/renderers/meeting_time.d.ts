// Types of the meeting-time renderer, for TypeScript callers and tests.
import type { RendererProps, WireInterrupt } from "../../../js/card";

export interface Slot {
  iso: string;
  label: string;
}
export function suggestedSlots(interrupt: WireInterrupt, now?: Date): Slot[];
export function render(props: RendererProps): () => void;
