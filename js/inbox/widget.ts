// The inbox's own bundle entry: only the inbox and the picker card it reuses,
// so a page with pickers and chats alone never loads it. Its stylesheet adds
// the card's rules to the inbox's own; `initialize` tells Python a front end
// holds the model (attached.ts).

import "../picker/style.css";
import "./style.css";
import type { AnyModel, RenderProps } from "@anywidget/types";
import { initialize } from "../attached";
import { type InboxModel, mountInbox } from "./index";

function render({ model, el }: RenderProps): () => void {
  return mountInbox(el, model as unknown as AnyModel<InboxModel>);
}

export default { initialize, render };
