// Types of the meeting-time renderer, for TypeScript callers and tests.
import type { RendererProps } from "../../../js/picker/renderers";
import type { WireInterrupt } from "../../../js/picker/types";

export interface Slot {
  iso: string;
  label: string;
}
export function suggestedSlots(interrupt: WireInterrupt, now?: Date): Slot[];
export function render(props: RendererProps): () => void;
