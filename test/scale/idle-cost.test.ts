import type { RowDataPacket } from "mysql2/promise";
import { setTimeout as sleep } from "node:timers/promises";
import { DataSource } from "typeorm";
import { createApp, type RegapiApp } from "../../src/app";
import { configWith, DEFAULT_REPLICAS, RATE_LIMITS_OFF, type DatabaseConfig } from "../../src/config/config";
import { buildDataSourceOptions } from "../../src/db/data-source-options";
import { createRequestContext } from "../../src/domain/context";
import { processStateOf } from "../../src/domain/process-state";
import { loadFixture } from "../../src/fixtures/load-fixture";
import { createLogger } from "../../src/http/logger";
import { startRuntime, type Runtime } from "../../src/runtime/runtime";
import { testFixture } from "../fixtures/test-fixture";
import { describeOnMysqlFamily } from "../support/database";
import { writeFigures } from "../support/figures";
import { acquireMachineLock } from "../support/machine-lock";
import { startPrimaryAndReplica, type PrivateMariadb } from "../support/private-mariadb";

// Issue 36 item 6: an instance nobody calls costs the database at most 2 statements a second,
// with a read replica and the delivery worker on (and Redis): what runs for the process (replica
// health, the worker, the feed sequencer, live events) backs off while idle and samples nothing
// it does not need. Counted on a private primary (SHOW GLOBAL STATUS 'Questions'), where nothing
// else runs.

const WINDOW_MS = 10_000;
/** Start-up's own statements (migrations checked, the first looks) are behind it by then. */
const SETTLE_MS = 3_000;
const MAX_PER_SECOND = 2;

let lock: { release(): void; waitedMs: number } | undefined;
let primary: PrivateMariadb | undefined;
let replica: PrivateMariadb | undefined;
let dataSource: DataSource | undefined;
let runtime: Runtime | undefined;
let regapi: RegapiApp | undefined;

async function questions(server: PrivateMariadb): Promise<number> {
  const [row] = await server.query<RowDataPacket[]>("SHOW GLOBAL STATUS LIKE 'Questions'");
  return Number(row.Value);
}

describeOnMysqlFamily("an idle instance", () => {
  beforeAll(async () => {
    lock = await acquireMachineLock("scale-tests");
    ({ primary, replica } = await startPrimaryAndReplica());
    await primary.query("CREATE DATABASE regapi");
    const database: DatabaseConfig = {
      kind: "mariadb",
      host: "127.0.0.1",
      port: primary.port,
      user: "root",
      password: "",
      database: "regapi",
    };
    dataSource = new DataSource(buildDataSourceOptions(database));
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: "each" });
    await loadFixture(createRequestContext(processStateOf(dataSource), "fixture"), testFixture());
    expect(await replica.waitForGtid(await primary.gtidBinlogPos(), 20)).toBe(0);
    const config = configWith({
      database,
      rateLimit: RATE_LIMITS_OFF,
      sharedState: { redisUrl: "redis://127.0.0.1:6379", keyPrefix: `regapi-idle-${process.pid}:` },
      replicas: {
        ...DEFAULT_REPLICAS,
        urls: [replica.url("regapi")],
        databases: [{ ...database, port: replica.port }],
      },
    });
    const logger = createLogger("silent");
    runtime = await startRuntime({ dataSource, config, logger, deliveryWorker: true });
    regapi = await createApp({ dataSource, logger, config, runtime });
  }, 300_000);

  afterAll(async () => {
    await regapi?.stop();
    await runtime?.stop();
    await dataSource?.destroy();
    await primary?.remove();
    await replica?.remove();
    lock?.release();
  });

  it(`costs the primary at most ${MAX_PER_SECOND} statements a second over ${WINDOW_MS / 1000} s, replica and delivery worker on`, async () => {
    expect(runtime!.worker).not.toBeNull();
    await sleep(SETTLE_MS);
    expect(runtime!.replicas!.report()).toMatchObject([{ state: "up" }]);
    const before = await questions(primary!);
    await sleep(WINDOW_MS);
    // The second SHOW STATUS counts itself.
    const statements = (await questions(primary!)) - before - 1;
    writeFigures("idle-cost", { windowMs: WINDOW_MS, settleMs: SETTLE_MS, statementsOnPrimary: statements });
    expect(runtime!.replicas!.report()).toMatchObject([{ state: "up" }]);
    expect(statements).toBeLessThanOrEqual((MAX_PER_SECOND * WINDOW_MS) / 1000);
  }, 60_000);
});
