// The kit's JupyterLab extension: a sidebar listing every question waiting on the Jupyter
// server (the inbox's own view over the server's HTTP API), a badge with the count waiting
// for this person, JupyterLab notifications, the command that opens it, and the page URL's
// `?interrupt-widget=<id>` (where a webhook's link lands) opening the sidebar at that
// question. Works in JupyterLab 4 and Notebook 7 (where a top-bar button carries the count);
// the lab-only pieces are optional.

import "../../js/theme.css";
import "../../js/card/card.css";
import "../../js/inbox/style.css";
import "./panel.css";
import { ILayoutRestorer, type JupyterFrontEnd, type JupyterFrontEndPlugin } from "@jupyterlab/application";
import { ICommandPalette } from "@jupyterlab/apputils";
import { URLExt } from "@jupyterlab/coreutils";
import { IDocumentManager } from "@jupyterlab/docmanager";
import { ServerConnection } from "@jupyterlab/services";
import { type QuestionsModel, questionsModel } from "./http_model";
import { QuestionsIndicator } from "./indicator";
import { announce } from "./notifications";
import { openWhere } from "./open_where";
import { QuestionsPanel } from "./panel";

const COMMAND = "interrupt-widget:open-questions";
const URL_PARAMETER = "interrupt-widget";
/** Notebook 7's application name: its side panels have no tab bar to carry the badge. */
const NOTEBOOK_7 = "Jupyter Notebook";

function activate(
  app: JupyterFrontEnd,
  documents: IDocumentManager | null,
  palette: ICommandPalette | null,
  restorer: ILayoutRestorer | null,
): void {
  const settings = app.serviceManager.serverSettings;
  const model = questionsModel({
    request: (path, init) => ServerConnection.makeRequest(URLExt.join(settings.baseUrl, path), init, settings),
  });
  const panel = new QuestionsPanel(model, (where) => {
    if (documents) void openWhere(documents, where);
  });
  app.shell.add(panel, "left", { rank: 900 });
  restorer?.add(panel, panel.id);

  const open = (id: string | null): void => {
    app.shell.activateById(panel.id);
    if (id) focusWhenListed(model, panel, id);
  };
  app.commands.addCommand(COMMAND, {
    label: "Questions Waiting",
    caption: "Open the list of questions waiting on this server",
    execute: (args) => open(typeof args.id === "string" ? args.id : null),
  });
  palette?.addItem({ command: COMMAND, category: "Interrupt Widget" });
  const stopAnnouncing = announce(model, open);
  panel.disposed.connect(stopAnnouncing);
  if (app.name === NOTEBOOK_7) app.shell.add(new QuestionsIndicator(model, () => open(null)), "top", { rank: 900 });

  const asked = new URL(window.location.href).searchParams.get(URL_PARAMETER);
  if (asked === null) return;
  void afterLayout(app).then(() => {
    open(asked || null);
    forgetParameter();
  });
}

/** Once the shell has restored its layout: a task after `restored`, since Notebook 7 collapses
 * its side panels (single-document mode) in a handler of `restored` that runs after ours. */
async function afterLayout(app: JupyterFrontEnd): Promise<void> {
  await app.restored;
  await new Promise((settled) => setTimeout(settled, 0));
}

/** Opens question `id` in the panel once the list holds it (at once when it does). */
function focusWhenListed(model: QuestionsModel, panel: QuestionsPanel, id: string): void {
  if (panel.focusQuestion(id)) return;
  const retry = (): void => {
    if (panel.focusQuestion(id)) model.off("change:items", retry);
  };
  model.on("change:items", retry);
}

/** Takes `?interrupt-widget=` out of the address bar, so a reload does not open it again. */
function forgetParameter(): void {
  const url = new URL(window.location.href);
  url.searchParams.delete(URL_PARAMETER);
  window.history.replaceState(window.history.state, "", url.toString());
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: "interrupt-widget-lab:questions",
  description: "Every question waiting on the Jupyter server, in a sidebar and in notifications.",
  autoStart: true,
  optional: [IDocumentManager, ICommandPalette, ILayoutRestorer],
  activate,
};

export default plugin;
