import { Router } from "express";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { readDeliveryBacklog } from "../data/delivery.data";
import type { ReplicaSet } from "../db/replicas";
import type { ProcessState } from "../domain/process-state";
import { mysqlPoolOf, poolCounts } from "../db/driver-internals";
import type { RequestLabels } from "./request-labels";
import { LabelledHistogram } from "./labelled-histogram";

/** Prometheus metrics of one app instance, in a registry of its own (tests build several apps). */
export interface AppMetrics {
  readonly registry: Registry;
  observeRequest(labels: RequestLabels, status: number, seconds: number, sqlStatements: number): void;
  /** Reports the GraphQL WebSocket connections and subscriptions of this instance. */
  observeSubscriptions(source: { readonly connectionCount: number; readonly subscriptionCount: number }): void;
  /** GET /metrics in the Prometheus text format. */
  router(): Router;
}

export function createMetrics(state: ProcessState): AppMetrics {
  const { dataSource } = state;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  // Counted per request in maps of their own, by a key made of the label values (see
  // labelled-histogram.ts); prom-client's objects see them at scrape time.
  const requestCounts = new Map<string, { labels: Record<string, string>; count: number }>();
  new Counter({
    name: "regapi_http_requests_total",
    help: "HTTP requests by endpoint, action (legacy action or GraphQL root field) and status.",
    labelNames: ["endpoint", "action", "status"],
    registers: [registry],
    collect() {
      this.reset();
      for (const { labels, count } of requestCounts.values()) this.inc(labels, count);
    },
  });
  const duration = new LabelledHistogram(
    "regapi_http_request_duration_seconds",
    "HTTP request latency in seconds, by endpoint and action.",
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registry,
  );
  const statements = new LabelledHistogram(
    "regapi_sql_statements_per_request",
    "SQL statements issued per HTTP request, by endpoint.",
    [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 100],
    registry,
  );

  // Only the MySQL/MariaDB driver has a pool; SQLite works on one connection.
  if (dataSource.options.type !== "better-sqlite3") {
    new Gauge({
      name: "regapi_db_pool_connections",
      help: "Database pool connections by state: in_use, idle; max is the configured pool size.",
      labelNames: ["state"],
      registers: [registry],
      collect() {
        const { all, idle, max } = poolCounts(mysqlPoolOf(dataSource));
        this.set({ state: "in_use" }, all - idle);
        this.set({ state: "idle" }, idle);
        this.set({ state: "max" }, max);
      },
    });
    new Gauge({
      name: "regapi_db_pool_waiting_requests",
      help: "Requests waiting for a free database connection.",
      registers: [registry],
      collect() {
        this.set(poolCounts(mysqlPoolOf(dataSource)).waiting);
      },
    });
  }

  // Units of work inTransaction reran after losing a deadlock, a lock wait or their session before
  // COMMIT, and those that still failed after every rerun (answered 503), by the action the unit
  // of work names: src/db/transaction-conflicts.ts keeps the tallies. Only actions that reran appear.
  new Counter({
    name: "regapi_transaction_reruns_total",
    help: "Transactions rerun by inTransaction, by cause (deadlock, lock_wait_timeout, connection_lost: the session was lost before COMMIT) and action (users.add_email, delivery.fan_out, …); exhausted: still failing after every rerun (answered 503).",
    labelNames: ["cause", "action"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [action, counts] of state.reruns.byAction)
        for (const cause of ["deadlock", "lock_wait_timeout", "connection_lost", "exhausted"] as const)
          this.inc({ cause, action }, counts[cause]);
    },
  });

  // Read at scrape time from the tables the worker drains, so every instance reports the shared
  // backlog of the database, whichever instance runs the worker.
  new Gauge({
    name: "regapi_delivery_backlog",
    help: "Delivery work not yet done: kind=events (not yet fanned out), webhooks (deliveries pending), emails (queued).",
    labelNames: ["kind"],
    registers: [registry],
    async collect() {
      const backlog = await readDeliveryBacklog(dataSource.manager);
      this.set({ kind: "events" }, backlog.undispatchedEvents);
      this.set({ kind: "webhooks" }, backlog.pendingDeliveries);
      this.set({ kind: "emails" }, backlog.queuedEmails);
    },
  });

  if (state.replicas) addReplicaMetrics(registry, state.replicas);

  return {
    registry,
    observeRequest({ endpoint, action }, status, seconds, sqlStatements) {
      const key = `${endpoint}\u0000${action}`;
      const countKey = `${key}\u0000${status}`;
      const counted = requestCounts.get(countKey);
      if (counted) counted.count += 1;
      else requestCounts.set(countKey, { labels: { endpoint, action, status: String(status) }, count: 1 });
      duration.observe(key, () => ({ endpoint, action }), seconds);
      statements.observe(endpoint, () => ({ endpoint }), sqlStatements);
    },
    observeSubscriptions(source) {
      new Gauge({
        name: "regapi_graphql_ws_connections",
        help: "Open GraphQL WebSocket connections on this instance.",
        registers: [registry],
        collect() {
          this.set(source.connectionCount);
        },
      });
      new Gauge({
        name: "regapi_graphql_subscriptions",
        help: "Active GraphQL subscriptions on this instance (each waits for events from the feed).",
        registers: [registry],
        collect() {
          this.set(source.subscriptionCount);
        },
      });
    },
    router() {
      const router = Router();
      router.get("/metrics", async (_req, res) => {
        res.setHeader("Content-Type", registry.contentType);
        res.send(await registry.metrics());
      });
      return router;
    },
  };
}

