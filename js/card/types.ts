// An interrupt and its answers as the wire carries them: what a card draws and sends,
// in the picker's traits and in the inbox's items alike.

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
