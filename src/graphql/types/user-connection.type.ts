import { Field } from "type-graphql";
import { GraphqlObjectType } from "./object-type";
import type { UserListFilter } from "../../domain/users/user-reads";
import { UserType } from "./user.type";

@GraphqlObjectType("PageInfo")
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

  @Field(() => String, { nullable: true })
  startCursor: string | null;

  @Field(() => String, { nullable: true })
  endCursor: string | null;
}

@GraphqlObjectType("UserEdge")
export class UserEdgeType {
  @Field(() => String, { description: "Opaque; pass it as `after` (next users) or `before` (previous users)." })
  cursor: string;

  @Field(() => UserType)
  node: UserType;
}

@GraphqlObjectType("UserConnection", {
  description: "A page of a project's users in a stable order (keyset pagination).",
})
export class UserConnectionType {
  /** What the page was read for; totalCount counts with the same filter, on demand. */
  groupId: number;
  filter: UserListFilter;
  /** The total read with the page (from the counters), when it could be; else totalCount counts. */
  matchingTotal: number | null;

  @Field(() => [UserEdgeType])
  edges: UserEdgeType[];

  @Field(() => PageInfoType)
  pageInfo: PageInfoType;
}
