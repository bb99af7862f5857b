// The inbox's own bundle entry: only the inbox and the card it shares with the picker,
// so a page with pickers and chats alone never loads it. Its stylesheet is the
// theme's (colours, form controls and buttons, as the picker's), the card's rules and
// the inbox's own; `initialize` tells Python a front end holds the model (attached.ts).

import "../theme.css";
import "../card/card.css";
import "./style.css";
import type { AnyModel, RenderProps } from "@anywidget/types";
import { initialize } from "../attached";
import { type InboxModel, mountInbox } from "./index";

function render({ model, el }: RenderProps): () => void {
  return mountInbox(el, model as unknown as AnyModel<InboxModel>);
}

export default { initialize, render };
