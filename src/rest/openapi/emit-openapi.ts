import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { packageVersion } from "../../common/package-root";
import { LEGACY_ENDPOINTS } from "../router";
import { buildOpenApiDocument } from "./openapi-document";

/** The committed document: `<repo>/openapi.json` (resolved from the working directory, not dist/). */
export const OPENAPI_FILE = "openapi.json";

/** The document as committed: two-space JSON with a final newline. */
export function openApiText(): string {
  const version = packageVersion();
  return `${JSON.stringify(buildOpenApiDocument(LEGACY_ENDPOINTS, version), null, 2)}\n`;
}

if (require.main === module) {
  const path = resolve(process.cwd(), OPENAPI_FILE);
  writeFileSync(path, openApiText());
  process.stdout.write(`wrote ${path}\n`);
}
