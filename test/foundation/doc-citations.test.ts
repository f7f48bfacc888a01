import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";

// The repository must stand on its own: a comment, test name, help text or page that points a
// reader at a specification or notes file must point at one the repository contains (docs/).
// This scans every tracked file, as a fresh clone would have it.

const ROOT = join(__dirname, "../..");

// Built from parts so this file does not cite what it looks for.
const FOLDERS = ["spec", "notes"].join("|");
/** A relative path into the spec or notes folder, also one that climbs into the shared folder first. */
const FOLDER_PATH = new RegExp(`(?<![\\w@/-])((?:\\.{1,2}/)*(?:shared/)?(?:${FOLDERS})/[\\w./-]*[\\w-])`, "g");
const SHARED = "shared";
/** A path that climbs into a shared folder, or the absolute one: resolved from the citing file's folder. */
const OUTSIDE_PATH = new RegExp(`(?:/work/${SHARED}|(?:\\.\\./)+${SHARED}/)[\\w./-]*`, "g");

export interface Citation {
  file: string;
  line: number;
  text: string;
}

/** The citations in one file's text that name a spec or notes file the repository does not hold. */
export function missingCitations(file: string, text: string, exists: (path: string) => boolean): Citation[] {
  const found: Citation[] = [];
  text.split("\n").forEach((lineText, index) => {
    for (const match of lineText.matchAll(FOLDER_PATH)) {
      const cited = match[1];
      const candidates = [normalize(cited), normalize(join(dirname(file), cited))];
      if (!candidates.some(exists)) found.push({ file, line: index + 1, text: cited });
    }
    for (const match of lineText.matchAll(OUTSIDE_PATH)) {
      // A path that resolves inside the repository (e.g. an import of a src/shared/ folder) is fine.
      const cited = match[0];
      const resolved = normalize(join(dirname(file), cited));
      if (!exists(resolved) && !exists(`${resolved}.ts`)) found.push({ file, line: index + 1, text: cited });
    }
  });
  return found;
}

function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" }).split("\0").filter(Boolean);
}

describe("the repository cites no document outside it", () => {
  const files = trackedFiles();
  const tracked = new Set(files);
  const exists = (path: string) =>
    tracked.has(path) || files.some((file) => file.startsWith(`${path}/`)) || existsSync(join(ROOT, path));

  it("every spec/ or notes/ path named in a tracked file exists in the repository", () => {
    const citations = files.flatMap((file) => {
      const content = readFileSync(join(ROOT, file));
      if (content.includes(0)) return []; // binary
      return missingCitations(file, content.toString("utf8"), exists);
    });
    expect(citations).toEqual([]);
  });

  it("the docs pages the README and the CLI help point at are in the repository", () => {
    for (const page of ["docs/README.md", "docs/contract.md", "docs/fixtures.md", "docs/architecture.md"]) {
      expect(tracked.has(page) || existsSync(join(ROOT, page))).toBe(true);
    }
  });
});

describe("the citation scanner", () => {
  const inRepo = new Set(["docs/contract.md", "src/shared/dates.ts", `${"spec"}/present.md`]);
  const exists = (path: string) => inRepo.has(path);
  const scan = (file: string, text: string) => missingCitations(file, text, exists).map((c) => `${c.line}:${c.text}`);

  it("finds a spec or notes path that the repository does not hold, with its line", () => {
    expect(scan("src/a.ts", `// ok\n// see ${"spec"}/contract.md §3 and ${"notes"}/stack.md G1.`)).toEqual([
      `2:${"spec"}/contract.md`,
      `2:${"notes"}/stack.md`,
    ]);
    expect(scan("README.md", `(\`../${SHARED}/${"spec"}/fixtures.md\`)`)).toContain(
      `1:../${SHARED}/${"spec"}/fixtures.md`,
    );
    expect(scan("README.md", `read /work/${SHARED}/x.md`)).toEqual([`1:/work/${SHARED}/x.md`]);
    expect(scan("src/domain/forms/a.ts", `import { x } from "../${SHARED}/dates";`)).toEqual([`1:../${SHARED}/dates`]);
  });

  it("accepts paths the repository holds, in-repo imports and URLs", () => {
    expect(scan("docs/README.md", `[x](${"spec"}/present.md) docs/contract.md`)).toEqual([]);
    expect(scan("src/domain/a.ts", `import { x } from "../${SHARED}/dates";`)).toEqual([]);
    expect(scan("src/rest/envelope/a.ts", `import { x } from "../../${SHARED}/dates";`)).toEqual([]);
    expect(scan("a.md", `https://example.test/${"spec"}/contract.md and \`${"spec"}/\` folders`)).toEqual([]);
  });
});
