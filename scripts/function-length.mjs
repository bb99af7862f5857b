#!/usr/bin/env node
// No TypeScript function in js/ or labextension/src/ runs over 60 lines unless a `// long: <reason>` comment on the
// line above says why it must (the rule tests/test_function_length.py keeps for Python).
// Test files are exempt, as Python's tests are: a test reads top to bottom.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const LIMIT = 60;
const LONG = "// long:";
// Through node:url, not the global URL, which a test environment (happy-dom) may replace.
const here = fileURLToPath(import.meta.url);
const root = join(dirname(here), "..");

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") && !entry.name.endsWith(".d.ts"))
      yield path;
  }
}

function isFunction(node) {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

function name(node, file) {
  if (node.name) return node.name.getText(file);
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText(file);
  return "(anonymous)";
}

export function longFunctions(dir = join(root, "js")) {
  const found = [];
  for (const path of sources(dir)) {
    const text = readFileSync(path, "utf8");
    const lines = text.split("\n");
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true);
    const visit = (node) => {
      if (isFunction(node) && node.body) {
        const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
        const last = file.getLineAndCharacterOfPosition(node.end).line;
        const length = last - first + 1;
        // The statement that holds the function (`export const f = () => ...`) is where a
        // reader looks for the reason.
        let holder = node;
        while (holder.parent && !ts.isSourceFile(holder.parent) && !ts.isBlock(holder.parent) && !ts.isClassLike(holder.parent))
          holder = holder.parent;
        const top = file.getLineAndCharacterOfPosition(holder.getStart(file)).line;
        const above = top > 0 ? lines[top - 1].trim() : "";
        const saysWhy = above.startsWith(LONG) && above.length > LONG.length + 3;
        if (length > LIMIT && !saysWhy)
          found.push(`${relative(root, path)}:${first + 1} ${name(node, file)} (${length} lines)`);
      }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return found;
}

/** The folders of the kit's TypeScript: the widgets' and the JupyterLab extension's. */
export const SOURCES = ["js", join("labextension", "src")].map((dir) => join(root, dir));

if (process.argv[1] === here) {
  const found = SOURCES.flatMap((dir) => longFunctions(dir));
  if (found.length) {
    console.error(`functions over ${LIMIT} lines with no \`${LONG}\` reason above them:\n${found.join("\n")}`);
    process.exit(1);
  }
}
