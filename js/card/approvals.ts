// What a call that needs several people shows on its card: "1 of 2 approvals: ann approved
// 10:02", who may still answer, and where it escalates. Read from the interrupt's
// `metadata.approvals`, which the adapter writes (`policy/quorum.py`, `Quorum.to_metadata`).

import { asRecord } from "../json";
import { localWords } from "./dates";

/** One person's vote, as the metadata carries it. */
interface ShownVote {
  name: string;
  at: string;
}

/** The lines the card draws, as text. */
export interface ApprovalsView {
  /** "1 of 2 approvals: ann approved 10:02". */
  progress: string;
  /** "Denied by bob 10:05" when a denial was counted but does not yet veto; else "". */
  denials: string;
  /** "May still answer: finance (not carl, ann)"; with `may_answer` empty (anyone may),
   * "Anyone may still answer (not carl, ann)". */
  who: string;
  /** "Escalated to cfo", "Escalates to cfo at 11:00", or "". */
  escalation: string;
}

export const APPROVALS_KEY = "approvals";

/** Whether the call waits for more than one approval. Python refuses an edit to such a call
 * (every approver approves the same call), so its card offers none. */
export function needsSeveral(metadata: Record<string, unknown> | undefined): boolean {
  const needed = asRecord(metadata?.[APPROVALS_KEY])?.needed;
  return typeof needed === "number" && needed > 1;
}

/** A list line's short progress for a call that needs several approvals ("1 of 2 approvals"),
 * or "" for one that needs one: the names and times are the card's. */
export function approvalCount(metadata: Record<string, unknown> | undefined): string {
  if (!needsSeveral(metadata)) return "";
  const shown = asRecord(metadata?.[APPROVALS_KEY]);
  return `${votes(shown?.given).length} of ${String(shown?.needed)} approvals`;
}

function votes(value: unknown): ShownVote[] {
  return (Array.isArray(value) ? value : []).flatMap((v) => {
    const vote = asRecord(v);
    return typeof vote?.name === "string" && typeof vote.at === "string" ? [{ name: vote.name, at: vote.at }] : [];
  });
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((s): s is string => typeof s === "string") : [];
}

/** An ISO instant as the viewer's clock reads it ("10:02"); the text itself if it is none. */
export const clockTime = (iso: string, timeZone?: string): string =>
  localWords(iso, { hour: "2-digit", minute: "2-digit", hour12: false, timeZone }, "en-GB");

/** The card's lines for an interrupt's metadata, or null when the call needs no people rule. */
export function approvalsOf(metadata: Record<string, unknown> | undefined, timeZone?: string): ApprovalsView | null {
  const shown = asRecord(metadata?.[APPROVALS_KEY]);
  const needed = shown?.needed;
  if (typeof needed !== "number") return null;
  const given = votes(shown?.given);
  const denied = votes(shown?.denied);
  const said = (list: ShownVote[], verb: string): string =>
    list.map((v) => `${v.name}${verb} ${clockTime(v.at, timeZone)}`).join(", ");
  const excluded = new Set([
    ...(typeof shown?.started_by === "string" && shown.self_approval !== true ? [shown.started_by] : []),
    ...[...given, ...denied].map((v) => v.name),
  ]);
  const may = strings(shown?.may_answer);
  const but = excluded.size ? ` (not ${[...excluded].join(", ")})` : "";
  const to = strings(shown?.escalated_to).join(", ");
  const at = shown?.escalates_at;
  return {
    progress: `${given.length} of ${needed} approval${needed === 1 ? "" : "s"}${given.length ? `: ${said(given, " approved")}` : ""}`,
    denials: denied.length ? `Denied by ${said(denied, "")}` : "",
    who: may.length ? `May still answer: ${may.join(", ")}${but}` : `Anyone may still answer${but}`,
    escalation: !to
      ? ""
      : shown?.escalated === true
        ? `Escalated to ${to}`
        : typeof at === "string"
          ? `Escalates to ${to} at ${clockTime(at, timeZone)}`
          : "",
  };
}
