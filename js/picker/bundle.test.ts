// The bundle must work offline: nothing fetched from a remote host at run time.
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
      write: false,
      logLevel: "silent",
    });
    const code = result.outputFiles[0]?.text ?? "";
    expect(code.length).toBeGreaterThan(1000);
    expect(code).not.toMatch(/\bimport\s*\(?\s*["'`](?:https?:)?\/\//);
    expect(code).not.toMatch(/\bfrom\s*["'`](?:https?:)?\/\//);
    expect(code).not.toMatch(/https?:\/\//);
  }, 30_000);
});
