// The picker's stylesheet, bundled with the code and injected once per document.
// JupyterLab theme variables first, with fallbacks for light and dark elsewhere.

const CSS = `
.iw-picker {
  --iw-bg: var(--jp-layout-color1, #ffffff);
  --iw-bg2: var(--jp-layout-color2, #f3f4f6);
  --iw-fg: var(--jp-ui-font-color1, #1f2328);
  --iw-fg2: var(--jp-ui-font-color2, #57606a);
  --iw-border: var(--jp-border-color2, #d0d7de);
  --iw-accent: var(--jp-brand-color1, #1a73e8);
  --iw-accent-fg: var(--jp-ui-inverse-font-color1, #ffffff);
  --iw-ok: var(--jp-success-color1, #1a7f37);
  --iw-no: var(--jp-error-color1, #cf222e);
  --iw-warn: var(--jp-warn-color1, #9a6700);
  --iw-input-bg: var(--jp-input-background, var(--iw-bg));
  font-family: var(--jp-ui-font-family, system-ui, -apple-system, "Segoe UI", sans-serif);
  font-size: var(--jp-ui-font-size1, 13px);
  color: var(--iw-fg);
  display: flex; flex-direction: column; gap: 8px; max-width: 44rem;
}
.iw-picker { color-scheme: light; }
body[data-jp-theme-light="false"] .iw-picker { color-scheme: dark; }
/* JupyterLab Dark's error and success colours are made for icons and borders: as text
   on its cards they fall below 4.5:1, so text takes lighter shades of the same hues. */
body[data-jp-theme-light="false"] .iw-picker { --iw-no: #ffa198; --iw-ok: #7ee787; }
@media (prefers-color-scheme: dark) {
  body:not([data-jp-theme-light="true"]) .iw-picker { color-scheme: dark; }
  .iw-picker {
    --iw-bg: var(--jp-layout-color1, #1e1e1e); --iw-bg2: var(--jp-layout-color2, #2b2b2b);
    --iw-fg: var(--jp-ui-font-color1, #e6e6e6); --iw-fg2: var(--jp-ui-font-color2, #a8a8a8);
    --iw-border: var(--jp-border-color2, #444c56); --iw-accent: var(--jp-brand-color1, #4493f8);
    --iw-ok: var(--jp-success-color1, #3fb950); --iw-no: var(--jp-error-color1, #f85149);
    --iw-warn: var(--jp-warn-color1, #d29922);
  }
}
.iw-picker .iw-status:empty { display: none; }
.iw-picker .iw-status { color: var(--iw-fg2); }
.iw-picker .iw-status.iw-bad { color: var(--iw-no); }
.iw-card { border: 1px solid var(--iw-border); border-radius: 6px; background: var(--iw-bg); padding: 10px 12px;
  display: flex; flex-direction: column; gap: 8px; }
.iw-card.iw-decided { background: var(--iw-bg2); }
.iw-head { display: flex; align-items: baseline; gap: 8px; flex-wrap: wrap; }
.iw-title { margin: 0; font-size: 1.1em; font-weight: 600; font-family: var(--jp-code-font-family, monospace); }
.iw-reason { color: var(--iw-fg2); font-size: 0.9em; }
.iw-countdown { margin-left: auto; color: var(--iw-warn); font-variant-numeric: tabular-nums; }
.iw-message { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.iw-args { border-collapse: collapse; font-size: 0.95em; }
.iw-args th, .iw-args td { text-align: left; vertical-align: top; padding: 2px 10px 2px 0; overflow-wrap: anywhere; }
.iw-args th { color: var(--iw-fg2); font-weight: normal; font-family: var(--jp-code-font-family, monospace);
  width: 1%; white-space: nowrap; }
.iw-args td { white-space: pre-wrap; }
.iw-form { display: flex; flex-direction: column; gap: 8px; margin: 0; }
.iw-fields { display: flex; flex-direction: column; gap: 10px; }
.iw-fields:empty { display: none; }
.iw-field { display: flex; flex-direction: column; gap: 3px; }
.iw-field > label, .iw-group > legend { font-weight: 600; }
.iw-group { border: 1px solid var(--iw-border); border-radius: 4px; padding: 6px 10px; margin: 0;
  display: flex; flex-direction: column; gap: 6px; }
.iw-choices { display: flex; flex-wrap: wrap; gap: 4px 14px; }
.iw-choices label, .iw-check { display: inline-flex; align-items: center; gap: 4px; font-weight: normal; }
.iw-desc { color: var(--iw-fg2); font-size: 0.92em; margin: 0; }
.iw-req { color: var(--iw-no); }
.iw-field-error, .iw-card-error { color: var(--iw-no); margin: 0; }
.iw-field-error:empty, .iw-card-error:empty { display: none; }
.iw-picker input:not([type=checkbox]):not([type=radio]), .iw-picker select, .iw-picker textarea {
  font: inherit; color: var(--iw-fg); background: var(--iw-input-bg); border: 1px solid var(--iw-border);
  border-radius: 4px; padding: 4px 6px; max-width: 24rem; }
.iw-picker [aria-invalid=true] { border-color: var(--iw-no) !important; }
.iw-actions { display: flex; gap: 8px; flex-wrap: wrap; }
.iw-picker button { font: inherit; border-radius: 4px; padding: 4px 14px; cursor: pointer;
  border: 1px solid var(--iw-border); background: var(--iw-bg2); color: var(--iw-fg); }
.iw-picker button.iw-primary { background: var(--iw-accent); border-color: var(--iw-accent); color: var(--iw-accent-fg); }
.iw-picker button.iw-danger { color: var(--iw-no); }
.iw-picker button:disabled { opacity: 0.5; cursor: not-allowed; }
.iw-picker button:focus-visible, .iw-picker input:focus-visible, .iw-picker select:focus-visible,
.iw-picker textarea:focus-visible, .iw-decision:focus-visible { outline: 2px solid var(--iw-accent); outline-offset: 1px; }
.iw-decision { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; }
.iw-verdict { font-weight: 600; }
.iw-verdict.iw-ok { color: var(--iw-ok); }
.iw-verdict.iw-no { color: var(--iw-no); }
.iw-by { color: var(--iw-fg2); font-size: 0.92em; }
.iw-hidden { display: none !important; }
`;

const STYLE_ID = "interrupt-widget-picker-style";

/** Adds the stylesheet to the element's document (or shadow root) unless it is there. */
export function ensureStyle(el: HTMLElement): void {
  const root = el.getRootNode() as Document | ShadowRoot;
  const host: ParentNode = root instanceof ShadowRoot ? root : (el.ownerDocument.head ?? el.ownerDocument.documentElement);
  if (host.querySelector(`#${STYLE_ID}`)) return;
  const style = el.ownerDocument.createElement("style");
  style.id = STYLE_ID;
  style.textContent = CSS;
  host.appendChild(style);
}
