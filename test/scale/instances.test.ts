import { builtService } from "../support/service-build";
import { hit, type Answer } from "../faults/support/load";
import { describeOnMysqlFamily } from "../support/database";
import { Haproxy } from "../support/haproxy";
import { acquireMachineLock } from "../support/machine-lock";
import { openProcessDatabase, type ProcessDatabase } from "../support/process-database";
import { ServiceInstances } from "../support/service-instances";
import { writeFigures } from "../support/figures";

// Smoke test of the multi-instance harness (issue 21): instances of the real service process on
// one database and one Redis, behind HAProxy (deploy/haproxy/instances.cfg, GET /readyz as the
// check). An instance stopped with SIGTERM leaves the rotation and comes back when restarted.
// Whether requests sent during the stop all succeed is issue 21's own test, not this one.
// SCALE_FULL=1 (npm run test:scale) runs three instances instead of two. Figures printed at the end.
jest.setTimeout(120_000);

const FULL = process.env.SCALE_FULL === "1";
const COUNT = FULL ? 3 : 2;
const figures: Record<string, number> = {};
let lock: { release(): void; waitedMs: number } | undefined;
let database: ProcessDatabase | undefined;
let instances: ServiceInstances | undefined;
let haproxy: Haproxy | undefined;

/** Sessions each instance has taken through HAProxy so far (health checks are not sessions). */
async function sessionsPerInstance(): Promise<Record<string, number>> {
  const rows = (await haproxy!.stat()).filter((row) => row.pxname === "regapi_instances" && row.svname !== "BACKEND");
  return Object.fromEntries(rows.map((row) => [row.svname, Number(row.stot)]));
}

/** `n` requests through HAProxy, each on a fresh connection (so round robin alternates). */
const throughHaproxy = (n: number): Promise<Answer[]> =>
  Promise.all(Array.from({ length: n }, (_, i) => hit(haproxy!.port, i)));

const statuses = (answers: Answer[]) => [...new Set(answers.map((answer) => answer.status))];

describeOnMysqlFamily(`${COUNT} service instances behind HAProxy`, () => {
  beforeAll(async () => {
    lock = await acquireMachineLock("scale-tests");
    database = await openProcessDatabase("scale_instances");
    const started = Date.now();
    instances = await ServiceInstances.start(builtService().mainJs, COUNT, {
      env: {
        DATABASE_URL: database.databaseUrl,
        REDIS_URL: "redis://127.0.0.1:6379",
        REDIS_KEY_PREFIX: `regapi-scale-${process.pid}:`,
        DEMO: "false",
        RATE_LIMIT_PER_MINUTE: "0",
        RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: "0",
        TRUST_PROXY: "loopback",
      },
    });
    figures.instancesStartMs = Date.now() - started;
    haproxy = await Haproxy.instances(instances.servers());
    for (const instance of instances.instances) await haproxy.waitForServer("regapi_instances", instance.name, "UP");
  }, 300_000);

  afterAll(async () => {
    await haproxy?.stop();
    await instances?.stopAll();
    await database?.remove();
    lock?.release();
    writeFigures("instances", { fullSize: FULL, ...figures });
  });

  it("HAProxy spreads requests over every instance, each answering 200", async () => {
    const before = await sessionsPerInstance();
    const answers = await throughHaproxy(10 * COUNT);
    expect(statuses(answers)).toEqual([200]);
    const after = await sessionsPerInstance();
    for (const instance of instances!.instances)
      expect(after[instance.name] - before[instance.name]).toBeGreaterThanOrEqual(5);
  });

  it("an instance stopped with SIGTERM exits 0 and leaves the rotation; restarted on its port, it comes back", async () => {
    const first = instances!.instance(1);
    const stoppedAt = Date.now();
    expect(await first.terminate()).toEqual({ code: 0, signal: null });
    await haproxy!.waitForServer("regapi_instances", first.name, "DOWN");
    figures.downAfterSigtermMs = Date.now() - stoppedAt;

    const before = await sessionsPerInstance();
    expect(statuses(await throughHaproxy(10))).toEqual([200]);
    const after = await sessionsPerInstance();
    expect(after[first.name]).toBe(before[first.name]);

    const restartedAt = Date.now();
    await first.start();
    await haproxy!.waitForServer("regapi_instances", first.name, "UP");
    figures.upAfterRestartMs = Date.now() - restartedAt;
    const answers = await throughHaproxy(10 * COUNT);
    expect(statuses(answers)).toEqual([200]);
    expect((await sessionsPerInstance())[first.name]).toBeGreaterThan(after[first.name]);
  });
});
