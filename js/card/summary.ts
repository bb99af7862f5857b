// How a recorded answer reads in the card once it is decided.

import { asRecord } from "../json";
import { labelFor } from "./dates";
import { DENY_REASON, EDIT_KEY, humanize } from "./schema_form";
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

/** Who answered, as the kernel words it (`answerer_words`): "in the widget", "from Python",
 * "by responder approve_all", "by policy small transfers", "by ann in the sidebar". */
export function answererWords(by: string): string {
  if (by === "user" || by.startsWith("view:")) return "in the widget";
  if (by === "python") return "from Python";
  if (by.startsWith("sidebar:") && by.length > 8) return `by ${by.slice(8)} in the sidebar`;
  const at = by.indexOf(":");
  return at > 0 && at < by.length - 1 ? `by ${by.slice(0, at)} ${by.slice(at + 1)}` : `by ${by}`;
}

/** Who answered, by the record's `by` ("user", "python", "expiry", "view:<id>", "responder:<name>"),
 * as a picker that knows its own view id says it. */
export function answeredBy(by: string, viewId?: string): string {
  if (viewId !== undefined && by === `view:${viewId}`) return "in this view";
  if (by.startsWith("view:")) return "in another view";
  return by === "expiry" ? "time ran out" : answererWords(by);
}

type Read = Omit<Decision, "by">;

const read = (verdict: string, tone: Decision["tone"], details: Array<[string, string]> = []): Read => ({
  verdict,
  tone,
  details,
});

/** The verdict, its tone and details: what an answer says before who gave it. */
function verdictOf(record: AnswerRecord, proposal: Record<string, unknown>): Read {
  if (record.by === "expiry") return read("Expired", "no");
  if (record.status === "cancelled") return read("Cancelled", "no");
  const { payload } = record;
  const fields = asRecord(payload);
  if (!fields) return read("Answered", "ok", payload == null ? [] : [["Answer", asText(payload)]]);
  const reason = fields[DENY_REASON];
  if (fields.approved === false)
    return read("Denied", "no", typeof reason === "string" && reason ? [["Reason", reason]] : []);
  const details: Array<[string, string]> = [];
  for (const [key, value] of Object.entries(fields)) {
    const edits = key === EDIT_KEY ? asRecord(value) : undefined;
    if (edits) {
      // `editedArgs` replaces the arguments in full: name what differs from the proposal.
      const changes = Object.entries(edits)
        .filter(([k, v]) => !(k in proposal) || JSON.stringify(v) !== JSON.stringify(proposal[k]))
        .map(([k, v]) => `${k} ${asText(v)}`);
      if (changes.length) details.push(["Edited", changes.join(", ")]);
      continue;
    }
    const text = asText(value);
    // A label derived from the chosen time says the same thing twice: keep one.
    if (key !== "approved" && !details.some(([, shown]) => shown === text)) details.push([humanize(key), text]);
  }
  return read(fields.approved === true ? "Approved" : "Answered", "ok", details);
}

/** What a person said of a call that was in doubt. */
const SETTLED = { ran: "It had run: result recorded", not_run: "It had not run: running it now" };

/** How `record` reads; `proposal`, the call's arguments, tells an edit's changes from the rest. */
export function decisionOf(record: AnswerRecord, viewId?: string, proposal: unknown = undefined): Decision {
  const read = verdictOf(record, asRecord(proposal) ?? {});
  const settled = record.settled ? SETTLED[record.settled] : undefined;
  const verdict = settled ? `${read.verdict}. ${settled}` : read.verdict;
  return { ...read, verdict, by: answeredBy(record.by, viewId) };
}
