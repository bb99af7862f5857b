// How a recorded answer reads in the card once it is decided.

import { humanize } from "./form";
import type { AnswerRecord } from "./types";

export interface Decision {
  /** "Approved", "Denied", "Answered", "Cancelled" or "Expired". */
  verdict: string;
  /** Tone for styling. */
  tone: "ok" | "no" | "neutral";
  /** The answer's other fields as [label, text] pairs, in payload order. */
  details: Array<[string, string]>;
  /** Who answered, as a phrase ("in the widget", "from Python", "by responder approve_all"). */
  by: string;
}

function asText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

export function answeredBy(by: string): string {
  if (by === "user") return "in the widget";
  if (by === "python") return "from Python";
  if (by === "expiry") return "time ran out";
  if (by.startsWith("responder:")) return `by responder ${by.slice("responder:".length)}`;
  return `by ${by}`;
}

export function decisionOf(record: AnswerRecord): Decision {
  const by = answeredBy(record.by);
  if (record.by === "expiry") return { verdict: "Expired", tone: "no", details: [], by };
  if (record.status === "cancelled") return { verdict: "Cancelled", tone: "no", details: [], by };
  const payload = record.payload;
  if (typeof payload === "object" && payload !== null && !Array.isArray(payload)) {
    const fields = payload as Record<string, unknown>;
    if (fields.approved === false) return { verdict: "Denied", tone: "no", details: [], by };
    const details = Object.entries(fields)
      .filter(([key]) => key !== "approved")
      .map(([key, value]): [string, string] => [humanize(key), asText(value)]);
    return { verdict: fields.approved === true ? "Approved" : "Answered", tone: "ok", details, by };
  }
  const details: Array<[string, string]> = payload === null || payload === undefined ? [] : [["Answer", asText(payload)]];
  return { verdict: "Answered", tone: "ok", details, by };
}
