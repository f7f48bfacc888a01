import type { ApolloServerPlugin } from "@apollo/server";

/**
 * An operation that met overload or database trouble answers HTTP 503 with Retry-After, as REST
 * does, instead of 200 with an error: clients and proxies then back off and retry.
 */
export function unavailablePlugin(retryAfterSeconds: number): ApolloServerPlugin {
  return {
    async requestDidStart() {
      return {
        async willSendResponse({ response }) {
          if (response.body.kind !== "single") return;
          const errors = response.body.singleResult.errors ?? [];
          if (!errors.some((error) => error.extensions?.code === "SERVICE_UNAVAILABLE")) return;
          response.http.status = 503;
          response.http.headers.set("retry-after", String(retryAfterSeconds));
        },
      };
    },
  };
}
