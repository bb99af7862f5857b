// The question card both widgets draw: the picker one per interrupt, the inbox (and the
// JupyterLab sidebar through it) for the opened call. Its form comes from the interrupt's
// JSON schema, or from a custom renderer; its stylesheet is `card.css`, which each bundle
// imports. The picker and the inbox import the card from here.

export { approvalCount } from "./approvals";
export { buildCard, type Card, type CardContext, type ViewActions } from "./card_dom";
export type { CardPhase, CardView } from "./card_view";
export { denial } from "./collect";
export { formatRemaining, remainingMs } from "./countdown";
export { type AnswerResultMessage, newRequestId, newViewId, type Settle, settle } from "./protocol";
export type { ModuleLoader, RendererProps, RenderFn } from "./renderers";
export { answererWords, type Decision, decisionOf } from "./summary";
export type { AnswerRecord, AnswerStatus, FieldError, JsonSchema, WireInterrupt } from "./types";
