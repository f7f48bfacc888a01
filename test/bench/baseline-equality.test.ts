import { createPool, type Pool } from "mysql2/promise";
import request from "supertest";
import { createBaselineApp } from "../../bench/baseline/server";
import { BENCH_SCENARIOS } from "../../bench/scenarios";
import { seedRegistrants } from "../../src/cli/seed/seed-registrants";
import { DEMO_FIXTURE } from "../../src/fixtures/demo";
import { describeOnMysqlFamily } from "../support/database";
import { startTestApp, type TestApp } from "../support/test-app";

// Issue 12 §1: the hand-written baseline of the benchmark answers every benchmark request with
// the same bytes as regapi, so the side-by-side figures compare equal work. The baseline speaks
// mysql2 only: MySQL/MariaDB runs.

let t: TestApp;
let pool: Pool;

describeOnMysqlFamily("the benchmark baseline answers as regapi does (issue 12)", () => {
  beforeAll(async () => {
    t = await startTestApp({ fixture: DEMO_FIXTURE });
    await seedRegistrants(t.state, { groupId: 100909072, users: 120 });
    if (t.config.kind === "sqlite") throw new Error("chosen for MySQL/MariaDB only");
    const { host, port, user, password, database } = t.config;
    pool = createPool({ host, port, user, password, database, timezone: "Z", charset: "utf8mb4", connectionLimit: 2 });
  });
  afterAll(async () => {
    await pool.end();
    await t.close();
  });

  const baselineApp = () => createBaselineApp(pool);

  it.each(BENCH_SCENARIOS.map((scenario) => [scenario.name, scenario] as const))(
    "%s: the same status and bytes",
    async (_name, scenario) => {
      const send = (app: Parameters<typeof request>[0], path: string, body: unknown) =>
        request(app)
          .post(path)
          .set(scenario.headers)
          .set("content-type", "application/json")
          .send(JSON.stringify(body));
      // The first call settles state a repeated call finds (forms marked complete stay complete).
      await send(t.app, scenario.regapi.path, scenario.regapi.body);
      const ours = await send(t.app, scenario.regapi.path, scenario.regapi.body);
      const theirs = await send(baselineApp(), scenario.baseline.path, scenario.baseline.body);
      expect(ours.status).toBe(200);
      expect(theirs.status).toBe(ours.status);
      expect(theirs.text).toBe(ours.text);
    },
  );
});
