// @vitest-environment node
// Each bundle a notebook page loads stays small: the widget bundle (picker and chat) and the
// inbox's, each at most 20 KB gzipped, as esbuild minifies them (the build's terser pass only
// shrinks them further). The inbox's code is also the JupyterLab sidebar's, so what the sidebar
// adds to it counts here. Node-typed (tsconfig.node.json), as it reads sizes with node:zlib.

import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const LIMIT = 20 * 1024;

async function gzipped(entry: string): Promise<number> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    minify: true,
    target: "es2020",
    outfile: "bundle.js",
    write: false,
    logLevel: "silent",
  });
  const code = result.outputFiles.find((f) => f.path.endsWith(".js"))?.contents ?? new Uint8Array();
  return gzipSync(code, { level: 9 }).length;
}

describe("the bundles' size", () => {
  it.each(["js/widget.ts", "js/inbox/widget.ts"])(
    "%s is at most 20 KB gzipped",
    async (entry) => {
      const size = await gzipped(entry);
      expect(size).toBeGreaterThan(1000);
      expect(size).toBeLessThanOrEqual(LIMIT);
    },
    30_000,
  );
});
