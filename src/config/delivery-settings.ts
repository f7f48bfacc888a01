import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { z } from "zod";
import type { DatabaseConfig } from "./database-settings";
import { booleanWord, integerInRange } from "./env-values";

/** The delivery worker: webhooks and trigger emails (docs/events-and-webhooks.md). */
export interface DeliveryConfig {
  /** DELIVERY_WORKER: run the worker inside the service process (default); off for a separate `regapi worker`. */
  readonly workerInService: boolean;
  /** How often an idle worker looks for due work. */
  readonly pollIntervalMs: number;
  /**
   * FEED_POLL_MS: the feed sequencer's look for committed events no wake-up announced (another
   * process's, the CLI's), this long after activity …
   */
  readonly feedPollMs: number;
  /** FEED_POLL_IDLE_MS: … doubling while nothing is found, up to this. */
  readonly feedPollIdleMs: number;
  /**
   * FEED_PASS_INTERVAL_MS: the shortest time between the starts of two feed placings woken by
   * commits, so that under a write load one placing serves many commits (0: one per wake).
   */
  readonly feedPassIntervalMs: number;
  /** Longest wait for a webhook receiver or the SMTP server. */
  readonly timeoutMs: number;
  /** First retry delay; each next one doubles (with jitter), up to an hour. */
  readonly retryBaseMs: number;
  /** Retries stop this long after the first attempt; the delivery is then failed. */
  readonly retryWindowSeconds: number;
  /** Webhook URLs may resolve to loopback, private or link-local addresses (development, tests). */
  readonly webhookAllowPrivate: boolean;
  /**
   * EVENT_RETENTION_DAYS: events fanned out longer ago than this (and with no delivery still
   * pending) are pruned by the worker; a feed cursor older than what was pruned is CURSOR_EXPIRED.
   */
  readonly eventRetentionDays: number;
  /** smtp:// or smtps:// URL; null: emails are written as .eml files to `mailDir`. */
  readonly smtpUrl: string | null;
  readonly mailDir: string;
}

/**
 * Where trigger emails go as .eml files without SMTP_URL: a folder of the system's temporary
 * folder named after the database, outside the checkout. Instances on one database share its
 * outbox and so its folder; another database (each test file's, a second instance's) gets its
 * own. An in-memory database lives as long as its process, and so does its folder's name.
 */
export function defaultMailDir(database: DatabaseConfig): string {
  const identity =
    database.kind === "sqlite"
      ? database.file === ":memory:"
        ? `memory:${process.pid}`
        : `sqlite:${resolve(database.file)}`
      : `${database.kind}://${database.host}:${database.port}/${database.database}`;
  const label =
    database.kind === "sqlite"
      ? database.file === ":memory:"
        ? "memory"
        : basename(database.file)
      : database.database;
  const digest = createHash("sha256").update(identity).digest("hex").slice(0, 10);
  return join(tmpdir(), "regapi-mail", `${label.replace(/[^A-Za-z0-9._-]/g, "_")}-${digest}`);
}

export const DEFAULT_DELIVERY: DeliveryConfig = Object.freeze({
  workerInService: true,
  pollIntervalMs: 500,
  feedPollMs: 250,
  feedPollIdleMs: 5000,
  feedPassIntervalMs: 25,
  timeoutMs: 10_000,
  retryBaseMs: 30_000,
  retryWindowSeconds: 24 * 3600,
  webhookAllowPrivate: false,
  eventRetentionDays: 30,
  smtpUrl: null,
  mailDir: defaultMailDir({ kind: "sqlite", file: ":memory:" }),
});

/** The delivery worker's variables (docs/events-and-webhooks.md). */
export const DELIVERY_ENV = {
  DELIVERY_WORKER: booleanWord("DELIVERY_WORKER").default(DEFAULT_DELIVERY.workerInService),
  DELIVERY_POLL_MS: integerInRange("DELIVERY_POLL_MS", 10, 60_000).default(DEFAULT_DELIVERY.pollIntervalMs),
  FEED_POLL_MS: integerInRange("FEED_POLL_MS", 10, 600_000).default(DEFAULT_DELIVERY.feedPollMs),
  FEED_POLL_IDLE_MS: integerInRange("FEED_POLL_IDLE_MS", 10, 3_600_000).default(DEFAULT_DELIVERY.feedPollIdleMs),
  FEED_PASS_INTERVAL_MS: integerInRange("FEED_PASS_INTERVAL_MS", 0, 1000).default(DEFAULT_DELIVERY.feedPassIntervalMs),
  DELIVERY_TIMEOUT_MS: integerInRange("DELIVERY_TIMEOUT_MS", 100, 60_000).default(DEFAULT_DELIVERY.timeoutMs),
  DELIVERY_RETRY_BASE_MS: integerInRange("DELIVERY_RETRY_BASE_MS", 10, 3_600_000).default(DEFAULT_DELIVERY.retryBaseMs),
  DELIVERY_RETRY_WINDOW_S: integerInRange("DELIVERY_RETRY_WINDOW_S", 1, 30 * 24 * 3600).default(
    DEFAULT_DELIVERY.retryWindowSeconds,
  ),
  WEBHOOK_ALLOW_PRIVATE: booleanWord("WEBHOOK_ALLOW_PRIVATE").default(DEFAULT_DELIVERY.webhookAllowPrivate),
  EVENT_RETENTION_DAYS: integerInRange("EVENT_RETENTION_DAYS", 1, 3650).default(DEFAULT_DELIVERY.eventRetentionDays),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\/\S+$/, "SMTP_URL: expected smtp://user:pass@host:port or smtps://host:port")
    .optional(),
  MAIL_DIR: z.string().optional(),
};

/** The delivery worker's settings; the mail folder defaults to one named after the database. */
export function deliverySettings(
  values: z.infer<z.ZodObject<typeof DELIVERY_ENV>>,
  database: DatabaseConfig,
): DeliveryConfig {
  return Object.freeze({
    workerInService: values.DELIVERY_WORKER,
    pollIntervalMs: values.DELIVERY_POLL_MS,
    feedPollMs: values.FEED_POLL_MS,
    feedPollIdleMs: Math.max(values.FEED_POLL_MS, values.FEED_POLL_IDLE_MS),
    feedPassIntervalMs: values.FEED_PASS_INTERVAL_MS,
    timeoutMs: values.DELIVERY_TIMEOUT_MS,
    retryBaseMs: values.DELIVERY_RETRY_BASE_MS,
    retryWindowSeconds: values.DELIVERY_RETRY_WINDOW_S,
    webhookAllowPrivate: values.WEBHOOK_ALLOW_PRIVATE,
    eventRetentionDays: values.EVENT_RETENTION_DAYS,
    smtpUrl: values.SMTP_URL ?? null,
    mailDir: values.MAIL_DIR ?? defaultMailDir(database),
  });
}
