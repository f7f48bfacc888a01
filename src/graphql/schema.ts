import "reflect-metadata";
import { assertInterfaceType, type GraphQLSchema } from "graphql";
import { buildSchema } from "type-graphql";
import { FormResolver, UserFormResolver } from "./resolvers/form.resolver";
import { nodeTypeOf } from "./nodes/node.interface";
import { NodeResolver } from "./nodes/node.resolver";
import { applyRegistrantScope } from "./registrant-scope";
import { ProjectResolver } from "./resolvers/project.resolver";
import { StatusResolver } from "./resolvers/status.resolver";
import { UserMutationResolver } from "./resolvers/user-mutation.resolver";
import {
  UserConnectionResolver,
  UserFieldsResolver,
  UserQueryResolver,
  withPageMetaInfoShortcut,
} from "./resolvers/user.resolver";
import { WritesMutationResolver } from "./resolvers/writes.resolver";
import { WebhooksResolver } from "./resolvers/webhooks.resolver";
import { EventFeedResolver } from "./resolvers/event-feed.resolver";
import { ViewerResolver } from "./resolvers/viewer.resolver";
import { PersonDataResolver } from "./resolvers/person-data.resolver";

export const RESOLVERS = [
  ProjectResolver,
  UserQueryResolver,
  UserConnectionResolver,
  UserFieldsResolver,
  FormResolver,
  UserFormResolver,
  UserMutationResolver,
  StatusResolver,
  WritesMutationResolver,
  NodeResolver,
  WebhooksResolver,
  EventFeedResolver,
  ViewerResolver,
  PersonDataResolver,
] as const;

let built: Promise<GraphQLSchema> | null = null;

/**
 * type-graphql wraps every resolveType in an async function. The compiled executor
 * (compiled-executor.ts) takes the type a resolveType returns as it is, so a promise would name no
 * type: Node's own synchronous function is put back.
 */
function withSynchronousNodeType(schema: GraphQLSchema): GraphQLSchema {
  assertInterfaceType(schema.getType("Node")).resolveType = nodeTypeOf;
  return schema;
}

/**
 * The schema, built once per process from the decorated classes. `validate: true` runs
 * class-validator on every argument and input (type-graphql 2 defaults to off). A page's nodes
 * answer metaInfo without type-graphql's wrapper (user.resolver.ts); the registrant scope then
 * wraps the few fields it guards (registrant-scope.ts).
 */
export function buildGraphqlSchema(): Promise<GraphQLSchema> {
  built ??= buildSchema({ resolvers: [...RESOLVERS], validate: true })
    .then(withPageMetaInfoShortcut)
    .then(applyRegistrantScope)
    .then(withSynchronousNodeType);
  return built;
}
