// Each bundle's `initialize` tells Python a front end holds the model, before and without
// any view: anywidget calls it once per model as the widget manager creates it.
import { describe, expect, it, vi } from "vitest";
import inboxBundle from "./inbox/widget";
import { FakeModel } from "./testing/fake_model";
import bundle from "./widget";

const initializeProps = (model: FakeModel) =>
  ({ model, signal: new AbortController().signal, experimental: {} }) as unknown as Parameters<
    NonNullable<typeof bundle.initialize>
  >[0];

describe("the front end announces itself", () => {
  for (const [name, entry] of [
    ["the chat and picker bundle", bundle],
    ["the inbox bundle", inboxBundle],
  ] as const) {
    it(`${name} sends {type: "attached"} from initialize, with no view drawn`, () => {
      const model = new FakeModel({});
      const get = vi.spyOn(model, "get");
      const before = document.body.innerHTML;
      entry.initialize(initializeProps(model));
      expect(model.sent).toEqual([{ type: "attached" }]);
      expect(get).not.toHaveBeenCalled(); // initialize reads no trait: it runs before any view draws
      expect(document.body.innerHTML).toBe(before);
    });
  }
});
