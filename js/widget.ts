// The bundle's entry: one ES module for every widget of the kit, dispatching on
// the model's `kind` trait to the view that draws it; `initialize` tells Python a
// front end holds the model (attached.ts). The stylesheets imported
// here become `static/widget.css`, which anywidget's `_css` loads: into the
// document in JupyterLab, into the widget's shadow root in marimo. They come
// first, so the Markdown replies' rules (chat/markdown.css) follow them: the
// theme, the picker's own rules, the card's (shared with the inbox), the chat's.

import "./theme.css";
import "./picker/style.css";
import "./card/card.css";
import "./chat/style.css";
import type { AnyModel, RenderProps } from "@anywidget/types";
import { initialize } from "./attached";
import { type ChatModel, mountChat } from "./chat/index";
import { mountPicker, type PickerModel } from "./picker/index";

function render({ model, el }: RenderProps): () => void {
  const kind = model.get("kind");
  if (kind === "picker") return mountPicker(el, model as unknown as AnyModel<PickerModel>);
  if (kind === "chat") return mountChat(el, model as unknown as AnyModel<ChatModel>);
  el.textContent = `interrupt-widget: unknown widget kind ${JSON.stringify(kind)}`;
  return () => {
    el.textContent = "";
  };
}

export default { initialize, render };
