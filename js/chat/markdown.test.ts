// Agent replies as Markdown: the common forms, and hostile strings that must
// stay inert (no script, no javascript: link, no image fetched, no raw HTML).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { renderMarkdown } from "./markdown";

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.appendChild(root);
});
afterEach(() => root.remove());

const draw = (text: string): HTMLElement => {
  renderMarkdown(root, text);
  return root;
};

describe("Markdown replies", () => {
  it("draws emphasis, strong, inline code and paragraphs", () => {
    draw("Hello *there* and **you**, run `ls`.\n\nSecond paragraph.");
    expect([...root.children].map((c) => c.tagName)).toEqual(["P", "P"]);
    expect(root.querySelector("em")?.textContent).toBe("there");
    expect(root.querySelector("strong")?.textContent).toBe("you");
    expect(root.querySelector("code")?.textContent).toBe("ls");
  });

  it("draws lists, numbered lists and fenced code", () => {
    draw("- one\n- two\n\nThen:\n\n1. first\n2. second\n\n```python\nprint('<b>')\n```\n");
    expect([...root.querySelectorAll("ul > li")].map((li) => li.textContent)).toEqual(["one", "two"]);
    expect([...root.querySelectorAll("ol > li")].map((li) => li.textContent)).toEqual(["first", "second"]);
    expect(root.querySelector("pre > code")?.textContent).toBe("print('<b>')");
    expect(root.querySelector("b")).toBeNull();
  });

  it("makes an http(s) link a link that opens apart", () => {
    draw("See [the docs](https://example.org/a?b=1) or http://example.com/x");
    const links = [...root.querySelectorAll("a[href]")];
    expect(links.map((a) => a.getAttribute("href"))).toEqual(["https://example.org/a?b=1", "http://example.com/x"]);
    expect(links[0]?.textContent).toBe("the docs");
    expect(links[0]?.getAttribute("rel")).toBe("noopener noreferrer nofollow");
  });

  it("leaves identifiers, arithmetic and unclosed markers as written", () => {
    draw("Call snake_case_name with 2 * 3 and an unclosed **star");
    expect(root.textContent).toBe("Call snake_case_name with 2 * 3 and an unclosed **star");
    expect(root.querySelectorAll("em, strong")).toHaveLength(0);
    draw("__strong__ as CommonMark reads it");
    expect(root.querySelector("strong")?.textContent).toBe("strong");
    draw("window['__a'] = 1 and window['__b'] = 2");
    expect(root.textContent).toBe("window['__a'] = 1 and window['__b'] = 2");
  });

  it("redraws the whole reply as it grows", () => {
    draw("**bo");
    draw("**bold** done");
    expect(root.querySelector("strong")?.textContent).toBe("bold");
    expect(root.textContent).toBe("bold done");
  });
});

describe("hostile replies stay inert", () => {
  it("keeps javascript:, data: and other non-http links as text, with no href", () => {
    draw("[click](javascript:alert(1)) [d](data:text/html,<script>x</script>) [v](vbscript:x) [r](/relative)");
    expect(root.querySelectorAll("a[href]")).toHaveLength(0);
    expect(root.textContent).toContain("click");
  });

  it("never loads an image: its alt text stands in its place", () => {
    draw("![a cat](https://example.org/cat.png) ![x](javascript:alert(1))");
    expect(root.querySelectorAll("img")).toHaveLength(0);
    const images = [...root.querySelectorAll(".iw-md-image")];
    expect(images.map((i) => i.textContent)).toEqual(["a cat", "x"]);
    expect(images[0]?.getAttribute("title")).toBe("Image not loaded: https://example.org/cat.png");
  });

  it("shows raw HTML as the text it is", () => {
    const hostile =
      '<script>window.pwned = 1</script> <img src=x onerror="window.pwned = 1"> <iframe src="https://example.org">';
    draw(hostile);
    expect(root.querySelectorAll("script, img, iframe")).toHaveLength(0);
    expect(root.textContent).toContain("<script>window.pwned = 1</script>");
    expect(root.textContent).toContain('onerror="window.pwned = 1"');
  });

  it("shows HTML entities as written, never decoded into markup", () => {
    draw("&lt;b&gt;bold&lt;/b&gt; &amp; &#60;i&#62;");
    expect(root.querySelectorAll("b, i")).toHaveLength(0);
    expect(root.textContent).toBe("&lt;b&gt;bold&lt;/b&gt; &amp; &#60;i&#62;");
  });

  it("keeps an attribute-breaking URL out of the href", () => {
    draw('[x](https://example.org/" onmouseover="alert(1))');
    for (const a of root.querySelectorAll("a")) expect(a.getAttribute("onmouseover")).toBeNull();
  });
});
