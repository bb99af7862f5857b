// JupyterLab's notifications for the questions notice_rules.ts picks: each with "Open" (the
// sidebar, at the question) and, where one click is a whole answer, "Approve", which answers
// through the same request as the sidebar and then tells the verdict (a refusal as an error).
// A question answered or gone takes its notices with it. The tab's title and the desktop
// notifications (for those who opted in) are the inbox's own (js/inbox/notices.ts).

import { Notification } from "@jupyterlab/apputils";
import type { Item } from "../../js/inbox/protocol";
import type { QuestionsModel } from "./http_model";
import { decide, type Notice, nextCheck, noMemory } from "./notice_rules";

/** Opens the sidebar, at question `id` when one is given. */
export type OpenQuestion = (id: string | null) => void;

/** Announces the questions of `model` as they come; returns what stops announcing. */
export function announce(model: QuestionsModel, open: OpenQuestion): () => void {
  let memory = noMemory();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const shown = new Map<string, string[]>();
  const keep = (itemId: string | null, notificationId: string): void => {
    if (itemId) shown.set(itemId, [...(shown.get(itemId) ?? []), notificationId]);
  };

  const check = (): void => {
    clearTimeout(timer);
    const now = Date.now();
    const items = model.items();
    const decided = decide(memory, items, now);
    memory = decided.memory;
    for (const id of decided.gone) {
      for (const notificationId of shown.get(id) ?? []) Notification.dismiss(notificationId);
      shown.delete(id);
    }
    for (const notice of decided.notices) keep(notice.itemId, show(notice, model, open));
    const wait = nextCheck(memory, items, now);
    if (wait !== null) timer = setTimeout(check, wait + 100);
  };
  model.on("change:items", check);
  return () => {
    clearTimeout(timer);
    model.off("change:items", check);
  };
}

/** Shows one notice; returns its notification's id. */
function show(notice: Notice, model: QuestionsModel, open: OpenQuestion): string {
  const actions: Notification.IAction[] = [{ label: "Open", callback: () => open(notice.itemId) }];
  const item = model.items().find((i) => i.id === notice.itemId);
  if (notice.approve && item) {
    actions.push({
      label: "Approve",
      caption: 'Answer {"approved": true}',
      displayType: "accent",
      callback: () => void approve(item, model),
    });
  }
  return Notification.emit(notice.message, notice.type, { actions, autoClose: notice.autoClose });
}

/** Approves one question and tells what the server said. */
async function approve(item: Item, model: QuestionsModel): Promise<void> {
  const [result] = await model.answer([item.id], "resolved", { approved: true });
  const name = `${item.tool} (${item.key})`;
  if (result?.ok) Notification.success(`${name}: ${result.verdict || "answered"}.`, { autoClose: 5000 });
  else Notification.error(`${name} was not approved: ${result?.error || "no reply from the server"}`);
}
