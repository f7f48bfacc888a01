import { type z } from "zod";
import { integerInRange } from "./env-values";

/** Limits of GraphQL subscriptions over WebSocket; each one is an environment variable. */
export interface SubscriptionsConfig {
  /** SUBSCRIPTIONS_PER_CONNECTION: subscriptions one WebSocket may hold at once. */
  readonly perConnection: number;
  /** SUBSCRIPTION_CONNECTIONS_PER_ACCOUNT: WebSockets one API account (or one registrant) may hold on one instance. */
  readonly connectionsPerAccount: number;
  /** SUBSCRIPTION_IDLE_TIMEOUT_MS: a WebSocket without a subscription for this long is closed (4000). */
  readonly idleTimeoutMs: number;
  /** SUBSCRIPTION_MESSAGE_MAX_BYTES: the largest message a client may send; larger closes the socket (1009). */
  readonly messageMaxBytes: number;
  /** SUBSCRIPTION_QUEUE_MAX_EVENTS: events waiting to be sent per subscription; more closes the socket (4008). */
  readonly queueMaxEvents: number;
  /**
   * SUBSCRIPTION_POLL_MS: the fallback read of the feed by an instance with subscribers, this long
   * after activity (wake-ups, in process and through Redis, bring events sooner).
   */
  readonly pollIntervalMs: number;
  /** SUBSCRIPTION_POLL_IDLE_MS: the fallback read's interval doubles while nothing comes, up to this. */
  readonly pollIdleMs: number;
  /** SUBSCRIPTION_REAUTH_MS: how often a connection's credentials are checked again (revoked or changed: closed, 4403). */
  readonly reauthIntervalMs: number;
}

export const DEFAULT_SUBSCRIPTIONS: SubscriptionsConfig = Object.freeze({
  perConnection: 20,
  connectionsPerAccount: 20,
  idleTimeoutMs: 300_000,
  messageMaxBytes: 64 * 1024,
  queueMaxEvents: 1000,
  pollIntervalMs: 250,
  pollIdleMs: 2000,
  reauthIntervalMs: 30_000,
});

/** The subscription limits' variables (docs/graphql-clients.md#live-updates). */
export const SUBSCRIPTIONS_ENV = {
  SUBSCRIPTIONS_PER_CONNECTION: integerInRange("SUBSCRIPTIONS_PER_CONNECTION", 1, 1000).default(
    DEFAULT_SUBSCRIPTIONS.perConnection,
  ),
  SUBSCRIPTION_CONNECTIONS_PER_ACCOUNT: integerInRange("SUBSCRIPTION_CONNECTIONS_PER_ACCOUNT", 1, 10_000).default(
    DEFAULT_SUBSCRIPTIONS.connectionsPerAccount,
  ),
  SUBSCRIPTION_IDLE_TIMEOUT_MS: integerInRange("SUBSCRIPTION_IDLE_TIMEOUT_MS", 100, 86_400_000).default(
    DEFAULT_SUBSCRIPTIONS.idleTimeoutMs,
  ),
  SUBSCRIPTION_MESSAGE_MAX_BYTES: integerInRange("SUBSCRIPTION_MESSAGE_MAX_BYTES", 1024, 1024 * 1024).default(
    DEFAULT_SUBSCRIPTIONS.messageMaxBytes,
  ),
  SUBSCRIPTION_QUEUE_MAX_EVENTS: integerInRange("SUBSCRIPTION_QUEUE_MAX_EVENTS", 1, 100_000).default(
    DEFAULT_SUBSCRIPTIONS.queueMaxEvents,
  ),
  SUBSCRIPTION_POLL_MS: integerInRange("SUBSCRIPTION_POLL_MS", 10, 60_000).default(
    DEFAULT_SUBSCRIPTIONS.pollIntervalMs,
  ),
  SUBSCRIPTION_POLL_IDLE_MS: integerInRange("SUBSCRIPTION_POLL_IDLE_MS", 10, 600_000).default(
    DEFAULT_SUBSCRIPTIONS.pollIdleMs,
  ),
  SUBSCRIPTION_REAUTH_MS: integerInRange("SUBSCRIPTION_REAUTH_MS", 100, 3_600_000).default(
    DEFAULT_SUBSCRIPTIONS.reauthIntervalMs,
  ),
};

export function subscriptionsSettings(values: z.infer<z.ZodObject<typeof SUBSCRIPTIONS_ENV>>): SubscriptionsConfig {
  return Object.freeze({
    perConnection: values.SUBSCRIPTIONS_PER_CONNECTION,
    connectionsPerAccount: values.SUBSCRIPTION_CONNECTIONS_PER_ACCOUNT,
    idleTimeoutMs: values.SUBSCRIPTION_IDLE_TIMEOUT_MS,
    messageMaxBytes: values.SUBSCRIPTION_MESSAGE_MAX_BYTES,
    queueMaxEvents: values.SUBSCRIPTION_QUEUE_MAX_EVENTS,
    pollIntervalMs: values.SUBSCRIPTION_POLL_MS,
    pollIdleMs: Math.max(values.SUBSCRIPTION_POLL_MS, values.SUBSCRIPTION_POLL_IDLE_MS),
    reauthIntervalMs: values.SUBSCRIPTION_REAUTH_MS,
  });
}
