import { createConnection, createPool, type Pool, type PoolConnection } from "mysql2/promise";

// The counter designs considered for issue 26, measured side by side on MariaDB with the shape of
// a registration-day write: each transaction inserts a registration and a cart line, then adds to
// the project's counters, then commits. 40 connections write into one project at once. A
// transaction that loses a deadlock is rerun (up to 4 runs, as inTransaction did when the
// candidates were measured; it now gives a deadlock 8); what still fails is counted. After each
// run, a totals read is timed.
//   npm run bench:counters                       # mariadb://root@127.0.0.1:3306, 40 clients, 2000 writes
// Environment: BENCH_MARIADB_URL, BENCH_CLIENTS (40), BENCH_WRITES (2000).
//
// Candidates:
//   insert-select  the old statement: INSERT … SELECT over the registration and its cart lines,
//                  one row per project (shared next-key locks on rows others insert)
//   one-row        a literal delta upserted into one row per project (no read; one hot row)
//   slots-N        a literal delta upserted into one of N rows per project, picked at random
//   delta-log      a literal delta inserted as a new row (insert-only), folded into one row per
//                  project every 200 ms by a background job; reads add the unfolded rows

const URL = (process.env.BENCH_MARIADB_URL ?? "mariadb://root@127.0.0.1:3306").replace(/^mariadb:/, "mysql:");
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 40);
const WRITES = Number(process.env.BENCH_WRITES ?? 2000);
const DATABASE = "regapi_bench_counters";
const PROJECT = 1;

type Candidate = "insert-select" | "one-row" | "slots-4" | "slots-16" | "slots-64" | "delta-log";
const CANDIDATES: Candidate[] = ["insert-select", "one-row", "slots-4", "slots-16", "slots-64", "delta-log"];

async function prepare(pool: Pool): Promise<void> {
  for (const sql of [
    `DROP TABLE IF EXISTS cand_registration, cand_cart_line, cand_counter, cand_delta`,
    `CREATE TABLE cand_registration (uid INT AUTO_INCREMENT PRIMARY KEY, project_id INT NOT NULL,
       person VARCHAR(64) NOT NULL, KEY (project_id, uid)) ENGINE=InnoDB`,
    `CREATE TABLE cand_cart_line (id INT AUTO_INCREMENT PRIMARY KEY, registration_id INT NOT NULL,
       cents INT NOT NULL, KEY (registration_id)) ENGINE=InnoDB`,
    `CREATE TABLE cand_counter (project_id INT NOT NULL, slot SMALLINT NOT NULL DEFAULT 0,
       registrations BIGINT NOT NULL DEFAULT 0, cents BIGINT NOT NULL DEFAULT 0,
       PRIMARY KEY (project_id, slot)) ENGINE=InnoDB`,
    `CREATE TABLE cand_delta (id BIGINT AUTO_INCREMENT PRIMARY KEY, project_id INT NOT NULL,
       registrations BIGINT NOT NULL, cents BIGINT NOT NULL, KEY (project_id, id)) ENGINE=InnoDB`,
  ])
    await pool.query(sql);
}

// The old writes counted twice, as regapi's create did: the registration (with the cart lines it
// had, read by the INSERT … SELECT) right after inserting it, then the trigger's cart line. The
// other candidates add one literal delta at the end of the transaction.
async function countRegistrationBeforeLines(connection: PoolConnection, uid: number): Promise<void> {
  await connection.query(
    `INSERT INTO cand_counter (project_id, slot, registrations, cents)
     SELECT r.project_id, 0, 1, (SELECT COALESCE(SUM(c.cents), 0) FROM cand_cart_line c WHERE c.registration_id = r.uid)
       FROM cand_registration r WHERE r.uid = ?
     ON DUPLICATE KEY UPDATE registrations = registrations + VALUES(registrations), cents = cents + VALUES(cents)`,
    [uid],
  );
}

async function addToCounters(connection: PoolConnection, candidate: Candidate, uid: number, cents: number) {
  switch (candidate) {
    case "insert-select":
      await connection.query(
        `INSERT INTO cand_counter (project_id, slot, registrations, cents)
         SELECT r.project_id, 0, 0, ? FROM cand_registration r WHERE r.uid = ?
         ON DUPLICATE KEY UPDATE registrations = registrations + VALUES(registrations), cents = cents + VALUES(cents)`,
        [cents, uid],
      );
      return;
    case "delta-log":
      await connection.query(`INSERT INTO cand_delta (project_id, registrations, cents) VALUES (?, 1, ?)`, [
        PROJECT,
        cents,
      ]);
      return;
    default: {
      const slots = candidate === "one-row" ? 1 : Number(candidate.split("-")[1]);
      await connection.query(
        `INSERT INTO cand_counter (project_id, slot, registrations, cents) VALUES (?, ?, 1, ?)
         ON DUPLICATE KEY UPDATE registrations = registrations + VALUES(registrations), cents = cents + VALUES(cents)`,
        [PROJECT, Math.floor(Math.random() * slots), cents],
      );
    }
  }
}

