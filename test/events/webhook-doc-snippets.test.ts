import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, validate, type DocumentNode } from "graphql";
import { buildGraphqlSchema } from "../../src/graphql/schema";

// The webhook page's GraphQL examples are what clients copy: each operation must be valid against
// the schema as built (so a renamed field or argument, like `id` → `endpointId`, fails here).

function graphqlBlocks(file: string): string[] {
  const text = readFileSync(join(__dirname, "../..", file), "utf8");
  return [...text.matchAll(/```graphql\n([\s\S]*?)```/g)].map((match) => match[1]);
}

it("every operation in docs/events-and-webhooks.md's GraphQL examples validates against the schema", async () => {
  const schema = await buildGraphqlSchema();
  const blocks = graphqlBlocks("docs/events-and-webhooks.md");
  expect(blocks.length).toBeGreaterThanOrEqual(2);
  const operations = blocks.flatMap((block) => parse(block).definitions);
  expect(operations.length).toBeGreaterThanOrEqual(6);
  for (const operation of operations) {
    const document: DocumentNode = { kind: "Document" as DocumentNode["kind"], definitions: [operation] };
    expect(validate(schema, document).map((error) => error.message)).toEqual([]);
  }
});
