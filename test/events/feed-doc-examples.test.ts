import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { join } from "node:path";
import { startDeliveryWorker, type DeliveryWorker } from "../../src/delivery/delivery-worker";
import { MAPLE } from "../fixtures/test-fixture";
import { graphql } from "../support/graphql";
import { postRest } from "../support/rest";
import { startTestApp, type TestApp } from "../support/test-app";
import { FAST_DELIVERY, silentLogger, until } from "./support/worker-setup";

// The curl and GraphQL examples of docs/event-feed.md and docs/changes-since.md, run as written:
// each curl command by bash against a listening server, each GraphQL operation through /graphql.

const blocks = (file: string, language: string): string[] => {
  const text = readFileSync(join(__dirname, "../..", file), "utf8");
  return [...text.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map((match) => match[1]);
};
const DOCS = ["docs/event-feed.md", "docs/changes-since.md"];

let t: TestApp;
let server: Server;
let worker: DeliveryWorker;
let cursor: string;
beforeAll(async () => {
  t = await startTestApp();
  server = t.app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  worker = startDeliveryWorker({ dataSource: t.dataSource, logger: silentLogger, config: FAST_DELIVERY });
  await postRest(t.app, "users", {
    action: "update",
    group_id: MAPLE.groupId,
    clogin_id: MAPLE.miles,
    doc: { first_name: "Miles" + Date.now() },
  });
  await until(
    async () =>
      Number((await t.dataSource.query(`SELECT COUNT(*) AS n FROM event WHERE feed_position IS NULL`))[0].n) === 0,
    10_000,
    "events in the feed",
  );
  cursor = (await postRest(t.app, "events", { action: "list", doc: { limit: 1 } })).body.end_cursor;
});
afterAll(async () => {
  await worker.stop();
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

describe.each(DOCS)("%s", (file) => {
  // Run asynchronously: the server answering curl lives in this process.
  it("every curl example answers success true when run as written", async () => {
    const commands = blocks(file, "sh").filter((block) => block.includes("curl"));
    expect(commands.length).toBeGreaterThanOrEqual(1);
    for (const command of commands) {
      const run = await promisify(execFile)("bash", ["-c", command], {
        encoding: "utf8",
        timeout: 20_000,
        env: {
          PATH: process.env.PATH,
          REGAPI: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
          API_ID: MAPLE.apiId,
          API_USER: MAPLE.apiUser,
          API_TOKEN: MAPLE.apiToken,
          CURSOR: cursor,
        },
      });
      const body = JSON.parse(run.stdout) as Record<string, unknown>;
      expect([command, body.success, body.error_code]).toEqual([command, true, undefined]);
    }
  });

  it("every GraphQL example runs without errors and returns data", async () => {
    const operations = blocks(file, "graphql");
    expect(operations.length).toBeGreaterThanOrEqual(1);
    for (const operation of operations) {
      const response = await graphql(t.app, operation, { after: cursor, since: "2026-01-01T00:00:00Z" });
      expect([operation, response.errors]).toEqual([operation, undefined]);
      expect(Object.values(response.data ?? {})[0]).toBeTruthy();
    }
  });
});
