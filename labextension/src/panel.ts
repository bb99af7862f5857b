// The sidebar: the inbox's own view (js/inbox) of the server's questions, a line saying why
// the list cannot be read when it cannot, and the count of questions waiting for this person
// on its tab (a badge drawn from `title.dataset` by style/index.css).

import { LabIcon } from "@jupyterlab/ui-components";
import { Widget } from "@lumino/widgets";
import { h, hide } from "../../js/dom";
import { type InboxControls, mountInbox } from "../../js/inbox/index";
import { forMe } from "../../js/inbox/people";
import type { Where } from "../../js/inbox/protocol";
import type { QuestionsModel } from "./http_model";

/** A speech bubble with a question mark, in the theme's icon colour. */
export const questionsIcon = new LabIcon({
  name: "interrupt-widget:questions",
  svgstr:
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" width="16"><path class="jp-icon3" fill="#616161" ' +
    'd="M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2zm7.1 11.5h1.8v-1.8h-1.8zm.9-9.3' +
    "a3.2 3.2 0 0 0-3.2 3.2h1.8a1.4 1.4 0 1 1 2.2 1.2c-.8.5-1.7 1.1-1.7 2.6h1.8c0-.8.4-1.1 1-1.5a3.2 3.2 0 0 0-1.9-5.5z" +
    '"/></svg>',
});

/** How many of the questions listed this person may answer now (the badge's count). */
export function waitingForMe(model: QuestionsModel): number {
  const now = Date.now();
  return model.items().filter((i) => forMe(i, now)).length;
}

export class QuestionsPanel extends Widget {
  private readonly unmount: () => void;
  private readonly stop: () => void;
  private controls: InboxControls | null = null;

  constructor(
    private readonly model: QuestionsModel,
    open: (where: Where) => void,
  ) {
    super();
    this.id = "interrupt-widget-questions";
    this.addClass("iw-lab-panel");
    this.title.icon = questionsIcon;
    this.title.caption = "Questions waiting";
    const problem = h("p", { class: "iw-lab-problem iw-hidden", role: "status" });
    const inbox = h("div", "iw-lab-inbox");
    this.node.append(h("h2", "iw-lab-heading", "Questions waiting"), problem, inbox);
    this.unmount = mountInbox(inbox, model as never, {
      open,
      rules: false,
      titleRank: 1,
      controls: (controls) => {
        this.controls = controls;
      },
    });
    const onProblem = (): void => {
      problem.textContent = model.problem();
      hide(problem, !model.problem());
    };
    const onItems = (): void => {
      const mine = waitingForMe(model);
      this.title.dataset = mine ? { "iw-count": String(mine) } : {};
      this.title.caption = `Questions waiting${mine ? ` (${mine} for you)` : ""}`;
    };
    model.on("change:problem", onProblem);
    model.on("change:items", onItems);
    this.stop = () => {
      model.off("change:problem", onProblem);
      model.off("change:items", onItems);
    };
  }

  /** Opens question `id` in the list; false when it is not (or not yet) there. */
  focusQuestion(id: string): boolean {
    return this.controls?.focus(id) ?? false;
  }

  override dispose(): void {
    if (this.isDisposed) return;
    this.stop();
    this.unmount();
    this.model.dispose();
    super.dispose();
  }
}
