// The type of the 60-line rule's one export, so js/function_length.test.ts can import it.

/** Each TypeScript function in `dir` (js/ by default) over 60 lines with no `// long: <reason>`
 * comment above it, as "path:line name (n lines)"; test files are exempt. */
export function longFunctions(dir?: string): string[];
