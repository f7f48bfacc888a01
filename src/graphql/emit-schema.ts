import "reflect-metadata";
import { resolve } from "node:path";
import { emitSchemaDefinitionFile } from "type-graphql";
import { buildGraphqlSchema } from "./schema";

/** The committed SDL: `<repo>/schema.graphql` (resolved from the working directory, not dist/). */
export const SCHEMA_FILE = "schema.graphql";

export async function emitSchema(path = resolve(process.cwd(), SCHEMA_FILE)): Promise<string> {
  await emitSchemaDefinitionFile(path, await buildGraphqlSchema(), { sortedSchema: true });
  return path;
}

if (require.main === module) {
  emitSchema().then(
    (path) => process.stdout.write(`wrote ${path}\n`),
    (error: unknown) => {
      process.stderr.write(`schema:emit failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
}
