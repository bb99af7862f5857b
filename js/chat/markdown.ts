// An agent's reply as Markdown, drawn into DOM nodes one by one: the parser
// (@khanacademy/simple-markdown) gives a syntax tree, and this renderer builds
// elements with createElement and text with text nodes, never HTML. Raw HTML in
// a reply stays text; a link gets its href only when it is an http(s) URL; an
// image is never loaded: its alt text stands in its place.

import SimpleMarkdown, { type SingleASTNode } from "@khanacademy/simple-markdown";

type Tag = keyof HTMLElementTagNameMap;

/** Nodes drawn as one element around their `content`. */
const WRAPPERS: Record<string, Tag> = {
  paragraph: "p",
  blockQuote: "blockquote",
  em: "em",
  strong: "strong",
  u: "strong", // `__x__`: CommonMark's strong, not an underline
  del: "s",
};

/** Only these link targets become links; `javascript:`, `data:`, `mailto:` and the rest stay text. */
const SAFE_URL = /^https?:\/\/\S+$/i;

const text = (value: unknown): string => (typeof value === "string" ? value : "");

function drawAll(doc: Document, parent: Node, content: unknown): void {
  if (typeof content === "string") parent.appendChild(doc.createTextNode(content));
  else if (Array.isArray(content)) for (const node of content as SingleASTNode[]) parent.appendChild(draw(doc, node));
}

function wrap(doc: Document, tag: Tag, content: unknown): HTMLElement {
  const el = doc.createElement(tag);
  drawAll(doc, el, content);
  return el;
}

function link(doc: Document, node: SingleASTNode): HTMLElement {
  const target = text(node.target);
  if (!SAFE_URL.test(target)) return wrap(doc, "span", node.content);
  const a = wrap(doc, "a", node.content);
  a.setAttribute("href", target);
  a.setAttribute("target", "_blank");
  a.setAttribute("rel", "noopener noreferrer nofollow");
  return a;
}

function list(doc: Document, node: SingleASTNode): HTMLElement {
  const el = doc.createElement(node.ordered ? "ol" : "ul");
  if (node.ordered && Number.isInteger(node.start) && node.start !== 1) el.setAttribute("start", String(node.start));
  for (const item of (node.items ?? []) as unknown[]) el.appendChild(wrap(doc, "li", item));
  return el;
}

function table(doc: Document, node: SingleASTNode): HTMLElement {
  const el = doc.createElement("table");
  const row = (cells: unknown, tag: "th" | "td"): HTMLElement => {
    const tr = doc.createElement("tr");
    for (const cell of (cells ?? []) as unknown[]) tr.appendChild(wrap(doc, tag, cell));
    return tr;
  };
  el.appendChild(doc.createElement("thead")).appendChild(row(node.header, "th"));
  const body = el.appendChild(doc.createElement("tbody"));
  for (const cells of (node.cells ?? []) as unknown[]) body.appendChild(row(cells, "td"));
  return el;
}

function draw(doc: Document, node: SingleASTNode): Node {
  const tag = WRAPPERS[node.type];
  if (tag) return wrap(doc, tag, node.content);
  switch (node.type) {
    case "text":
      return doc.createTextNode(text(node.content));
    case "heading":
      return wrap(doc, `h${Math.min(Math.max(Number(node.level) || 1, 1), 6)}` as Tag, node.content);
    case "inlineCode":
      return wrap(doc, "code", text(node.content));
    case "codeBlock": {
      const pre = doc.createElement("pre");
      pre.appendChild(wrap(doc, "code", text(node.content)));
      return pre;
    }
    case "list":
      return list(doc, node);
    case "table":
      return table(doc, node);
    case "link":
    case "url":
    case "autolink":
      return link(doc, node);
    case "image": {
      const alt = wrap(doc, "span", text(node.alt));
      alt.className = "iw-md-image";
      alt.title = `Image not loaded: ${text(node.target)}`;
      return alt;
    }
    case "br":
      return doc.createElement("br");
    case "hr":
      return doc.createElement("hr");
    case "newline":
      return doc.createTextNode("\n");
    default:
      // Anything else (a definition, a mailto link) shows what it holds, as text.
      return wrap(doc, "span", node.content ?? text(node.target));
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
  const doc = root.ownerDocument;
  const nodes = parse(`${source}\n\n`, { inline: false });
  root.replaceChildren(...nodes.map((node) => draw(doc, node)));
}
