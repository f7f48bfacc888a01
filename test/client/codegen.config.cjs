// The frontend client of the smoke test, typed from the committed schema.graphql with the
// graphql-codegen client preset (what frontend teams use). Regenerate with `npm run client:codegen`;
// test/client/client-codegen-drift.test.ts fails when the committed output is stale.
// Plain CommonJS so the drift test's child process can load it without a TypeScript loader.

/** @type {import("@graphql-codegen/cli").CodegenConfig} */
module.exports = {
  schema: "schema.graphql",
  documents: ["test/client/operations.ts"],
  ignoreNoDocuments: false,
  generates: {
    "test/client/gql/": {
      preset: "client",
      presetConfig: { fragmentMasking: false },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { DateTime: "string", Money: "string", JSONObject: "Record<string, unknown>" },
      },
    },
  },
};