/** One registration-day write; reruns a deadlock or lock wait loser like inTransaction. */
async function write(
  pool: Pool,
  candidate: Candidate,
  n: number,
): Promise<{ ms: number; reruns: number; failed: boolean }> {
  const started = performance.now();
  for (let attempt = 1; ; attempt += 1) {
    const connection = await pool.getConnection();
    try {
      await connection.query("START TRANSACTION");
      const [registration] = (await connection.query(
        `INSERT INTO cand_registration (project_id, person) VALUES (?, ?)`,
        [PROJECT, `p${n}`],
      )) as unknown as [{ insertId: number }];
      const cents = 35_000;
      if (candidate === "insert-select") await countRegistrationBeforeLines(connection, registration.insertId);
      await connection.query(`INSERT INTO cand_cart_line (registration_id, cents) VALUES (?, ?)`, [
        registration.insertId,
        cents,
      ]);
      await addToCounters(connection, candidate, registration.insertId, cents);
      await connection.query("COMMIT");
      return { ms: performance.now() - started, reruns: attempt - 1, failed: false };
    } catch (error) {
      await connection.query("ROLLBACK").catch(() => undefined);
      const errno = (error as { errno?: number }).errno;
      if ((errno !== 1213 && errno !== 1205) || attempt >= 4)
        return { ms: performance.now() - started, reruns: attempt - 1, failed: true };
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * 2 ** attempt));
    } finally {
      connection.release();
    }
  }
}

/** The delta log's background job: moves the deltas written so far into the folded row. */
async function fold(pool: Pool): Promise<void> {
  const connection = await pool.getConnection();
  try {
    await connection.query("START TRANSACTION");
    const [[last]] = (await connection.query(`SELECT COALESCE(MAX(id), 0) AS id FROM cand_delta`)) as unknown as [
      [{ id: number }],
    ];
    await connection.query(
      `INSERT INTO cand_counter (project_id, slot, registrations, cents)
       SELECT project_id, 0, SUM(registrations), SUM(cents) FROM cand_delta WHERE id <= ? GROUP BY project_id
       ON DUPLICATE KEY UPDATE registrations = registrations + VALUES(registrations), cents = cents + VALUES(cents)`,
      [last.id],
    );
    await connection.query(`DELETE FROM cand_delta WHERE id <= ?`, [last.id]);
    await connection.query("COMMIT");
  } catch {
    await connection.query("ROLLBACK").catch(() => undefined);
  } finally {
    connection.release();
  }
}

async function readTotals(pool: Pool, candidate: Candidate): Promise<{ total: number; ms: number; rows: number }> {
  const started = performance.now();
  const [[row]] = (await pool.query(
    candidate === "delta-log"
      ? `SELECT (SELECT COALESCE(SUM(registrations), 0) FROM cand_counter WHERE project_id = ?)
              + (SELECT COALESCE(SUM(registrations), 0) FROM cand_delta WHERE project_id = ?) AS total,
                (SELECT COUNT(*) FROM cand_counter WHERE project_id = ?) + (SELECT COUNT(*) FROM cand_delta WHERE project_id = ?) AS n`
      : `SELECT COALESCE(SUM(registrations), 0) AS total, COUNT(*) AS n FROM cand_counter WHERE project_id = ?`,
    candidate === "delta-log" ? [PROJECT, PROJECT, PROJECT, PROJECT] : [PROJECT],
  )) as unknown as [[{ total: number | string; n: number | string }]];
  return { total: Number(row.total), ms: performance.now() - started, rows: Number(row.n) };
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];

async function main(): Promise<void> {
  const admin = await createConnection({ uri: URL });
  await admin.query(`CREATE DATABASE IF NOT EXISTS ${DATABASE}`);
  await admin.end();
  const pool = createPool({ uri: `${URL}/${DATABASE}`, connectionLimit: CLIENTS });
  console.log(`counter candidates: ${WRITES} writes from ${CLIENTS} connections into one project (MariaDB)`);
  console.log("| candidate | writes/s | p50 ms | p99 ms | reruns | failed | totals read | rows read | exact |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  try {
    for (const candidate of CANDIDATES) {
      await prepare(pool);
      let next = 0;
      const results: { ms: number; reruns: number; failed: boolean }[] = [];
      const folding =
        candidate === "delta-log" ? setInterval(() => void fold(pool), 200) : (null as NodeJS.Timeout | null);
      const started = performance.now();
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (next < WRITES) results.push(await write(pool, candidate, (next += 1)));
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      // Read while the log still holds unfolded rows, as a request would.
      const totals = await readTotals(pool, candidate);
      if (folding) clearInterval(folding);
      const times = results.map((r) => r.ms).sort((a, b) => a - b);
      const succeeded = results.filter((r) => !r.failed).length;
      console.log(
        `| ${candidate} | ${(succeeded / seconds).toFixed(0)} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} | ${results.reduce((n, r) => n + r.reruns, 0)} | ${results.length - succeeded} | ${totals.ms.toFixed(2)} ms | ${totals.rows} | ${totals.total === succeeded ? "yes" : `no (${totals.total} for ${succeeded})`} |`,
      );
    }
  } finally {
    await pool.query(`DROP DATABASE ${DATABASE}`);
    await pool.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
