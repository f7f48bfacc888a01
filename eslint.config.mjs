import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/", "data/", "src/migrations/*-*.ts", "test/client/gql/"] },
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
    // The domain and authentication hold rules only: every SQL statement and TypeORM query lives in
    // a data-access module under src/data/ (one per component), which returns typed rows. These
    // rules keep SQL strings, query calls and entity writes from creeping back.
    files: ["src/domain/**/*.ts", "src/auth/**/*.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        {
          paths: [
            {
              name: "typeorm",
              allowTypeImports: true,
              message: "Query through a module of src/data/; the domain may only name TypeORM types.",
            },
          ],
          patterns: [
            {
              group: ["**/db/insert-rows"],
              message: "Write through a module of src/data/.",
            },
            {
              group: ["**/entities", "**/entities/*"],
              importNames: [
                "Admin",
                "AdminComment",
                "AdminProjectAccess",
                "ApiAccount",
                "CartLine",
                "EmailRecord",
                "FieldValue",
                "Field",
                "FormTrigger",
                "Form",
                "Organization",
                "OutboxEmail",
                "Payment",
                "Person",
                "Product",
                "Project",
                "RegistrationForm",
                "RegistrationTag",
                "Registration",
                "Status",
                "Tag",
                "TriggerFiring",
                "EventRecord",
                "WebhookEndpoint",
                "WebhookDelivery",
                "WebhookAttempt",
              ],
              allowTypeImports: true,
              message: "Entity classes are for src/data/; the domain reads and writes through its functions.",
            },
          ],
        },
      ],
      "no-restricted-syntax": [
        "error",
        {
          selector: "CallExpression[callee.property.name=/^(query|createQueryBuilder|getRepository|transaction)$/]",
          message: "SQL and query builders belong in a module of src/data/ (transactions start in inTransaction).",
        },
        {
          selector: "CallExpression[callee.object.name='em'], CallExpression[callee.object.property.name='em']",
          message: "Call a function of a src/data/ module instead of the EntityManager.",
        },
        {
          selector:
            "Literal[value=/^\\s*(SELECT|INSERT|UPDATE|DELETE)\\s/], TemplateElement[value.raw=/^\\s*(SELECT|INSERT|UPDATE|DELETE)\\s/]",
          message: "SQL text belongs in a module of src/data/.",
        },
      ],
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
  // Which layer may import which (and no import cycle) is checked by dependency-cruiser
  // (.dependency-cruiser.cjs, npm run check:deps), not here.
);
