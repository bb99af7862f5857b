// Bundles src/main.tsx (React, CopilotKit and its CSS) into dist/ beside index.html.
import { copyFile, mkdir } from "node:fs/promises";
import * as esbuild from "esbuild";

await mkdir("dist", { recursive: true });
await esbuild.build({
  entryPoints: { app: "src/main.tsx" },
  bundle: true,
  format: "esm",
  target: "es2022",
  minify: true,
  jsx: "automatic",
  outdir: "dist",
  loader: { ".woff": "file", ".woff2": "file", ".ttf": "file", ".svg": "file", ".png": "file" },
  define: { "process.env.NODE_ENV": '"production"' },
  logLevel: "warning",
});
await copyFile("index.html", "dist/index.html");
await copyFile("page.css", "dist/page.css");
