// The 60-line rule for TypeScript (scripts/function-length.mjs, also run by `npm run lint`):
// js/ keeps it, and the script finds a long function and accepts one that says why. This test
// runs in node and writes files, so tsconfig.node.json types it; the rest of js/ is typed for
// the browser, with no node globals.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { longFunctions, SOURCES } from "../scripts/function-length.mjs";

/** A function of `lines` lines in all, counting its first and last. */
function functionOf(name: string, lines: number): string {
  const body = Array.from({ length: lines - 4 }, (_, i) => `  total += ${i};`);
  return [`export function ${name}(): number {`, "  let total = 0;", ...body, "  return total;", "}"].join("\n");
}

describe("the 60-line rule", () => {
  const made: string[] = [];
  const tree = (files: Record<string, string>): string => {
    const dir = mkdtempSync(join(tmpdir(), "iw-function-length-"));
    made.push(dir);
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  };
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("finds no long function without a reason in js/ or labextension/src/", () => {
    expect(SOURCES.map((dir) => dir.endsWith(join("labextension", "src")) || dir.endsWith("js"))).toEqual([true, true]);
    expect(SOURCES.flatMap((dir) => longFunctions(dir))).toEqual([]);
  });

  it("finds a 70-line function, and names it with its line and length", () => {
    const dir = tree({ "part/long.ts": `// a module\n${functionOf("drawAll", 70)}\n${functionOf("short", 60)}\n` });
    const found = longFunctions(dir);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/part\/long\.ts:2 drawAll \(70 lines\)$/);
  });

  it("accepts a long function with a `// long:` reason on the line above, not an empty one", () => {
    const dir = tree({
      "why.ts": `// long: one table of cases reads best whole\n${functionOf("table", 70)}\n`,
      "bare.ts": `// long:\n${functionOf("bare", 70)}\n`,
    });
    const found = longFunctions(dir);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/bare\.ts:2 bare \(70 lines\)$/);
  });

  it("leaves test files alone, as the Python rule does", () => {
    const dir = tree({ "long.test.ts": functionOf("aTest", 70) });
    expect(longFunctions(dir)).toEqual([]);
  });
});
