import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { emitSchema, SCHEMA_FILE } from "../../src/graphql/emit-schema";

// schema.graphql is what frontends generate client types from; it must be exactly what the code
// emits. On a difference run `npm run schema:emit` and commit the file.
describe("committed schema.graphql", () => {
  it("equals the SDL emitted from the code (sorted)", async () => {
    const fresh = await emitSchema(join(mkdtempSync(join(tmpdir(), "regapi-schema-")), SCHEMA_FILE));
    const committed = readFileSync(resolve(process.cwd(), SCHEMA_FILE), "utf8");
    expect(readFileSync(fresh, "utf8")).toBe(committed);
  });
});
