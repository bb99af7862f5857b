// Each bundle's `initialize` tells Python a front end holds the model, before and without
// any view: anywidget calls it once per model as the widget manager creates it.
import { describe, expect, it } from "vitest";
import inboxBundle from "./inbox/widget";
import bundle from "./widget";

class SendOnlyModel {
  sent: unknown[] = [];
  send(content: unknown): void {
    this.sent.push(content);
  }
  get(): never {
    throw new Error("initialize reads no trait: it runs before any view draws");
  }
}

const initializeProps = (model: SendOnlyModel) =>
  ({ model, signal: new AbortController().signal, experimental: {} }) as unknown as Parameters<
    NonNullable<typeof bundle.initialize>
  >[0];

describe("the front end announces itself", () => {
  for (const [name, entry] of [
    ["the chat and picker bundle", bundle],
    ["the inbox bundle", inboxBundle],
  ] as const) {
    it(`${name} sends {type: "attached"} from initialize, with no view drawn`, () => {
      const model = new SendOnlyModel();
      const before = document.body.innerHTML;
      entry.initialize(initializeProps(model));
      expect(model.sent).toEqual([{ type: "attached" }]);
      expect(document.body.innerHTML).toBe(before);
    });
  }
});
