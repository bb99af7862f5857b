// `widget.ts` (and `chat/markdown.ts`) import the stylesheets for esbuild, which writes them to `widget.css`.
declare module "*.css";
