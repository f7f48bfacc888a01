import http from "node:http";
import Redis from "ioredis";
import { DataSource } from "typeorm";
import { parseDatabaseUrl } from "../../src/config/config";
import { buildDataSourceOptions } from "../../src/db/data-source-options";
import { createRequestContext } from "../../src/domain/context";
import { processStateOf } from "../../src/domain/process-state";
import { loadFixture } from "../../src/fixtures/load-fixture";
import { outputFields, regapi } from "../cli/support/run-in-process";
import { MAPLE, testFixture } from "../fixtures/test-fixture";
import { builtService } from "../support/service-build";
import { describeOnMysqlFamily } from "../support/database";
import { acquireMachineLock } from "../support/machine-lock";
import { PrivateMariadb } from "../support/private-mariadb";
import { ServiceInstances } from "../support/service-instances";
import { writeFigures } from "../support/figures";

// Issue 21 deliverable 4: what two instances share through Redis (REDIS_URL). Both instances run
// on a private MariaDB server, so the server's own counters (SHOW GLOBAL STATUS) count exactly
// the statements and the index entries their requests cost, and nothing else (no delivery
// worker, no rate limiter, the account cached for a minute):
// - a get_user_list walk whose pages alternate between the instances, with one of them restarted
//   in the middle, costs per page what the same walk costs on one instance: the same statements,
//   the same index and table entries read (a continuation, not a jump: the deepest page as a jump
//   reads every entry before its position as well);
// - a key revoked or rotated with the CLI stops working on both instances at once, although
//   each keeps accounts for a minute (ACCOUNT_CACHE_TTL_MS).
// SCALE_FULL=1 (npm run test:scale) walks a project of 10,000 registrants instead of 1,500.
jest.setTimeout(180_000);

const FULL = process.env.SCALE_FULL === "1";
const REGISTRANTS = FULL ? 10_000 : 1500;
const REDIS_URL = "redis://127.0.0.1:6379";
const PREFIX = `regapi-test-shared-${process.pid}:`;
const figures: Record<string, unknown> = {};
let lock: { release(): void; waitedMs: number } | undefined;
let mariadb: PrivateMariadb | undefined;
let dataSource: DataSource | undefined;
let instances: ServiceInstances | undefined;
let redis: Redis | undefined;
let organizationId: number;

const cliEnv = { REDIS_URL, REDIS_KEY_PREFIX: PREFIX, API_KEY_ROTATION_GRACE_S: "0" };

interface Reply {
  status: number;
  body: Record<string, unknown>;
}

function post(port: number, path: string, body: unknown, headers: Record<string, string>): Promise<Reply> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path,
        agent: false,
        headers: { ...headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) },
      },
      (res) => {
        let answer = "";
        res.on("data", (chunk: Buffer) => (answer += chunk.toString("utf8")));
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(answer) as Record<string, unknown> }),
        );
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

const mapleKey = { "Api-Id": MAPLE.apiId, "Api-User": MAPLE.apiUser, "Api-Token": MAPLE.apiToken };

/** The server's counters of statements and of index/table entries read, summed. */
async function serverCounters(): Promise<{ statements: number; entriesRead: number }> {
  const rows = await mariadb!.query<{ Variable_name: string; Value: string }[]>(
    `SHOW GLOBAL STATUS WHERE Variable_name IN
       ('Questions', 'Handler_read_first', 'Handler_read_key', 'Handler_read_next', 'Handler_read_rnd_next')`,
  );
  const value = (name: string) => Number(rows.find((row) => row.Variable_name === name)?.Value ?? 0);
  return {
    statements: value("Questions"),
    entriesRead:
      value("Handler_read_first") +
      value("Handler_read_key") +
      value("Handler_read_next") +
      value("Handler_read_rnd_next"),
  };
}

interface PageCost {
  position: number;
  instance: number;
  statements: number;
  entriesRead: number;
}

/** One page on instance `n`, with what it cost the server. */
async function page(n: number, position: number): Promise<{ cost: PageCost; next: number | null }> {
  const before = await serverCounters();
  const reply = await post(
    instances!.instance(n).port,
    "/reg/api2/users/",
    { action: "get_user_list", group_id: MAPLE.groupId, doc: { starting_position: position } },
    mapleKey,
  );
  const after = await serverCounters();
  expect(reply.status).toBe(200);
  return {
    cost: {
      position,
      instance: n,
      statements: after.statements - before.statements,
      entriesRead: after.entriesRead - before.entriesRead,
    },
    next: reply.body.next_starting_position as number | null,
  };
}

async function forgetWalks(): Promise<void> {
  const keys = await redis!.keys(`${PREFIX}walk:*`);
  if (keys.length > 0) await redis!.del(...keys);
}

/** Walks the whole list; `instanceFor(pageIndex)` picks the instance of each page, `between` runs before a page. */
async function walk(
  instanceFor: (pageIndex: number) => number,
  between: (pageIndex: number) => Promise<void> = async () => undefined,
): Promise<PageCost[]> {
  const costs: PageCost[] = [];
  let position: number | null = 0;
  while (position !== null) {
    await between(costs.length);
    const { cost, next } = await page(instanceFor(costs.length), position);
    costs.push(cost);
    position = next;
  }
  return costs;
}

