import { Field, Int } from "type-graphql";
import { GraphqlObjectType } from "./object-type";
import { GraphQLDateTime } from "graphql-scalars";
import { MoneyScalar } from "../scalars/money.scalar";
import { Node } from "../nodes/node.interface";
import { PageInfoType } from "./user-connection.type";
import { TagType } from "./user.type";

@GraphqlObjectType("GroupTotals", { description: "Totals over a project's registrations." })
export class GroupTotalsType {
  @Field(() => Int)
  totalUsers: number;

  @Field(() => Int, { description: "Registrations whose status is not excluding." })
  totalActiveUsers: number;

  @Field(() => MoneyScalar)
  totalOrder: string;

  @Field(() => MoneyScalar)
  totalPaid: string;

  @Field(() => MoneyScalar)
  totalBalance: string;
}

@GraphqlObjectType("Project", {
  description: "A registration project; groupId is the legacy group_id, id its Node id.",
  implements: Node,
})
export class ProjectType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => Int)
  groupId: number;

  @Field(() => String)
  name: string;

  @Field(() => String, { description: "ISO 4217 code." })
  currency: string;

  @Field(() => GraphQLDateTime)
  createdAt: Date;

  @Field(() => Boolean)
  isArchived: boolean;

  /** Read with the project when the query selects them (the field's resolver is ProjectResolver's). */
  groupTotals: GroupTotalsType | null;
}

@GraphqlObjectType("TagEdge")
export class TagEdgeType {
  @Field(() => String, { description: "Opaque; pass it as `after` for the tags that follow." })
  cursor: string;

  @Field(() => TagType)
  node: TagType;
}

@GraphqlObjectType("TagConnection", { description: "A page of a project's tags in id (creation) order." })
export class TagConnectionType {
  @Field(() => [TagEdgeType])
  edges: TagEdgeType[];

  @Field(() => [TagType], { description: "The edges' nodes, for clients that need no cursors." })
  nodes: TagType[];

  @Field(() => PageInfoType)
  pageInfo: PageInfoType;
}
