// An agent's reply as Markdown, drawn into DOM nodes one by one: the parser
// (@khanacademy/simple-markdown) gives a syntax tree, and this renderer builds
// elements with createElement and text with text nodes, never HTML. Raw HTML in
// a reply stays text; a link gets its href only when it is an http(s) URL; an
// image is never loaded: its alt text stands in its place.

import SimpleMarkdown, { type SingleASTNode } from "@khanacademy/simple-markdown";
import { type AttrMap, h } from "../dom";
import { str as text } from "../json";
import "./markdown.css";

type Tag = keyof HTMLElementTagNameMap;

/** Nodes drawn as one element around their `content`. */
const WRAPPERS: Record<string, Tag> = {
  paragraph: "p",
  blockQuote: "blockquote",
  em: "em",
  strong: "strong",
  u: "strong", // `__x__`: CommonMark's strong, not an underline
  del: "s",
  inlineCode: "code",
};

/** Only these link targets become links; `javascript:`, `data:`, `mailto:` and the rest stay text. */
const SAFE_URL = /^https?:\/\/\S+$/i;

/** `content` drawn inside a new `tag`: text as a text node, a list of nodes one by one. */
function wrap(tag: Tag, content: unknown, attrs: AttrMap = {}): HTMLElement {
  const children = Array.isArray(content) ? (content as SingleASTNode[]).map((node) => draw(node)) : [text(content)];
  return h(tag, attrs, ...children);
}

/** The parts of a table row or a list, as the parser gives them. */
const parts = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function draw(node: SingleASTNode): Node {
  switch (node.type) {
    case "text":
      return document.createTextNode(text(node.content));
    case "heading":
      return wrap(`h${Math.min(Math.max(Number(node.level) || 1, 1), 6)}` as Tag, node.content);
    case "codeBlock":
      return h("pre", {}, wrap("code", text(node.content)));
    case "list": {
      const start = node.ordered && Number.isInteger(node.start) && node.start !== 1 ? Number(node.start) : undefined;
      const items = parts(node.items).map((item) => wrap("li", item));
      return h(node.ordered ? "ol" : "ul", { start }, ...items);
    }
    case "table": {
      const row = (cells: unknown, tag: "th" | "td"): HTMLElement =>
        h("tr", {}, ...parts(cells).map((cell) => wrap(tag, cell)));
      const body = parts(node.cells).map((cells) => row(cells, "td"));
      return h("table", {}, h("thead", {}, row(node.header, "th")), h("tbody", {}, ...body));
    }
    case "link":
    case "url":
    case "autolink": {
      const href = text(node.target);
      if (!SAFE_URL.test(href)) return wrap("span", node.content);
      return wrap("a", node.content, { href, target: "_blank", rel: "noopener noreferrer nofollow" });
    }
    case "image":
      return wrap("span", text(node.alt), {
        class: "iw-md-image",
        title: `Image not loaded: ${text(node.target)}`,
      });
    case "br":
    case "hr":
      return document.createElement(node.type);
    case "newline":
      return document.createTextNode("\n");
    default: {
      const tag = WRAPPERS[node.type];
      // Anything else (a definition, a mailto link) shows what it holds, as text.
      return tag ? wrap(tag, node.content) : wrap("span", node.content ?? text(node.target));
    }
  }
}

const { defaultRules, inlineRegex, parserFor } = SimpleMarkdown;

// `__x__` is strong as CommonMark reads it: not where the closing `__` runs on
// into a word, as in a quoted `window.__x = 1; window.__y`, which stays text.
const u = { ...defaultRules.u, match: inlineRegex(/^__(?=\S)([\s\S]*?\S)__(?!\w)/) };
// The default rules, as the library's own parser takes them (their `Array` entry is an output rule).
const parse = parserFor({ ...defaultRules, u } as unknown as Parameters<typeof parserFor>[0]);

/** Replaces `root`'s children with `source` drawn as Markdown. */
export function renderMarkdown(root: HTMLElement, source: string): void {
  const nodes = parse(`${source}\n\n`, { inline: false });
  root.replaceChildren(...nodes.map((node) => draw(node)));
}
