import "reflect-metadata";
import type { GraphQLSchema } from "graphql";
import { buildSchema } from "type-graphql";
import { FormResolver, UserFormResolver } from "./resolvers/form.resolver";
import { NodeResolver } from "./nodes/node.resolver";
import { assertRootFieldsAuthorized, registrantScopeChecker } from "./execution/registrant-scope";
import { ProjectResolver, TagConnectionResolver } from "./resolvers/project.resolver";
import { StatusResolver } from "./resolvers/status.resolver";
import { UserMutationResolver } from "./resolvers/user-mutation.resolver";
import { UserFieldsResolver } from "./resolvers/user-fields.resolver";
import { UserConnectionResolver, UserQueryResolver } from "./resolvers/user-query.resolver";
import { validateArguments } from "./execution/argument-validation";
import { withReadSummaryShortcut, withSynchronousNodeType } from "./execution/schema-patches";
import { WritesMutationResolver } from "./resolvers/writes.resolver";
import { WebhooksResolver } from "./resolvers/webhooks.resolver";
import { EventFeedResolver } from "./resolvers/event-feed.resolver";
import { ViewerResolver } from "./resolvers/viewer.resolver";
import { PersonDataResolver } from "./resolvers/person-data.resolver";
import { LiveEventsResolver } from "./resolvers/live-events.resolver";
import { PortalResolver } from "./resolvers/portal.resolver";

export const RESOLVERS = [
  ProjectResolver,
  TagConnectionResolver,
  UserQueryResolver,
  UserConnectionResolver,
  UserFieldsResolver,
  FormResolver,
  UserFormResolver,
  UserMutationResolver,
  PortalResolver,
  StatusResolver,
  WritesMutationResolver,
  NodeResolver,
  WebhooksResolver,
  EventFeedResolver,
  ViewerResolver,
  PersonDataResolver,
  LiveEventsResolver,
] as const;

/**
 * type-graphql requires a PubSub once the schema has a subscription, even when every subscription
 * brings its own `subscribe` (ours read the event feed: src/domain/events/live-events.ts).
 */
const NO_PUBSUB = {
  publish(): void {
    throw new Error("subscriptions read the event feed; nothing is published");
  },
  subscribe(): AsyncIterable<never> {
    throw new Error("subscriptions read the event feed; nothing is published");
  },
};

let built: Promise<GraphQLSchema> | null = null;

/**
 * The schema, built once per process from the decorated classes. `validate: true` runs
 * class-validator on every argument and input (type-graphql 2 defaults to off), through
 * `validateArguments` (execution/argument-validation.ts). The patches for
 * speed and the registrant scope are in execution/ (schema-patches.ts, registrant-scope.ts).
 */
export function buildGraphqlSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({
    resolvers: [...RESOLVERS],
    validate: true,
    // The same validation, without class-validator for arguments whose class declares no constraint.
    validateFn: validateArguments,
    authChecker: registrantScopeChecker,
    pubSub: NO_PUBSUB,
  })
    .then(withReadSummaryShortcut)
    .then(assertRootFieldsAuthorized)
    .then(withSynchronousNodeType)
    .then(withRootDescriptions);
  return built;
}

// type-graphql gives the root types no description; every element of the schema has one
// (test/graphql/graphql-descriptions.test.ts).
const ROOT_DESCRIPTIONS = {
  Query:
    "Reads: a project, its users, one user or node, the registrant's own registration (me), the event feed, webhooks.",
  Mutation: "Writes: each runs the rules of its REST action, in one transaction.",
  Subscription: "Live updates over WebSocket (graphql-ws at /graphql): the events of the feed as they commit.",
};

function withRootDescriptions(schema: GraphQLSchema): GraphQLSchema {
  for (const root of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()])
    if (root) root.description = ROOT_DESCRIPTIONS[root.name as keyof typeof ROOT_DESCRIPTIONS];
  return schema;
}
