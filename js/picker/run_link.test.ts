import { describe, expect, it } from "vitest";
import { pickerModel } from "../testing/fake_model";
import { cardIn, pickerHost, SEND_INVOICE } from "../testing/picker_host";

const call = SEND_INVOICE;
const UI = 'http://127.0.0.1:8233/namespaces/default/workflows?query=WorkflowId%3D%22thread-1%22"><b>x</b>';

const host = pickerHost();
const linkOf = (): HTMLElement => cardIn(host.el, "i1").querySelector(".iw-run-link") as HTMLElement;

describe("the link to the conversation's runs", () => {
  it("is an anchor to the http(s) URL, opening a new tab, its label as text", () => {
    host.mount(pickerModel([call], { run_link: UI }));
    const anchors = linkOf().querySelectorAll("a");
    expect(anchors).toHaveLength(1);
    const [anchor] = anchors;
    expect(anchor?.textContent).toBe("Open in Temporal");
    expect(anchor?.getAttribute("href")).toBe(new URL(UI).href);
    expect(anchor?.getAttribute("target")).toBe("_blank");
    expect(anchor?.getAttribute("rel")?.split(" ")).toContain("noopener");
    expect(linkOf().querySelector("b")).toBeNull();
  });

  it("is no link at all for a javascript: or relative URL: the text shows, nothing is clickable", () => {
    for (const url of ["javascript:alert(1)", " JavaScript:alert(1)", "data:text/html,<b>x</b>", "/relative"]) {
      const model = pickerModel([call], { run_link: url });
      host.mount(model);
      const link = cardIn(host.el, "i1").querySelector(".iw-run-link") as HTMLElement;
      expect(link.querySelector("a")).toBeNull();
      expect(link.querySelector("[href]")).toBeNull();
      expect(link.querySelector("b")).toBeNull();
      expect(link.textContent).toBe(`Open in Temporal: ${url}`);
      host.el.replaceChildren();
    }
  });

  it("is not drawn without one, and follows the model when it comes later", () => {
    const model = pickerModel([call]);
    host.mount(model);
    expect(linkOf().classList.contains("iw-hidden")).toBe(true);
    expect(linkOf().querySelector("a")).toBeNull();
    model.set("run_link", "https://temporal.example/namespaces/default/workflows");
    expect(linkOf().classList.contains("iw-hidden")).toBe(false);
    expect(linkOf().querySelector("a")?.href).toBe("https://temporal.example/namespaces/default/workflows");
  });
});
