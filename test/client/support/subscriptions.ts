import { createClient, type Client as WsClient, type ExecutionResult } from "graphql-ws";
import { Client as UrqlClient, subscriptionExchange } from "urql";
import WebSocket from "ws";

// What the subscription tests share: graphql-ws clients (the library Apollo Client's
// GraphQLWsLink and urql's subscriptionExchange run on) and bounded waits for what they receive.

export interface ClosedEvent {
  code: number;
  reason: string;
}

/** A graphql-ws client that never retries, and remembers how its socket closed. */
export function wsClient(
  url: string,
  connectionParams: Record<string, string> = {},
  options: { lazy?: boolean; origin?: string } = {},
): { client: WsClient; closed: Promise<ClosedEvent> } {
  let closedWith: (event: ClosedEvent) => void = () => undefined;
  const closed = new Promise<ClosedEvent>((resolve) => (closedWith = resolve));
  const origin = options.origin;
  const client = createClient({
    url,
    webSocketImpl: origin
      ? class extends WebSocket {
          constructor(address: string, protocols?: string | string[]) {
            super(address, protocols, { headers: { Origin: origin } });
          }
        }
      : WebSocket,
    connectionParams,
    lazy: options.lazy ?? true,
    // The tests that connect eagerly expect the close; graphql-ws would print it to the console.
    onNonLazyError: () => undefined,
    retryAttempts: 0,
    on: {
      closed: (event) => {
        const { code, reason } = event as { code: number; reason: string };
        closedWith({ code, reason: String(reason) });
      },
    },
  });
  return { client, closed };
}

/** Resolves within `ms` or fails naming what it waited for. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
    }),
  ]);
}

/** The first result of a subscription through a graphql-ws client (its data or its errors), then completes it. */
export function firstResult(
  client: WsClient,
  query: string,
  variables: Record<string, unknown>,
): { result: Promise<ExecutionResult | { errors: readonly unknown[] }>; dispose(): void } {
  let dispose: () => void = () => undefined;
  const result = new Promise<ExecutionResult | { errors: readonly unknown[] }>((resolve, reject) => {
    dispose = client.subscribe(
      { query, variables },
      {
        next: (value) => {
          resolve(value as ExecutionResult);
          dispose();
        },
        error: (error) => (Array.isArray(error) ? resolve({ errors: error as unknown[] }) : reject(error as Error)),
        complete: () => undefined,
      },
    );
  });
  return { result, dispose: () => dispose() };
}

/**
 * Calls `write` until `received` resolves (at most `attempts` times, `gapMs` apart): a new
 * subscription starts with the events that join the feed after the server registered it, which
 * the client cannot see, so the first write may come before.
 */
export async function writeUntilReceived<T>(
  received: Promise<T>,
  write: (attempt: number) => Promise<unknown>,
  attempts = 6,
  gapMs = 1500,
): Promise<T> {
  let settled = false;
  const watched = received.finally(() => (settled = true));
  for (let attempt = 1; attempt <= attempts && !settled; attempt++) {
    await write(attempt);
    let gap: NodeJS.Timeout | undefined;
    await Promise.race([watched.catch(() => undefined), new Promise((resolve) => (gap = setTimeout(resolve, gapMs)))]);
    clearTimeout(gap);
  }
  return within(watched, 1, "event after the writes");
}

/** An urql client whose subscriptions go over `socket` (urql's documented graphql-ws recipe). */
export function urqlOverSocket(httpUrl: string, socket: WsClient): UrqlClient {
  return new UrqlClient({
    url: httpUrl,
    exchanges: [
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query || "" };
          return {
            subscribe(sink) {
              const unsubscribe = socket.subscribe(input, sink);
              return { unsubscribe };
            },
          };
        },
      }),
    ],
  });
}
