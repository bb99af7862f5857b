// Notebook 7 shows its side panels without a tab bar, so the sidebar's badge has nowhere to be
// seen there: a button in its top bar carries the count of questions waiting for this person
// and opens the sidebar. JupyterLab has the badge on the sidebar's tab and needs no button.

import { Widget } from "@lumino/widgets";
import type { QuestionsModel } from "./http_model";
import { waitingForMe } from "./panel";

export class QuestionsIndicator extends Widget {
  private readonly stop: () => void;

  constructor(model: QuestionsModel, open: () => void) {
    const button = document.createElement("button");
    button.type = "button";
    super({ node: button });
    this.id = "interrupt-widget-indicator";
    this.addClass("iw-lab-indicator");
    button.addEventListener("click", open);
    const onItems = (): void => {
      const mine = waitingForMe(model);
      button.textContent = `${mine} question${mine === 1 ? "" : "s"} waiting for you`;
      button.title = "Open the list of questions waiting on this server";
      this.setHidden(mine === 0);
    };
    onItems();
    model.on("change:items", onItems);
    this.stop = () => model.off("change:items", onItems);
  }

  override dispose(): void {
    if (this.isDisposed) return;
    this.stop();
    super.dispose();
  }
}
