// The picker model's synced traits, as the Python side (`picker.py`) writes them.

import type { AnswerRecord, FieldError, WireInterrupt } from "../card";

export type PickerStatus = "waiting" | "submitted" | "expired" | "error";

export interface PickerModel {
  [key: string]: unknown;
  kind: "picker";
  interrupts: WireInterrupt[];
  answers: Record<string, AnswerRecord>;
  status: PickerStatus;
  error: string;
  errors: Record<string, FieldError[]>;
  renderers: Record<string, string>;
  /** interruptId -> the tool it asks about and its arguments, named by Python (`tool_name`). */
  calls: Record<string, ToolCallOf>;
  /** interruptId -> what is known of an approved call that may have run (its run ended
   * before recording a result); answered with a settle message, not an answer. */
  doubts: Record<string, string>;
  /** Where the conversation's runs can be seen (a Temporal Web UI), or "": the conversation's,
   * never an interrupt's. A card makes it a link only when it is an http(s) URL. */
  run_link: string;
}

/** Which tool an interrupt asks about, with which arguments (left out when it carries none). */
export interface ToolCallOf {
  name: string;
  arguments?: unknown;
  /** The card's rows, `[name, text]`, spelled by Python as the interrupt's message spells them. */
  shown?: Array<[string, string]>;
}
