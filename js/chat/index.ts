// The chat front end: binds a chat model to the view. Pure logic lives in
// transcript.ts, DOM in view.ts; this file only wires model events to them.

import type { AnyModel } from "@anywidget/types";
import { asRecord } from "../json";
import { listen } from "../model_binding";
import { mountPicker, type PickerModel } from "../picker/index";

import { type ChatModel, isToFrontEnd, promptMessage, type ToKernel, type WireMessage } from "./protocol";
import { emptyTranscript, fromMessages, reduce, type Transcript } from "./transcript";
import { type ChatView, createChatView } from "./view";

export type { ChatModel } from "./protocol";

/** Mounts a picker bound to its own model (the picker's `mountPicker`). */
export type PickerMounter = (
  el: HTMLElement,
  model: AnyModel,
  // biome-ignore lint/suspicious/noConfusingVoidType: a mounter may return nothing, as anywidget's render may
) => (() => void) | void;

export interface MountChatOptions {
  /** Draws the inline picker in place of the picker's own `mountPicker` (tests). */
  mountPicker?: PickerMounter;
}

const mountOwnPicker: PickerMounter = (el, model) => mountPicker(el, model as unknown as AnyModel<PickerModel>);

/** The model id inside a widget reference (`"IPY_MODEL_<id>"`), or null. */
export function pickerModelId(ref: unknown): string | null {
  if (typeof ref !== "string" || !ref) return null;
  return ref.replace(/^IPY_MODEL_/, "");
}

/** The tool call ids of a picker's interrupts (its `interrupts` trait, camelCase). */
export function toolCallIdsOf(interrupts: unknown): string[] {
  if (!Array.isArray(interrupts)) return [];
  return interrupts.map((i: unknown) => asRecord(i)?.toolCallId).filter((id): id is string => typeof id === "string");
}

export function mountChat(el: HTMLElement, model: AnyModel<ChatModel>, options: MountChatOptions = {}): () => void {
  const send = (msg: ToKernel): void => model.send(msg);
  const view = createChatView(el, {
    prompt(text: string): void {
      send(promptMessage(text));
    },
    stop(): void {
      send({ type: "stop" });
    },
  });

  const committed = (): Transcript => ({
    ...emptyTranscript,
    items: fromMessages((model.get("messages") ?? []) as WireMessage[]),
  });
  let transcript = committed();
  const draw = (): void =>
    view.draw({
      transcript,
      status: model.get("status") ?? "idle",
      statusLine: model.get("status_line") ?? "",
    });

  const onMessages = (): void => {
    // Python commits messages only between runs, after the run's last batch.
    transcript = committed();
    draw();
  };
  const onCustom = (msg: unknown): void => {
    if (!isToFrontEnd(msg)) return;
    if (msg.type === "prompt_result") {
      if (!msg.ok && msg.error) view.notice(msg.error);
      return;
    }
    // A batch continues the run drawn so far; a catch-up replaces it.
    transcript = msg.events.reduce(reduce, msg.type === "events" ? transcript : committed());
    draw();
  };

  const picker = followPicker(model, view, options.mountPicker ?? mountOwnPicker);
  const stop = listen(model, [
    ["change:messages", onMessages],
    ["change:status", draw],
    ["change:status_line", draw],
    ["change:picker", picker.follow],
    ["msg:custom", onCustom],
  ]);
  draw();
  picker.follow();
  send({ type: "hello" }); // a view opened mid-run asks for the run so far

  return () => {
    stop();
    picker.stop();
    view.destroy();
  };
}

/**
 * Mounts the picker the chat's `picker` trait names into the view's slot, and follows it:
 * a newer picker replaces the one mounted, and the transcript anchors to its interrupts.
 */
function followPicker(
  model: AnyModel<ChatModel>,
  view: ChatView,
  mount: PickerMounter,
): { follow: () => void; stop: () => void } {
  let cleanup: (() => void) | undefined;
  let generation = 0;
  const unmount = (): void => {
    cleanup?.();
    cleanup = undefined;
  };
  const follow = (): void => {
    generation += 1;
    const mine = generation;
    unmount();
    view.pickerSlot.replaceChildren();
    view.anchorPicker([]);
    const id = pickerModelId(model.get("picker"));
    if (!id) return;
    void model.widget_manager.get_model(id).then(
      (pickerModel) => {
        if (mine !== generation) return; // a newer picker replaced this one
        // The chat keeps one picker and resets it for each question: follow its interrupts.
        const anchor = (): void => view.anchorPicker(toolCallIdsOf(pickerModel.get("interrupts")));
        anchor();
        const unmountPicker = mount(view.pickerSlot, pickerModel);
        pickerModel.on("change:interrupts", anchor);
        cleanup = () => {
          pickerModel.off("change:interrupts", anchor);
          unmountPicker?.();
        };
      },
      () => {
        if (mine === generation) view.notice("The picker for this run could not be loaded.");
      },
    );
  };
  return {
    follow,
    stop(): void {
      generation += 1;
      unmount();
    },
  };
}
