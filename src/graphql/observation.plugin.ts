import type { ApolloServerPlugin } from "@apollo/server";
import { Kind, type OperationDefinitionNode } from "graphql";
import type { GraphqlContext } from "./context";

/**
 * The metrics/log `action` of a GraphQL request: the operation's first root field (`users`,
 * `createUser`), a set the schema bounds, unlike client-chosen operation names.
 */
export function graphqlActionOf(operation: OperationDefinitionNode): string {
  const first = operation.selectionSet.selections[0];
  if (first?.kind !== Kind.FIELD) return "other";
  return first.name.value.startsWith("__") ? "introspection" : first.name.value;
}

/** Tells the access log and metrics which operation ran and which error code it answered with. */
export const observationPlugin: ApolloServerPlugin<GraphqlContext> = {
  async requestDidStart() {
    return {
      async didResolveOperation({ contextValue, operation }) {
        if (operation) contextValue.observation.graphqlAction = graphqlActionOf(operation);
      },
      async willSendResponse({ contextValue, response }) {
        if (response.body.kind !== "single") return;
        const code = response.body.singleResult.errors?.[0]?.extensions?.code;
        if (typeof code === "string") contextValue.observation.errorCode = code;
      },
    };
  },
};
