// Telling Python that a front end holds a widget's model, so a person could answer it.
// anywidget runs a bundle's `initialize` once per model, as the widget manager creates it
// when its comm opens, shown or not; so even a widget never displayed says so. nbval,
// nbclient, papermill and nbconvert create no model and say nothing: Python then fails a
// wait nobody can answer (UnattendedWait) instead of hanging. Every widget of the kit sends
// it; mirrors `interrupt_widget/widgets/attendance.py`. A custom message, never a trait
// saved (ipykernel 7.4 stalls a widget's later saves).

import type { AnyModel } from "@anywidget/types";

/** JS -> Python, once per model: a front end created it. */
export interface AttachedMessage {
  type: "attached";
}

export const attachedMessage = (): AttachedMessage => ({ type: "attached" });

/** anywidget's `initialize` for every widget of the kit: announce this front end. */
export function initialize({ model }: { model: Pick<AnyModel, "send"> }): void {
  model.send(attachedMessage());
}
