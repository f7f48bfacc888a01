import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/", "data/", "src/migrations/*-*.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Decorator metadata needs value imports of classes used in decorated signatures; tell the
    // type-import rule so it does not turn them into `import type`.
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { emitDecoratorMetadata: true, experimentalDecorators: true },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": [
        "error",
        { fixStyle: "inline-type-imports", disallowTypeAnnotations: false },
      ],
      "no-console": "error",
    },
  },
  {
    files: ["**/*.js", "**/*.cjs"],
    languageOptions: { globals: { ...globals.node }, sourceType: "commonjs" },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  {
    files: ["test/**", "bench/**", "src/cli/**"],
    rules: { "no-console": "off" },
  },
);
