import { Field } from "type-graphql";
import { GraphqlObjectType } from "./object-type";
import type { UserCount, UserListFilter } from "../../domain/users/user-reads";
import { UserType } from "./user.type";

@GraphqlObjectType("PageInfo", {
  description: "The cursors at both ends of a users page, and whether pages exist before or after it.",
})
export class PageInfoType {
  @Field(() => Boolean, {
    description:
      "Reading forward (first): more items follow the page. Reading backward: true when the page was asked `before` a cursor.",
  })
  hasNextPage: boolean;

  @Field(() => Boolean, {
    description:
      "Reading backward (last): more items precede the page. Reading forward: true when the page was asked `after` a cursor.",
  })
  hasPreviousPage: boolean;

  @Field(() => String, {
    description: "The first edge's cursor: pass it as `before` for the previous page.",
    nullable: true,
  })
  startCursor: string | null;

  @Field(() => String, { description: "The last edge's cursor: pass it as `after` for the next page.", nullable: true })
  endCursor: string | null;
}

@GraphqlObjectType("UserEdge", { description: "One user of a page and its cursor (valid for the page's orderBy)." })
export class UserEdgeType {
  @Field(() => String, { description: "Opaque; pass it as `after` (next users) or `before` (previous users)." })
  cursor: string;

  @Field(() => UserType, { description: "The user." })
  node: UserType;
}

@GraphqlObjectType("UserConnection", {
  description: "A page of a project's users in a stable order (keyset pagination).",
})
export class UserConnectionType {
  /** What the page was read for; totalCount counts with the same filter, on demand. */
  groupId: number;
  filter: UserListFilter;
  /** The total read with the page (from the counters, or a search's), when it could be; else totalCount counts. */
  matchingTotal: number | null;
  /** matchingTotal is an estimate. */
  matchingTotalEstimated: boolean;
  /** The count, once read (totalCount and totalCountEstimated share it). */
  count?: Promise<UserCount>;

  @Field(() => [UserEdgeType], { description: "The page's users, in the page's order." })
  edges: UserEdgeType[];

  @Field(() => PageInfoType, { description: "The cursors at both ends of the page." })
  pageInfo: PageInfoType;
}
