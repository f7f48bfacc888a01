import type { GraphQLResolveInfo } from "graphql";
import { Args, Ctx, Extensions, FieldResolver, Info, Int, Query, Resolver, Root, Authorized } from "type-graphql";
import { validationFailed } from "../../domain/errors";
import { matchingBucketsOf } from "../../domain/projects/project-counters";
import { readOwnRegistration } from "../../domain/sessions/registrant-sessions";
import {
  countUsers,
  listUsersPage,
  positionOf,
  UID_ORDER,
  type UserCount,
  type UserListFilter,
  type UserOrder,
} from "../../domain/users/user-reads";
import type { UserSummary } from "../../domain/users/user-summary";
import type { GraphqlContext } from "../context";
import { decodeUserCursor, encodeUserCursor } from "../cursor";
import { DEFAULT_PAGE_SIZE, UserArgs, UsersArgs } from "../inputs/user-query.input";
import { answeredCoordinates, ONE_STATEMENT_READ, type OneStatementRead } from "../execution/one-statement-read";
import { selectsField } from "../selection";
import { summaryMembersOf } from "../summary-selection";
import { UserConnectionType } from "../types/user-connection.type";
import { UserType } from "../types/user.type";
import { userFromOutcome, userFromRef } from "./present";
import { readUserForSelection, SUMMARY_FIELDS, USER_ROOT_READ } from "./user-read";

// The root reads of users: one user, the registrant's own, a page.

// `users` reads ownership, the page with its summaries and, when the counters can tell it, the
// matching total in one statement; a search alone reads a sample of the project and the page's
// matches first (user-page.data.ts), so it keeps the snapshot.
// The two answers are made once: the walk of a page's selection is kept per answer (one-statement-read.ts).
const PAGE_ANSWERED = answeredCoordinates(SUMMARY_FIELDS);
const PAGE_AND_TOTAL_ANSWERED = answeredCoordinates([
  ...SUMMARY_FIELDS,
  "UserConnection.totalCount",
  "UserConnection.totalCountEstimated",
]);
const USERS_PAGE_READ: OneStatementRead = (args) => {
  const filter = (args.filter ?? {}) as UserListFilter;
  if (searchesAlone(filter)) return null;
  return matchingBucketsOf(filter) ? PAGE_AND_TOTAL_ANSWERED : PAGE_ANSWERED;
};

/** The filter is a search and nothing else. */
const searchesAlone = (filter: UserListFilter): boolean =>
  (filter.search ?? "").trim() !== "" &&
  filter.statusId == null &&
  filter.excluded == null &&
  filter.level == null &&
  filter.updatedSince == null &&
  filter.tagId == null;

/** An edge of a users page, whose cursor is encoded when the query reads it (few do, per edge). */
class PageEdge {
  constructor(
    readonly node: UserType,
    private readonly summary: UserSummary,
    private readonly order: UserOrder,
  ) {}

  get cursor(): string {
    return encodeUserCursor(this.order, positionOf(this.summary, this.order));
  }
}

