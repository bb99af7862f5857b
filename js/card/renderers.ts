// Custom renderers: an ES module given as source text, loaded from a Blob URL
// (no network), whose `render({interrupt, resolve, cancel, el})` replaces the
// built-in form for one tool name or reason.

import type { AnswerResultMessage } from "./protocol";
import type { WireInterrupt } from "./types";

export interface RendererProps {
  interrupt: WireInterrupt;
  /** Send an answer; settles with Python's verdict (`ok`, `errors`). */
  resolve: (payload: unknown) => Promise<AnswerResultMessage>;
  cancel: () => Promise<AnswerResultMessage>;
  el: HTMLElement;
  /** Shows the card's built-in form (and its Approve / Deny) below the renderer. */
  showForm: () => void;
}

// biome-ignore lint/suspicious/noConfusingVoidType: a renderer may return nothing, as anywidget's render may
export type RenderFn = (props: RendererProps) => void | (() => void) | Promise<void | (() => void)>;

export type ModuleLoader = (source: string) => Promise<unknown>;

const caches = new WeakMap<ModuleLoader, Map<string, Promise<RenderFn>>>();

/** Imports ES module source through a Blob URL, the only way a string becomes a module offline. */
export const importFromSource: ModuleLoader = async (source) => {
  const url = URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  try {
    return (await import(/* @vite-ignore */ /* webpackIgnore: true */ url)) as unknown;
  } finally {
    URL.revokeObjectURL(url);
  }
};

function renderOf(module: unknown): RenderFn {
  const record = (module ?? {}) as Record<string, unknown>;
  const fallback = (record.default ?? {}) as Record<string, unknown>;
  const render = record.render ?? fallback.render ?? record.default;
  if (typeof render !== "function") {
    throw new Error("a custom renderer module must export render({interrupt, resolve, cancel, el})");
  }
  return render as RenderFn;
}

/** The renderer's `render` function (each distinct source is imported once). */
export function loadRenderer(source: string, loader: ModuleLoader = importFromSource): Promise<RenderFn> {
  const cache = caches.get(loader) ?? new Map<string, Promise<RenderFn>>();
  caches.set(loader, cache);
  let found = cache.get(source);
  if (!found) {
    found = loader(source).then(renderOf);
    found.catch(() => cache.delete(source)); // a failed import is tried again next time
    cache.set(source, found);
  }
  return found;
}
