// Opening where a question waits: its notebook, with the cell that asked selected and scrolled
// into view (the cell whose model id is `where.cellId`). In Notebook 7 the document manager
// opens the notebook in its own browser tab, where this page cannot reach the cell.

import type { IDocumentManager } from "@jupyterlab/docmanager";
import { NotebookPanel } from "@jupyterlab/notebook";
import type { Where } from "../../js/inbox/protocol";

export async function openWhere(documents: IDocumentManager, where: Where): Promise<void> {
  if (!where.path) return;
  const widget = documents.openOrReveal(where.path);
  if (!(widget instanceof NotebookPanel) || !where.cellId) return;
  await widget.context.ready;
  await widget.revealed;
  const notebook = widget.content;
  const index = notebook.widgets.findIndex((cell) => cell.model.id === where.cellId);
  const cell = notebook.widgets[index];
  if (!cell) return;
  notebook.activeCellIndex = index;
  await notebook.scrollToCell(cell, "center");
}