@Resolver(() => UserType)
export class UserQueryResolver {
  @Extensions({ [ONE_STATEMENT_READ]: USER_ROOT_READ })
  @Authorized("account")
  @Query(() => UserType, {
    nullable: true,
    description:
      "One user of a project (FORBIDDEN for a foreign project, USER_NOT_FOUND when not registered there); null with its error, so the query's other fields keep their data.",
  })
  async user(
    @Args() args: UserArgs,
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<UserType | null> {
    return readUserForSelection(ctx, args.groupId, args.cloginId, info);
  }

  @Authorized("registrant")
  @Query(() => UserType, {
    nullable: true,
    description:
      "The signed-in registrant's own registration (Authorization: Bearer <session token>); FORBIDDEN (null with its error) for an API account.",
  })
  async me(@Ctx() ctx: GraphqlContext): Promise<UserType | null> {
    const outcome = await readOwnRegistration(ctx.request);
    ctx.loaders.primeSummary(outcome.summary);
    return userFromOutcome(outcome);
  }
}

/** The filter of a users page as the domain takes it (each member optional). */
const userListFilterOf = (args: UsersArgs): UserListFilter => ({
  statusId: args.filter?.statusId,
  excluded: args.filter?.excluded,
  level: args.filter?.level,
  search: args.filter?.search,
  updatedSince: args.filter?.updatedSince,
  tagId: args.filter?.tagId,
});

/** The connection's count, read once for totalCount and totalCountEstimated together. */
function countOf(connection: UserConnectionType, ctx: GraphqlContext): Promise<UserCount> {
  if (connection.matchingTotal != null)
    return Promise.resolve({ total: connection.matchingTotal, estimated: connection.matchingTotalEstimated });
  connection.count ??= countUsers(ctx.request, connection.groupId, connection.filter);
  return connection.count;
}

@Resolver(() => UserConnectionType)
export class UserConnectionResolver {
  @Extensions({ [ONE_STATEMENT_READ]: USERS_PAGE_READ })
  @Authorized("account")
  @Query(() => UserConnectionType, {
    description:
      "A page of a project's users in uid order or the order of orderBy: forward with first/after, backward with last/before (Relay connection).",
  })
  async users(
    @Args() args: UsersArgs,
    @Ctx() ctx: GraphqlContext,
    @Info() info: GraphQLResolveInfo,
  ): Promise<UserConnectionType> {
    if (args.first != null && args.last != null) {
      throw validationFailed([
        {
          path: ["last"],
          reason: "CONFLICTING_MEMBERS",
          message: "cannot be given with first: give first (forward) or last (backward)",
        },
      ]);
    }
    const order: UserOrder = args.orderBy
      ? { key: args.orderBy.field, descending: args.orderBy.direction === "desc" }
      : UID_ORDER;
    const after = args.after == null ? null : decodeUserCursor(args.after, order);
    const before = args.before == null ? null : decodeUserCursor(args.before, order, "before");
    const filter = userListFilterOf(args);
    const backward = args.last != null;
    const page = await listUsersPage(ctx.request, {
      groupId: args.groupId,
      size: (backward ? args.last : args.first) ?? DEFAULT_PAGE_SIZE,
      direction: backward ? "backward" : "forward",
      order,
      after,
      before,
      filter,
      summaryMembers: summaryMembersOf(info),
      withTotal: selectsField(info, "totalCount"),
    });
    // The summaries hold the members this operation reads, which is all its summary fields read.
    for (const summary of page.summaries) ctx.loaders.primeSummary(summary);
    const edges = page.summaries.map((summary) => new PageEdge(userFromRef(summary), summary, order));
    return {
      groupId: args.groupId,
      filter,
      matchingTotal: page.matchingTotal,
      matchingTotalEstimated: page.matchingTotalEstimated,
      edges,
      pageInfo: {
        hasNextPage: page.hasNextPage,
        hasPreviousPage: page.hasPreviousPage,
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges.at(-1)?.cursor ?? null,
      },
    };
  }

  @FieldResolver(() => Int, {
    description:
      "Users matching the filter, on all pages. Exact, except for a search whose matches are too many to count within the request: then an estimate, and totalCountEstimated is true.",
  })
  async totalCount(@Root() connection: UserConnectionType, @Ctx() ctx: GraphqlContext): Promise<number> {
    return (await countOf(connection, ctx)).total;
  }

  @FieldResolver(() => Boolean, {
    description:
      "true when totalCount is an estimate: a search (with or without other filters) whose words match too many users to count them within the request; totalCount is then the share of matches (meeting the other filters too) among the project's first 2,000 users (uid order) times the project's users. false when totalCount is exact.",
  })
  async totalCountEstimated(@Root() connection: UserConnectionType, @Ctx() ctx: GraphqlContext): Promise<boolean> {
    return (await countOf(connection, ctx)).estimated;
  }
}
