import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

// The layer rules of .dependency-cruiser.cjs fire: each snippet is written as a file of its layer
// into a copy of src/ in a temporary folder (never into src/ itself, so an interrupted run leaves
// nothing behind and a running `npm start` or `tsc --watch` sees nothing), and the copy is cruised
// once with the project's configuration. Each probe must break exactly its rule, and the rest of
// the copy none: src/ has no cycle and breaks no rule, as CI's check:deps requires.

const ROOT = path.resolve(__dirname, "../..");
// The package exports no bin path, so the script is found from its folder.
const DEPCRUISE = path.join(ROOT, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");

const FORBIDDEN: [string, string, string][] = [
  ["src/domain/users", 'export { sendLegacyError } from "../../rest/legacy-errors";', "domain-knows-no-transport"],
  ["src/domain/users", 'export { presentError } from "../../graphql/graphql-errors";', "domain-knows-no-transport"],
  ["src/domain", 'export { renderProblems } from "../http/problem-paths";', "domain-knows-no-transport"],
  ["src/domain", 'export { default } from "express";', "domain-no-transport-packages"],
  ["src/domain", 'export { ApolloServer } from "@apollo/server";', "domain-no-transport-packages"],
  ["src/domain", 'export { Field } from "type-graphql";', "domain-no-transport-packages"],
  ["src/data", 'export { maskUnexpected } from "../http/transport-errors";', "data-knows-only-db-and-entities"],
  ["src/data", 'export { usersActions } from "../rest/users/users.actions";', "data-knows-only-db-and-entities"],
  ["src/data", 'export { inTransaction } from "../domain/transaction";', "data-knows-only-db-and-entities"],
  ["src/db", 'export { validationFailed } from "../domain/errors";', "db-knows-no-upper-layer"],
  ["src/graphql", 'export { sendLegacyError } from "../rest/legacy-errors";', "graphql-knows-no-rest"],
  ["src/graphql/resolvers", 'export { usersActions } from "../../rest/users/users.actions";', "graphql-knows-no-rest"],
  ["src/rest", 'export { presentError } from "../graphql/graphql-errors";', "rest-knows-no-graphql"],
  ["src/rest", 'export { readPersons } from "../data/persons.data";', "transports-reach-data-through-the-domain"],
  ["src/http", 'export { usersActions } from "../rest/users/users.actions";', "http-knows-no-transport"],
  ["src/http", 'export { createApp } from "../app";', "http-knows-no-transport"],
  ["src/delivery", 'export { requestId } from "../http/request-id";', "delivery-knows-no-transport"],
  ["src/common", 'export { DomainError } from "../domain/errors";', "leaves-import-no-layer"],
  ["src/runtime", 'export { requestId } from "../http/request-id";', "runtime-knows-no-transport"],
  ["src/domain", 'export { startRuntime } from "../runtime/runtime";', "only-the-root-starts-the-runtime"],
  ["src/graphql", 'export { startRuntime } from "../runtime/runtime";', "only-the-root-starts-the-runtime"],
  ["src/shared-state", 'export { requestId } from "../http/request-id";', "shared-state-knows-no-transport"],
  [
    "src/graphql/subscriptions",
    'export type { FeedEventRow } from "../../data/event-feed.data";',
    "subscriptions-read-through-the-domain",
  ],
];

const ALLOWED: [string, string][] = [
  ["src/domain/users", 'export { validationFailed } from "../errors";'],
  ["src/domain/users", 'export { z } from "zod";'],
  ["src/rest", 'export { renderProblems } from "../http/problem-paths";'],
  ["src/rest", 'export { default } from "express";'],
  ["src/rest", 'export type { PersonRecord } from "../data/persons.data";'],
  ["src/graphql", 'export { maskUnexpected } from "../http/transport-errors";'],
  ["src/graphql", 'export { DomainError } from "../domain/errors";'],
  ["src/delivery", 'export { createLogger } from "../http/logger";'],
  ["src/http", 'export type { Runtime } from "../runtime/runtime";'],
  ["src/runtime", 'export { createLogger } from "../http/logger";'],
];

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

const probeName = (folder: string, index: number) => `${folder}/__layer-probe-${index}.ts`;
const probes = [...FORBIDDEN, ...ALLOWED].map(([folder, source], index) => ({
  file: probeName(folder, index),
  source,
}));

let probeViolations: Violation[];
let otherViolations: Violation[];
beforeAll(() => {
  const copy = mkdtempSync(path.join(tmpdir(), "regapi-layers-"));
  try {
    cpSync(path.join(ROOT, "src"), path.join(copy, "src"), { recursive: true });
    for (const file of [".dependency-cruiser.cjs", "tsconfig.json", "package.json"])
      cpSync(path.join(ROOT, file), path.join(copy, file));
    symlinkSync(path.join(ROOT, "node_modules"), path.join(copy, "node_modules"));
    for (const probe of probes) writeFileSync(path.join(copy, probe.file), `${probe.source}\n`);
    const run = spawnSync(
      process.execPath,
      [DEPCRUISE, "src", "--config", ".dependency-cruiser.cjs", "--output-type", "json"],
      { cwd: copy, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
    );
    if (!run.stdout) throw new Error(`dependency-cruiser failed (exit ${run.status}):\n${run.stderr}`);
    const { violations } = (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary;
    const probeFiles = new Set(probes.map((probe) => probe.file));
    probeViolations = violations.filter((violation) => probeFiles.has(violation.from));
    otherViolations = violations.filter((violation) => !probeFiles.has(violation.from));
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}, 60_000);

describe("layer boundaries (.dependency-cruiser.cjs)", () => {
  it.each(FORBIDDEN.map(([folder, source, rule], index) => [folder, source, rule, index] as const))(
    "%s may not: %s (%s)",
    (_folder, _source, rule, index) => {
      const mine = probeViolations.filter((violation) => violation.from === probes[index].file);
      expect(mine.map((violation) => violation.rule.name)).toEqual([rule]);
    },
  );

  it.each(ALLOWED.map(([folder, source], index) => [folder, source, FORBIDDEN.length + index] as const))(
    "%s may: %s",
    (_folder, _source, index) => {
      expect(probeViolations.filter((violation) => violation.from === probes[index].file)).toEqual([]);
    },
  );

  it("src/ has no import cycle and breaks no layer rule", () => {
    expect(otherViolations.map((violation) => `${violation.rule.name}: ${violation.from} → ${violation.to}`)).toEqual(
      [],
    );
  });
});
