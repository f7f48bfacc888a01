import { assertInterfaceType, assertObjectType, type GraphQLSchema } from "graphql";
import type { GraphqlContext } from "../context";
import { nodeTypeOf } from "../nodes/node.interface";
import { presentMetaInfo, type UserType } from "../types/user.type";

// Changes made to the schema type-graphql builds, for speed: each replaces a resolver that works
// but costs more than the answer needs. None changes an answer. A new field needs none of them.

/**
 * A User whose summary this request has already read (a users page's nodes, a `user` and its
 * children) answers metaInfo without type-graphql's resolver wrapper, which costs an async call,
 * a promise and a parameter list per node of every page. Every other User goes through the
 * type-graphql resolver (user-fields.resolver.ts), which waits on the summaries loader.
 */
export function withReadSummaryShortcut(schema: GraphQLSchema): GraphQLSchema {
  const field = assertObjectType(schema.getType("User")).getFields().metaInfo;
  const viaTypeGraphql = field.resolve;
  if (!viaTypeGraphql) throw new Error("User.metaInfo has no resolver to shortcut");
  field.resolve = (user: UserType, args, context: GraphqlContext, info) => {
    const summary = context.loaders.knownSummary(user.uid);
    return summary ? presentMetaInfo(summary) : viaTypeGraphql(user, args, context, info);
  };
  return schema;
}

/**
 * type-graphql wraps every resolveType in an async function. The compiled executor
 * (compiled-executor.ts) takes the type a resolveType returns as it is, so a promise would name no
 * type: Node's own synchronous function is put back.
 */
export function withSynchronousNodeType(schema: GraphQLSchema): GraphQLSchema {
  assertInterfaceType(schema.getType("Node")).resolveType = nodeTypeOf;
  return schema;
}
