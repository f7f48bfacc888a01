import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

// docs/data-access.md is where a reader looks for the module that holds a table's SQL: its table
// must name every module of src/data/ once, and no module that is gone. A new data module that is
// not on the page fails here, naming it.

const ROOT = join(__dirname, "../..");

/** The modules named in the first column of the page's table rows: "| `name.ts` | …". */
export function modulesOnPage(page: string): string[] {
  return [...page.matchAll(/^\| `([\w.-]+\.ts)`/gm)].map((match) => match[1]);
}

it("docs/data-access.md lists every module of src/data/ exactly once", () => {
  const onPage = modulesOnPage(readFileSync(join(ROOT, "docs/data-access.md"), "utf8"));
  const modules = readdirSync(join(ROOT, "src/data")).filter((name) => name.endsWith(".ts"));
  expect([...onPage].sort()).toEqual([...modules].sort());
});

it("reads the module names from the table rows only", () => {
  const page = "| Module | Tables |\n| --- | --- |\n| `a.data.ts` | a |\nText naming `b.data.ts` inline.\n";
  expect(modulesOnPage(page)).toEqual(["a.data.ts"]);
});
