import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    environment: "happy-dom",
    include: ["js/**/*.test.ts", "labextension/src/**/*.test.ts"],
  },
});