describeOnMysqlFamily("state two instances share through Redis", () => {
  beforeAll(async () => {
    lock = await acquireMachineLock("scale-tests");
    mariadb = await PrivateMariadb.create();
    await mariadb.query("CREATE DATABASE regapi CHARACTER SET utf8mb4");
    dataSource = new DataSource(buildDataSourceOptions(parseDatabaseUrl(mariadb.url("regapi"))));
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: "each" });
    await loadFixture(createRequestContext(processStateOf(dataSource), "fixture"), testFixture());
    const seeded = await regapi(["seed", "--group", String(MAPLE.groupId), "--users", String(REGISTRANTS)], dataSource);
    expect(seeded.code).toBe(0);
    organizationId = Number(
      (await dataSource.query("SELECT organization_id FROM api_account WHERE id = ?", [Number(MAPLE.apiId)]))[0]
        .organization_id,
    );
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    instances = await ServiceInstances.start(builtService().mainJs, 2, {
      env: {
        DATABASE_URL: mariadb.url("regapi"),
        REDIS_URL,
        REDIS_KEY_PREFIX: PREFIX,
        DEMO: "false",
        RATE_LIMIT_PER_MINUTE: "0",
        RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: "0",
        DELIVERY_WORKER: "false",
        // The feed sequencer's look for events no wake-up announced would land in a page's count.
        FEED_POLL_MS: "600000",
        FEED_POLL_IDLE_MS: "600000",
        ACCOUNT_CACHE_TTL_MS: "60000",
      },
    });
  }, 300_000);

  afterAll(async () => {
    await instances?.stopAll();
    if (redis) {
      const keys = await redis.keys(`${PREFIX}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    await dataSource?.destroy();
    await mariadb?.remove();
    lock?.release();
    writeFigures("shared-state", { fullSize: FULL, ...figures });
  });

  it("a walk alternating between the instances, one restarted midway, costs per page what it costs on one", async () => {
    // Each instance has read the account once (it is kept for a minute): the walks below cost
    // only their own statements.
    await page(1, 0);
    await page(2, 0);

    await forgetWalks();
    const onOne = await walk(() => 1);
    await forgetWalks();
    const restartAt = Math.floor(onOne.length / 2);
    const alternating = await walk(
      (index) => (index % 2 === 0 ? 1 : 2),
      async (index) => {
        // Instance 2 restarts before its page: what it remembered in process would be gone.
        if (index === restartAt + (restartAt % 2 === 0 ? 1 : 0)) {
          await instances!.instance(2).restart();
          await page(2, 0); // its account cache is empty again; the jump to 0 costs what it costs
        }
      },
    );
    // The deepest page again, its position forgotten: a jump skips every index entry before it.
    const deepest = onOne[onOne.length - 1];
    await forgetWalks();
    const { cost: jump } = await page(2, deepest.position);

    figures.walk = {
      registrants: REGISTRANTS,
      pages: onOne.length,
      statementsPerPage: [...new Set(onOne.map((cost) => cost.statements))],
      entriesReadOnOne: { first: onOne[1].entriesRead, last: onOne[onOne.length - 1].entriesRead },
      entriesReadAlternating: {
        first: alternating[1].entriesRead,
        last: alternating[alternating.length - 1].entriesRead,
      },
      deepestPageAsJump: jump.entriesRead,
    };
    expect(alternating.map((cost) => cost.position)).toEqual(onOne.map((cost) => cost.position));
    expect(alternating.some((cost) => cost.instance === 2)).toBe(true);
    // The same statements, page by page.
    expect(alternating.map((cost) => cost.statements)).toEqual(onOne.map((cost) => cost.statements));
    // The same entries read, page by page, within a few (the statistics of a page's plan).
    for (const [i, cost] of alternating.entries())
      expect(Math.abs(cost.entriesRead - onOne[i].entriesRead)).toBeLessThanOrEqual(onOne[i].entriesRead * 0.1 + 20);
    // What sharing saves: the same page as a jump reads the entries before its position too.
    expect(jump.statements).toBe(deepest.statements);
    expect(jump.entriesRead - deepest.entriesRead).toBeGreaterThanOrEqual(deepest.position * 0.9);
  });

  it("a key revoked with the CLI is refused by both instances at once; a rotated key's old token too", async () => {
    const created = await regapi(
      ["api-key", "create", "--org", String(organizationId), "--user", `shared-${process.pid}@maple.test`],
      dataSource!,
      { env: cliEnv },
    );
    expect(created.code).toBe(0);
    const key = outputFields(created.stdout);
    const headers = { "Api-Id": key["Api-Id"], "Api-User": key["Api-User"], "Api-Token": key["Api-Token"] };
    const listProjects = { action: "get_project_list", group_id: MAPLE.groupId, doc: {} };
    const onBoth = async (keyHeaders: Record<string, string>) =>
      Promise.all(
        [1, 2].map(
          async (n) =>
            (await post(instances!.instance(n).port, "/reg/api2/projects/", listProjects, keyHeaders)).status,
        ),
      );

    // Both instances have read and kept the account (for a minute).
    expect(await onBoth(headers)).toEqual([200, 200]);

    // Rotated without grace: the old token stops, the new one works, on both, at once.
    const rotated = await regapi(["api-key", "rotate", key["Api-Id"]], dataSource!, { env: cliEnv });
    expect(rotated.code).toBe(0);
    expect(rotated.stderr).toContain("Running instances told through Redis: 2.");
    const rotatedAt = Date.now();
    const newHeaders = { ...headers, "Api-Token": outputFields(rotated.stdout)["Api-Token"] };
    expect(await onBoth(headers)).toEqual([401, 401]);
    expect(await onBoth(newHeaders)).toEqual([200, 200]);

    // Revoked: refused on both at once.
    const revoked = await regapi(["api-key", "revoke", key["Api-Id"]], dataSource!, { env: cliEnv });
    expect(revoked.code).toBe(0);
    expect(revoked.stderr).toContain("Running instances told through Redis: 2.");
    const revokedAt = Date.now();
    expect(await onBoth(newHeaders)).toEqual([401, 401]);
    figures.keyChanges = { refusedAfterRotateMs: Date.now() - rotatedAt, refusedAfterRevokeMs: Date.now() - revokedAt };
  });
});
