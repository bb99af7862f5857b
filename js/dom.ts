// The one DOM helper the picker, the inbox and the chat share: an element with its attributes,
// listeners and children, text going in as text nodes (never through innerHTML). Elements are
// made in the page's document, where the widgets live (a shadow root included).

/** What an `on<event>` attribute holds: the listener for that event. */
export type Listener = (event: Event) => void;

/** Attributes by name; an undefined one is left out, a function listens (`onclick`: "click"). */
export type AttrMap = Record<string, string | number | undefined | Listener>;

/** The attributes, or just the class name. */
export type Attrs = AttrMap | string;

/** An element, or text for a text node; null, undefined, false and "" add nothing. */
export type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  const named = typeof attrs === "string" ? { class: attrs } : attrs;
  for (const [name, value] of Object.entries(named)) {
    if (typeof value === "function") el.addEventListener(name.slice(2), value);
    else if (value !== undefined) el.setAttribute(name, String(value));
  }
  for (const child of children) if (child) el.append(child);
  return el;
}

/** A button, its label as text: a plain one (never a form's submit) unless `type` says so. */
export const button = (text: string, cls = "", onclick?: Listener, type = "button"): HTMLButtonElement =>
  h("button", { type, class: cls, onclick }, text);

/** Shows or hides `el` with the class every stylesheet of the kit hides. */
export const hide = (el: Element, hidden: boolean): boolean => el.classList.toggle("iw-hidden", hidden);

/** `url` when it is an absolute http(s) URL (the only kind made a link), else null. */
export function webUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? parsed.href : null;
  } catch {
    return null;
  }
}

/**
 * A link that opens `url` in a new tab, away from the page (`rel=noopener`), its label as text;
 * any other kind of URL (`javascript:`, `data:`...) stays text, in a span that links nowhere.
 */
export function outLink(label: string, url: string, cls = ""): HTMLElement {
  const href = webUrl(url);
  if (href === null) return h("span", { class: cls, title: "not an http(s) link" }, `${label}: ${url}`);
  return h("a", { class: cls, href, target: "_blank", rel: "noopener noreferrer" }, label);
}
