// `widget.ts` imports the stylesheets for esbuild, which writes them to `widget.css`.
declare module "*.css";
