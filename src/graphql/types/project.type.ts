import { Field, Int } from "type-graphql";
import { GraphqlObjectType } from "./object-type";
import { GraphQLDateTime } from "graphql-scalars";
import { MoneyScalar } from "../scalars/money.scalar";
import { Node } from "../nodes/node.interface";
import { PageInfoType } from "./user-connection.type";
import { TagType } from "./user.type";

@GraphqlObjectType("GroupTotals", { description: "Totals over a project's registrations." })
export class GroupTotalsType {
  @Field(() => Int, { description: "Registrations of the project, whatever their status." })
  totalUsers: number;

  @Field(() => Int, { description: "Registrations whose status is not excluding." })
  totalActiveUsers: number;

  @Field(() => MoneyScalar, { description: "Sum of the cart lines of the project's registrations." })
  totalOrder: string;

  @Field(() => MoneyScalar, { description: "Sum of their payments." })
  totalPaid: string;

  @Field(() => MoneyScalar, { description: "totalOrder − totalPaid." })
  totalBalance: string;
}

@GraphqlObjectType("Project", {
  description: "A registration project; groupId is the legacy group_id, id its Node id.",
  implements: Node,
})
export class ProjectType implements Node {
  /** The Node id (see node-id.ts). */
  id: string;

  @Field(() => Int, { description: "The legacy project id (group_id)." })
  groupId: number;

  @Field(() => String, { description: "The project's name." })
  name: string;

  @Field(() => String, { description: "ISO 4217 code." })
  currency: string;

  @Field(() => GraphQLDateTime, { description: "When the project was created." })
  createdAt: Date;

  @Field(() => Boolean, { description: "The project is archived (listed only when asked for archived projects)." })
  isArchived: boolean;

  /** Read with the project when the query selects them (the field's resolver is ProjectResolver's). */
  groupTotals: GroupTotalsType | null;
}

@GraphqlObjectType("TagEdge", { description: "One tag of a page and its cursor." })
export class TagEdgeType {
  @Field(() => String, { description: "Opaque; pass it as `after` for the tags that follow." })
  cursor: string;

  @Field(() => TagType, { description: "The tag." })
  node: TagType;
}

@GraphqlObjectType("TagConnection", { description: "A page of a project's tags in id (creation) order." })
export class TagConnectionType {
  /** The project, for totalCount. */
  groupId: number;

  @Field(() => [TagEdgeType], { description: "The page's tags." })
  edges: TagEdgeType[];

  @Field(() => [TagType], { description: "The edges' nodes, for clients that need no cursors." })
  nodes: TagType[];

  @Field(() => PageInfoType, { description: "The cursors at both ends of the page." })
  pageInfo: PageInfoType;
}
