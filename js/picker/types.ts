// The picker model's synced traits, as the Python side (`picker.py`) writes them.

/** A JSON schema node, as far as the form reads it. */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  /** Sample answers, shown when an answer fails `pattern`. */
  examples?: unknown[];
  /** Shown, never changed: a parameter of an editable tool outside its `fields`. */
  readOnly?: boolean;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  /** Conditional parts: the kit's approval schemas require a tool's fields only `if` approved. */
  if?: JsonSchema;
  then?: JsonSchema;
  /** Alternatives: other servers require `approved` (or an alias) through these. */
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
}

/** An AG-UI 1.0 interrupt in its camelCase wire form (`metadata` keeps its own keys). */
export interface WireInterrupt {
  id: string;
  reason: string;
  message?: string;
  toolCallId?: string;
  responseSchema?: JsonSchema;
  expiresAt?: string;
  metadata?: Record<string, unknown>;
  subagentRunId?: string;
}

export type AnswerStatus = "resolved" | "cancelled";

/** One recorded answer. `by` is "user", "python", "responder:<name>" or "expiry". */
export interface AnswerRecord {
  status: AnswerStatus;
  payload: unknown;
  by: string;
  /** Who answered: a name and roles (`current_identity()` in the kernel, or a token's principal). */
  identity?: { name: string; roles: string[] };
  at: string;
  /** For a call that was in doubt: what the person said of it. */
  settled?: "ran" | "not_run";
}

/** A reason an answer was refused; `path` is a JSON pointer into the payload. */
export interface FieldError {
  path: string;
  message: string;
}

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
