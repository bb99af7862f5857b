import { describe, expect, it } from "vitest";
import { answeredBy, answererWords } from "./summary";

describe("who answered", () => {
  it("names the person and the sidebar for an answer given in the server's sidebar", () => {
    expect(answererWords("sidebar:ann")).toBe("by ann in the sidebar");
    expect(answeredBy("sidebar:ann", "v1")).toBe("by ann in the sidebar");
  });

  it("keeps the other answerers' words", () => {
    expect(answererWords("view:x")).toBe("in the widget");
    expect(answererWords("python")).toBe("from Python");
    expect(answererWords("responder:approve_all")).toBe("by responder approve_all");
    expect(answererWords("sidebar:")).toBe("by sidebar:");
  });
});
