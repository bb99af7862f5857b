// The one DOM helper the picker and the chat share: an element with its attributes
// and children, text going in as text nodes (never through innerHTML). Elements are
// made in the page's document, where the widgets live (a shadow root included).

/** Attributes by name; an undefined one is left out. */
export type AttrMap = Record<string, string | number | undefined>;

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
  for (const [name, value] of Object.entries(named)) if (value !== undefined) el.setAttribute(name, String(value));
  for (const child of children) if (child) el.append(child);
  return el;
}
