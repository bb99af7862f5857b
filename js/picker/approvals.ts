// What a call that needs several people shows on its card: "1 of 2 approvals: ann approved
// 10:02", who may still answer, and where it escalates. Read from the interrupt's
// `metadata.approvals`, which the adapter writes (`policy/people.py`, `Quorum.to_metadata`).

import { asRecord } from "../json";

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
  /** "May still answer: finance (not carl, ann)", or "Anyone but carl, ann may still answer". */
  who: string;
  /** "Escalated to cfo", "Escalates to cfo at 11:00", or "". */
  escalation: string;
}

export const APPROVALS_KEY = "approvals";

function votes(value: unknown): ShownVote[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((v) => {
    const vote = asRecord(v);
    return vote && typeof vote.name === "string" && typeof vote.at === "string"
      ? [{ name: vote.name, at: vote.at }]
      : [];
  });
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((s): s is string => typeof s === "string") : [];
}

/** An ISO instant as the viewer's clock reads it ("10:02"); the text itself if it is none. */
export function clockTime(iso: string, timeZone?: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return at.toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit", hour12: false, timeZone });
}

/** The card's lines for an interrupt's metadata, or null when the call needs no people rule. */
export function approvalsOf(metadata: Record<string, unknown> | undefined, timeZone?: string): ApprovalsView | null {
  const shown = asRecord(metadata?.[APPROVALS_KEY]);
  if (!shown || typeof shown.needed !== "number") return null;
  const needed = shown.needed;
  const given = votes(shown.given);
  const denied = votes(shown.denied);
  const said = (v: ShownVote, verb: string): string => `${v.name} ${verb} ${clockTime(v.at, timeZone)}`;
  const noun = needed === 1 ? "approval" : "approvals";
  const progress =
    `${given.length} of ${needed} ${noun}` +
    (given.length ? `: ${given.map((v) => said(v, "approved")).join(", ")}` : "");
  const denials = denied.length
    ? `Denied by ${denied.map((v) => `${v.name} ${clockTime(v.at, timeZone)}`).join(", ")}`
    : "";
  const excluded = [
    ...(typeof shown.started_by === "string" && shown.self_approval !== true ? [shown.started_by] : []),
    ...given.map((v) => v.name),
    ...denied.map((v) => v.name),
  ].filter((name, i, all) => all.indexOf(name) === i);
  const may = strings(shown.may_answer);
  const but = excluded.length ? ` (not ${excluded.join(", ")})` : "";
  const who = may.length ? `May still answer: ${may.join(", ")}${but}` : `Anyone may still answer${but}`;
  const to = strings(shown.escalated_to);
  let escalation = "";
  if (to.length && shown.escalated === true) escalation = `Escalated to ${to.join(", ")}`;
  else if (to.length && typeof shown.escalates_at === "string")
    escalation = `Escalates to ${to.join(", ")} at ${clockTime(shown.escalates_at, timeZone)}`;
  return { progress, denials, who, escalation };
}
