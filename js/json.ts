// Reading JSON that arrives from Python, an agent or a renderer: what is an object, what is text.

/** `value` as an object's fields when it is a JSON object (not null, not an array); else undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** `value` when it is a string; else "". */
export const str = (value: unknown): string => (typeof value === "string" ? value : "");
