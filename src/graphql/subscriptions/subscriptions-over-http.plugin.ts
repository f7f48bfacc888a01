import type { ApolloServerPlugin } from "@apollo/server";
import { GraphQLError } from "graphql";

export const SUBSCRIPTIONS_OVER_HTTP_MESSAGE =
  "Subscriptions are served over WebSocket at /graphql (graphql-ws protocol, subprotocol graphql-transport-ws), not over HTTP.";

/**
 * A subscription sent over HTTP is refused before execution (400 BAD_REQUEST): executed as a
 * query, its field would resolve without an event and fail as an internal error.
 */
export const subscriptionsOverHttpPlugin: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async didResolveOperation({ operation }) {
        if (operation?.operation !== "subscription") return;
        throw new GraphQLError(SUBSCRIPTIONS_OVER_HTTP_MESSAGE, {
          extensions: { code: "BAD_REQUEST", http: { status: 400 } },
        });
      },
    };
  },
};
