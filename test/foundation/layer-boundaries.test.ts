import { execFileSync } from "node:child_process";
import path from "node:path";

// The layer boundaries of eslint.config.mjs fire: each snippet is linted as if it were a file of
// the layer, through ESLint's own API and the project's configuration. ESLint loads its ES-module
// configuration with a dynamic import, which jest's module system refuses, so the linting runs
// in one plain node process for every snippet.

const FORBIDDEN: [string, string][] = [
  ["src/domain/users/probe.ts", 'import { sendLegacyError as imported } from "../../rest/legacy-errors";'],
  ["src/domain/users/probe.ts", 'import { presentError as imported } from "../../graphql/graphql-errors";'],
  ["src/domain/probe.ts", 'import { renderProblems as imported } from "../http/problem-paths";'],
  ["src/domain/probe.ts", 'import imported from "express";'],
  ["src/domain/probe.ts", 'import { ApolloServer as imported } from "@apollo/server";'],
  ["src/domain/probe.ts", 'import { Field as imported } from "type-graphql";'],
  ["src/data/probe.data.ts", 'import { maskUnexpected as imported } from "../http/transport-errors";'],
  ["src/data/probe.data.ts", 'import { usersActions as imported } from "../rest/users/users.actions";'],
  ["src/graphql/probe.ts", 'import { sendLegacyError as imported } from "../rest/legacy-errors";'],
  ["src/graphql/resolvers/probe.ts", 'import { usersActions as imported } from "../../rest/users/users.actions";'],
  ["src/rest/probe.ts", 'import { presentError as imported } from "../graphql/graphql-errors";'],
];

const ALLOWED: [string, string][] = [
  ["src/domain/users/probe.ts", 'import { validationFailed as imported } from "../errors";'],
  ["src/domain/users/probe.ts", 'import { z as imported } from "zod";'],
  ["src/rest/probe.ts", 'import { renderProblems as imported } from "../http/problem-paths";'],
  ["src/rest/probe.ts", 'import imported from "express";'],
  ["src/graphql/probe.ts", 'import { maskUnexpected as imported } from "../http/transport-errors";'],
  ["src/graphql/probe.ts", 'import { DomainError as imported } from "../domain/errors";'],
];

const LINT_SNIPPETS = `
const { ESLint } = require("eslint");
const snippets = JSON.parse(process.argv[1]);
(async () => {
  const eslint = new ESLint();
  const found = [];
  for (const [filePath, source] of snippets) {
    const [result] = await eslint.lintText(source + "\\nexport const used = imported;\\n", { filePath });
    found.push(result.messages.filter((m) => m.ruleId === "no-restricted-imports").map((m) => m.message));
  }
  process.stdout.write(JSON.stringify(found));
})();
`;

let messages: string[][];
beforeAll(() => {
  const output = execFileSync(process.execPath, ["-e", LINT_SNIPPETS, JSON.stringify([...FORBIDDEN, ...ALLOWED])], {
    cwd: path.resolve(__dirname, "../.."),
    encoding: "utf8",
  });
  messages = JSON.parse(output) as string[][];
}, 60_000);

describe("layer boundaries (no-restricted-imports per folder)", () => {
  it.each(FORBIDDEN.map((snippet, index) => [...snippet, index] as const))(
    "%s may not: %s",
    (_file, _source, index) => {
      expect(messages[index].length).toBeGreaterThan(0);
      for (const message of messages[index]) expect(message).toMatch(/may not import this \(layer boundaries/);
    },
  );

  it.each(ALLOWED.map((snippet, index) => [...snippet, FORBIDDEN.length + index] as const))(
    "%s may: %s",
    (_file, _source, index) => {
      expect(messages[index]).toEqual([]);
    },
  );
});
