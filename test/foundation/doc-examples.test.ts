import { readFileSync } from "node:fs";
import { join } from "node:path";
import request from "supertest";
import { outputFields, regapi } from "../cli/support/run-in-process";
import { graphql } from "../support/graphql";
import { startTestApp, type TestApp } from "../support/test-app";

// The curl, regapi and GraphQL examples of the pages below, run as written, in page order,
// against the demo data over HTTP: each curl answer must have the members of the JSON shown after
// it, with the same texts and flags (numbers, which depend on the data, only as members); each
// GraphQL operation must run without errors. `$API_ID` / `$API_TOKEN` are what the page's own
// `regapi api-key create` printed.

const PAGES = ["docs/api-keys.md", "docs/data-rights.md"];

interface Block {
  lang: string;
  body: string;
}

function blocksOf(file: string): Block[] {
  const text = readFileSync(join(__dirname, "../..", file), "utf8");
  return [...text.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((match) => ({ lang: match[1], body: match[2] }));
}

/** Shell words of one command line: '…' literal, "…" and bare words with $NAME expanded. */
function shellWords(line: string, vars: Record<string, string>): string[] {
  const words: string[] = [];
  let current: string | null = null;
  const expand = (text: string) => text.replace(/\$([A-Z_]+)/g, (_, name: string) => vars[name] ?? "");
  for (let i = 0; i < line.length;) {
    const c = line[i];
    if (c === " " || c === "\t") {
      if (current !== null) words.push(current);
      current = null;
      i += 1;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      current = (current ?? "") + line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      const end = line.indexOf('"', i + 1);
      current = (current ?? "") + expand(line.slice(i + 1, end));
      i = end + 1;
    } else {
      const match = /^[^\s'"]+/.exec(line.slice(i))![0];
      current = (current ?? "") + expand(match);
      i += match.length;
    }
  }
  if (current !== null) words.push(current);
  return words;
}

/** Command lines of a sh block, continuation lines joined, redirections dropped. */
const commandLines = (body: string) =>
  body
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .map((line) => line.replace(/\s>\s.*$/, "").trim())
    .filter((line) => line.length > 0 && !line.startsWith("#"));

/** The documented answer against the real one: same members; same strings (without "…") and flags. */
function expectShaped(actual: unknown, documented: unknown, path: string): void {
  if (documented !== null && typeof documented === "object" && !Array.isArray(documented)) {
    expect({ path, keys: Object.keys(actual as object).sort() }).toEqual({
      path,
      keys: Object.keys(documented).sort(),
    });
    for (const [key, value] of Object.entries(documented))
      expectShaped((actual as Record<string, unknown>)[key], value, `${path}.${key}`);
  } else if (typeof documented === "string" && !documented.includes("…")) {
    expect({ path, value: actual }).toEqual({ path, value: documented });
  } else if (typeof documented === "boolean") {
    expect({ path, value: actual }).toEqual({ path, value: documented });
  }
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

it.each(PAGES)("the examples of %s run as written", async (page) => {
  const vars: Record<string, string> = {};
  let lastAnswer: unknown = undefined;
  let ran = 0;
  for (const block of blocksOf(page)) {
    if (block.lang === "sh") {
      for (const line of commandLines(block.body)) {
        const words = shellWords(line, vars);
        if (words[0] === "regapi") {
          const run = await regapi(words.slice(1), t.dataSource);
          expect({ line, code: run.code, stderr: run.stderr }).toEqual({ line, code: 0, stderr: expect.any(String) });
          const fields = outputFields(run.stdout);
          if (fields["Api-Id"]) Object.assign(vars, { API_ID: fields["Api-Id"], API_TOKEN: fields["Api-Token"] });
        } else if (words[0] === "curl") {
          const headers: Record<string, string> = {};
          let body = "";
          let url = "";
          for (let i = 1; i < words.length; i += 1) {
            if (words[i] === "-H") {
              const [name, ...value] = words[++i].split(":");
              headers[name.trim()] = value.join(":").trim();
            } else if (words[i] === "-d") body = words[++i];
            else if (words[i].startsWith("http")) url = words[i];
          }
          const response = await request(t.app).post(new URL(url).pathname).set(headers).send(body);
          lastAnswer = response.body;
        } else {
          throw new Error(`${page}: no runner for: ${line}`);
        }
        ran += 1;
      }
    } else if (block.lang === "json" && lastAnswer !== undefined) {
      expectShaped(lastAnswer, JSON.parse(block.body), page);
      lastAnswer = undefined;
    } else if (block.lang === "graphql") {
      const answer = await graphql(t.app, block.body);
      expect({ page, errors: answer.errors }).toEqual({ page, errors: undefined });
      ran += 1;
    }
  }
  expect(ran).toBeGreaterThanOrEqual(4);
});
