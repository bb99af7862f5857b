// How a recorded answer reads in the card once it is decided.

import { DENY_REASON, EDIT_KEY, humanize, labelFor } from "./form";
import type { AnswerRecord } from "./types";

export interface Decision {
  /** "Approved", "Denied", "Answered", "Cancelled" or "Expired". */
  verdict: string;
  /** Tone for styling. */
  tone: "ok" | "no" | "neutral";
  /** The answer's other fields as [label, text] pairs, in payload order. */
  details: Array<[string, string]>;
  /** Who answered, as a phrase ("in this view", "from Python", "by responder approve_all"). */
  by: string;
  /** This view answered too, but another view's answer was recorded first. */
  elsewhere?: boolean;
}

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/i;

/** A value as the summary shows it; an ISO instant reads as local time. */
function asText(value: unknown): string {
  if (typeof value === "string") return INSTANT.test(value) ? labelFor(value) : value;
  return JSON.stringify(value);
}

export function answeredBy(by: string, viewId?: string): string {
  if (by === "user") return "in the widget";
  if (viewId !== undefined && by === `view:${viewId}`) return "in this view";
  if (by.startsWith("view:")) return "in another view";
  if (by === "python") return "from Python";
  if (by === "expiry") return "time ran out";
  if (by.startsWith("responder:")) return `by responder ${by.slice("responder:".length)}`;
  return `by ${by}`;
}

export function decisionOf(record: AnswerRecord, viewId?: string): Decision {
  const by = answeredBy(record.by, viewId);
  if (record.by === "expiry") return { verdict: "Expired", tone: "no", details: [], by };
  if (record.status === "cancelled") return { verdict: "Cancelled", tone: "no", details: [], by };
  const payload = record.payload;
  if (typeof payload === "object" && payload !== null && !Array.isArray(payload)) {
    const fields = payload as Record<string, unknown>;
    if (fields.approved === false) {
      const reason = fields[DENY_REASON];
      const details: Array<[string, string]> = typeof reason === "string" && reason ? [["Reason", reason]] : [];
      return { verdict: "Denied", tone: "no", details, by };
    }
    const details: Array<[string, string]> = [];
    for (const [key, value] of Object.entries(fields)) {
      if (key === EDIT_KEY && typeof value === "object" && value !== null && !Array.isArray(value)) {
        const edits = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k} ${asText(v)}`);
        if (edits.length) details.push(["Edited", edits.join(", ")]);
        continue;
      }
      const text = asText(value);
      // A label derived from the chosen time says the same thing twice: keep one.
      if (key !== "approved" && !details.some(([, shown]) => shown === text)) details.push([humanize(key), text]);
    }
    return { verdict: fields.approved === true ? "Approved" : "Answered", tone: "ok", details, by };
  }
  const details: Array<[string, string]> =
    payload === null || payload === undefined ? [] : [["Answer", asText(payload)]];
  return { verdict: "Answered", tone: "ok", details, by };
}
