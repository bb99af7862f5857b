// `mountPicker`: binds one picker model to one element. Works as a widget view
// of its own and embedded in another widget (the chat passes the picker's own
// model, obtained from the widget manager). Returns the cleanup.

import type { AnyModel } from "@anywidget/types";
import { type AnswerResultMessage, type ModuleLoader, newViewId } from "../card";
import { listen, replies, ticker } from "../model_binding";
import { answerMessage, parseAnswerResult, settleMessage } from "./protocol";
import { initialState, type ModelState, type PickerEvent, type PickerState, reduce, viewOf } from "./state";
import type { PickerModel } from "./types";
import { createPickerDom } from "./view";

export type { AnswerMessage } from "./protocol";
export { initialState, reduce, viewOf } from "./state";
export type { PickerModel, PickerStatus, ToolCallOf } from "./types";

export interface MountOptions {
  /** Replaces the Blob-URL import of custom renderers (tests). */
  loader?: ModuleLoader;
}

/** The traits the picker draws from, each with its value before Python sets it. */
const DEFAULTS: ModelState = {
  interrupts: [],
  answers: {},
  status: "waiting",
  error: "",
  errors: {},
  renderers: {},
  calls: {},
  doubts: {},
  run_link: "",
};
const TRAITS = Object.keys(DEFAULTS) as Array<keyof ModelState>;

function readModel(model: AnyModel<PickerModel>): ModelState {
  return Object.fromEntries(TRAITS.map((name) => [name, model.get(name) ?? DEFAULTS[name]])) as ModelState;
}

export function mountPicker(el: HTMLElement, model: AnyModel<PickerModel>, options: MountOptions = {}): () => void {
  const viewId = newViewId();
  let state: PickerState = initialState(readModel(model), Date.now(), viewId);
  const waiting = replies<AnswerResultMessage>();
  const tick = (): void => dispatch({ type: "tick", now: Date.now() });
  const clock = ticker(tick);
  const dispatch = (event: PickerEvent): void => {
    state = reduce(state, event);
    const view = viewOf(state);
    dom.update(view);
    clock(view.ticking);
  };

  const send = (interruptId: string, message: { requestId: string }): Promise<AnswerResultMessage> => {
    const reply = waiting.wait(message.requestId);
    dispatch({ type: "sent", interruptId, requestId: message.requestId });
    model.send(message);
    return reply;
  };
  const dom = createPickerDom(
    el,
    {
      answer(interruptId, status, payload) {
        return send(interruptId, answerMessage(interruptId, status, payload, viewId));
      },
      settle(interruptId, ran, output) {
        return send(interruptId, settleMessage(interruptId, ran, output, viewId));
      },
      checked(interruptId, errors) {
        dispatch({ type: "checked", interruptId, errors });
      },
    },
    options,
  );

  const onModel = (): void => dispatch({ type: "model", model: readModel(model) });
  const onCustom = (message: unknown): void => {
    const reply = parseAnswerResult(message);
    if (!reply) return;
    dispatch({ type: "reply", reply });
    waiting.settle(reply.requestId, reply);
  };
  const stop = listen(model, [
    ...TRAITS.map((name): [string, () => void] => [`change:${name}`, onModel]),
    ["msg:custom", onCustom],
  ]);
  tick();

  return () => {
    stop();
    clock(false);
    dom.destroy();
  };
}
