import { ApolloArmor } from "@escape.tech/graphql-armor";
import type { GraphQLArmorRejectCallback } from "@escape.tech/graphql-armor-types";
import { GraphQLError } from "graphql";

/**
 * Abuse limits of the GraphQL endpoint. The depth allows the deepest useful read
 * (users → edges → node → children → forms → form → fields → options) with room to spare; the
 * cost budget (graphql-armor's static estimate: objects 2, scalars 1, ×1.5 per level, × a literal
 * `first` or `last`) admits a full 50-user page with meta info and forms, not 100 users with everything.
 */
export const GRAPHQL_LIMITS = {
  maxDepth: 10,
  maxAliases: 15,
  maxCost: 20_000,
  maxDirectives: 20,
  maxTokens: 2_000,
} as const;

export type QueryLimit = "depth" | "aliases" | "cost" | "directives" | "tokens";

/** A query refused by a limit: HTTP 400, extensions.code QUERY_TOO_COMPLEX, extensions.limit which one. */
export class QueryLimitError extends GraphQLError {
  constructor(limit: QueryLimit, message: string) {
    super(message.replace(/^Syntax Error: /, ""), { extensions: { code: "QUERY_TOO_COMPLEX", limit } });
  }
}

/** graphql-js's own message when `parseOptions.maxTokens` stops the parser (16.x spells it "more that"). */
export const TOKEN_LIMIT_MESSAGE = /Document contains more tha[nt] \d+ tokens/;

const reportAs =
  (limit: QueryLimit): GraphQLArmorRejectCallback =>
  (context, error) => {
    context?.reportError(new QueryLimitError(limit, error.message));
  };

/** graphql-armor's validation rules and plugins (tokens are limited by the parser itself, see mount-graphql). */
export function armorProtection() {
  return new ApolloArmor({
    maxDepth: {
      n: GRAPHQL_LIMITS.maxDepth,
      exposeLimits: true,
      propagateOnRejection: false,
      onReject: [reportAs("depth")],
    },
    maxAliases: {
      n: GRAPHQL_LIMITS.maxAliases,
      exposeLimits: true,
      propagateOnRejection: false,
      onReject: [reportAs("aliases")],
    },
    costLimit: {
      maxCost: GRAPHQL_LIMITS.maxCost,
      exposeLimits: true,
      propagateOnRejection: false,
      onReject: [reportAs("cost")],
    },
    maxDirectives: {
      n: GRAPHQL_LIMITS.maxDirectives,
      exposeLimits: true,
      propagateOnRejection: false,
      onReject: [reportAs("directives")],
    },
    maxTokens: { enabled: false },
    blockFieldSuggestion: { enabled: true },
  }).protect();
}
