import { createConnection, createPool, type RowDataPacket } from "mysql2/promise";
import { describeOnMysqlFamily } from "../support/database";
import { acquireMachineLock } from "../support/machine-lock";
import { startPrimaryAndReplica, type PrivateMariadb } from "../support/private-mariadb";
import { waitUntil } from "../support/processes";
import { writeFigures } from "../support/figures";

// Smoke test of the replication harness (issue 21): a private GTID primary and replica, lag on
// demand, and the replica's behaviour when the primary goes away. MariaDB run only (the servers
// are private, but the harness is only needed there). Figures are printed at the end.
jest.setTimeout(120_000);

const figures: Record<string, number> = {};
let lock: { release(): void; waitedMs: number } | undefined;
let primary: PrivateMariadb | undefined;
let replica: PrivateMariadb | undefined;

const rowsOn = async (server: PrivateMariadb) =>
  (await server.query<RowDataPacket[]>("SELECT v FROM scale.t ORDER BY id")).map((row) => Number(row.v));

describeOnMysqlFamily("a private GTID primary and replica", () => {
  beforeAll(async () => {
    lock = await acquireMachineLock("scale-tests");
    const started = Date.now();
    ({ primary, replica } = await startPrimaryAndReplica());
    figures.pairStartMs = Date.now() - started;
    await primary.query("CREATE DATABASE scale");
    await primary.query("CREATE TABLE scale.t (id INT PRIMARY KEY AUTO_INCREMENT, v INT NOT NULL)");
  }, 300_000);

  afterAll(async () => {
    await primary?.remove();
    await replica?.remove();
    lock?.release();
    writeFigures("replication", figures);
  });

  it("applies a write on the replica; @@last_gtid of the connection that committed is the position to wait for", async () => {
    const pool = createPool({ host: "127.0.0.1", port: primary!.port, user: "root", connectionLimit: 2 });
    try {
      const writer = await pool.getConnection();
      const other = await pool.getConnection();
      await writer.query("INSERT INTO scale.t (v) VALUES (1)");
      const [[{ gtid }]] = await writer.query<RowDataPacket[]>("SELECT @@last_gtid AS gtid");
      expect(gtid).toMatch(/^0-1-\d+$/);
      expect(gtid).toBe(await primary!.gtidBinlogPos());
      // A session's own: the other pooled connection has committed nothing.
      const [[{ gtid: otherGtid }]] = await other.query<RowDataPacket[]>("SELECT @@last_gtid AS gtid");
      expect(otherGtid).toBe("");
      // And it stays after a transaction that writes nothing: whoever borrows this connection next
      // reads the earlier write's GTID, so it is only meaningful right after a commit that wrote.
      await writer.query("START TRANSACTION");
      await writer.query("SELECT COUNT(*) FROM scale.t");
      await writer.query("COMMIT");
      const [[{ gtid: afterRead }]] = await writer.query<RowDataPacket[]>("SELECT @@last_gtid AS gtid");
      expect(afterRead).toBe(gtid);
      writer.release();
      other.release();

      expect(await replica!.waitForGtid(gtid, 5)).toBe(0);
      expect(await rowsOn(replica!)).toEqual([1]);
    } finally {
      await pool.end();
    }
  });

  it("lags on demand: with the SQL thread stopped a write is fetched, not applied; MASTER_GTID_WAIT times out after 0.2 s", async () => {
    await replica!.stopApplying();
    await primary!.query("INSERT INTO scale.t (v) VALUES (2)");
    const position = await primary!.gtidBinlogPos();
    const status = await waitUntil("the IO thread to fetch the write", async () => {
      const seen = await replica!.replicaStatus();
      return seen.gtidIoPos === position && seen;
    });
    expect(status).toMatchObject({ ioRunning: true, sqlRunning: false, secondsBehindMaster: null });
    expect(status.gtidSlavePos).not.toBe(position);
    const waitedFrom = Date.now();
    expect(await replica!.waitForGtid(position, 0.2)).toBe(-1);
    figures.gtidWait02Ms = Date.now() - waitedFrom;
    expect(await rowsOn(replica!)).toEqual([1]);

    await replica!.resumeApplying();
    expect(await replica!.waitForGtid(position, 5)).toBe(0);
    expect(await rowsOn(replica!)).toEqual([1, 2]);
  });

  it("Seconds_Behind_Master counts while applying is blocked by a read lock, and returns to 0", async () => {
    const hold = await replica!.blockApplying();
    try {
      await primary!.query("INSERT INTO scale.t (v) VALUES (3)");
      const lagging = await waitUntil("Seconds_Behind_Master >= 2", async () => {
        const seen = await replica!.replicaStatus();
        return (seen.secondsBehindMaster ?? 0) >= 2 && seen;
      });
      expect(lagging).toMatchObject({ ioRunning: true, sqlRunning: true });
    } finally {
      await hold.release();
    }
    expect(await replica!.waitForGtid(await primary!.gtidBinlogPos(), 5)).toBe(0);
    expect((await replica!.replicaStatus()).secondsBehindMaster).toBe(0);
  });

  it("the replica reconnects by itself when the primary is killed and started again", async () => {
    await primary!.kill();
    await replica!.waitForReplicaThreads({ io: false });
    const restartedAt = Date.now();
    await primary!.start();
    await primary!.query("INSERT INTO scale.t (v) VALUES (4)");
    expect(await replica!.waitForGtid(await primary!.gtidBinlogPos(), 10)).toBe(0);
    figures.replicaCaughtUpAfterPrimaryRestartMs = Date.now() - restartedAt;
    expect(await rowsOn(replica!)).toEqual([1, 2, 3, 4]);
    expect(await replica!.replicaStatus()).toMatchObject({ ioRunning: true, sqlRunning: true, lastIoError: "" });
  });

  it("a killed replica resumes from its GTID position when started again", async () => {
    await replica!.kill();
    await primary!.query("INSERT INTO scale.t (v) VALUES (5)");
    await replica!.start();
    expect(await replica!.waitForGtid(await primary!.gtidBinlogPos(), 10)).toBe(0);
    expect(await rowsOn(replica!)).toEqual([1, 2, 3, 4, 5]);
    // A connection the test holds sees the same.
    const reader = await createConnection({ host: "127.0.0.1", port: replica!.port, user: "root" });
    const [rows] = await reader.query<RowDataPacket[]>("SELECT COUNT(*) AS n FROM scale.t");
    await reader.end();
    expect(Number(rows[0].n)).toBe(5);
  });
});