/** Read replicas (src/db/replicas.ts): state and lag per replica, where reads went, read-your-writes waits. */
function addReplicaMetrics(registry: Registry, replicas: ReplicaSet): void {
  addReplicaStateMetrics(registry, replicas);
  addReplicaReadMetrics(registry, replicas);
}

/** Each replica's place in the rotation and its lag. */
function addReplicaStateMetrics(registry: Registry, replicas: ReplicaSet): void {
  const set = () => replicas;
  new Gauge({
    name: "regapi_replica_in_rotation",
    help: "1 while a replica serves reads, 0 while it is out of the rotation (down or lagging).",
    labelNames: ["replica"],
    registers: [registry],
    collect() {
      this.reset();
      for (const replica of set()?.report() ?? []) this.set({ replica: replica.name }, replica.state === "up" ? 1 : 0);
    },
  });
  new Gauge({
    name: "regapi_replica_lag_seconds",
    help: "How far each replica is behind the primary (Seconds_Behind_Master, or since the primary's first transaction it has not applied); absent while unknown.",
    labelNames: ["replica"],
    registers: [registry],
    collect() {
      this.reset();
      for (const replica of set()?.report() ?? [])
        if (replica.lagSeconds !== null) this.set({ replica: replica.name }, replica.lagSeconds);
    },
  });
}

/** Where lock-free reads ran, why some went to the primary, and the read-your-writes waits. */
function addReplicaReadMetrics(registry: Registry, replicas: ReplicaSet): void {
  const set = () => replicas;
  new Counter({
    name: "regapi_db_reads_total",
    help: "Lock-free reads (requests) by where they ran: primary or replica:<host:port>.",
    labelNames: ["target"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [target, count] of set()?.counters.reads ?? []) this.inc({ target }, count);
    },
  });
  new Counter({
    name: "regapi_replica_fallbacks_total",
    help: "Lock-free reads sent to the primary although replicas are configured, by reason: no_replica_in_rotation, wait_timed_out (read-your-writes), replica_failed, position_unknown (the position store did not answer).",
    labelNames: ["reason"],
    registers: [registry],
    collect() {
      this.reset();
      for (const [reason, count] of set()?.counters.fallbacks ?? []) this.inc({ reason }, count);
    },
  });
  new Counter({
    name: "regapi_read_your_writes_waits_total",
    help: "Reads on a replica that had to be at a principal's (or the header's) position: applied (waited, then read there), timed_out (read on the primary), not_needed (already there).",
    labelNames: ["outcome"],
    registers: [registry],
    collect() {
      const waits = set()?.counters.waits;
      this.reset();
      if (!waits) return;
      this.inc({ outcome: "applied" }, waits.applied);
      this.inc({ outcome: "timed_out" }, waits.timedOut);
      this.inc({ outcome: "not_needed" }, waits.notNeeded);
    },
  });
  const waitSeconds = new Histogram({
    name: "regapi_read_your_writes_wait_seconds",
    help: "Time spent in MASTER_GTID_WAIT before a read on a replica (timed-out waits included).",
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1],
    registers: [registry],
  });
  set()?.onWait((_event, seconds) => waitSeconds.observe(seconds));
}
