import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

/** Packages of the transports: express, Apollo, GraphQL and its schema builder. */
const TRANSPORT_PACKAGES = [
  "express",
  "express-*",
  "@apollo/*",
  "@as-integrations/*",
  "graphql",
  "graphql-*",
  "type-graphql",
];

/** A no-restricted-imports pattern group with a message naming the layer that may not import it. */
function forbidden(group, layer) {
  return {
    group,
    message: `${layer} may not import this (layer boundaries: see docs/errors-and-commands.md).`,
  };
}

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
  // Layer boundaries (docs/errors-and-commands.md): the domain knows no transport, the two
  // transports do not know each other, data access knows no adapter. What both transports need
  // lives in src/http/.
  {
    files: ["src/domain/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            forbidden(["**/rest", "**/rest/**", "**/graphql", "**/graphql/**", "**/http", "**/http/**"], "The domain"),
            forbidden(TRANSPORT_PACKAGES, "The domain"),
          ],
        },
      ],
    },
  },
  {
    files: ["src/data/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            forbidden(["**/rest", "**/rest/**", "**/graphql", "**/graphql/**", "**/http", "**/http/**"], "Data access"),
            forbidden(TRANSPORT_PACKAGES, "Data access"),
          ],
        },
      ],
    },
  },
  {
    // The delivery worker runs without a request: it reads and writes through src/data/ and knows no transport.
    files: ["src/delivery/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            forbidden(["**/rest", "**/rest/**", "**/graphql", "**/graphql/**"], "The delivery worker"),
            forbidden(TRANSPORT_PACKAGES, "The delivery worker"),
          ],
        },
      ],
    },
  },
  {
    files: ["src/graphql/**"],
    rules: {
      "no-restricted-imports": ["error", { patterns: [forbidden(["**/rest", "**/rest/**"], "The GraphQL adapter")] }],
    },
  },
  {
    files: ["src/rest/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { patterns: [forbidden(["**/graphql/**", "**/graphql", "!graphql"], "The REST adapter")] },
      ],
    },
  },
);
