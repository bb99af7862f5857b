// The types of the 60-line rule's exports, so js/function_length.test.ts can import them.

/** Each TypeScript function in `dir` (js/ by default) over 60 lines with no `// long: <reason>`
 * comment above it, as "path:line name (n lines)"; test files are exempt. */
export function longFunctions(dir?: string): string[];

/** The folders the rule covers: js/ and labextension/src/. */
export const SOURCES: string[];
