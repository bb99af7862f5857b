// The bundle must work offline: nothing fetched from a remote host at run time,
// by the code or by its stylesheet (widget.css, loaded through anywidget's _css).
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

describe("the bundle", () => {
  it("imports nothing over the network", async () => {
    const result = await build({
      entryPoints: ["js/widget.ts"],
      bundle: true,
      format: "esm",
      minify: true,
      target: "es2020",
      outfile: "widget.js",
      write: false,
      logLevel: "silent",
    });
    const code = result.outputFiles.find((f) => f.path.endsWith(".js"))?.text ?? "";
    const css = result.outputFiles.find((f) => f.path.endsWith(".css"))?.text ?? "";
    expect(css).toContain(".iw-picker");
    expect(css).toContain(".iw-chat");
    expect(css).toMatch(/var\(--jp-layout-color1, ?#fff/); // JupyterLab's theme, with a fallback
    expect(css).toContain("prefers-color-scheme:dark");
    expect(css).not.toMatch(/@import|url\(/);
    expect(code.length).toBeGreaterThan(1000);
    expect(code).not.toMatch(/\bimport\s*\(?\s*["'`](?:https?:)?\/\//);
    expect(code).not.toMatch(/\bfrom\s*["'`](?:https?:)?\/\//);
    // No remote host at all; the Markdown parser resolves link targets against
    // https://localhost to check their scheme, which fetches nothing.
    expect(code.split('"https://localhost"').join("")).not.toMatch(/https?:\/\//);
  }, 30_000);
});
